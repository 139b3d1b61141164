package draw

import (
	"math"
	"slices"
	"strings"

	"chartd.dev/libs/chartspec"
)

// Outliers that would flatten a chart: one value at 1e9 among sixty near
// 5,000 squeezes them onto x=0, one 5M income squeezes a thousand others
// into three histogram bins. The few far outside are left off the scale
// (and said so on the picture); data that spans many orders of magnitude
// through and through gets a logarithmic axis instead.
const (
	// farFences is how many interquartile ranges beyond the quartiles a
	// value must lie to be left off the scale: Tukey's far-out fence is 3;
	// 20 keeps every value a long tail would hold.
	farFences = 20
	// minForOutliers is the fewest values a spread is read from.
	minForOutliers = 20
	// logOrders is the span (orders of magnitude, positive data) past
	// which a value axis left automatic turns logarithmic.
	logOrders = 3
)

// offScale answers the range [lo, hi] of sorted values drawn and how many
// lie far outside it: at most one in a hundred (one at least) beyond
// farFences interquartile ranges, and only when leaving them out shrinks
// the span at least tenfold. Anything else keeps every value (0 off).
func offScale(sorted []float64) (lo, hi float64, off int) {
	n := len(sorted)
	if n == 0 {
		return 0, 0, 0
	}
	lo, hi = sorted[0], sorted[n-1]
	if n < minForOutliers {
		return lo, hi, 0
	}
	q1, q3 := quantile(sorted, 0.25), quantile(sorted, 0.75)
	iqr := q3 - q1
	if iqr <= 0 {
		return lo, hi, 0
	}
	a, _ := slices.BinarySearch(sorted, q1-farFences*iqr)
	b, _ := slices.BinarySearch(sorted, math.Nextafter(q3+farFences*iqr, math.Inf(1)))
	off = a + n - b
	if off == 0 || off > max(1, n/100) || b <= a {
		return lo, hi, 0
	}
	if (sorted[b-1]-sorted[a])*10 > hi-lo {
		return lo, hi, 0
	}
	return sorted[a], sorted[b-1], off
}

// wantsLog reports positive values spanning more than logOrders orders of
// magnitude, which a linear axis would squeeze against zero.
func wantsLog(lo, hi float64) bool {
	return lo > 0 && hi/lo > math.Pow(10, logOrders)
}

// autoAxis reports an axis the person left to the drawing: no bounds, no
// scale.
func autoAxis(st *chartspec.Axis) bool {
	return st == nil || st.Min == nil && st.Max == nil && !st.Log && st.Scale == ""
}

// axisFit is how one automatic value axis holds its data: the range drawn,
// the values off the scale and whether it is logarithmic.
type axisFit struct {
	lo, hi float64
	off    int
	log    bool
}

// fitAxis chooses how an automatic axis holds vals (blank cells skipped):
// the few far outside off the scale, then a logarithmic scale for what
// still spans too many orders of magnitude.
func fitAxis(vals []float64) axisFit {
	sorted := make([]float64, 0, len(vals))
	for _, v := range vals {
		if !isBlank(v) {
			sorted = append(sorted, v)
		}
	}
	slices.Sort(sorted)
	var f axisFit
	f.lo, f.hi, f.off = offScale(sorted)
	f.log = wantsLog(f.lo, f.hi)
	return f
}

// addNote adds a sentence to the note the footer writes under the chart.
func (c *canvas) addNote(s string) {
	c.layoutNote = strings.TrimSpace(c.layoutNote + " " + s)
}

// offScaleNote is the sentence said of values left off an axis: "1 value
// off the scale: 1,000,000,000." (the furthest value, written in full).
func offScaleNote(vals []float64, fit axisFit, f numFormat) string {
	far := math.NaN()
	for _, v := range vals {
		if !isBlank(v) && (v < fit.lo || v > fit.hi) && (isBlank(far) || math.Abs(v-(fit.lo+fit.hi)/2) > math.Abs(far-(fit.lo+fit.hi)/2)) {
			far = v
		}
	}
	f.plain, f.compact = true, false
	if fit.off == 1 {
		return "1 value off the scale: " + formatValue(far, f) + "."
	}
	return itoa(fit.off) + " values off the scale, the furthest " + formatValue(far, f) + "."
}
