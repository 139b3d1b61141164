package draw

import (
	"math"
	"slices"
	"strconv"
	"strings"
	"time"
	"unicode/utf8"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// axisKind is what an axis measures.
type axisKind int

const (
	// axisValue is a continuous number scale (linear or log).
	axisValue axisKind = iota
	// axisBand is one slot per category.
	axisBand
	// axisTime is a continuous date scale (Unix ms) with calendar ticks.
	axisTime
)

// labelMode is how band labels along the bottom are set.
type labelMode int

const (
	labelsFlat labelMode = iota
	labels45
	labels90
)

// axis is one axis: what it shows (filled by the chart) and, after layout,
// its pixel range, ticks and label arrangement.
type axis struct {
	kind  axisKind
	title string

	// value and time axes: the data extent; lo > hi means no data.
	lo, hi float64
	// zero forces zero into the domain (bars start at zero).
	zero bool
	// exact uses lo..hi as the domain without rounding out (histogram edges).
	exact bool
	// edgeStep, on an exact axis, puts the ticks on multiples of it (a
	// histogram's bins of 15 ticked 0, 15, 30) while they are few enough.
	edgeStep float64
	// headroom widens the data extent by this fraction (room for labels).
	headroom float64
	// margin widens the data extent by this fraction on both sides, so
	// points never sit on the plot's edge.
	margin  float64
	log     bool
	userMin *float64
	userMax *float64
	format  numFormat
	// unitPre and unitSuf are the unit the value columns' names give
	// ("Revenue (€)"), written on the top tick when the format has none.
	unitPre, unitSuf string
	// across marks an axis laid along the bottom (set by layoutFrame).
	across  bool
	integer bool // counts: no fractional ticks
	// minStep is a date axis's data unit in ms: ticks are never finer.
	minStep  float64
	grid     bool // gridlines across the plot at the ticks
	baseline bool // a darker line at zero, or at the low end

	// band axes
	labels   []string
	padInner float64
	padOuter float64
	// order holds the categories' values when they are dates (Unix ms,
	// with dateUnit) or numbers, so labels can be thinned to round steps
	// (month starts, every fifth year) instead of being turned.
	order    []float64
	dateUnit string
	isDate   bool
	// noun names the categories in notices ("rows").
	noun string
	// needLength is the plot length the labels need at the usual type
	// size, when they had to be set smaller (0: they did not).
	needLength float64
	// mirror runs the categories from the right (a right-to-left chart's
	// text categories): slot i is drawn where slot n-1-i would be.
	mirror bool

	// layout results
	d0, d1 float64
	ticks  []float64
	tf     tickFormat
	tu     timeUnit
	r0, r1 float64
	shown  []string
	// lines holds the wrapped lines of shown labels (nil: one line each).
	lines [][]string
	// fs is the band labels' font size (smaller when rows are many).
	fs    float64
	mode  labelMode
	every int
}

// newValueAxis is a number axis over the data extent, with the style's
// axis settings (range, log scale, tick format) applied.
func newValueAxis(c *canvas, st *chartspec.Axis, base numFormat) *axis {
	a := &axis{kind: axisValue, lo: math.Inf(1), hi: math.Inf(-1), format: base, integer: base.years}
	if st != nil {
		a.userMin, a.userMax, a.log = st.Min, st.Max, st.Log
		a.format = base.withTickMode(st.TickFormat)
	}
	return a
}

// newBandAxis is a category axis.
func newBandAxis(labels []string, padInner, padOuter float64) *axis {
	return &axis{kind: axisBand, labels: labels, padInner: padInner, padOuter: padOuter, every: 1}
}

// orderedBy gives a band axis the values of its category column when they
// are dates or numbers, so crowded labels thin to round steps.
func (a *axis) orderedBy(col *dataset.Column) *axis {
	if col == nil || col.Kind == dataset.Text || len(col.Num) != len(a.labels) {
		return a
	}
	prev := math.Inf(-1)
	for _, v := range col.Num {
		if isBlank(v) {
			continue
		}
		if v < prev {
			return a // sorted by something else: thinning would scatter
		}
		prev = v
	}
	a.order, a.isDate, a.dateUnit = col.Num, col.Kind == dataset.Date, displayUnit(col)
	return a
}

// unitFrom takes the unit the names of an axis's value columns share
// ("Revenue (€)", "Costs (€)") for its top tick; an axis with a title
// reads its unit there.
func (a *axis) unitFrom(cols ...*dataset.Column) *axis {
	if a.title != "" || len(cols) == 0 {
		return a
	}
	pre, suf := nameUnit(cols[0].Name)
	for _, c := range cols[1:] {
		if p, s := nameUnit(c.Name); p != pre || s != suf {
			return a
		}
	}
	a.unitPre, a.unitSuf = pre, suf
	return a
}

// extend grows the data extent to include v (NaN ignored).
func (a *axis) extend(v float64) {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return
	}
	if a.log && v <= 0 {
		return
	}
	a.lo = math.Min(a.lo, v)
	a.hi = math.Max(a.hi, v)
}

// clipped reports whether the person fixed the range, so data may fall
// outside it and the plot must clip.
func (a *axis) clipped() bool { return a.userMin != nil || a.userMax != nil }

// pos maps a value (or instant) to pixels.
func (a *axis) pos(v float64) float64 {
	var t float64
	if a.log {
		if v <= 0 {
			v = a.d0
		}
		t = math.Log10(v/a.d0) / math.Log10(a.d1/a.d0)
	} else if span := a.d1 - a.d0; !math.IsInf(span, 0) {
		t = (v - a.d0) / span
	} else {
		// a domain wider than a float64 holds: halves never overflow
		t = (v/2 - a.d0/2) / (a.d1/2 - a.d0/2)
	}
	return a.r0 + t*(a.r1-a.r0)
}

// step is the distance between band starts. A step of wholeStep pixels
// or more is cut to whole pixels when that leaves at most 3 % of the
// length over (split between the ends, as d3's band.round does): bars of
// one width then start and end on the same pixel fractions, which the bar
// drawing rounds to pixel edges.
func (a *axis) step() float64 {
	span := a.slots()
	s := (a.r1 - a.r0) / span
	if whole := math.Floor(math.Abs(s)); whole >= wholeStep && (math.Abs(s)-whole)*span <= 0.03*math.Abs(a.r1-a.r0) {
		return math.Copysign(whole, s)
	}
	return s
}

// whole reports whether the band's step is a whole number of pixels, so
// marks rounded to pixel edges stay evenly spaced.
func (a *axis) whole() bool {
	s := a.step()
	return s == math.Trunc(s)
}

// wholeStep is the least band step that is cut to whole pixels.
const wholeStep = 6

// slots is the length of the band in steps, outer padding included.
func (a *axis) slots() float64 {
	return math.Max(float64(len(a.labels))-a.padInner+2*a.padOuter, 1)
}

// bandStart is where slot i begins.
func (a *axis) bandStart(i int) float64 {
	if a.mirror {
		i = len(a.labels) - 1 - i
	}
	s := a.step()
	off := math.Round((a.r1 - a.r0 - s*a.slots()) / 2) // what whole steps leave over
	return a.r0 + off + s*(a.padOuter+float64(i))
}

// within is where the k-th of n marks side by side in one slot goes: from
// the right on a mirrored axis, as the legend of a right-to-left chart
// reads.
func (a *axis) within(k, n int) int {
	if a.mirror {
		return n - 1 - k
	}
	return k
}

// bandWidth is the width of one slot.
func (a *axis) bandWidth() float64 { return a.step() * (1 - a.padInner) }

// center is the middle of slot i.
func (a *axis) center(i int) float64 { return a.bandStart(i) + a.bandWidth()/2 }

// base is where bars start: zero when in range, else the nearer end.
func (a *axis) base() float64 {
	switch {
	case a.log:
		return a.d0
	case a.d0 > 0:
		return a.d0
	case a.d1 < 0:
		return a.d1
	}
	return 0
}

// computeTicks fills domain and ticks for a value or time axis of the given
// pixel length, about one tick per spacing pixels.
func (a *axis) computeTicks(length, spacing float64) {
	target := max(2, min(10, int(length/spacing)))
	lo, hi := a.lo, a.hi
	if lo > hi { // no data
		lo, hi = 0, 1
	}
	if a.kind == axisTime {
		lo, hi = widenTime(lo, hi, a.minStep)
		if a.userMin != nil {
			lo = *a.userMin
		}
		if a.userMax != nil {
			hi = *a.userMax
		}
		a.d0, a.d1 = lo, hi
		a.ticks, a.tu = timeTicks(lo, hi, target, a.minStep)
		return
	}
	if a.zero && !a.log {
		lo, hi = math.Min(lo, 0), math.Max(hi, 0)
	}
	dataLo, dataHi := lo, hi
	hug := false
	if a.margin > 0 && hi > lo {
		// points keep off the plot's edge, but the axis never crosses zero
		// for data on one side of it, and ends at the data, not a tick
		d := spanPer(lo, hi, 1) * a.margin
		nlo, nhi := clampFinite(lo-d), clampFinite(hi+d)
		if lo >= 0 && nlo < 0 {
			nlo = 0
		}
		if hi <= 0 && nhi > 0 {
			nhi = 0
		}
		lo, hi = nlo, nhi
		if a.log && lo <= 0 {
			lo = a.lo
		}
		hug = true
	}
	if a.log && a.headroom > 0 && hi > lo {
		hi = clampFinite(hi + spanPer(lo, hi, 1)*a.headroom)
	}
	var step float64
	switch {
	case a.log:
		a.ticks, a.d0, a.d1 = logTicks(lo, hi, target)
		if a.userMin != nil && *a.userMin > 0 {
			a.d0 = *a.userMin
		}
		if a.userMax != nil && *a.userMax > a.d0 {
			a.d1 = *a.userMax
		}
		a.ticks = inside(a.ticks, a.d0, a.d1)
		a.tf = tickFormat{base: a.format, perTick: true}
		if a.d1 >= 10000 && !a.format.plain {
			a.tf.base.compact = true // 100, 1k, 10k rather than 1,000 next to 10k
		}
		return
	case a.userMin != nil || a.userMax != nil:
		_, _, d0, d1 := niceTicks(lo, hi, target)
		if a.userMin != nil {
			d0 = *a.userMin
		}
		if a.userMax != nil {
			d1 = *a.userMax
		}
		if d1 <= d0 {
			d1 = d0 + 1
		}
		a.d0, a.d1 = d0, d1
		a.ticks, step = fixedTicks(d0, d1, target)
	case a.exact:
		lo, hi = widen(lo, hi)
		a.d0, a.d1 = lo, hi
		a.ticks, step = fixedTicks(lo, hi, target)
		if e := a.edgeStep; e > 0 && spanPer(lo, hi, e) <= float64(target)*1.5 {
			a.ticks, step = stepTicks(math.Ceil(lo/e-1e-9)*e, hi, e), e
		}
	default:
		a.ticks, step, a.d0, a.d1 = hugTicks(lo, hi, target, hug)
		// an axis with room for three ticks names three: its top on the
		// next tick when that adds little, else a finer step that keeps a
		// labelled low end
		if len(a.ticks) < min(target, 3) && step > 0 && !hug {
			if top := math.Ceil(a.d1/step-1e-9) * step; top-dataHi <= 2*maxWaste*spanPer(dataLo, dataHi, 1) {
				a.d1 = top
				a.ticks = stepTicks(math.Ceil(a.d0/step-1e-9)*step, top, step)
			}
		}
		onTick := math.Abs(math.Remainder(a.d0, step)) < step*1e-9
		for k := 0; len(a.ticks) < min(target, 3) && k < 4 && step > 0; k++ {
			s := step / 2 // 5 → 2.5 keeps a low end on 45 labelled
			if !onTick || math.Abs(math.Remainder(a.d0, s)) > s*1e-9 {
				s = finerStep(step)
			}
			step = s
			a.ticks = stepTicks(math.Ceil(a.d0/step-1e-9)*step, math.Floor(a.d1/step+1e-9)*step, step)
		}
		// room for value labels beyond the data, without a tick more
		if a.headroom > 0 && dataHi > dataLo {
			d := spanPer(dataLo, dataHi, 1) * a.headroom
			if dataHi > 0 {
				a.d1 = math.Max(a.d1, clampFinite(dataHi+d))
			}
			if dataLo < 0 {
				a.d0 = math.Min(a.d0, clampFinite(dataLo-d))
			}
		}
	}
	if a.integer && step < 1 {
		lo, hi := a.d0, a.d1
		step = 1
		a.ticks = stepTicks(math.Ceil(lo), math.Floor(hi), 1)
		if !a.exact && a.userMin == nil && a.userMax == nil {
			a.d0, a.d1 = math.Floor(lo), math.Max(math.Ceil(hi), math.Floor(lo)+1)
		}
	}
	// the unit follows the data, not the outer tick: 200M…1,000M for data
	// up to 877M, so ticks and labels share it
	maxAbs := 0.0
	for _, v := range [...]float64{a.lo, a.hi} {
		if !math.IsInf(v, 0) {
			maxAbs = math.Max(maxAbs, math.Abs(v))
		}
	}
	f := a.format
	if maxAbs > 0 && f.unit == 0 && a.userMin == nil && a.userMax == nil {
		f = f.sharedUnit(maxAbs)
	}
	a.tf = newTickFormat(f, a.ticks, step)
}

// columnNums is the values of each column, for forLabels.
func columnNums(cols []*dataset.Column) [][]float64 {
	out := make([][]float64, len(cols))
	for i, c := range cols {
		out[i] = c.Num
	}
	return out
}

// widenTime gives a single instant one step of its unit (or a day) either side.
func widenTime(lo, hi, step float64) (float64, float64) {
	if hi > lo {
		return lo, hi
	}
	if step <= 0 {
		step = 24 * 3600 * 1000
	}
	return lo - step, hi + step
}

// inside keeps the ticks within [d0, d1].
func inside(ticks []float64, d0, d1 float64) []float64 {
	out := ticks[:0]
	for _, t := range ticks {
		if t >= d0*(1-1e-9) && t <= d1*(1+1e-9) {
			out = append(out, t)
		}
	}
	return out
}

// tickLabel formats tick i into the canvas scratch buffer. A value axis
// writes its unit once, on the top (last labelled) tick: "0, 1M, …, €5M".
func (c *canvas) tickLabel(a *axis, i int) []byte {
	if a.kind == axisTime {
		prev := 0.0
		if i > 0 {
			prev = a.ticks[i-1]
		}
		c.scratch = appendTimeTick(c.scratch[:0], a.ticks[i], a.tu, prev, i == 0)
		return c.numLoc.localDigits(c.scratch)
	}
	tf := a.tf
	tf.base.prefix, tf.base.suffix = a.tickUnit(i)
	c.scratch = tf.appendTick(c.scratch[:0], a.ticks[i])
	return c.scratch
}

// tickUnit is the unit written on value tick i: on the top (last
// labelled) tick the format's prefix and suffix, or when it has none the
// unit the columns' names give; on every other tick none.
func (a *axis) tickUnit(i int) (prefix, suffix string) {
	if every := max(a.every, 1); i != (len(a.ticks)-1)/every*every {
		return "", ""
	}
	if prefix, suffix = a.tf.base.prefix, a.tf.base.suffix; prefix != "" || suffix != "" {
		return prefix, suffix
	}
	switch {
	case a.tf.unitName != "" && scaledUnit(a.unitSuf):
		return "", "" // a name's "million" is not written after an M of the axis's own
	case a.across && a.unitPre == "" && a.unitSuf != "%" && a.unitSuf != "‰":
		// along the bottom a word ("120 km/h") would narrow the plot and
		// thin its ticks: only a currency or a percent sign is written
		return "", ""
	}
	return a.unitPre, a.unitSuf
}

// bottomTick formats bottom tick i and answers how far its label reaches
// left and right of the tick: centred on the number, so the unit of the
// top tick hangs beside it ("120 km/h", "$2,000") rather than pushing the
// ticks apart.
func (c *canvas) bottomTick(a *axis, i int) (label []byte, left, right float64) {
	label = c.tickLabel(a, i)
	w := c.measureBytes(label, c.fsTick, false)
	left, right = w/2, w/2
	if a.kind == axisValue {
		if pre, suf := a.tickUnit(i); pre != "" || suf != "" {
			wp, ws := c.measure(pre, c.fsTick, false), c.measure(suf, c.fsTick, false)
			left, right = (w-wp-ws)/2+wp, (w-wp-ws)/2+ws
		}
	}
	return label, left, right
}

// maxTickWidth is the widest tick label.
func (c *canvas) maxTickWidth(a *axis) float64 {
	w := 0.0
	for i := range a.ticks {
		w = math.Max(w, c.measureBytes(c.tickLabel(a, i), c.fsTick, false))
	}
	return w
}

// frame is a plot with a bottom and a left axis.
type frame struct {
	area   rect
	plot   rect
	bottom *axis
	left   *axis
}

// layoutFrame sizes the axes around the plot: tick labels are measured,
// category labels along the bottom are kept flat, rotated, thinned or
// truncated (in that order) so none overlap, and everything fits in area.
func (c *canvas) layoutFrame(area rect, bottom, left *axis) *frame {
	c.facetAxes(bottom, left)
	f := &frame{area: area, bottom: bottom, left: left}
	bottom.across = true
	gap := 8 * c.k
	titleL, titleB := 0.0, 0.0
	if left.title != "" {
		titleL = c.fsAxisTitle*1.25 + gap
	}
	if bottom.title != "" {
		titleB = c.fsAxisTitle*1.25 + gap
	}
	topPad := 0.0
	if left.kind != axisBand {
		topPad = c.fsTick * 0.6
	}
	plot := rect{x: area.x + titleL + 40*c.k, y: area.y + topPad}
	plot.w = area.right() - plot.x
	plot.h = area.bottom() - plot.y - titleB - c.fsTick*1.3 - gap
	for pass := 0; pass < 3; pass++ {
		leftW := c.sizeLeft(left, plot.h, area.w)
		if c.rtl {
			// mirrored: the "left" axis stands on the right
			plot.x = area.x
			plot.w = math.Max(area.w-titleL-leftW, 10)
			bottomH, overL, overR := c.sizeBottom(bottom, plot.w, area.h)
			if overL > 0 || overR > titleL+leftW {
				shiftR := math.Max(0, overR-(titleL+leftW))
				plot.x += overL
				plot.w -= overL + shiftR
				bottomH, _, _ = c.sizeBottom(bottom, plot.w, area.h)
			}
			plot.h = math.Max(area.bottom()-plot.y-titleB-bottomH, 10)
			plot.w = math.Max(plot.w, 10)
			continue
		}
		plot.x = area.x + titleL + leftW
		plot.w = math.Max(area.right()-plot.x, 10)
		bottomH, overL, overR := c.sizeBottom(bottom, plot.w, area.h)
		if overR > 0 || overL > titleL+leftW {
			shiftL := math.Max(0, overL-(titleL+leftW))
			plot.x += shiftL
			plot.w -= shiftL + overR
			bottomH, _, _ = c.sizeBottom(bottom, plot.w, area.h)
		}
		plot.h = math.Max(area.bottom()-plot.y-titleB-bottomH, 10)
		plot.w = math.Max(plot.w, 10)
	}
	f.plot = plot
	// final ranges
	bottom.r0, bottom.r1 = plot.x, plot.right()
	// a right-to-left chart reads its text categories from the right;
	// dates and numbers keep time running left to right (as Arabic
	// newsrooms draw it). Sizing above saw them unmirrored, which is the
	// same layout reflected.
	bottom.mirror = c.rtl && bottom.kind == axisBand && bottom.order == nil
	if left.kind == axisBand {
		left.r0, left.r1 = plot.y, plot.bottom()
	} else {
		left.r0, left.r1 = plot.bottom(), plot.y
	}
	return f
}

// sizeLeft lays out the left axis for a plot of the given height and
// answers its width including the gap to the plot.
func (c *canvas) sizeLeft(a *axis, length, areaW float64) float64 {
	gap := 8 * c.k
	if a.kind != axisBand {
		// About one tick per 64 px: five to eight labelled lines on a usual
		// plot, and three at least once the plot is minTickPlot tall.
		spacing := 64 * c.k
		if length >= minTickPlot {
			spacing = math.Min(spacing, length/3)
		}
		a.computeTicks(length, spacing)
		return c.maxTickWidth(a) + gap
	}
	return c.sizeRows(a, length, areaW) + gap
}

// minTickPlot is the plot length (px) from which a value axis names at
// least three ticks: two would leave the reader a single step to go by.
const minTickPlot = 80

// sizeRows lays out category names down the left side and answers their
// width. Every row is named: long names wrap to as many lines as the row
// has room for (at most three) within 30% of the width; when rows are
// too tight for the usual type, names are set smaller (down to
// minText) and a notice says how tall the chart should be. Only rows
// thinner than that go unnamed, and a notice says so.
func (c *canvas) sizeRows(a *axis, length, areaW float64) float64 {
	n := len(a.labels)
	a.mode, a.every, a.fs, a.lines = labelsFlat, 1, c.fsTick, nil
	a.shown = append(a.shown[:0], a.labels...)
	if n == 0 {
		return 0
	}
	step := length / a.slots()
	need := func(fs float64) float64 { return fs * 1.15 }
	if step < need(a.fs) {
		a.fs = math.Max(math.Floor(step/1.15*2)/2, minText)
	}
	a.needLength = 0
	if a.fs < c.fsTick*0.9 {
		a.needLength = float64(n) * need(c.fsTick) * 1.1
	}
	if step < need(a.fs) {
		a.every = labelEvery(step, need(a.fs), n)
		// names left out are never silent, even at the usual type size
		a.needLength = math.Max(a.needLength, float64(n)*need(c.fsTick)*1.1)
	}
	maxW := math.Max(areaW*0.3, 40*c.k)
	lineH := a.fs * 1.15
	maxLines := max(1, min(3, int(step/lineH)))
	w := 0.0
	for i, l := range a.labels {
		lw := c.measure(l, a.fs, false)
		if lw <= maxW {
			w = math.Max(w, lw)
			continue
		}
		lines := c.fitLines(l, a.fs, false, maxW, maxLines)
		if len(lines) > 1 {
			if a.lines == nil {
				a.lines = make([][]string, n)
			}
			a.lines[i] = lines
		} else if len(lines) == 1 {
			a.shown[i] = lines[0]
		}
		w = math.Max(w, c.linesWidth(lines, a.fs, false))
	}
	return w
}

// ordinal writes 2 as "2nd", 3 as "3rd", 11 as "11th".
func ordinal(n int) string {
	suffix := "th"
	if n%100 < 11 || n%100 > 13 {
		switch n % 10 {
		case 1:
			suffix = "st"
		case 2:
			suffix = "nd"
		case 3:
			suffix = "rd"
		}
	}
	return itoa(n) + suffix
}

// sizeBottom lays out the bottom axis for a plot of the given width and
// answers its height and how far labels reach past the plot's left and
// right edges.
func (c *canvas) sizeBottom(a *axis, length, areaH float64) (height, overL, overR float64) {
	gap := 8 * c.k
	lineH := c.fonts.CapHeight(c.fsTick) + c.fsTick*0.35
	if a.kind != axisBand {
		a.every = 1
		for spacing := 90 * c.k; ; spacing *= 1.25 {
			a.computeTicks(length, spacing)
			if len(a.ticks) <= 2 || c.ticksFit(a, length) {
				break
			}
			if length/spacing < 2 {
				// the fewest ticks still collide: label every other one (or fewer)
				for a.every = 2; a.every < len(a.ticks) && !c.ticksFit(a, length); a.every++ {
				}
				break
			}
		}
		a.r0, a.r1 = 0, length
		if n := len(a.ticks); n > 0 {
			_, l, _ := c.bottomTick(a, 0)
			overL = l - a.pos(a.ticks[0])
			_, _, r := c.bottomTick(a, n-1)
			overR = a.pos(a.ticks[n-1]) + r - length
		}
		return gap + lineH, math.Max(overL, 0), math.Max(overR, 0)
	}
	n := len(a.labels)
	a.r0, a.r1 = 0, length
	a.every, a.fs, a.lines, a.mode, a.needLength = 1, c.fsTick, nil, labelsFlat, 0
	a.shown = append(a.shown[:0], a.labels...)
	if n == 0 {
		return gap + lineH, 0, 0
	}
	band := a.step()
	sep := 6 * c.k
	widths := make([]float64, n)
	for i, l := range a.labels {
		widths[i] = c.measure(l, c.fsTick, false)
	}
	flatFits := func(shown []string, widths []float64) bool {
		prev := -1
		for i := range shown {
			if shown[i] == "" {
				continue
			}
			if prev >= 0 && (widths[prev]+widths[i])/2+sep > a.center(i)-a.center(prev) {
				return false
			}
			prev = i
		}
		return true
	}
	flatResult := func() (float64, float64, float64) {
		h := gap + lineH
		for i, s := range a.shown {
			if s == "" {
				continue
			}
			w := widths[i]
			if a.lines != nil && a.lines[i] != nil {
				w = c.linesWidth(a.lines[i], c.fsTick, false)
				h = math.Max(h, gap+lineH+float64(len(a.lines[i])-1)*c.fsTick*1.15)
			}
			overL = math.Max(overL, w/2-a.center(i))
			overR = math.Max(overR, a.center(i)+w/2-length)
		}
		return h, overL, overR
	}
	// 1. flat, every label as it is
	if n == 1 && widths[0] <= length || n > 1 && flatFits(a.labels, widths) {
		return flatResult()
	}
	// 2. ordered categories (dates, years): label round steps, flat
	if a.order != nil {
		if shown, ws, ok := c.thinOrdered(a, flatFits); ok {
			a.shown, widths = shown, ws
			return flatResult()
		}
	}
	// 3. wrapped to at most three lines within the slot, flat
	capExt := areaH * 0.28
	avail := band - sep
	if n == 1 {
		avail = length
	}
	// Names cut even so stay flat when turning them would cut them too
	// (their middle goes, see fitLines): a slanted cut name reads worse.
	// A word broken inside ("German", "y") is turned instead.
	if maxLines := min(3, int(capExt/(c.fsTick*1.15))); maxLines >= 2 && avail >= c.fsTick*2.5 {
		lines := make([][]string, n)
		turnedCut := slices.ContainsFunc(widths, func(w float64) bool { return w > capExt*math.Sqrt2 })
		ok := true
		for i, l := range a.labels {
			if widths[i] <= avail {
				continue
			}
			ls := c.fitLines(l, c.fsTick, false, avail, maxLines)
			if len(ls) == 0 || splitsWord(l, ls) {
				ok, turnedCut = false, false
				break
			}
			if !strings.Contains(l, "…") && slices.ContainsFunc(ls, func(s string) bool { return strings.Contains(s, "…") }) {
				if ok = false; !turnedCut {
					break
				}
			}
			lines[i] = ls
		}
		if ok || turnedCut {
			a.lines = lines
			return flatResult()
		}
	}
	// 4. turned: 45° when slots leave room for a slanted line, else 90°
	textH := c.fsTick * 1.2
	switch {
	case band >= textH*1.45:
		a.mode = labels45
	default:
		a.mode = labels90
		a.every = labelEvery(band, textH, n)
		if a.every > 1 {
			a.needLength = float64(n) * textH * 1.1
		}
	}
	maxLen := capExt
	if a.mode == labels45 {
		maxLen = capExt * math.Sqrt2
	}
	longest := 0.0
	for i, l := range a.labels {
		if widths[i] > maxLen {
			a.shown[i] = c.fonts.TruncateMiddle(l, c.fsTick, false, maxLen)
			widths[i] = c.measure(a.shown[i], c.fsTick, false)
		}
		if i%a.every == 0 {
			longest = math.Max(longest, widths[i])
			if a.mode == labels45 {
				overL = math.Max(overL, widths[i]/math.Sqrt2-a.center(i))
			}
		}
	}
	if a.mode == labels45 {
		return gap + (longest+c.fsTick)/math.Sqrt2, overL, 0
	}
	return gap + longest + 2*c.k, 0, 0
}

// thinOrdered labels only the categories on a round step of their values
// (every month start of daily data, every January of monthly data, every
// fifth year, every tenth number), the coarsest step being taken last, so
// crowded ordered labels stay flat instead of turning. Dates are written
// for the step: "Jan 2024, Feb, Mar" for month starts, "2024, 2025" for
// Januaries.
func (c *canvas) thinOrdered(a *axis, fits func([]string, []float64) bool) ([]string, []float64, bool) {
	n := len(a.labels)
	shown := make([]string, n)
	widths := make([]float64, n)
	for _, st := range orderSteps(a) {
		prevYear, count := math.MinInt, 0
		clear(shown)
		for i, v := range a.order {
			if isBlank(v) || !st.keep(v, i) {
				continue
			}
			if st.label == nil {
				shown[i] = a.labels[i]
			} else {
				tm := time.UnixMilli(int64(v)).UTC()
				shown[i] = st.label(tm, tm.Year() != prevYear)
				prevYear = tm.Year()
			}
			widths[i] = c.measure(shown[i], c.fsTick, false)
			count++
		}
		if count >= 2 && fits(shown, widths) {
			return shown, widths, true
		}
	}
	return nil, nil, false
}

// orderStep is one way of thinning ordered labels: which categories keep a
// label and how a kept date is written (nil: its own label).
type orderStep struct {
	keep  func(v float64, i int) bool
	label func(t time.Time, newYear bool) string
}

// orderSteps lists the thinning steps for an axis's values, finest first.
func orderSteps(a *axis) []orderStep {
	var out []orderStep
	utc := func(v float64) time.Time { return time.UnixMilli(int64(v)).UTC() }
	withYear := func(s string, t time.Time, newYear bool, sep string) string {
		if newYear {
			return s + sep + strconv.Itoa(t.Year())
		}
		return s
	}
	years := func(from int) {
		for _, k := range []int{1, 2, 5, 10, 20, 50, 100} {
			if k < from {
				continue
			}
			out = append(out, orderStep{
				keep: func(v float64, _ int) bool {
					t := utc(v)
					return t.Year()%k == 0 && t.Month() == time.January && t.Day() == 1
				},
				label: func(t time.Time, _ bool) string { return strconv.Itoa(t.Year()) },
			})
		}
	}
	months := func(every int) orderStep {
		return orderStep{
			keep: func(v float64, i int) bool {
				return (int(utc(v).Month())-1)%every == 0 && opensMonth(a.order, i)
			},
			label: func(t time.Time, ny bool) string { return withYear(monthName(t.Month()), t, ny, " ") },
		}
	}
	switch {
	case a.isDate && a.dateUnit == dataset.UnitDay:
		// days over three months or more read by their month starts
		// ("Jan 2024, Feb, Mar"), as a desk ticks them; a shorter run
		// by days within the month
		if monthStarts(a.order) < 3 {
			for _, days := range [][]int{{1, 8, 15, 22}, {1, 15}} {
				out = append(out, orderStep{
					keep: func(v float64, _ int) bool {
						d := utc(v).Day()
						return d == days[0] || len(days) > 1 && d == days[1] || len(days) > 2 && (d == days[2] || d == days[3])
					},
					label: func(t time.Time, ny bool) string {
						return withYear(monthName(t.Month())+" "+strconv.Itoa(t.Day()), t, ny, ", ")
					},
				})
			}
		}
		out = append(out, months(1), months(2), months(3), months(6))
		years(1)
	case a.isDate && a.dateUnit == dataset.UnitMonth:
		out = append(out, months(3), months(6))
		years(1)
	case a.isDate && a.dateUnit == dataset.UnitQuarter:
		out = append(out, orderStep{
			keep:  func(v float64, _ int) bool { m := utc(v).Month(); return m == time.January || m == time.July },
			label: func(t time.Time, ny bool) string { return withYear("Q"+strconv.Itoa((int(t.Month())+2)/3), t, ny, " ") },
		})
		years(1)
	case a.isDate && a.dateUnit == dataset.UnitYear:
		years(2)
	case !a.isDate && wholeNumbers(a.order):
		for _, k := range []float64{2, 5, 10, 20, 25, 50, 100, 200, 500, 1000} {
			out = append(out, orderStep{keep: func(v float64, _ int) bool { return math.Mod(v, k) == 0 }})
		}
	}
	// whatever the values, every k-th category still reads in order
	for _, k := range []int{2, 3, 4, 5, 6, 10, 12, 20, 25, 50, 100} {
		if k >= len(a.order) {
			break
		}
		out = append(out, orderStep{keep: func(_ float64, i int) bool { return i%k == 0 }})
	}
	return out
}

// monthStarts counts the instants that open a month (see opensMonth).
func monthStarts(vs []float64) int {
	n := 0
	for i := range vs {
		if opensMonth(vs, i) {
			n++
		}
	}
	return n
}

// opensMonth reports that instant i of ascending instants (Unix ms) is the
// first of its month and falls in the month's first four days, so a month
// whose 1st is missing (a weekend, a holiday) is still ticked at its start.
func opensMonth(vs []float64, i int) bool {
	if isBlank(vs[i]) {
		return false
	}
	t := time.UnixMilli(int64(vs[i])).UTC()
	if t.Day() > 4 {
		return false
	}
	for j := i - 1; j >= 0; j-- {
		if isBlank(vs[j]) {
			continue
		}
		p := time.UnixMilli(int64(vs[j])).UTC()
		return p.Year() != t.Year() || p.Month() != t.Month()
	}
	return true
}

// wholeNumbers reports values that are all whole (blanks aside).
func wholeNumbers(vs []float64) bool {
	for _, v := range vs {
		if !isBlank(v) && v != math.Trunc(v) {
			return false
		}
	}
	return true
}

// labelEvery is how many slots of the given size one label of size need
// spans, so that labelling every such slot leaves them apart: 1 when a
// label fits its slot, n (the first label only) when slots have no size.
func labelEvery(slot, need float64, n int) int {
	switch {
	case slot >= need:
		return 1
	case !(slot > 0) || need/slot >= float64(n):
		return max(n, 1)
	}
	return int(math.Ceil(need / slot))
}

// ticksFit reports whether bottom tick labels leave a clear gap between them.
func (c *canvas) ticksFit(a *axis, length float64) bool {
	a.r0, a.r1 = 0, length
	prevRight := math.Inf(-1)
	for i, t := range a.ticks {
		if i%max(a.every, 1) != 0 {
			continue
		}
		_, l, r := c.bottomTick(a, i)
		x := a.pos(t)
		if x-l < prevRight+12*c.k {
			return false
		}
		prevRight = x + r
	}
	return true
}

// drawGrid draws gridlines and baselines, under the data.
func (c *canvas) drawGrid(f *frame) {
	p := f.plot
	w := &c.w
	grid := false
	gridPath := func() {
		if !grid {
			w.s(`<path fill="none" stroke="`)
			w.s(c.inkGrid)
			w.s(`" stroke-width="1" shape-rendering="crispEdges" d="`)
			grid = true
		}
	}
	if f.left.kind != axisBand && f.left.grid {
		for _, t := range f.left.ticks {
			y := crisp(f.left.pos(t))
			gridPath()
			w.s("M")
			w.pt(p.x, y)
			w.s("H")
			w.f(p.right())
		}
	}
	if f.bottom.kind != axisBand && f.bottom.grid {
		for _, t := range f.bottom.ticks {
			x := crisp(f.bottom.pos(t))
			gridPath()
			w.s("M")
			w.pt(x, p.y)
			w.s("V")
			w.f(p.bottom())
		}
	}
	if grid {
		w.s(`"/>`)
	}
}

// drawBaselines draws the darker zero (or low-end) lines, over the data.
func (c *canvas) drawBaselines(f *frame) {
	p := f.plot
	w := &c.w
	if f.left.kind != axisBand && f.left.baseline {
		y := crisp(f.left.pos(f.left.base()))
		w.s(`<path fill="none" stroke="`)
		w.s(c.inkAxis)
		w.s(`" stroke-width="1" shape-rendering="crispEdges" d="M`)
		w.pt(p.x, y)
		w.s("H")
		w.f(p.right())
		w.s(`"/>`)
	}
	if f.bottom.kind != axisBand && f.bottom.baseline {
		x := crisp(f.bottom.pos(f.bottom.base()))
		w.s(`<path fill="none" stroke="`)
		w.s(c.inkAxis)
		w.s(`" stroke-width="1" shape-rendering="crispEdges" d="M`)
		w.pt(x, p.y)
		w.s("V")
		w.f(p.bottom())
		w.s(`"/>`)
	}
}

// crisp puts a 1px line on the pixel grid.
func crisp(v float64) float64 { return math.Floor(v) + 0.5 }

// drawAxisLabels draws tick labels, category labels and axis titles.
func (c *canvas) drawAxisLabels(f *frame) {
	f = c.facetFrame(f)
	p := f.plot
	gap := 8 * c.k
	mid := c.mid(c.fsTick)
	tick := textStyle{size: c.fsTick, fill: c.inkTick}
	c.w.s(`<g class="axes">`)
	// left (on the right when mirrored)
	l := f.left
	lx, anchor := p.x-gap, "end"
	if c.rtl {
		lx, anchor = p.right()+gap, "start"
	}
	if l.kind == axisBand {
		st := tick
		st.anchor, st.size = anchor, l.fs
		lm := c.mid(l.fs)
		for i, s := range l.shown {
			if i%l.every != 0 {
				continue
			}
			if l.lines != nil && l.lines[i] != nil {
				c.textLines(lx, l.center(i)+lm-float64(len(l.lines[i])-1)*l.fs*1.15/2, l.lines[i], l.fs*1.15, st)
				continue
			}
			c.text(lx, l.center(i)+lm, s, st)
		}
		c.roomNotice(l, "tall", p.h)
	} else {
		st := tick
		st.anchor = anchor
		for i, t := range l.ticks {
			c.textBytes(lx, l.pos(t)+mid, c.tickLabel(l, i), st)
		}
	}
	// bottom
	b := f.bottom
	top := p.bottom() + gap
	if b.kind == axisBand {
		for i, s := range b.shown {
			if i%b.every != 0 {
				continue
			}
			x := b.center(i)
			st := tick
			switch b.mode {
			case labelsFlat:
				st.anchor = "middle"
				if b.lines != nil && b.lines[i] != nil {
					c.textLines(x, top+c.fonts.CapHeight(c.fsTick), b.lines[i], c.fsTick*1.15, st)
					continue
				}
				c.text(x, top+c.fonts.CapHeight(c.fsTick), s, st)
			case labels45:
				st.anchor, st.rotate = "end", -45
				c.text(x+mid*0.7, top+mid*0.7, s, st)
			default:
				st.anchor, st.rotate = "end", -90
				c.text(x+mid, top, s, st)
			}
		}
		c.roomNotice(b, "wide", p.w)
		if b.order == nil && (b.mode != labelsFlat || cutName(b)) && slices.ContainsFunc(b.labels, func(s string) bool { return utf8.RuneCountInString(s) > chartspec.MaxLabelRunes }) {
			c.turnedNames = true
		}
	} else {
		st := tick
		st.anchor = "middle"
		for i, t := range b.ticks {
			if i%max(b.every, 1) != 0 {
				continue
			}
			label, l, r := c.bottomTick(b, i)
			c.textBytes(b.pos(t)+(r-l)/2, top+c.fonts.CapHeight(c.fsTick), label, st)
		}
	}
	// titles
	ts := textStyle{size: c.fsAxisTitle, fill: c.inkLabel, anchor: "middle"}
	if l.title != "" {
		s := c.fonts.Truncate(l.title, c.fsAxisTitle, false, p.h+p.y-f.area.y)
		st := ts
		st.rotate = -90
		x := f.area.x + c.fonts.CapHeight(c.fsAxisTitle)
		if c.rtl {
			x = f.area.right() - c.fsAxisTitle*0.3
		}
		c.text(x, p.y+p.h/2, s, st)
	}
	if b.title != "" {
		s := c.fonts.Truncate(b.title, c.fsAxisTitle, false, f.area.w)
		c.text(p.x+p.w/2, f.area.bottom()-c.fsAxisTitle*0.25, s, ts)
	}
	c.w.s(`</g>`)
}

// cutName reports a category name along the axis drawn shortened ("…").
func cutName(a *axis) bool {
	for i, l := range a.labels {
		if a.shown[i] != l && a.shown[i] != "" {
			return true
		}
		if a.lines != nil && !strings.Contains(l, "…") && slices.ContainsFunc(a.lines[i], func(s string) bool { return strings.Contains(s, "…") }) {
			return true
		}
	}
	return false
}

// roomNotice says when a category axis could not name every category in
// the usual type: how big the chart should be (dimension "tall" or
// "wide"; have is the plot's length now).
func (c *canvas) roomNotice(a *axis, dimension string, have float64) {
	if a.needLength <= have {
		return
	}
	noun := a.noun
	if noun == "" {
		noun = "categories"
	}
	if a.every > 1 {
		c.thinned = "Only every " + ordinal(a.every) + " of the " + itoa(len(a.labels)) + " " + noun + " is named."
	}
	w, h := c.width, c.height
	grow := "wider"
	if dimension == "tall" {
		h += a.needLength - have
		grow = "taller"
		c.wantTaller = math.Max(c.wantTaller, a.needLength-have)
	} else {
		w += a.needLength - have
	}
	w, h = math.Min(math.Ceil(w/50)*50, MaxSide), math.Min(math.Ceil(h/50)*50, MaxSide)
	size := " (style size " + itoa(int(w)) + "×" + itoa(int(h)) + ")"
	if a.every > 1 {
		c.notice(NoticeNeedsRoom, "only every "+ordinal(a.every)+" of the "+itoa(len(a.labels))+" "+noun+" is named: the chart is too small to name them all; make it "+grow+size+" or filter the data")
		return
	}
	c.notice(NoticeNeedsRoom, "the "+itoa(len(a.labels))+" "+noun+" are named in smaller type to fit; make the chart "+grow+size+" to read them at the usual size")
}

// textLines draws wrapped lines of one label, the first baseline at y.
// Like openText, it puts each line's anchor on a whole pixel.
func (c *canvas) textLines(x, y float64, lines []string, lineH float64, st textStyle) {
	c.openText(x, y, st)
	for i, ln := range lines {
		c.w.s(`<tspan`)
		c.w.af("x", math.Round(x))
		c.w.af("y", math.Round(y+float64(i)*lineH))
		c.w.s(`>`)
		c.w.esc(ln)
		c.w.s(`</tspan>`)
	}
	c.w.s(`</text>`)
}

// beginClip keeps data inside the plot when the person fixed an axis range.
func (c *canvas) beginClip(p rect, on bool) {
	if !on {
		return
	}
	w := &c.w
	w.s(`<clipPath id="`)
	w.s(c.id)
	w.s(`plot"><rect`)
	w.af("x", p.x)
	w.af("y", p.y)
	w.af("width", p.w)
	w.af("height", p.h)
	w.s(`/></clipPath><g clip-path="url(#`)
	w.s(c.id)
	w.s(`plot)">`)
}

// endClip closes beginClip.
func (c *canvas) endClip(on bool) {
	if on {
		c.w.s(`</g>`)
	}
}

// axisTitle is the style's axis title, or def when the style has none;
// an explicitly empty title stays empty.
func axisTitle(t *chartspec.AxisTitle, def string) string {
	if t == nil {
		return def
	}
	return t.Text
}
