package raster

import (
	"bytes"
	"context"
	"encoding/binary"
	"flag"
	"image"
	"image/color"
	"image/png"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"sync"
	"testing"

	"chartd.dev/charts"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/draw"
	"chartd.dev/libs/fontstack"
)

var update = flag.Bool("update", false, "rewrite the PNG goldens in testdata/png")

// Per-pixel tolerance: antialiasing may move a little between Chromium
// builds; a changed drawing moves much more.
const (
	channelTolerance = 24    // of 255, per channel
	pixelShare       = 0.004 // share of pixels allowed past it
)

// drawing is what the goldens need once: the font stack, measured for
// draw and written for Chromium, and the catalog.
type drawing struct {
	fonts   *draw.Fonts
	catalog *charts.Catalog
	config  string
}

var loadDrawing = sync.OnceValues(func() (*drawing, error) {
	st, err := fontstack.Find()
	if err != nil {
		return nil, err
	}
	f, err := draw.LoadFonts(st)
	if err != nil {
		return nil, err
	}
	cat, err := charts.Load()
	if err != nil {
		return nil, err
	}
	dir, err := os.MkdirTemp("", "raster-fonts-")
	if err != nil {
		return nil, err
	}
	conf, err := st.WriteFontconfig(dir)
	if err != nil {
		return nil, err
	}
	return &drawing{fonts: f, catalog: cat, config: conf}, nil
})

func drawingFor(t testing.TB) *drawing {
	t.Helper()
	d, err := loadDrawing()
	if err != nil {
		t.Fatal(err)
	}
	return d
}

// fontPool is a pool drawing with the stack's fonts, as the render
// service runs it.
func fontPool(t testing.TB) *Pool {
	cfg := DefaultConfig()
	cfg.Browsers, cfg.Tabs = 1, 2
	cfg.FontConfig = drawingFor(t).config
	return startPool(t, cfg)
}

// sampleSVG draws the sample chart of a type as the render service does.
func sampleSVG(t testing.TB, d *drawing, typ string, in draw.Input) []byte {
	t.Helper()
	ct, ok := d.catalog.Type(typ)
	if !ok {
		t.Fatalf("no type %s", typ)
	}
	ex, err := chartspec.Example(d.catalog, ct, d.catalog.Sample(typ))
	if err != nil {
		t.Fatal(err)
	}
	after, errs := ex.Spec.AfterSteps(ex.Table)
	if len(errs) > 0 {
		t.Fatalf("%s: steps: %v", typ, errs)
	}
	in.Spec, in.Table, in.Fonts = ex.Spec, after, d.fonts
	svg, err := draw.SVG(in)
	if err != nil {
		t.Fatal(err)
	}
	return svg
}

func pngSize(t testing.TB, b []byte) (int, int) {
	t.Helper()
	if len(b) < 24 || string(b[12:16]) != "IHDR" {
		t.Fatalf("no IHDR")
	}
	return int(binary.BigEndian.Uint32(b[16:20])), int(binary.BigEndian.Uint32(b[20:24]))
}

// itemGolden is one SVG golden of libs/draw that shows a defect fixed: key
// names its PNG, item says what it shows.
type itemGolden struct{ key, item, golden string }

// itemGoldens are issue 13's defects (items 1–17, then what it asks
// beyond them), one SVG golden of libs/draw each (testdata there) that
// shows the defect fixed, drawn to PNG as the render service does: at the
// golden's own size, scale 1, a poster scaled down to itemMaxSide so the
// PNGs stay small. key names the PNG (testdata/png/issue13/key-golden.png).
var itemGoldens = []itemGolden{
	{"item01", "diverging palettes, hatched blanks", "heatmap-correlation-red-blue"},
	{"item02", "monthly dates as rows, one row per month", "heatmap-month-rows"},
	{"item03", "roles by kind and meaning: weekdays stay the x axis", "line-weekday-roles"},
	{"item04", "sankey flows around nodes, labels beside them", "sankey-long-flows"},
	{"item05", "every row named, labels kept", "bar-50-horizontal-labels"},
	{"item06", "data labels that would collide", "line-labels-dense"},
	{"item07", "no colour reused past the palette", "bar-12-series"},
	{"item08", "years read by their values", "line-years-kanji-header"},
	{"item09", "scales that hug the data; small canvases name three ticks and their baseline", "style-small-300x200"},
	{"item10", "pies sorted, small slices as Other, the reason on the chart", "pie-25-slices-unsorted"},
	{"item11", "long text wraps before it is cut, and keeps its end", "pie-long-labels-400x300"},
	{"item12", "one unit per axis and per label set", "bar-units-billions"},
	{"item13", "histogram bins on round edges", "histogram-nice-bins"},
	{"item14", "daily bars ticked at month starts, flat", "bar-90-days"},
	{"item15", "radar: 24 axes, ring labels, gaps", "radar-24-axes-gaps"},
	{"item16", "default colours with labels that pass the contrast lint", "bar-grouped-labels"},
	{"item17", "big canvases set big type", "style-poster-4000x2250"},
	{"more-direct-labels", "direct labels at the lines' ends", "line-direct-labels"},
	{"more-unit-top-tick", "the unit on the top tick only", "bar-unit-from-name"},
}

// issue22Goldens are issue 22's defects, drawn to PNG like itemGoldens
// (testdata/png/issue22/key-golden.png): each SVG golden of libs/draw
// shows one defect fixed.
var issue22Goldens = []itemGolden{
	{"item1-own-unit", "labels state their own value: 37.4M, 39k, 800 (was 0M)", "numbers-own-unit-labels"},
	{"item1-neighbours", "neighbours told apart (1.43B, 1.41B), top tick 1.5B", "numbers-neighbours-apart"},
	{"item1-plain", "compact:false and decimals:0 govern labels and ticks", "numbers-plain-decimals-0"},
	{"item1-fixed-decimals", "fixed decimals on labels, not on whole ticks", "numbers-fixed-decimals-ticks"},
	{"item1-magnitudes", "450B, 140k and 0.4 in one label set (was 0.5T, 0M)", "numbers-mixed-magnitudes"},
	{"item1-billion-tick", "one unit on the axis: the top tick reads 1,000M (issue 32 item 9; issue 22 had 1B)", "numbers-line-billion-top"},
	{"item1-locale-de", "German marks from CLDR", "numbers-locale-de"},
	{"item1-locale-hi", "Indian grouping from CLDR", "numbers-locale-hi"},
	{"item1-locale-zh", "万 and 亿 for Chinese", "numbers-locale-zh"},
	{"item1-pie-sliver", "a sliver reads 0.04%, not 0%", "numbers-pie-sliver"},
	{"item6-long-title", "a 230-character title wraps to four lines at 500×400, not cut", "text-long-title-500x400"},
	{"item6-min-text", "50 rows, no height given: the chart grows until every row is named at the usual size", "bar-50-horizontal-labels"},
	{"item6-sankey-names", "sankey node names wrap to their node's height instead of being cut", "text-sankey-long-names"},
	{"item6-radar-names", "radar axis names wrap to two lines before they are cut", "text-radar-long-axes"},
	{"item8-net-total", "stacked gains and losses: the net-total line named in the legend, its label off the line", "bar-stacked-negatives"},
	{"item8-footer-source", "a Chinese source keeps its own 来源, no English Source: in front", "footer-source-as-written"},
	{"item8-scatter-names", "scatter points named by the name column, never overlapping", "scatter-named-points"},
}

// itemMaxSide is the longest side an item PNG is drawn at.
const itemMaxSide = 1000

// svgSize reads the width and height of an SVG's root element.
var svgSize = regexp.MustCompile(`^<svg [^>]*?width="(\d+)" height="(\d+)"`)

// goldenPNG is one PNG golden: an SVG drawn at a size.
type goldenPNG struct {
	name, path string
	svg        func(t *testing.T) []byte
	w, h       int
}

// goldenPNGs are the cases of TestGoldenPNG: every type's sample from the
// catalog, then issue 13's and issue 22's item goldens.
func goldenPNGs(d *drawing) []goldenPNG {
	var out []goldenPNG
	for _, ct := range d.catalog.Types() {
		out = append(out, goldenPNG{name: ct.Type, path: filepath.Join("testdata", "png", ct.Type+".png"), w: 800, h: 600,
			svg: func(t *testing.T) []byte { return sampleSVG(t, d, ct.Type, draw.Input{}) }})
	}
	for _, set := range []struct {
		dir   string
		items []itemGolden
	}{{"issue13", itemGoldens}, {"issue22", issue22Goldens}, {"issue22", paletteGoldens}, {"issue22", kindGoldens}, {"issue32", layoutGoldens}, {"issue32", truthGoldens},
		{"issue32", issue32NumberGoldens}, {"issue34", annotationGoldens}, {"issue34", looksGoldens}} {
		for _, it := range set.items {
			out = append(out, itemPNG(set.dir, it))
		}
	}
	return append(out, scriptGoldenPNGs()...)
}

// itemPNG is the PNG golden of one item golden, kept under dir.
func itemPNG(dir string, it itemGolden) goldenPNG {
	g := goldenPNG{name: dir + "/" + it.key + "-" + it.golden, path: filepath.Join("testdata", "png", dir, it.key+"-"+it.golden+".png")}
	g.svg = func(t *testing.T) []byte {
		b, err := os.ReadFile(filepath.Join("..", "draw", "testdata", it.golden+".svg"))
		if err != nil {
			t.Fatalf("item %s: %v", it.item, err)
		}
		return b
	}
	return g
}

// TestGoldenPNG draws every type's sample and issue 13's item goldens and
// compares each with its PNG golden within a small per-pixel tolerance; a
// failure writes the picture and a diff image next to the golden.
func TestGoldenPNG(t *testing.T) {
	d := drawingFor(t)
	p := fontPool(t)
	for _, g := range goldenPNGs(d) {
		t.Run(g.name, func(t *testing.T) {
			svg := g.svg(t)
			if g.w == 0 {
				m := svgSize.FindSubmatch(svg)
				if m == nil {
					t.Fatal("the golden SVG names no width and height")
				}
				g.w, _ = strconv.Atoi(string(m[1]))
				g.h, _ = strconv.Atoi(string(m[2]))
				if long := max(g.w, g.h); long > itemMaxSide {
					g.w, g.h = g.w*itemMaxSide/long, g.h*itemMaxSide/long
				}
			}
			got, err := p.Render(context.Background(), Job{SVG: svg, Width: g.w, Height: g.h, Scale: 1})
			if err != nil {
				t.Fatal(err)
			}
			path := g.path
			if *update {
				os.MkdirAll(filepath.Dir(path), 0o755)
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("%v (run with -update to write it)", err)
			}
			compareImages(t, path, got, want)
		})
	}
}

// compareImages fails when more than pixelShare of the pixels differ by
// more than channelTolerance, writing got and a diff image for a person.
func compareImages(t *testing.T, path string, got, want []byte) {
	t.Helper()
	gi, wi := decodePNG(t, got), decodePNG(t, want)
	if gi.Bounds() != wi.Bounds() {
		t.Fatalf("size %v, golden %v", gi.Bounds(), wi.Bounds())
	}
	b := gi.Bounds()
	diff := image.NewRGBA(b)
	bad := 0
	for y := b.Min.Y; y < b.Max.Y; y++ {
		for x := b.Min.X; x < b.Max.X; x++ {
			g := color.NRGBAModel.Convert(gi.At(x, y)).(color.NRGBA)
			w := color.NRGBAModel.Convert(wi.At(x, y)).(color.NRGBA)
			if far(g.R, w.R) || far(g.G, w.G) || far(g.B, w.B) || far(g.A, w.A) {
				bad++
				diff.Set(x, y, color.NRGBA{255, 0, 0, 255})
			} else {
				diff.Set(x, y, color.NRGBA{g.R / 4 * 3, g.G / 4 * 3, g.B / 4 * 3, 80})
			}
		}
	}
	if share := float64(bad) / float64(b.Dx()*b.Dy()); share > pixelShare {
		base := path[:len(path)-len(".png")]
		os.WriteFile(base+".got.png", got, 0o644)
		var buf bytes.Buffer
		png.Encode(&buf, diff)
		os.WriteFile(base+".diff.png", buf.Bytes(), 0o644)
		t.Fatalf("%d pixels (%.2f%%) differ from the golden; see %s.got.png and %s.diff.png", bad, share*100, base, base)
	}
}

func far(a, b uint8) bool {
	if a > b {
		a, b = b, a
	}
	return b-a > channelTolerance
}

// TestPNGSizesAndPlanMark checks the PNG sizes at each scale and at a
// chosen width and height, a transparent corner, and that the free plan's
// mark is drawn where it belongs.
func TestPNGSizesAndPlanMark(t *testing.T) {
	d := drawingFor(t)
	p := fontPool(t)
	for _, tc := range []struct{ w, h, scale int }{{800, 600, 1}, {800, 600, 2}, {800, 600, 4}, {640, 360, 1}, {300, 1000, 2}} {
		svg := sampleSVG(t, d, "line", draw.Input{Width: tc.w, Height: tc.h})
		out, err := p.Render(context.Background(), Job{SVG: svg, Width: tc.w, Height: tc.h, Scale: tc.scale})
		if err != nil {
			t.Fatal(err)
		}
		if w, h := pngSize(t, out); w != tc.w*tc.scale || h != tc.h*tc.scale {
			t.Errorf("%+v: IHDR %d×%d", tc, w, h)
		}
	}
	svg := sampleSVG(t, d, "bar", draw.Input{Transparent: true})
	out, err := p.Render(context.Background(), Job{SVG: svg, Width: 800, Height: 600, Scale: 1})
	if err != nil {
		t.Fatal(err)
	}
	if _, _, _, a := decodePNG(t, out).At(0, 0).RGBA(); a != 0 {
		t.Errorf("transparent corner alpha %d", a)
	}

	free := decodePNG(t, mustRender(t, p, sampleSVG(t, d, "pie", draw.Input{Watermark: true})))
	pro := decodePNG(t, mustRender(t, p, sampleSVG(t, d, "pie", draw.Input{})))
	var box image.Rectangle
	n := 0
	for y := range 600 {
		for x := range 800 {
			if free.At(x, y) != pro.At(x, y) {
				n++
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	if n < 30 || box.Min.X < 400 || box.Min.Y < 500 {
		t.Errorf("free-plan mark: %d pixels differ, in %v; want a visible mark bottom right", n, box)
	}
}

func mustRender(t *testing.T, p *Pool, svg []byte) []byte {
	t.Helper()
	out, err := p.Render(context.Background(), Job{SVG: svg, Width: 800, Height: 600, Scale: 1})
	if err != nil {
		t.Fatal(err)
	}
	return out
}
