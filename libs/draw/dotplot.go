package draw

import (
	"cmp"
	"math"
	"slices"

	"chartd.dev/libs/dataset"
)

// dotplotChart is a Cleveland dot plot: one row per category, a dot per
// value on a shared scale (no zero baseline needed), a dotted guide along
// each row, and with several series a line joining the row's dots.
type dotplotChart struct {
	cat        *dataset.Column
	labels     []string
	series     []*dataset.Column
	colors     []string
	horizontal bool
	format     numFormat
	n          int
}

func newDotplot(c *canvas, r roleColumns) *dotplotChart {
	d := &dotplotChart{cat: r.one("category"), series: r["values"], n: c.table.Rows}
	d.labels = columnLabels(d.cat)
	d.horizontal = optString(c.spec.Options, "orientation", "horizontal", "horizontal", "vertical") == "horizontal"
	d.format = baseFormat(c.style, d.series)
	c.colors.reserve(len(d.series))
	for i, s := range d.series {
		d.colors = append(d.colors, c.seriesColor(s.ID, i))
	}
	return d
}

func (d *dotplotChart) empty() bool {
	return allBlank(d.series)
}

func (d *dotplotChart) summary() (string, string) {
	name := "Dot plot of " + seriesNames(d.series) + " by " + d.cat.Name
	if d.empty() {
		return name, name + ", no values to show"
	}
	bi, bs, best := 0, 0, math.Inf(-1)
	li, ls, least := 0, 0, math.Inf(1)
	for si, s := range d.series {
		for i, v := range s.Num {
			if isBlank(v) {
				continue
			}
			if v > best {
				bi, bs, best = i, si, v
			}
			if v < least {
				li, ls, least = i, si, v
			}
		}
	}
	who := func(i, s int) string {
		if len(d.series) > 1 {
			return d.labels[i] + " (" + d.series[s].Name + ")"
		}
		return d.labels[i]
	}
	desc := name + ", " + plural(d.n, "category", "categories")
	if len(d.series) > 1 {
		desc += " in " + itoa(len(d.series)) + " series"
	}
	desc += ", highest " + who(bi, bs) + " " + formatValue(best, d.format) + ", lowest " + who(li, ls) + " " + formatValue(least, d.format)
	return name, desc
}

func (d *dotplotChart) legend(c *canvas, area rect) rect {
	if !c.legendVisible(len(d.series) > 1) {
		return area
	}
	items := make([]legendItem, len(d.series))
	for i, s := range d.series {
		items[i] = legendItem{label: s.Name, color: d.colors[i], shape: shapeCircle}
	}
	return c.placeLegend(items, area)
}

func (d *dotplotChart) draw(c *canvas, area rect) {
	st := c.style
	val := newValueAxis(c, st.YAxis, d.format)
	val.grid = true
	val.title = axisTitle(st.YAxisTitle, "")
	val.unitFrom(d.series...)
	for _, s := range d.series {
		for _, v := range s.Num {
			val.extend(v)
		}
	}
	cat := newBandAxis(d.labels, 0, 0).orderedBy(d.cat)
	cat.title = axisTitle(st.XAxisTitle, "")
	cat.noun = "rows"
	bottom, left := val, cat
	if !d.horizontal {
		bottom, left = cat, val
	}
	story := c.newStory(d.cat, d.series, cat, val, d.format)
	story.extend()
	f := c.layoutFrame(area, bottom, left)
	story.drawRanges(f)
	c.drawGrid(f)
	story.drawLines()
	w := &c.w
	p := f.plot
	// dotted row guides across the plot
	w.s(`<path fill="none" stroke="`)
	w.s(c.inkGuide)
	w.s(`" stroke-width="1" stroke-dasharray="1 3" d="`)
	for i := 0; i < d.n; i++ {
		m := cat.center(i)
		w.s("M")
		if d.horizontal {
			w.pt(p.x, crisp(m))
			w.s("H")
			w.f(p.right())
		} else {
			w.pt(crisp(m), p.y)
			w.s("V")
			w.f(p.bottom())
		}
	}
	w.s(`"/>`)
	clip := val.clipped()
	c.beginClip(p, clip)
	at := func(m, v float64) (float64, float64) {
		if d.horizontal {
			return val.pos(v), m
		}
		return m, val.pos(v)
	}
	if len(d.series) > 1 {
		w.s(`<path fill="none" stroke="`)
		w.s(c.inkRule)
		w.s(`" stroke-width="`)
		w.f(2 * c.k)
		w.s(`" d="`)
		for i := 0; i < d.n; i++ {
			lo, hi := math.Inf(1), math.Inf(-1)
			for _, s := range d.series {
				if v := s.Num[i]; !isBlank(v) {
					lo, hi = math.Min(lo, v), math.Max(hi, v)
				}
			}
			if hi <= lo {
				continue
			}
			m := cat.center(i)
			x0, y0 := at(m, lo)
			x1, y1 := at(m, hi)
			c.story.markPath([]point{{x0, y0}, {x1, y1}}, 2*c.k)
			w.s("M")
			w.pt(x0, y0)
			w.s("L")
			w.pt(x1, y1)
		}
		w.s(`"/>`)
	}
	r := 5 * c.k
	rowSpace := cat.step()
	if rowSpace < 2*r+2 {
		r = math.Max(rowSpace/2-1, 1.5)
	}
	off := d.tieOffsets(c, val, r, rowSpace)
	for si, s := range d.series {
		w.s(`<g fill="`)
		w.s(d.colors[si])
		w.s(`" stroke="`)
		w.s(c.background)
		w.s(`" stroke-width="1">`)
		for i := 0; i < d.n; i++ {
			v := s.Num[i]
			if isBlank(v) {
				continue
			}
			m := cat.center(i)
			if off != nil {
				m += off[si][i]
			}
			x, y := at(m, v)
			c.story.mark(box{x - r, y - r, x + r, y + r})
			if c.wantMarks {
				c.mark(x-r, y-r, 2*r, 2*r, d.labels[i], s.Name, c.value(v, d.format))
			}
			w.s(`<circle`)
			w.af("cx", x)
			w.af("cy", y)
			w.af("r", r)
			w.s(`/>`)
		}
		w.s(`</g>`)
	}
	c.endClip(clip)
	if st.Labels.Show {
		d.drawLabels(c, cat, val, r, d.format.forLabels(columnNums(d.series)...))
	}
	c.drawAxisLabels(f)
	story.drawNotes()
}

// drawLabels writes values beside the dots: after the dot for one series,
// above it for several, skipping labels that would collide in a row.
func (d *dotplotChart) drawLabels(c *canvas, cat, val *axis, r float64, format numFormat) {
	fs := c.fsLabel
	if cat.fs > 0 && d.horizontal {
		fs = math.Min(fs, cat.fs) // rows set smaller to fit keep their values readable alike
	}
	w := &c.w
	w.s(`<g class="labels">`)
	type span struct{ lo, hi float64 }
	var taken []span
	for i := 0; i < d.n; i++ {
		taken = taken[:0]
		m := cat.center(i)
		for si, s := range d.series {
			v := s.Num[i]
			if isBlank(v) {
				continue
			}
			txt := c.value(v, format)
			tw := c.measureBytes(txt, fs, false)
			st := textStyle{size: fs, fill: c.inkLabel}
			var x, y, lo, hi float64
			switch {
			case d.horizontal && len(d.series) == 1:
				x, y = val.pos(v)+r+4*c.k, m+c.mid(fs)
				lo, hi = x, x+tw
			case d.horizontal:
				x, y = val.pos(v), m-r-3*c.k
				st.anchor = "middle"
				lo, hi = x-tw/2, x+tw/2
			default:
				x, y = m+r+4*c.k, val.pos(v)+c.mid(fs)
				lo, hi = y-fs, y
			}
			clash := false
			for _, t := range taken {
				if lo < t.hi+2 && hi > t.lo-2 {
					clash = true
				}
			}
			if clash {
				continue
			}
			taken = append(taken, span{lo, hi})
			st.fill = c.textColor(d.colors[si])
			if len(d.series) == 1 {
				st.fill = c.inkLabel
			}
			c.textBytes(x, y, txt, st)
		}
	}
	w.s(`</g>`)
}

// NoticeTies is the code of the notice saying dots of equal (or nearly
// equal) values were set side by side so none hides another.
const NoticeTies = "dots_side_by_side"

// tieOffsets answers, per series and row, how far across its row a dot
// moves so that dots of one row whose values sit within a dot of each
// other (a team's equal 2023 and 2024) are side by side instead of one
// exactly under the other, which reads as a missing value; nil when no
// dots meet. A notice says which rows hold such dots.
func (d *dotplotChart) tieOffsets(c *canvas, val *axis, r, rowSpace float64) [][]float64 {
	if len(d.series) < 2 {
		return nil
	}
	var off [][]float64
	type dot struct {
		si  int
		pos float64
	}
	dots := make([]dot, 0, len(d.series))
	rows, first := 0, -1
	var firstNames []string
	for i := 0; i < d.n; i++ {
		dots = dots[:0]
		for si, s := range d.series {
			if v := s.Num[i]; !isBlank(v) {
				dots = append(dots, dot{si, val.pos(v)})
			}
		}
		slices.SortStableFunc(dots, func(a, b dot) int { return cmp.Compare(a.pos, b.pos) })
		met := false
		for j := 0; j < len(dots); {
			k := j + 1
			for k < len(dots) && dots[k].pos-dots[k-1].pos < r {
				k++
			}
			if n := k - j; n > 1 {
				if off == nil {
					off = make([][]float64, len(d.series))
					for si := range off {
						off[si] = make([]float64, d.n)
					}
				}
				step := math.Min(2*r+1.5*c.k, (rowSpace-2*r)*0.8/float64(n-1)) // apart, within the row
				for q := j; q < k; q++ {
					off[dots[q].si][i] = (float64(q-j) - float64(n-1)/2) * math.Max(step, r/2)
				}
				if first < 0 {
					first = i
					for q := j; q < k; q++ {
						firstNames = append(firstNames, d.series[dots[q].si].Name)
					}
				}
				met = true
			}
			j = k
		}
		if met {
			rows++
		}
	}
	if rows > 0 {
		c.notice(NoticeTies, plural(rows, "row holds", "rows hold")+" dots of equal or nearly equal values (such as "+d.labels[first]+": "+
			joinNames(firstNames)+"); they are set side by side across the row so that none hides another")
	}
	return off
}
