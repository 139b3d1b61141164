package chartspec

import (
	"math"
	"slices"

	colorful "github.com/lucasb-eyer/go-colorful"
)

// Palette extension. A chart with more series than its palette has colours
// gets further colours generated in the palette's own style, so no named
// series is ever painted in a shared grey. The generator works in OKLab
// (Björn Ottosson's perceptual space, through go-colorful) on a grid of
// candidates: hues all round the circle at the palette's chroma, and a
// little more vivid, at lightness steps from dark to the 3:1 contrast
// limit against white (WCAG 1.4.11, the faint-color check, so lint has
// nothing to say about a generated colour's contrast). Each new colour is
// chosen greedily: of the candidates that stand ExtendApart from every
// colour so far, under normal vision and under simulated deuteranopia,
// protanopia and tritanopia (the Machado matrices of lint_color.go), the
// one nearest the palette's own lightness band and chroma, and of those
// the farthest from the rest, which spreads the hues into the palette's
// gaps; it must also pass lint's own similar-colors measure (CIEDE2000),
// so lint judges the colours it is shown as distinct. When no candidate
// stands so far apart any more (about a dozen colours in), the one
// farthest from all the others is taken.
//
// The answer depends only on the palette: the same palette always gives
// the same colours, and the first m of n generated colours are the m
// generated for m series, so adding a series never recolours the others.
// Past ExtendLimit colours no reader can match colours to names any
// more (lint has warned from MaxSeries on), so the colours repeat from
// the first rather than cost more time.

// ExtendLimit is the most distinct colours ExtendPalette makes (or the
// palette's own length, when longer); further series repeat them in order.
const ExtendLimit = 24

// ExtendApart is the OKLab distance (×100, where about 2 is just
// noticeable) that ExtendPalette keeps between a generated colour and
// every other colour of the chart under normal vision; under each
// simulated colour-vision deficiency it keeps extendCVDShare of it. It is
// what the generator tries to keep, not a promise: past about a dozen
// colours the room runs out, and the generator then takes the candidate
// farthest from the rest.
const ExtendApart = 10.0

// extendCVDShare is the share of ExtendApart kept under simulated colour
// blindness: the lint's thresholds stand in the same ratio
// (SimilarCVDDeltaE / SimilarDeltaE).
const extendCVDShare = SimilarCVDDeltaE / SimilarDeltaE

// The candidate grid: OKLab lightness from extendLMin up in steps of
// extendLStep to extendLMax (the contrast filter cuts the light end to
// 3:1 against white, near 0.67), hues every extendHueStep degrees, each
// at the palette's chroma and, more vivid, up to extendVivid above it,
// as far as the sRGB gamut allows either. Below extendLMin colours read
// as black in a thin line. Measured on the catalog's palettes cut to 1..5
// colours and extended to 12: without the more vivid candidates the
// closest pair under a simulated colour-vision deficiency came to 4.6
// (×100 OKLab), with them 6.0; a finer grid (12°, 0.035) gained 0.4 for
// twice the time.
const (
	extendLMin    = 0.40
	extendLMax    = 0.70
	extendLStep   = 0.04
	extendHueStep = 20.0
	extendVivid   = 0.08
	// extendBand widens the palette's own lightness band on either side.
	extendBand = 0.04
	// extendGreyChroma is the chroma used for a palette of greys, which
	// has no chroma of its own to copy: greys could only differ in
	// lightness, and a handful of lightness steps is all a reader can tell.
	extendGreyChroma = 0.11
	// extendMinChroma keeps generated colours coloured: a hue whose gamut
	// allows less at a lightness is left out there.
	extendMinChroma = 0.05
)

// extendCandidate is one colour the generator may pick, with its OKLab
// coordinates under each vision and its nearest distance so far.
type extendCandidate struct {
	rgb [3]uint8
	lab [4][3]float64 // by vision: normal, deuteranopia, protanopia, tritanopia
	// off is how far the candidate is from the palette's style: the
	// lightness steps outside its band, plus one when more vivid.
	off  int
	near float64 // smallest weighted distance to a chosen colour
	// normal is the smallest distance to a chosen colour in normal vision
	normal float64
	// tried marks a candidate lint's measure turned down for this pick
	tried bool
}

// ExtendPalette answers the colours of n series: the palette's own colours
// in order (each as upper-case #RRGGBB; ones that do not parse are left
// out) and, past its end, colours generated in its style (see the comment
// above ExtendLimit), repeating from the first past ExtendLimit. The
// answer holds n colours, or all of the palette's when it has more; an
// empty palette answers nil.
func ExtendPalette(palette []string, n int) []string {
	var base []colorful.Color
	var out []string
	for _, p := range palette {
		if c, hex, ok := ParseColor(p); ok {
			base = append(base, c)
			out = append(out, hex)
		}
	}
	if len(out) == 0 || n <= len(out) {
		return out
	}
	distinct := min(n, ExtendLimit)
	if distinct > len(out) {
		cands := extendCandidates(base)
		var seen []chosenColor
		for _, c := range base {
			lab := linearLabs(c.LinearRgb())
			markChosen(cands, lab)
			seen = append(seen, chosenColor{visions(c), lab})
		}
		for len(out) < distinct {
			best := pickApart(cands, seen)
			if best < 0 {
				break
			}
			out = append(out, hex8(cands[best].rgb))
			markChosen(cands, cands[best].lab)
			seen = append(seen, chosenColor{visions(rgb8(cands[best].rgb)), cands[best].lab})
		}
	}
	for k := len(out); len(out) < n; {
		out = append(out, out[len(out)%k])
	}
	return out
}

// extendSurelyApart is the multiple of lint's limit beyond which an OKLab
// distance is taken to pass the CIEDE2000 check too (see lintApart).
const extendSurelyApart = 2.0

// extendTries is how many candidates, best first, the generator checks
// against the lint's own measure before it settles for the best.
const extendTries = 8

// chosenColor is a colour of the extended palette under each vision, as
// colours for CIEDE2000 and as OKLab coordinates.
type chosenColor struct {
	seen [4]colorful.Color
	lab  [4][3]float64
}

// pickApart answers the next colour: pickCandidate's, or, when that one
// would trip lint's similar-colors check (CIEDE2000 under SimilarDeltaE,
// or under SimilarCVDDeltaE in a simulated colour-vision deficiency; a
// measure that ranks blues closer than OKLab does), the next best that
// does not, of the first extendTries; -1 when there are no candidates.
func pickApart(cands []extendCandidate, seen []chosenColor) int {
	first := -1
	for range extendTries {
		best, apart := pickCandidate(cands)
		if best < 0 {
			break
		}
		if first < 0 {
			first = best
		}
		if !apart || lintApart(&cands[best], seen) {
			first = best
			break
		}
		cands[best].tried = true
	}
	for i := range cands {
		cands[i].tried = false
	}
	return first
}

// lintApart reports whether a candidate stands as far from every chosen
// colour as lint's similar-colors check asks. CIEDE2000 costs a
// conversion to CIELAB of both colours each time, so pairs more than
// extendSurelyApart times the limit apart in OKLab are taken as apart
// without it: on sRGB colours 16 to 60 apart in OKLab, CIEDE2000 was
// never under 0.52 of the OKLab distance (200,000 random pairs, under
// every vision; TestOKBoundsCIEDE2000 keeps a check on it), so a pair at
// twice the limit in OKLab is over it in CIEDE2000.
func lintApart(c *extendCandidate, seen []chosenColor) bool {
	var cs [4]colorful.Color
	made := false
	for _, s := range seen {
		for v := range c.lab {
			limit := SimilarDeltaE
			if v > 0 {
				limit = SimilarCVDDeltaE
			}
			if okDistance(c.lab[v], s.lab[v]) >= extendSurelyApart*limit {
				continue
			}
			if !made {
				cs, made = visions(rgb8(c.rgb)), true
			}
			if DeltaE(cs[v], s.seen[v]) < limit {
				return false
			}
		}
	}
	return true
}

// visions answers c as seen with normal vision, deuteranopia, protanopia
// and tritanopia (the order of extendCandidate.lab).
func visions(c colorful.Color) [4]colorful.Color {
	return [4]colorful.Color{c, Simulate(c, Deuteranopia), Simulate(c, Protanopia), Simulate(c, Tritanopia)}
}

// rgb8 is the colour of 8-bit channels.
func rgb8(rgb [3]uint8) colorful.Color {
	return colorful.Color{R: float64(rgb[0]) / 255, G: float64(rgb[1]) / 255, B: float64(rgb[2]) / 255}
}

// pickCandidate answers the index of the next colour: of the candidates
// not yet tried that stand ExtendApart from every chosen colour, the
// nearest to the palette's style and, among those, the farthest from the
// chosen ones in normal vision (apart is true); when none stands so far
// apart, the farthest of all (apart is false); -1 when there are no
// candidates (the grid always has some: a test holds it to that).
func pickCandidate(cands []extendCandidate) (int, bool) {
	best, far := -1, -1
	for i := range cands {
		c := &cands[i]
		if far < 0 || c.near > cands[far].near {
			far = i
		}
		if c.near < ExtendApart || c.tried {
			continue
		}
		if best < 0 || c.off < cands[best].off || c.off == cands[best].off && c.normal > cands[best].normal {
			best = i
		}
	}
	if best >= 0 {
		return best, true
	}
	return far, false
}

// markChosen lowers every candidate's nearest distance by one newly
// chosen colour (its OKLab coordinates by vision).
func markChosen(cands []extendCandidate, lab [4][3]float64) {
	for i := range cands {
		c := &cands[i]
		for v := range lab {
			d := okDistance(c.lab[v], lab[v])
			if v > 0 {
				d /= extendCVDShare
			}
			c.near = min(c.near, d)
			if v == 0 {
				c.normal = min(c.normal, d)
			}
		}
	}
}

// okDistance is the Euclidean OKLab distance, ×100 so it reads on the
// scale of ΔE (about 2 just noticeable).
func okDistance(a, b [3]float64) float64 {
	dl, da, db := a[0]-b[0], a[1]-b[1], a[2]-b[2]
	return math.Sqrt(dl*dl+da*da+db*db) * 100
}

// linearLabs answers the OKLab coordinates of the colour with linear RGB
// r, g, b under each vision the generator checks: Simulate's matrices,
// applied without the round trips through sRGB that would cost three
// powers a channel each time.
func linearLabs(r, g, b float64) [4][3]float64 {
	var out [4][3]float64
	for v, vis := range [4]Vision{NormalVision, Deuteranopia, Protanopia, Tritanopia} {
		m := cvdMatrix(vis)
		sr := clamp01(m[0][0]*r + m[0][1]*g + m[0][2]*b)
		sg := clamp01(m[1][0]*r + m[1][1]*g + m[1][2]*b)
		sb := clamp01(m[2][0]*r + m[2][1]*g + m[2][2]*b)
		l, a, bb := colorful.XyzToOkLab(colorful.LinearRgbToXyz(sr, sg, sb))
		out[v] = [3]float64{l, a, bb}
	}
	return out
}

func clamp01(v float64) float64 { return max(0, min(1, v)) }

// extendCandidates lays out the candidate grid for a palette: hues all
// round at each lightness step, at the palette's chroma (as far as the
// sRGB gamut allows) and at the gamut's most, marking those at the
// palette's chroma inside its lightness band as in its style.
func extendCandidates(base []colorful.Color) []extendCandidate {
	lo, hi := math.Inf(1), math.Inf(-1)
	var chromas []float64
	for _, c := range base {
		l, ch, _ := c.OkLch()
		lo, hi = min(lo, l), max(hi, l)
		if ch >= extendMinChroma {
			chromas = append(chromas, ch)
		}
	}
	style := extendGreyChroma
	if len(chromas) > 0 {
		slices.Sort(chromas)
		style = chromas[len(chromas)/2]
	}
	lo, hi = lo-extendBand, hi+extendBand
	lin := linearTable()
	steps := int(math.Floor((extendLMax-extendLMin)/extendLStep)) + 1
	hues := int(360 / extendHueStep)
	out := make([]extendCandidate, 0, 2*steps*hues)
	for s := range steps {
		l := extendLMin + float64(s)*extendLStep
		for h := range hues {
			sin, cos := math.Sincos(float64(h) * extendHueStep * math.Pi / 180)
			rgbs, made := candidateChromas(l, sin, cos, style)
			for k, rgb := range rgbs {
				if !made[k] {
					continue
				}
				c := [3]uint8{nearest8(&lin, rgb[0]), nearest8(&lin, rgb[1]), nearest8(&lin, rgb[2])}
				r, g, b := lin[c[0]], lin[c[1]], lin[c[2]]
				if _, y, _ := colorful.LinearRgbToXyz(r, g, b); 1.05/(y+0.05) < MinContrast {
					continue // fainter than 3:1 against white
				}
				out = append(out, extendCandidate{
					rgb:  c,
					lab:  linearLabs(r, g, b),
					off:  k + int(math.Ceil(max(lo-l, l-hi, 0)/extendLStep-1e-9)),
					near: math.Inf(1), normal: math.Inf(1),
				})
			}
		}
	}
	return out
}

// candidateChromas answers the linear RGB of the candidates at OKLab
// lightness l and the hue whose sine and cosine are given: the palette's
// chroma style (or the most the sRGB gamut holds, when less), and a more
// vivid one, up to style+extendVivid, when the gamut holds 0.02 more than
// style; made[k] is false for one not made (under extendMinChroma, or no
// more vivid). The gamut's edge is found to 0.005 of chroma, each test in
// linear RGB, which needs no powers.
func candidateChromas(l, sin, cos, style float64) (rgb [2][3]float64, made [2]bool) {
	const eps = 1e-9
	at := func(ch float64) ([3]float64, bool) {
		r, g, b := colorful.XyzToLinearRgb(colorful.OkLabToXyz(l, ch*cos, ch*sin))
		if r < -eps || g < -eps || b < -eps || r > 1+eps || g > 1+eps || b > 1+eps {
			return [3]float64{}, false
		}
		return [3]float64{clamp01(r), clamp01(g), clamp01(b)}, true
	}
	// edge answers the colour at the largest chroma in the gamut between
	// lo (inside, where the colour is in) and hi (outside)
	edge := func(lo, hi float64, in [3]float64) [3]float64 {
		for hi-lo > 0.005 {
			m := (lo + hi) / 2
			if c, ok := at(m); ok {
				lo, in = m, c
			} else {
				hi = m
			}
		}
		return in
	}
	limit := style + extendVivid
	if c, ok := at(limit); ok {
		rgb[0], made[0] = at(style)
		rgb[1], made[1] = c, true
		return rgb, made
	}
	own, ok := at(style)
	if !ok {
		if lo, ok := at(extendMinChroma); ok {
			rgb[0], made[0] = edge(extendMinChroma, style, lo), true
		}
		return rgb, made
	}
	rgb[0], made[0] = own, true
	if more, ok := at(style + 0.02); ok {
		rgb[1], made[1] = edge(style+0.02, limit, more), true
	}
	return rgb, made
}

// linearTable is the linear-light value of each 8-bit sRGB channel value,
// so candidates are judged as the #RRGGBB they are drawn in, and with no
// power per channel.
func linearTable() [256]float64 {
	var t [256]float64
	for i := range t {
		t[i], _, _ = colorful.Color{R: float64(i) / 255}.LinearRgb()
	}
	return t
}

// nearest8 answers the 8-bit channel value whose linear light is nearest v.
func nearest8(lin *[256]float64, v float64) uint8 {
	i, _ := slices.BinarySearch(lin[:], v)
	if i == 0 {
		return 0
	}
	if i == len(lin) || v-lin[i-1] < lin[i]-v {
		return uint8(i - 1)
	}
	return uint8(i)
}

// hex8 writes an 8-bit colour as upper-case #RRGGBB.
func hex8(rgb [3]uint8) string {
	const digits = "0123456789ABCDEF"
	b := []byte{'#', 0, 0, 0, 0, 0, 0}
	for i, n := range rgb {
		b[1+2*i], b[2+2*i] = digits[n>>4], digits[n&15]
	}
	return string(b)
}
