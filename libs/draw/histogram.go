package draw

import (
	"math"
	"slices"

	"chartd.dev/libs/dataset"
)

// histogramChart counts one number column's values into bins.
type histogramChart struct {
	value  *dataset.Column
	sorted []float64
	edges  []float64
	counts []int
	rule   binRule
	format numFormat
	color  string
}

func newHistogram(c *canvas, r roleColumns) *histogramChart {
	h := &histogramChart{value: r.one("value")}
	rows := make([]int, c.table.Rows)
	for i := range rows {
		rows[i] = i
	}
	h.sorted = finite(h.value.Num, rows)
	h.format = baseFormat(c.style, []*dataset.Column{h.value})
	if autoAxis(c.style.XAxis) {
		// a few values far out would squeeze the rest into a bin or two:
		// they are counted in a note instead
		all := h.sorted
		if lo, hi, off := offScale(slices.Values(all), len(all)); off > 0 {
			a, _ := slices.BinarySearch(all, lo)
			b, _ := slices.BinarySearch(all, math.Nextafter(hi, math.Inf(1)))
			h.sorted = all[a:b]
			note := offScaleNote(slices.Values(all), axisFit{lo: lo, hi: hi, off: off}, h.format)
			c.addNote(note)
			c.notice(NoticeOffScale, note)
		}
	}
	h.color = c.colors.of(h.value.ID, 0)
	if len(h.sorted) > 0 {
		asked := int(optNumber(c.spec.Options, "bins", 0, 0, 100))
		count := asked
		if count == 1 {
			count = 2 // one bin shows no spread; the notice says so
		}
		h.edges, h.rule = histogramBins(h.sorted, count)
		h.counts = binCounts(h.sorted, h.edges)
		if drawn := len(h.counts); asked > 0 && drawn != asked {
			c.notice(NoticeBins, h.binsSaid(asked))
		}
	}
	return h
}

// NoticeBins is the code of the notice saying a histogram draws another
// number of bins than was asked, which ones and why.
const NoticeBins = "histogram_bins_changed"

// binsSaid says which bins are drawn instead of the asked number, and why.
func (h *histogramChart) binsSaid(asked int) string {
	drawn := len(h.counts)
	width := h.edges[1] - h.edges[0]
	why := "no round bin width gives " + itoa(asked)
	switch {
	case h.rule == ruleOne:
		why = "all values are equal"
	case asked == 1:
		why = "one bin would show no spread"
	case wholeNumbers(h.sorted) && width == 1:
		why = "whole numbers are not split into parts"
	}
	return plural(asked, "bin was", "bins were") + " asked; " + plural(drawn, "is", "are") + " drawn, " +
		formatValue(width, h.format) + " wide from " + formatValue(h.edges[0], h.format) + " to " +
		formatValue(h.edges[drawn], h.format) + ", since " + why
}

func (h *histogramChart) empty() bool { return len(h.sorted) == 0 }

func (h *histogramChart) summary() (string, string) {
	name := "Histogram of " + h.value.Name
	if h.empty() {
		return name, name + ", no values to show"
	}
	most := 0
	for i, n := range h.counts {
		if n > h.counts[most] {
			most = i
		}
	}
	desc := name + ", " + plural(len(h.sorted), "value", "values") + " in " + plural(len(h.counts), "bin", "bins") +
		" (" + string(h.rule) + ") from " + formatValue(h.edges[0], h.format) + " to " + formatValue(h.edges[len(h.edges)-1], h.format) +
		", most in " + formatValue(h.edges[most], h.format) + "–" + formatValue(h.edges[most+1], h.format) +
		" (" + plural(h.counts[most], "value", "values") + ")"
	return name, desc
}

func (h *histogramChart) legend(c *canvas, area rect) rect {
	if !c.legendVisible(false) {
		return area
	}
	return c.placeLegend([]legendItem{{label: h.value.Name, color: h.color}}, area)
}

func (h *histogramChart) draw(c *canvas, area rect) {
	st := c.style
	x := newValueAxis(c, st.XAxis, h.format)
	x.exact = true
	x.integer = x.integer || wholeNumbers(h.sorted) // bins centred on whole numbers: ticks on them
	if h.rule == ruleSet {
		x.edgeStep = h.edges[1] - h.edges[0] // the bins asked, ticked at their edges
	}
	lo, hi := h.edges[0], h.edges[len(h.edges)-1]
	if h.rule == ruleOne {
		// one distinct value: its bin is one of seven slots, not a slab
		// from wall to wall
		w := hi - lo
		lo, hi = clampFinite(lo-3*w), clampFinite(hi+3*w)
	}
	x.extend(lo)
	x.extend(hi)
	x.title = axisTitle(st.XAxisTitle, h.value.Name)
	x.unitFrom(h.value)
	x.log = false // bins are linear
	y := newValueAxis(c, st.YAxis, numFormat{decimals: -1, scale: 1})
	y.log = false
	y.zero, y.grid, y.baseline, y.integer = true, true, true, true
	y.title = axisTitle(st.YAxisTitle, "Count")
	most := 0
	for _, n := range h.counts {
		y.extend(float64(n))
		most = max(most, n)
	}
	switch {
	case st.Labels.Show && most < 10:
		// room for the count labels as one more whole count, with its
		// tick, rather than a fraction the axis rounds up to an unticked band
		y.extend(float64(most + 1))
	case st.Labels.Show:
		y.headroom = 0.08
	}
	story := c.newStory(h.value, []*dataset.Column{h.value}, x, y, h.format)
	story.extend()
	f := c.layoutFrame(area, x, y)
	story.drawRanges(f)
	c.drawGrid(f)
	clip := x.clipped() || y.clipped()
	c.beginClip(f.plot, clip)
	w := &c.w
	w.s(`<g fill="`)
	w.s(h.color)
	w.s(`">`)
	gap := math.Min(1, (x.pos(h.edges[1])-x.pos(h.edges[0]))*0.1)
	base := y.pos(0)
	for i, n := range h.counts {
		if n == 0 {
			continue
		}
		x0, x1 := x.pos(h.edges[i])+gap/2, x.pos(h.edges[i+1])-gap/2
		top := y.pos(float64(n))
		c.story.mark(box{x0, top, x1, base})
		if c.wantMarks {
			bin := formatValue(h.edges[i], h.format) + "–" + formatValue(h.edges[i+1], h.format)
			c.mark(x0, top, x1-x0, base-top, bin, h.value.Name, c.value(float64(n), numFormat{decimals: -1, scale: 1}))
		}
		w.s(`<rect`)
		w.af("x", x0)
		w.af("y", top)
		w.af("width", math.Max(x1-x0, 0.5))
		w.af("height", base-top)
		w.s(`/>`)
	}
	w.s(`</g>`)
	c.endClip(clip)
	// bins touch, so a line under them would be hidden: here lines are
	// drawn over the marks
	story.drawLines()
	c.drawBaselines(f)
	if st.Labels.Show {
		fs := c.fsLabel
		count := numFormat{decimals: -1, scale: 1}
		w.s(`<g class="labels">`)
		for i, n := range h.counts {
			if n == 0 {
				continue
			}
			x0, x1 := x.pos(h.edges[i]), x.pos(h.edges[i+1])
			txt := c.value(float64(n), count)
			if c.measureBytes(txt, fs, false) > x1-x0 {
				continue
			}
			c.textBytes((x0+x1)/2, y.pos(float64(n))-4*c.k, txt, textStyle{size: fs, fill: c.inkLabel, anchor: "middle"})
		}
		w.s(`</g>`)
	}
	c.drawAxisLabels(f)
	story.drawNotes()
}
