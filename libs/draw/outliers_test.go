package draw

import (
	"math"
	"slices"
	"testing"
)

// TestOffScale: only a few values far outside the rest leave the scale,
// and only when that shrinks it tenfold; long tails and small sets stay.
func TestOffScale(t *testing.T) {
	spread := func(n int, lo, step float64, extra ...float64) []float64 {
		out := make([]float64, 0, n+len(extra))
		for i := range n {
			out = append(out, lo+float64(i)*step)
		}
		return append(out, extra...)
	}
	tail := make([]float64, 1000)
	for i := range tail {
		tail[i] = math.Exp(10 + 3*float64(i)/1000) // 22k to 440k, smoothly
	}
	tests := []struct {
		name     string
		vals     []float64
		off      int
		lo, hi   float64
		wantsLog bool
	}{
		{name: "one at 1e9 among 60", vals: spread(60, 1000, 150, 1e9), off: 1, lo: 1000, hi: 1000 + 59*150},
		{name: "one far below", vals: spread(60, 1000, 150, -1e9), off: 1, lo: 1000, hi: 1000 + 59*150},
		{name: "two far out among 61 is more than 1 in 100", vals: spread(59, 1000, 150, 1e9, 2e9), lo: 1000, hi: 2e9, wantsLog: true},
		{name: "a long smooth tail stays", vals: tail, lo: tail[0], hi: tail[999]},
		{name: "too few to call outliers", vals: spread(10, 1, 1, 1e9), lo: 1, hi: 1e9, wantsLog: true},
		{name: "all equal but one: no spread to read", vals: spread(30, 5, 0, 1e6), lo: 5, hi: 1e6, wantsLog: true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lo, hi, off := offScale(slices.Values(tt.vals), len(tt.vals))
			if off != tt.off || lo != tt.lo || hi != tt.hi {
				t.Errorf("offScale = %g, %g, %d; want %g, %g, %d", lo, hi, off, tt.lo, tt.hi, tt.off)
			}
			if got := wantsLog(lo, hi); got != tt.wantsLog {
				t.Errorf("wantsLog(%g, %g) = %v, want %v", lo, hi, got, tt.wantsLog)
			}
		})
	}
}
