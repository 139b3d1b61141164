package draw

import (
	"math"
	"slices"
	"strings"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// pieChart draws one slice per row with a positive value, clockwise from
// twelve o'clock; a donut leaves a hole showing the total. The slices come
// from reduce (otherSlice): a pie of more slices than it can tell apart is
// sorted and its smallest are one grey "Other" slice. Negative values,
// which no slice can show, are left out. Both are said in the notices and
// in a note under the pie.
type pieChart struct {
	label  *dataset.Column
	value  *dataset.Column
	slices []pieSlice
	total  float64
	donut  float64
	format numFormat
}

// pieSlice is one drawn slice.
type pieSlice struct {
	name  string
	v     float64
	color string
}

func newPie(c *canvas, r roleColumns) *pieChart {
	p := &pieChart{label: r.one("label"), value: r.one("value")}
	names := columnLabels(p.label)
	p.donut = optNumber(c.spec.Options, "donut", 0, 0, 0.9)
	p.format = baseFormat(c.style, []*dataset.Column{p.value})
	named := 0
	for i, v := range p.value.Num[:c.table.Rows] {
		if !isBlank(v) && v > 0 && !isOther(names[i]) {
			named++
		}
	}
	c.colors.reserve(named)
	k := 0
	for i := 0; i < c.table.Rows; i++ {
		v := p.value.Num[i]
		switch {
		case isBlank(v) || v == 0:
		case v < 0: // left out, and said so by reduce (otherSlice)
		default:
			color := c.categoryColor(names[i], k)
			if _, pinned := c.colors.pinned[names[i]]; isOther(names[i]) && !pinned {
				color = otherColor // Other is grey and takes no palette colour
			} else {
				k++
			}
			if !c.hl.keepsCategory(names[i]) {
				color = c.inkDim // Other too, unless a highlight names it
			}
			p.slices = append(p.slices, pieSlice{name: names[i], v: v, color: color})
			p.total += v
		}
	}
	return p
}

// isOther reports a category the data itself calls "Other".
func isOther(name string) bool { return chartspec.IsOtherLabel(name) }

func (p *pieChart) empty() bool { return len(p.slices) == 0 }

// share is the slice's percentage as text, one decimal below 10 % and as
// many as a sliver needs not to read 0 % (0.04%).
func (p *pieChart) share(b []byte, v float64) []byte {
	pct := v / p.total * 100
	if pct < 10 {
		d := 1
		if pct > 0 && roundTo(pct, d) == 0 {
			d = -decade(pct)
		}
		return appendTrimmed(b, pct, d, "", "%", p.format.loc)
	}
	return appendNumber(b, pct, 0, "", "%", p.format.loc)
}

func (p *pieChart) summary() (string, string) {
	kind := "Pie chart"
	if p.donut > 0 {
		kind = "Donut chart"
	}
	name := kind + " of " + p.value.Name + " by " + p.label.Name
	if p.empty() {
		return name, name + ", no positive values to show"
	}
	best := 0
	for k, sl := range p.slices {
		if sl.v > p.slices[best].v {
			best = k
		}
	}
	b := p.slices[best]
	return name, name + ", " + plural(len(p.slices), "slice", "slices") + ", largest " + b.name + " " +
		string(p.share(nil, b.v)) + " (" + formatValue(b.v, p.format) + ")" + ", total " + formatValue(p.total, p.format)
}

func (p *pieChart) legend(c *canvas, area rect) rect {
	if !c.legendVisible(!c.style.Labels.Show && len(p.slices) > 1) {
		return area
	}
	items := make([]legendItem, len(p.slices))
	for k, sl := range p.slices {
		items[k] = legendItem{label: sl.name, color: sl.color}
	}
	return c.placeLegend(items, area)
}

// pieLabel is an outside label and where it ended up.
type pieLabel struct {
	slice int // index into slices
	angle float64
	y     float64 // the middle of its lines
	right bool
	// name is the slice's name in lines (the share follows the last).
	name []string
}

func (p *pieChart) draw(c *canvas, area rect) {
	labels := c.style.Labels.Show
	fs := c.fsLabel
	if len(c.notices) > 0 {
		area = p.drawNote(c, area)
	}
	side := 0.0
	if labels {
		maxW := 0.0
		for _, sl := range p.slices {
			w := c.measure(sl.name, fs, false) + c.measureBytes(p.share(c.scratch[:0], sl.v), fs, true)
			maxW = math.Max(maxW, w)
		}
		side = math.Min(maxW+30*c.k, area.w*0.3)
	}
	r := math.Min(area.h/2-4*c.k, area.w/2-side)
	if labels {
		r = math.Min(r, area.h/2-fs)
	}
	r = math.Max(r, 10)
	cx, cy := area.x+area.w/2, area.y+area.h/2
	inner := r * p.donut
	w := &c.w
	w.s(`<g stroke="`)
	if c.transparent {
		w.s(`none`)
	} else {
		w.s(c.background)
	}
	w.s(`" stroke-width="`)
	w.f(math.Max(1, 1.5*c.k))
	w.s(`" stroke-linejoin="round">`)
	a0 := -math.Pi / 2
	angles := make([]float64, len(p.slices))
	for k, sl := range p.slices {
		sweep := sl.v / p.total * 2 * math.Pi
		a1 := a0 + sweep
		angles[k] = a0 + sweep/2
		if c.wantMarks {
			p.markSlice(c, sl, cx, cy, r, inner, angles[k])
		}
		w.s(`<path fill="`)
		w.s(sl.color)
		w.s(`" d="`)
		if sweep >= 2*math.Pi-1e-9 {
			appendRing(w, cx, cy, r, inner)
			w.s(`" fill-rule="evenodd"/>`)
			a0 = a1
			continue
		}
		large := "0"
		if sweep > math.Pi {
			large = "1"
		}
		w.s("M")
		w.pt(cx+r*math.Cos(a0), cy+r*math.Sin(a0))
		w.s("A")
		w.pt(r, r)
		w.s(" 0 " + large + " 1 ")
		w.pt(cx+r*math.Cos(a1), cy+r*math.Sin(a1))
		if inner > 0 {
			w.s("L")
			w.pt(cx+inner*math.Cos(a1), cy+inner*math.Sin(a1))
			w.s("A")
			w.pt(inner, inner)
			w.s(" 0 " + large + " 0 ")
			w.pt(cx+inner*math.Cos(a0), cy+inner*math.Sin(a0))
		} else {
			w.s("L")
			w.pt(cx, cy)
		}
		w.s(`Z"/>`)
		a0 = a1
	}
	w.s(`</g>`)
	if inner >= 36*c.k {
		p.drawTotal(c, cx, cy, inner)
	}
	if labels {
		p.drawLabels(c, area, cx, cy, r, angles, side)
	} else {
		p.drawShares(c, cx, cy, r, inner)
	}
}

// markSlice lists a slice as a point where its share is set, naming its
// value and its share, which the drawing shows on the slice or beside it.
func (p *pieChart) markSlice(c *canvas, sl pieSlice, cx, cy, r, inner, mid float64) {
	rl := r * 0.65
	if inner > 0 {
		rl = (r + inner) / 2
	}
	value := formatValue(sl.v, p.format) + " (" + string(p.share(nil, sl.v)) + ")"
	c.mark(cx+rl*math.Cos(mid), cy+rl*math.Sin(mid), 0, 0, sl.name, p.value.Name, []byte(value))
}

// drawShares writes each slice's share on the slice, where it fits whole
// inside it: the legend names the slices, the slices carry their share.
func (p *pieChart) drawShares(c *canvas, cx, cy, r, inner float64) {
	fs := textSize(14 * c.k)
	pad := 3 * c.k
	rl := r * 0.65
	if inner > 0 {
		rl = (r + inner) / 2
	}
	c.w.s(`<g class="shares">`)
	a0 := -math.Pi / 2
	for _, sl := range p.slices {
		sweep := sl.v / p.total * 2 * math.Pi
		a1 := a0 + sweep
		mid := a0 + sweep/2
		txt := p.share(c.scratch[:0], sl.v)
		tw := c.measureBytes(txt, fs, true)
		x, y := cx+rl*math.Cos(mid), cy+rl*math.Sin(mid)
		b := box{x0: x - tw/2 - pad, x1: x + tw/2 + pad, y0: y - fs/2 - pad, y1: y + fs/2 + pad}
		if inWedge(b, cx, cy, inner, r, a0, a1) {
			c.textBytes(x, y+c.mid(fs), txt, textStyle{size: fs, bold: true, fill: c.inkOn(sl.color), anchor: "middle"})
		}
		a0 = a1
	}
	c.w.s(`</g>`)
}

// inWedge reports whether all four corners of b lie inside the ring slice
// from angle a0 to a1 (clockwise from three o'clock) between radii inner
// and outer around (cx, cy).
func inWedge(b box, cx, cy, inner, outer, a0, a1 float64) bool {
	if a1-a0 >= 2*math.Pi-1e-9 {
		a0, a1 = math.Inf(-1), math.Inf(1)
	}
	for _, pt := range [4][2]float64{{b.x0, b.y0}, {b.x1, b.y0}, {b.x0, b.y1}, {b.x1, b.y1}} {
		dx, dy := pt[0]-cx, pt[1]-cy
		d := math.Hypot(dx, dy)
		if d > outer || d < inner {
			return false
		}
		a := math.Atan2(dy, dx)
		for a < a0 {
			a += 2 * math.Pi
		}
		if a > a1 {
			return false
		}
	}
	return true
}

// drawNote writes the notices (why there is an Other slice, which values
// were left out) under the pie, wrapped to three lines, and answers the
// area above it.
func (p *pieChart) drawNote(c *canvas, area rect) rect {
	fs := c.fsLabel
	var note []string
	for _, n := range c.notices {
		m := n.Message
		if m != "" {
			m = strings.ToUpper(m[:1]) + m[1:]
		}
		note = append(note, m+".")
	}
	lines := c.wrap(strings.Join(note, " "), fs, false, area.w, 3)
	lineH := fs * 1.35
	y := area.bottom() - float64(len(lines)-1)*lineH
	c.w.s(`<g class="note">`)
	for i, l := range lines {
		c.text(area.x, y+float64(i)*lineH, l, textStyle{size: fs, fill: c.inkSubtitle})
	}
	c.w.s(`</g>`)
	space := float64(len(lines))*lineH + 8*c.k
	return rect{area.x, area.y, area.w, area.h - space}
}

// appendRing writes a full disc (or ring) as two half arcs per circle.
func appendRing(w *svgWriter, cx, cy, r, inner float64) {
	for _, rr := range []float64{r, inner} {
		if rr <= 0 {
			continue
		}
		w.s("M")
		w.pt(cx-rr, cy)
		w.s("a")
		w.pt(rr, rr)
		w.s(" 0 1 0 ")
		w.pt(2*rr, 0)
		w.s("a")
		w.pt(rr, rr)
		w.s(" 0 1 0 ")
		w.pt(-2*rr, 0)
		w.s("Z")
	}
}

// drawTotal writes the total in the donut's hole.
func (p *pieChart) drawTotal(c *canvas, cx, cy, inner float64) {
	txt := c.value(p.total, p.format)
	size := math.Min(22*c.k, inner*0.38)
	for size > 8 && c.measureBytes(txt, size, true) > inner*1.6 {
		size--
	}
	c.text(cx, cy-size*0.45, "Total", textStyle{size: c.fsLabel, fill: c.inkSubtitle, anchor: "middle"})
	c.textBytes(cx, cy+size*0.75, c.value(p.total, p.format), textStyle{size: size, bold: true, fill: c.inkTitle, anchor: "middle"})
}

// drawLabels writes "name share" outside the pie with leader lines; a
// long name wraps to three lines (see fitLines). Labels on each side are
// spread so none overlap, and the smallest slices lose their label when
// a side is full.
func (p *pieChart) drawLabels(c *canvas, area rect, cx, cy, r float64, angles []float64, side float64) {
	fs := c.fsLabel
	lineH := fs * 1.35
	var left, right []pieLabel
	for k, a := range angles {
		l := pieLabel{slice: k, angle: a, right: math.Cos(a) >= 0, y: cy + (r+10*c.k)*math.Sin(a)}
		shareW := c.measureBytes(p.share(c.scratch[:0], p.slices[k].v), fs, true)
		l.name = c.fitLines(p.slices[k].name, fs, false, math.Max(side-shareW-30*c.k, 0), 3)
		if l.right {
			right = append(right, l)
		} else {
			left = append(left, l)
		}
	}
	// a label of several lines keeps some air from its neighbours
	height := func(l pieLabel) float64 {
		if n := len(l.name); n > 1 {
			return (float64(n) + 0.5) * lineH
		}
		return lineH
	}
	w := &c.w
	w.s(`<g class="labels">`)
	for _, group := range [][]pieLabel{left, right} {
		total := 0.0
		for _, l := range group {
			total += height(l)
		}
		if total > area.h {
			// the largest slices keep their labels while the side has room
			slices.SortFunc(group, func(a, b pieLabel) int {
				va, vb := p.slices[a.slice].v, p.slices[b.slice].v
				switch {
				case va > vb:
					return -1
				case va < vb:
					return 1
				}
				return 0
			})
			keep, used := 0, 0.0
			for keep < len(group) && used+height(group[keep]) <= area.h {
				used += height(group[keep])
				keep++
			}
			group = group[:max(keep, 1)]
		}
		slices.SortFunc(group, func(a, b pieLabel) int {
			switch {
			case a.y < b.y:
				return -1
			case a.y > b.y:
				return 1
			}
			return 0
		})
		for i := range group {
			group[i].y = math.Max(group[i].y, area.y+height(group[i])/2)
			if i > 0 {
				group[i].y = math.Max(group[i].y, group[i-1].y+(height(group[i-1])+height(group[i]))/2)
			}
		}
		for i := len(group) - 1; i >= 0; i-- {
			group[i].y = math.Min(group[i].y, area.bottom()-height(group[i])/2)
			if i < len(group)-1 {
				group[i].y = math.Min(group[i].y, group[i+1].y-(height(group[i+1])+height(group[i]))/2)
			}
		}
		for _, l := range group {
			p.drawLabel(c, l, cx, cy, r, side)
		}
	}
	w.s(`</g>`)
}

// drawLabel draws one leader line and label.
func (p *pieChart) drawLabel(c *canvas, l pieLabel, cx, cy, r, side float64) {
	fs := c.fsLabel
	w := &c.w
	v := p.slices[l.slice].v
	cos, sin := math.Cos(l.angle), math.Sin(l.angle)
	elbowX := cx + (r+12*c.k)*cos
	// a label pushed so far off its slice's height that the turn would lie
	// on the pie turns on the circle at its own height instead
	if R, dy := r+12*c.k, l.y-cy; math.Abs(dy) < R && math.Hypot(elbowX-cx, dy) < r+4*c.k {
		if ex := math.Sqrt(R*R - dy*dy); l.right {
			elbowX = math.Max(elbowX, cx+ex)
		} else {
			elbowX = math.Min(elbowX, cx-ex)
		}
	}
	textX := cx + r + 20*c.k
	if !l.right {
		textX = cx - r - 20*c.k
	}
	w.s(`<path fill="none" stroke="`)
	w.s(c.inkAxis)
	w.s(`" stroke-width="1" d="M`)
	w.pt(cx+(r+2)*cos, cy+(r+2)*sin)
	w.s("L")
	w.pt(elbowX, l.y)
	w.s("H")
	if l.right {
		w.f(textX - 4*c.k)
	} else {
		w.f(textX + 4*c.k)
	}
	w.s(`"/>`)
	st := textStyle{size: fs, fill: c.inkLabel}
	if !l.right {
		st.anchor = "end"
	}
	lineH := fs * 1.35
	y := l.y + c.mid(fs) - float64(max(len(l.name), 1)-1)*lineH/2
	for _, ln := range l.name[:max(len(l.name), 1)-1] {
		c.text(textX, y, ln, st)
		y += lineH
	}
	c.openText(textX, y, st)
	if n := len(l.name); n > 0 && l.name[n-1] != "" {
		// isolate the name so right-to-left text keeps the share after it
		w.s("\u2068")
		w.esc(l.name[n-1])
		w.s("\u2069 ")
	}
	w.s(`<tspan font-weight="bold">`)
	w.escBytes(p.share(c.scratch[:0], v))
	w.s(`</tspan></text>`)
}
