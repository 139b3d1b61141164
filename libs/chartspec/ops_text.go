package chartspec

import (
	"encoding/json"
	"strings"
	"unicode/utf8"
)

// Optional is a field that may be left out, sent as null (clear the
// setting) or sent with a value.
type Optional[T any] struct {
	Set   bool // the field was present
	Null  bool // it was null
	Value T
}

// UnmarshalJSON records presence and null; encoding/json calls it only
// for fields that are present.
func (o *Optional[T]) UnmarshalJSON(b []byte) error {
	o.Set = true
	if strings.TrimSpace(string(b)) == "null" {
		o.Null = true
		return nil
	}
	return json.Unmarshal(b, &o.Value)
}

// TextInput is the title or subtitle an op sends.
type TextInput struct {
	Text string `json:"text"`
	// Show defaults to whether Text is non-empty.
	Show *bool `json:"show,omitempty"`
}

// textSchema is the shared shape of setTitle's title and setSubtitle's subtitle.
func textSchema(what string, maxLen int) *schema {
	text := str("the " + what + " text; an empty text hides the " + what)
	text.maxLen = maxLen
	return object("the "+what+": {\"text\": \"…\"}, optionally with \"show\"", []string{"text"},
		p("text", text),
		p("show", boolean("whether the "+what+" is drawn; defaults to true when the text is not empty")),
	)
}

// apply sets a Text from the input.
func (in TextInput) apply(field string, t *Text) *OpError {
	show := in.Text != ""
	if in.Show != nil {
		show = *in.Show
	}
	if show && strings.TrimSpace(in.Text) == "" {
		return opErr(field+".text", "is empty, so there is nothing to show; give a text or set show to false")
	}
	*t = Text{Show: show, Text: in.Text}
	return nil
}

// SetTitle sets the drawn title (not the chart's name in the list).
type SetTitle struct {
	Op    string    `json:"op"`
	Title TextInput `json:"title"`
}

// Name is "setTitle".
func (SetTitle) Name() string { return "setTitle" }

func (o *SetTitle) apply(st *applyState) *OpError {
	return o.Title.apply("title", &st.spec.Style.Title)
}

func defSetTitle() opDef {
	return opDef{
		name:  "setTitle",
		about: "the drawn title (rename_chart changes only the list name); empty text hides it",
		schema: object("Sets the chart's drawn title.", []string{"op", "title"},
			p("op", opConst("setTitle")),
			p("title", textSchema("title", 200)),
		),
		example: `{"op":"setTitle","title":{"text":"Sales by region, 2024"}}`,
		newOp:   func() Op { return &SetTitle{} },
	}
}

// SetSubtitle sets the smaller line under the title.
type SetSubtitle struct {
	Op       string    `json:"op"`
	Subtitle TextInput `json:"subtitle"`
}

// Name is "setSubtitle".
func (SetSubtitle) Name() string { return "setSubtitle" }

func (o *SetSubtitle) apply(st *applyState) *OpError {
	return o.Subtitle.apply("subtitle", &st.spec.Style.Subtitle)
}

func defSetSubtitle() opDef {
	return opDef{
		name:  "setSubtitle",
		about: "the line under the title, a good place for the unit (the source goes in setFooter); empty text hides it",
		schema: object("Sets the subtitle under the title.", []string{"op", "subtitle"},
			p("op", opConst("setSubtitle")),
			p("subtitle", textSchema("subtitle", 300)),
		),
		example: `{"op":"setSubtitle","subtitle":{"text":"Net sales in euros"}}`,
		newOp:   func() Op { return &SetSubtitle{} },
	}
}

// Footer field limits, in characters: a source names an organisation or a
// publication, notes may run to a short paragraph, a byline is a name or
// two.
const (
	MaxFooterSource = 200
	MaxFooterNotes  = 500
	MaxFooterByline = 100
)

// FooterInput is the footer a setFooter op sends: each field left out
// keeps its value; null or an empty text clears it.
type FooterInput struct {
	Source Optional[string] `json:"source"`
	Notes  Optional[string] `json:"notes"`
	Byline Optional[string] `json:"byline"`
}

// footerSchema is setFooter's footer: at least one of its three fields.
func footerSchema() *schema {
	field := func(desc string, maxLen int) *schema {
		s := nullable(str(desc + "; an empty text or null removes it"))
		s.maxLen = maxLen
		return s
	}
	s := object("the footer under the chart: {\"source\": \"…\", \"notes\": \"…\", \"byline\": \"…\"}; fields left out keep their value", nil,
		p("source", field("where the data comes from, drawn as \"Source: …\"", MaxFooterSource)),
		p("notes", field("notes on the data (definitions, gaps, rounding), drawn above the source in up to three lines", MaxFooterNotes)),
		p("byline", field("who made the chart, drawn as \"Chart: …\"", MaxFooterByline)),
	)
	s.minProps = 1
	return s
}

// SetFooter sets the source, notes and byline drawn under the chart.
type SetFooter struct {
	Op     string      `json:"op"`
	Footer FooterInput `json:"footer"`
}

// Name is "setFooter".
func (SetFooter) Name() string { return "setFooter" }

func (o *SetFooter) apply(st *applyState) *OpError {
	f := Footer{}
	if cur := st.spec.Style.Footer; cur != nil {
		f = *cur
	}
	for _, fld := range []struct {
		name string
		in   Optional[string]
		max  int
		dst  *string
	}{
		{"source", o.Footer.Source, MaxFooterSource, &f.Source},
		{"notes", o.Footer.Notes, MaxFooterNotes, &f.Notes},
		{"byline", o.Footer.Byline, MaxFooterByline, &f.Byline},
	} {
		if !fld.in.Set {
			continue
		}
		v := strings.TrimSpace(fld.in.Value)
		if fld.in.Null {
			v = ""
		}
		// The schema bounds the text as sent; this guards ops decoded
		// some other way.
		if n := utf8.RuneCountInString(v); n > fld.max {
			return opErr("footer."+fld.name, "must be at most %d characters; got %d", fld.max, n)
		}
		*fld.dst = v
	}
	if f == (Footer{}) {
		st.spec.Style.Footer = nil
	} else {
		st.spec.Style.Footer = &f
	}
	return nil
}

func defSetFooter() opDef {
	return opDef{
		name:  "setFooter",
		about: "the source, notes and byline drawn under the chart; fields left out keep their value, an empty text or null removes one",
		schema: object("Sets the footer under the chart: the data's source, notes and a byline.", []string{"op", "footer"},
			p("op", opConst("setFooter")),
			p("footer", footerSchema()),
		),
		example: `{"op":"setFooter","footer":{"source":"Eurostat","notes":"Figures for 2024 are provisional.","byline":"Data desk"}}`,
		newOp:   func() Op { return &SetFooter{} },
	}
}

// SetLabels shows or hides value labels on the marks.
type SetLabels struct {
	Op   string `json:"op"`
	Show bool   `json:"show"`
}

// Name is "setLabels".
func (SetLabels) Name() string { return "setLabels" }

func (o *SetLabels) apply(st *applyState) *OpError {
	st.spec.Style.Labels.Show = o.Show
	return nil
}

func defSetLabels() opDef {
	return opDef{
		name:  "setLabels",
		about: "value labels on bar ends, slices and points",
		schema: object("Shows or hides value labels on the marks.", []string{"op", "show"},
			p("op", opConst("setLabels")),
			p("show", boolean("true to write each value on its mark")),
		),
		example: `{"op":"setLabels","show":true}`,
		newOp:   func() Op { return &SetLabels{} },
	}
}

// SetNumberFormat chooses how values are written on axes, labels and tooltips.
type SetNumberFormat struct {
	Op       string           `json:"op"`
	Decimals Optional[int]    `json:"decimals"`
	Prefix   Optional[string] `json:"prefix"`
	Suffix   Optional[string] `json:"suffix"`
	Compact  Optional[bool]   `json:"compact"`
	Locale   Optional[string] `json:"locale"`
}

// Name is "setNumberFormat".
func (SetNumberFormat) Name() string { return "setNumberFormat" }

func (o *SetNumberFormat) apply(st *applyState) *OpError {
	nf := NumberFormat{}
	if cur := st.spec.Style.NumberFormat; cur != nil {
		nf = *cur
		if cur.Decimals != nil {
			d := *cur.Decimals
			nf.Decimals = &d
		}
		if cur.Compact != nil {
			c := *cur.Compact
			nf.Compact = &c
		}
	}
	if o.Decimals.Set {
		nf.Decimals = nil
		if !o.Decimals.Null {
			d := o.Decimals.Value
			nf.Decimals = &d
		}
	}
	if o.Prefix.Set {
		nf.Prefix = o.Prefix.Value
	}
	if o.Suffix.Set {
		nf.Suffix = o.Suffix.Value
	}
	if o.Compact.Set {
		nf.Compact = nil
		if !o.Compact.Null {
			c := o.Compact.Value
			nf.Compact = &c
		}
	}
	if o.Locale.Set {
		nf.Locale = ""
		if !o.Locale.Null && o.Locale.Value != "" {
			tag, err := NumberLocale(o.Locale.Value)
			if err != nil {
				return opErr("locale", "%v", err)
			}
			nf.Locale = tag
		}
	}
	if nf == (NumberFormat{}) {
		st.spec.Style.NumberFormat = nil
	} else {
		st.spec.Style.NumberFormat = &nf
	}
	return nil
}

func defSetNumberFormat() opDef {
	affix := func(desc string) *schema {
		s := nullable(str(desc))
		s.maxLen = 12
		return s
	}
	s := object("Sets how numbers are written on axes, labels and tooltips; fields left out keep their value, null resets one.", []string{"op"},
		p("op", opConst("setNumberFormat")),
		p("decimals", nullable(integer("the number of decimals; null is automatic", 0, 10))),
		p("prefix", affix("text before each number, such as \"$\"")),
		p("suffix", affix("text after each number, such as \"%\" or \" kg\"")),
		p("compact", nullable(boolean("true writes 1.2k and 3.4M, false every digit (1,400,000,000); null leaves it to the data"))),
		p("locale", localeSchema()),
	)
	s.minProps = 2
	return opDef{
		name:    "setNumberFormat",
		about:   "decimals, prefix/suffix (currency, %, units), compact 1.2k, locale marks (de: 1.234,5)",
		schema:  s,
		example: `{"op":"setNumberFormat","decimals":1,"prefix":"€"}`,
		newOp:   func() Op { return &SetNumberFormat{} },
	}
}

// SetAxisTitle sets or removes the title of the x or y axis.
type SetAxisTitle struct {
	Op   string  `json:"op"`
	Axis string  `json:"axis"`
	Text *string `json:"text"`
}

// Name is "setAxisTitle".
func (SetAxisTitle) Name() string { return "setAxisTitle" }

func (o *SetAxisTitle) apply(st *applyState) *OpError {
	if err := needAxes(st.spec.Type, "setAxisTitle"); err != nil {
		return err
	}
	var t *AxisTitle
	if o.Text != nil && strings.TrimSpace(*o.Text) != "" {
		t = &AxisTitle{Text: *o.Text}
	}
	if o.Axis == "x" {
		st.spec.Style.XAxisTitle = t
	} else {
		st.spec.Style.YAxisTitle = t
	}
	return nil
}

func defSetAxisTitle() opDef {
	text := nullable(str("the axis title, for example the unit; empty or null removes it"))
	text.maxLen = 100
	return opDef{
		name:  "setAxisTitle",
		about: "title of the x or y axis (the unit); empty or null removes it",
		schema: object("Sets or removes an axis title.", []string{"op", "axis", "text"},
			p("op", opConst("setAxisTitle")),
			p("axis", axisSchema()),
			p("text", text),
		),
		example: `{"op":"setAxisTitle","axis":"y","text":"Revenue (€ million)"}`,
		newOp:   func() Op { return &SetAxisTitle{} },
	}
}

// needAxes refuses axis ops on chart types drawn without axes.
func needAxes(chartType, op string) *OpError {
	switch chartType {
	case "pie", "sankey", "radar":
		return opErr("axis", "a %s chart has no x or y axis; %s works on bar, line, scatter, histogram, boxplot, dotplot and heatmap charts", chartType, op)
	}
	return nil
}

// opConst is the op field's schema.
func opConst(name string) *schema {
	return &schema{types: []string{"string"}, desc: "the op's name", constVal: name}
}

// axisSchema is the axis field of setAxis and setAxisTitle. The names
// follow the drawing code: y is the value axis of bars, dot plots and box
// plots in either orientation, x their category axis.
func axisSchema() *schema {
	return enumOf("which axis: y is the value axis (of bars, dot plots and box plots too when drawn horizontally), x the category or x axis; a histogram has its values on x and counts on y", "x", "y")
}
