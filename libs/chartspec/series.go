package chartspec

import (
	"math"

	"chartd.dev/libs/dataset"
)

// Series is one coloured mark group of a drawn chart: a value column (bar,
// line, dot plot, radar), a pie slice or a scatter group.
type Series struct {
	// Key is what seriesColors pins a colour to: a column id or a category value.
	Key string
	// Label names the series for a person: "c2 (Sales)" or "France".
	Label string
	// Color is the #RRGGBB the series is drawn in.
	Color string
}

// OtherColor is the grey of every series past the palette's end: a colour
// is never reused, and the legend names those series together as "Other".
const OtherColor = "#8B949E"

// ColorOf answers the colour of the i-th series with key: its pinned
// colour, else the palette in order, then OtherColor past its end; "" when
// there is no palette.
// It follows the drawing code's rule, so lint judges what is drawn.
func (st Style) ColorOf(key string, i int) string {
	return st.colorOf(key, i, st.validPalette())
}

// validPalette is the palette's colours that parse, as #RRGGBB.
func (st Style) validPalette() []string {
	var valid []string
	for _, c := range st.Palette {
		if _, hex, ok := ParseColor(c); ok {
			valid = append(valid, hex)
		}
	}
	return valid
}

// colorOf is ColorOf with the palette parsed once by the caller.
func (st Style) colorOf(key string, i int, palette []string) string {
	if c, ok := st.SeriesColors[key]; ok {
		if _, hex, ok := ParseColor(c); ok {
			return hex
		}
	}
	if len(palette) == 0 {
		return ""
	}
	if i >= 0 && i < len(palette) {
		return palette[i]
	}
	return OtherColor
}

// ChartSeries lists the chart's coloured series as drawn from t (the data
// after steps), at most limit of them (limit <= 0: all). Heatmaps (a colour
// scale) and sankeys (one colour per node) have none.
func ChartSeries(spec *Spec, t *dataset.Table, limit int) []Series {
	var out []Series
	full := func() bool { return limit > 0 && len(out) >= limit }
	palette := spec.Style.validPalette()
	add := func(key, label string) {
		out = append(out, Series{Key: key, Label: label, Color: spec.Style.colorOf(key, len(out), palette)})
	}
	switch spec.Type {
	case "bar", "line", "dotplot", "radar":
		for _, c := range t.ColumnsByID(spec.Mapping.Cols("values")) {
			if full() {
				break
			}
			if c != nil {
				add(c.ID, colLabel(c))
			}
		}
	case "histogram", "boxplot":
		if c, ok := t.Column(spec.Mapping.Col("value")); ok {
			add(c.ID, colLabel(c))
		}
	case "pie":
		label, ok1 := t.Column(spec.Mapping.Col("label"))
		value, ok2 := t.Column(spec.Mapping.Col("value"))
		if !ok1 || !ok2 || value.Num == nil {
			return nil
		}
		for i := 0; i < t.Rows && !full(); i++ {
			if v := value.Num[i]; !math.IsNaN(v) && v > 0 {
				name := label.Format(i)
				add(name, name)
			}
		}
	case "scatter":
		y, ok := t.Column(spec.Mapping.Col("y"))
		if !ok {
			return nil
		}
		group, ok := t.Column(spec.Mapping.Col("group"))
		if !ok {
			add(y.ID, colLabel(y))
			break
		}
		seen := map[string]bool{}
		for i := 0; i < t.Rows && !full(); i++ {
			name := group.Format(i)
			if !seen[name] {
				seen[name] = true
				add(name, name)
			}
		}
	}
	return out
}
