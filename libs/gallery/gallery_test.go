package gallery

import (
	"context"
	"errors"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"chartd.dev/charts"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/draw"
	"chartd.dev/libs/fontstack"
	"chartd.dev/libs/subset"
)

func drawn(t *testing.T) (*charts.Catalog, *Gallery) {
	t.Helper()
	cat, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	ops, err := chartspec.NewOps(cat)
	if err != nil {
		t.Fatal(err)
	}
	st, err := fontstack.Find()
	if err != nil {
		t.Fatal(err)
	}
	fonts, err := draw.LoadFonts(st)
	if err != nil {
		t.Fatal(err)
	}
	tool, err := subset.NewTool(2)
	if err != nil {
		t.Fatal(err)
	}
	g, err := Draw(context.Background(), cat, ops, fonts, subset.NewCache(tool, 16<<20, 30*time.Second))
	if err != nil {
		t.Fatal(err)
	}
	return cat, g
}

// fontSize is a text's size in an SVG.
var fontSize = regexp.MustCompile(`font-size="([\d.]+)"`)

// TestDrawEveryExample: every example and type has a picture, each pair's
// op changes its picture, and the font block carries faces.
func TestDrawEveryExample(t *testing.T) {
	cat, g := drawn(t)
	for _, ex := range cat.Examples("") {
		if svg := g.Examples[ex.ID]; !strings.HasPrefix(svg, "<svg") || !strings.Contains(svg, "</svg>") {
			t.Errorf("example %s: no SVG picture (%.40q)", ex.ID, svg)
		}
	}
	for _, ct := range cat.Types() {
		if _, ok := g.Examples[g.Types[ct.Type]]; !ok {
			t.Errorf("type %s: no picture", ct.Type)
		}
	}
	for _, op := range []string{"setPalette", "setLabels", "setVariants", "setFooter", "addAnnotation", "addReferenceLine", "addRange"} {
		p, ok := g.PairFor(op)
		switch {
		case !ok:
			t.Errorf("%s: no pair", op)
		case p.Before == p.After:
			t.Errorf("%s: after is the same picture as before", op)
		}
	}
	if n := strings.Count(g.Fonts, "@font-face"); n == 0 || !strings.Contains(g.Fonts, "base64,") {
		t.Errorf("font block has %d faces: %.200q", n, g.Fonts)
	}
	if strings.Contains(g.Fonts, "<desc>x") || !strings.HasSuffix(g.Fonts, "</svg>") || strings.Count(g.Fonts, "<svg") != 1 {
		t.Errorf("font block is not one hidden svg: %.200q …", g.Fonts)
	}
	// issue 34: the docs draw each note, line and range op from its example
	for op, text := range map[string]string{"addAnnotation": ">Best month<", "addReferenceLine": ">Mean ", "addRange": ">Summer<"} {
		if p, _ := g.PairFor(op); !strings.Contains(p.After, text) || strings.Contains(p.Before, text) {
			t.Errorf("%s pair: %s shows only after", op, text)
		}
	}
	// removeAnnotation and clearAnnotations take away what their setup added
	for op, gone := range map[string][]string{"removeAnnotation": {">Best month<"}, "clearAnnotations": {">Best month<", ">Summer<"}} {
		p, ok := g.PairFor(op)
		if !ok || p.Setup == "" {
			t.Errorf("%s: no pair with a setup", op)
			continue
		}
		for _, text := range gone {
			if !strings.Contains(p.Before, text) || strings.Contains(p.After, text) {
				t.Errorf("%s pair: %s shows only before", op, text)
			}
		}
	}
	if p, _ := g.PairFor("removeAnnotation"); !strings.Contains(p.After, ">Summer<") {
		t.Errorf("removeAnnotation pair: the range, the second added, is kept")
	}
	// issue 35: the embedding page's one chart at each frame width, as an
	// embed draws it: that width, and no type under the reading minimum
	if len(g.Widths) != len(EmbedWidths()) {
		t.Fatalf("%d pictures at embed widths, want %d", len(g.Widths), len(EmbedWidths()))
	}
	for i, w := range g.Widths {
		if w.Width != EmbedWidths()[i] || !strings.Contains(w.SVG, `width="`+strconv.Itoa(w.Width)+`"`) {
			t.Errorf("widths[%d]: %d px, svg %.120q", i, w.Width, w.SVG)
		}
		for _, m := range fontSize.FindAllStringSubmatch(w.SVG, -1) {
			if px, _ := strconv.ParseFloat(m[1], 64); px < draw.ReadingMinText {
				t.Errorf("%d px wide: type of %g px, under %d", w.Width, px, draw.ReadingMinText)
			}
		}
	}
	p, _ := g.PairFor("setFooter")
	if !strings.Contains(p.After, "StatCounter") || strings.Contains(p.Before, "StatCounter") {
		t.Errorf("setFooter pair: the source shows only after")
	}
}

// TestSourceWarm: Warm tries again after a failed fetch until it has the
// gallery, and gives up when its context ends.
func TestSourceWarm(t *testing.T) {
	tries := 0
	s := &Source{Fetch: func(context.Context) (*Gallery, error) {
		tries++
		if tries < 3 {
			return nil, errors.New("render not up yet")
		}
		return &Gallery{}, nil
	}}
	s.Warm(context.Background(), time.Millisecond)
	if !s.Has() || tries != 3 {
		t.Fatalf("after Warm: has %v after %d tries", s.Has(), tries)
	}
	never := &Source{Fetch: func(context.Context) (*Gallery, error) { return nil, errors.New("down") }}
	ctx, cancel := context.WithTimeout(context.Background(), 50*time.Millisecond)
	defer cancel()
	never.Warm(ctx, time.Millisecond)
	if never.Has() {
		t.Fatal("a source that never fetched has a gallery")
	}
}

// TestLooksOpsArePictured (issue 34): setHighlight, setFacet and setTheme
// each have a before-and-after pair, drawn from the op on its example,
// and the after shows the op: a grey bar, panels, a dark page.
func TestLooksOpsArePictured(t *testing.T) {
	_, g := drawn(t)
	for _, tc := range []struct{ op, shows string }{
		{"setHighlight", `fill="#C6CCD2"`},
		{"setFacet", `<g class="panel">`},
		{"setTheme", `fill="#16181D"`},
	} {
		p, ok := g.PairFor(tc.op)
		if !ok {
			t.Errorf("%s has no picture", tc.op)
			continue
		}
		if !strings.Contains(p.After, tc.shows) || strings.Contains(p.Before, tc.shows) {
			t.Errorf("%s: the after picture does not show %s (or the before does)", tc.op, tc.shows)
		}
	}
}
