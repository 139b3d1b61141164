package draw

import (
	"cmp"
	"math"
	"slices"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// lineChart draws one line per value column over a date, number or
// category x axis. Blank values break the line instead of dropping to zero.
type lineChart struct {
	x       *dataset.Column
	series  []*dataset.Column
	colors  []string
	curve   string // linear | smooth | step
	markers bool
	format  numFormat
	// order lists the rows with an x, in x order.
	order []int
	// band is set when x is text: evenly spaced points, labelled.
	band   bool
	labels []string
	// breaks marks the positions of order the line breaks before, where
	// a regular date series misses periods (periodBreaks); nil for none.
	breaks []bool
}

func newLine(c *canvas, r roleColumns) *lineChart {
	l := &lineChart{x: r.one("x"), series: r["values"]}
	l.curve = optString(c.spec.Options, "curve", "linear", "linear", "smooth", "step")
	l.markers = optBool(c.spec.Options, "markers", false)
	l.format = baseFormat(c.style, l.series)
	c.colors.reserve(len(l.series))
	for i, s := range l.series {
		l.colors = append(l.colors, c.seriesColor(s.ID, i))
	}
	n := c.table.Rows
	l.order = make([]int, 0, n)
	if l.x.Kind == dataset.Text {
		l.band = true
		l.labels = l.x.Text
		for i := 0; i < n; i++ {
			l.order = append(l.order, i)
		}
		return l
	}
	sorted := true
	for i := 0; i < n; i++ {
		if isBlank(l.x.Num[i]) {
			continue
		}
		if k := len(l.order); k > 0 && l.x.Num[l.order[k-1]] > l.x.Num[i] {
			sorted = false
		}
		l.order = append(l.order, i)
	}
	if !sorted {
		xs := l.x.Num
		slices.SortStableFunc(l.order, func(a, b int) int {
			switch {
			case xs[a] < xs[b]:
				return -1
			case xs[a] > xs[b]:
				return 1
			}
			return 0
		})
	}
	l.periodGaps(c)
	return l
}

// periodGaps breaks the line where its regular date series misses
// periods and says so in a notice naming the first gap.
func (l *lineChart) periodGaps(c *canvas) {
	breaks, gaps, missing, from, to := periodBreaks(l.x, l.order)
	if gaps == 0 {
		return
	}
	l.breaks = breaks
	noun := map[string][2]string{dataset.UnitMonth: {"month", "months"}, dataset.UnitQuarter: {"quarter", "quarters"}, dataset.UnitYear: {"year", "years"}}[l.x.DateUnit]
	verb := " are"
	if missing == 1 {
		verb = " is"
	}
	c.notice(NoticePeriodGaps, "the line breaks where "+plural(missing, noun[0], noun[1])+verb+" missing from the data ("+
		plural(gaps, "gap", "gaps")+", the first between "+formatDate(from, l.x.DateUnit)+" and "+formatDate(to, l.x.DateUnit)+
		"), as at a blank cell: no value is drawn where none was measured")
}

func (l *lineChart) empty() bool {
	for _, s := range l.series {
		for _, i := range l.order {
			if !isBlank(s.Num[i]) {
				return false
			}
		}
	}
	return true
}

// xText names an x position for descriptions.
func (l *lineChart) xText(i int) string {
	switch l.x.Kind {
	case dataset.Text:
		return l.x.Text[i]
	case dataset.Date:
		return formatDate(l.x.Num[i], displayUnit(l.x))
	}
	return formatValue(l.x.Num[i], numFormat{decimals: -1, scale: 1})
}

func (l *lineChart) summary() (string, string) {
	name := "Line chart of " + seriesNames(l.series) + " over " + l.x.Name
	if l.empty() {
		return name, name + ", no values to show"
	}
	desc := name + ", " + plural(len(l.order), "point", "points")
	if len(l.order) > 1 {
		desc += " from " + l.xText(l.order[0]) + " to " + l.xText(l.order[len(l.order)-1])
	}
	bi, bs, best := -1, 0, math.Inf(-1)
	for si, s := range l.series {
		for _, i := range l.order {
			if v := s.Num[i]; !isBlank(v) && v > best {
				bi, bs, best = i, si, v
			}
		}
	}
	desc += ", highest "
	if len(l.series) > 1 {
		desc += l.series[bs].Name + " "
	}
	desc += formatValue(best, l.format) + " at " + l.xText(bi)
	return name, desc
}

// maxDirect is the most series labelled at their lines' ends instead of
// in a legend.
const maxDirect = 8

// direct reports whether the series are named at their lines' ends
// (name and last value) instead of in a legend: for two to maxDirect
// series when the legend is left automatic.
func (l *lineChart) direct(c *canvas) bool {
	// a mirrored chart has its value axis where the lines end: a legend,
	// anchored right, names them instead
	if c.rtl || c.style.Legend.Show == chartspec.On || c.style.Legend.Show == chartspec.Off {
		return false
	}
	if c.hl.onSeries() { // the highlighted lines are named where they end
		n := l.kept(c)
		return n >= 1 && n <= maxDirect
	}
	return len(l.series) > 1 && len(l.series) <= maxDirect
}

// kept counts the series a highlight keeps in colour.
func (l *lineChart) kept(c *canvas) int {
	n := 0
	for _, s := range l.series {
		if c.hl.keepsSeries(s.ID) {
			n++
		}
	}
	return n
}

func (l *lineChart) legend(c *canvas, area rect) rect {
	if l.direct(c) || !c.legendVisible(len(l.series) > 1) {
		return area
	}
	items := make([]legendItem, 0, len(l.series))
	for i, s := range l.series {
		if c.hl.keepsSeries(s.ID) {
			items = append(items, legendItem{label: s.Name, color: l.colors[i], shape: shapeLine})
		}
	}
	return c.placeLegend(items, area)
}

func (l *lineChart) draw(c *canvas, area rect) {
	st := c.style
	y := newValueAxis(c, st.YAxis, l.format)
	y.grid, y.baseline = true, true
	y.title = axisTitle(st.YAxisTitle, "")
	y.unitFrom(l.series...)
	for _, s := range l.series {
		for _, i := range l.order {
			y.extend(s.Num[i])
		}
	}
	// a small positive range reads best from zero
	if y.lo >= 0 && y.lo <= (y.hi-y.lo)*0.5 {
		y.zero = true
	}
	if st.Labels.Show {
		y.headroom = 0.06
	}
	var x *axis
	switch {
	case l.band:
		x = newBandAxis(l.labels, 1, 0.5)
	case l.x.Kind == dataset.Date:
		x = &axis{kind: axisTime, lo: math.Inf(1), hi: math.Inf(-1), minStep: unitStep(l.x.DateUnit)}
		if st.XAxis != nil {
			x.userMin, x.userMax = st.XAxis.Min, st.XAxis.Max
		}
	default:
		x = newValueAxis(c, st.XAxis, baseFormat(c.style, []*dataset.Column{l.x}))
	}
	if !l.band {
		for _, i := range l.order {
			x.extend(l.x.Num[i])
		}
		if x.kind == axisValue && !x.log {
			x.exact = true
		}
	}
	x.title = axisTitle(st.XAxisTitle, "")
	if x.kind == axisValue {
		x.unitFrom(l.x)
	}
	var ends []directLabel
	if l.direct(c) {
		var room float64
		ends, room = l.directLabels(c, y, area.h)
		area.w -= room
	}
	story := c.newStory(l.x, l.series, x, y, l.format)
	story.extend()
	f := c.layoutFrame(area, x, y)
	story.drawRanges(f)
	c.drawGrid(f)
	story.drawLines()
	clip := x.clipped() || y.clipped()
	c.beginClip(f.plot, clip)
	pts := make([]point, 0, len(l.order))
	xpos := func(i int) float64 {
		if l.band {
			return x.center(i)
		}
		return x.pos(l.x.Num[i])
	}
	sw := 2.25 * c.k
	for _, si := range c.highlightOrder(l.keys()) {
		s := l.series[si]
		color := l.colors[si]
		c.w.s(`<path fill="none" stroke="`)
		c.w.s(color)
		c.w.s(`" stroke-width="`)
		c.w.f(sw)
		c.w.s(`" stroke-linejoin="round" stroke-linecap="round" d="`)
		pts = pts[:0]
		var lone []int // rows of points with no neighbour: drawn as dots
		runRow := -1
		flush := func() {
			if len(pts) == 1 {
				lone = append(lone, runRow)
			}
			c.story.markPath(pts, sw)
			l.appendRun(&c.w, pts)
			pts = pts[:0]
		}
		for k, i := range l.order {
			v := s.Num[i]
			if l.breaks != nil && l.breaks[k] {
				flush()
			}
			if isBlank(v) || (y.log && v <= 0) {
				flush()
				continue
			}
			if len(pts) == 0 {
				runRow = i
			}
			pts = append(pts, point{xpos(i), y.pos(v)})
			if c.wantMarks {
				c.mark(xpos(i), y.pos(v), 0, 0, l.xText(i), s.Name, c.value(v, l.format))
			}
		}
		flush()
		c.w.s(`"/>`)
		dots := lone
		if l.markers {
			dots = dots[:0]
			for _, i := range l.order {
				if v := s.Num[i]; !isBlank(v) && !(y.log && v <= 0) {
					dots = append(dots, i)
				}
			}
		}
		if len(dots) > 0 {
			c.w.s(`<g fill="`)
			c.w.s(color)
			c.w.s(`" stroke="`)
			c.w.s(c.background)
			c.w.s(`" stroke-width="1.5">`)
			for _, i := range dots {
				c.w.s(`<circle`)
				c.w.af("cx", xpos(i))
				c.w.af("cy", y.pos(s.Num[i]))
				c.w.af("r", 3.5*c.k)
				c.w.s(`/>`)
			}
			c.w.s(`</g>`)
		}
	}
	c.endClip(clip)
	c.drawBaselines(f)
	var taken []box
	if ends != nil {
		taken = l.drawDirect(c, f, ends, xpos)
	}
	if st.Labels.Show {
		l.drawLabels(c, f, xpos, taken, ends)
	}
	c.drawAxisLabels(f)
	story.drawNotes()
}

// directLabel names one series at its line's end.
type directLabel struct {
	series int
	row    int // the last row with a value
	// name is the series' name in up to three lines; the value follows the last.
	name []string
	y    float64
}

// directLabels lists each series' name and last value, and the width they
// need right of the plot. A long name wraps to as many lines (three at
// most) as every name can have in about the height h.
func (l *lineChart) directLabels(c *canvas, y *axis, h float64) ([]directLabel, float64) {
	var out []directLabel
	room := 0.0
	maxLines := min(3, max(1, int(h*0.8/(float64(len(l.series))*c.fsLegend*1.25))))
	format := l.format.forLabels(columnNums(l.series)...)
	for si, s := range l.series {
		if !c.hl.keepsSeries(s.ID) {
			continue
		}
		row := -1
		for k := len(l.order) - 1; k >= 0; k-- {
			if i := l.order[k]; !isBlank(s.Num[i]) {
				row = i
				break
			}
		}
		if row < 0 {
			continue
		}
		name := c.fitLines(s.Name, c.fsLegend, true, 140*c.k, maxLines)
		if len(name) == 0 {
			name = []string{""}
		}
		out = append(out, directLabel{series: si, row: row, name: name})
		last := c.measure(name[len(name)-1], c.fsLegend, true) + c.measureBytes(c.value(s.Num[row], format), c.fsLegend, false) + c.measure(" ", c.fsLegend, false)
		room = math.Max(room, math.Max(c.linesWidth(name, c.fsLegend, true), last))
	}
	return out, room + 8*c.k
}

// drawDirect writes the series names at their lines' ends, pushed apart
// so none overlap, and answers the boxes they take.
func (l *lineChart) drawDirect(c *canvas, f *frame, ends []directLabel, xpos func(int) float64) []box {
	p := f.plot
	fs := c.fsLegend
	lineH := fs * 1.25
	lines := 1
	for i := range ends {
		ends[i].y = f.left.pos(l.series[ends[i].series].Num[ends[i].row])
		lines = max(lines, len(ends[i].name))
	}
	ys := make([]float64, len(ends))
	idx := make([]int, len(ends))
	for i := range ends {
		idx[i] = i
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(ends[a].y, ends[b].y) })
	for k, i := range idx {
		ys[k] = ends[i].y
	}
	// names of several lines are spread that many lines apart, their middles at the ends
	gap := lineH * float64(lines)
	spreadApart(ys, gap, p.y+gap/2, p.bottom()-gap/2)
	format := l.format.forLabels(columnNums(l.series)...)
	x := p.right() + 6*c.k
	var taken []box
	c.w.s(`<g class="direct-labels">`)
	for k, i := range idx {
		e := ends[i]
		si := e.series
		cy := ys[k]
		if math.Abs(cy-e.y) > 1 {
			// a thin leader from the line's end to its moved name
			c.w.s(`<path fill="none" stroke="`)
			c.w.s(l.colors[si])
			c.w.s(`" stroke-width="1" d="M`)
			c.w.pt(xpos(e.row)+3*c.k, e.y)
			c.w.s("L")
			c.w.pt(x-2*c.k, cy)
			c.w.s(`"/>`)
		}
		st := textStyle{size: fs, fill: l.colors[si], bold: true}
		n := len(e.name)
		by := cy + c.mid(fs) - float64(n-1)*lineH/2
		top := by - c.fonts.CapHeight(fs)
		for _, ln := range e.name[:n-1] {
			c.text(x, by, ln, st)
			by += lineH
		}
		c.openText(x, by, st)
		c.w.esc(e.name[n-1])
		c.w.s(`<tspan font-weight="normal" fill="`)
		c.w.s(c.inkLabel)
		c.w.s(`"> `)
		val := c.value(l.series[si].Num[e.row], format)
		c.w.escBytes(val)
		c.w.s(`</tspan></text>`)
		w := math.Max(c.linesWidth(e.name[:n-1], fs, true), c.measure(e.name[n-1], fs, true)+c.measureBytes(val, fs, false))
		taken = append(taken, box{x, top, x + w, by})
	}
	c.w.s(`</g>`)
	return taken
}

// spreadApart moves sorted positions the least so neighbours are at least
// gap apart, inside [lo, hi] where the room allows.
func spreadApart(ys []float64, gap, lo, hi float64) {
	n := len(ys)
	if n == 0 {
		return
	}
	for range 50 {
		moved := false
		for i := 1; i < n; i++ {
			if d := ys[i] - ys[i-1]; d < gap-1e-6 {
				push := (gap - d) / 2
				ys[i-1] -= push
				ys[i] += push
				moved = true
			}
		}
		if ys[0] < lo {
			ys[0] = lo
		}
		for i := 1; i < n; i++ {
			ys[i] = math.Max(ys[i], ys[i-1]+gap)
		}
		if ys[n-1] > hi {
			ys[n-1] = hi
			for i := n - 2; i >= 0; i-- {
				ys[i] = math.Min(ys[i], ys[i+1]-gap)
			}
		}
		if !moved {
			return
		}
	}
}

// drawLabels writes each value on the free side of its point: above a
// peak, below a trough, beside a rising or falling line, else on another
// side that is free. Labels are placed the last point, the extremes and
// then the rest first, inside the plot (never in the tick row), clear of
// every other label and of the points; a label with no free place is left
// out, as Highcharts' dataLabels do, and a notice counts them. Labels
// keep off the lines where a free side allows, else they get a halo. A
// point whose value its direct label already gives has no label.
// crowdedLines is the most lines whose every point is labelled; with more,
// only each line's last value, highest and lowest are.
const crowdedLines = 4

func (l *lineChart) drawLabels(c *canvas, f *frame, xpos func(int) float64, taken []box, ends []directLabel) {
	fs := c.fsLabel
	off := 6 * c.k
	capH := c.fonts.CapHeight(fs)
	p := f.plot
	format := l.format.forLabels(columnNums(l.series)...)
	pl := newPlacer(box{p.x - off, p.y, p.right() + off, p.bottom()}, 1.5*c.k)
	for _, b := range taken {
		pl.block(b)
	}
	type cand struct {
		si, j int
		pt    point
		v     float64
		shape int // 0 peak/flat, 1 trough, 2 rising, 3 falling
	}
	var all []cand
	var segs []segment
	r := 3 * c.k
	// diag puts a label beside its point, corner to corner, just clear of
	// the point's own box and the pad (closer, the point blocks it).
	diag := r + 2*c.k
	for si, s := range l.series {
		var pts []point
		var vals []float64
		var rows []int
		joined := false // the last point has a neighbour drawn to it
		for _, i := range l.order {
			v := s.Num[i]
			if isBlank(v) || (f.left.log && v <= 0) {
				joined = false
				continue
			}
			pt := point{xpos(i), f.left.pos(v)}
			if joined {
				segs = l.appendSegments(segs, pts[len(pts)-1], pt)
			}
			joined = true
			pts = append(pts, pt)
			vals = append(vals, v)
			rows = append(rows, i)
		}
		for j, pt := range pts {
			pl.block(box{pt.x - r, pt.y - r, pt.x + r, pt.y + r})
			if ended(ends, si, rows[j]) {
				continue
			}
			prevY, nextY := pt.y, pt.y
			if j > 0 {
				prevY = pts[j-1].y
			}
			if j+1 < len(pts) {
				nextY = pts[j+1].y
			}
			shape := 0
			switch {
			case prevY < pt.y && nextY < pt.y:
				shape = 1
			case prevY >= pt.y && nextY < pt.y:
				shape = 2
			case prevY < pt.y && nextY >= pt.y:
				shape = 3
			}
			all = append(all, cand{si, j, pt, vals[j], shape})
		}
	}
	// priority: each series' last point, its highest and lowest, then the rest
	rank := make([]int, len(all))
	for k := range all {
		rank[k] = 3
	}
	for si := range l.series {
		hi, lo, last := -1, -1, -1
		for k, a := range all {
			if a.si != si {
				continue
			}
			last = k
			if hi < 0 || a.v > all[hi].v {
				hi = k
			}
			if lo < 0 || a.v < all[lo].v {
				lo = k
			}
		}
		for pri, k := range []int{last, hi, lo} {
			if k >= 0 && rank[k] == 3 {
				rank[k] = pri
			}
		}
	}
	order := make([]int, len(all))
	for k := range order {
		order[k] = k
	}
	slices.SortStableFunc(order, func(a, b int) int { return cmp.Compare(rank[a], rank[b]) })
	pl.avoid(2.25*c.k, segs...)
	type placed struct {
		x, y   float64
		anchor string
	}
	at := make([]placed, len(all))
	ok := make([]bool, len(all))
	halo := make([]bool, len(all)) // placed on a line: outlined to read
	for _, k := range order {
		a := all[k]
		if rank[k] == 3 && len(l.series) > crowdedLines {
			// past a few lines, a label on every point buries them:
			// the ends, highs and lows are what a reader looks for
			pl.hidden++
			continue
		}
		w := c.measureBytes(c.value(a.v, format), fs, false)
		above := placed{a.pt.x, a.pt.y - off, "middle"}
		below := placed{a.pt.x, a.pt.y + off + capH, "middle"}
		left := placed{a.pt.x - diag, a.pt.y - diag, "end"}
		right := placed{a.pt.x + diag, a.pt.y - diag, ""}
		lowLeft := placed{a.pt.x - diag, a.pt.y + diag + capH, "end"}
		lowRight := placed{a.pt.x + diag, a.pt.y + diag + capH, ""}
		var cands []placed
		switch a.shape {
		case 1:
			cands = []placed{below, lowLeft, lowRight, above}
		case 2:
			cands = []placed{left, above, lowRight, below}
		case 3:
			cands = []placed{right, above, lowLeft, below}
		default:
			cands = []placed{above, right, left, below}
		}
		boxes := make([]box, len(cands))
		for i, pc := range cands {
			boxes[i] = boxAt(pc.x, pc.y, w, capH, pc.anchor)
		}
		if i, onLine := pl.placeOff(boxes...); i >= 0 {
			at[k], ok[k], halo[k] = cands[i], true, onLine
		}
	}
	inks := make([]string, len(l.series)) // textColor searches; once per line
	for si := range inks {
		inks[si] = c.textColor(l.colors[si])
	}
	c.w.s(`<g class="labels">`)
	for k, a := range all {
		if ok[k] {
			c.textBytes(at[k].x, at[k].y, c.value(a.v, format), textStyle{size: fs, fill: inks[a.si], anchor: at[k].anchor, halo: halo[k]})
		}
	}
	c.w.s(`</g>`)
	first := "each line's last value, highest and lowest come first"
	if len(l.series) > crowdedLines {
		first = "with more than " + itoa(crowdedLines) + " lines only each line's last value, highest and lowest are labelled"
	}
	c.hiddenNotice(pl.hidden, len(all), first)
}

// ended reports whether row's value of series si is in a direct label.
func ended(ends []directLabel, si, row int) bool {
	for _, e := range ends {
		if e.series == si && e.row == row {
			return true
		}
	}
	return false
}

// appendSegments adds the straight stretches the line draws from a to b:
// one, or two for steps (across, then up or down). A smooth curve stays
// within the box of its two points, close to the straight one.
func (l *lineChart) appendSegments(segs []segment, a, b point) []segment {
	if l.curve == "step" {
		corner := point{b.x, a.y}
		return append(segs, segment{a, corner}, segment{corner, b})
	}
	return append(segs, segment{a, b})
}

// point is a position in pixels.
type point struct{ x, y float64 }

// appendRun writes one unbroken run of points as path data in the chosen curve.
func (l *lineChart) appendRun(w *svgWriter, pts []point) {
	if len(pts) < 2 {
		return
	}
	w.s("M")
	w.pt(pts[0].x, pts[0].y)
	switch l.curve {
	case "step":
		for _, p := range pts[1:] {
			w.s("H")
			w.f(p.x)
			w.s("V")
			w.f(p.y)
		}
	case "smooth":
		appendMonotone(w, pts)
	default:
		for _, p := range pts[1:] {
			w.s("L")
			w.pt(p.x, p.y)
		}
	}
}

// appendMonotone draws a monotone cubic curve (Fritsch–Carlson) through
// the points: smooth, yet never overshooting the data between points.
func appendMonotone(w *svgWriter, pts []point) {
	n := len(pts)
	tangent := func(i int) float64 {
		slope := func(a, b point) float64 {
			if b.x == a.x {
				return 0
			}
			return (b.y - a.y) / (b.x - a.x)
		}
		switch {
		case i == 0:
			return slope(pts[0], pts[1])
		case i == n-1:
			return slope(pts[n-2], pts[n-1])
		}
		s0, s1 := slope(pts[i-1], pts[i]), slope(pts[i], pts[i+1])
		if s0*s1 <= 0 {
			return 0
		}
		// harmonic mean keeps the curve inside the data's range
		return 2 * s0 * s1 / (s0 + s1)
	}
	m0 := tangent(0)
	for i := 1; i < n; i++ {
		a, b := pts[i-1], pts[i]
		m1 := tangent(i)
		dx := (b.x - a.x) / 3
		if dx <= 0 {
			w.s("L")
			w.pt(b.x, b.y)
			m0 = m1
			continue
		}
		w.s("C")
		w.pt(a.x+dx, a.y+m0*dx)
		w.s(" ")
		w.pt(b.x-dx, b.y-m1*dx)
		w.s(" ")
		w.pt(b.x, b.y)
		m0 = m1
	}
}

// keys are the series' column ids.
func (l *lineChart) keys() []string {
	out := make([]string, len(l.series))
	for i, s := range l.series {
		out[i] = s.ID
	}
	return out
}
