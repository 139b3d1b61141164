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
	for i, s := range d.series {
		d.colors = append(d.colors, c.colors.of(s.ID, i))
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

func (d *radarChart) draw(c *canvas, area rect) {
	fs := c.fsTick
	maxLabel := 0.0
	for _, l := range d.labels {
		maxLabel = math.Max(maxLabel, c.measure(l, fs, false))
	}
	maxLabel = math.Min(maxLabel, area.w*0.22)
	gap := 10 * c.k
	R := math.Min(area.h/2-fs*1.6, area.w/2-maxLabel-gap-4*c.k)
	R = math.Max(R, 20*c.k)
	cx, cy := area.x+area.w/2, area.y+area.h/2
	val := newValueAxis(c, c.style.YAxis, d.format)
	val.log = false
	for _, s := range d.series {
		for _, v := range s.Num {
			val.extend(v)
		}
	}
	if val.lo > 0 {
		val.lo = 0
	}
	val.computeTicks(R, math.Max(R/4, 40*c.k))
	val.r0, val.r1 = 0, R
	angle := func(i int) float64 { return -math.Pi/2 + 2*math.Pi*float64(i)/float64(max(d.n, 1)) }
	at := func(i int, r float64) (float64, float64) {
		a := angle(i)
		return cx + r*math.Cos(a), cy + r*math.Sin(a)
	}
	w := &c.w
	// rings at the ticks and spokes
	w.s(`<path fill="none" stroke="` + inkGrid + `" stroke-width="1" d="`)
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
	// series shapes
	for si, s := range d.series {
		color := d.colors[si]
		w.s(`<path stroke="`)
		w.s(color)
		w.s(`" stroke-width="`)
		w.f(2 * c.k)
		w.s(`" stroke-linejoin="round"`)
		if d.fill {
			w.s(` fill="`)
			w.s(color)
			w.s(`" fill-opacity="0.16"`)
		} else {
			w.s(` fill="none"`)
		}
		w.s(` d="`)
		first := true
		for i := 0; i < d.n; i++ {
			v := s.Num[i]
			if isBlank(v) {
				continue
			}
			if first {
				w.s("M")
				first = false
			} else {
				w.s("L")
			}
			w.pt(at(i, clampR(val.pos(v), R)))
		}
		if !first {
			w.s("Z")
		}
		w.s(`"/>`)
		w.s(`<g fill="`)
		w.s(color)
		w.s(`">`)
		for i := 0; i < d.n; i++ {
			if v := s.Num[i]; !isBlank(v) {
				x, y := at(i, clampR(val.pos(v), R))
				w.s(`<circle`)
				w.af("cx", x)
				w.af("cy", y)
				w.af("r", 3*c.k)
				w.s(`/>`)
			}
		}
		w.s(`</g>`)
	}
	// tick values up the first spoke
	tickFs := c.fsLabel * 0.95
	for i, t := range val.ticks {
		r := val.pos(t)
		if r <= 0.5 || r > R-tickFs {
			continue // the centre needs no label; the outer ring's would hit the top axis name
		}
		c.textBytes(cx+4*c.k, cy-r-3*c.k, c.tickLabel(val, i), textStyle{size: tickFs, fill: inkMuted})
	}
	// axis labels around the outside
	c.w.s(`<g class="axes">`)
	for i, l := range d.labels {
		a := angle(i)
		x, y := at(i, R+gap)
		cos, sin := math.Cos(a), math.Sin(a)
		st := textStyle{size: fs, fill: inkLabel}
		room := math.Min(x-area.x, area.right()-x) * 2
		switch {
		case cos > 0.3:
			room = area.right() - x
		case cos < -0.3:
			st.anchor = "end"
			room = x - area.x
		default:
			st.anchor = "middle"
		}
		switch {
		case sin > 0.3:
			y += c.fonts.CapHeight(fs)
		case sin >= -0.3:
			y += c.mid(fs)
		}
		c.text(x, y, c.fonts.Truncate(l, fs, false, math.Max(room, 0)), st)
	}
	c.w.s(`</g>`)
	if c.style.Labels.Show {
		lfs := c.fsLabel
		w.s(`<g class="labels">`)
		for si, s := range d.series {
			for i := 0; i < d.n; i++ {
				v := s.Num[i]
				if isBlank(v) {
					continue
				}
				x, y := at(i, clampR(val.pos(v), R))
				c.textBytes(x+5*c.k, y-5*c.k, c.value(v, d.format), textStyle{size: lfs, fill: d.colors[si], bold: true})
			}
		}
		w.s(`</g>`)
	}
}

// clampR keeps a radius inside the chart when the range was fixed.
func clampR(r, limit float64) float64 { return math.Max(0, math.Min(r, limit)) }
