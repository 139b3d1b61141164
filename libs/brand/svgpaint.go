package brand

import (
	"bytes"
	"math"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// An SVG's colours are weighed by the area they paint, approximated from
// each shape's geometry: a rect's width × height, a circle's πr², a path's
// or polygon's bounding box (half of it, as a shape rarely fills its box),
// a stroke's outline length × width, all scaled by the transforms above
// the shape. White and transparent paints never count: they are the
// background a logo sits on, not its colour. A translucent paint (opacity,
// fill-opacity, stop-opacity) counts as it looks laid on white, as a person
// sees a logo on a light page. A gradient's stops are seen only at its
// ends: they share half its area, and the blend between them, named by the
// stops' mean, the other half. Shapes inside <defs>, <clipPath>, <mask>, <symbol>,
// <pattern> and the like paint nothing themselves.

// Bounds for hostile SVGs: the reader stops at these, keeping what it read.
const (
	maxSVGElements = 4096
	maxSVGNumbers  = 1 << 17 // path and points coordinates, all shapes together
	maxSVGStyle    = 64 << 10
	maxSVGRules    = 256
	maxSVGImages   = 8 // embedded rasters decoded, each within the decoder's own bounds
)

// svgEl is one element of an SVG document, with the attributes paint
// resolution needs, copied out of the tokenizer.
type svgEl struct {
	parent   int
	tag      string
	id       string
	classes  []string
	attr     map[string]string // presentation attributes that paint
	style    map[string]string // the style attribute's declarations
	fill     float64           // area the fill paints, before transforms
	stroke   float64           // outline length, before stroke-width
	scale    float64           // |det| of this element's own transform
	image    float64           // an <image>'s width × height, before transforms
	inert    bool              // inside defs, clipPath, mask…: paints nothing
	hasShape bool
}

// svgRule is one rule of an SVG's <style>: its last simple selector and
// its declarations.
type svgRule struct {
	sel   string // ".cls", "#id" or a tag name
	decls map[string]string
}

// svgDecl is a rule's value for a property and the rule's place.
type svgDecl struct {
	v     string
	order int
}

// svgDoc is a parsed SVG document.
type svgDoc struct {
	els   []svgEl
	rules []svgRule
	bySel map[string]map[string]svgDecl // by selector and property
	vbW   float64
	vbH   float64
	nums  int
}

// svgPaint adds every paint of an SVG document (a standalone file or an
// inline <svg> element's markup) to p with the area it paints.
func svgPaint(doc []byte, p *palette) {
	d := parseSVG(doc)
	d.paint(p)
}

func parseSVG(doc []byte) *svgDoc {
	d := &svgDoc{}
	z := html.NewTokenizer(bytes.NewReader(doc))
	stack := make([]int, 0, 32)
	styleNext := false
	styleBytes := 0
	for len(d.els) < maxSVGElements {
		tt := z.Next()
		switch tt {
		case html.ErrorToken:
			return d
		case html.TextToken:
			if styleNext && styleBytes < maxSVGStyle {
				t := z.Text()
				styleBytes += len(t)
				d.rules = append(d.rules, parseSVGStyle(string(t))...)
				if len(d.rules) > maxSVGRules {
					d.rules = d.rules[:maxSVGRules]
				}
			}
			styleNext = false
		case html.EndTagToken:
			styleNext = false
			name, _ := z.TagName()
			for i := len(stack) - 1; i >= 0 && i >= len(stack)-maxEndTagSearch; i-- {
				if d.els[stack[i]].tag == string(name) {
					stack = stack[:i]
					break
				}
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			name, more := z.TagName()
			el := svgEl{parent: -1, tag: string(name), scale: 1}
			if len(stack) > 0 {
				el.parent = stack[len(stack)-1]
				el.inert = d.els[el.parent].inert
			}
			switch el.tag {
			case "defs", "clippath", "mask", "symbol", "pattern", "marker", "filter", "lineargradient",
				"radialgradient", "title", "desc", "metadata", "script", "foreignobject", "style":
				el.inert = true
			}
			geo := map[string]string{}
			for more {
				var k, v []byte
				k, v, more = z.TagAttr()
				switch key := string(k); key {
				case "id":
					el.id = string(v)
				case "class":
					el.classes = strings.Fields(string(v))
					if len(el.classes) > 16 {
						el.classes = el.classes[:16]
					}
				case "style":
					el.style = parseDecls(string(v))
				case "fill", "stroke", "stop-color", "stop-opacity", "offset", "opacity", "fill-opacity", "stroke-opacity",
					"stroke-width", "display", "visibility", "href", "xlink:href":
					if el.attr == nil {
						el.attr = map[string]string{}
					}
					el.attr[key] = string(v)
				case "x", "y", "width", "height", "r", "rx", "ry", "x1", "y1", "x2", "y2", "points", "d",
					"transform", "viewbox":
					geo[key] = string(v)
				}
			}
			d.geometry(&el, geo)
			styleNext = el.tag == "style" && tt == html.StartTagToken
			d.els = append(d.els, el)
			if tt == html.StartTagToken && !isVoid(name) && len(stack) < maxHTMLStack {
				stack = append(stack, len(d.els)-1)
			}
		default:
			styleNext = false
		}
	}
	return d
}

// geometry sets an element's area, outline and transform scale.
func (d *svgDoc) geometry(el *svgEl, g map[string]string) {
	if t, ok := g["transform"]; ok {
		el.scale = transformScale(t)
	}
	if el.tag == "svg" && d.vbW == 0 {
		if f := d.numbers(g["viewbox"], 4); len(f) == 4 && f[2] > 0 && f[3] > 0 {
			d.vbW, d.vbH = f[2], f[3]
		} else {
			d.vbW, d.vbH = d.length(g["width"], 0), d.length(g["height"], 0)
		}
	}
	num := func(k string, ref float64) float64 { return d.length(g[k], ref) }
	switch el.tag {
	case "rect":
		w, h := num("width", d.vbW), num("height", d.vbH)
		el.fill, el.stroke = w*h, 2*(w+h)
	case "circle":
		r := num("r", math.Hypot(d.vbW, d.vbH)/math.Sqrt2)
		el.fill, el.stroke = math.Pi*r*r, 2*math.Pi*r
	case "ellipse":
		rx, ry := num("rx", d.vbW), num("ry", d.vbH)
		el.fill, el.stroke = math.Pi*rx*ry, math.Pi*(rx+ry)
	case "line":
		el.fill = -1 // a line has no inside
		el.stroke = math.Hypot(num("x2", d.vbW)-num("x1", d.vbW), num("y2", d.vbH)-num("y1", d.vbH))
	case "polygon", "polyline":
		w, h := bboxOf(d.numbers(g["points"], -1))
		el.fill, el.stroke = w*h/2, 2*(w+h)
	case "image":
		// Not a shape: its colours are its raster's (paintImages).
		el.image = num("width", d.vbW) * num("height", d.vbH)
		return
	case "path":
		// Each subpath by its own box: a wordmark's letters are many small
		// subpaths across a wide box, which as one box would outweigh the
		// mark beside it.
		_, _, subs := d.pathBox(g["d"])
		for _, wh := range subs {
			el.fill += wh[0] * wh[1] / 2
			el.stroke += 2 * (wh[0] + wh[1])
		}
	default:
		return
	}
	el.hasShape = true
}

// length reads a coordinate; a percentage is of ref.
func (d *svgDoc) length(s string, ref float64) float64 {
	s = strings.TrimSpace(s)
	if s == "" {
		return 0
	}
	if strings.HasSuffix(s, "%") {
		v, err := strconv.ParseFloat(strings.TrimSuffix(s, "%"), 64)
		if err != nil {
			return 0
		}
		return math.Abs(v) / 100 * ref
	}
	s = strings.TrimRight(s, "abcdefghijklmnopqrstuvwxyz")
	v, err := strconv.ParseFloat(s, 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0
	}
	return math.Abs(v)
}

// numbers reads up to max (all when max < 0) numbers of a points list,
// viewBox or path, within the document's budget.
func (d *svgDoc) numbers(s string, max int) []float64 {
	var out []float64
	for i := 0; i < len(s) && (max < 0 || len(out) < max) && d.nums < maxSVGNumbers; {
		v, n := scanNumber(s[i:])
		if n == 0 {
			i++
			continue
		}
		out = append(out, v)
		d.nums++
		i += n
	}
	return out
}

// scanNumber reads an SVG number at the start of s ("-1.5e2", ".5"; "1.5.5"
// is two numbers), answering its length, 0 when there is none.
func scanNumber(s string) (float64, int) {
	i := 0
	if i < len(s) && (s[i] == '-' || s[i] == '+') {
		i++
	}
	digits, dot := 0, false
	for i < len(s) {
		c := s[i]
		if c >= '0' && c <= '9' {
			digits++
		} else if c == '.' && !dot {
			dot = true
		} else {
			break
		}
		i++
	}
	if digits == 0 {
		return 0, 0
	}
	if i < len(s) && (s[i] == 'e' || s[i] == 'E') {
		j := i + 1
		if j < len(s) && (s[j] == '-' || s[j] == '+') {
			j++
		}
		if j < len(s) && s[j] >= '0' && s[j] <= '9' {
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			i = j
		}
	}
	v, err := strconv.ParseFloat(s[:i], 64)
	if err != nil || math.IsInf(v, 0) || math.IsNaN(v) {
		return 0, i
	}
	return v, i
}

// bboxOf is the width and height of the box around x,y pairs.
func bboxOf(f []float64) (float64, float64) {
	if len(f) < 2 {
		return 0, 0
	}
	x0, x1, y0, y1 := f[0], f[0], f[1], f[1]
	for i := 0; i+1 < len(f); i += 2 {
		x0, x1 = math.Min(x0, f[i]), math.Max(x1, f[i])
		y0, y1 = math.Min(y0, f[i+1]), math.Max(y1, f[i+1])
	}
	return x1 - x0, y1 - y0
}

// pathBox is the width and height of the box around a path's points,
// control points included (which can only make the box larger), and the
// width and height of each subpath's box.
func (d *svgDoc) pathBox(p string) (float64, float64, [][2]float64) {
	var pts []float64
	var subs [][2]float64
	subStart := 0 // index in pts where the current subpath begins
	endSub := func() {
		if len(pts) > subStart {
			w, h := bboxOf(pts[subStart:])
			subs = append(subs, [2]float64{w, h})
		}
		subStart = len(pts)
	}
	cx, cy, sx, sy := 0.0, 0.0, 0.0, 0.0
	cmd := byte(0)
	var args []float64
	need := func(c byte) int {
		switch c | 0x20 {
		case 'm', 'l', 't':
			return 2
		case 'h', 'v':
			return 1
		case 'c':
			return 6
		case 's', 'q':
			return 4
		case 'a':
			return 7
		}
		return 0
	}
	apply := func() {
		rel := cmd >= 'a'
		ox, oy := 0.0, 0.0
		if rel {
			ox, oy = cx, cy
		}
		switch cmd | 0x20 {
		case 'm', 'l', 't':
			cx, cy = ox+args[0], oy+args[1]
			if cmd|0x20 == 'm' {
				sx, sy = cx, cy
				if rel {
					cmd = 'l'
				} else {
					cmd = 'L'
				}
			}
		case 'h':
			cx = ox + args[0]
		case 'v':
			if rel {
				cy += args[0]
			} else {
				cy = args[0]
			}
		case 'c', 's', 'q':
			for i := 0; i+1 < len(args)-2; i += 2 {
				pts = append(pts, ox+args[i], oy+args[i+1])
			}
			cx, cy = ox+args[len(args)-2], oy+args[len(args)-1]
		case 'a':
			cx, cy = ox+args[5], oy+args[6]
		}
		pts = append(pts, cx, cy)
		args = args[:0]
	}
	for i := 0; i < len(p) && d.nums < maxSVGNumbers; {
		c := p[i]
		if c|0x20 >= 'a' && c|0x20 <= 'z' && c|0x20 != 'e' {
			args = args[:0]
			cmd = c
			if c|0x20 == 'm' {
				endSub()
			}
			if c|0x20 == 'z' {
				cx, cy = sx, sy
			}
			i++
			continue
		}
		v, n := scanNumber(p[i:])
		if n == 0 {
			i++
			continue
		}
		i += n
		d.nums++
		if need(cmd) == 0 {
			continue
		}
		args = append(args, v)
		if len(args) == need(cmd) {
			apply()
		}
	}
	endSub()
	w, h := bboxOf(pts)
	return w, h, subs
}

// transformScale is the factor by which a transform list scales areas:
// the product of its functions' |determinants|.
func transformScale(t string) float64 {
	s := 1.0
	for t != "" {
		open := strings.IndexByte(t, '(')
		closing := strings.IndexByte(t, ')')
		if open < 0 || closing < open {
			break
		}
		name := strings.ToLower(strings.TrimSpace(strings.Trim(t[:open], " ,\t\n")))
		var f []float64
		for a := t[open+1 : closing]; a != ""; {
			v, n := scanNumber(a)
			if n == 0 {
				a = a[1:]
				continue
			}
			f = append(f, v)
			a = a[n:]
		}
		switch name {
		case "matrix":
			if len(f) >= 4 {
				s *= math.Abs(f[0]*f[3] - f[1]*f[2])
			}
		case "scale":
			if len(f) == 1 {
				s *= f[0] * f[0]
			} else if len(f) >= 2 {
				s *= math.Abs(f[0] * f[1])
			}
		}
		t = t[closing+1:]
	}
	if math.IsNaN(s) || math.IsInf(s, 0) {
		return 1
	}
	return s
}

// parseDecls reads "fill: #123; stroke: red" into a map.
func parseDecls(s string) map[string]string {
	m := map[string]string{}
	for _, d := range strings.Split(s, ";") {
		k, v, ok := strings.Cut(d, ":")
		if !ok {
			continue
		}
		v = strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "!important"))
		m[strings.ToLower(strings.TrimSpace(k))] = v
	}
	return m
}

// parseSVGStyle reads the simple rules exported SVGs carry (Illustrator
// and Figma colour shapes through .cls-1 { fill: … }). A selector counts
// by its last simple part, which is what exporters write.
func parseSVGStyle(css string) []svgRule {
	css = strings.NewReplacer("<![CDATA[", "", "]]>", "").Replace(css)
	for {
		i := strings.Index(css, "/*")
		if i < 0 {
			break
		}
		j := strings.Index(css[i+2:], "*/")
		if j < 0 {
			css = css[:i]
			break
		}
		css = css[:i] + css[i+2+j+2:]
	}
	var out []svgRule
	for _, block := range strings.Split(css, "}") {
		sel, body, ok := strings.Cut(block, "{")
		if !ok || strings.Contains(sel, "@") {
			continue
		}
		decls := parseDecls(body)
		for _, s := range strings.Split(sel, ",") {
			f := strings.Fields(s)
			if len(f) == 0 {
				continue
			}
			last := f[len(f)-1]
			if i := strings.LastIndexAny(last, ".#"); i > 0 {
				last = last[i:]
			}
			out = append(out, svgRule{strings.ToLower(last), decls})
		}
	}
	return out
}

// own is a property set on element i itself: by its style attribute, then
// style rules, then its attribute; "" when none is (or it says inherit).
func (d *svgDoc) own(i int, name string) string {
	el := &d.els[i]
	if v, ok := el.style[name]; ok && v != "inherit" {
		return v
	}
	if d.bySel == nil { // the latest rule for a selector and property wins
		d.bySel = make(map[string]map[string]svgDecl, len(d.rules))
		for ri, r := range d.rules {
			m := d.bySel[r.sel]
			if m == nil {
				m = make(map[string]svgDecl, len(r.decls))
				d.bySel[r.sel] = m
			}
			for k, v := range r.decls {
				m[k] = svgDecl{v, ri}
			}
		}
	}
	best := svgDecl{order: -1}
	look := func(sel string) {
		if x, ok := d.bySel[sel][name]; ok && x.order > best.order {
			best = x
		}
	}
	for _, c := range el.classes {
		look("." + strings.ToLower(c))
	}
	if el.id != "" {
		look("#" + strings.ToLower(el.id))
	}
	look(el.tag)
	look("*")
	if best.order >= 0 && best.v != "inherit" {
		return best.v
	}
	if v, ok := el.attr[name]; ok && v != "inherit" {
		return v
	}
	return ""
}

// svgState is what an element inherits, resolved once per element in
// document order (a parent always comes before its children).
type svgState struct {
	fill, stroke, strokeWidth string
	fillOpacity, strokeOpac   float64
	opacity                   float64 // the product of opacity down from the root
	scale                     float64
	hidden                    bool
}

func (d *svgDoc) states() []svgState {
	st := make([]svgState, len(d.els))
	for i := range d.els {
		s := svgState{fill: "#000", fillOpacity: 1, strokeOpac: 1, opacity: 1, scale: 1}
		if p := d.els[i].parent; p >= 0 {
			s = st[p]
		}
		for _, x := range [...]struct {
			name string
			to   *string
		}{{"fill", &s.fill}, {"stroke", &s.stroke}, {"stroke-width", &s.strokeWidth}} {
			if v := d.own(i, x.name); v != "" {
				*x.to = v
			}
		}
		if v := d.own(i, "fill-opacity"); v != "" {
			s.fillOpacity = parseOpacity(v)
		}
		if v := d.own(i, "stroke-opacity"); v != "" {
			s.strokeOpac = parseOpacity(v)
		}
		s.opacity *= parseOpacity(d.own(i, "opacity"))
		if d.own(i, "display") == "none" || d.own(i, "visibility") == "hidden" || s.opacity == 0 {
			s.hidden = true
		}
		s.scale *= d.els[i].scale
		st[i] = s
	}
	return st
}

// parseOpacity reads 0.5 or 50%; "" or nonsense is 1.
func parseOpacity(v string) float64 {
	v = strings.TrimSpace(v)
	if v == "" {
		return 1
	}
	pct := strings.HasSuffix(v, "%")
	f, err := strconv.ParseFloat(strings.TrimSuffix(v, "%"), 64)
	if err != nil || math.IsNaN(f) {
		return 1
	}
	if pct {
		f /= 100
	}
	return clamp(f, 0, 1)
}

// shareOf is one colour a paint shows and the part of the shape's area it
// gets.
type shareOf struct {
	c     rgb
	share float64
}

// paints resolves a paint value, at an opacity, to the colours it shows
// laid on white: a colour over the whole shape, or a gradient's stops
// sharing half of it and their blend the other half (gradientPaints).
func (d *svgDoc) paints(v string, alpha float64) []shareOf {
	v = strings.TrimSpace(v)
	switch strings.ToLower(v) {
	case "", "none", "transparent", "currentcolor", "context-fill", "context-stroke":
		return nil
	}
	if strings.HasPrefix(strings.ToLower(v), "url(") {
		end := strings.IndexByte(v, ')')
		if end < 0 {
			return nil
		}
		ref := strings.Trim(strings.TrimSpace(v[4:end]), `'"`)
		return gradientPaints(d.gradientStops(strings.TrimPrefix(ref, "#"), 0), alpha)
	}
	if c, ok := parseColorValue([]byte(v)); ok && alpha >= minAlpha {
		return []shareOf{{onWhite(c, alpha), 1}}
	}
	return nil
}

// gradStop is a gradient stop's colour, stop-opacity and offset (0..1).
type gradStop struct {
	c   rgb
	a   float64
	off float64
}

// gradientPaints is what a gradient at an opacity shows, laid on white,
// as shares of the shape's area by the stops' offsets: the pads before the
// first and after the last stop, and a run between two stops of one
// colour, are that colour; a run between two colours gives half its
// length to their blend at its middle and a quarter to each end. (Before,
// the stops alone shared half the area, whatever their offsets, and the
// blend a person sees most of counted nothing: a logo of translucent
// gradients was named by its darkest stops.) Paints too faint to see
// are left out.
func gradientPaints(stops []gradStop, alpha float64) []shareOf {
	if len(stops) == 0 {
		return nil
	}
	var out []shareOf
	add := func(c rgb, a, share float64) {
		if a*alpha >= minAlpha && share > 0 {
			out = append(out, shareOf{onWhite(c, a*alpha), share})
		}
	}
	first, last := stops[0], stops[len(stops)-1]
	add(first.c, first.a, first.off)
	add(last.c, last.a, 1-last.off)
	for i := 1; i < len(stops); i++ {
		x, y := stops[i-1], stops[i]
		run := y.off - x.off
		if x.c == y.c {
			add(x.c, (x.a+y.a)/2, run)
			continue
		}
		add(x.c, x.a, run/4)
		add(y.c, y.a, run/4)
		mid := func(u, v uint8) uint8 { return uint8((int(u) + int(v) + 1) / 2) }
		add(rgb{mid(x.c.R, y.c.R), mid(x.c.G, y.c.G), mid(x.c.B, y.c.B)}, (x.a+y.a)/2, run/2)
	}
	return out
}

// onWhite is c at opacity a laid on white.
func onWhite(c rgb, a float64) rgb {
	if a >= 1 {
		return c
	}
	f := func(v uint8) uint8 { return uint8(math.Round(float64(v)*a + 255*(1-a))) }
	return rgb{f(c.R), f(c.G), f(c.B)}
}

// gradientStops lists the stops of the gradient with an id, following
// its href when it has no stops of its own.
func (d *svgDoc) gradientStops(id string, depth int) []gradStop {
	if id == "" || depth > 4 {
		return nil
	}
	for gi := range d.els {
		g := &d.els[gi]
		if g.id != id || !strings.HasSuffix(g.tag, "gradient") {
			continue
		}
		var out []gradStop
		for si := gi + 1; si < len(d.els); si++ {
			if d.els[si].parent != gi || d.els[si].tag != "stop" {
				continue
			}
			v := d.own(si, "stop-color")
			if v == "" {
				v = "#000"
			}
			c, ok := parseColorValue([]byte(v))
			if !ok {
				continue
			}
			off := parseOpacity(d.els[si].attr["offset"]) // a fraction or percentage clamped to 0..1, like an opacity
			if d.els[si].attr["offset"] == "" {
				off = 0
			}
			if n := len(out); n > 0 {
				off = max(off, out[n-1].off)
			}
			out = append(out, gradStop{c, parseOpacity(d.own(si, "stop-opacity")), off})
		}
		if len(out) == 0 {
			href := g.attr["href"]
			if href == "" {
				href = g.attr["xlink:href"]
			}
			return d.gradientStops(strings.TrimPrefix(href, "#"), depth+1)
		}
		return out
	}
	return nil
}

// paintImages adds the colours of the rasters an SVG embeds as data: URLs
// (a logo exported as an SVG wrapping a PNG paints nothing but its
// raster): each dominant colour with its share of the image's area, laid
// on white at the image's opacity. clusters decodes a raster; images it
// cannot decode, and linked ones (the fetcher does not follow them), add
// nothing.
func (d *svgDoc) paintImages(p *palette, clusters func([]byte) ([]cluster, bool)) {
	st := d.states()
	decoded := 0
	for i := range d.els {
		el, s := &d.els[i], &st[i]
		if el.tag != "image" || el.inert || s.hidden || !(el.image > 0) || decoded >= maxSVGImages {
			continue
		}
		href := el.attr["href"]
		if href == "" {
			href = el.attr["xlink:href"]
		}
		_, body, ok := decodeDataURL([]byte(href))
		if !ok || isSVG(body, "") {
			continue
		}
		decoded++
		cls, ok := clusters(body)
		if !ok {
			continue
		}
		for _, cl := range cls {
			d.addPaint(p, []shareOf{{onWhite(cl.c, s.opacity), cl.share}}, el.image*s.scale*s.opacity)
		}
	}
}

// paint adds each shape's fill and stroke colours with their areas.
// Shapes whose area cannot be told count one unit, so a document of such
// shapes falls back to counting uses.
func (d *svgDoc) paint(p *palette) {
	st := d.states()
	for i := range d.els {
		el, s := &d.els[i], &st[i]
		if !el.hasShape || el.inert || s.hidden {
			continue
		}
		if el.fill >= 0 {
			a := el.fill
			if a == 0 { // size not told: one unit
				a = 1
			}
			alpha := s.fillOpacity * s.opacity
			d.addPaint(p, d.paints(s.fill, alpha), a*s.scale*alpha)
		}
		if s.stroke != "" && el.stroke > 0 {
			sw := 1.0
			if s.strokeWidth != "" {
				sw = d.length(s.strokeWidth, math.Hypot(d.vbW, d.vbH)/math.Sqrt2)
			}
			alpha := s.strokeOpac * s.opacity
			d.addPaint(p, d.paints(s.stroke, alpha), el.stroke*sw*s.scale*alpha)
		}
	}
	if len(p.c) > 0 {
		return
	}
	// No shape painted (its shapes are <use> of another file, <text>, or
	// none): count the colours the document names, one use each.
	for i := range d.els {
		el := &d.els[i]
		for _, k := range [...]string{"fill", "stroke", "stop-color"} {
			for _, v := range [...]string{el.attr[k], el.style[k]} {
				if c, ok := parseColorValue([]byte(v)); ok {
					d.addPaint(p, []shareOf{{c, 1}}, 1)
				}
			}
		}
	}
	for _, r := range d.rules {
		for _, k := range [...]string{"fill", "stroke", "stop-color"} {
			if c, ok := parseColorValue([]byte(r.decls[k])); ok {
				d.addPaint(p, []shareOf{{c, 1}}, 1)
			}
		}
	}
}

func (d *svgDoc) addPaint(p *palette, cs []shareOf, area float64) {
	if len(cs) == 0 || !(area > 0) || math.IsInf(area, 0) {
		return
	}
	for _, c := range cs {
		if l, a, b := c.c.lab(); nearWhite(l, a, b) {
			continue
		}
		p.add(c.c, area*c.share)
	}
}
