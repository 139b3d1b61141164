package draw

import (
	"math"
	"slices"
	"strconv"

	"chartd.dev/libs/chartspec"
)

// legendShape is the key drawn before a legend label.
type legendShape int

const (
	shapeSquare legendShape = iota
	shapeLine
	shapeCircle
)

// legendItem is one legend entry.
type legendItem struct {
	label string
	color string
	shape legendShape
}

// legendVisible applies style.legend.show: "on" and "off" decide, "auto"
// takes the chart's own rule (more than one series).
func (c *canvas) legendVisible(auto bool) bool {
	switch c.style.Legend.Show {
	case chartspec.On:
		return true
	case chartspec.Off:
		return false
	}
	return auto
}

// legendPlacement reads style.legend.position: y top|bottom gives a
// horizontal legend above or below the chart aligned by x; y middle gives a
// column at the left or right side.
func (c *canvas) legendPlacement() (x, y string) {
	x, y = c.style.Legend.Position.X, c.style.Legend.Position.Y
	switch x {
	case "left", "center", "right":
	default:
		x = "right"
	}
	switch y {
	case "top", "middle", "bottom":
	default:
		y = "top"
	}
	return x, y
}

// placeLegend draws the items where the style puts them and answers the
// area left for the chart.
func (c *canvas) placeLegend(items []legendItem, area rect) rect {
	if c.hl.onSeries() || c.hl.onCategories() {
		// a highlight's legend names only what keeps its colour
		items = slices.DeleteFunc(slices.Clone(items), func(it legendItem) bool { return it.color == c.inkDim })
	}
	if len(items) == 0 {
		return area
	}
	px, py := c.legendPlacement()
	if py == "middle" {
		return c.legendColumn(items, area, px)
	}
	return c.legendRows(items, area, px, py)
}

// legend metrics
func (c *canvas) swatchW(s legendShape) float64 {
	if s == shapeLine {
		return 18 * c.k
	}
	return 10 * c.k
}

// legendLineH is the distance between the lines of one wrapped legend label.
func (c *canvas) legendLineH() float64 { return c.fsLegend * 1.2 }

// legendRows flows the items into at most three rows; a long label wraps
// to two lines (see fitLines) and makes its row that much taller.
func (c *canvas) legendRows(items []legendItem, area rect, px, py string) rect {
	fs := c.fsLegend
	rowH := fs * 1.6
	gap, itemGap := 6*c.k, 18*c.k
	maxLabel := math.Min(180*c.k, area.w*0.45)
	maxRows := 3
	if area.h < 300*c.k {
		maxRows = 2
	}
	type placed struct {
		item  legendItem
		label []string
		w     float64
	}
	var rows [][]placed
	var rowW []float64
	cur, curW := []placed(nil), 0.0
	more := 0
	for i, it := range items {
		label := c.fitLines(it.label, fs, false, maxLabel, 2)
		w := c.swatchW(it.shape) + gap + c.linesWidth(label, fs, false)
		add := w
		if len(cur) > 0 {
			add += itemGap
		}
		if len(cur) > 0 && curW+add > area.w {
			if len(rows) == maxRows-1 {
				more = len(items) - i
				break
			}
			rows = append(rows, cur)
			rowW = append(rowW, curW)
			cur, curW, add = nil, 0, w
		}
		cur = append(cur, placed{it, label, w})
		curW += add
	}
	if more > 0 {
		// make room for "+N more" at the end of the last row
		moreText := "+" + strconv.Itoa(more) + " more"
		mw := c.measure(moreText, fs, false) + itemGap
		for len(cur) > 1 && curW+mw > area.w {
			curW -= cur[len(cur)-1].w + itemGap
			cur = cur[:len(cur)-1]
			more++
			moreText = "+" + strconv.Itoa(more) + " more"
			mw = c.measure(moreText, fs, false) + itemGap
		}
		cur = append(cur, placed{legendItem{label: moreText}, []string{moreText}, mw - itemGap})
		curW += mw
	}
	rows = append(rows, cur)
	rowW = append(rowW, curW)
	// a row is one line taller for each extra line of its tallest label
	rowHs := make([]float64, len(rows))
	height := 0.0
	for r, row := range rows {
		lines := 1
		for _, p := range row {
			lines = max(lines, len(p.label))
		}
		rowHs[r] = rowH + float64(lines-1)*c.legendLineH()
		height += rowHs[r]
	}
	y := area.y
	if py == "bottom" {
		y = area.bottom() - height
	}
	rtl := c.legendRTL(items)
	c.w.s(`<g class="legend">`)
	for r, row := range rows {
		x := area.x
		switch px {
		case "center":
			x = area.x + (area.w-rowW[r])/2
		case "right":
			x = area.right() - rowW[r]
		}
		cy := y + rowH/2 // the centre of the row's first line
		y += rowHs[r]
		if rtl {
			// right to left: the first item at the row's right end
			x += rowW[r] - row[0].w
		}
		for k, p := range row {
			if p.item.color == "" {
				c.text(x, cy+c.mid(fs), p.label[0], textStyle{size: fs, fill: c.inkSubtitle})
			} else {
				c.legendEntry(x, p.w, cy, p.item, p.label, rtl)
			}
			switch {
			case !rtl:
				x += p.w + itemGap
			case k+1 < len(row):
				x -= row[k+1].w + itemGap
			}
		}
	}
	c.w.s(`</g>`)
	space := height + 8*c.k
	if py == "bottom" {
		return rect{area.x, area.y, area.w, area.h - space}
	}
	return rect{area.x, area.y + space, area.w, area.h - space}
}

// legendColumn stacks the items at the left or right side; a long label
// wraps to three lines (see fitLines), fewer when the items would not
// fit the height so.
func (c *canvas) legendColumn(items []legendItem, area rect, px string) rect {
	fs := c.fsLegend
	rowH := fs * 1.7
	gap := 6 * c.k
	maxLabel := math.Min(area.w*0.25, 200*c.k)
	fit := max(1, int(area.h/rowH))
	n, more := len(items), 0
	if n > fit {
		n, more = fit-1, len(items)-(fit-1)
	}
	moreText := ""
	if more > 0 {
		moreText = "+" + strconv.Itoa(more) + " more"
	}
	var labels [][]string
	var colW, height float64
	for maxLines := 3; maxLines >= 1; maxLines-- {
		labels, colW, height = labels[:0], 0, 0
		for i := 0; i < n; i++ {
			ls := c.fitLines(items[i].label, fs, false, maxLabel, maxLines)
			labels = append(labels, ls)
			colW = math.Max(colW, c.swatchW(items[i].shape)+gap+c.linesWidth(ls, fs, false))
			height += rowH + float64(max(len(ls), 1)-1)*c.legendLineH()
		}
		if more > 0 {
			colW = math.Max(colW, c.measure(moreText, fs, false))
			height += rowH
		}
		if height <= area.h {
			break
		}
	}
	x := area.right() - colW
	if px == "left" {
		x = area.x
	}
	y := area.y + (area.h-height)/2
	rtl := c.legendRTL(items)
	c.w.s(`<g class="legend">`)
	for i := 0; i < n; i++ {
		c.legendEntry(x, colW, y+rowH/2, items[i], labels[i], rtl)
		y += rowH + float64(max(len(labels[i]), 1)-1)*c.legendLineH()
	}
	if more > 0 {
		st := textStyle{size: fs, fill: c.inkSubtitle}
		mx := x
		if rtl {
			mx, st.anchor = x+colW, "end"
		}
		c.text(mx, y+rowH/2+c.mid(fs), moreText, st)
	}
	c.w.s(`</g>`)
	space := colW + 20*c.k
	if px == "left" {
		return rect{area.x + space, area.y, area.w - space, area.h}
	}
	return rect{area.x, area.y, area.w - space, area.h}
}

// legendRTL reports a legend read right to left: most of its labels are
// (see isRTL), or none has letters and the chart's title is right to
// left. Its items run from the right, each key right of its label.
func (c *canvas) legendRTL(items []legendItem) bool {
	rtl, ltr := 0, 0
	for _, it := range items {
		switch r, strong := direction(it.label); {
		case r:
			rtl++
		case strong:
			ltr++
		}
	}
	if rtl+ltr == 0 {
		return shown(c.style.Title) && isRTL(c.style.Title.Text)
	}
	return rtl > ltr
}

// legendEntry draws one key and its label in the span x..x+width, the key
// and the label's first line centred on line cy, further lines below:
// the key at the left and the label after it, or with rtl the key at the
// right end and the label, right to left, before it.
func (c *canvas) legendEntry(x, width, cy float64, it legendItem, label []string, rtl bool) {
	w := &c.w
	sw := c.swatchW(it.shape)
	st := textStyle{size: c.fsLegend, fill: c.inkLabel}
	tx := x + sw + 6*c.k
	if rtl {
		x += width - sw
		tx, st.rtl = x-6*c.k, true
	}
	switch it.shape {
	case shapeLine:
		w.s(`<line`)
		w.af("x1", x)
		w.af("y1", cy)
		w.af("x2", x+sw)
		w.af("y2", cy)
		w.s(` stroke="`)
		w.s(it.color)
		w.s(`" stroke-width="`)
		w.f(2.5 * c.k)
		w.s(`" stroke-linecap="round"/>`)
	case shapeCircle:
		w.s(`<circle`)
		w.af("cx", x+sw/2)
		w.af("cy", cy)
		w.af("r", sw/2)
		w.s(` fill="`)
		w.s(it.color)
		w.s(`"/>`)
	default:
		w.s(`<rect`)
		w.af("x", x)
		w.af("y", cy-sw/2)
		w.af("width", sw)
		w.af("height", sw)
		w.s(` rx="2" fill="`)
		w.s(it.color)
		w.s(`"/>`)
	}
	if len(label) > 1 {
		c.textLines(tx, cy+c.mid(c.fsLegend), label, c.legendLineH(), st)
	} else if len(label) == 1 {
		c.text(tx, cy+c.mid(c.fsLegend), label[0], st)
	}
}
