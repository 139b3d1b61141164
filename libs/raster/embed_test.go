package raster

import (
	"context"
	"image/color"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"chartd.dev/libs/draw"
	"chartd.dev/libs/subset"
)

// noFontsConfig writes a fontconfig file that finds no font at all (an
// empty font directory) with the rendering settings of the stack's file
// (libs/fontstack WriteFontconfig: antialiasing, slight hinting, no
// subpixel colour): a machine that has none of the stack's fonts.
func noFontsConfig(t *testing.T) string {
	t.Helper()
	dir := t.TempDir()
	fonts, cache := filepath.Join(dir, "fonts"), filepath.Join(dir, "cache")
	for _, d := range []string{fonts, cache} {
		if err := os.MkdirAll(d, 0o755); err != nil {
			t.Fatal(err)
		}
	}
	conf := `<?xml version="1.0"?>
<!DOCTYPE fontconfig SYSTEM "urn:fontconfig:fonts.dtd">
<fontconfig>
  <dir>` + fonts + `</dir>
  <cachedir>` + cache + `</cachedir>
  <match target="font">
    <edit name="antialias" mode="assign"><bool>true</bool></edit>
    <edit name="hinting" mode="assign"><bool>true</bool></edit>
    <edit name="hintstyle" mode="assign"><const>hintslight</const></edit>
    <edit name="rgba" mode="assign"><const>none</const></edit>
  </match>
</fontconfig>
`
	path := filepath.Join(dir, "fonts.conf")
	if err := os.WriteFile(path, []byte(conf), 0o644); err != nil {
		t.Fatal(err)
	}
	return path
}

// testSubsets is hb-subset and woff2_compress behind a cache, as the
// render service runs them.
var testSubsets = sync.OnceValues(func() (*subset.Cache, error) {
	tool, err := subset.NewTool(2)
	if err != nil {
		return nil, err
	}
	return subset.NewCache(tool, 64<<20, time.Minute), nil
})

// TestEmbeddedFontsDrawWithoutInstalledFonts: an SVG carrying its fonts
// (draw's EmbedFonts), drawn by Chromium on a machine with no fonts at
// all, is the PNG the render fleet draws from the system-font SVG with the
// stack installed, within the PNG goldens' tolerance (compareImages): the
// cases of TestGoldenPNG (every type, the issue 13 and 22 items) and two
// charts in CJK, Hangul, Arabic, Cyrillic and emoji. The system-font SVG
// on that machine draws no text at all (the control).
func TestEmbeddedFontsDrawWithoutInstalledFonts(t *testing.T) {
	d := drawingFor(t)
	sub, err := testSubsets()
	if err != nil {
		t.Fatal(err)
	}
	cfg := DefaultConfig()
	cfg.Browsers, cfg.Tabs = 1, 2
	cfg.FontConfig = noFontsConfig(t)
	bare := startPool(t, cfg)
	system := fontPool(t)
	ctx := context.Background()

	cases := goldenPNGs(d)
	// Scripts the PNG goldens do not show: CJK, Hangul, Arabic (joined),
	// Cyrillic, Devanagari (conjuncts), emoji.
	for _, name := range []string{"bar-non-latin", "pie-non-latin"} {
		cases = append(cases, itemPNG("scripts", itemGolden{key: "svg", golden: name}))
	}
	for _, g := range cases {
		t.Run(g.name, func(t *testing.T) {
			svg := g.svg(t)
			w, h := g.w, g.h
			if w == 0 {
				m := svgSize.FindSubmatch(svg)
				if m == nil {
					t.Fatal("the SVG names no width and height")
				}
				w, _ = strconv.Atoi(string(m[1]))
				h, _ = strconv.Atoi(string(m[2]))
				if long := max(w, h); long > itemMaxSide {
					w, h = w*itemMaxSide/long, h*itemMaxSide/long
				}
			}
			want, err := system.Render(ctx, Job{SVG: svg, Width: w, Height: h, Scale: 1})
			if err != nil {
				t.Fatal(err)
			}
			embedded, err := d.fonts.EmbedFonts(ctx, svg, sub)
			if err != nil {
				t.Fatal(err)
			}
			got, err := bare.Render(ctx, Job{SVG: embedded, Width: w, Height: h, Scale: 1})
			if err != nil {
				t.Fatal(err)
			}
			dir := filepath.Join(os.TempDir(), "chartd-embedded-fonts")
			if err := os.MkdirAll(dir, 0o755); err != nil {
				t.Fatal(err)
			}
			compareImages(t, filepath.Join(dir, strings.ReplaceAll(g.name, "/", "-")+".png"), got, want)
			// The tolerance lets through a share of the pixels that a
			// chart with little text could lose with all its text: the
			// text must be there, as much of it as with the system fonts
			// (glyphs may sit a subpixel apart, which moves ink, not
			// removes it).
			textless, err := bare.Render(ctx, Job{SVG: svg, Width: w, Height: h, Scale: 1})
			if err != nil {
				t.Fatal(err)
			}
			text, ink := offShare(t, want, textless), offShare(t, got, textless)
			if ink < 0.9*text || ink > 1.1*text {
				t.Errorf("the text covers %.3f%% of the picture with the embedded fonts, %.3f%% with the system fonts", ink*100, text*100)
			}
			t.Logf("text %.3f%% of the pixels, %.3f%% with the embedded fonts; %.3f%% off", text*100, ink*100, offShare(t, got, want)*100)
		})
	}

	// The control: without its fonts the same SVG loses its text there.
	t.Run("control", func(t *testing.T) {
		svg := sampleSVG(t, d, "bar", draw.Input{})
		got, err := bare.Render(ctx, Job{SVG: svg, Width: 800, Height: 600, Scale: 1})
		if err != nil {
			t.Fatal(err)
		}
		want, err := system.Render(ctx, Job{SVG: svg, Width: 800, Height: 600, Scale: 1})
		if err != nil {
			t.Fatal(err)
		}
		if share := offShare(t, got, want); share <= pixelShare {
			t.Errorf("the system-font SVG on a machine without fonts differs in only %.2f%% of the pixels: the test machine has fonts after all", share*100)
		}
	})
}

// offShare is the share of pixels of two same-sized PNGs that differ by
// more than channelTolerance.
func offShare(t *testing.T, a, b []byte) float64 {
	t.Helper()
	ai, bi := decodePNG(t, a), decodePNG(t, b)
	if ai.Bounds() != bi.Bounds() {
		t.Fatalf("size %v and %v", ai.Bounds(), bi.Bounds())
	}
	r := ai.Bounds()
	off := 0
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			p := color.NRGBAModel.Convert(ai.At(x, y)).(color.NRGBA)
			q := color.NRGBAModel.Convert(bi.At(x, y)).(color.NRGBA)
			if far(p.R, q.R) || far(p.G, q.G) || far(p.B, q.B) || far(p.A, q.A) {
				off++
			}
		}
	}
	return float64(off) / float64(r.Dx()*r.Dy())
}
