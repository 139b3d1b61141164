package brand

import (
	"math"

	colorful "github.com/lucasb-eyer/go-colorful"
	"github.com/tdewolff/parse/v2/css"
	pstrconv "github.com/tdewolff/parse/v2/strconv"
	"golang.org/x/image/colornames"
)

// rgb is an opaque sRGB colour; alpha is handled where colours are read and
// never survives past that point, because a palette has no use for it.
type rgb struct{ R, G, B uint8 }

// minAlpha is the opacity below which a colour is a tint, shadow or overlay
// rather than a colour anyone chose for the brand.
const minAlpha = 0.6

const hexDigits = "0123456789ABCDEF"

// hex formats c as upper-case "#RRGGBB", the form the palette API stores.
func (c rgb) hex() string {
	b := [7]byte{'#',
		hexDigits[c.R>>4], hexDigits[c.R&15],
		hexDigits[c.G>>4], hexDigits[c.G&15],
		hexDigits[c.B>>4], hexDigits[c.B&15]}
	return string(b[:])
}

func (c rgb) colorful() colorful.Color {
	return colorful.Color{R: float64(c.R) / 255, G: float64(c.G) / 255, B: float64(c.B) / 255}
}

// lab returns CIELAB with L in 0..100 (go-colorful uses 0..1).
func (c rgb) lab() (l, a, b float64) {
	l, a, b = c.colorful().Lab()
	return l * 100, a * 100, b * 100
}

// fromColorful clamps a colour that may be out of gamut (lab, oklch, hsl
// rounding) back into sRGB.
func fromColorful(c colorful.Color) rgb {
	if math.IsNaN(c.R) || math.IsNaN(c.G) || math.IsNaN(c.B) {
		return rgb{}
	}
	r, g, b := c.Clamped().RGB255()
	return rgb{r, g, b}
}

// tone says whether a colour can stand for a brand: greys (low chroma),
// near-white and near-black cannot, unless nothing else is found.
type tone uint8

const (
	chromatic tone = iota
	neutral
)

// Thresholds in CIELAB (L 0..100). Chroma 16 keeps a dark navy such as
// Stripe's #0A2540 (C≈20) while dropping Tailwind's slate greys (C≈13–15).
const (
	greyChroma     = 16.0
	nearBlackL     = 8.0
	nearBlackMaxC  = 30.0
	nearWhiteL     = 95.0
	nearWhiteMaxC  = 20.0
	mergeDeltaE    = 10.0 // ΔE2000 below which two colours are one
	prefilterDelta = 60.0 // ΔE76 above which ΔE2000 cannot be below 10
)

func toneOf(l, a, b float64) tone {
	c := math.Hypot(a, b)
	switch {
	case c < greyChroma:
		return neutral
	case l < nearBlackL && c < nearBlackMaxC:
		return neutral
	case l > nearWhiteL && c < nearWhiteMaxC:
		return neutral
	}
	return chromatic
}

// parseHex reads the digits of #rgb, #rgba, #rrggbb or #rrggbbaa (without
// the '#').
func parseHex(h []byte) (rgb, float64, bool) {
	var v [8]uint8
	if len(h) != 3 && len(h) != 4 && len(h) != 6 && len(h) != 8 {
		return rgb{}, 0, false
	}
	for i, ch := range h {
		switch {
		case ch >= '0' && ch <= '9':
			v[i] = ch - '0'
		case ch >= 'a' && ch <= 'f':
			v[i] = ch - 'a' + 10
		case ch >= 'A' && ch <= 'F':
			v[i] = ch - 'A' + 10
		default:
			return rgb{}, 0, false
		}
	}
	switch len(h) {
	case 3, 4:
		c := rgb{v[0] * 17, v[1] * 17, v[2] * 17}
		if len(h) == 4 {
			return c, float64(v[3]*17) / 255, true
		}
		return c, 1, true
	default:
		c := rgb{v[0]<<4 | v[1], v[2]<<4 | v[3], v[4]<<4 | v[5]}
		if len(h) == 8 {
			return c, float64(v[6]<<4|v[7]) / 255, true
		}
		return c, 1, true
	}
}

// namedColor looks a CSS colour keyword up without allocating.
// "transparent" and "currentcolor" are not colours for this purpose.
func namedColor(b []byte) (rgb, bool) {
	if len(b) < 3 || len(b) > 20 {
		return rgb{}, false
	}
	var buf [20]byte
	for i, ch := range b {
		if ch >= 'A' && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		buf[i] = ch
	}
	s := buf[:len(b)]
	if string(s) == "rebeccapurple" {
		return rgb{0x66, 0x33, 0x99}, true
	}
	c, ok := colornames.Map[string(s)]
	if !ok {
		return rgb{}, false
	}
	return rgb{c.R, c.G, c.B}, true
}

// tok is one CSS token. Data points into the document being read, which
// outlives every tok because Extract holds the Site.
type tok struct {
	tt   css.TokenType
	data []byte
}

// lowerASCII reports whether b equals the lower-case ASCII word w,
// ignoring case.
func equalFold(b []byte, w string) bool {
	if len(b) != len(w) {
		return false
	}
	for i := range b {
		ch := b[i]
		if ch >= 'A' && ch <= 'Z' {
			ch += 'a' - 'A'
		}
		if ch != w[i] {
			return false
		}
	}
	return true
}

// varLookup resolves a custom property to its value tokens; nil while the
// stylesheets are still being read.
type varLookup func(name []byte) ([]tok, bool)

// maxVarDepth bounds var() chains. The brief asks for one level; design
// systems routinely alias a semantic token to a primitive one
// (--brand: var(--indigo-600)), so a few levels are followed, and the bound
// also stops cycles.
const maxVarDepth = 4

// maxFallbackDepth bounds nested var() fallbacks, var(--a, var(--b, …)).
const maxFallbackDepth = 8

// colorEmit receives every colour found in a value; fromVar says it came
// through a var() reference (so a second, resolving pass can skip the
// literals it already counted).
type colorEmit func(c rgb, fromVar bool)

// valueScan walks a declaration value and reports each colour it holds:
// hex tokens, colour functions (rgb, hsl, hwb, lab, lch, oklab, oklch,
// color), keywords when identsOK, and var() references when vars is set. It
// looks inside other functions (gradients, color-mix, drop-shadow) but not
// inside url(). It returns whether a var() was seen.
func valueScan(toks []tok, identsOK bool, vars varLookup, depth int, fromVar bool, emit colorEmit) (sawVar bool) {
	for i := 0; i < len(toks); i++ {
		t := toks[i]
		switch t.tt {
		case css.HashToken:
			if c, a, ok := parseHex(t.data[1:]); ok && a >= minAlpha {
				emit(c, fromVar)
			}
		case css.IdentToken:
			if identsOK {
				if c, ok := namedColor(t.data); ok {
					emit(c, fromVar)
				}
			}
		case css.FunctionToken:
			name := t.data[:len(t.data)-1]
			isVar := equalFold(name, "var")
			if !isVar && !isColorFunc(name) {
				// gradients, color-mix(), drop-shadow(), calc(): read
				// inside (no need to find the end: that would make nested
				// functions quadratic).
				continue
			}
			end := closeParen(toks, i+1)
			args := toks[i+1 : end]
			switch {
			case isVar:
				sawVar = true
				vname, fallback := splitVar(args)
				resolved := false
				if vars != nil && depth < maxVarDepth && vname != nil {
					if v, ok := vars(vname); ok {
						resolved = true
						valueScan(v, true, vars, depth+1, true, emit)
					}
				}
				if !resolved && fallback != nil && depth < maxFallbackDepth {
					if valueScan(fallback, identsOK, vars, depth+1, fromVar, emit) {
						sawVar = true
					}
				}
				i = end
			default:
				// A var() that only sets the alpha (Tailwind's
				// --tw-bg-opacity) does not need the variables, so the
				// colour is not reported again by the resolving pass.
				c, a, ok := colorFunc(name, args, vars, depth)
				viaVar := false
				if hasVar(args) {
					ok0 := ok
					if vars != nil {
						_, _, ok0 = colorFunc(name, args, nil, depth)
					}
					sawVar = sawVar || !ok0
					viaVar = !ok0
				}
				if ok && a >= minAlpha {
					emit(c, fromVar || viaVar)
				}
				i = end
			}
		}
	}
	return sawVar
}

func hasVar(toks []tok) bool {
	for _, t := range toks {
		if t.tt == css.FunctionToken && equalFold(t.data, "var(") {
			return true
		}
	}
	return false
}

// closeParen returns the index of the ')' closing a function whose
// arguments start at i, or len(toks) if it is unclosed.
func closeParen(toks []tok, i int) int {
	depth := 0
	for ; i < len(toks); i++ {
		switch toks[i].tt {
		case css.FunctionToken, css.LeftParenthesisToken:
			depth++
		case css.RightParenthesisToken:
			if depth == 0 {
				return i
			}
			depth--
		}
	}
	return len(toks)
}

// splitVar splits var(--name, fallback) arguments.
func splitVar(args []tok) (name []byte, fallback []tok) {
	i := 0
	for i < len(args) && args[i].tt == css.WhitespaceToken {
		i++
	}
	if i >= len(args) || args[i].tt != css.CustomPropertyNameToken {
		return nil, nil
	}
	name = args[i].data
	depth := 0
	for j := i + 1; j < len(args); j++ {
		switch args[j].tt {
		case css.FunctionToken, css.LeftParenthesisToken:
			depth++
		case css.RightParenthesisToken:
			depth--
		case css.CommaToken:
			if depth == 0 {
				return name, args[j+1:]
			}
		}
	}
	return name, nil
}

func isColorFunc(name []byte) bool {
	if len(name) < 3 || len(name) > 5 {
		return false
	}
	for _, w := range [...]string{"rgb", "rgba", "hsl", "hsla", "hwb", "lab", "lch", "oklab", "oklch", "color"} {
		if equalFold(name, w) {
			return true
		}
	}
	return false
}

// component is one numeric argument of a colour function.
type component struct {
	v    float64
	unit byte // 0 number, '%' percentage, 'd' degrees (converted), 'n' none
}

// colorArgs splits colour-function arguments into channel components and
// an optional alpha, expanding var() when it stands for whole components
// (shadcn's hsl(var(--primary)), Tailwind's rgb(var(--c) / 0.5)). An
// unresolved var() in the alpha slot counts as opaque, as Tailwind v3's
// rgb(79 70 229 / var(--tw-bg-opacity)) is.
func colorArgs(args []tok, vars varLookup, depth int, out []component, alpha *float64) ([]component, bool) {
	afterSlash := false
	commas := 0
	for i := 0; i < len(args); i++ {
		t := args[i]
		switch t.tt {
		case css.WhitespaceToken, css.CommentToken:
		case css.CommaToken:
			commas++
			if len(out) == 3 {
				afterSlash = true
			}
		case css.DelimToken:
			if len(t.data) == 1 && t.data[0] == '/' {
				afterSlash = true
			} else {
				return out, false
			}
		case css.NumberToken, css.PercentageToken, css.DimensionToken:
			f, n := pstrconv.ParseFloat(t.data)
			if n == 0 || math.IsNaN(f) || math.IsInf(f, 0) {
				return out, false
			}
			comp := component{v: f}
			unit := t.data[n:]
			switch {
			case len(unit) == 0:
			case len(unit) == 1 && unit[0] == '%':
				comp.unit = '%'
			case equalFold(unit, "deg"):
				comp.unit = 'd'
			case equalFold(unit, "rad"):
				comp.unit, comp.v = 'd', f*180/math.Pi
			case equalFold(unit, "grad"):
				comp.unit, comp.v = 'd', f*0.9
			case equalFold(unit, "turn"):
				comp.unit, comp.v = 'd', f*360
			default:
				return out, false
			}
			if afterSlash {
				*alpha = alphaOf(comp)
				continue
			}
			if len(out) >= 4 {
				return out, false
			}
			out = append(out, comp)
		case css.IdentToken:
			if equalFold(t.data, "none") {
				if afterSlash {
					*alpha = 1
				} else {
					out = append(out, component{unit: 'n'})
				}
				continue
			}
			if len(out) == 0 && !afterSlash {
				// color(srgb …) / color(display-p3 …): treat both as sRGB.
				continue
			}
			return out, false
		case css.FunctionToken:
			if !equalFold(t.data, "var(") {
				return out, false // calc() and friends
			}
			end := closeParen(args, i+1)
			vname, fallback := splitVar(args[i+1 : end])
			var v []tok
			ok := false
			if vars != nil && depth < maxVarDepth && vname != nil {
				v, ok = vars(vname)
			}
			if !ok && fallback != nil {
				v, ok = fallback, true
			}
			if !ok {
				if afterSlash {
					*alpha = 1
					i = end
					continue
				}
				return out, false
			}
			var good bool
			out, good = colorArgs(v, vars, depth+1, out, alpha)
			if !good {
				return out, false
			}
			i = end
		default:
			return out, false
		}
	}
	return out, true
}

func alphaOf(c component) float64 {
	if c.unit == '%' {
		return clamp(c.v/100, 0, 1)
	}
	return clamp(c.v, 0, 1)
}

func clamp(v, lo, hi float64) float64 {
	if v < lo {
		return lo
	}
	if v > hi {
		return hi
	}
	return v
}

// pct reads a component that may be a percentage or a number in 0..scale,
// returning a fraction.
func frac(c component, scale float64) float64 {
	if c.unit == '%' {
		return c.v / 100
	}
	return c.v / scale
}

// colorFunc evaluates rgb(), hsl(), hwb(), lab(), lch(), oklab(), oklch()
// and color(srgb …) in both comma and space syntax.
func colorFunc(name []byte, args []tok, vars varLookup, depth int) (rgb, float64, bool) {
	var buf [4]component
	alpha := 1.0
	comps, ok := colorArgs(args, vars, depth, buf[:0], &alpha)
	if !ok {
		return rgb{}, 0, false
	}
	if len(comps) == 4 { // legacy rgba(r, g, b, a) with commas
		alpha = alphaOf(comps[3])
		comps = comps[:3]
	}
	if len(comps) != 3 {
		return rgb{}, 0, false
	}
	c, ok := evalColor(name, comps)
	return c, alpha, ok
}

func evalColor(name []byte, c []component) (rgb, bool) {
	hue := func(x component) float64 {
		h := math.Mod(x.v, 360)
		if h < 0 {
			h += 360
		}
		return h
	}
	switch {
	case equalFold(name, "rgb"), equalFold(name, "rgba"):
		var v [3]uint8
		for i, x := range c {
			v[i] = uint8(math.Round(clamp(frac(x, 255), 0, 1) * 255))
		}
		return rgb{v[0], v[1], v[2]}, true
	case equalFold(name, "color"):
		var v [3]uint8
		for i, x := range c {
			v[i] = uint8(math.Round(clamp(frac(x, 1), 0, 1) * 255))
		}
		return rgb{v[0], v[1], v[2]}, true
	case equalFold(name, "hsl"), equalFold(name, "hsla"):
		s := clamp(frac(c[1], 100), 0, 1)
		l := clamp(frac(c[2], 100), 0, 1)
		return fromColorful(colorful.Hsl(hue(c[0]), s, l)), true
	case equalFold(name, "hwb"):
		w := clamp(frac(c[1], 100), 0, 1)
		bl := clamp(frac(c[2], 100), 0, 1)
		if w+bl >= 1 {
			g := w / (w + bl)
			return fromColorful(colorful.Color{R: g, G: g, B: g}), true
		}
		base := colorful.Hsv(hue(c[0]), 1, 1)
		f := func(v float64) float64 { return v*(1-w-bl) + w }
		return fromColorful(colorful.Color{R: f(base.R), G: f(base.G), B: f(base.B)}), true
	case equalFold(name, "lab"):
		l := clamp(frac(c[0], 100), 0, 1)
		a := frac(c[1], 1)
		b := frac(c[2], 1)
		if c[1].unit == '%' {
			a = c[1].v / 100 * 125
		}
		if c[2].unit == '%' {
			b = c[2].v / 100 * 125
		}
		return fromColorful(colorful.LabWhiteRef(l, a/100, b/100, colorful.D50)), true
	case equalFold(name, "lch"):
		l := clamp(frac(c[0], 100), 0, 1)
		ch := c[1].v
		if c[1].unit == '%' {
			ch = c[1].v / 100 * 150
		}
		h := hue(c[2]) * math.Pi / 180
		return fromColorful(colorful.LabWhiteRef(l, ch*math.Cos(h)/100, ch*math.Sin(h)/100, colorful.D50)), true
	case equalFold(name, "oklab"):
		l := clamp(frac(c[0], 1), 0, 1)
		a, b := c[1].v, c[2].v
		if c[1].unit == '%' {
			a = c[1].v / 100 * 0.4
		}
		if c[2].unit == '%' {
			b = c[2].v / 100 * 0.4
		}
		return fromColorful(colorful.OkLab(l, a, b)), true
	case equalFold(name, "oklch"):
		l := clamp(frac(c[0], 1), 0, 1)
		ch := c[1].v
		if c[1].unit == '%' {
			ch = c[1].v / 100 * 0.4
		}
		return fromColorful(colorful.OkLch(l, math.Max(ch, 0), hue(c[2]))), true
	}
	return rgb{}, false
}

// bareTriplet reads custom-property values that hold colour channels
// without a function, a common convention: shadcn's "--primary: 262 83% 58%"
// (HSL) and Bootstrap's "--bs-primary-rgb: 13, 110, 253" or Tailwind's
// "--color-primary: 99 91 255" (RGB).
func bareTriplet(toks []tok) (rgb, bool) {
	var buf [4]component
	alpha := 1.0
	for _, t := range toks {
		switch t.tt {
		case css.NumberToken, css.PercentageToken, css.WhitespaceToken, css.CommaToken, css.CommentToken:
		case css.DimensionToken:
		default:
			return rgb{}, false
		}
	}
	comps, ok := colorArgs(toks, nil, 0, buf[:0], &alpha)
	if !ok || len(comps) != 3 {
		return rgb{}, false
	}
	if comps[1].unit == '%' && comps[2].unit == '%' && comps[0].unit != '%' {
		return evalColor([]byte("hsl"), comps)
	}
	for _, c := range comps {
		if c.unit != 0 || c.v < 0 || c.v > 255 {
			return rgb{}, false
		}
	}
	return evalColor([]byte("rgb"), comps)
}

// lexValue tokenizes a short CSS value held in an attribute or JSON string.
func lexValue(s []byte, out []tok) []tok {
	l := css.NewLexer(newInput(s))
	for {
		tt, data := l.Next()
		if tt == css.ErrorToken || len(out) >= maxStmtTokens {
			return out
		}
		if tt == css.CommentToken {
			continue
		}
		out = append(out, tok{tt, data})
	}
}

// parseColorValue reads the first colour of a standalone value such as an
// SVG fill attribute, a theme-color meta or a manifest field.
func parseColorValue(s []byte) (rgb, bool) {
	s = trimSpace(s)
	if len(s) > 0 && s[0] == '#' {
		c, a, ok := parseHex(s[1:])
		return c, ok && a >= minAlpha
	}
	if len(s) == 0 || len(s) > 256 {
		return rgb{}, false
	}
	var buf [32]tok
	toks := lexValue(s, buf[:0])
	var found rgb
	ok := false
	valueScan(toks, true, nil, 0, false, func(c rgb, _ bool) {
		if !ok {
			found, ok = c, true
		}
	})
	return found, ok
}

func trimSpace(s []byte) []byte {
	for len(s) > 0 && isSpace(s[0]) {
		s = s[1:]
	}
	for len(s) > 0 && isSpace(s[len(s)-1]) {
		s = s[:len(s)-1]
	}
	return s
}

func isSpace(c byte) bool {
	return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f'
}
