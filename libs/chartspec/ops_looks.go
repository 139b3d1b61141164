package chartspec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"chartd.dev/libs/dataset"
)

// SetHighlight keeps the named categories or series in colour and draws
// everything else in one muted grey; a null highlight clears it.
type SetHighlight struct {
	Op        string     `json:"op"`
	Highlight *Highlight `json:"highlight"`
}

// Name is "setHighlight".
func (SetHighlight) Name() string { return "setHighlight" }

func (o *SetHighlight) apply(st *applyState) *OpError {
	if o.Highlight == nil {
		st.spec.Highlight = nil
		return nil
	}
	if oe := takesOp(st.spec.Type, "setHighlight", HighlightTypes()); oe != nil {
		return oe
	}
	h := o.Highlight.clone()
	if len(h.Categories) > 0 {
		if !slices.Contains(highlightCategoryTypes(), st.spec.Type) {
			return opErr("highlight.categories", "a %s chart highlights series, not categories; categories work on %s charts", st.spec.Type, typesText(highlightCategoryTypes()))
		}
		if oe := checkCategories(st, h.Categories); oe != nil {
			return oe
		}
	}
	if len(h.Series) > 0 {
		if !slices.Contains(highlightSeriesTypes(), st.spec.Type) {
			return opErr("highlight.series", "a %s chart highlights categories, not series; series work on %s charts", st.spec.Type, typesText(highlightSeriesTypes()))
		}
		if oe := checkValueColumns(st, h.Series); oe != nil {
			return oe
		}
	}
	st.spec.Highlight = h
	return nil
}

// checkCategories accepts values of the chart's category role only.
func checkCategories(st *applyState, names []string) *OpError {
	t := st.table()
	roles := categoryRoles(st.spec.Type)
	if len(roles) == 0 {
		return opErr("highlight.categories", "a %s chart has no categories", st.spec.Type)
	}
	c, ok := t.Column(st.spec.Mapping.Col(roles[0]))
	if !ok {
		return opErr("highlight.categories", "the chart's %s role has no column yet; map one with setMapping first", roles[0])
	}
	values := FacetValues(t, c.ID)
	for i, n := range names {
		if !slices.Contains(values, n) {
			return opErr(fmt.Sprintf("highlight.categories[%d]", i), "no category %q in %s; the categories are %s", n, colLabel(c), quotedSome(values))
		}
	}
	return nil
}

// checkValueColumns accepts the columns the chart draws as values.
func checkValueColumns(st *applyState, ids []string) *OpError {
	var drawn []string
	for _, r := range st.ct.Roles {
		if r.Numeric {
			drawn = append(drawn, st.spec.Mapping.Cols(r.Role)...)
		}
	}
	for i, id := range ids {
		if !slices.Contains(drawn, id) {
			t := st.table()
			return opErr(fmt.Sprintf("highlight.series[%d]", i), "no series %q; the series are the value columns %s", id, columnList(t.ColumnsByID(drawn)))
		}
	}
	return nil
}

// quotedSome quotes the first listedAtMost values of a list.
func quotedSome(values []string) string {
	if len(values) == 0 {
		return "none (the column is empty)"
	}
	q := make([]string, 0, min(len(values), listedAtMost))
	for _, v := range values[:min(len(values), listedAtMost)] {
		q = append(q, strconv.Quote(v))
	}
	return joinSome(q, len(values))
}

// takesOp refuses an op on a chart type it has no meaning for, naming the
// types that take it.
func takesOp(chartType, op string, types []string) *OpError {
	if slices.Contains(types, chartType) {
		return nil
	}
	return opErr("", "%s has no meaning on a %s chart; it works on %s charts", op, chartType, typesText(types))
}

// typesText lists chart types: "bar, line and pie".
func typesText(types []string) string {
	if len(types) < 2 {
		return strings.Join(types, "")
	}
	return strings.Join(types[:len(types)-1], ", ") + " and " + types[len(types)-1]
}

func defSetHighlight() opDef {
	names := func(desc string) *schema {
		return &schema{types: []string{"array"}, desc: desc, items: &schema{types: []string{"string"}, minLen: 1, desc: "a name"}, maxItems: 100}
	}
	h := nullable(object("what keeps its colour: categories or series; null clears the highlight", nil,
		p("categories", names(`category values, as written in the data, such as "Germany" (bars, slices, points, boxes)`)),
		p("series", names(`value column ids such as "c3" (lines, the bars of a series, radar rings)`)),
	))
	h.minProps = 1
	return opDef{
		name:  "setHighlight",
		about: "keep the named categories or series in colour with direct labels, everything else one muted grey; null clears (" + typesText(HighlightTypes()) + ")",
		schema: object("Highlights categories or series; the rest is drawn in grey.", []string{"op", "highlight"},
			p("op", opConst("setHighlight")),
			p("highlight", h),
		),
		example: `{"op":"setHighlight","highlight":{"categories":["Germany"]}}`,
		newOp:   func() Op { return &SetHighlight{} },
	}
}

// facetColumns says which columns a facet can take, or that the data has
// none (a text column is what a facet needs).
func facetColumns(t *dataset.Table) string {
	cols := textColumns(t)
	if len(cols) == 0 {
		return "the data has no text column; add one to the data (set_data) to draw small multiples"
	}
	return "the text columns are " + columnList(cols)
}

// SetFacet draws the chart as small multiples, one panel per value of a
// text column; a null facet clears it.
type SetFacet struct {
	Op    string     `json:"op"`
	Facet *FacetSpec `json:"facet"`
}

// FacetSpec is the facet a setFacet op sends; scales defaults to shared.
type FacetSpec struct {
	Column  string `json:"column"`
	Scales  string `json:"scales,omitempty"`
	Columns int    `json:"columns,omitempty"`
}

// Name is "setFacet".
func (SetFacet) Name() string { return "setFacet" }

func (o *SetFacet) apply(st *applyState) *OpError {
	if o.Facet == nil {
		st.spec.Facet = nil
		return nil
	}
	if oe := takesOp(st.spec.Type, "setFacet", FacetTypes()); oe != nil {
		return oe
	}
	t := st.table()
	c, ok := t.Column(o.Facet.Column)
	if !ok {
		return opErr("facet.column", "no column %s; %s", o.Facet.Column, facetColumns(t))
	}
	if c.Kind != dataset.Text {
		return opErr("facet.column", "%s is a %s column; small multiples take a text column, one panel per value; %s", colLabel(c), c.Kind, facetColumns(t))
	}
	if n := len(FacetValues(t, c.ID)); n > MaxFacetPanels {
		return opErr("facet.column", "%s has %d values, and small multiples draw at most %d panels; filter the rows first (addTransform filter) or choose a column with fewer values", colLabel(c), n, MaxFacetPanels)
	}
	scales := o.Facet.Scales
	if scales == "" {
		scales = ScalesShared
	}
	st.spec.Facet = &Facet{Column: c.ID, Scales: scales, Columns: o.Facet.Columns}
	return nil
}

// textColumns are a table's text columns.
func textColumns(t *dataset.Table) []*dataset.Column {
	var out []*dataset.Column
	for _, c := range t.Columns {
		if c.Kind == dataset.Text {
			out = append(out, c)
		}
	}
	return out
}

func defSetFacet() opDef {
	col := str(`a text column id such as "c1": one panel per distinct value, in data order (at most 36)`)
	col.minLen = 1
	f := nullable(object("the small multiples; null draws one chart again", []string{"column"},
		p("column", col),
		p("scales", enumOf(`"shared" (default): every panel has the same value axis; "free": each its own`, ScalesShared, ScalesFree)),
		p("columns", integer("grid columns; left out, 2 to 4 by the canvas", 1, 6)),
	))
	return opDef{
		name:  "setFacet",
		about: "small multiples: one panel per value of a text column, scales shared or free, optional grid columns; null clears (" + typesText(FacetTypes()) + ")",
		schema: object("Draws one panel per value of a text column.", []string{"op", "facet"},
			p("op", opConst("setFacet")),
			p("facet", f),
		),
		example: `{"op":"setFacet","facet":{"column":"c1","scales":"shared"}}`,
		newOp:   func() Op { return &SetFacet{} },
	}
}

// SetTheme picks the colours of the chart's page: light, dark, or auto
// (an SVG that follows the reader's prefers-color-scheme).
type SetTheme struct {
	Op    string `json:"op"`
	Theme string `json:"theme"`
}

// Name is "setTheme".
func (SetTheme) Name() string { return "setTheme" }

func (o *SetTheme) apply(st *applyState) *OpError {
	st.spec.Theme = o.Theme
	if o.Theme == ThemeLight {
		st.spec.Theme = ""
	}
	return nil
}

func defSetTheme() opDef {
	return opDef{
		name:  "setTheme",
		about: "light (default), dark, or auto: an SVG that follows the reader's prefers-color-scheme; a PNG of an auto chart is light unless the render asks for theme dark",
		schema: object("Sets the chart's colour theme.", []string{"op", "theme"},
			p("op", opConst("setTheme")),
			p("theme", enumOf("light, dark or auto", ThemeLight, ThemeDark, ThemeAuto)),
		),
		example: `{"op":"setTheme","theme":"dark"}`,
		newOp:   func() Op { return &SetTheme{} },
	}
}
