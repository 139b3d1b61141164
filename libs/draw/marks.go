package draw

import (
	"encoding/json"
	"math"
	"strconv"
)

// Mark is one drawn mark as a reader's tooltip names it: its box in the
// picture's coordinates (a point's box is empty at the point), its
// category, its series and its value in the chart's number format.
type Mark struct {
	X, Y, W, H       float64
	Category, Series string
	Value            string
}

// maxMarks is the most marks a picture lists: beyond it every n-th mark
// in drawing order stays, so a 10k-point scatter carries a list a page
// can walk, not a copy of its data.
const maxMarks = 2000

// MarksID is the id suffix of the <metadata> element that lists a
// picture's marks (Input.Marks): the element's id is the picture's id
// prefix followed by it.
const MarksID = "marks"

// mark records a drawn mark when the caller asked for them (Input.Marks).
func (c *canvas) mark(x, y, w, h float64, category, series string, value []byte) {
	if !c.wantMarks {
		return
	}
	c.marks = append(c.marks, Mark{X: x, Y: y, W: w, H: h, Category: category, Series: series, Value: string(value)})
}

// thinMarks keeps at most maxMarks of ms, evenly through the drawing order.
func thinMarks(ms []Mark) []Mark {
	if len(ms) <= maxMarks {
		return ms
	}
	step := (len(ms) + maxMarks - 1) / maxMarks
	out := make([]Mark, 0, maxMarks)
	for i := 0; i < len(ms); i += step {
		out = append(out, ms[i])
	}
	return out
}

// appendMarks writes the marks as a <metadata> element holding a compact
// JSON array of [x, y, w, h, category, series, value], escaped for XML.
func (c *canvas) appendMarks() {
	b := make([]byte, 0, 64*len(c.marks)+2)
	b = append(b, '[')
	for i, m := range thinMarks(c.marks) {
		if i > 0 {
			b = append(b, ',')
		}
		b = append(b, '[')
		for _, v := range [4]float64{m.X, m.Y, m.W, m.H} {
			if math.IsNaN(v) || math.IsInf(v, 0) {
				v = 0
			}
			b = strconv.AppendFloat(b, round1(v), 'f', -1, 64)
			b = append(b, ',')
		}
		for k, s := range [3]string{m.Category, m.Series, m.Value} {
			if k > 0 {
				b = append(b, ',')
			}
			q, _ := json.Marshal(s) // a string always encodes
			b = append(b, q...)
		}
		b = append(b, ']')
	}
	b = append(b, ']')
	w := &c.w
	w.s(`<metadata id="`)
	w.s(c.id)
	w.s(MarksID + `">`)
	w.b = appendEscaped(w.b, b)
	w.s(`</metadata>`)
}
