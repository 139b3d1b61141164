package chartspec

import (
	"testing"

	"chartd.dev/charts"
	colorful "github.com/lucasb-eyer/go-colorful"
)

// Series colours a reader tells apart as lines (issue 32 item 12): every
// pair of one chart's series colours at least seriesApart8 CIEDE2000 up to
// 8 series and seriesApart12 up to 12.
const (
	seriesApart8  = 20.0
	seriesApart12 = 15.0
)

// TestSeriesColoursApart: the default palette, extended as a chart with n
// series extends it, keeps every pair of its first n colours apart (≥ 20
// CIEDE2000 up to 8 series, ≥ 15 up to 12), each at 3:1 or more against
// white. The old default had #2F6FDB and #6A4FC4 at 15.5 in 8 series, #8C6D4F and
// #947500 at 15.0 in 9, and #C8610C beside a generated #9F3605 at 15.7.
func TestSeriesColoursApart(t *testing.T) {
	cat, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	def, ok := cat.Palette("default")
	if !ok {
		t.Fatal("no default palette")
	}
	white := colorful.Color{R: 1, G: 1, B: 1}
	for n := 2; n <= 12; n++ {
		limit := seriesApart8
		if n > 8 {
			limit = seriesApart12
		}
		cs := ExtendPalette(def.Colors, n)[:n]
		for i := range cs {
			a, _, _ := ParseColor(cs[i])
			if r := Contrast(a, white); r < 3 {
				t.Errorf("%d series: %s has %.2f:1 against white", n, cs[i], r)
			}
			for j := i + 1; j < n; j++ {
				b, _, _ := ParseColor(cs[j])
				if d := DeltaE(a, b); d < limit {
					t.Errorf("%d series: %s and %s are %.1f apart (CIEDE2000), want ≥ %.0f", n, cs[i], cs[j], d, limit)
				}
			}
		}
	}
}
