package chartspec

import "chartd.dev/libs/dataset"

// Highlight names the items that keep their colours; everything else is
// drawn in one muted grey. Categories are values of the chart's category
// role (bars, slices, points, dots, boxes); Series are value column ids
// (lines, the bars of a series, radar rings).
type Highlight struct {
	Categories []string `json:"categories,omitempty"`
	Series     []string `json:"series,omitempty"`
}

// clone copies the highlight's lists.
func (h *Highlight) clone() *Highlight {
	if h == nil {
		return nil
	}
	return &Highlight{Categories: append([]string(nil), h.Categories...), Series: append([]string(nil), h.Series...)}
}

// Facet draws small multiples: one panel per distinct value of a text
// column, in data order.
type Facet struct {
	// Column is the text column whose values make the panels.
	Column string `json:"column"`
	// Scales is "shared" (every panel the same value axis) or "free".
	Scales string `json:"scales" enum:"shared,free"`
	// Columns fixes the grid's columns; 0 sizes the grid to the canvas.
	Columns int `json:"columns,omitempty"`
}

// clone copies the facet.
func (f *Facet) clone() *Facet {
	if f == nil {
		return nil
	}
	c := *f
	return &c
}

// Facet scales.
const (
	ScalesShared = "shared"
	ScalesFree   = "free"
)

// Themes: light is every chart's default; auto is an SVG that follows the
// reader's prefers-color-scheme.
const (
	ThemeLight = "light"
	ThemeDark  = "dark"
	ThemeAuto  = "auto"
)

// MaxFacetPanels bounds small multiples: past 36 panels each is too small
// to read at any size the API draws.
const MaxFacetPanels = 36

// HighlightTypes are the chart types setHighlight works on.
func HighlightTypes() []string {
	return []string{"bar", "line", "pie", "scatter", "boxplot", "dotplot", "radar"}
}

// highlightCategoryTypes take highlight.categories; highlightSeriesTypes
// take highlight.series.
func highlightCategoryTypes() []string {
	return []string{"bar", "pie", "scatter", "boxplot", "dotplot"}
}

func highlightSeriesTypes() []string { return []string{"bar", "line", "dotplot", "radar"} }

// FacetTypes are the chart types setFacet works on: each panel is the
// chart's own drawing of one part of the rows. Pies, radars, sankeys and
// heatmaps are left out: a grid of them compares nothing a single
// chart does not show better.
func FacetTypes() []string {
	return []string{"bar", "line", "scatter", "histogram", "boxplot", "dotplot"}
}

// FacetValues answers the distinct values of a column in data order: the
// panels of a facet by it. Blank cells make no panel.
func FacetValues(t *dataset.Table, col string) []string {
	c, ok := t.Column(col)
	if !ok {
		return nil
	}
	seen := map[string]bool{}
	var out []string
	for i := 0; i < t.Rows; i++ {
		v := c.Format(i)
		if v == "" || seen[v] {
			continue
		}
		seen[v] = true
		out = append(out, v)
	}
	return out
}

// EffectiveTheme is the theme a picture is drawn in: the render's own
// ("light", "dark", "auto") when it gives one, else the spec's, else light.
func EffectiveTheme(spec *Spec, override string) string {
	switch {
	case override != "":
		return override
	case spec != nil && spec.Theme != "":
		return spec.Theme
	}
	return ThemeLight
}
