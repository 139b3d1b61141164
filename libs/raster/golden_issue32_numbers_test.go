package raster

import (
	"context"
	"image"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"testing"
)

// issue32NumberGoldens are issue 32's number, direction, colour and emoji
// items (9, 10, 11, 12, 17), drawn to PNG like itemGoldens
// (testdata/png/issue32/key-golden.png).
var issue32NumberGoldens = []itemGolden{
	{"item9-labels-axis-unit", "labels in the axis's unit: 0.80M beside 1.05M, never 800k", "numbers32-labels-axis-unit"},
	{"item9-one-precision", "one precision: 12.78k, 11.40k, 6.31k, never 11.4k or 6.308k", "numbers32-labels-one-precision"},
	{"item9-axis-top-unit", "one unit on the axis: 800M, 1,000M, never 1B at the top", "numbers32-axis-top-unit"},
	{"item10-locale-de", "German compact units from CLDR: 84,5 Mio., 39.584 (no thousands form)", "numbers32-locale-de-compact"},
	{"item10-inferred-zh", "no locale set, Chinese words: 2487万, with a notice", "numbers32-inferred-zh"},
	{"item10-inferred-ja", "no locale set, Japanese words (kana): 1405万, with a notice", "numbers32-inferred-ja"},
	{"item11-arabic-line", "Arabic: value axis on the right, legend and footer right, Arabic-Indic digits on both axes", "rtl32-arabic-line-footer"},
	{"item11-hebrew-bar", "Hebrew: value axis on the right, footer right", "rtl32-hebrew-bar-footer"},
	{"item17-emoji", "😀😐😢😡 in colour beside 🤷, in the subtitle and on the axis", "emoji-colour-everywhere"},
}

// emojiLine finds the text of the emoji golden that starts with 😀 (its
// subtitle): baseline y and font size.
var emojiLine = regexp.MustCompile(`<text x="[\d.]+" y="([\d.]+)" font-size="(\d+)"[^>]*>😀`)

// TestEmojiInColour draws the emoji golden of libs/draw as the render
// service does and checks every emoji of its subtitle ("😀 😐 😢 😡 🤷")
// has coloured pixels: DejaVu Sans (second in the family list) has
// outlines of 😀😐😢😡, which Chromium took before the colour emoji face
// while 🤷, which DejaVu lacks, came out in colour.
func TestEmojiInColour(t *testing.T) {
	svg, err := os.ReadFile(filepath.Join("..", "draw", "testdata", "emoji-colour-everywhere.svg"))
	if err != nil {
		t.Fatal(err)
	}
	m := emojiLine.FindSubmatch(svg)
	if m == nil {
		t.Fatal("no line of emoji in the golden")
	}
	base, _ := strconv.ParseFloat(string(m[1]), 64)
	size, _ := strconv.ParseFloat(string(m[2]), 64)
	p := fontPool(t)
	out, err := p.Render(context.Background(), Job{SVG: svg, Width: 800, Height: 600, Scale: 1})
	if err != nil {
		t.Fatal(err)
	}
	img := decodePNG(t, out)
	// the subtitle's glyphs: ink between an em above the baseline and a
	// quarter em below it, split into glyphs at blank columns
	y0, y1 := int(base-size*1.1), int(base+size*0.3)
	glyphs := inkRuns(img, y0, y1)
	if len(glyphs) != 5 {
		t.Fatalf("the subtitle shows %d glyphs, want the 5 emoji: %v", len(glyphs), glyphs)
	}
	for i, g := range glyphs {
		ink, coloured := 0, 0
		for y := y0; y < y1; y++ {
			for x := g[0]; x <= g[1]; x++ {
				if !inkedPixel(img, x, y) {
					continue
				}
				ink++
				if saturated(img, x, y) {
					coloured++
				}
			}
		}
		if coloured*2 < ink {
			t.Errorf("emoji %d of the subtitle (x %d–%d) is drawn in outline: %d of %d inked pixels coloured", i+1, g[0], g[1], coloured, ink)
		}
	}
}

// inkRuns are the column ranges with ink in rows y0..y1, apart by a blank
// column or more.
func inkRuns(img image.Image, y0, y1 int) [][2]int {
	var runs [][2]int
	open := false
	for x := img.Bounds().Min.X; x < img.Bounds().Max.X; x++ {
		col := false
		for y := y0; y < y1 && !col; y++ {
			col = inkedPixel(img, x, y)
		}
		switch {
		case col && !open:
			runs = append(runs, [2]int{x, x})
			open = true
		case col:
			runs[len(runs)-1][1] = x
		default:
			open = false
		}
	}
	return runs
}

// inkedPixel reports a pixel that is not (nearly) white.
func inkedPixel(img image.Image, x, y int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	return (0xffff-r)+(0xffff-g)+(0xffff-b) > 3*0x2000
}

// saturated reports a coloured pixel: its channels a third of the range
// apart or more (grey, black and antialiased outline edges are not).
func saturated(img image.Image, x, y int) bool {
	r, g, b, _ := img.At(x, y).RGBA()
	return max(r, g, b)-min(r, g, b) > 0x5500
}
