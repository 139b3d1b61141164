package chartspec

import (
	"slices"
)

// AddAnnotation adds a note anchored to a data point.
type AddAnnotation struct {
	Op         string   `json:"op"`
	Annotation NoteBody `json:"annotation"`
}

// NoteBody is the annotation field of addAnnotation.
type NoteBody struct {
	Text     string   `json:"text"`
	X        Scalar   `json:"x"`
	Series   string   `json:"series,omitempty"`
	Y        *float64 `json:"y,omitempty"`
	Position string   `json:"position,omitempty"`
	Arrow    *bool    `json:"arrow,omitempty"`
}

// Name is "addAnnotation".
func (AddAnnotation) Name() string { return "addAnnotation" }

func (o *AddAnnotation) apply(st *applyState) *OpError {
	n := o.Annotation
	if n.Y != nil && n.Series != "" {
		return opErr("annotation.y", "give series (a point of that series) or y (a point in data space), not both")
	}
	x := n.X
	a := Annotation{Type: KindNote, Text: n.Text, X: &x, Series: n.Series, Y: n.Y, Position: n.Position, Arrow: n.Arrow}
	if a.Position == "auto" {
		a.Position = ""
	}
	return st.addAnnotation(a, "annotation")
}

// AddReferenceLine adds a line across the plot at one value of an axis.
type AddReferenceLine struct {
	Op   string   `json:"op"`
	Line LineBody `json:"line"`
}

// LineBody is the line field of addReferenceLine.
type LineBody struct {
	Axis  string `json:"axis"`
	Value Scalar `json:"value"`
	Label string `json:"label,omitempty"`
}

// Name is "addReferenceLine".
func (AddReferenceLine) Name() string { return "addReferenceLine" }

func (o *AddReferenceLine) apply(st *applyState) *OpError {
	v := o.Line.Value
	return st.addAnnotation(Annotation{Type: KindLine, Axis: o.Line.Axis, Value: &v, Label: o.Line.Label}, "line")
}

// AddRange adds a shaded band between two values of an axis.
type AddRange struct {
	Op    string    `json:"op"`
	Range RangeBody `json:"range"`
}

// RangeBody is the range field of addRange.
type RangeBody struct {
	Axis  string `json:"axis"`
	From  Scalar `json:"from"`
	To    Scalar `json:"to"`
	Label string `json:"label,omitempty"`
}

// Name is "addRange".
func (AddRange) Name() string { return "addRange" }

func (o *AddRange) apply(st *applyState) *OpError {
	from, to := o.Range.From, o.Range.To
	return st.addAnnotation(Annotation{Type: KindRange, Axis: o.Range.Axis, From: &from, To: &to, Label: o.Range.Label}, "range")
}

// RemoveAnnotation removes one note, line or range by its place in the
// annotations list.
type RemoveAnnotation struct {
	Op    string `json:"op"`
	Index int    `json:"index"`
}

// Name is "removeAnnotation".
func (RemoveAnnotation) Name() string { return "removeAnnotation" }

func (o *RemoveAnnotation) apply(st *applyState) *OpError {
	n := len(st.spec.Annotations)
	if o.Index >= n {
		if n == 0 {
			return opErr("index", "the chart has no notes, lines or ranges to remove")
		}
		return opErr("index", "no annotation at index %d; the chart has %d (0 to %d, in the order added)", o.Index, n, n-1)
	}
	st.spec.Annotations = slices.Delete(slices.Clone(st.spec.Annotations), o.Index, o.Index+1)
	if len(st.spec.Annotations) == 0 {
		st.spec.Annotations = nil
	}
	return nil
}

// ClearAnnotations removes every note, line and range.
type ClearAnnotations struct {
	Op string `json:"op"`
}

// Name is "clearAnnotations".
func (ClearAnnotations) Name() string { return "clearAnnotations" }

func (o *ClearAnnotations) apply(st *applyState) *OpError {
	st.spec.Annotations = nil
	return nil
}

// cloneAnnotations deep-copies the annotations list.
func cloneAnnotations(as []Annotation) []Annotation {
	if as == nil {
		return nil
	}
	out := make([]Annotation, len(as))
	for i, a := range as {
		out[i] = a
		for _, p := range []**Scalar{&out[i].X, &out[i].Value, &out[i].From, &out[i].To} {
			if *p != nil {
				v := **p
				*p = &v
			}
		}
		if a.Y != nil {
			y := *a.Y
			out[i].Y = &y
		}
		if a.Arrow != nil {
			b := *a.Arrow
			out[i].Arrow = &b
		}
	}
	return out
}

// placeSchema is a place on an axis: a number or a string.
func placeSchema(desc string) *schema {
	return &schema{types: []string{"number", "string"}, desc: desc}
}

func defAddAnnotation() opDef {
	text := str("the note's text; {value} stands for its point's value, written in the chart's number format")
	text.minLen, text.maxLen = 1, 300
	note := object("a note anchored to a data point", []string{"text", "x"},
		p("text", text),
		p("x", placeSchema("where the note points along the x axis, as written in the data: a category name, a number or a date")),
		p("series", str("the value column id whose point the note names (default: the first drawn one)")),
		p("y", number("a value to anchor to instead of a series' point (a point in data space)")),
		p("position", enumOf("where the note sits from its point", "auto", "above", "below", "left", "right")),
		p("arrow", boolean("draw a connector to the point (default: when the note is not beside it)")),
	)
	return opDef{
		name:  "addAnnotation",
		about: "add a note pointing at a data point: x a category, number or date of the data, series a value column (or y a value); drawn on " + typeList(KindNote),
		schema: object("Adds a note anchored to a data point.", []string{"op", "annotation"},
			p("op", opConst("addAnnotation")),
			p("annotation", note),
		),
		example: `{"op":"addAnnotation","annotation":{"text":"Best seller","x":"France","series":"c2"}}`,
		newOp:   func() Op { return &AddAnnotation{} },
	}
}

func defAddReferenceLine() opDef {
	label := str("the line's label; for mean or median the computed value is added")
	label.maxLen = 120
	line := object("a reference line", []string{"axis", "value"},
		p("axis", axisSchema()),
		p("value", placeSchema(`where the line crosses: a number, a date on a time axis, a category, or "mean" or "median" of the drawn values`)),
		p("label", label),
	)
	return opDef{
		name:  "addReferenceLine",
		about: "add a line across the plot at a value (a target, a threshold), or at \"mean\" or \"median\"; the scale grows to show it unless setAxis fixed the range; drawn on " + typeList(KindLine),
		schema: object("Adds a reference line.", []string{"op", "line"},
			p("op", opConst("addReferenceLine")),
			p("line", line),
		),
		example: `{"op":"addReferenceLine","line":{"axis":"y","value":100,"label":"Target"}}`,
		newOp:   func() Op { return &AddReferenceLine{} },
	}
}

func defAddRange() opDef {
	label := str("the range's label, drawn at its top")
	label.maxLen = 120
	rng := object("a shaded range", []string{"axis", "from", "to"},
		p("axis", axisSchema()),
		p("from", placeSchema("where the band starts: a number, a date or a category")),
		p("to", placeSchema("where the band ends: a number, a date or a category")),
		p("label", label),
	)
	return opDef{
		name:  "addRange",
		about: "add a shaded band behind the marks between two values of an axis (a recession, a target zone); drawn on " + typeList(KindRange),
		schema: object("Adds a shaded range.", []string{"op", "range"},
			p("op", opConst("addRange")),
			p("range", rng),
		),
		example: `{"op":"addRange","range":{"axis":"y","from":80,"to":120,"label":"Target zone"}}`,
		newOp:   func() Op { return &AddRange{} },
	}
}

func defRemoveAnnotation() opDef {
	return opDef{
		name:  "removeAnnotation",
		about: "remove the note, line or range at index of the spec's annotations list (0 = first added)",
		schema: object("Removes one note, reference line or range, chosen by position.", []string{"op", "index"},
			p("op", opConst("removeAnnotation")),
			p("index", integer("the annotation's position in the annotations list, 0 for the first", 0, MaxAnnotations-1)),
		),
		example: `{"op":"removeAnnotation","index":0}`,
		newOp:   func() Op { return &RemoveAnnotation{} },
	}
}

func defClearAnnotations() opDef {
	return opDef{
		name:  "clearAnnotations",
		about: "remove every note, reference line and range",
		schema: object("Removes every note, reference line and range.", []string{"op"},
			p("op", opConst("clearAnnotations")),
		),
		example: `{"op":"clearAnnotations"}`,
		newOp:   func() Op { return &ClearAnnotations{} },
	}
}

// typeList names the chart types that draw kind, for the catalog.
func typeList(kind string) string {
	ts := AnnotationTypes(kind)
	out := ""
	for i, t := range ts {
		switch {
		case i == 0:
		case i == len(ts)-1:
			out += " and "
		default:
			out += ", "
		}
		out += t
	}
	return out + " charts"
}
