package draw

import (
	"math"

	"chartd.dev/libs/dataset"
)

// heatmapChart colours a grid of x × y cells by value. Rows falling in the
// same cell are averaged; cells without a value stay empty.
type heatmapChart struct {
	x, y, val *dataset.Column
	xs, ys    []string
	cells     []float64 // len(xs)*len(ys), row-major by y
	scale     colorScale
	diverging bool
	format    numFormat
	lo, hi    float64
	filled    int
	// wholeX and wholeY say the cells' steps are whole pixels, so the
	// cells are drawn on pixel edges (snap).
	wholeX, wholeY bool
}

func newHeatmap(c *canvas, r roleColumns) *heatmapChart {
	h := &heatmapChart{x: r.one("x"), y: r.one("y"), val: r.one("value")}
	h.format = baseFormat(c.style, []*dataset.Column{h.val})
	n := c.table.Rows
	var xRows, yRows [][]int
	h.xs, xRows = groupRows(h.x, n)
	h.ys, yRows = groupRows(h.y, n)
	xi, yi := make([]int, n), make([]int, n)
	for g, rows := range xRows {
		for _, i := range rows {
			xi[i] = g
		}
	}
	for g, rows := range yRows {
		for _, i := range rows {
			yi[i] = g
		}
	}
	h.cells = make([]float64, len(h.xs)*len(h.ys))
	counts := make([]int, len(h.cells))
	for i := 0; i < n; i++ {
		v := h.val.Num[i]
		if isBlank(v) {
			continue
		}
		k := yi[i]*len(h.xs) + xi[i]
		h.cells[k] += v
		counts[k]++
	}
	h.lo, h.hi = math.Inf(1), math.Inf(-1)
	for k := range h.cells {
		if counts[k] == 0 {
			h.cells[k] = math.NaN()
			continue
		}
		h.cells[k] /= float64(counts[k])
		h.lo, h.hi = math.Min(h.lo, h.cells[k]), math.Max(h.hi, h.cells[k])
		h.filled++
	}
	if h.filled > 0 {
		h.lo, h.hi = widen(h.lo, h.hi) // one distinct value sits mid-scale
	}
	h.diverging = optString(c.spec.Options, "colorScale", "sequential", "sequential", "diverging") == "diverging"
	pal := c.colors.palette
	high := c.colors.of(h.val.ID, 0)
	_, pinned := c.colors.pinned[h.val.ID]
	if stops, ok := divergingPalette(pal); h.diverging && ok && !pinned {
		// a diverging preset: its two ends and its light middle, not its
		// first two colours (two reds for red-blue)
		h.scale = newDivergingPalette(stops, h.lo, h.hi)
	} else if h.diverging {
		low := pal[1%len(pal)]
		if low == high {
			low = pal[0]
		}
		h.scale = newDiverging(low, high, h.lo, h.hi)
	} else {
		h.scale = newSequential(high, h.lo, h.hi)
	}
	return h
}

func (h *heatmapChart) empty() bool { return h.filled == 0 }

// blanks reports cells without a value, drawn hatched and named in the legend.
func (h *heatmapChart) blanks() bool { return h.filled < len(h.cells) }

// Blank heatmap cells: a light grey hatch, unlike any colour of a scale
// (whose light end is near-white), named in the legend.
const (
	blankFill   = "#F1F3F5"
	blankStroke = "#B8C0C8"
	blankLabel  = "No data"
)

// hatchDefs defines the hatch pattern of blank cells.
func (h *heatmapChart) hatchDefs(c *canvas) {
	if !h.blanks() {
		return
	}
	size := math.Round(6*c.k*2) / 2
	w := &c.w
	w.s(`<defs><pattern id="`)
	w.s(c.id)
	w.s(`blank" patternUnits="userSpaceOnUse"`)
	w.af("width", size)
	w.af("height", size)
	w.s(` patternTransform="rotate(45)"><rect`)
	w.af("width", size)
	w.af("height", size)
	w.s(` fill="` + blankFill + `"/><line x1="0" y1="0" x2="0"`)
	w.af("y2", size)
	w.s(` stroke="` + blankStroke + `" stroke-width="`)
	w.f(math.Max(1, 1.5*c.k))
	w.s(`"/></pattern></defs>`)
}

// blankRect draws one hatched rectangle.
func (h *heatmapChart) blankRect(c *canvas, x, y, wd, ht float64) {
	x, wd = snap(x, wd, h.wholeX)
	y, ht = snap(y, ht, h.wholeY)
	w := &c.w
	w.s(`<rect`)
	w.af("x", x)
	w.af("y", y)
	w.af("width", wd)
	w.af("height", ht)
	w.s(` fill="url(#`)
	w.s(c.id)
	w.s(`blank)"/>`)
}

// blankKey draws the legend's hatched swatch and its label at x, centred
// on cy, and answers its width.
func (h *heatmapChart) blankKey(c *canvas, x, cy float64) float64 {
	fs := c.fsLabel
	sw := 10 * c.k
	h.blankRect(c, x, cy-sw/2, sw*1.6, sw)
	c.text(x+sw*1.6+5*c.k, cy+c.mid(fs), blankLabel, textStyle{size: fs, fill: inkSubtitle})
	return h.blankKeyWidth(c)
}

// blankKeyWidth is the width of the legend's "No data" key.
func (h *heatmapChart) blankKeyWidth(c *canvas) float64 {
	return 10*c.k*1.6 + 5*c.k + c.measure(blankLabel, c.fsLabel, false)
}

func (h *heatmapChart) summary() (string, string) {
	name := "Heatmap of " + h.val.Name + " by " + h.x.Name + " and " + h.y.Name
	if h.empty() {
		return name, name + ", no values to show"
	}
	best, least := -1, -1
	for k, v := range h.cells {
		if isBlank(v) {
			continue
		}
		if best < 0 || v > h.cells[best] {
			best = k
		}
		if least < 0 || v < h.cells[least] {
			least = k
		}
	}
	cell := func(k int) string { return h.xs[k%len(h.xs)] + " × " + h.ys[k/len(h.xs)] }
	return name, name + ", " + itoa(len(h.xs)) + " × " + itoa(len(h.ys)) + " cells, highest " + cell(best) + " " +
		formatValue(h.cells[best], h.format) + ", lowest " + cell(least) + " " + formatValue(h.cells[least], h.format)
}

// legend draws the colour scale as a gradient bar with ticks.
func (h *heatmapChart) legend(c *canvas, area rect) rect {
	if !c.legendVisible(true) {
		return area
	}
	px, py := c.legendPlacement()
	lo, hi := h.lo, h.hi
	if h.diverging {
		lo, hi = h.scale.lo, h.scale.hi
	}
	ticks, step := fixedTicks(lo, hi, 4)
	tf := newTickFormat(h.format, ticks, step)
	fs := c.fsLabel
	thick := 10 * c.k
	title := c.fonts.Truncate(h.val.Name, fs, false, math.Max(area.w*0.3, 60*c.k))
	w := &c.w
	gid := c.id + "scale"
	vertical := py == "middle"
	w.s(`<defs><linearGradient id="`)
	w.s(gid)
	if vertical {
		w.s(`" x1="0" y1="1" x2="0" y2="0">`)
	} else {
		w.s(`" x1="0" y1="0" x2="1" y2="0">`)
	}
	for i := 0; i <= 10; i++ {
		t := float64(i) / 10
		w.s(`<stop offset="`)
		w.f(t)
		w.s(`" stop-color="`)
		w.b = appendHex(w.b, h.scale.at(lo+(hi-lo)*t))
		w.s(`"/>`)
	}
	w.s(`</linearGradient></defs>`)
	h.hatchDefs(c)
	w.s(`<g class="legend">`)
	defer w.s(`</g>`)
	titleH := fs * 1.5
	if vertical {
		length := math.Min(area.h*0.6, 220*c.k)
		labelW := 0.0
		for _, t := range ticks {
			c.scratch = tf.appendTick(c.scratch[:0], t)
			labelW = math.Max(labelW, c.measureBytes(c.scratch, fs, false))
		}
		width := math.Max(thick+6*c.k+labelW, c.measure(title, fs, false))
		keyH := 0.0
		if h.blanks() {
			width = math.Max(width, h.blankKeyWidth(c))
			keyH = fs * 2.2
		}
		x := area.right() - width
		if px == "left" {
			x = area.x
		}
		y := area.y + (area.h-length-titleH-keyH)/2 + titleH
		if h.blanks() {
			h.blankKey(c, x, y+length+fs*1.5)
		}
		c.text(x, y-fs*0.6, title, textStyle{size: fs, fill: inkSubtitle})
		h.bar(c, x, y, thick, length, gid)
		for _, t := range ticks {
			ty := y + length - (t-lo)/(hi-lo)*length
			c.scratch = tf.appendTick(c.scratch[:0], t)
			c.textBytes(x+thick+6*c.k, ty+c.mid(fs), c.scratch, textStyle{size: fs, fill: inkTick})
		}
		space := width + 20*c.k
		if px == "left" {
			return rect{area.x + space, area.y, area.w - space, area.h}
		}
		return rect{area.x, area.y, area.w - space, area.h}
	}
	length := math.Min(area.w*0.5, 220*c.k)
	titleW := c.measure(title, fs, false) + 10*c.k
	total := titleW + length
	keyGap := 18 * c.k
	if h.blanks() {
		total += keyGap + h.blankKeyWidth(c)
	}
	x := area.right() - total
	switch px {
	case "left":
		x = area.x
	case "center":
		x = area.x + (area.w-total)/2
	}
	height := thick + 4*c.k + fs*1.2
	y := area.y
	if py == "bottom" {
		y = area.bottom() - height
	}
	c.text(x, y+thick/2+c.mid(fs), title, textStyle{size: fs, fill: inkSubtitle})
	h.bar(c, x+titleW, y, length, thick, gid)
	if h.blanks() {
		h.blankKey(c, x+titleW+length+keyGap, y+thick/2)
	}
	for _, t := range ticks {
		tx := x + titleW + (t-lo)/(hi-lo)*length
		c.scratch = tf.appendTick(c.scratch[:0], t)
		c.textBytes(tx, y+thick+4*c.k+c.fonts.CapHeight(fs), c.scratch, textStyle{size: fs, fill: inkTick, anchor: "middle"})
	}
	space := height + 12*c.k
	if py == "bottom" {
		return rect{area.x, area.y, area.w, area.h - space}
	}
	return rect{area.x, area.y + space, area.w, area.h - space}
}

// bar draws the gradient rectangle.
func (h *heatmapChart) bar(c *canvas, x, y, w, hgt float64, gid string) {
	c.w.s(`<rect`)
	c.w.af("x", x)
	c.w.af("y", y)
	c.w.af("width", w)
	c.w.af("height", hgt)
	c.w.s(` rx="2" fill="url(#`)
	c.w.s(gid)
	c.w.s(`)"/>`)
}

func (h *heatmapChart) draw(c *canvas, area rect) {
	st := c.style
	bx := newBandAxis(h.xs, 0, 0)
	by := newBandAxis(h.ys, 0, 0)
	bx.title = axisTitle(st.XAxisTitle, h.x.Name)
	by.title = axisTitle(st.YAxisTitle, h.y.Name)
	f := c.layoutFrame(area, bx, by)
	sx, sy := bx.step(), by.step()
	h.wholeX, h.wholeY = bx.whole(), by.whole()
	gap := 0.0
	if math.Min(sx, sy) > 6 {
		gap = math.Min(2*c.k, math.Min(sx, sy)*0.06)
	}
	w := &c.w
	nx := len(h.xs)
	if h.blanks() && !c.legendVisible(true) {
		h.hatchDefs(c) // the legend did not define the hatch
	}
	// blank cells: one hatched rectangle per run of them in a row, so a
	// sparse grid costs a few rectangles, not one per empty cell
	for row := 0; row < len(h.ys); row++ {
		for col := 0; col < nx; {
			if !isBlank(h.cells[row*nx+col]) {
				col++
				continue
			}
			end := col
			for end < nx && isBlank(h.cells[row*nx+end]) {
				end++
			}
			x0 := bx.bandStart(col) + gap/2
			h.blankRect(c, x0, by.bandStart(row)+gap/2, bx.bandStart(end-1)+sx-gap/2-x0, sy-gap)
			col = end
		}
	}
	for k, v := range h.cells {
		if isBlank(v) {
			continue
		}
		x, wd := snap(bx.bandStart(k%nx)+gap/2, sx-gap, h.wholeX)
		y, ht := snap(by.bandStart(k/nx)+gap/2, sy-gap, h.wholeY)
		w.s(`<rect`)
		w.af("x", x)
		w.af("y", y)
		w.af("width", wd)
		w.af("height", ht)
		w.s(` fill="`)
		w.b = appendHex(w.b, h.scale.at(v))
		w.s(`"/>`)
	}
	if st.Labels.Show {
		fs := c.fsLabel
		if sy >= fs*1.3 {
			w.s(`<g class="labels">`)
			format := h.format.forLabels(h.cells)
			for k, v := range h.cells {
				if isBlank(v) {
					continue
				}
				txt := c.value(v, format)
				if c.measureBytes(txt, fs, false) > sx-4*c.k {
					continue
				}
				fill := inkTitle
				if isDark(h.scale.at(v)) {
					fill = background
				}
				c.textBytes(bx.center(k%nx), by.center(k/nx)+c.mid(fs), c.value(v, format), textStyle{size: fs, fill: fill, anchor: "middle"})
			}
			w.s(`</g>`)
		}
	}
	c.drawAxisLabels(f)
}
