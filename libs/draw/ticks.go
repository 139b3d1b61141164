package draw

import (
	"math"
	"strconv"
	"time"
)

// maxNiceStep is the largest 1-2-5 step a float64 holds: 1e308 (2e308
// overflows). A raw step beyond it (a span near 3.6e308 over one tick)
// takes it, and gives a tick or two more than asked.
const maxNiceStep = 1e308

// niceStep rounds a raw step to 1, 2 or 5 times a power of ten, the steps
// people count in.
func niceStep(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) {
		return 1
	}
	if raw >= maxNiceStep {
		return maxNiceStep
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	r := raw / mag
	switch {
	case r < 1.5:
		return mag
	case r < 3:
		return 2 * mag
	case r < 7:
		return 5 * mag
	}
	return math.Min(10*mag, maxNiceStep)
}

// niceStepUp is the smallest 1-2-5 step not below raw (at most maxNiceStep).
func niceStepUp(raw float64) float64 {
	if raw <= 0 || math.IsNaN(raw) {
		return 1
	}
	if raw >= maxNiceStep {
		return maxNiceStep
	}
	mag := math.Pow(10, math.Floor(math.Log10(raw)))
	for _, m := range [...]float64{1, 2, 5, 10} {
		if m*mag >= raw*(1-1e-12) {
			return math.Min(m*mag, maxNiceStep)
		}
	}
	return math.Min(10*mag, maxNiceStep)
}

// spanPer is (hi-lo)/n for hi ≥ lo without overflow: two finite values
// may lie up to 3.6e308 apart, beyond what a float64 holds, while their
// halves never do. Halving is exact, so the result is the plain quotient
// whenever that one is finite; it is capped at the largest float64.
func spanPer(lo, hi, n float64) float64 {
	if d := hi - lo; !math.IsInf(d, 0) {
		return d / n
	}
	return clampFinite((hi/2 - lo/2) / n * 2)
}

// clampFinite brings ±Inf back to the largest finite float64 of its sign:
// the end of a range widened past what a float64 holds.
func clampFinite(v float64) float64 {
	return math.Max(-math.MaxFloat64, math.Min(v, math.MaxFloat64))
}

// widen gives an empty range some extent so it can be scaled.
func widen(lo, hi float64) (float64, float64) {
	if hi > lo {
		return lo, hi
	}
	if lo == 0 {
		return 0, 1
	}
	d := math.Abs(lo) * 0.1
	return clampFinite(lo - d), clampFinite(hi + d)
}

// niceTicks covers [lo, hi] with at most about target ticks on a 1-2-5
// step (rounded up, so a plot never gets denser than asked); the domain
// grows to the outer ticks so the axis ends on a labelled line, unless
// that tick lies beyond the largest float64: then the axis ends at the data.
func niceTicks(lo, hi float64, target int) (ticks []float64, step, d0, d1 float64) {
	lo, hi = widen(lo, hi)
	step = niceStepUp(spanPer(lo, hi, float64(max(target, 1))))
	d0 = math.Floor(lo/step+1e-9) * step
	d1 = math.Ceil(hi/step-1e-9) * step
	first := d0
	if math.IsInf(d0, 0) {
		d0, first = lo, math.Ceil(lo/step-1e-9)*step
	}
	if math.IsInf(d1, 0) {
		d1 = hi
	}
	return stepTicks(first, d1, step), step, d0, d1
}

// fixedTicks are 1-2-5 ticks inside a domain the caller fixed (axis min/max, histogram edges).
func fixedTicks(d0, d1 float64, target int) (ticks []float64, step float64) {
	lo, hi := widen(d0, d1)
	step = niceStep(spanPer(lo, hi, float64(max(target, 1))))
	first := math.Ceil(lo/step-1e-9) * step
	return stepTicks(first, hi, step), step
}

// stepTicks lists first, first+step, … up to last, snapping float noise.
// The count is taken in steps (last/step − first/step) when the plain
// difference overflows.
func stepTicks(first, last, step float64) []float64 {
	steps := (last - first) / step
	if math.IsInf(last-first, 0) {
		steps = last/step - first/step
	}
	if math.IsNaN(steps) || steps < -1e-9 || steps > 1000 {
		return []float64{first}
	}
	out := make([]float64, int(math.Floor(steps+1e-9))+1)
	k0 := math.Round(first / step)
	for i := range out {
		v := (k0 + float64(i)) * step
		if math.Abs(v) < step*1e-9 {
			v = 0
		}
		out[i] = v
	}
	return out
}

// logTicks places ticks on powers of ten (with 2 and 5 between when the
// range spans few decades) for a positive domain.
func logTicks(lo, hi float64, target int) (ticks []float64, d0, d1 float64) {
	if lo <= 0 {
		lo = hi / 1000
	}
	if hi <= lo {
		hi = lo * 10
	}
	e0 := math.Floor(math.Log10(lo) + 1e-9)
	e1 := math.Ceil(math.Log10(hi) - 1e-9)
	if e1 == e0 {
		e1++
	}
	d0, d1 = math.Pow(10, e0), math.Pow(10, e1)
	decades := int(e1 - e0)
	every := max(1, int(math.Ceil(float64(decades)/float64(max(target, 1)))))
	for e := e0; e <= e1; e++ {
		if int(e-e0)%every != 0 {
			continue
		}
		p := math.Pow(10, e)
		ticks = append(ticks, p)
		if decades <= 2 && e < e1 {
			ticks = append(ticks, 2*p, 5*p)
		}
	}
	return ticks, d0, d1
}

// timeUnit is a calendar step for date axes.
type timeUnit struct {
	// approx is the step's typical length in milliseconds, for choosing.
	approx float64
	// months steps by calendar months (1, 3, 6, 12·years); 0 means a fixed duration.
	months int
	fixed  time.Duration
	// semi ticks the 1st and the 15th of every month (daily data over a
	// few weeks), instead of fortnights from a Monday.
	semi bool
}

// timeUnits are the candidate steps, finest first.
func timeUnits() []timeUnit {
	const day = 24 * time.Hour
	var out []timeUnit
	for _, d := range []time.Duration{time.Second, 5 * time.Second, 15 * time.Second, 30 * time.Second,
		time.Minute, 5 * time.Minute, 15 * time.Minute, 30 * time.Minute,
		time.Hour, 3 * time.Hour, 6 * time.Hour, 12 * time.Hour, day, 2 * day, 7 * day, 14 * day} {
		out = append(out, timeUnit{approx: float64(d.Milliseconds()), fixed: d})
	}
	const month = 30.44 * 24 * 3600 * 1000
	for _, m := range []int{1, 3, 6, 12, 24, 60, 120, 240, 600, 1200} {
		out = append(out, timeUnit{approx: float64(m) * month, months: m})
	}
	return out
}

// unitStep is the length in ms of a date column's unit (0 for times).
func unitStep(unit string) float64 {
	const day = 24 * 3600 * 1000
	switch unit {
	case "day":
		return day
	case "month":
		return 30.44 * day
	case "quarter":
		return 91.3 * day
	case "year":
		return 365.2 * day
	}
	return 0
}

// timeTicks chooses a calendar step giving at most target ticks over
// [lo, hi] (Unix ms) and lists the ticks inside it.
// Steps finer than minStep (ms; the data's own unit, a day for daily data)
// are never used, so daily data is not labelled by the hour. Daily data
// over three month starts or more is ticked at month starts (every
// month, 2nd, 3rd, …), never by weeks; over fewer, by weeks or by the 1st
// and 15th of the month.
func timeTicks(lo, hi float64, target int, minStep float64) ([]float64, timeUnit) {
	const day = 24 * 3600 * 1000
	units := timeUnits()
	daily := minStep >= day*0.99 && minStep < 28*day
	months := 0
	if daily {
		months = monthsIn(lo, hi)
	}
	cands := units[:0:0]
	for _, c := range units {
		switch {
		case c.approx < minStep*0.99:
		case daily && c.fixed == 14*24*time.Hour:
			// fortnights from a Monday: the 1st and 15th read better
		case daily && c.fixed == 7*24*time.Hour && months >= 3:
		case daily && c.months == 1:
			if months < 3 {
				cands = append(cands, timeUnit{approx: 15.2 * day, semi: true})
			}
			cands = append(cands, c, timeUnit{approx: 2 * c.approx, months: 2})
		default:
			cands = append(cands, c)
		}
	}
	u := units[len(units)-1]
	for _, c := range cands {
		if (hi-lo)/c.approx <= float64(max(target, 1)) {
			u = c
			break
		}
	}
	var ticks []float64
	start := time.UnixMilli(int64(math.Floor(lo))).UTC()
	if u.semi {
		for mi := start.Year()*12 + int(start.Month()) - 1; ; mi++ {
			for _, d := range [...]int{1, 15} {
				v := float64(time.Date(mi/12, time.Month(mi%12+1), d, 0, 0, 0, 0, time.UTC).UnixMilli())
				if v > hi {
					return ticks, u
				}
				if v >= lo {
					ticks = append(ticks, v)
				}
			}
		}
	}
	if u.months == 0 {
		step := float64(u.fixed.Milliseconds())
		origin := 0.0
		if u.fixed == 7*24*time.Hour || u.fixed == 14*24*time.Hour {
			origin = 4 * 24 * 3600 * 1000 // 1970-01-05 was a Monday
		}
		for v := math.Ceil((lo-origin)/step)*step + origin; v <= hi; v += step {
			ticks = append(ticks, v)
		}
		return ticks, u
	}
	// calendar months: start on a month aligned to the step
	mi := start.Year()*12 + int(start.Month()) - 1
	mi = (mi + u.months - 1) / u.months * u.months
	for ; ; mi += u.months {
		t := time.Date(mi/12, time.Month(mi%12+1), 1, 0, 0, 0, 0, time.UTC)
		v := float64(t.UnixMilli())
		if v < lo {
			continue
		}
		if v > hi {
			break
		}
		ticks = append(ticks, v)
	}
	return ticks, u
}

// monthsIn counts the month starts (1st, 00:00 UTC) within [lo, hi] (Unix ms).
func monthsIn(lo, hi float64) int {
	a, b := time.UnixMilli(int64(math.Ceil(lo))).UTC(), time.UnixMilli(int64(math.Floor(hi))).UTC()
	n := (b.Year()*12 + int(b.Month())) - (a.Year()*12 + int(a.Month()))
	if a.Day() == 1 && a.Hour() == 0 && a.Minute() == 0 && a.Second() == 0 && a.Nanosecond() == 0 {
		n++
	}
	return max(n, 0)
}

// appendTimeTick labels a date tick by its step, naming the larger unit
// (year, day) on the first tick and where it changes: "Jan 2024", "Apr",
// "Jul"; "Mar 5, 2024", "Mar 6"; "09:00", "12:00".
func appendTimeTick(b []byte, ms float64, u timeUnit, prevMs float64, first bool) []byte {
	t := time.UnixMilli(int64(ms)).UTC()
	p := time.UnixMilli(int64(prevMs)).UTC()
	newYear := first || t.Year() != p.Year()
	switch {
	case u.months >= 12:
		return appendInt(b, t.Year())
	case u.months > 0:
		b = append(b, monthName(t.Month())...)
		if newYear {
			b = append(b, ' ')
			b = appendInt(b, t.Year())
		}
		return b
	case u.fixed >= 24*time.Hour || u.semi:
		b = append(b, monthName(t.Month())...)
		b = append(b, ' ')
		b = appendInt(b, t.Day())
		if newYear {
			b = append(b, ", "...)
			b = appendInt(b, t.Year())
		}
		return b
	}
	newDay := first || t.YearDay() != p.YearDay() || t.Year() != p.Year()
	if newDay {
		b = append(b, monthName(t.Month())...)
		b = append(b, ' ')
		b = appendInt(b, t.Day())
		b = append(b, ' ')
	}
	b = append2(b, t.Hour())
	b = append(b, ':')
	b = append2(b, t.Minute())
	if u.fixed < time.Minute {
		b = append(b, ':')
		b = append2(b, t.Second())
	}
	return b
}

// appendInt writes a decimal integer.
func appendInt(b []byte, n int) []byte { return strconv.AppendInt(b, int64(n), 10) }

// append2 writes a two-digit number.
func append2(b []byte, n int) []byte { return append(b, byte('0'+n/10), byte('0'+n%10)) }

// maxWaste is how much of the data's span an axis may add beyond the data
// on one side to end on a labelled tick. The low end of an axis that is
// not padded (bars, lines: it carries the baseline) may add twice as much,
// so the baseline is a labelled tick rather than an unnamed line.
const maxWaste = 0.15

// hugTicks covers [lo, hi] with ticks on a 1-2-5 step near target ticks and
// keeps the axis close to the data: the domain ends on the outer tick
// when that adds at most maxWaste of the span (a finer step is tried
// first when the coarse one wastes more), else at the data itself with the
// ticks inside and a little air; the low end of an unpadded axis may add
// up to twice maxWaste to end on a tick. With hug the domain is already
// padded (scatter margins): it ends at the outer tick only when that tick
// is within half maxWaste.
func hugTicks(lo, hi float64, target int, hug bool) (ticks []float64, step, d0, d1 float64) {
	lo, hi = widen(lo, hi)
	span := spanPer(lo, hi, 1)
	if math.IsInf(span, 0) || span >= math.MaxFloat64/4 {
		return niceTicks(lo, hi, target)
	}
	allow := maxWaste * span
	if hug {
		allow /= 2
	}
	coarse := niceStepUp(spanPer(lo, hi, float64(max(target, 1))))
	waste := func(s float64) (float64, float64, float64) {
		t0 := math.Floor(lo/s+1e-9) * s
		t1 := math.Ceil(hi/s-1e-9) * s
		return t0, t1, math.Max(lo-t0, t1-hi)
	}
	step = coarse
	t0, t1, w := waste(coarse)
	if w > allow {
		fine := finerStep(coarse)
		f0, f1, fw := waste(fine)
		if fw < w && (f1-f0)/fine+1 <= float64(max(target+2, target*8/5)) && (f1-f0)/fine+1 <= 12 {
			step, t0, t1, w = fine, f0, f1, fw
		}
	}
	// an end at the data keeps a little air, so a line does not run
	// along the plot's edge (never past zero)
	air := span * 0.03
	if hug {
		air = 0
	}
	d0, d1 = lo-air, hi+air
	if lo >= 0 && d0 < 0 {
		d0 = 0
	}
	if hi <= 0 && d1 > 0 {
		d1 = 0
	}
	allowLo := allow
	if !hug {
		allowLo = 2 * allow
	}
	if lo-t0 <= allowLo {
		d0 = t0
	}
	if t1-hi <= allow {
		d1 = t1
	}
	if !hug && d0 != t0 {
		// the baseline is a labelled tick: a finer step that ends there
		// within the allowance (and stays within the tick budget), else
		// the step's own tick below the data
		limit := min(float64(max(target+2, target*8/5)), 12)
		for s, k := finerStep(step), 0; k < 2 && d0 != t0; s, k = finerStep(s), k+1 {
			s0, s1 := math.Floor(lo/s+1e-9)*s, math.Ceil(hi/s-1e-9)*s
			top := d1
			if s1-hi <= allow {
				top = s1
			}
			if lo-s0 <= allowLo && math.Floor(top/s+1e-9)-math.Round(s0/s)+1 <= limit {
				step, t0, d0, d1 = s, s0, s0, top
			}
		}
		d0 = t0
	}
	first := math.Ceil(d0/step-1e-9) * step
	last := math.Floor(d1/step+1e-9) * step
	return stepTicks(first, last, step), step, d0, d1
}

// finerStep is the 1-2-5 step below s: 10 → 5, 5 → 2, 2 → 1.
func finerStep(s float64) float64 {
	m := s / math.Pow(10, math.Floor(math.Log10(s)+1e-9))
	if m > 4 {
		return s * 0.4
	}
	return s / 2
}
