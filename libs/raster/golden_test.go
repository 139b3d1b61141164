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

// TestGoldenPNG draws every type's sample and compares it with its golden
// within a small per-pixel tolerance; a failure writes the picture and a
// diff image next to the golden.
func TestGoldenPNG(t *testing.T) {
	d := drawingFor(t)
	p := fontPool(t)
	for _, ct := range d.catalog.Types() {
		t.Run(ct.Type, func(t *testing.T) {
			svg := sampleSVG(t, d, ct.Type, draw.Input{})
			got, err := p.Render(context.Background(), Job{SVG: svg, Width: 800, Height: 600, Scale: 1})
			if err != nil {
				t.Fatal(err)
			}
			path := filepath.Join("testdata", "png", ct.Type+".png")
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
