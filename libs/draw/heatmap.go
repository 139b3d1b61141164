package draw

import (
	"math"
	"slices"
	"strings"
	"time"
	"unicode"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
	colorful "github.com/lucasb-eyer/go-colorful"
)

// heatmapChart colours a grid of x × y cells by value. Long data (one row
// per cell) names each cell's column and row in x and y; wide data (rows
// × columns, a correlation matrix) has no x, and each value column is a
// column of the grid. Rows falling in the same cell are averaged; cells
// without a value stay empty.
type heatmapChart struct {
	x, y, val *dataset.Column
	// vals are the value columns: one for long data, one per grid column
	// for wide data (x nil).
	vals      []*dataset.Column
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
	h := &heatmapChart{x: r.one("x"), y: r.one("y"), vals: r["value"]}
	h.val = h.vals[0]
	h.format = baseFormat(c.style, h.vals)
	n := c.table.Rows
	var yRows [][]int
	h.ys, yRows = groupRows(h.y, n)
	yi := make([]int, n)
	for g, rows := range yRows {
		for _, i := range rows {
			yi[i] = g
		}
	}
	// cell of row i in value column j
	var cellOf func(i, j int) int
	if h.x == nil {
		h.xs = make([]string, len(h.vals))
		for j, v := range h.vals {
			h.xs[j] = v.Name
		}
		cellOf = func(i, j int) int { return yi[i]*len(h.xs) + j }
	} else {
		var xRows [][]int
		h.xs, xRows = groupRows(h.x, n)
		xi := make([]int, n)
		for g, rows := range xRows {
			for _, i := range rows {
				xi[i] = g
			}
		}
		cellOf = func(i, _ int) int { return yi[i]*len(h.xs) + xi[i] }
	}
	h.cells = make([]float64, len(h.xs)*len(h.ys))
	counts := make([]int, len(h.cells))
	for j, col := range h.vals {
		for i := 0; i < n; i++ {
			v := col.Num[i]
			if isBlank(v) {
				continue
			}
			k := cellOf(i, j)
			h.cells[k] += v
			counts[k]++
		}
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
	h.chooseScale(c)
	return h
}

// chooseScale picks the colour scale. It is diverging, centred on zero
// when the values cross it (else on their middle), when the spec asks for
// it, when the palette is a diverging one (red-blue), and whenever the
// values lie on both sides of zero: a one-hue ramp would paint −5 and +5
// as "less" and "more" of one thing. A diverging palette runs from its
// first colour to its last; temperatures run from blue (cold) to red
// (hot) whatever the palette's order. A one-sided scale is a light-to-dark
// ramp of the first palette colour, or for temperatures a warm ramp
// (darkest = hottest) above zero and a cold one (darkest = coldest) below.
func (h *heatmapChart) chooseScale(c *canvas) {
	pal := c.colors.palette
	high := c.colors.of(h.val.ID, 0)
	_, pinned := c.colors.pinned[h.val.ID]
	stops, divPalette := divergingPalette(pal)
	divPalette = divPalette && !pinned
	temp := temperature(h.vals)
	crosses := h.filled > 0 && h.lo < 0 && h.hi > 0
	asked := optString(c.spec.Options, "colorScale", "sequential", "sequential", "diverging") == "diverging"
	h.diverging = asked || crosses || divPalette
	switch {
	case h.diverging && divPalette:
		if temp && warmth(stops[0]) > warmth(stops[len(stops)-1]) {
			stops = slices.Clone(stops)
			slices.Reverse(stops) // cold is blue, hot is red
		}
		h.scale = newDivergingPalette(stops, h.lo, h.hi)
	case h.diverging && temp && !pinned:
		h.scale = newDivergingPalette(hexStops(tempDiverging[:]), h.lo, h.hi)
	case h.diverging:
		low := pal[1%len(pal)]
		if low == high {
			low = pal[0]
		}
		h.scale = newDiverging(low, high, h.lo, h.hi)
	case temp && !pinned && h.hi <= 0:
		h.scale = rampOver(hexStops(tempCold[:]), h.lo, h.hi)
	case temp && !pinned:
		h.scale = rampOver(hexStops(tempWarm[:]), h.lo, h.hi)
	default:
		h.scale = newSequential(high, h.lo, h.hi)
		if c.name == chartspec.ThemeDark {
			// on a dark page low values fade into it and high ones glow
			slices.Reverse(h.scale.stops)
		}
	}
}

// Temperature ramps (ColorBrewer): RdBu from blue to red through a
// near-white middle, YlOrRd for heat and Blues, darkest first, for frost.
var (
	tempDiverging = [...]string{"#2166AC", "#67A9CF", "#D1E5F0", "#F7F7F7", "#FDDBC7", "#EF8A62", "#B2182B"}
	tempWarm      = [...]string{"#FFFFB2", "#FECC5C", "#FD8D3C", "#F03B20", "#BD0026"}
	tempCold      = [...]string{"#08519C", "#3182BD", "#6BAED6", "#BDD7E7", "#EFF3FF"}
)

// hexStops parses a ramp this package defines.
func hexStops(hex []string) []colorful.Color {
	out := make([]colorful.Color, len(hex))
	for i, h := range hex {
		out[i] = mustColor(h)
	}
	return out
}

// rampOver spreads stops evenly from lo to hi, blended in L*a*b*.
func rampOver(stops []colorful.Color, lo, hi float64) colorScale {
	if hi <= lo {
		hi = lo + 1
	}
	return colorScale{lo: lo, hi: hi, mid: (lo + hi) / 2, stops: stops, neutral: -1, lab: true}
}

// warmth is how red or yellow a colour is against blue or green (a* + b*
// in CIE L*a*b*): a red end of a palette scores high, a blue end low.
func warmth(c colorful.Color) float64 {
	_, a, b := c.Lab()
	return a + b
}

// tempWords are words in a column name that mean temperatures.
var tempWords = [...]string{"temp", "temps", "temperature", "temperatures", "temperatur", "temperaturen",
	"température", "températures", "temperatura", "temperaturas", "celsius", "fahrenheit"}

// temperature reports value columns named as temperatures ("Temperature
// (°C)", "Mean temp", "Temp °F"), whose colours should read cold to hot.
func temperature(cols []*dataset.Column) bool {
	for _, c := range cols {
		name := strings.ToLower(c.Name)
		if strings.Contains(name, "°c") || strings.Contains(name, "°f") || strings.ContainsAny(name, "℃℉") ||
			strings.Contains(name, "气温") || strings.Contains(name, "気温") || strings.Contains(name, "温度") {
			continue
		}
		words := strings.FieldsFunc(name, func(r rune) bool {
			return !(unicode.IsLetter(r) || r == '°')
		})
		if !slices.ContainsFunc(words, func(w string) bool { return slices.Contains(tempWords[:], w) }) {
			return false
		}
	}
	return len(cols) > 0
}

func (h *heatmapChart) empty() bool { return h.filled == 0 }

// blanks reports cells without a value, drawn hatched and named in the legend.
func (h *heatmapChart) blanks() bool { return h.filled < len(h.cells) }

// blankLabel names blank heatmap cells in the legend; they are drawn in
// the theme's hatch (blankFill, blankStroke), unlike any colour of a scale.
const blankLabel = "No data"

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
	w.s(` fill="`)
	w.s(c.blankFill)
	w.s(`"/><line x1="0" y1="0" x2="0"`)
	w.af("y2", size)
	w.s(` stroke="`)
	w.s(c.blankStroke)
	w.s(`" stroke-width="`)
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
	c.text(x+sw*1.6+5*c.k, cy+c.mid(fs), blankLabel, textStyle{size: fs, fill: c.inkSubtitle})
	return h.blankKeyWidth(c)
}

// blankKeyWidth is the width of the legend's "No data" key.
func (h *heatmapChart) blankKeyWidth(c *canvas) float64 {
	return 10*c.k*1.6 + 5*c.k + c.measure(blankLabel, c.fsLabel, false)
}

// valueName names what the cells hold: the value column, or for wide data
// with several, the list of them.
func (h *heatmapChart) valueName() string {
	if len(h.vals) == 1 {
		return h.val.Name
	}
	return seriesNames(h.vals)
}

func (h *heatmapChart) summary() (string, string) {
	name := "Heatmap of " + h.valueName() + " by " + h.y.Name
	if h.x != nil {
		name = "Heatmap of " + h.val.Name + " by " + h.x.Name + " and " + h.y.Name
	}
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
	title := ""
	if len(h.vals) == 1 {
		title = c.fonts.Truncate(h.val.Name, fs, false, math.Max(area.w*0.3, 60*c.k))
	}
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
	if title == "" {
		titleH = 0
	}
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
		if title != "" {
			c.text(x, y-fs*0.6, title, textStyle{size: fs, fill: c.inkSubtitle})
		}
		h.bar(c, x, y, thick, length, gid)
		for _, t := range ticks {
			ty := y + length - (t-lo)/(hi-lo)*length
			c.scratch = tf.appendTick(c.scratch[:0], t)
			c.textBytes(x+thick+6*c.k, ty+c.mid(fs), c.scratch, textStyle{size: fs, fill: c.inkTick})
		}
		space := width + 20*c.k
		if px == "left" {
			return rect{area.x + space, area.y, area.w - space, area.h}
		}
		return rect{area.x, area.y, area.w - space, area.h}
	}
	length := math.Min(area.w*0.5, 220*c.k)
	titleW := 0.0
	if title != "" {
		titleW = c.measure(title, fs, false) + 10*c.k
	}
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
	if title != "" {
		c.text(x, y+thick/2+c.mid(fs), title, textStyle{size: fs, fill: c.inkSubtitle})
	}
	h.bar(c, x+titleW, y, length, thick, gid)
	if h.blanks() {
		h.blankKey(c, x+titleW+length+keyGap, y+thick/2)
	}
	for _, t := range ticks {
		tx := x + titleW + (t-lo)/(hi-lo)*length
		c.scratch = tf.appendTick(c.scratch[:0], t)
		c.textBytes(tx, y+thick+4*c.k+c.fonts.CapHeight(fs), c.scratch, textStyle{size: fs, fill: c.inkTick, anchor: "middle"})
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
	xs := h.xs
	if months, ok := abbreviateMonths(xs); ok && h.tooWide(c, area, xs) {
		xs = months // Jan … Dec across, rather than turned full names
	}
	bx := newBandAxis(xs, 0, 0)
	by := newBandAxis(h.ys, 0, 0)
	xTitle := ""
	if h.x != nil {
		xTitle = h.x.Name
	}
	bx.title = axisTitle(st.XAxisTitle, xTitle)
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
			// a mirrored axis puts the run's last column at its left
			left := math.Min(bx.bandStart(col), bx.bandStart(end-1))
			right := math.Max(bx.bandStart(col), bx.bandStart(end-1)) + sx
			h.blankRect(c, left+gap/2, by.bandStart(row)+gap/2, right-left-gap, sy-gap)
			col = end
		}
	}
	for k, v := range h.cells {
		if isBlank(v) {
			continue
		}
		x, wd := snap(bx.bandStart(k%nx)+gap/2, sx-gap, h.wholeX)
		y, ht := snap(by.bandStart(k/nx)+gap/2, sy-gap, h.wholeY)
		if c.wantMarks {
			c.mark(x, y, wd, ht, h.ys[k/nx], h.xs[k%nx], c.value(v, h.format))
		}
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
				fill := c.inkTitle
				if isDark(h.scale.at(v)) {
					fill = c.background
				}
				c.textBytes(bx.center(k%nx), by.center(k/nx)+c.mid(fs), c.value(v, format), textStyle{size: fs, fill: fill, anchor: "middle"})
			}
			w.s(`</g>`)
		}
	}
	c.drawAxisLabels(f)
}

// tooWide reports x labels that would not sit flat side by side: the
// widest is wider than a cell across about 85 % of the area.
func (h *heatmapChart) tooWide(c *canvas, area rect, labels []string) bool {
	widest := 0.0
	for _, l := range labels {
		widest = math.Max(widest, c.measure(l, c.fsLabel, false))
	}
	return widest+6*c.k > area.w*0.85/float64(max(len(labels), 1))
}

// monthNamesFull are the English month names a text column may hold.
var monthNamesFull = [...]string{"january", "february", "march", "april", "may", "june", "july",
	"august", "september", "october", "november", "december"}

// abbreviateMonths answers labels that are all English month names
// ("January", "Sept") as their three-letter forms ("Jan", "Sep"); ok is
// false when any label is something else or none would get shorter.
func abbreviateMonths(labels []string) ([]string, bool) {
	out := make([]string, len(labels))
	shorter := false
	for i, l := range labels {
		w := strings.ToLower(strings.TrimSuffix(strings.TrimSpace(l), "."))
		m := slices.IndexFunc(monthNamesFull[:], func(full string) bool {
			return w == full || (len(w) >= 3 && strings.HasPrefix(full, w)) || (w == "sept" && full == "september")
		})
		if m < 0 {
			return nil, false
		}
		out[i] = monthName(time.Month(m + 1))
		shorter = shorter || len(out[i]) < len(l)
	}
	return out, shorter
}
