package draw

import (
	"iter"
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

// quartileSample is the most values the quartiles of offScale are read
// from: a stride sample of a long column, sorted, so a 10,000-point
// scatter pays for sorting 1,024 values, not 10,000.
const quartileSample = 1024

// offScale answers the range [lo, hi] of the values drawn and how many
// lie far outside it: at most one in a hundred (one at least) beyond
// farFences interquartile ranges, and only when leaving them out shrinks
// the span at least tenfold. Anything else keeps every value (0 off).
// vals yields the n values (blank cells skipped by the caller).
func offScale(vals iter.Seq[float64], n int) (lo, hi float64, off int) {
	lo, hi = math.Inf(1), math.Inf(-1)
	if n == 0 {
		return 0, 0, 0
	}
	stride := max(1, n/quartileSample)
	sample := make([]float64, 0, min(n, quartileSample+1))
	k := 0
	for v := range vals {
		lo, hi = min(lo, v), max(hi, v)
		if k%stride == 0 && len(sample) < cap(sample) {
			sample = append(sample, v)
		}
		k++
	}
	if n < minForOutliers {
		return lo, hi, 0
	}
	slices.Sort(sample)
	q1, q3 := quantile(sample, 0.25), quantile(sample, 0.75)
	iqr := q3 - q1
	if iqr <= 0 {
		return lo, hi, 0
	}
	fenceLo, fenceHi := q1-farFences*iqr, q3+farFences*iqr
	keptLo, keptHi := math.Inf(1), math.Inf(-1)
	for v := range vals {
		if v < fenceLo || v > fenceHi {
			off++
			continue
		}
		keptLo, keptHi = min(keptLo, v), max(keptHi, v)
	}
	if off == 0 || off > max(1, n/100) || keptLo > keptHi || (keptHi-keptLo)*10 > hi-lo {
		return lo, hi, 0
	}
	return keptLo, keptHi, off
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

// fitAxis chooses how an automatic axis holds the n values vals yields
// (blank cells skipped): the few far outside off the scale, then a
// logarithmic scale for what still spans too many orders of magnitude.
func fitAxis(vals iter.Seq[float64], n int) axisFit {
	var f axisFit
	f.lo, f.hi, f.off = offScale(vals, n)
	f.log = wantsLog(f.lo, f.hi)
	return f
}

// addNote adds a sentence to the note the footer writes under the chart.
func (c *canvas) addNote(s string) {
	c.layoutNote = strings.TrimSpace(c.layoutNote + " " + s)
}

// offScaleNote is the sentence said of values left off an axis: "1 value
// off the scale: 1,000,000,000." (the furthest value, written in full).
func offScaleNote(vals iter.Seq[float64], fit axisFit, f numFormat) string {
	far := math.NaN()
	for v := range vals {
		if (v < fit.lo || v > fit.hi) && (isBlank(far) || math.Abs(v-(fit.lo+fit.hi)/2) > math.Abs(far-(fit.lo+fit.hi)/2)) {
			far = v
		}
	}
	f.plain, f.compact = true, false
	if fit.off == 1 {
		return "1 value off the scale: " + formatValue(far, f) + "."
	}
	return itoa(fit.off) + " values off the scale, the furthest " + formatValue(far, f) + "."
}
