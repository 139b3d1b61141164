package draw

import (
	"math"
	"slices"

	"chartd.dev/libs/dataset"
)

// finite collects the drawable values of a column, sorted.
func finite(vals []float64, rows []int) []float64 {
	out := make([]float64, 0, len(rows))
	for _, i := range rows {
		if v := vals[i]; !isBlank(v) {
			out = append(out, v)
		}
	}
	slices.Sort(out)
	return out
}

// quantile is the p-quantile of sorted values by linear interpolation
// between order statistics (R's type 7, the common spreadsheet rule).
func quantile(sorted []float64, p float64) float64 {
	n := len(sorted)
	if n == 0 {
		return math.NaN()
	}
	h := float64(n-1) * p
	lo := int(math.Floor(h))
	if lo >= n-1 {
		return sorted[n-1]
	}
	return lerp(sorted[lo], sorted[lo+1], h-float64(lo))
}

// lerp is a + t·(b−a) for t in [0, 1], also when b−a overflows (a and b
// near opposite ends of the float64 range).
func lerp(a, b, t float64) float64 {
	if d := b - a; !math.IsInf(d, 0) {
		return a + t*d
	}
	return a*(1-t) + b*t
}

// binRule names how histogram bins were chosen, for the description.
type binRule string

const (
	ruleFD      binRule = "Freedman–Diaconis"
	ruleSturges binRule = "Sturges"
	ruleSet     binRule = "set count"
	ruleOne     binRule = "one distinct value"
	ruleUnit    binRule = "one bin per whole number"
)

// unitSlots is the most whole numbers a histogram of whole numbers gives a
// bin each (when it has a value for each on average): 0–6 children are
// seven bars, never 0–2, 2–4, 4–6 with 5 and 6 in one.
const unitSlots = 25

// histogramBins chooses bin edges for sorted values, always on multiples
// of a round step (as Observable Plot's nice bins): with count ≥ 2 the
// roundest step that gives count bins (setWidth), else the one giving the
// nearest count, never edges like 0.313…; with count 0 a 1-2-5 step
// whose width comes from the
// Freedman–Diaconis rule (2·IQR·n^(−1/3)), falling back to Sturges
// (⌈log2 n⌉+1 bins) when the IQR is zero. At most 100 bins; the last bin
// holds its upper edge, so a maximum on an edge adds no bin of its own
// (but see whole numbers below). Whole numbers (counts, ages, years) are never cut finer than one: when
// they span at most unitSlots values, or the rule asks for bins of one or
// less, each gets a bin of its own centred on it (edges at k−½); wider
// bins keep round edges, and with automatic bins a whole maximum on the
// last edge gets a bin of its own rather than joining the one below (0–60
// in bins of 20 ends 40–60, 60–80, never 40 to 60 in one bin of 21
// numbers).
func histogramBins(sorted []float64, count int) ([]float64, binRule) {
	n := len(sorted)
	lo, hi := sorted[0], sorted[n-1]
	if hi == lo {
		w := niceStep(math.Max(math.Abs(lo)*0.1, 1))
		if math.Abs(lo) >= 1e300 {
			w = math.Abs(lo) * 0.1
		}
		return []float64{lo - w/2, lo + w/2}, ruleOne
	}
	var rule binRule
	var width float64
	switch {
	case count >= 2:
		rule = ruleSet
		width = setWidth(lo, hi, count, wholeNumbers(sorted) && hi-lo < 1e15)
	default:
		rule = ruleFD
		width = 2 * spanPer(quantile(sorted, 0.25), quantile(sorted, 0.75), math.Cbrt(float64(n)))
		if width <= 0 || n < 4 {
			rule = ruleSturges
			width = spanPer(lo, hi, math.Ceil(math.Log2(float64(n)))+1)
		}
		width = niceStep(width)
	}
	whole := wholeNumbers(sorted) && hi-lo < 1e15
	if whole {
		if width <= 1 || rule != ruleSet && hi-lo+1 <= unitSlots && float64(n) >= hi-lo+1 {
			width, rule = 1, ruleUnit
		}
		width = math.Max(width, 1)
	}
	for spanPer(lo, hi, width) > 100 && width < maxNiceStep {
		width = niceStepUp(width * 1.01)
	}
	start := math.Floor(lo/width) * width
	if rule == ruleUnit && width == 1 {
		start = lo - 0.5
	}
	if math.IsInf(start, 0) {
		start = lo
	}
	k := max(1, int(math.Ceil(spanPer(start, hi, width))))
	if whole && rule != ruleSet && start+float64(k)*width == hi && width > 1 {
		k++ // a whole maximum on the last edge: a bin of its own
	}
	edges := make([]float64, k+1)
	for i := range edges {
		edges[i] = start + float64(i)*width
		if math.IsInf(edges[i], 0) {
			// i·width alone may overflow where the edge does not
			edges[i] = clampFinite((start/width + float64(i)) * width)
		}
	}
	if edges[k] < hi {
		// rounding left the maximum just past the last edge
		edges[k] = hi
	}
	return edges, rule
}

// setMantissas are the leading digits of bin widths, roundest first: 1, 2
// and 5 times a power of ten, then 2.5, 4, 3, 1.5, 6 and 8 (bins of 15 or
// 40 still start on numbers a reader counts in); setWidth takes the
// roundest that gives the bins asked.
var setMantissas = [...]float64{1, 2, 5, 2.5, 4, 3, 1.5, 6, 8}

// setWidth is the width of bins for values from lo to hi when count bins
// are asked: the roundest (setMantissas) whose bins, starting on a
// multiple of it, number exactly count, else the one nearest count. Whole
// numbers (whole) take whole widths of one or more.
func setWidth(lo, hi float64, count int, whole bool) float64 {
	target := spanPer(lo, hi, float64(count))
	if target <= 0 || math.IsInf(target, 0) || math.IsNaN(target) || target >= maxNiceStep {
		return niceStep(target)
	}
	e := math.Floor(math.Log10(target))
	best, off := 0.0, math.MaxInt
	for _, m := range setMantissas {
		for _, de := range [...]float64{0, -1, 1} {
			w := m * math.Pow(10, e+de)
			if whole && (w < 1 || w != math.Trunc(w)) {
				continue
			}
			start := math.Floor(lo/w) * w
			k := max(1, int(math.Ceil(spanPer(start, hi, w)-1e-9)))
			if d := abs(k - count); d < off {
				best, off = w, d
			}
			if off == 0 {
				return best
			}
		}
	}
	if best == 0 {
		return 1 // whole numbers asked finer than one
	}
	return best
}

// abs is the absolute value of an int.
func abs(n int) int {
	if n < 0 {
		return -n
	}
	return n
}

// binCounts counts sorted values into bins; each bin holds [edge, next
// edge) and the last also its upper edge.
func binCounts(sorted, edges []float64) []int {
	counts := make([]int, len(edges)-1)
	b := 0
	for _, v := range sorted {
		for b < len(counts)-1 && v >= edges[b+1] {
			b++
		}
		counts[b]++
	}
	return counts
}

// allBlank tells whether every cell of every series is blank, the case
// drawn as "No data to show".
func allBlank(series []*dataset.Column) bool {
	for _, s := range series {
		for _, v := range s.Num {
			if !isBlank(v) {
				return false
			}
		}
	}
	return true
}
