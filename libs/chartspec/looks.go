package chartspec

import (
	"math"
	"slices"
	"strings"

	"chartd.dev/libs/dataset"
	colorful "github.com/lucasb-eyer/go-colorful"
)

// Highlight names the items that keep their colours; everything else is
// drawn in one muted grey. Categories are values of the chart's category
// role (bars, slices, scatter groups, boxes); Series are value column ids
// (lines, the bars of a series, a dot plot's dots, radar rings).
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
	return []string{"bar", "pie", "scatter", "boxplot"}
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

// FacetGrid is the grid small multiples are drawn in on a w×h plot area:
// columns as the facet fixes them, else 2 to 4, whichever makes panels
// closest to 4:3 (fewer panels than that: one row).
func FacetGrid(n, columns int, w, h float64) (cols, rows int) {
	if n <= 0 {
		return 0, 0
	}
	if columns > 0 {
		cols = min(columns, n)
	} else {
		best := math.Inf(1)
		for k := 2; k <= 4; k++ {
			cc := min(k, n)
			r := (n + cc - 1) / cc
			score := math.Abs(math.Log((w / float64(cc)) / (h / float64(r)) / (4.0 / 3)))
			if score < best-1e-9 {
				best, cols = score, cc
			}
		}
		cols = max(cols, 1)
	}
	return cols, (n + cols - 1) / cols
}

// DarkBackground is the page of the dark theme; lint judges a dark
// chart's colours against it.
const DarkBackground = "#16181D"

// DefaultColors are the catalog's "default" palette, every new chart's
// (draw's tests keep the two in step).
func DefaultColors() []string {
	return []string{"#2F6FDB", "#C8610C", "#17875F", "#D9415B", "#720183", "#534805", "#17A0B7", "#6C3435", "#026373", "#86659B", "#9D7FFC", "#0736C2"}
}

// BrightDarkColors are the catalog's "bright-dark" palette, the default
// palette's variant for dark pages.
func BrightDarkColors() []string {
	return []string{"#7DD3FC", "#FCA5A5", "#86EFAC", "#FDE68A", "#C4B5FD", "#F9A8D4", "#67E8F9", "#FDBA74"}
}

// DarkPalette is a palette as a dark page draws it: the default palette's
// dark variant from the palette list, and any other palette with every
// colour below 3:1 against the page lifted (HCL lightness, hue kept)
// until it reaches it, so series keep their identity. Colours a person
// pinned to a series are drawn as chosen, and lint says when they are
// faint on dark.
func DarkPalette(pal []string) []string {
	if slices.Equal(pal, DefaultColors()) {
		return BrightDarkColors()
	}
	page, _ := colorful.Hex(DarkBackground)
	out := make([]string, len(pal))
	for i, p := range pal {
		out[i] = LiftTo(p, page, MinContrast+0.05)
	}
	return out
}

// LiftTo raises hex's HCL lightness until it is at least ratio against a
// dark page; a colour that reaches it already is answered as it is.
func LiftTo(hex string, page colorful.Color, ratio float64) string {
	col, up, ok := ParseColor(hex)
	if !ok {
		return hex
	}
	if Contrast(col, page) >= ratio {
		return up
	}
	h, ch, l := col.Hcl()
	lo, hi := l, 1.0
	for range 20 {
		m := (lo + hi) / 2
		if Contrast(colorful.Hcl(h, ch, m).Clamped(), page) >= ratio {
			hi = m
		} else {
			lo = m
		}
	}
	return strings.ToUpper(colorful.Hcl(h, ch, hi).Clamped().Hex())
}
