package draw

import (
	"cmp"
	"math"
	"slices"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// denseScatter is the number of points in one group above which the group
// is drawn as a single path of round dots, far cheaper to write and to
// rasterize than one circle element per point.
const denseScatter = 400

// denseChunk is how many dots one path of a dense scatter holds.
const denseChunk = 64

// scatterChart draws points by x and y, optionally sized by a number
// column (area proportional to value) and coloured by a group column.
type scatterChart struct {
	x, y, size, group *dataset.Column
	// groups are the group names in the order chartspec.GroupOrder gives
	// (natural for "4, 6, 8 cylinders", the user's after a sort step);
	// rows[g] lists the drawable rows of group g.
	groups    []string
	rows      [][]int
	colors    []string
	pointSize float64
	opacity   float64
	n         int
	// maxSize is the largest size value; key is the strip the bubble
	// size key is drawn in (zero when there is none).
	maxSize float64
	key     rect
	// xFit and yFit say how automatic number axes hold outliers and
	// data over many orders of magnitude (fitAxis).
	xFit, yFit axisFit
}

func newScatter(c *canvas, r roleColumns) *scatterChart {
	s := &scatterChart{x: r.one("x"), y: r.one("y"), size: r.one("size"), group: r.one("group")}
	s.pointSize = optNumber(c.spec.Options, "pointSize", 4, 1, 20)
	s.opacity = optNumber(c.spec.Options, "opacity", 0.8, 0.05, 1)
	var label func(int) string
	if s.group != nil {
		text := columnLabels(s.group)
		label = func(i int) string { return text[i] }
	}
	s.groups, s.rows = chartspec.ScatterGroups(c.spec, s.x, s.y, s.size, s.group, c.table.Rows, label)
	for _, rows := range s.rows {
		s.n += len(rows)
		for _, i := range rows {
			if s.size != nil {
				s.maxSize = math.Max(s.maxSize, math.Abs(s.size.Num[i]))
			}
		}
	}
	s.fitAxes(c)
	c.colors.reserve(len(s.groups))
	for g, name := range s.groups {
		key := name
		if s.group == nil {
			key = s.y.ID
		}
		color := c.categoryColor(key, g)
		if s.group == nil {
			color = c.seriesColor(key, g)
		}
		s.colors = append(s.colors, color)
	}
	return s
}

func (s *scatterChart) empty() bool { return s.n == 0 }

// fitAxes chooses how the automatic number axes hold their data: values
// far off the scale are left out and said in a note, data spanning more
// than three orders of magnitude gets a logarithmic axis.
func (s *scatterChart) fitAxes(c *canvas) {
	for _, ax := range []struct {
		col *dataset.Column
		st  *chartspec.Axis
		fit *axisFit
	}{{s.x, c.style.XAxis, &s.xFit}, {s.y, c.style.YAxis, &s.yFit}} {
		if ax.col.Kind != dataset.Number || !autoAxis(ax.st) {
			ax.fit.lo, ax.fit.hi = math.Inf(-1), math.Inf(1)
			continue
		}
		col := ax.col.Num
		vals := func(yield func(float64) bool) {
			for _, rows := range s.rows {
				for _, i := range rows {
					if v := col[i]; !isBlank(v) && !yield(v) {
						return
					}
				}
			}
		}
		*ax.fit = fitAxis(vals, s.n)
		if ax.fit.off > 0 {
			note := offScaleNote(vals, *ax.fit, baseFormat(c.style, []*dataset.Column{ax.col}))
			c.addNote(ax.col.Name + ": " + note)
			c.notice(NoticeOffScale, ax.col.Name+": "+note)
		}
		if ax.fit.log {
			c.notice(NoticeLogScale, ax.col.Name+" spans "+itoa(int(math.Log10(ax.fit.hi/ax.fit.lo)))+" orders of magnitude, so its axis is logarithmic; setAxis with scale \"linear\" draws it linear")
		}
		if ax.fit.off == 0 {
			ax.fit.lo, ax.fit.hi = math.Inf(-1), math.Inf(1)
		}
	}
}

func (s *scatterChart) summary() (string, string) {
	name := "Scatter plot of " + s.y.Name + " against " + s.x.Name
	if s.empty() {
		return name, name + ", no points to show"
	}
	desc := name + ", " + plural(s.n, "point", "points")
	if s.group != nil {
		desc += " in " + plural(len(s.groups), "group", "groups") + " by " + s.group.Name
	}
	if s.size != nil {
		desc += ", sized by " + s.size.Name
	}
	if r, ok := s.correlation(); ok {
		desc += ", correlation " + formatValue(math.Round(r*100)/100, numFormat{decimals: 2, scale: 1})
	}
	return name, desc
}

// correlation is Pearson's r over all drawn points.
func (s *scatterChart) correlation() (float64, bool) {
	var n, sx, sy, sxx, syy, sxy float64
	for _, rows := range s.rows {
		for _, i := range rows {
			x, y := s.x.Num[i], s.y.Num[i]
			n++
			sx += x
			sy += y
			sxx += x * x
			syy += y * y
			sxy += x * y
		}
	}
	if n < 3 {
		return 0, false
	}
	den := math.Sqrt(n*sxx-sx*sx) * math.Sqrt(n*syy-sy*sy)
	if den == 0 || math.IsNaN(den) {
		return 0, false
	}
	return (n*sxy - sx*sy) / den, true
}

func (s *scatterChart) legend(c *canvas, area rect) rect {
	if s.group != nil && c.legendVisible(len(s.groups) > 1) {
		items := make([]legendItem, len(s.groups))
		for g, name := range s.groups {
			items[g] = legendItem{label: name, color: s.colors[g], shape: shapeCircle}
		}
		area = c.placeLegend(items, area)
	}
	if s.size == nil || s.maxSize <= 0 || s.n == 0 {
		return area
	}
	// a bubble chart's key: the size column's name and three bubbles,
	// along the top right, as tall as the largest bubble can be
	h := 2*s.pointSize*4*c.k + 8*c.k
	if area.h < 4*h {
		return area
	}
	s.key = rect{area.x, area.y, area.w, h}
	return rect{area.x, area.y + h + 6*c.k, area.w, area.h - h - 6*c.k}
}

// sizeKeyValues are the values the size key shows: a round value near the
// largest size and two smaller ones, each a quarter of the area before.
func sizeKeyValues(maxSize float64) []float64 {
	top := niceStep(maxSize)
	if top > maxSize {
		top = niceStepUp(maxSize / 2)
	}
	out := []float64{top}
	for v := top; len(out) < 3; {
		v = niceStep(v / 4)
		out = append(out, v)
	}
	slices.Reverse(out)
	return out
}

// drawSizeKey draws the bubble key in s.key with the radii of the plot.
func (s *scatterChart) drawSizeKey(c *canvas, plot rect) {
	if s.key.h == 0 {
		return
	}
	rMax := math.Min(s.pointSize*4*c.k, math.Min(plot.w, plot.h)*0.08)
	vals := sizeKeyValues(s.maxSize)
	format := baseFormat(c.style, []*dataset.Column{s.size}).forLabels(vals)
	fs := c.fsLegend
	gap := 6 * c.k
	name := s.size.Name
	width := c.measure(name, fs, true) + 2*gap
	radii := make([]float64, len(vals))
	labels := make([][]byte, len(vals))
	for k, v := range vals {
		radii[k] = math.Max(1.5*c.k, rMax*math.Sqrt(v/s.maxSize))
		labels[k] = append([]byte(nil), c.value(v, format)...)
		width += 2*radii[k] + 4*c.k + c.measureBytes(labels[k], fs, false) + 2*gap
	}
	x := s.key.right() - width
	cy := s.key.y + s.key.h/2
	c.text(x, cy+c.mid(fs), name, textStyle{size: fs, fill: c.inkLabel, bold: true})
	x += c.measure(name, fs, true) + 2*gap
	w := &c.w
	for k := range vals {
		w.s(`<circle fill="none" stroke="`)
		w.s(c.inkAxis)
		w.s(`" stroke-width="1"`)
		w.af("cx", x+radii[k])
		w.af("cy", cy)
		w.af("r", radii[k])
		w.s(`/>`)
		x += 2*radii[k] + 4*c.k
		c.textBytes(x, cy+c.mid(fs), labels[k], textStyle{size: fs, fill: c.inkLabel})
		x += c.measureBytes(labels[k], fs, false) + 2*gap
	}
}

func (s *scatterChart) draw(c *canvas, area rect) {
	st := c.style
	var x *axis
	if s.x.Kind == dataset.Date {
		// years (Year,Temp) run along a date axis, as on a line chart
		x = &axis{kind: axisTime, lo: math.Inf(1), hi: math.Inf(-1), minStep: unitStep(s.x.DateUnit)}
		if st.XAxis != nil {
			x.userMin, x.userMax = st.XAxis.Min, st.XAxis.Max
		}
	} else {
		x = newValueAxis(c, st.XAxis, baseFormat(c.style, []*dataset.Column{s.x}))
		x.margin = 0.03
	}
	y := newValueAxis(c, st.YAxis, baseFormat(c.style, []*dataset.Column{s.y}))
	x.grid, y.grid = true, true
	y.margin = 0.03
	x.title = axisTitle(st.XAxisTitle, s.x.Name)
	y.title = axisTitle(st.YAxisTitle, s.y.Name)
	// a scale the drawing chose says so where the reader looks
	if s.xFit.log && st.XAxisTitle == nil {
		x.title += " (log scale)"
	}
	if s.yFit.log && st.YAxisTitle == nil {
		y.title += " (log scale)"
	}
	if x.kind == axisValue {
		x.unitFrom(s.x)
	}
	y.unitFrom(s.y)
	maxSize := 0.0
	x.log = x.log || s.xFit.log
	y.log = y.log || s.yFit.log
	for _, rows := range s.rows {
		for _, i := range rows {
			if xv := s.x.Num[i]; xv >= s.xFit.lo && xv <= s.xFit.hi {
				x.extend(xv)
			}
			if yv := s.y.Num[i]; yv >= s.yFit.lo && yv <= s.yFit.hi {
				y.extend(yv)
			}
			if s.size != nil {
				maxSize = math.Max(maxSize, math.Abs(s.size.Num[i]))
			}
		}
	}
	if x.kind == axisTime && x.hi > x.lo {
		// points keep off the plot's edges, as on a value axis
		d := (x.hi - x.lo) * 0.03
		x.lo, x.hi = x.lo-d, x.hi+d
	}
	story := c.newStory(s.x, []*dataset.Column{s.y}, x, y, baseFormat(c.style, []*dataset.Column{s.y}))
	story.extend()
	f := c.layoutFrame(area, x, y)
	story.drawRanges(f)
	c.drawGrid(f)
	story.drawLines()
	clip := x.clipped() || y.clipped() || s.xFit.off > 0 || s.yFit.off > 0
	c.beginClip(f.plot, clip)
	r := s.pointSize * c.k
	w := &c.w
	for g, rows := range s.rows {
		color := s.colors[g]
		switch {
		case s.size != nil:
			s.drawBubbles(c, x, y, rows, color, s.bubbleRadius(c, f.plot, maxSize))
		case len(rows) > denseScatter:
			// paths of zero-length round-capped segments, a dot per point; a
			// path paints its overlaps once, so points go in chunks whose
			// overlaps still build up density
			w.s(`<g fill="none" stroke="`)
			w.s(color)
			w.s(`" stroke-opacity="`)
			w.f(s.opacity)
			w.s(`" stroke-width="`)
			w.f(2 * r)
			w.s(`" stroke-linecap="round">`)
			for k, i := range rows {
				if k%denseChunk == 0 {
					if k > 0 {
						w.s(`"/>`)
					}
					w.s(`<path d="`)
				}
				if x.log && s.x.Num[i] <= 0 || y.log && s.y.Num[i] <= 0 {
					continue
				}
				w.b = append(w.b, 'M')
				w.b = appendCoord1(w.b, x.pos(s.x.Num[i]))
				w.b = append(w.b, ' ')
				w.b = appendCoord1(w.b, y.pos(s.y.Num[i]))
				w.b = append(w.b, 'h', '0')
				if c.wantMarks {
					s.mark(c, x, y, g, i, 0)
				}
			}
			w.s(`"/></g>`)
		default:
			w.s(`<g fill="`)
			w.s(color)
			w.s(`" fill-opacity="`)
			w.f(s.opacity)
			w.s(`">`)
			for _, i := range rows {
				if x.log && s.x.Num[i] <= 0 || y.log && s.y.Num[i] <= 0 {
					continue
				}
				cx, cy := x.pos(s.x.Num[i]), y.pos(s.y.Num[i])
				c.story.mark(box{cx - r, cy - r, cx + r, cy + r})
				w.s(`<circle`)
				w.af("cx", cx)
				w.af("cy", cy)
				w.af("r", r)
				w.s(`/>`)
				if c.wantMarks {
					s.mark(c, x, y, g, i, r)
				}
			}
			w.s(`</g>`)
		}
	}
	c.endClip(clip)
	s.drawSizeKey(c, f.plot)
	if st.Labels.Show && s.n <= maxNamedPoints {
		radius := func(int) float64 { return r }
		if s.size != nil {
			radius = s.bubbleRadius(c, f.plot, maxSize)
		}
		s.drawLabels(c, x, y, f.plot, radius)
	}
	c.drawAxisLabels(f)
	story.drawNotes()
}

// bubbleRadius is the radius of each row's bubble: area in proportion to
// the size value, the largest rMax.
func (s *scatterChart) bubbleRadius(c *canvas, plot rect, maxSize float64) func(i int) float64 {
	rMax := math.Min(s.pointSize*4*c.k, math.Min(plot.w, plot.h)*0.08)
	return func(i int) float64 {
		r := 1.5 * c.k
		if maxSize > 0 {
			r = math.Max(r, rMax*math.Sqrt(math.Abs(s.size.Num[i])/maxSize))
		}
		return r
	}
}

// drawBubbles draws sized points, largest first so small ones stay visible.
func (s *scatterChart) drawBubbles(c *canvas, x, y *axis, rows []int, color string, radius func(int) float64) {
	order := slices.Clone(rows)
	slices.SortStableFunc(order, func(a, b int) int {
		va, vb := math.Abs(s.size.Num[a]), math.Abs(s.size.Num[b])
		switch {
		case va > vb:
			return -1
		case va < vb:
			return 1
		}
		return 0
	})
	w := &c.w
	w.s(`<g fill="`)
	w.s(color)
	w.s(`" fill-opacity="`)
	w.f(s.opacity)
	w.s(`" stroke="`)
	w.s(c.background)
	w.s(`" stroke-width="0.75">`)
	for _, i := range order {
		if x.log && s.x.Num[i] <= 0 || y.log && s.y.Num[i] <= 0 {
			continue
		}
		r := radius(i)
		w.s(`<circle`)
		w.af("cx", x.pos(s.x.Num[i]))
		w.af("cy", y.pos(s.y.Num[i]))
		w.af("r", r)
		w.s(`/>`)
	}
	w.s(`</g>`)
}

// drawLabels names the points beside them (small plots only): by the
// table's name column (its first text column that is not the group), or,
// with none, by the y value. The outermost points, the ones a reader looks
// for, are placed first, each right, left, above or below its point, clear
// of every point and every other label; what finds no room is left out and
// counted in a notice.
func (s *scatterChart) drawLabels(c *canvas, x, y *axis, plot rect, radius func(int) float64) {
	fs := c.fsLabel
	names := s.nameColumn(c)
	format := baseFormat(c.style, []*dataset.Column{s.y}).forLabels(s.y.Num)
	capH := c.fonts.CapHeight(fs)
	type point struct {
		i         int
		px, py, r float64
		outerness float64
	}
	var pts []point
	cx, cy := plot.x+plot.w/2, plot.y+plot.h/2
	pl := newPlacer(box{plot.x, plot.y, plot.right(), plot.bottom()}, 1.5*c.k)
	for _, rows := range s.rows {
		for _, i := range rows {
			if x.log && s.x.Num[i] <= 0 || y.log && s.y.Num[i] <= 0 {
				continue
			}
			p := point{i: i, px: x.pos(s.x.Num[i]), py: y.pos(s.y.Num[i]), r: radius(i)}
			p.outerness = math.Hypot((p.px-cx)/math.Max(plot.w, 1), (p.py-cy)/math.Max(plot.h, 1))
			pts = append(pts, p)
			pl.block(box{p.px - p.r, p.py - p.r, p.px + p.r, p.py + p.r})
		}
	}
	slices.SortStableFunc(pts, func(a, b point) int { return cmp.Compare(b.outerness, a.outerness) })
	c.w.s(`<g class="labels">`)
	for _, p := range pts {
		var txt []byte
		if names != nil {
			if names[p.i] == "" {
				continue
			}
			txt = append(c.scratch[:0], names[p.i]...)
		} else {
			txt = c.value(s.y.Num[p.i], format)
		}
		w := c.measureBytes(txt, fs, false)
		off := p.r + 3*c.k
		base := p.py + c.mid(fs)
		cands := [...]struct {
			x, y   float64
			anchor string
		}{
			{p.px + off, base, ""},
			{p.px - off, base, "end"},
			{p.px, p.py - off, "middle"},
			{p.px, p.py + off + capH, "middle"},
		}
		var boxes [len(cands)]box
		for k, cd := range cands {
			boxes[k] = boxAt(cd.x, cd.y, w, capH, cd.anchor)
		}
		k := pl.place(boxes[:]...)
		if k < 0 {
			continue
		}
		c.textBytes(cands[k].x, cands[k].y, txt, textStyle{size: fs, fill: c.inkLabel, anchor: cands[k].anchor})
	}
	c.w.s(`</g>`)
	if pl.hidden > 0 {
		c.notice(NoticeLabelsHidden, itoa(pl.hidden)+" of "+itoa(len(pts))+" point labels are left out where they would overlap points or other labels; the outermost points keep theirs")
	}
}

// nameColumn is the text of the column that names the rows: the table's
// first text column that no role of the chart uses (a scatter of countries
// names its points by country), or nil when there is none.
// mark records point i of group g, drawn with radius r: named by its
// name column (or its x), its group and its y.
func (s *scatterChart) mark(c *canvas, x, y *axis, g, i int, r float64) {
	px, py := x.pos(s.x.Num[i]), y.pos(s.y.Num[i])
	name := formatValue(s.x.Num[i], x.format)
	if names := s.nameColumn(c); names != nil {
		name = names[i]
	}
	group := ""
	if s.group != nil {
		group = s.groups[g]
	}
	c.mark(px-r, py-r, 2*r, 2*r, name, group, c.value(s.y.Num[i], y.format))
}

func (s *scatterChart) nameColumn(c *canvas) []string {
	if col := scatterNames(c.table, s.group); col != nil {
		return col.Text
	}
	return nil
}

// scatterNames is the column whose text names a scatter's points: the
// first text column that is not the group, or nil.
func scatterNames(t *dataset.Table, group *dataset.Column) *dataset.Column {
	for _, col := range t.Columns {
		if col.Kind == dataset.Text && col != group {
			return col
		}
	}
	return nil
}
