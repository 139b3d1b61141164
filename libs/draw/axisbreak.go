package draw

// NoticeAxisBreak is the code of the notice saying bars start at a value
// other than zero, as the person set the axis, and the picture cuts them.
const NoticeAxisBreak = "axis_not_zero"

// axisBreak marks a bar chart's value axis that does not reach zero (the
// person set its min or max with setAxis): bars are read by their length,
// so a bar of 982 on an axis from 970 looks half of one of 994. A zigzag
// cut across every bar near its base and the break sign on the base line
// show that the bars are not drawn whole, and a notice says it in words.
// A logarithmic axis has no zero to break from; lint speaks for it.
func (c *canvas) axisBreak(f *frame, val *axis, horizontal bool) {
	if val.log || val.base() == 0 {
		return
	}
	p := f.plot
	k := c.k
	base := crisp(val.pos(val.base()))
	// toward the bars: up from the base for vertical bars on a positive
	// axis, down for a negative one; right or left for horizontal bars
	dir := -1.0
	if val.d1 < 0 {
		dir = 1
	}
	if horizontal {
		dir = -dir
	}
	cut := base + dir*7*k
	amp, step := 2.5*k, 6*k
	w := &c.w
	w.s(`<g class="axis-break"><path fill="none" stroke="`)
	w.s(c.background)
	w.s(`" stroke-width="`)
	w.f(3 * k)
	w.s(`" stroke-linejoin="round" d="M`)
	long, from := p.w, p.x
	if horizontal {
		long, from = p.h, p.y
	}
	n := int(long/step) + 1
	for i := 0; i <= n; i++ {
		along := min(from+float64(i)*step, from+long)
		off := amp
		if i%2 == 1 {
			off = -amp
		}
		if i > 0 {
			w.s("L")
		}
		if horizontal {
			w.pt(cut+off, along)
		} else {
			w.pt(along, cut+off)
		}
	}
	w.s(`"/>`)
	// the break sign: two slanted strokes across the base line at its start
	for _, at := range [...]float64{3 * k, 8 * k} {
		w.s(`<path fill="none" stroke="`)
		w.s(c.inkTitle)
		w.s(`" stroke-width="`)
		w.f(1.5 * k)
		w.s(`" d="M`)
		if horizontal {
			w.pt(base-5*k, p.bottom()-at-2*k)
			w.s("L")
			w.pt(base+5*k, p.bottom()-at+2*k)
		} else {
			w.pt(p.x+at-2*k, base+5*k)
			w.s("L")
			w.pt(p.x+at+2*k, base-5*k)
		}
		w.s(`"/>`)
	}
	w.s(`</g>`)
	c.notice(NoticeAxisBreak, "the value axis starts at "+string(c.value(val.base(), val.format))+", not 0, as set with setAxis: the bars are cut (zigzag) and their lengths do not compare; setAxis with min null starts them at 0")
}
