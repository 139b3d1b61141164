package draw

import (
	"math"

	"chartd.dev/libs/dataset"
)

// maxBar caps a bar's thickness (at 800×600) so a few categories do not
// turn into slabs.
const maxBar = 120

// barChart draws bars per category: grouped side by side, stacked, or
// stacked to 100 %, vertical or horizontal.
type barChart struct {
	cat        *dataset.Column
	labels     []string
	series     []*dataset.Column
	colors     []string
	horizontal bool
	stack      string // none | stacked | percent
	format     numFormat
	n          int
	// dim marks the categories a highlight greys out (nil: none).
	dim []bool
}

func newBar(c *canvas, r roleColumns) *barChart {
	b := &barChart{cat: r.one("category"), series: r["values"], n: c.table.Rows}
	b.labels = columnLabels(b.cat)
	b.horizontal = optString(c.spec.Options, "orientation", "vertical", "vertical", "horizontal") == "horizontal"
	b.stack = optString(c.spec.Options, "stack", "none", "none", "stacked", "percent")
	if len(b.series) < 2 && b.stack != "percent" {
		b.stack = "none"
	}
	b.format = baseFormat(c.style, b.series)
	if ax := c.style.YAxis; ax != nil && ax.Log && b.stack != "percent" {
		c.addNote(logBarsNote)
	}
	c.colors.reserve(len(b.series))
	for i, s := range b.series {
		b.colors = append(b.colors, c.seriesColor(s.ID, i))
	}
	b.dim = c.dimmedCategories(b.labels)
	return b
}

// logBarsNote is said under bars drawn on a log scale, which only the
// person can ask for: their lengths no longer compare.
const logBarsNote = "Log scale: a bar twice as long is not twice as large."

func (b *barChart) empty() bool {
	return allBlank(b.series)
}

func (b *barChart) summary() (string, string) {
	kind := "Bar chart"
	switch {
	case b.stack == "stacked":
		kind = "Stacked bar chart"
	case b.stack == "percent":
		kind = "100% stacked bar chart"
	case b.horizontal:
		kind = "Horizontal bar chart"
	}
	name := kind + " of " + seriesNames(b.series) + " by " + b.cat.Name
	if b.empty() {
		return name, name + ", no values to show"
	}
	bi, bs, best := -1, 0, math.Inf(-1)
	li, ls, least := -1, 0, math.Inf(1)
	for si, s := range b.series {
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
	desc := name + ", "
	if len(b.series) == 1 {
		desc += plural(b.n, "bar", "bars")
	} else {
		desc += plural(b.n, "category", "categories") + " in " + itoa(len(b.series)) + " series"
	}
	who := func(i, s int) string {
		l := b.labels[i]
		if l == "" {
			l = "(blank)"
		}
		if len(b.series) > 1 {
			l += " (" + b.series[s].Name + ")"
		}
		return l
	}
	desc += ", largest " + who(bi, bs) + " " + formatValue(best, b.format)
	if least < 0 {
		desc += ", smallest " + who(li, ls) + " " + formatValue(least, b.format)
	}
	if b.netMarks() {
		desc += "; a dark line across a bar marks its net total where it holds both gains and losses"
	}
	return name, desc
}

// netMarks reports whether a stacked chart has a stack holding both signs,
// whose net total a dark line marks (and the legend names).
func (b *barChart) netMarks() bool {
	if b.stack != "stacked" {
		return false
	}
	for i := 0; i < b.n; i++ {
		pos, neg := false, false
		for _, s := range b.series {
			v := s.Num[i]
			pos = pos || v > 0 && !isBlank(v)
			neg = neg || v < 0
		}
		if pos && neg {
			return true
		}
	}
	return false
}

func (b *barChart) legend(c *canvas, area rect) rect {
	if !c.legendVisible(len(b.series) > 1) {
		return area
	}
	items := make([]legendItem, 0, len(b.series)+1)
	for i, s := range b.series {
		if c.hl.keepsSeries(s.ID) { // a highlight names only what it keeps
			items = append(items, legendItem{label: s.Name, color: b.colors[i]})
		}
	}
	if b.netMarks() {
		items = append(items, legendItem{label: "Net total", color: c.inkTitle, shape: shapeLine})
	}
	return c.placeLegend(items, area)
}

// stackShare is a category's total size for percent stacking (sum of |v|).
func (b *barChart) stackShare(i int) float64 {
	t := 0.0
	for _, s := range b.series {
		if v := s.Num[i]; !isBlank(v) {
			t += math.Abs(v)
		}
	}
	return t
}

// segment is the value drawn for series s at category i: the value, or
// its share in percent; blank is NaN.
func (b *barChart) segment(s *dataset.Column, i int) float64 {
	v := s.Num[i]
	if isBlank(v) || b.stack != "percent" {
		return v
	}
	t := b.stackShare(i)
	if t == 0 {
		return math.NaN()
	}
	return v / t * 100
}

func (b *barChart) draw(c *canvas, area rect) {
	st := c.style
	val := newValueAxis(c, st.YAxis, b.format)
	val.zero, val.grid, val.baseline = true, true, true
	val.title = axisTitle(st.YAxisTitle, "")
	if b.stack == "percent" {
		val.format = numFormat{decimals: -1, suffix: "%", scale: 1, plain: true}
	} else {
		val.unitFrom(b.series...)
	}
	for i := 0; i < b.n; i++ {
		if b.stack == "none" {
			for _, s := range b.series {
				val.extend(s.Num[i])
			}
			continue
		}
		pos, neg := 0.0, 0.0
		for _, s := range b.series {
			if v := b.segment(s, i); !isBlank(v) {
				if v >= 0 {
					pos += v
				} else {
					neg += v
				}
			}
		}
		val.extend(pos)
		val.extend(neg)
	}
	// highlighted bars are named by their values even with labels off
	labels := st.Labels.Show || c.hl.onCategories() || c.hl.onSeries()
	if labels && b.stack != "percent" {
		val.headroom = 0.1
	}
	pad := 0.3
	if len(b.series) > 1 && b.stack == "none" {
		pad = 0.2
	}
	cat := newBandAxis(b.labels, pad, pad/2).orderedBy(b.cat)
	cat.title = axisTitle(st.XAxisTitle, "")
	cat.noun = "bars"
	if len(b.series) > 1 {
		cat.noun = "categories"
	}
	bottom, left := cat, val
	if b.horizontal {
		bottom, left = val, cat
	}
	story := c.newStory(b.cat, b.series, cat, val, b.format)
	story.extend()
	f := c.layoutFrame(area, bottom, left)
	story.drawRanges(f)
	c.drawGrid(f)
	story.drawLines()
	clip := val.clipped()
	c.beginClip(f.plot, clip)
	if b.stack == "none" {
		b.drawGrouped(c, cat, val, labels)
	} else {
		b.drawStacked(c, cat, val, labels)
	}
	c.endClip(clip)
	c.drawBaselines(f)
	c.axisBreak(f, val, b.horizontal)
	c.drawAxisLabels(f)
	story.drawNotes()
}

// netMark draws the net total of a stack holding both signs: a dark line
// across the bar at the net value, a little wider than the bar.
func (b *barChart) netMark(c *canvas, across, width, at float64) {
	w := &c.w
	w.s(`<path stroke="`)
	w.s(c.inkTitle)
	w.s(`" stroke-width="`)
	w.f(2 * c.k)
	w.s(`" d="M`)
	if b.horizontal {
		w.pt(at, across-width/2-2*c.k)
		w.s("V")
		w.f(across + width/2 + 2*c.k)
	} else {
		w.pt(across-width/2-2*c.k, at)
		w.s("H")
		w.f(across + width/2 + 2*c.k)
	}
	w.s(`"/>`)
}

// rect draws one bar between two value positions across a category slot.
//
// Edges fall on whole pixels: across as snap says, and along for a bar a
// pixel long or more. The bars are sharp at scale 1, and Chromium fills
// such rectangles faster (docs/decisions/rendering.md, "Bars on whole
// pixels").
func (b *barChart) rect(c *canvas, cat *axis, i int, across, width, v0, v1 float64) (x, y, w, h float64) {
	lo, hi := math.Min(v0, v1), math.Max(v0, v1)
	across, width = snap(across, width, cat.whole())
	if hi-lo >= 1 {
		lo, hi = math.Round(lo), math.Round(hi)
	}
	x, y, w, h = across, lo, width, hi-lo
	if b.horizontal {
		x, y, w, h = lo, across, hi-lo, width
	}
	c.story.mark(box{x, y, x + w, y + h})
	c.w.s(`<rect`)
	if b.dimmed(i) {
		c.w.s(` fill="`)
		c.w.s(c.inkDim)
		c.w.s(`"`)
	}
	c.w.af("x", x)
	c.w.af("y", y)
	c.w.af("width", w)
	c.w.af("height", h)
	c.w.s(`/>`)
	return x, y, w, h
}

// minWholeBar is the least bar width drawn on whole pixels: narrower, a
// rounded pixel would change the width too much.
const minWholeBar = 4

// snap puts a bar or cell that starts at x and is w wide on whole pixels
// when its band axis has a whole step (on says so) and it is minWholeBar
// wide or more: the start rounded, the width rounded once, so marks of one
// width stay alike and as far apart. On a fractional step rounding would
// make the gaps between them differ by a pixel.
func snap(x, w float64, on bool) (float64, float64) {
	if !on || w < minWholeBar {
		return x, w
	}
	return math.Round(x), math.Round(w)
}

func (b *barChart) drawGrouped(c *canvas, cat, val *axis, labels bool) {
	m := len(b.series)
	bw := cat.bandWidth()
	gap := 0.0
	if m > 1 {
		gap = math.Min(2*c.k, bw/float64(m)*0.1)
	}
	sub := math.Min((bw-gap*float64(m-1))/float64(m), maxBar*c.k)
	if m > 1 && sub >= minWholeBar && cat.whole() {
		// whole-pixel bars and gaps, so every bar of a group is as wide
		// and as far from the next once rect rounds the edges
		gap = math.Max(math.Round(gap), 1)
		sub = math.Floor(math.Min((bw-gap*float64(m-1))/float64(m), maxBar*c.k))
	}
	inset := (bw - sub*float64(m) - gap*float64(m-1)) / 2 // centres capped bars in their slot
	base := val.pos(val.base())
	if c.story != nil {
		c.story.anchor = func(row, si int) (float64, float64, bool) {
			v := b.series[si].Num[row]
			if isBlank(v) {
				return 0, 0, false
			}
			across := cat.bandStart(row) + inset + float64(cat.within(si, m))*(sub+gap) + sub/2
			if b.horizontal {
				return val.pos(v), across, true
			}
			return across, val.pos(v), true
		}
	}
	for si, s := range b.series {
		c.w.s(`<g fill="`)
		c.w.s(b.colors[si])
		c.w.s(`">`)
		for i := 0; i < b.n; i++ {
			v := s.Num[i]
			if isBlank(v) {
				continue
			}
			x, y, w, h := b.rect(c, cat, i, cat.bandStart(i)+inset+float64(cat.within(si, m))*(sub+gap), sub, base, val.pos(v))
			if c.wantMarks {
				c.mark(x, y, w, h, b.labels[i], s.Name, c.value(v, b.format))
			}
		}
		c.w.s(`</g>`)
	}
	if !labels {
		return
	}
	// labels sit just past the bar's end, flat, each in its own unit; where
	// two would meet, the larger value keeps its label (never turned)
	format := b.format.forLabels(columnNums(b.series)...)
	fs := c.fsLabel
	pitch := sub + gap
	if b.horizontal && pitch < fs*1.05 {
		fs = math.Max(math.Floor(pitch/1.05*2)/2, minText)
	}
	st := textStyle{size: fs, fill: c.inkLabel}
	off := 4 * c.k
	capH := c.fonts.CapHeight(fs)
	type lbl struct {
		x, y   float64
		anchor string
		v      float64
	}
	all := make([]lbl, 0, b.n*m)
	vals := make([]float64, 0, b.n*m)
	for si, s := range b.series {
		for i := 0; i < b.n; i++ {
			v := s.Num[i]
			if isBlank(v) || b.unnamed(c, si, i) {
				continue
			}
			center := cat.bandStart(i) + inset + float64(cat.within(si, m))*(sub+gap) + sub/2
			end := val.pos(v)
			neg := v < val.base()
			l := lbl{v: v}
			switch {
			case b.horizontal:
				l.x, l.y = end+off, center+c.mid(fs)
				if neg {
					l.anchor, l.x = "end", end-off
				}
			default:
				l.anchor, l.x, l.y = "middle", center, end-off
				if neg {
					l.y = end + off + capH
				}
			}
			all = append(all, l)
			vals = append(vals, v)
		}
	}
	// inside the plot (value labels never reach the tick row), a little
	// beyond its ends along the value axis
	pl := newPlacer(box{cat.r0 - 4*c.k, val.r1 - capH, cat.r1 + 4*c.k, val.r0}, 2*c.k)
	if b.horizontal {
		pl.bounds = box{val.r0 - c.pad, cat.r0 - 0.5, c.width - c.pad*0.5, cat.r1 + 0.5}
		pl.pad = 0.5
	}
	keep := make([]bool, len(all))
	for _, j := range byMagnitude(vals) {
		l := all[j]
		w := c.measureBytes(c.value(l.v, format), fs, false)
		keep[j] = pl.place(boxAt(l.x, l.y, w, capH, l.anchor)) >= 0
	}
	for _, placed := range pl.placed {
		c.story.markText(placed)
	}
	c.w.s(`<g class="labels">`)
	for j, l := range all {
		if keep[j] {
			st.anchor = l.anchor
			c.textBytes(l.x, l.y, c.value(l.v, format), st)
		}
	}
	c.w.s(`</g>`)
	c.hiddenNotice(pl.hidden, len(all), "the larger values keep theirs")
}

func (b *barChart) drawStacked(c *canvas, cat, val *axis, labels bool) {
	bw := math.Min(cat.bandWidth(), maxBar*c.k)
	inset := (cat.bandWidth() - bw) / 2
	fs := c.fsLabel
	pos := make([]float64, b.n)
	neg := make([]float64, b.n)
	totals := make([]float64, b.n)
	for _, s := range b.series {
		for i := range totals {
			if v := s.Num[i]; !isBlank(v) {
				totals[i] += v
			}
		}
	}
	segFormat := b.format.forLabels(append(columnNums(b.series), totals)...)
	if b.stack == "percent" {
		segFormat = numFormat{decimals: 0, suffix: "%", scale: 1, plain: true}
	}
	type lbl struct {
		x, y float64
		v    float64
		dark bool
		i    int
	}
	var pending []lbl
	if c.story != nil {
		c.story.anchor = func(row, si int) (float64, float64, bool) {
			v := b.segment(b.series[si], row)
			if isBlank(v) || v == 0 {
				return 0, 0, false
			}
			end := 0.0
			for _, s := range b.series[:si+1] {
				if w := b.segment(s, row); !isBlank(w) && (w < 0) == (v < 0) {
					end += w
				}
			}
			across := cat.bandStart(row) + inset + bw/2
			if b.horizontal {
				return val.pos(end), across, true
			}
			return across, val.pos(end), true
		}
	}
	for si, s := range b.series {
		c.w.s(`<g fill="`)
		c.w.s(b.colors[si])
		c.w.s(`">`)
		dark := isDark(mustColor(b.colors[si]))
		for i := 0; i < b.n; i++ {
			v := b.segment(s, i)
			if isBlank(v) || v == 0 {
				continue
			}
			acc := &pos[i]
			if v < 0 {
				acc = &neg[i]
			}
			p0, p1 := val.pos(*acc), val.pos(*acc+v)
			*acc += v
			x, y, w, h := b.rect(c, cat, i, cat.bandStart(i)+inset, bw, p0, p1)
			if c.wantMarks {
				c.mark(x, y, w, h, b.labels[i], s.Name, c.value(s.Num[i], b.format))
			}
			if !labels || b.unnamed(c, si, i) {
				continue
			}
			txtW := c.measureBytes(c.value(v, segFormat), fs, false)
			length := math.Abs(p1 - p0)
			across := cat.bandStart(i) + inset + bw/2
			along := (p0 + p1) / 2
			fits := length >= fs*1.2 && bw >= txtW+4*c.k
			if b.horizontal {
				fits = length >= txtW+6*c.k && bw >= fs*1.1
			}
			if fits {
				x, y := across, along+c.mid(fs)
				if b.horizontal {
					x, y = along, across+c.mid(fs)
				}
				pending = append(pending, lbl{x, y, v, dark, i})
			}
		}
		c.w.s(`</g>`)
	}
	if !labels {
		return
	}
	// the net total of a stack holding both signs is marked where it lies;
	// a segment label under the mark gives way
	mixed := func(i int) bool { return b.stack == "stacked" && pos[i] != 0 && neg[i] != 0 }
	for i := 0; i < b.n; i++ {
		if mixed(i) {
			b.netMark(c, cat.bandStart(i)+inset+bw/2, bw, val.pos(pos[i]+neg[i]))
		}
	}
	c.w.s(`<g class="labels">`)
	for _, l := range pending {
		if mixed(l.i) {
			at, y := val.pos(pos[l.i]+neg[l.i]), l.y-c.mid(fs)
			if b.horizontal {
				y = l.x
			}
			if math.Abs(at-y) < c.measureBytes(c.value(l.v, segFormat), fs, false)/2+3*c.k && b.horizontal || !b.horizontal && y < at+fs*0.8 && y > at-fs*2.2 {
				continue
			}
		}
		fill := c.inkTitle
		if l.dark {
			fill = c.background
		}
		c.textBytes(l.x, l.y, c.value(l.v, segFormat), textStyle{size: fs, fill: fill, anchor: "middle"})
	}
	// totals beyond each stack (not for percent, where every total is 100 %):
	// beyond the positive end for a positive total, beyond the negative end
	// for a negative one; where a stack holds both signs, a dark mark
	// across the bar shows where the net total lies
	if b.stack == "stacked" {
		off := 4 * c.k
		totalFormat := segFormat
		capH := c.fonts.CapHeight(fs)
		for i := 0; i < b.n; i++ {
			t := pos[i] + neg[i]
			if pos[i] == 0 && neg[i] == 0 {
				continue
			}
			across := cat.bandStart(i) + inset + bw/2
			end, sign := val.pos(pos[i]), 1.0
			if t < 0 || pos[i] == 0 {
				end, sign = val.pos(neg[i]), -1
			}
			txt := c.value(t, totalFormat)
			st := textStyle{size: fs, fill: c.inkLabel, bold: true}
			if mixed(i) && !b.horizontal {
				// at its mark: beside it in the gap to the next bar, else
				// just above it on the bar, outlined to read on the colour
				if cat.step()-bw-6*c.k >= c.measureBytes(txt, fs, true) {
					c.textBytes(across+bw/2+3*c.k, val.pos(t)+c.mid(fs), txt, st)
				} else {
					st.anchor, st.halo, st.fill = "middle", true, c.inkTitle
					c.textBytes(across, val.pos(t)-4*c.k, txt, st)
				}
				continue
			}
			if b.horizontal {
				x := end + off
				if sign < 0 {
					st.anchor, x = "end", end-off
				}
				c.textBytes(x, across+c.mid(fs), txt, st)
			} else if c.measureBytes(txt, fs, true) <= cat.step()-2 {
				st.anchor = "middle"
				y := end - off
				if sign < 0 {
					y = end + off + capH
				}
				c.textBytes(across, y, txt, st)
			}
		}
	}
	c.w.s(`</g>`)
}

// dimmed reports a category bar the highlight greys out.
func (b *barChart) dimmed(i int) bool { return b.dim != nil && b.dim[i] }

// unnamed reports a bar a highlight leaves without its value label: one
// it greys out, by category or by series.
func (b *barChart) unnamed(c *canvas, si, i int) bool {
	return b.dimmed(i) || !c.hl.keepsSeries(b.series[si].ID)
}
