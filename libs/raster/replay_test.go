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
		scale := 1 + i%2
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
