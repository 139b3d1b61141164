package chartspec

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"chartd.dev/libs/dataset"
)

// Annotation kinds, the values of Annotation.Type.
const (
	KindNote  = "note"
	KindLine  = "line"
	KindRange = "range"
)

// Reference values a line may take instead of a number: the mean or the
// median of the drawn values, computed when the chart is drawn.
const (
	RefMean   = "mean"
	RefMedian = "median"
)

// MaxAnnotations bounds the notes, lines and ranges of one chart, so a
// runaway client cannot make every drawing slow; the lint asks for far
// fewer notes.
const MaxAnnotations = 100

// Annotation is one note, reference line or range of the spec's
// annotations list, in the order added. Type says which fields apply.
type Annotation struct {
	// Type is "note", "line" or "range".
	Type string `json:"type" enum:"note,line,range"`
	// Text is a note's text.
	Text string `json:"text,omitempty"`
	// X is where a note points along the x axis, as written in the data:
	// a category name, a number or a date.
	X *Scalar `json:"x,omitempty"`
	// Series is the value column a note's point belongs to (default: the
	// first drawn one).
	Series string `json:"series,omitempty"`
	// Y, instead of Series, anchors a note to a point in data space.
	Y *float64 `json:"y,omitempty"`
	// Position is where a note sits from its point.
	Position string `json:"position,omitempty" enum:"auto,above,below,left,right"`
	// Arrow draws a connector from the note to its point; nil draws one
	// when the note is not beside its point.
	Arrow *bool `json:"arrow,omitempty"`
	// Axis is the axis a line or range measures along: "y" the value axis,
	// "x" the x axis.
	Axis string `json:"axis,omitempty" enum:"x,y"`
	// Value is a line's place: a number, a date, or "mean" or "median".
	Value *Scalar `json:"value,omitempty"`
	// From and To bound a range.
	From *Scalar `json:"from,omitempty"`
	To   *Scalar `json:"to,omitempty"`
	// Label names a line or a range.
	Label string `json:"label,omitempty"`
}

// Scalar is a place on an axis as a person writes it: a JSON number, or
// text (a category name, a date, "mean" or "median").
type Scalar struct {
	Num    float64
	Text   string
	IsText bool
}

// Number is a numeric Scalar.
func Number(v float64) *Scalar { return &Scalar{Num: v} }

// Word is a text Scalar.
func Word(s string) *Scalar { return &Scalar{Text: s, IsText: true} }

// MarshalJSON writes a number or a string.
func (s Scalar) MarshalJSON() ([]byte, error) {
	if s.IsText {
		return json.Marshal(s.Text)
	}
	return json.Marshal(s.Num)
}

// UnmarshalJSON reads a number or a string.
func (s *Scalar) UnmarshalJSON(b []byte) error {
	if strings.HasPrefix(strings.TrimSpace(string(b)), `"`) {
		*s = Scalar{IsText: true}
		return json.Unmarshal(b, &s.Text)
	}
	*s = Scalar{}
	if err := json.Unmarshal(b, &s.Num); err != nil {
		return fmt.Errorf("a place on an axis is a number or a string: %w", err)
	}
	return nil
}

// String writes the scalar as the person wrote it, for messages and labels.
func (s Scalar) String() string {
	if s.IsText {
		return s.Text
	}
	return strconv.FormatFloat(s.Num, 'f', -1, 64)
}

// AnnotationTypes lists the chart types that draw annotations of kind:
// notes point at a data point of a chart with an x axis; lines and ranges
// need a value scale. Other types refuse the op (and the lint says what a
// later setType leaves undrawn).
func AnnotationTypes(kind string) []string {
	if kind == KindNote {
		return []string{"bar", "line", "scatter", "dotplot"}
	}
	return []string{"bar", "line", "scatter", "histogram", "boxplot", "dotplot"}
}

// kindNoun names a kind in messages.
func kindNoun(kind string) string {
	switch kind {
	case KindNote:
		return "notes"
	case KindLine:
		return "reference lines"
	}
	return "ranges"
}

// XRole is the role whose column lays out the x axis that notes, x lines
// and x ranges measure along ("" for a type without one).
func XRole(chartType string) string {
	switch chartType {
	case "bar", "dotplot":
		return "category"
	case "line", "scatter":
		return "x"
	case "histogram":
		return "value"
	case "boxplot":
		return "group"
	}
	return ""
}

// ValueRoles are the roles whose columns a note's series names and whose
// values a mean or median line on the value axis sums.
func ValueRoles(chartType string) []string {
	switch chartType {
	case "scatter":
		return []string{"y"}
	case "histogram", "boxplot":
		return []string{"value"}
	}
	return []string{"values"}
}

// MatchRow answers the first row whose cell of col is the place v, as the
// person wrote it: the category name (case ignored when no cell matches
// exactly), the number, or the date ("2024-03-05", "2024-03", "2024"); -1
// when none is.
func MatchRow(col *dataset.Column, v Scalar) int {
	if col == nil {
		return -1
	}
	if col.Kind == dataset.Text {
		want := strings.TrimSpace(v.String())
		if i := slices.Index(col.Text, want); i >= 0 {
			return i
		}
		for i, t := range col.Text {
			if strings.EqualFold(t, want) {
				return i
			}
		}
		return -1
	}
	at, ok := AxisNumber(col, v)
	if !ok {
		return -1
	}
	for i, n := range col.Num {
		if n == at {
			return i
		}
	}
	if v.IsText {
		for i := range col.Num {
			if col.Format(i) == strings.TrimSpace(v.Text) {
				return i
			}
		}
	}
	return -1
}

// AxisNumber reads v as a position on a number or date column's axis: a
// number as it is, or for a date column a date or a year (Unix ms, as the
// column holds its dates).
func AxisNumber(col *dataset.Column, v Scalar) (float64, bool) {
	if col != nil && col.Kind == dataset.Date {
		s := v.String()
		if ms, ok := dataset.ParseDate(s); ok {
			return ms, true
		}
		return 0, false
	}
	if !v.IsText {
		return v.Num, !math.IsNaN(v.Num) && !math.IsInf(v.Num, 0)
	}
	f, err := strconv.ParseFloat(strings.TrimSpace(v.Text), 64)
	return f, err == nil && !math.IsNaN(f) && !math.IsInf(f, 0)
}

// AnnotationsNotDrawn words which annotations the chart's type leaves
// undrawn ("2 notes and 1 reference line are not drawn on a pie chart;
// they are drawn on bar, line, … charts"), or "" when every one is drawn.
func AnnotationsNotDrawn(spec *Spec) string {
	counts := map[string]int{}
	var order []string
	for _, a := range spec.Annotations {
		if slices.Contains(AnnotationTypes(a.Type), spec.Type) {
			continue
		}
		if counts[a.Type] == 0 {
			order = append(order, a.Type)
		}
		counts[a.Type]++
	}
	if len(order) == 0 {
		return ""
	}
	var parts []string
	for _, k := range order {
		noun := strings.TrimSuffix(kindNoun(k), "s")
		if counts[k] > 1 {
			noun += "s"
		}
		parts = append(parts, strconv.Itoa(counts[k])+" "+noun)
	}
	verb := "are"
	if len(spec.Annotations) == 1 || (len(order) == 1 && counts[order[0]] == 1) {
		verb = "is"
	}
	return fmt.Sprintf("%s %s not drawn on a %s chart; %s are drawn on %s charts", strings.Join(parts, " and "), verb, spec.Type,
		kindNoun(order[0]), strings.Join(AnnotationTypes(order[0]), ", "))
}

// addAnnotation checks an annotation against the chart and appends it.
func (st *applyState) addAnnotation(a Annotation, field string) *OpError {
	if !slices.Contains(AnnotationTypes(a.Type), st.spec.Type) {
		return opErr(field, "%s are drawn on %s charts, not on a %s chart; setType first", kindNoun(a.Type), strings.Join(AnnotationTypes(a.Type), ", "), st.spec.Type)
	}
	if len(st.spec.Annotations) >= MaxAnnotations {
		return opErr(field, "a chart holds at most %d notes, lines and ranges; remove some with removeAnnotation", MaxAnnotations)
	}
	t := st.table()
	xCol := firstColumn(t, st.spec.Mapping.Cols(XRole(st.spec.Type)))
	switch a.Type {
	case KindNote:
		if oe := st.checkNote(a, field, t, xCol); oe != nil {
			return oe
		}
	case KindLine:
		if oe := checkPlace(st.spec.Type, a.Axis, *a.Value, field+".value", xCol, true); oe != nil {
			return oe
		}
	case KindRange:
		if oe := checkPlace(st.spec.Type, a.Axis, *a.From, field+".from", xCol, false); oe != nil {
			return oe
		}
		if oe := checkPlace(st.spec.Type, a.Axis, *a.To, field+".to", xCol, false); oe != nil {
			return oe
		}
	}
	st.spec.Annotations = append(st.spec.Annotations, a)
	return nil
}

// firstColumn is the first of ids found in t, or nil.
func firstColumn(t *dataset.Table, ids []string) *dataset.Column {
	for _, c := range t.ColumnsByID(ids) {
		if c != nil {
			return c
		}
	}
	return nil
}

// checkNote refuses a note whose x names nothing in the data or whose
// series is not drawn.
func (st *applyState) checkNote(a Annotation, field string, t *dataset.Table, xCol *dataset.Column) *OpError {
	if xCol == nil {
		return opErr(field+".x", "the chart has no %s column to anchor a note on; setMapping first", XRole(st.spec.Type))
	}
	values := st.spec.Mapping.Cols(ValueRoles(st.spec.Type)[0])
	if a.Series != "" && !slices.Contains(values, a.Series) {
		return opErr(field+".series", "%q is not a drawn value column; the drawn ones are %s", a.Series, idText(values))
	}
	if a.Y != nil && xCol.Kind != dataset.Text {
		if _, ok := AxisNumber(xCol, *a.X); ok {
			return nil // a point in data space need not be a row
		}
	}
	if MatchRow(xCol, *a.X) >= 0 {
		return nil
	}
	return opErr(field+".x", "%q names no %s in %s; %s", a.X.String(), rowNoun(xCol), colLabel(xCol), someCells(xCol))
}

// rowNoun is what one cell of an x column is called in messages.
func rowNoun(c *dataset.Column) string {
	switch c.Kind {
	case dataset.Text:
		return "category"
	case dataset.Date:
		return "date"
	}
	return "value"
}

// someCells lists the first distinct cells of a column for messages:
// "the categories are Germany, France, … (40 in all)".
func someCells(c *dataset.Column) string {
	seen := map[string]bool{}
	var cells []string
	n := 0
	rows := len(c.Num)
	if c.Kind == dataset.Text {
		rows = len(c.Text)
	}
	for i := 0; i < rows; i++ {
		s := c.Format(i)
		if s == "" || seen[s] {
			continue
		}
		seen[s] = true
		n++
		if len(cells) < listedAtMost {
			cells = append(cells, s)
		}
	}
	if n == 0 {
		return "it holds no " + rowNoun(c) + " yet"
	}
	noun := rowNoun(c) + "s"
	if c.Kind == dataset.Text {
		noun = "categories"
	}
	return "the " + noun + " there are " + joinSome(cells, n)
}

// checkPlace refuses a line's or range's place that the chart's axis
// cannot show: a word that is neither mean, median, a number nor (along x)
// a category or date of the data.
func checkPlace(chartType, axis string, v Scalar, field string, xCol *dataset.Column, stats bool) *OpError {
	if v.IsText && (v.Text == RefMean || v.Text == RefMedian) {
		if !stats {
			return opErr(field, "a range runs between two numbers or dates; %q is for addReferenceLine", v.Text)
		}
		if axis == "x" && !slices.Contains([]string{"histogram", "scatter"}, chartType) {
			return opErr(field, "the mean and median are of the drawn values, on the value axis (axis \"y\") of a %s chart", chartType)
		}
		return nil
	}
	valueAxisIsX := chartType == "histogram"
	if axis == "y" && !valueAxisIsX || axis == "x" && valueAxisIsX {
		if _, ok := AxisNumber(nil, v); !ok {
			return opErr(field, "%q is not a number; the value axis takes a number, \"mean\" or \"median\"", v.String())
		}
		return nil
	}
	if axis == "y" {
		return opErr(field, "a histogram's y axis counts rows; put the line or range on its values with axis \"x\"")
	}
	if xCol == nil {
		return opErr(field, "the chart has no x column yet; setMapping first")
	}
	if xCol.Kind != dataset.Text {
		if _, ok := AxisNumber(xCol, v); ok {
			return nil
		}
		return opErr(field, "%q is not a %s of the x axis (%s); %s", v.String(), rowNoun(xCol), colLabel(xCol), someCells(xCol))
	}
	if MatchRow(xCol, v) < 0 {
		return opErr(field, "%q names no category in %s; %s", v.String(), colLabel(xCol), someCells(xCol))
	}
	return nil
}
