package draw

import (
	"cmp"
	"math"
	"slices"
	"strings"
	"unicode/utf8"
)

// box is the area a label covers, in pixels.
type box struct{ x0, y0, x1, y1 float64 }

// boxAt is the box of a text of width w whose baseline starts at (x, y)
// under the anchor ("", "middle" or "end"), for a font with capital height capH.
func boxAt(x, y, w, capH float64, anchor string) box {
	switch anchor {
	case "middle":
		x -= w / 2
	case "end":
		x -= w
	}
	return box{x, y - capH, x + w, y}
}

// overlaps reports whether two boxes come closer than pad.
func (b box) overlaps(o box, pad float64) bool {
	return b.x0 < o.x1+pad && o.x0 < b.x1+pad && b.y0 < o.y1+pad && o.y0 < b.y1+pad
}

// placer places labels without overlap, the way Highcharts' dataLabels
// do: a label whose every candidate place is taken, or leaves the
// bounds, is hidden. Callers offer labels most important first.
type placer struct {
	bounds box
	pad    float64
	placed []box
	// lines are the drawn line's stretches, by their left end: placeOff
	// keeps labels off them where it can.
	lines []segment
	// span is the widest segment's width, which bounds the search of lines.
	span float64
	// lineGap is how close a label may come to a line's centre: half its
	// stroke and half the pad.
	lineGap float64
	// hidden counts the labels left out.
	hidden int
}

// newPlacer keeps labels inside bounds and pad apart.
func newPlacer(bounds box, pad float64) *placer {
	return &placer{bounds: bounds, pad: pad}
}

// free reports whether b fits inside the bounds and clear of every placed label.
func (p *placer) free(b box) bool {
	if b.x0 < p.bounds.x0-0.5 || b.x1 > p.bounds.x1+0.5 || b.y0 < p.bounds.y0-0.5 || b.y1 > p.bounds.y1+0.5 {
		return false
	}
	for _, o := range p.placed {
		if b.overlaps(o, p.pad) {
			return false
		}
	}
	return true
}

// place takes the first free candidate and answers its index, or -1 when
// none is free (the label is hidden).
func (p *placer) place(cands ...box) int {
	for i, b := range cands {
		if p.free(b) {
			p.placed = append(p.placed, b)
			return i
		}
	}
	p.hidden++
	return -1
}

// block marks an area labels must keep clear of (a direct label, a marker).
func (p *placer) block(b box) { p.placed = append(p.placed, b) }

// segment is one straight stretch of a drawn line.
type segment struct{ a, b point }

// avoid adds drawn lines, stroked width wide, that labels should keep off.
func (p *placer) avoid(width float64, segs ...segment) {
	p.lineGap = max(p.lineGap, (width+p.pad)/2)
	p.lines = append(p.lines, segs...)
	for _, s := range segs {
		p.span = max(p.span, math.Abs(s.b.x-s.a.x))
	}
	slices.SortFunc(p.lines, func(s, t segment) int { return cmp.Compare(min(s.a.x, s.b.x), min(t.a.x, t.b.x)) })
}

// onLine reports whether b comes closer than lineGap to a drawn line.
func (p *placer) onLine(b box) bool {
	g := p.lineGap
	b = box{b.x0 - g, b.y0 - g, b.x1 + g, b.y1 + g}
	k, _ := slices.BinarySearchFunc(p.lines, b.x0-p.span, func(s segment, x float64) int { return cmp.Compare(min(s.a.x, s.b.x), x) })
	for _, s := range p.lines[k:] {
		if min(s.a.x, s.b.x) > b.x1 {
			break
		}
		if s.crosses(b) {
			return true
		}
	}
	return false
}

// placeOff is place for labels beside drawn lines: it takes the first
// candidate clear of the lines as well, when there is one, else the first
// free one, and reports whether the one taken lies on a line (the caller
// gives that label a halo, so the line does not strike it through).
func (p *placer) placeOff(cands ...box) (i int, onLine bool) {
	for i, b := range cands {
		if p.free(b) && !p.onLine(b) {
			p.placed = append(p.placed, b)
			return i, false
		}
	}
	i = p.place(cands...)
	return i, i >= 0 && len(p.lines) > 0
}

// crosses reports whether the segment passes through b: the segment is
// clipped to the box (Liang–Barsky) and something is left.
func (s segment) crosses(b box) bool {
	dx, dy := s.b.x-s.a.x, s.b.y-s.a.y
	t0, t1 := 0.0, 1.0
	for _, e := range [4][2]float64{{-dx, s.a.x - b.x0}, {dx, b.x1 - s.a.x}, {-dy, s.a.y - b.y0}, {dy, b.y1 - s.a.y}} {
		p, q := e[0], e[1]
		if p == 0 {
			if q < 0 {
				return false // parallel to this edge and outside it
			}
			continue
		}
		t := q / p
		if p < 0 {
			t0 = max(t0, t)
		} else {
			t1 = min(t1, t)
		}
		if t0 > t1 {
			return false
		}
	}
	return true
}

// byMagnitude orders label indices by |value|, largest first, so the
// extremes win when labels compete for room.
func byMagnitude(vals []float64) []int {
	idx := make([]int, 0, len(vals))
	for i, v := range vals {
		if !isBlank(v) {
			idx = append(idx, i)
		}
	}
	slices.SortStableFunc(idx, func(a, b int) int { return cmp.Compare(math.Abs(vals[b]), math.Abs(vals[a])) })
	return idx
}

// hiddenNotice says how many requested value labels were left out where
// they would have overlapped others, and which kept theirs (first).
func (c *canvas) hiddenNotice(hidden, total int, first string) {
	if hidden == 0 {
		return
	}
	c.notice(NoticeLabelsHidden, itoa(hidden)+" of "+itoa(total)+" value labels are left out where they would overlap others; "+first)
}

// fitLines sets a name (a category, a legend entry, a slice) in at most
// maxLines lines of maxW pixels, wrapping as Fonts.Wrap does. A name that
// does not fit even so is cut at its end only when a few letters go and
// no digit ("… Services Agen…"); otherwise it loses its middle, so names
// alike but for their end ("… urban areas", "… rural areas", "… centre
// 12") stay apart: the last line is the name's end (whole words) and the
// lines before it its start, cut with "…"; in one line, see
// Fonts.TruncateMiddle. "" is no lines.
func (c *canvas) fitLines(s string, size float64, bold bool, maxW float64, maxLines int) []string {
	lines := c.wrap(s, size, bold, maxW, maxLines)
	n := len(lines)
	s = strings.TrimSpace(s)
	if n == 0 || !strings.HasSuffix(lines[n-1], "…") || strings.HasSuffix(s, lines[n-1]) {
		return lines
	}
	// the rest of s from where the last line starts, and what the cut hides
	rest := s
	for _, ln := range lines[:n-1] {
		if i := strings.Index(rest, ln); i >= 0 {
			rest = strings.TrimLeft(rest[i+len(ln):], " ")
		}
	}
	if shown := strings.TrimSuffix(lines[n-1], "…"); strings.HasPrefix(rest, shown) {
		hidden := rest[len(shown):]
		if c.measure(hidden, size, bold) <= maxW*0.3 && !strings.ContainsAny(hidden, "0123456789") {
			return lines
		}
	}
	if n > 1 {
		if tail := c.fonts.face(bold).tailWords(s, maxW/size); tail > 0 {
			head := c.wrap(strings.TrimRight(s[:tail], " "), size, bold, maxW, n-1)
			return append(head, strings.TrimLeft(s[tail:], " "))
		}
	}
	lines[n-1] = c.fonts.TruncateMiddle(rest, size, bold, maxW)
	return lines
}

// splitsWord reports that lines (s wrapped, see Fonts.Wrap) break s
// inside a word ("German", "y"): a word wider than a line, cut where no
// reader would break it. Breaks at spaces, after hyphens, dashes and
// slashes and between East Asian characters are not; lines after a cut
// ("…") are not looked at.
func splitsWord(s string, lines []string) bool {
	rest := strings.TrimSpace(s)
	for _, ln := range lines[:max(len(lines)-1, 0)] {
		if strings.Contains(ln, "…") {
			return false
		}
		i := strings.Index(rest, ln)
		if i < 0 {
			return false
		}
		rest = rest[i+len(ln):]
		if rest == "" || rest[0] == ' ' {
			continue
		}
		last, _ := utf8.DecodeLastRuneInString(ln)
		next, _ := utf8.DecodeRuneInString(rest)
		if !strings.ContainsRune("-/–—", last) && !breaksAround(last) && !breaksAround(next) {
			return true
		}
	}
	return false
}

// linesWidth is the width of the widest line.
func (c *canvas) linesWidth(lines []string, size float64, bold bool) float64 {
	w := 0.0
	for _, ln := range lines {
		w = math.Max(w, c.measure(ln, size, bold))
	}
	return w
}
