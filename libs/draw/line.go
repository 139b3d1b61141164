package draw

import (
	"math"
	"slices"

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
}

func newLine(c *canvas, r roleColumns) *lineChart {
	l := &lineChart{x: r.one("x"), series: r["values"]}
	l.curve = optString(c.spec.Options, "curve", "linear", "linear", "smooth", "step")
	l.markers = optBool(c.spec.Options, "markers", false)
	l.format = baseFormat(c.style, l.series)
	for i, s := range l.series {
		l.colors = append(l.colors, c.colors.of(s.ID, i))
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
	return l
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
		return formatDate(l.x.Num[i], l.x.DateUnit)
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

func (l *lineChart) legend(c *canvas, area rect) rect {
	if !c.legendVisible(len(l.series) > 1) {
		return area
	}
	items := make([]legendItem, len(l.series))
	for i, s := range l.series {
		items[i] = legendItem{label: s.Name, color: l.colors[i], shape: shapeLine}
	}
	return c.placeLegend(items, area)
}

func (l *lineChart) draw(c *canvas, area rect) {
	st := c.style
	y := newValueAxis(c, st.YAxis, l.format)
	y.grid, y.baseline = true, true
	y.title = axisTitle(st.YAxisTitle, "")
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
	f := c.layoutFrame(area, x, y)
	c.drawGrid(f)
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
	for si, s := range l.series {
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
			l.appendRun(&c.w, pts)
			pts = pts[:0]
		}
		for _, i := range l.order {
			v := s.Num[i]
			if isBlank(v) || (y.log && v <= 0) {
				flush()
				continue
			}
			if len(pts) == 0 {
				runRow = i
			}
			pts = append(pts, point{xpos(i), y.pos(v)})
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
			c.w.s(`" stroke="` + background + `" stroke-width="1.5">`)
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
	if st.Labels.Show {
		l.drawLabels(c, f, xpos)
	}
	c.drawAxisLabels(f)
}

// drawLabels writes each value on the free side of its point: above a
// peak, below a trough, beside a rising or falling line; a label that
// would overlap the previous one of the same series is left out.
func (l *lineChart) drawLabels(c *canvas, f *frame, xpos func(int) float64) {
	fs := c.fsLabel
	off := 6 * c.k
	capH := c.fonts.CapHeight(fs)
	p := f.plot
	c.w.s(`<g class="labels">`)
	var pts []point
	var vals []float64
	for si, s := range l.series {
		pts, vals = pts[:0], vals[:0]
		for _, i := range l.order {
			if v := s.Num[i]; !isBlank(v) {
				pts = append(pts, point{xpos(i), f.left.pos(v)})
				vals = append(vals, v)
			}
		}
		prevRight := math.Inf(-1)
		for j, pt := range pts {
			prevY, nextY := pt.y, pt.y
			if j > 0 {
				prevY = pts[j-1].y
			}
			if j+1 < len(pts) {
				nextY = pts[j+1].y
			}
			txt := c.value(vals[j], l.format)
			w := c.measureBytes(txt, fs, false)
			// screen y grows downwards: a smaller y is higher
			x, y, anchor, left := pt.x, pt.y-off, "middle", pt.x-w/2
			switch {
			case prevY < pt.y && nextY < pt.y: // trough
				y = pt.y + off + capH
			case prevY >= pt.y && nextY < pt.y: // rising: upper left is free
				x, anchor, left = pt.x-off*0.5, "end", pt.x-off*0.5-w
			case prevY < pt.y && nextY >= pt.y: // falling: upper right is free
				x, anchor, left = pt.x+off*0.5, "", pt.x+off*0.5
			}
			if left < p.x || left+w > p.right() {
				// at the plot's edge: centre it, below when the line comes from above
				x, anchor, left = math.Max(p.x+w/2, math.Min(pt.x, p.right()-w/2)), "middle", 0
				left = x - w/2
				if prevY < pt.y || nextY < pt.y {
					y = pt.y + off + capH
				}
			}
			if left < prevRight+4*c.k {
				continue
			}
			prevRight = left + w
			y = math.Max(y, p.y+capH)
			c.textBytes(x, y, txt, textStyle{size: fs, fill: l.colors[si], anchor: anchor})
		}
	}
	c.w.s(`</g>`)
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
