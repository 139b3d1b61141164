package draw

import (
	"math"
	"slices"
	"strconv"

	"chartd.dev/libs/dataset"
)

// boxStats is one group's five-number summary with Tukey whiskers.
type boxStats struct {
	n                int
	q1, median, q3   float64
	whiskLo, whiskHi float64
	outliers         []float64
	// points are the values of a group too small for quartiles (n ≤
	// fewPoints): drawn as dots with their n, not as a box.
	points []float64
}

// fewPoints is the largest group drawn as its points: quartiles
// interpolated between four values suggest a spread nobody measured.
const fewPoints = 4

// tukey summarises sorted values: quartiles by linear interpolation,
// whiskers to the furthest values within 1.5 IQR of the box, and every value
// beyond them an outlier.
func tukey(sorted []float64) boxStats {
	s := boxStats{n: len(sorted)}
	if s.n == 0 {
		return s
	}
	if s.n <= fewPoints {
		s.points = sorted
		s.median = quantile(sorted, 0.5)
		s.q1, s.q3, s.whiskLo, s.whiskHi = sorted[0], sorted[s.n-1], sorted[0], sorted[s.n-1]
		return s
	}
	s.q1, s.median, s.q3 = quantile(sorted, 0.25), quantile(sorted, 0.5), quantile(sorted, 0.75)
	iqr := s.q3 - s.q1
	lo, hi := s.q1-1.5*iqr, s.q3+1.5*iqr
	s.whiskLo, s.whiskHi = s.q1, s.q3
	for _, v := range sorted {
		if v >= lo {
			s.whiskLo = math.Min(v, s.q1)
			break
		}
	}
	for i := len(sorted) - 1; i >= 0; i-- {
		if sorted[i] <= hi {
			s.whiskHi = math.Max(sorted[i], s.q3)
			break
		}
	}
	for _, v := range sorted {
		if v < lo || v > hi {
			s.outliers = append(s.outliers, v)
		}
	}
	return s
}

// boxplotChart draws one box per group.
type boxplotChart struct {
	value      *dataset.Column
	group      *dataset.Column
	names      []string
	stats      []boxStats
	colors     []string
	horizontal bool
	format     numFormat
}

func newBoxplot(c *canvas, r roleColumns) *boxplotChart {
	b := &boxplotChart{value: r.one("value"), group: r.one("group")}
	b.horizontal = optString(c.spec.Options, "orientation", "vertical", "vertical", "horizontal") == "horizontal"
	b.format = baseFormat(c.style, []*dataset.Column{b.value})
	var rows [][]int
	if b.group == nil {
		all := make([]int, c.table.Rows)
		for i := range all {
			all[i] = i
		}
		b.names, rows = []string{b.value.Name}, [][]int{all}
	} else {
		b.names, rows = groupRows(b.group, c.table.Rows)
	}
	for g, rs := range rows {
		b.stats = append(b.stats, tukey(finite(b.value.Num, rs)))
		key := b.value.ID
		if b.group != nil {
			if _, pinned := c.colors.pinned[b.names[g]]; pinned {
				key = b.names[g]
			}
		}
		color := c.colors.of(key, 0)
		if b.group != nil && !c.hl.keepsCategory(b.names[g]) {
			color = c.inkDim
		}
		b.colors = append(b.colors, color)
	}
	return b
}

// groupRows splits rows by a category column: names in first-appearance
// order (ascending for dates and numbers), blank cells as "(blank)".
func groupRows(col *dataset.Column, n int) ([]string, [][]int) {
	labels := columnLabels(col)
	order := make([]int, n)
	for i := range order {
		order[i] = i
	}
	if col.Kind != dataset.Text {
		slices.SortStableFunc(order, func(a, b int) int {
			va, vb := col.Num[a], col.Num[b]
			switch {
			case isBlank(va) && !isBlank(vb):
				return 1
			case !isBlank(va) && isBlank(vb):
				return -1
			case va < vb:
				return -1
			case va > vb:
				return 1
			}
			return 0
		})
	}
	index := map[string]int{}
	var names []string
	var rows [][]int
	for _, i := range order {
		name := labels[i]
		if name == "" {
			name = "(blank)"
		}
		g, ok := index[name]
		if !ok {
			g = len(names)
			index[name] = g
			names = append(names, name)
			rows = append(rows, nil)
		}
		rows[g] = append(rows[g], i)
	}
	return names, rows
}

func (b *boxplotChart) empty() bool {
	for _, s := range b.stats {
		if s.n > 0 {
			return false
		}
	}
	return true
}

func (b *boxplotChart) summary() (string, string) {
	name := "Box plot of " + b.value.Name
	if b.group != nil {
		name += " by " + b.group.Name
	}
	if b.empty() {
		return name, name + ", no values to show"
	}
	total, best := 0, -1
	for g, s := range b.stats {
		total += s.n
		if s.n > 0 && (best < 0 || s.median > b.stats[best].median) {
			best = g
		}
	}
	desc := name + ", " + plural(total, "value", "values")
	if b.group != nil {
		desc += " in " + plural(len(b.names), "group", "groups") + ", highest median " + b.names[best] + " " + formatValue(b.stats[best].median, b.format)
	} else {
		s := b.stats[0]
		desc += ", median " + formatValue(s.median, b.format) + ", middle half " + formatValue(s.q1, b.format) + "–" + formatValue(s.q3, b.format)
	}
	outliers := 0
	for _, s := range b.stats {
		outliers += len(s.outliers)
	}
	if outliers > 0 {
		desc += ", " + plural(outliers, "outlier", "outliers")
	}
	return name, desc
}

func (b *boxplotChart) legend(c *canvas, area rect) rect {
	if !c.legendVisible(false) {
		return area
	}
	return c.placeLegend([]legendItem{{label: b.value.Name, color: b.colors[0]}}, area)
}

func (b *boxplotChart) draw(c *canvas, area rect) {
	st := c.style
	val := newValueAxis(c, st.YAxis, b.format)
	val.grid, val.baseline = true, false
	val.title = axisTitle(st.YAxisTitle, b.value.Name)
	val.unitFrom(b.value)
	for _, s := range b.stats {
		if s.n == 0 {
			continue
		}
		val.extend(s.whiskLo)
		val.extend(s.whiskHi)
		for _, o := range s.outliers {
			val.extend(o)
		}
	}
	cat := newBandAxis(b.names, 0.45, 0.25)
	if b.group != nil {
		cat.title = axisTitle(st.XAxisTitle, "")
	}
	bottom, left := cat, val
	if b.horizontal {
		bottom, left = val, cat
	}
	story := c.newStory(b.group, []*dataset.Column{b.value}, cat, val, b.format)
	story.extend()
	f := c.layoutFrame(area, bottom, left)
	story.drawRanges(f)
	c.drawGrid(f)
	story.drawLines()
	clip := val.clipped()
	c.beginClip(f.plot, clip)
	w := &c.w
	bw := math.Min(cat.bandWidth(), 80*c.k)
	for g, s := range b.stats {
		if s.n == 0 {
			continue
		}
		color := b.colors[g]
		mid := cat.center(g)
		if s.points != nil {
			b.drawPoints(c, val, f.plot, mid, b.names[g], s, color)
			continue
		}
		if c.wantMarks {
			b.markBox(c, val, g, mid, bw)
		}
		// seg draws a line across (a0..a1 at value v) or along (v0..v1 at a)
		line := func(a0, a1, v0, v1 float64) {
			w.s("M")
			if b.horizontal {
				w.pt(v0, a0)
				w.s("L")
				w.pt(v1, a1)
			} else {
				w.pt(a0, v0)
				w.s("L")
				w.pt(a1, v1)
			}
		}
		q1, q3, med := val.pos(s.q1), val.pos(s.q3), val.pos(s.median)
		lo, hi := val.pos(s.whiskLo), val.pos(s.whiskHi)
		// whiskers and caps
		w.s(`<path fill="none" stroke="`)
		w.s(color)
		w.s(`" stroke-width="`)
		w.f(1.25 * c.k)
		w.s(`" d="`)
		line(mid, mid, q1, lo)
		line(mid, mid, q3, hi)
		line(mid-bw/4, mid+bw/4, lo, lo)
		line(mid-bw/4, mid+bw/4, hi, hi)
		w.s(`"/>`)
		// box
		w.s(`<rect`)
		if b.horizontal {
			w.af("x", math.Min(q1, q3))
			w.af("y", mid-bw/2)
			w.af("width", math.Max(math.Abs(q3-q1), 1))
			w.af("height", bw)
		} else {
			w.af("x", mid-bw/2)
			w.af("y", math.Min(q1, q3))
			w.af("width", bw)
			w.af("height", math.Max(math.Abs(q3-q1), 1))
		}
		w.s(` fill="`)
		w.s(color)
		w.s(`" fill-opacity="0.22" stroke="`)
		w.s(color)
		w.s(`" stroke-width="`)
		w.f(1.5 * c.k)
		w.s(`"/>`)
		// median
		w.s(`<path fill="none" stroke="`)
		w.s(color)
		w.s(`" stroke-width="`)
		w.f(2.5 * c.k)
		w.s(`" d="`)
		line(mid-bw/2, mid+bw/2, med, med)
		w.s(`"/>`)
		if len(s.outliers) > 0 {
			w.s(`<g fill="`)
			w.s(c.background)
			w.s(`" stroke="`)
			w.s(color)
			w.s(`" stroke-width="1.25">`)
			for _, o := range s.outliers {
				w.s(`<circle`)
				if b.horizontal {
					w.af("cx", val.pos(o))
					w.af("cy", mid)
				} else {
					w.af("cx", mid)
					w.af("cy", val.pos(o))
				}
				w.af("r", 3*c.k)
				w.s(`/>`)
			}
			w.s(`</g>`)
		}
	}
	c.endClip(clip)
	if st.Labels.Show {
		fs := c.fsLabel
		w.s(`<g class="labels">`)
		medians := make([]float64, len(b.stats))
		for g, s := range b.stats {
			medians[g] = s.median
		}
		format := b.format.forLabels(medians)
		for g, s := range b.stats {
			if s.n == 0 || s.points != nil {
				continue
			}
			mid, med := cat.center(g), val.pos(s.median)
			txt := c.value(s.median, format)
			if b.horizontal {
				c.textBytes(med, mid-bw/2-4*c.k, txt, textStyle{size: fs, fill: c.inkLabel, anchor: "middle", bold: true})
			} else {
				c.textBytes(mid+bw/2+4*c.k, med+c.mid(fs), txt, textStyle{size: fs, fill: c.inkLabel, bold: true})
			}
		}
		w.s(`</g>`)
	}
	c.drawAxisLabels(f)
	story.drawNotes()
}

// markBox lists a group's box: its median, and the middle half the box
// spans, as the summary words them.
func (b *boxplotChart) markBox(c *canvas, val *axis, g int, mid, bw float64) {
	s := b.stats[g]
	lo, hi := math.Min(val.pos(s.q1), val.pos(s.q3)), math.Max(val.pos(s.q1), val.pos(s.q3))
	value := "median " + formatValue(s.median, b.format) + ", middle half " + formatValue(s.q1, b.format) + "–" + formatValue(s.q3, b.format)
	if b.horizontal {
		c.mark(lo, mid-bw/2, hi-lo, bw, b.names[g], b.value.Name, []byte(value))
		return
	}
	c.mark(mid-bw/2, lo, bw, hi-lo, b.names[g], b.value.Name, []byte(value))
}

// drawPoints draws a group of fewPoints values or fewer as its dots and
// "n = 3" beyond the highest (below the lowest when the plot ends there).
func (b *boxplotChart) drawPoints(c *canvas, val *axis, plot rect, mid float64, name string, s boxStats, color string) {
	w := &c.w
	r := 4 * c.k
	w.s(`<g fill="`)
	w.s(color)
	w.s(`" fill-opacity="0.85" stroke="`)
	w.s(c.background)
	w.s(`" stroke-width="1">`)
	for i, v := range s.points {
		// equal values sit side by side, so each dot stays visible
		off := 0.0
		for k := 0; k < i; k++ {
			if math.Abs(val.pos(s.points[k])-val.pos(v)) < r {
				off += 2 * r
			}
		}
		if c.wantMarks {
			x, y := mid+off, val.pos(v)
			if b.horizontal {
				x, y = val.pos(v), mid+off
			}
			c.mark(x-r, y-r, 2*r, 2*r, name, b.value.Name, c.value(v, b.format))
		}
		w.s(`<circle`)
		if b.horizontal {
			w.af("cx", val.pos(v))
			w.af("cy", mid+off)
		} else {
			w.af("cx", mid+off)
			w.af("cy", val.pos(v))
		}
		w.af("r", r)
		w.s(`/>`)
	}
	w.s(`</g>`)
	label := "n = " + strconv.Itoa(s.n)
	fs := c.fsTick
	hi, lo := val.pos(s.whiskHi), val.pos(s.whiskLo)
	if b.horizontal {
		if x := hi + r + 4*c.k; x+c.measure(label, fs, false) <= plot.right() {
			c.text(x, mid+c.mid(fs), label, textStyle{size: fs, fill: c.inkTick})
		} else {
			c.text(lo-r-4*c.k, mid+c.mid(fs), label, textStyle{size: fs, fill: c.inkTick, anchor: "end"})
		}
		return
	}
	if y := hi - r - 4*c.k; y-fs >= plot.y {
		c.text(mid, y, label, textStyle{size: fs, fill: c.inkTick, anchor: "middle"})
	} else {
		c.text(mid, lo+r+4*c.k+fs, label, textStyle{size: fs, fill: c.inkTick, anchor: "middle"})
	}
}
