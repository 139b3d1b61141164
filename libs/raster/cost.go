package raster

import (
	"bytes"
	"fmt"
	"time"
)

// Cost is what rasterizing a picture will take, read off its SVG before a
// tab is spent on it: a picture too heavy for the deadline is the
// picture's property, not a browser's failure, so it is refused up front
// instead of hanging a tab.
type Cost struct {
	// Elements counts start tags: each is a layout object Blink builds
	// and paints.
	Elements int64
	// PathBytes is the length of path data (d and points attributes),
	// which Skia parses and strokes segment by segment.
	PathBytes int64
	// SVGBytes is the document's size, parsed once and held by Chromium
	// and by this process while it draws.
	SVGBytes int64
	// Pixels is the PNG's area: raster, read back and encoded.
	Pixels int64
}

// The cost model, fitted on a loaded two-core machine
// (docs/decisions/rendering.md, "Too heavy is the picture's property"):
// 10,000 rects at 800×600 took 250 ms, 100,000 1.0 s, the
// 641,000 rects of a 1000×1000-cell bar chart over 10 s; 770 KB of path
// data 220 ms; a 20,000-point scatter at 4000×4000 3.5 s, two thirds of it
// rasterizing and encoding 16 Mpx.
const (
	nsPerElement  = 15_000
	nsPerPathByte = 300
	nsPerPixel    = 150
)

// MaxSVGBytes caps the SVG handed to Chromium: the page holds it as a
// string, a data: URL and a parsed document at once, and this process
// holds it as a JSON literal besides.
const MaxSVGBytes = 8 << 20

// Estimate is the time the picture should take to draw on an unloaded
// tab.
func (c Cost) Estimate() time.Duration {
	return time.Duration(c.Elements*nsPerElement + c.PathBytes*nsPerPathByte + c.Pixels*nsPerPixel)
}

// TooHeavyError is a picture too heavy to rasterize: refused before
// drawing by its Cost, or found so when it ran past the deadline on a
// browser that still answers. It is never retried and costs no browser.
type TooHeavyError struct {
	Cost Cost
	// Budget is the drawing time allowed; Ran is set when the picture was
	// drawn and ran past it.
	Budget time.Duration
	Ran    bool
}

func (e *TooHeavyError) Error() string {
	what := fmt.Sprintf("%d elements, %d KiB of path data, %d KiB of SVG at %d pixels",
		e.Cost.Elements, e.Cost.PathBytes>>10, e.Cost.SVGBytes>>10, e.Cost.Pixels)
	if e.Ran {
		return fmt.Sprintf("raster: the picture (%s) did not finish drawing within %s", what, e.Budget)
	}
	if e.Cost.SVGBytes > MaxSVGBytes {
		return fmt.Sprintf("raster: the picture's SVG is %d KiB, more than the %d KiB a PNG is drawn from", e.Cost.SVGBytes>>10, MaxSVGBytes>>10)
	}
	return fmt.Sprintf("raster: the picture (%s) would take about %s to draw, more than the %s allowed",
		what, e.Cost.Estimate().Round(time.Millisecond), e.Budget)
}

// CostOf reads the cost of drawing svg at w×h CSS pixels times scale. It
// is one pass over the bytes, without parsing: about 30 ms for a 30 MB SVG.
func CostOf(svg []byte, w, h, scale int) Cost {
	c := Cost{SVGBytes: int64(len(svg)), Pixels: int64(w*scale) * int64(h*scale)}
	for i := 0; i < len(svg); i++ {
		if svg[i] != '<' || i+1 >= len(svg) {
			continue
		}
		if ch := svg[i+1]; ch >= 'a' && ch <= 'z' || ch >= 'A' && ch <= 'Z' {
			c.Elements++
		}
	}
	for _, attr := range [][]byte{[]byte(` d="`), []byte(` points="`)} {
		rest := svg
		for {
			k := bytes.Index(rest, attr)
			if k < 0 {
				break
			}
			rest = rest[k+len(attr):]
			end := bytes.IndexByte(rest, '"')
			if end < 0 {
				break
			}
			c.PathBytes += int64(end)
			rest = rest[end:]
		}
	}
	return c
}

// CheckCost refuses a job whose SVG is over MaxSVGBytes or whose estimate
// is over budget, with a *TooHeavyError.
func CheckCost(j Job, budget time.Duration) error {
	scale := max(j.Scale, 1)
	c := CostOf(j.SVG, j.Width, j.Height, scale)
	if c.SVGBytes > MaxSVGBytes || c.Estimate() > budget {
		return &TooHeavyError{Cost: c, Budget: budget}
	}
	return nil
}
