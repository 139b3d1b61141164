package draw

import "chartd.dev/libs/chartspec"

// highlighter says which series and categories a highlight keeps in
// colour; everything else takes the theme's one grey (inkDim). A spec
// without a highlight, or a list left empty, keeps everything.
type highlighter struct {
	cats, series map[string]bool
}

// newHighlighter reads the spec's highlight.
func newHighlighter(h *chartspec.Highlight) highlighter {
	var out highlighter
	if h == nil {
		return out
	}
	if len(h.Categories) > 0 {
		out.cats = make(map[string]bool, len(h.Categories))
		for _, v := range h.Categories {
			out.cats[v] = true
		}
	}
	if len(h.Series) > 0 {
		out.series = make(map[string]bool, len(h.Series))
		for _, v := range h.Series {
			out.series[v] = true
		}
	}
	return out
}

// onSeries and onCategories report a highlight of series or categories.
func (h highlighter) onSeries() bool     { return h.series != nil }
func (h highlighter) onCategories() bool { return h.cats != nil }

// keepsSeries reports a value column drawn in its colour.
func (h highlighter) keepsSeries(id string) bool { return h.series == nil || h.series[id] }

// keepsCategory reports a category drawn in its colour.
func (h highlighter) keepsCategory(v string) bool { return h.cats == nil || h.cats[v] }

// seriesColor is a series' colour under the highlight.
func (c *canvas) seriesColor(key string, i int) string {
	if !c.hl.keepsSeries(key) {
		return c.inkDim
	}
	return c.colors.of(key, i)
}

// categoryColor is the colour of a mark named by category (a slice, a
// scatter group, a box) under the highlight.
func (c *canvas) categoryColor(key string, i int) string {
	if !c.hl.keepsCategory(key) {
		return c.inkDim
	}
	return c.colors.of(key, i)
}

// dimmedCategories marks the categories a highlight greys out, or nil
// when it greys none.
func (c *canvas) dimmedCategories(labels []string) []bool {
	if !c.hl.onCategories() {
		return nil
	}
	out := make([]bool, len(labels))
	for i, l := range labels {
		out[i] = !c.hl.keepsCategory(l)
	}
	return out
}

// highlightOrder lists series indices with the greyed ones first, so the
// highlighted are drawn on top.
func (c *canvas) highlightOrder(keys []string) []int {
	out := make([]int, 0, len(keys))
	for pass := 0; pass < 2; pass++ {
		for i, k := range keys {
			if c.hl.keepsSeries(k) == (pass == 1) {
				out = append(out, i)
			}
		}
	}
	return out
}
