package draw

import (
	"math"
	"slices"
	"strings"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// NoticeNoteCovers is the code of the notice saying a note found no free
// place and covers a mark or another text; the lint repeats it.
const NoticeNoteCovers = "note_covers"

// story draws a chart's notes, reference lines and ranges on the axes of
// the chart type that set it up: ranges behind the gridlines, lines above
// them and below the marks, and notes with the lines' and ranges' labels
// on top, placed clear of everything the chart registered (marks, value
// labels) and of each other. A nil story draws nothing, so chart types
// call it unconditionally.
type story struct {
	c                    *canvas
	notes, lines, ranges []chartspec.Annotation
	// xCol is the column "x" places are read against; values the drawn
	// value columns (a note's series, the mean and median).
	xCol   *dataset.Column
	values []*dataset.Column
	// xAx and yAx are the axes "x" and "y" places lie on; which of them
	// runs along the bottom is their own business (axis.across).
	xAx, yAx *axis
	format   numFormat
	f        *frame
	// taken indexes what notes must not cover.
	taken *boxGrid
	// anchor, when set by the chart, is the pixel point of row's value in
	// value column si (a bar of a group, a dot); ok false for a blank.
	anchor func(row, si int) (x, y float64, ok bool)
	// stats are the mean and median of the drawn values, found once.
	stats struct {
		done         bool
		mean, median float64
	}
}

// obstacle kinds, for the note-covers notice.
const (
	obstMark = iota
	obstText
	obstNote
)

// newStory sets up the annotations of the canvas's spec for a chart type
// that draws them, or answers nil when there are none to draw.
func (c *canvas) newStory(xCol *dataset.Column, values []*dataset.Column, xAx, yAx *axis, format numFormat) *story {
	as := c.spec.Annotations
	if len(as) == 0 {
		return nil
	}
	s := &story{c: c, xCol: xCol, values: values, xAx: xAx, yAx: yAx, format: format}
	for _, a := range as {
		if !slices.Contains(chartspec.AnnotationTypes(a.Type), c.spec.Type) {
			continue
		}
		switch a.Type {
		case chartspec.KindNote:
			if a.X != nil && a.Text != "" {
				s.notes = append(s.notes, a)
			}
		case chartspec.KindLine:
			if a.Value != nil {
				s.lines = append(s.lines, a)
			}
		case chartspec.KindRange:
			if a.From != nil && a.To != nil {
				s.ranges = append(s.ranges, a)
			}
		}
	}
	if len(s.notes)+len(s.lines)+len(s.ranges) == 0 {
		return nil
	}
	c.story = s
	return s
}

// axisOf is the axis a line or range measures along.
func (s *story) axisOf(a chartspec.Annotation) *axis {
	if a.Axis == "x" {
		return s.xAx
	}
	return s.yAx
}

// place reads a place on ax as a data value (a number, a date in ms, or
// for a band axis the category's index); ok false when the data has no
// such place.
func (s *story) place(ax *axis, v chartspec.Scalar) (float64, bool) {
	if v.IsText && (v.Text == chartspec.RefMean || v.Text == chartspec.RefMedian) {
		s.computeStats()
		if v.Text == chartspec.RefMean {
			return s.stats.mean, !math.IsNaN(s.stats.mean)
		}
		return s.stats.median, !math.IsNaN(s.stats.median)
	}
	if ax.kind == axisBand {
		i := s.bandIndex(ax, v)
		return float64(i), i >= 0
	}
	if ax == s.xAx && s.xCol != nil {
		return chartspec.AxisNumber(s.xCol, v)
	}
	return chartspec.AxisNumber(nil, v)
}

// bandIndex finds a category of a band axis by its label, else by the row
// of the x column holding it (a date written another way).
func (s *story) bandIndex(ax *axis, v chartspec.Scalar) int {
	want := strings.TrimSpace(v.String())
	for i, l := range ax.labels {
		if l == want {
			return i
		}
	}
	for i, l := range ax.labels {
		if strings.EqualFold(l, want) {
			return i
		}
	}
	if r := chartspec.MatchRow(s.xCol, v); r >= 0 && r < len(ax.labels) {
		return r
	}
	return -1
}

// computeStats finds the mean and median of the drawn values once.
func (s *story) computeStats() {
	if s.stats.done {
		return
	}
	s.stats.done = true
	var vals []float64
	for _, col := range s.values {
		for _, v := range col.Num {
			if !isBlank(v) {
				vals = append(vals, v)
			}
		}
	}
	s.stats.mean, s.stats.median = math.NaN(), math.NaN()
	if len(vals) == 0 {
		return
	}
	sum := 0.0
	for _, v := range vals {
		sum += v
	}
	s.stats.mean = sum / float64(len(vals))
	slices.Sort(vals)
	n := len(vals)
	s.stats.median = vals[n/2]
	if n%2 == 0 {
		s.stats.median = (vals[n/2-1] + vals[n/2]) / 2
	}
}

// extend grows the axes to show every line, range and note placed in
// data space, unless the person fixed the axis's range.
func (s *story) extend() {
	if s == nil {
		return
	}
	grow := func(ax *axis, v chartspec.Scalar) {
		if ax.kind == axisBand || ax.clipped() {
			return
		}
		if p, ok := s.place(ax, v); ok {
			ax.extend(p)
		}
	}
	for _, a := range s.lines {
		grow(s.axisOf(a), *a.Value)
	}
	for _, a := range s.ranges {
		grow(s.axisOf(a), *a.From)
		grow(s.axisOf(a), *a.To)
	}
	for _, a := range s.notes {
		if a.Y != nil {
			grow(s.yAx, chartspec.Scalar{Num: *a.Y})
		}
	}
}

// span is the pixel stretch [p0, p1] of a place on ax: a band's whole
// slot, or a point (p0 == p1) on a continuous axis.
func (s *story) span(ax *axis, v chartspec.Scalar) (p0, p1 float64, ok bool) {
	d, ok := s.place(ax, v)
	if !ok {
		return 0, 0, false
	}
	if ax.kind == axisBand {
		i := int(d)
		c := ax.center(i)
		half := math.Abs(ax.step()) / 2
		return c - half, c + half, true
	}
	p := ax.pos(d)
	return p, p, true
}

// bandRect is the plot's stretch between p0 and p1 along ax, clamped.
func (s *story) bandRect(ax *axis, p0, p1 float64) (rect, bool) {
	pl := s.f.plot
	lo, hi := math.Min(p0, p1), math.Max(p0, p1)
	if ax.across {
		lo, hi = math.Max(lo, pl.x), math.Min(hi, pl.right())
		return rect{lo, pl.y, hi - lo, pl.h}, hi > lo
	}
	lo, hi = math.Max(lo, pl.y), math.Min(hi, pl.bottom())
	return rect{pl.x, lo, pl.w, hi - lo}, hi > lo
}

// drawRanges draws the ranges' bands, behind the gridlines and marks;
// their labels are drawn on top by drawNotes.
func (s *story) drawRanges(f *frame) {
	if s == nil {
		return
	}
	s.f = f
	s.taken = newBoxGrid(box{f.plot.x, f.plot.y, f.plot.right(), f.plot.bottom()}, 40*s.c.k)
	if len(s.ranges) == 0 {
		return
	}
	w := &s.c.w
	w.s(`<g class="ranges" fill="` + s.c.inkMuted + `" fill-opacity="0.16">`)
	for _, a := range s.ranges {
		ax := s.axisOf(a)
		a0, a1, ok0 := s.span(ax, *a.From)
		b0, b1, ok1 := s.span(ax, *a.To)
		if !ok0 || !ok1 {
			continue
		}
		r, ok := s.bandRect(ax, math.Min(a0, b0), math.Max(a1, b1))
		if !ok {
			continue
		}
		w.s(`<rect`)
		w.af("x", r.x)
		w.af("y", r.y)
		w.af("width", r.w)
		w.af("height", r.h)
		w.s(`/>`)
	}
	w.s(`</g>`)
}

// drawLines draws the reference lines, above the gridlines and below the
// marks.
func (s *story) drawLines() {
	if s == nil || len(s.lines) == 0 {
		return
	}
	w := &s.c.w
	pl := s.f.plot
	w.s(`<path class="reference-lines" fill="none" stroke="` + s.c.inkLabel + `" stroke-width="`)
	w.f(1.25 * s.c.k)
	w.s(`" stroke-dasharray="`)
	w.f(5 * s.c.k)
	w.s(" ")
	w.f(3 * s.c.k)
	w.s(`" d="`)
	for _, a := range s.lines {
		ax := s.axisOf(a)
		p0, p1, ok := s.span(ax, *a.Value)
		p := (p0 + p1) / 2
		if !ok {
			continue
		}
		if ax.across {
			if p < pl.x-0.5 || p > pl.right()+0.5 {
				continue
			}
			w.s("M")
			w.pt(p, pl.y)
			w.s("V")
			w.f(pl.bottom())
		} else {
			if p < pl.y-0.5 || p > pl.bottom()+0.5 {
				continue
			}
			w.s("M")
			w.pt(pl.x, p)
			w.s("H")
			w.f(pl.right())
		}
	}
	w.s(`"/>`)
}

// mark registers a drawn mark notes must not cover.
func (s *story) mark(b box) {
	if s == nil || s.taken == nil {
		return
	}
	s.taken.add(b, obstMark)
}

// markText registers a drawn text (a value label) notes must not cover.
func (s *story) markText(b box) {
	if s == nil || s.taken == nil {
		return
	}
	s.taken.add(b, obstText)
}

// markPath registers a drawn line's points; notes keep off its segments.
func (s *story) markPath(pts []point, width float64) {
	if s == nil || s.taken == nil {
		return
	}
	for i := 1; i < len(pts); i++ {
		s.taken.addSeg(segment{pts[i-1], pts[i]}, width/2)
	}
	if len(pts) == 1 {
		s.taken.add(box{pts[0].x - width, pts[0].y - width, pts[0].x + width, pts[0].y + width}, obstMark)
	}
}

// labelText is the drawn label of a line: its label, and for the mean or
// median the computed value in the chart's number format ("Mean 88.8").
func (s *story) labelText(a chartspec.Annotation) string {
	v := *a.Value
	if v.IsText && (v.Text == chartspec.RefMean || v.Text == chartspec.RefMedian) {
		d, ok := s.place(s.axisOf(a), v)
		if !ok {
			return a.Label
		}
		name := a.Label
		if name == "" {
			name = strings.ToUpper(v.Text[:1]) + v.Text[1:]
		}
		return name + " " + string(s.c.value(d, statFormat(s.format, d)))
	}
	return a.Label
}

// statFormat is the chart's number format for a computed mean or median:
// with automatic decimals it keeps three significant digits (Mean 74.1,
// not 74.08; Mean 1,235; Mean 0.0123), as a desk rounds a statistic.
func statFormat(f numFormat, v float64) numFormat {
	if f.decimals >= 0 || v == 0 || isBlank(v) {
		return f
	}
	most := max(0, min(6, 2-int(math.Floor(math.Log10(math.Abs(v))))))
	want := math.Round(v*math.Pow10(most)) / math.Pow10(most)
	f.decimals = most
	for d := 0; d < most; d++ {
		if math.Round(v*math.Pow10(d))/math.Pow10(d) == want {
			f.decimals = d // no trailing zeros: 2.5, not 2.50
			break
		}
	}
	return f
}

// drawNotes draws, on top of the chart, the labels of the lines and
// ranges and then each note at the first free place near its point.
func (s *story) drawNotes() {
	if s == nil || s.f == nil {
		return
	}
	c := s.c
	pl := s.f.plot
	fs := c.fsLabel
	capH := c.fonts.CapHeight(fs)
	gap := 4 * c.k
	w := &c.w
	w.s(`<g class="annotations">`)
	lbl := textStyle{size: fs, fill: c.inkLabel, halo: true}
	for _, a := range s.ranges {
		if a.Label == "" {
			continue
		}
		ax := s.axisOf(a)
		a0, a1, ok0 := s.span(ax, *a.From)
		b0, b1, ok1 := s.span(ax, *a.To)
		r, ok := s.bandRect(ax, math.Min(a0, b0), math.Max(a1, b1))
		if !ok0 || !ok1 || !ok {
			continue
		}
		// at the band's top: its top left corner, inside
		x, y := r.x+gap, r.y+capH+gap
		st := lbl
		if c.rtl {
			x, st.anchor = r.right()-gap, "end"
		}
		s.drawLabel(x, y, a.Label, st)
	}
	for _, a := range s.lines {
		text := s.labelText(a)
		if text == "" {
			continue
		}
		ax := s.axisOf(a)
		p0, p1, ok := s.span(ax, *a.Value)
		if !ok {
			continue
		}
		p := (p0 + p1) / 2
		st := lbl
		if ax.across {
			// beside the line near the plot's top, right of it, else left
			// of it, else a row lower: clear of marks and other labels
			wd := c.measure(text, fs, false)
			at, anchor := p+gap, ""
			found := false
			for k := 0; k < 12 && !found; k++ {
				row, overMarks := k%6, k >= 6 // clear of marks first, else only of text
				y := pl.y + capH + gap + float64(row)*(capH+2*gap)
				for _, side := range [...]float64{1, -1} {
					x, an := p+gap, ""
					if side < 0 {
						x, an = p-gap, "end"
					}
					b := boxAt(x, y, wd, capH, an)
					if inBox(b, box{pl.x, pl.y, pl.right(), pl.bottom()}) && s.taken.hit(b, 2*c.k, overMarks) < 0 {
						at, anchor, found = x, an, true
						st.anchor = an
						s.drawLabel(x, y, text, st)
						break
					}
				}
			}
			if !found {
				if at+wd > pl.right() {
					at, anchor = p-gap, "end"
				}
				st.anchor = anchor
				s.drawLabel(at, pl.y+capH+gap, text, st)
			}
			continue
		}
		// above the line at the plot's right end (left in right to left),
		// else below it, else at the other end: where no mark is
		wd := c.measure(text, fs, false)
		right, left := pl.right()-gap, pl.x+gap
		if c.rtl {
			right, left = left+wd, right-wd
		}
		type spot struct{ x, y float64 }
		spots := []spot{{right, p - gap}, {right, p + gap + capH}, {left + wd, p - gap}, {left + wd, p + gap + capH}}
		at := spots[0]
	search:
		for _, overMarks := range [...]bool{false, true} {
			for _, sp := range spots {
				b := boxAt(sp.x, sp.y, wd, capH, "end")
				if inBox(b, box{pl.x, pl.y, pl.right(), pl.bottom()}) && s.taken.hit(b, 2*c.k, overMarks) < 0 {
					at = sp
					break search
				}
			}
		}
		st.anchor = "end"
		s.drawLabel(at.x, at.y, text, st)
	}
	var covers []string
	for _, a := range s.notes {
		if what := s.drawNote(a); what != "" {
			covers = append(covers, "“"+a.Text+"” covers "+what)
		}
	}
	w.s(`</g>`)
	if len(covers) > 0 {
		c.notice(NoticeNoteCovers, "no free place for a note: "+strings.Join(covers, "; "))
	}
}

// drawLabel draws a line's or range's label and registers it as text.
func (s *story) drawLabel(x, y float64, text string, st textStyle) {
	c := s.c
	wd := c.measure(text, st.size, false)
	s.taken.add(boxAt(x, y, wd, c.fonts.CapHeight(st.size), st.anchor), obstText)
	c.text(x, y, text, st)
	if st.halo {
		st.halo = false
		c.text(x, y, text, st)
	}
}

// notePoint is the pixel point a note names, its value, and whether it
// stands above its neighbours (a peak: the note goes above) or below (a
// trough).
func (s *story) notePoint(a chartspec.Annotation) (px, py, value float64, up bool, ok bool) {
	xp, xok := s.place(s.xAx, *a.X)
	if !xok {
		return 0, 0, 0, false, false
	}
	along := s.xAx.pos(xp)
	if s.xAx.kind == axisBand {
		along = s.xAx.center(int(xp))
	}
	var across float64
	up = true
	switch {
	case a.Y != nil:
		across, value = s.yAx.pos(*a.Y), *a.Y
	default:
		si := 0
		for i, col := range s.values {
			if col.ID == a.Series {
				si = i
			}
		}
		if len(s.values) == 0 {
			return 0, 0, 0, false, false
		}
		row := int(xp)
		if s.xAx.kind != axisBand || s.xCol == nil || len(s.xAx.labels) != s.c.table.Rows {
			row = chartspec.MatchRow(s.xCol, *a.X)
		}
		col := s.values[si]
		if row < 0 || row >= len(col.Num) || isBlank(col.Num[row]) {
			return 0, 0, 0, false, false
		}
		value = col.Num[row]
		if s.anchor != nil {
			if x, y, ok := s.anchor(row, si); ok {
				return x, y, value, s.peak(col, row), true
			}
		}
		across = s.yAx.pos(value)
		up = s.peak(col, row)
	}
	if s.xAx.across {
		return along, across, value, up, true
	}
	return across, along, value, up, true
}

// peak reports whether the value at row stands at least as high as its
// neighbours' mean (a note goes above it) rather than in a trough; a
// negative bar counts as a trough.
func (s *story) peak(col *dataset.Column, row int) bool {
	v := col.Num[row]
	var sum float64
	n := 0
	for _, j := range []int{row - 1, row + 1} {
		if j >= 0 && j < len(col.Num) && !isBlank(col.Num[j]) {
			sum += col.Num[j]
			n++
		}
	}
	switch {
	case s.c.spec.Type == "scatter":
		return true // neighbours in row order mean nothing on a scatter
	case s.c.spec.Type == "bar" || n == 0:
		return v >= 0
	}
	return v >= sum/float64(n)
}

// valueToken in a note's text stands for its point's value, written in
// the chart's number format ("Peak: {value}" → "Peak: $1.2M").
const valueToken = "{value}"

// noteCand is one place a note may take; near is beside its point (no
// connector needed).
type noteCand struct {
	b    box
	near bool
}

// beyondLabel moves a note's point past a value label drawn at it (a
// highlight's direct label, setLabels): the note stands on the label as
// on its mark, instead of a connector striking the label through. The
// label is looked for on the side the note goes first.
func (s *story) beyondLabel(px, py float64, up bool, position string) (float64, float64) {
	d := 8 * s.c.k
	side := "above"
	switch {
	case position != "" && position != "auto":
		side = position
	case !s.xAx.across && up:
		side = "right"
	case !s.xAx.across:
		side = "left"
	case !up:
		side = "below"
	}
	var probe box
	switch side {
	case "above":
		probe = box{px - 0.5, py - d, px + 0.5, py}
	case "below":
		probe = box{px - 0.5, py, px + 0.5, py + d}
	case "right":
		probe = box{px, py - 0.5, px + d, py + 0.5}
	default:
		probe = box{px - d, py - 0.5, px, py + 0.5}
	}
	id := s.taken.find(probe, 0, true)
	if id < 0 || s.taken.kinds[id] != obstText {
		return px, py
	}
	lb := s.taken.boxes[id]
	switch side {
	case "above":
		return px, lb.y0
	case "below":
		return px, lb.y1
	case "right":
		return lb.x1, py
	}
	return lb.x0, py
}

// drawNote places and draws one note; it answers what the note covers
// when no free place was found ("" when it found one).
func (s *story) drawNote(a chartspec.Annotation) string {
	c := s.c
	px, py, value, up, ok := s.notePoint(a)
	if !ok {
		return ""
	}
	px, py = s.beyondLabel(px, py, up, a.Position)
	text := a.Text
	if strings.Contains(text, valueToken) {
		// the note quotes its point's value, in the chart's number format
		text = strings.ReplaceAll(text, valueToken, string(c.value(value, s.format)))
	}
	pl := s.f.plot
	fs := c.fsTick
	lineH := fs * 1.2
	capH := c.fonts.CapHeight(fs)
	maxW := math.Min(120*c.k, math.Max(pl.w/3, 60*c.k))
	lines := c.wrap(text, fs, false, maxW, 4)
	wd := 0.0
	for _, l := range lines {
		wd = math.Max(wd, c.measure(l, fs, false))
	}
	ht := capH + lineH*float64(len(lines)-1)
	d := 8 * c.k
	// candidates: the preferred side first, near then farther out (with a
	// connector), then the others
	sides := []string{"above", "below", "right", "left"}
	if !up {
		sides = []string{"below", "above", "right", "left"}
	}
	if !s.xAx.across { // values run along the bottom: beyond the value first
		sides = []string{"right", "left", "above", "below"}
		if !up {
			sides = []string{"left", "right", "above", "below"}
		}
	}
	if a.Position != "" && a.Position != "auto" {
		sides = []string{a.Position}
	}
	bounds := box{pl.x, pl.y, pl.right(), pl.bottom()}
	pad := 3 * c.k
	// the note's own point stays visible: nothing sits on it
	dot := box{px - 2*c.k, py - 2*c.k, px + 2*c.k, py + 2*c.k}
	var chosen, fallback noteCand
	found, haveFallback := false, false
	// try offers one place; it answers true once a free one is taken
	try := func(b box, near bool) bool {
		b = clampInto(b, bounds)
		if !inBox(b, bounds) {
			return false
		}
		if !haveFallback {
			fallback, haveFallback = noteCand{b, near}, true
		}
		if b.overlaps(dot, pad) || s.taken.hit(b, pad) >= 0 {
			return false
		}
		chosen, found = noteCand{b, near}, true
		return true
	}
	// rings are how far from its point a note may sit, in steps of 14 px
	// beyond the near place: near first, then farther out with a
	// connector; places are tried as they are made, so a note with room
	// beside its point costs one test
search:
	for _, ring := range [...]float64{0, 1, 2.5, 4.5, 7, 10, 14, 19} {
		off := d + ring*14*c.k
		for _, side := range sides {
			var b box
			switch side {
			case "above":
				b = box{px - wd/2, py - off - ht, px + wd/2, py - off}
			case "below":
				b = box{px - wd/2, py + off, px + wd/2, py + off + ht}
			case "right":
				b = box{px + off, py - ht/2, px + off + wd, py + ht/2}
			case "left":
				b = box{px - off - wd, py - ht/2, px - off, py + ht/2}
			}
			if try(b, ring == 0) {
				break search
			}
			if side == "above" || side == "below" {
				// starting or ending at the point, for a crowded column
				for _, dx := range [...]float64{wd/2 - d, -wd/2 + d} {
					if try(box{b.x0 + dx, b.y0, b.x1 + dx, b.y1}, false) {
						break search
					}
				}
			}
		}
	}
	covers := ""
	if !found {
		// no free place: the nearest place inside the plot, and say what it covers
		chosen = fallback
		if !haveFallback {
			chosen = noteCand{clampInto(box{px - wd/2, py - d - ht, px + wd/2, py - d}, bounds), true}
		}
		switch s.taken.hit(chosen.b, pad) {
		case obstNote:
			covers = "another note"
		case obstText:
			covers = "a label"
		default:
			covers = "a mark"
		}
	}
	b := chosen.b
	s.taken.add(b, obstNote)
	arrow := !chosen.near
	if a.Arrow != nil {
		arrow = *a.Arrow
	}
	w := &c.w
	if arrow {
		// a short connector from the box's nearest edge to the point
		ex := math.Max(b.x0, math.Min(px, b.x1))
		ey := math.Max(b.y0-2*c.k, math.Min(py, b.y1+2*c.k))
		if py > b.y1 {
			ey = b.y1 + 3*c.k
		} else if py < b.y0 {
			ey = b.y0 - capH*0.2 - 3*c.k
		}
		dx, dy := px-ex, py-ey
		if l := math.Hypot(dx, dy); l > 3*c.k {
			tx, ty := px-dx/l*3*c.k, py-dy/l*3*c.k
			w.s(`<path fill="none" stroke="` + c.inkLabel + `" stroke-width="1" d="M`)
			w.pt(ex, ey)
			w.s("L")
			w.pt(tx, ty)
			w.s(`"/><circle fill="` + c.inkLabel + `"`)
			w.af("cx", px)
			w.af("cy", py)
			w.af("r", 1.75*c.k)
			w.s(`/>`)
		}
	}
	st := textStyle{size: fs, fill: c.inkTitle, halo: true, anchor: "middle"}
	x := (b.x0 + b.x1) / 2
	switch {
	case b.x1 <= px-d/2:
		x, st.anchor = b.x1, "end"
	case b.x0 >= px+d/2:
		x, st.anchor = b.x0, ""
	}
	for i, l := range lines {
		y := b.y0 + capH + lineH*float64(i)
		c.text(x, y, l, st)
	}
	st.halo = false
	for i, l := range lines {
		c.text(x, b.y0+capH+lineH*float64(i), l, st)
	}
	return covers
}

// clampInto slides b sideways into bounds when it sticks out at one end
// (a note at the plot's edge), keeping its height.
func clampInto(b, bounds box) box {
	if d := bounds.x0 - b.x0; d > 0 {
		b.x0, b.x1 = b.x0+d, b.x1+d
	}
	if d := b.x1 - bounds.x1; d > 0 {
		b.x0, b.x1 = b.x0-d, b.x1-d
	}
	return b
}

// inBox reports whether b lies within bounds.
func inBox(b, bounds box) bool {
	return b.x0 >= bounds.x0-0.5 && b.x1 <= bounds.x1+0.5 && b.y0 >= bounds.y0-0.5 && b.y1 <= bounds.y1+0.5
}

// boxGrid is a uniform grid over the plot that indexes boxes and line
// segments by the cells they touch, so testing a note's place costs the
// few things near it, not everything drawn: placing n notes among m
// marks is O(n + m), never O(n·m).
type boxGrid struct {
	origin     box
	cell       float64
	cols, rows int
	// head is each cell's first link (-1: none); links chain a cell's
	// entries, all in one slice, so indexing allocates rarely.
	head  []int32
	links []gridLink
	boxes []box
	kinds []int8
	segs  []segment
	// segOf maps an entry to its segment (index+1), 0 for a plain box.
	segOf []int32
	// seen and epoch visit an entry once per query though it sits in
	// several cells.
	seen  []uint32
	epoch uint32
	// checks counts the entries hit has tested, which tests hold linear
	// in the notes and marks.
	checks int
}

// gridLink is one entry of a cell's chain.
type gridLink struct{ id, next int32 }

// newBoxGrid covers bounds with square cells of the given side.
func newBoxGrid(bounds box, cell float64) *boxGrid {
	cell = math.Max(cell, 8)
	cols := max(1, int(math.Ceil((bounds.x1-bounds.x0)/cell)))
	rows := max(1, int(math.Ceil((bounds.y1-bounds.y0)/cell)))
	g := &boxGrid{origin: bounds, cell: cell, cols: cols, rows: rows, head: make([]int32, cols*rows),
		links: make([]gridLink, 0, 256), boxes: make([]box, 0, 64), kinds: make([]int8, 0, 64), segOf: make([]int32, 0, 64), seen: make([]uint32, 0, 64)}
	for i := range g.head {
		g.head[i] = -1
	}
	return g
}

// cellRange is the cells b touches, clamped to the grid.
func (g *boxGrid) cellRange(b box) (c0, r0, c1, r1 int) {
	clampI := func(v, hi int) int { return max(0, min(v, hi)) }
	c0 = clampI(int(math.Floor((b.x0-g.origin.x0)/g.cell)), g.cols-1)
	c1 = clampI(int(math.Floor((b.x1-g.origin.x0)/g.cell)), g.cols-1)
	r0 = clampI(int(math.Floor((b.y0-g.origin.y0)/g.cell)), g.rows-1)
	r1 = clampI(int(math.Floor((b.y1-g.origin.y0)/g.cell)), g.rows-1)
	return
}

// add indexes a box of a kind (obstMark, obstText, obstNote).
func (g *boxGrid) add(b box, kind int) {
	g.insert(b, kind, 0)
}

// addSeg indexes a line segment stroked half wide on each side.
func (g *boxGrid) addSeg(sg segment, half float64) {
	b := box{math.Min(sg.a.x, sg.b.x) - half, math.Min(sg.a.y, sg.b.y) - half, math.Max(sg.a.x, sg.b.x) + half, math.Max(sg.a.y, sg.b.y) + half}
	g.segs = append(g.segs, sg)
	g.insert(b, obstMark, int32(len(g.segs)))
}

func (g *boxGrid) insert(b box, kind int, seg int32) {
	id := int32(len(g.boxes))
	g.boxes = append(g.boxes, b)
	g.kinds = append(g.kinds, int8(kind))
	g.segOf = append(g.segOf, seg)
	g.seen = append(g.seen, 0)
	c0, r0, c1, r1 := g.cellRange(b)
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			k := r*g.cols + c
			g.links = append(g.links, gridLink{id, g.head[k]})
			g.head[k] = int32(len(g.links) - 1)
		}
	}
}

// hit answers the kind of something indexed that comes closer to b than
// pad (a segment: that passes through b grown by pad), or -1 when b is
// free; with textOnly, marks do not count.
func (g *boxGrid) hit(b box, pad float64, textOnly ...bool) int {
	if id := g.find(b, pad, len(textOnly) > 0 && textOnly[0]); id >= 0 {
		return int(g.kinds[id])
	}
	return -1
}

// find is hit's search: the first entry closer to b than pad (marks left
// out with skipMarks), or -1.
func (g *boxGrid) find(b box, pad float64, skipMarks bool) int {
	g.epoch++
	grown := box{b.x0 - pad, b.y0 - pad, b.x1 + pad, b.y1 + pad}
	c0, r0, c1, r1 := g.cellRange(grown)
	for r := r0; r <= r1; r++ {
		for c := c0; c <= c1; c++ {
			for l := g.head[r*g.cols+c]; l >= 0; l = g.links[l].next {
				id := g.links[l].id
				if g.seen[id] == g.epoch || skipMarks && g.kinds[id] == obstMark {
					continue
				}
				g.seen[id] = g.epoch
				g.checks++
				if !g.boxes[id].overlaps(b, pad) {
					continue
				}
				if s := g.segOf[id]; s > 0 && !g.segs[s-1].crosses(grown) {
					continue
				}
				return int(id)
			}
		}
	}
	return -1
}
