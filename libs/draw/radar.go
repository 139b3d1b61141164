package draw

import (
	"math"

	"chartd.dev/libs/dataset"
)

// radarChart draws one spoke per row and one closed shape per value column;
// blank values are left out of the shape rather than pulled to the centre.
type radarChart struct {
	axisCol *dataset.Column
	labels  []string
	series  []*dataset.Column
	colors  []string
	fill    bool
	format  numFormat
	n       int
}

func newRadar(c *canvas, r roleColumns) *radarChart {
	d := &radarChart{axisCol: r.one("axis"), series: r["values"], n: c.table.Rows}
	d.labels = columnLabels(d.axisCol)
	d.fill = optBool(c.spec.Options, "fill", true)
	d.format = baseFormat(c.style, d.series)
	c.colors.reserve(len(d.series))
	for i, s := range d.series {
		d.colors = append(d.colors, c.seriesColor(s.ID, i))
	}
	return d
}

func (d *radarChart) empty() bool {
	return allBlank(d.series)
}

func (d *radarChart) summary() (string, string) {
	name := "Radar chart of " + seriesNames(d.series) + " across " + d.axisCol.Name
	if d.empty() {
		return name, name + ", no values to show"
	}
	desc := name + ", " + plural(d.n, "axis", "axes")
	for si, s := range d.series {
		if si == 3 {
			break
		}
		best := -1
		for i, v := range s.Num {
			if !isBlank(v) && (best < 0 || v > s.Num[best]) {
				best = i
			}
		}
		if best >= 0 {
			desc += ", " + s.Name + " highest on " + d.labels[best] + " (" + formatValue(s.Num[best], d.format) + ")"
		}
	}
	return name, desc
}

func (d *radarChart) legend(c *canvas, area rect) rect {
	if !c.legendVisible(len(d.series) > 1) {
		return area
	}
	items := make([]legendItem, len(d.series))
	for i, s := range d.series {
		items[i] = legendItem{label: s.Name, color: d.colors[i]}
	}
	return c.placeLegend(items, area)
}

// radarLabel is an axis name placed around the outside.
type radarLabel struct {
	text string
	// lines are a long name wrapped to two lines (nil: one line, text)
	lines  []string
	x, y   float64 // anchor point, baseline of the first line
	anchor string
	w      float64
}

// radarLineH is the line height of a wrapped axis name.
func radarLineH(fs float64) float64 { return fs * 1.15 }

// box is the label's extent: left, top, right, bottom.
func (l radarLabel) box(fs float64) (float64, float64, float64, float64) {
	x0 := l.x
	switch l.anchor {
	case "middle":
		x0 -= l.w / 2
	case "end":
		x0 -= l.w
	}
	extra := 0.0
	if n := len(l.lines); n > 1 {
		extra = float64(n-1) * radarLineH(fs)
	}
	return x0, l.y - fs*0.8, x0 + l.w, l.y + fs*0.25 + extra
}

// placeLabels puts the axis names outside radius R, anchored away from
// the centre; with stagger, every other name sits one line further out.
func (d *radarChart) placeLabels(c *canvas, area rect, cx, cy, R, fs float64, stagger bool) []radarLabel {
	gap := 10 * c.k
	out := make([]radarLabel, len(d.labels))
	for i, l := range d.labels {
		a := -math.Pi/2 + 2*math.Pi*float64(i)/float64(max(d.n, 1))
		r := R + gap
		if stagger && i%2 == 1 {
			r += fs * 1.3
		}
		x, y := cx+r*math.Cos(a), cy+r*math.Sin(a)
		cos, sin := math.Cos(a), math.Sin(a)
		lb := radarLabel{x: x, y: y}
		room := math.Min(x-area.x, area.right()-x) * 2
		switch {
		case cos > 0.08:
			room = area.right() - x
		case cos < -0.08:
			lb.anchor = "end"
			room = x - area.x
		default:
			lb.anchor = "middle"
		}
		switch {
		case sin > 0.3:
			lb.y += c.fonts.CapHeight(fs)
		case sin >= -0.3:
			lb.y += c.mid(fs)
		}
		// a long name wraps to two lines before it is cut; a word too
		// wide for the room is cut, never broken
		lines := c.fitLines(l, fs, false, math.Max(room, 0), 2)
		if len(lines) > 1 && splitsWord(l, lines) {
			lines = c.fitLines(l, fs, false, math.Max(room, 0), 1)
		}
		if len(lines) > 0 {
			lb.text = lines[0]
		}
		lb.w = c.linesWidth(lines, fs, false)
		if n := len(lines); n > 1 {
			lb.lines = lines
			switch {
			case sin < -0.3: // above the circle: the block grows upwards
				lb.y -= float64(n-1) * radarLineH(fs)
			case sin <= 0.3: // beside it: centred on the spoke
				lb.y -= float64(n-1) * radarLineH(fs) / 2
			}
		}
		out[i] = lb
	}
	return out
}

// labelsCollide reports two axis names that overlap (each with its
// neighbours, and across the closing gap).
func labelsCollide(ls []radarLabel, fs float64) bool {
	n := len(ls)
	for i := range ls {
		for _, j := range [2]int{(i + 1) % n, (i + 2) % n} {
			if j == i || ls[i].text == "" || ls[j].text == "" {
				continue
			}
			ax0, ay0, ax1, ay1 := ls[i].box(fs)
			bx0, by0, bx1, by1 := ls[j].box(fs)
			if ax0 < bx1+2 && bx0 < ax1+2 && ay0 < by1 && by0 < ay1 {
				return true
			}
		}
	}
	return false
}

func (d *radarChart) draw(c *canvas, area rect) {
	fs := c.fsTick
	// the axis names: at the usual size if they fit, else staggered in two
	// rings, else smaller; never on top of each other
	type try struct {
		fs      float64
		stagger bool
	}
	tries := []try{{fs, false}, {fs, true}, {math.Max(fs*0.85, minText), true}, {math.Max(fs*0.75, minText), true}}
	var labels []radarLabel
	var R, cx, cy float64
	for ti, t := range tries {
		maxLabel := 0.0
		for _, l := range d.labels {
			maxLabel = math.Max(maxLabel, c.measure(l, t.fs, false))
		}
		maxLabel = math.Min(maxLabel, area.w*0.22)
		extra := 0.0
		if t.stagger {
			extra = t.fs * 1.3
		}
		gap := 10 * c.k
		R = math.Min(area.h/2-t.fs*1.6-extra, area.w/2-maxLabel-gap-4*c.k-extra)
		R = math.Max(R, 20*c.k)
		cx, cy = area.x+area.w/2, area.y+area.h/2
		labels = d.placeLabels(c, area, cx, cy, R, t.fs, t.stagger)
		fs = t.fs
		if !labelsCollide(labels, t.fs) || ti == len(tries)-1 {
			break
		}
	}
	val := newValueAxis(c, c.style.YAxis, d.format)
	val.log = false
	val.unitFrom(d.series...)
	for _, s := range d.series {
		for _, v := range s.Num {
			val.extend(v)
		}
	}
	if val.lo > 0 {
		val.lo = 0
	}
	val.computeTicks(R, math.Max(R/5, 36*c.k))
	val.r0, val.r1 = 0, R
	angle := func(i int) float64 { return -math.Pi/2 + 2*math.Pi*float64(i)/float64(max(d.n, 1)) }
	at := func(i int, r float64) (float64, float64) {
		a := angle(i)
		return cx + r*math.Cos(a), cy + r*math.Sin(a)
	}
	w := &c.w
	// rings at the ticks and spokes
	w.s(`<path fill="none" stroke="`)
	w.s(c.inkGrid)
	w.s(`" stroke-width="1" d="`)
	for _, t := range val.ticks {
		r := val.pos(t)
		if r <= 0.5 {
			continue
		}
		for i := 0; i < d.n; i++ {
			if i == 0 {
				w.s("M")
			} else {
				w.s("L")
			}
			w.pt(at(i, r))
		}
		w.s("Z")
	}
	for i := 0; i < d.n; i++ {
		w.s("M")
		w.pt(cx, cy)
		w.s("L")
		w.pt(at(i, R))
	}
	w.s(`"/>`)
	// series shapes; a blank value breaks the outline and the fill, as a
	// line chart's gap, instead of joining its neighbours across it
	for si, s := range d.series {
		color := d.colors[si]
		present := func(i int) bool { return !isBlank(s.Num[(i+d.n)%d.n]) }
		point := func(i int) (float64, float64) { return at(i%d.n, clampR(val.pos(s.Num[i%d.n]), R)) }
		whole := true
		for i := 0; i < d.n; i++ {
			whole = whole && present(i)
		}
		if d.fill && d.n > 0 {
			w.s(`<path fill="`)
			w.s(color)
			w.s(`" fill-opacity="0.16" stroke="none" d="`)
			for i := 0; i < d.n; i++ {
				switch {
				case whole:
					if i == 0 {
						w.s("M")
					} else {
						w.s("L")
					}
					w.pt(point(i))
				case present(i) && present(i+1):
					w.s("M")
					w.pt(cx, cy)
					w.s("L")
					w.pt(point(i))
					w.s("L")
					w.pt(point(i + 1))
					w.s("Z")
				}
			}
			if whole {
				w.s("Z")
			}
			w.s(`"/>`)
		}
		w.s(`<path fill="none" stroke="`)
		w.s(color)
		w.s(`" stroke-width="`)
		w.f(2 * c.k)
		w.s(`" stroke-linejoin="round" stroke-linecap="round" d="`)
		if whole {
			for i := 0; i < d.n; i++ {
				if i == 0 {
					w.s("M")
				} else {
					w.s("L")
				}
				w.pt(point(i))
			}
			w.s("Z")
		} else {
			// runs of present values, starting after a blank so a run that
			// wraps past the first axis stays one line
			first := 0
			for present(first) {
				first++
			}
			for j := 1; j <= d.n; j++ {
				i := first + j
				if !present(i) || !present(i-1) && !present(i+1) {
					continue
				}
				if !present(i - 1) {
					w.s("M")
				} else {
					w.s("L")
				}
				w.pt(point(i))
			}
		}
		w.s(`"/>`)
		w.s(`<g fill="`)
		w.s(color)
		w.s(`">`)
		for i := 0; i < d.n; i++ {
			if v := s.Num[i]; !isBlank(v) {
				x, y := at(i, clampR(val.pos(v), R))
				if c.wantMarks {
					c.mark(x, y, 0, 0, d.labels[i], s.Name, c.value(v, d.format))
				}
				w.s(`<circle`)
				w.af("cx", x)
				w.af("cy", y)
				w.af("r", 3*c.k)
				w.s(`/>`)
			}
		}
		w.s(`</g>`)
	}
	// every ring's value, between the first two spokes and over the
	// series with a halo, so no shape hides it
	tickFs := math.Max(minText, c.fsLabel*0.95)
	half := math.Pi / float64(max(d.n, 2))
	w.s(`<g class="ticks"`)
	if !c.transparent {
		w.s(` stroke="`)
		w.s(c.background)
		w.s(`" stroke-width="3" stroke-linejoin="round" paint-order="stroke"`)
	}
	w.s(`>`)
	for i, t := range val.ticks {
		r := val.pos(t)
		if r <= 0.5 {
			continue // the centre needs no label
		}
		a := -math.Pi/2 + half
		x, y := cx+(r-2*c.k)*math.Cos(a), cy+(r-2*c.k)*math.Sin(a)
		c.textBytes(x+2*c.k, y+c.fonts.CapHeight(tickFs)+1*c.k, c.tickLabel(val, i), textStyle{size: tickFs, fill: c.inkSubtitle})
	}
	w.s(`</g>`)
	// axis labels around the outside
	w.s(`<g class="axes">`)
	for _, l := range labels {
		if l.lines != nil {
			c.textLines(l.x, l.y, l.lines, radarLineH(fs), textStyle{size: fs, fill: c.inkLabel, anchor: l.anchor})
			continue
		}
		c.text(l.x, l.y, l.text, textStyle{size: fs, fill: c.inkLabel, anchor: l.anchor})
	}
	w.s(`</g>`)
	if c.style.Labels.Show {
		lfs := c.fsLabel
		format := d.format.forLabels(columnNums(d.series)...)
		w.s(`<g class="labels">`)
		for si, s := range d.series {
			ink := c.textColor(d.colors[si])
			for i := 0; i < d.n; i++ {
				v := s.Num[i]
				if isBlank(v) {
					continue
				}
				x, y := at(i, clampR(val.pos(v), R))
				c.textBytes(x+5*c.k, y-5*c.k, c.value(v, format), textStyle{size: lfs, fill: ink, bold: true})
			}
		}
		w.s(`</g>`)
	}
}

// clampR keeps a radius inside the chart when the range was fixed.
func clampR(r, limit float64) float64 { return math.Max(0, math.Min(r, limit)) }
