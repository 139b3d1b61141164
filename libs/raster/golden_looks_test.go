package raster

import (
	"context"
	"os"
	"path/filepath"
	"testing"
)

// looksGoldens are issue 34's highlight, small multiples and dark theme,
// one SVG golden of libs/draw each, drawn to PNG as the render service
// does (testdata/png/issue34/key-golden.png). The auto theme's SVG is
// not among them: a PNG is always drawn light or dark.
var looksGoldens = []itemGolden{
	{"hl-bar", "one bar in colour, the rest grey, only its value named", "looks-bar-highlight"},
	{"hl-line", "one line in colour on top, named at its end; the rest grey, no legend", "looks-line-highlight"},
	{"hl-pie", "one slice in colour", "looks-pie-highlight"},
	{"hl-scatter", "one group's points in colour", "looks-scatter-highlight"},
	{"hl-boxplot", "one box in colour", "looks-boxplot-highlight"},
	{"hl-dotplot", "one year's dots in colour", "looks-dotplot-highlight"},
	{"hl-radar", "one ring in colour", "looks-radar-highlight"},
	{"dark-bar", "bars on a dark page, labels readable", "looks-bar-dark"},
	{"dark-line", "lines on a dark page, the palette's dark variant", "looks-line-dark"},
	{"dark-pie", "a donut on a dark page", "looks-pie-dark"},
	{"dark-heatmap", "a heatmap on a dark page", "looks-heatmap-dark"},
	{"dark-bar-highlight", "a highlight on a dark page: the grey stays quiet", "looks-bar-highlight-dark"},
	{"facet-line-shared", "six regions, shared scales: axes once per row and column", "looks-line-facet-shared"},
	{"facet-line-free", "six regions, free scales: each panel its own axis", "looks-line-facet-free"},
	{"facet-bar-shared", "bars by month for six regions, three columns", "looks-bar-facet-shared"},
	{"facet-bar-12", "twelve panels of thirty bars at 800×600", "looks-bar-facet-12"},
	{"facet-scatter", "a scatter per region, one legend", "looks-scatter-facet"},
	{"facet-histogram", "a histogram per plant, shared counts", "looks-histogram-facet"},
	{"facet-boxplot", "box plots per year", "looks-boxplot-facet"},
	{"facet-dotplot", "dot plots per continent", "looks-dotplot-facet"},
}

// TestLooksReplay (issue 34): the pictures of a dark theme, a highlight
// and twelve panels of small multiples are PNGs by the Canvas replay, the
// fast path, not the image fallback: the render service gives the
// rasterizer a resolved light or dark drawing without CSS.
func TestLooksReplay(t *testing.T) {
	p := startPool(t, smallConfig())
	for _, name := range []string{"looks-bar-dark", "looks-bar-highlight", "looks-line-highlight", "looks-bar-facet-12", "looks-line-facet-shared"} {
		svg, err := os.ReadFile(filepath.Join("..", "draw", "testdata", name+".svg"))
		if err != nil {
			t.Fatal(err)
		}
		before := p.Stats().Replayed
		if _, err := p.Render(context.Background(), Job{SVG: svg, Width: 800, Height: 600, Scale: 1}); err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if p.Stats().Replayed == before {
			t.Errorf("%s was drawn by the image fallback, not replayed", name)
		}
	}
}
