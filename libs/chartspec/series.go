package chartspec

import (
	"math"
	"strings"

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

// OtherColor is the grey of a pie's "Other" slice: the rows a topN step
// or the drawing sums into one, or a category the data itself calls
// Other. It is never given to a named series: a palette shorter than the
// series is extended (ExtendPalette).
const OtherColor = "#8B949E"

// IsOtherLabel reports a category the data itself calls "Other" (also
// "Others", "Other (3 slices)"): a pie draws it in OtherColor, and it
// takes no palette colour.
func IsOtherLabel(name string) bool {
	n := strings.ToLower(strings.TrimSpace(name))
	return n == "other" || n == "others" || strings.HasPrefix(n, "other ")
}

// ColorOf answers the colour of the i-th series with key: its pinned
// colour, else the palette in order, extended past its end (see
// ExtendPalette; the i-th colour does not depend on how many series
// follow); "" when there is no palette. It follows the drawing code's
// rule, so lint judges what is drawn. Colouring many series, extend the
// palette once with ExtendPalette and use ColorAt.
func (st Style) ColorOf(key string, i int) string {
	return st.ColorAt(key, i, ExtendPalette(st.Palette, i+1))
}

// ColorAt is ColorOf with the palette already extended for the series:
// the pinned colour of key, else extended[i] ("" when i is out of range).
func (st Style) ColorAt(key string, i int, extended []string) string {
	if c, ok := st.SeriesColors[key]; ok {
		if _, hex, ok := ParseColor(c); ok {
			return hex
		}
	}
	if i < 0 || i >= len(extended) {
		return ""
	}
	return extended[i]
}

// ChartSeries lists the chart's coloured series as drawn from t (the data
// after steps), at most limit of them (limit <= 0: all). Heatmaps (a colour
// scale) and sankeys (one colour per node) have none.
func ChartSeries(spec *Spec, t *dataset.Table, limit int) []Series {
	var out []Series
	full := func() bool { return limit > 0 && len(out) >= limit }
	// keys and labels first, then the colours, since the extension of a
	// short palette is made for the number of series
	add := func(key, label string) {
		out = append(out, Series{Key: key, Label: label})
	}
	other := map[int]bool{} // pie slices in OtherColor, which take no palette colour
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
				if _, pinned := spec.Style.SeriesColors[name]; IsOtherLabel(name) && !pinned {
					other[len(out)] = true
				}
				add(name, name)
			}
		}
	case "scatter":
		y, ok := t.Column(spec.Mapping.Col("y"))
		if !ok {
			return nil
		}
		group, ok := t.Column(spec.Mapping.Col("group"))
		if !ok || group.Kind != dataset.Text && group.Num == nil {
			add(y.ID, colLabel(y))
			break
		}
		x, _ := t.Column(spec.Mapping.Col("x"))
		size, _ := t.Column(spec.Mapping.Col("size"))
		names, _ := ScatterGroups(spec, x, y, size, group, t.Rows, group.Format)
		for _, name := range names {
			if full() {
				break
			}
			add(name, name)
		}
	}
	pal := spec.Style.Palette
	if spec.Theme == ThemeDark {
		pal = DarkPalette(pal)
	}
	palette := ExtendPalette(pal, len(out)-len(other))
	k := 0
	for i := range out {
		if other[i] {
			out[i].Color = OtherColor
			continue
		}
		out[i].Color = spec.Style.ColorAt(out[i].Key, k, palette)
		k++
	}
	return out
}
