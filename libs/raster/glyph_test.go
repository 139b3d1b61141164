package raster_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"log/slog"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"chartd.dev/libs/draw"
	"chartd.dev/libs/fontstack"
	"chartd.dev/libs/raster"
	"github.com/go-text/typesetting/segmenter"
)

// glyphSample is one label the glyph test draws.
type glyphSample struct {
	script, text string
	size         int // 0: glyphSize
	// generated marks a run of a face's letters rather than real text:
	// its ink may lie well inside its advance (wide side bearings), so
	// only the advance is held to the bound.
	generated bool
}

// glyphSamples is one label per script of the font stack (and the emoji
// sequences Chromium draws as one glyph), drawn at glyphSize, and small
// Latin text, where Chromium would round every advance to whole pixels if
// fontconfig asked for full hinting.
var glyphSamples = []glyphSample{
	{"Latin", "Department of Transportation", 0, false},
	{"Greek", "Πωλήσεις ανά χώρα", 0, false},
	{"Cyrillic", "Продажи по странам", 0, false},
	{"Chinese", "销售额按国家统计", 0, false},
	{"Japanese", "東京の売上高とカタカナ", 0, false},
	{"Korean", "국가별 매출 현황", 0, false},
	{"Arabic", "المبيعات حسب البلد", 0, false},
	{"Urdu", "پاکستان کے شہر", 0, false},
	{"Hebrew", "מכירות לפי מדינה", 0, false},
	{"Hindi", "देश के अनुसार बिक्री", 0, false},
	{"Hindi conjuncts", "क्षत्रिय प्रदर्शन", 0, false},
	{"Thai", "ยอดขายตามประเทศที่นี่", 0, false},
	{"Emoji", "📈😀👍🏽🇩🇪👨‍👩‍👧", 0, false},
	{"Emoji in text", "Sales 📈 up ❤️ 1️⃣", 0, false},
	{"Latin 10px", "0123456789 illicit iiii lll", 10, false},
	{"Latin 11px", "Department of Transportation", 11, false},
	// Roboto draws "fi" and "fl" as ligatures, narrower than their
	// letters; a Latin word after CJK or Cyrillic starts a script run of
	// its own, not kerned against the space before it.
	{"Latin ligatures", "Office traffic flow, profit", 0, false},
	{"Script runs", "東京 Tokyo Москва Tokyo 2024", 0, false},
}

// Geometry of the test picture, in CSS pixels.
const (
	glyphSize  = 48   // font size
	glyphW     = 1400 // canvas width
	labelX     = 20   // where every text starts
	labelBase  = 70   // label baseline; its ink lies in rows 0..labelRows
	labelRows  = 100
	markerDy   = 100 // the marker sits this far below the label's baseline
	markerTop  = labelBase + markerDy - 45
	markerBot  = labelBase + markerDy + 20
	cellY      = 200 // grid of single clusters: top row
	cellW      = 110
	cellH      = 100
	cellsInRow = 10
)

// glyphSVG draws text with a red marker right after it (one line lower,
// so the label's ink never mixes with it), then every grapheme cluster of
// text alone in a grid cell, then the missing glyph (U+10FFFD, in no font)
// in the last cell.
func glyphSVG(family, text string, clusters []string, bold bool, size int) ([]byte, int) {
	weight := ""
	if bold {
		weight = ` font-weight="bold"`
	}
	var b bytes.Buffer
	cells := append(clusters, "\U0010FFFD")
	rows := (len(cells) + cellsInRow - 1) / cellsInRow
	h := cellY + rows*cellH
	fmt.Fprintf(&b, `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" font-family="%s" font-size="%d"%s>`, glyphW, h, family, glyphSize, weight)
	label := ""
	if size != glyphSize {
		label = fmt.Sprintf(` font-size="%d"`, size)
	}
	fmt.Fprintf(&b, `<rect width="100%%" height="100%%" fill="#fff"/>`)
	// text written as libs/draw writes it, lone emoji asking for colour
	esc := func(s string) string { return string(draw.AppendText(nil, s)) }
	fmt.Fprintf(&b, `<text x="%d" y="%d"%s>%s<tspan dy="%d" font-size="%d" fill="#f00">|</tspan></text>`, labelX, labelBase, label, esc(text), markerDy, glyphSize)
	for i, c := range cells {
		x := (i % cellsInRow) * cellW
		y := cellY + (i/cellsInRow)*cellH
		fmt.Fprintf(&b, `<text x="%d" y="%d">%s</text>`, x+labelX, y+labelBase, esc(c))
	}
	b.WriteString(`</svg>`)
	return b.Bytes(), h
}

// inked reports a pixel that is not (nearly) white.
func inked(img image.Image, x, y int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	return (0xffff-r)+(0xffff-g)+(0xffff-b) > 3*0x4000
}

// red reports a pixel of the marker (at least half covered).
func red(img image.Image, x, y int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	return r > 0xc000 && g < 0x8000 && b < 0x8000
}

// inkSpan is the leftmost and rightmost column with ink in rows y0..y1.
func inkSpan(img image.Image, y0, y1 int, is func(image.Image, int, int) bool) (lo, hi int, ok bool) {
	lo, hi = math.MaxInt, -1
	for y := y0; y < y1; y++ {
		for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
			if is(img, x, y) {
				lo, hi = min(lo, x), max(hi, x)
			}
		}
	}
	return lo, hi, hi >= 0
}

// cell is the ink of grid cell i as a bitmap.
func cell(img image.Image, i int) []bool {
	x0, y0 := (i%cellsInRow)*cellW, cellY+(i/cellsInRow)*cellH
	var out []bool
	for y := y0; y < y0+cellH; y++ {
		for x := x0; x < x0+cellW; x++ {
			out = append(out, inked(img, x, y))
		}
	}
	return out
}

// graphemes splits text into grapheme clusters, without the spaces.
func graphemes(text string) []string {
	var seg segmenter.Segmenter
	seg.Init([]rune(text))
	var out []string
	for it := seg.GraphemeIterator(); it.Next(); {
		if g := string(it.Grapheme().Text); strings.TrimSpace(g) != "" {
			out = append(out, g)
		}
	}
	return out
}

// TestGlyphsMatchMeasurement draws a label in every script of the font
// stack (glyphSamples, then a sample for every family: stackSamples), in
// regular and bold, with the fontconfig file the render service gives
// Chromium, and checks that
//   - every grapheme cluster is drawn with a real glyph: its ink differs
//     from the missing-glyph box (.notdef) Chromium draws for a character
//     no font has;
//   - the width libs/draw measures agrees with what Chromium draws: the
//     advance (where a marker drawn right after the label lands) within
//     1 % + 1 px, the label's ink extent within 5 % (for real text; a
//     generated run of letters may have wide side bearings).
func TestGlyphsMatchMeasurement(t *testing.T) {
	st, err := fontstack.Find()
	if err != nil {
		t.Fatal(err)
	}
	fonts, err := draw.LoadFonts(st)
	if err != nil {
		t.Fatal(err)
	}
	conf, err := st.WriteFontconfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	pool := fontsPool(t, ctx, conf)
	defer pool.Close()
	render := func(svg []byte, h int) image.Image {
		t.Helper()
		out, err := pool.Render(ctx, raster.Job{SVG: svg, Width: glyphW, Height: h, Scale: 1})
		if err != nil {
			t.Fatal(err)
		}
		img, err := png.Decode(bytes.NewReader(out))
		if err != nil {
			t.Fatal(err)
		}
		return img
	}
	family := fonts.Family

	// Then every script of the stack: its two words as one label.
	samples := glyphSamples
	for _, s := range stackSamples(t) {
		samples = append(samples, glyphSample{script: s.script, text: s.a + " " + s.b, generated: s.generated})
	}

	var mu sync.Mutex
	var report []string
	for _, bold := range []bool{false, true} {
		ref := render(glyphSVG(family, "", nil, bold, glyphSize)) // the marker after an empty label
		refX, _, ok := inkSpan(ref, markerTop, markerBot, red)
		if !ok {
			t.Fatal("the marker is not drawn")
		}
		for _, s := range samples {
			name := s.script
			if bold {
				name += " bold"
			}
			t.Run(name, func(t *testing.T) {
				clusters := graphemes(s.text)
				size := s.size
				if size == 0 {
					size = glyphSize
				}
				img := render(glyphSVG(family, s.text, clusters, bold, size))

				tofu := cell(img, len(clusters))
				for i, c := range clusters {
					ink := cell(img, i)
					same, any := 0, 0
					for k := range ink {
						if ink[k] == tofu[k] {
							same++
						}
						if ink[k] {
							any++
						}
					}
					if any == 0 || float64(same) > 0.99*float64(len(ink)) {
						t.Errorf("%q (U+%04X…) is drawn as the missing glyph", c, []rune(c)[0])
					}
				}

				measured := fonts.Width(s.text, float64(size), bold)
				mx, _, ok := inkSpan(img, markerTop, markerBot, red)
				if !ok {
					t.Fatal("the marker is not drawn")
				}
				advance := float64(mx - refX)
				lo, hi, ok := inkSpan(img, 0, labelRows, inked)
				if !ok {
					t.Fatal("the label has no ink")
				}
				ink := float64(hi - lo + 1)
				advErr := (measured - advance) / advance
				inkErr := (measured - ink) / ink
				mu.Lock()
				report = append(report, fmt.Sprintf("%-22s measured %6.1f px  drawn advance %4.0f px (%+5.2f%%)  ink %4.0f px (%+5.2f%%)", name, measured, advance, 100*advErr, ink, 100*inkErr))
				mu.Unlock()
				if math.Abs(measured-advance) > 0.01*advance+1 {
					t.Errorf("measured %.1f px, Chromium advanced %.0f px (%+.2f%%)", measured, advance, 100*advErr)
				}
				if math.Abs(inkErr) > 0.05 && !s.generated {
					t.Errorf("measured %.1f px, Chromium's ink spans %.0f px (%+.2f%%)", measured, ink, 100*inkErr)
				}
			})
		}
	}
	t.Logf("font size %d px unless named, measured by libs/draw vs drawn by Chromium:\n%s", glyphSize, strings.Join(report, "\n"))
}

// fontsPool starts a one-browser pool drawing with the fontconfig file
// conf, as the render service does; the caller closes it.
func fontsPool(t *testing.T, ctx context.Context, conf string) *raster.Pool {
	t.Helper()
	cfg := raster.DefaultConfig()
	cfg.Browsers, cfg.Tabs, cfg.Deadline = 1, 2, 20*time.Second
	cfg.FontConfig, cfg.TempDir = conf, t.TempDir()
	pool, err := raster.New(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	if err := pool.Start(ctx); err != nil {
		t.Fatal(err)
	}
	return pool
}
