package draw

import (
	"math"

	"chartd.dev/libs/chartspec"
)

// ReadingMinText is the smallest type, in CSS px, of a picture read at its
// own size on a phone (an embed's frame): smaller is hard to read there.
const ReadingMinText = 11

// SizeAtWidth is the canvas a chart is drawn at when a page gives it w px
// of width (an embed's frame; 0: the chart's own size): the chart's
// proportions, but never so flat that a phone's picture has no room for
// its plot.
func SizeAtWidth(spec *chartspec.Spec, w int) (int, int) {
	sw, sh := spec.Style.Dimensions()
	if w == 0 {
		return sw, sh
	}
	h := int(math.Round(float64(w) * float64(sh) / float64(sw)))
	h = max(h, min(sh, 360))
	return w, min(max(h, MinSide), MaxSide)
}
