package raster

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"testing"
)

// TestReplayMatchesImage draws every libs/draw golden SVG both ways, by
// replay and as an image, and holds the replayed PNG to the PNG goldens'
// own tolerance against the image's. It also proves the replay is used:
// most goldens are replayed, and those it cannot replay (gradients, clip
// paths, styled runs) fall back to the image path and still draw.
func TestReplayMatchesImage(t *testing.T) {
	p := startPool(t, smallConfig())
	files, err := filepath.Glob("../draw/testdata/*.svg")
	if err != nil || len(files) < 100 {
		t.Fatalf("want libs/draw's golden SVGs, found %d (%v)", len(files), err)
	}
	replayed := 0
	for i, f := range files {
		svg, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		m := svgSize.FindSubmatch(svg)
		if m == nil {
			t.Fatalf("%s: no width and height on the root", f)
		}
		w, _ := strconv.Atoi(string(m[1]))
		h, _ := strconv.Atoi(string(m[2]))
		// every other golden at scale 2, unless that is more than the pool
		// draws (the 4000×2250 poster: 36 Mpx), whichever place the
		// goldens' order gives it
		scale := 1 + i%2
		if CheckCost(Job{SVG: svg, Width: w, Height: h, Scale: scale}, p.budget()) != nil {
			scale = 1
		}
		name := filepath.Base(f)
		ctx := context.Background()
		img, err := p.Render(ctx, Job{SVG: svg, Width: w, Height: h, Scale: scale, path: pathImage})
		if err != nil {
			t.Fatalf("%s as an image: %v", name, err)
		}
		before := p.Stats().Replayed
		either, err := p.Render(ctx, Job{SVG: svg, Width: w, Height: h, Scale: scale})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if p.Stats().Replayed > before {
			replayed++
		}
		t.Run(name, func(t *testing.T) {
			dir := t.TempDir()
			compareImages(t, filepath.Join(dir, name+".png"), either, img)
		})
	}
	t.Logf("%d of %d goldens replayed", replayed, len(files))
	if replayed < len(files)*3/4 {
		t.Errorf("%d of %d goldens replayed; want at least three quarters (libs/draw's vocabulary)", replayed, len(files))
	}
}

// TestReplayKeepsBidiOrder: a bold Hebrew name followed by its value in
// a normal-weight run is one bidi paragraph in SVG, so the value is drawn
// to the name's left; runs replayed one after another would put it to the
// right. Such text, and labels in Latin around it, must match the image.
func TestReplayKeepsBidiOrder(t *testing.T) {
	p := startPool(t, smallConfig())
	for name, svg := range map[string]string{
		"hebrew name, value":  `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="60" viewBox="0 0 240 60" font-family="'Roboto', 'DejaVu Sans'" font-size="16"><rect width="100%" height="100%" fill="#FFFFFF"/><text x="20" y="38" font-weight="bold" fill="#2F6FDB">הכנסות<tspan font-weight="normal" fill="#3D444D"> 39.6k</tspan></text></svg>`,
		"latin name, value":   `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="60" viewBox="0 0 240 60" font-family="'Roboto', 'DejaVu Sans'" font-size="16"><rect width="100%" height="100%" fill="#FFFFFF"/><text x="220" y="38" text-anchor="end" fill="#3D444D">⁨Revenue⁩ <tspan font-weight="bold">39.6k</tspan></text></svg>`,
		"arabic isolated run": `<svg xmlns="http://www.w3.org/2000/svg" width="240" height="60" viewBox="0 0 240 60" font-family="'Roboto', 'DejaVu Sans'" font-size="16"><rect width="100%" height="100%" fill="#FFFFFF"/><text x="120" y="38" text-anchor="middle" fill="#3D444D">⁨الإيرادات⁩ <tspan font-weight="bold">12%</tspan></text></svg>`,
	} {
		t.Run(name, func(t *testing.T) {
			ctx := context.Background()
			img, err := p.Render(ctx, Job{SVG: []byte(svg), Width: 240, Height: 60, Scale: 2, path: pathImage})
			if err != nil {
				t.Fatal(err)
			}
			got, err := p.Render(ctx, Job{SVG: []byte(svg), Width: 240, Height: 60, Scale: 2})
			if err != nil {
				t.Fatal(err)
			}
			compareImages(t, filepath.Join(t.TempDir(), "bidi.png"), got, img)
		})
	}
}
