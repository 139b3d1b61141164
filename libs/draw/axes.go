package draw

import (
	"math"

	"chartd.dev/libs/chartspec"
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
	// headroom widens the data extent by this fraction (room for labels).
	headroom float64
	// margin widens the data extent by this fraction on both sides, so
	// points never sit on the plot's edge.
	margin  float64
	log     bool
	userMin *float64
	userMax *float64
	format  numFormat
	integer bool // counts: no fractional ticks
	// minStep is a date axis's data unit in ms: ticks are never finer.
	minStep  float64
	grid     bool // gridlines across the plot at the ticks
	baseline bool // a darker line at zero, or at the low end

	// band axes
	labels   []string
	padInner float64
	padOuter float64

	// layout results
	d0, d1 float64
	ticks  []float64
	tf     tickFormat
	tu     timeUnit
	r0, r1 float64
	shown  []string
	mode   labelMode
	every  int
}

// newValueAxis is a number axis over the data extent, with the style's
// axis settings (range, log scale, tick format) applied.
func newValueAxis(c *canvas, st *chartspec.Axis, base numFormat) *axis {
	a := &axis{kind: axisValue, lo: math.Inf(1), hi: math.Inf(-1), format: base}
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

// step is the distance between band starts.
func (a *axis) step() float64 {
	n := float64(len(a.labels))
	return (a.r1 - a.r0) / math.Max(n-a.padInner+2*a.padOuter, 1)
}

// bandStart is where slot i begins.
func (a *axis) bandStart(i int) float64 {
	s := a.step()
	return a.r0 + s*(a.padOuter+float64(i))
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
	if a.margin > 0 && hi > lo {
		d := spanPer(lo, hi, 1) * a.margin
		lo, hi = clampFinite(lo-d), clampFinite(hi+d)
		if a.log && lo <= 0 {
			lo = a.lo
		}
	}
	if a.headroom > 0 && hi > lo {
		d := spanPer(lo, hi, 1) * a.headroom
		if hi > 0 {
			hi = clampFinite(hi + d)
		}
		if lo < 0 {
			lo = clampFinite(lo - d)
		}
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
	default:
		a.ticks, step, a.d0, a.d1 = niceTicks(lo, hi, target)
	}
	if a.integer && step < 1 {
		lo, hi := a.d0, a.d1
		step = 1
		a.ticks = stepTicks(math.Ceil(lo), math.Floor(hi), 1)
		if !a.exact && a.userMin == nil && a.userMax == nil {
			a.d0, a.d1 = math.Floor(lo), math.Max(math.Ceil(hi), math.Floor(lo)+1)
		}
	}
	a.tf = newTickFormat(a.format, a.ticks, step)
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

// tickLabel formats tick i into the canvas scratch buffer.
func (c *canvas) tickLabel(a *axis, i int) []byte {
	if a.kind == axisTime {
		prev := 0.0
		if i > 0 {
			prev = a.ticks[i-1]
		}
		c.scratch = appendTimeTick(c.scratch[:0], a.ticks[i], a.tu, prev, i == 0)
		return c.scratch
	}
	c.scratch = a.tf.appendTick(c.scratch[:0], a.ticks[i])
	return c.scratch
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
	f := &frame{area: area, bottom: bottom, left: left}
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
		// About one tick per 64 px: five to eight labelled lines on a usual plot.
		a.computeTicks(length, 64*c.k)
		return c.maxTickWidth(a) + gap
	}
	n := len(a.labels)
	maxW := math.Max(areaW*0.3, 40*c.k)
	a.shown = a.shown[:0]
	w := 0.0
	for _, l := range a.labels {
		s := c.fonts.Truncate(l, c.fsTick, false, maxW)
		a.shown = append(a.shown, s)
		w = math.Max(w, c.measure(s, c.fsTick, false))
	}
	a.mode, a.every = labelsFlat, 1
	if n > 0 {
		step := length / math.Max(float64(n)-a.padInner+2*a.padOuter, 1)
		a.every = labelEvery(step, c.fsTick*1.15, n)
	}
	return w + gap
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
			wl := c.measureBytes(c.tickLabel(a, 0), c.fsTick, false)
			overL = wl/2 - a.pos(a.ticks[0])
			wr := c.measureBytes(c.tickLabel(a, n-1), c.fsTick, false)
			overR = a.pos(a.ticks[n-1]) + wr/2 - length
		}
		return gap + lineH, math.Max(overL, 0), math.Max(overR, 0)
	}
	n := len(a.labels)
	a.r0, a.r1 = 0, length
	a.every = 1
	if n == 0 {
		return gap + lineH, 0, 0
	}
	band := a.step()
	widths := make([]float64, n)
	for i, l := range a.labels {
		widths[i] = c.measure(l, c.fsTick, false)
	}
	textH := c.fsTick * 1.2
	capExt := areaH * 0.28
	a.shown = append(a.shown[:0], a.labels...)
	flat := true
	for i := 0; i+1 < n; i++ {
		if (widths[i]+widths[i+1])/2+6*c.k > band {
			flat = false
			break
		}
	}
	if n == 1 {
		flat = widths[0] <= length
	}
	switch {
	case flat:
		a.mode = labelsFlat
		overL = math.Max(0, widths[0]/2-a.center(0))
		overR = math.Max(0, a.center(n-1)+widths[n-1]/2-length)
		return gap + lineH, overL, overR
	case band >= textH*1.45:
		a.mode = labels45
	default:
		a.mode = labels90
		a.every = labelEvery(band, textH, n)
	}
	maxLen := capExt
	if a.mode == labels45 {
		maxLen = capExt * math.Sqrt2
	}
	longest := 0.0
	for i, l := range a.labels {
		if widths[i] > maxLen {
			a.shown[i] = c.fonts.Truncate(l, c.fsTick, false, maxLen)
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
		w := c.measureBytes(c.tickLabel(a, i), c.fsTick, false)
		x := a.pos(t)
		if x-w/2 < prevRight+12*c.k {
			return false
		}
		prevRight = x + w/2
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
			w.s(`<path fill="none" stroke="` + inkGrid + `" stroke-width="1" shape-rendering="crispEdges" d="`)
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
		w.s(`<path fill="none" stroke="` + inkAxis + `" stroke-width="1" shape-rendering="crispEdges" d="M`)
		w.pt(p.x, y)
		w.s("H")
		w.f(p.right())
		w.s(`"/>`)
	}
	if f.bottom.kind != axisBand && f.bottom.baseline {
		x := crisp(f.bottom.pos(f.bottom.base()))
		w.s(`<path fill="none" stroke="` + inkAxis + `" stroke-width="1" shape-rendering="crispEdges" d="M`)
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
	p := f.plot
	gap := 8 * c.k
	mid := c.mid(c.fsTick)
	tick := textStyle{size: c.fsTick, fill: inkTick}
	c.w.s(`<g class="axes">`)
	// left
	l := f.left
	if l.kind == axisBand {
		st := tick
		st.anchor = "end"
		for i, s := range l.shown {
			if i%l.every == 0 {
				c.text(p.x-gap, l.center(i)+mid, s, st)
			}
		}
	} else {
		st := tick
		st.anchor = "end"
		for i, t := range l.ticks {
			c.textBytes(p.x-gap, l.pos(t)+mid, c.tickLabel(l, i), st)
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
				c.text(x, top+c.fonts.CapHeight(c.fsTick), s, st)
			case labels45:
				st.anchor, st.rotate = "end", -45
				c.text(x+mid*0.7, top+mid*0.7, s, st)
			default:
				st.anchor, st.rotate = "end", -90
				c.text(x+mid, top, s, st)
			}
		}
	} else {
		st := tick
		st.anchor = "middle"
		for i, t := range b.ticks {
			if i%max(b.every, 1) != 0 {
				continue
			}
			c.textBytes(b.pos(t), top+c.fonts.CapHeight(c.fsTick), c.tickLabel(b, i), st)
		}
	}
	// titles
	ts := textStyle{size: c.fsAxisTitle, fill: inkLabel, anchor: "middle"}
	if l.title != "" {
		s := c.fonts.Truncate(l.title, c.fsAxisTitle, false, p.h+p.y-f.area.y)
		st := ts
		st.rotate = -90
		c.text(f.area.x+c.fonts.CapHeight(c.fsAxisTitle), p.y+p.h/2, s, st)
	}
	if b.title != "" {
		s := c.fonts.Truncate(b.title, c.fsAxisTitle, false, f.area.w)
		c.text(p.x+p.w/2, f.area.bottom()-c.fsAxisTitle*0.25, s, ts)
	}
	c.w.s(`</g>`)
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
