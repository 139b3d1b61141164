package draw

import (
	"math"
	"strings"

	"chartd.dev/libs/chartspec"
	colorful "github.com/lucasb-eyer/go-colorful"
)

// defaultPalette is the catalog's "default" palette, used when a spec
// carries no valid palette colour (a test keeps the two in step).
func defaultPalette() []string {
	return chartspec.DefaultColors()
}

// parseColor reads #RRGGBB or #RGB and answers it as upper-case #RRGGBB,
// so no style string ever reaches the SVG unchecked.
func parseColor(s string) (string, bool) {
	s = strings.TrimSpace(s)
	if len(s) == 4 && s[0] == '#' {
		s = "#" + s[1:2] + s[1:2] + s[2:3] + s[2:3] + s[3:4] + s[3:4]
	}
	if len(s) != 7 || s[0] != '#' {
		return "", false
	}
	for i := 1; i < 7; i++ {
		c := s[i]
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F') {
			return "", false
		}
	}
	return strings.ToUpper(s), true
}

// colors assigns series colours: a pinned seriesColors entry wins, else
// the palette in order. A colour is never reused and no series is
// painted grey: past the palette's end come colours generated in its
// style (chartspec.ExtendPalette, which lint uses too), made once per
// drawing when a chart has more series than the palette has colours.
type colors struct {
	palette []string
	pinned  map[string]string
	// extended is the palette extended for the series asked for so far.
	extended []string
	// record keeps every colour given (assigned), so small multiples
	// give a series or group the same colour in every panel.
	record   bool
	assigned map[string]string
}

// assignedOrPinned answers the pins with every colour given so far added.
func (c *colors) assignedOrPinned() map[string]string {
	out := make(map[string]string, len(c.pinned)+len(c.assigned))
	for k, v := range c.assigned {
		out[k] = v
	}
	for k, v := range c.pinned {
		out[k] = v
	}
	return out
}

// newColors validates the style's palette and pins.
func newColors(palette []string, pinned map[string]string) colors {
	c := colors{}
	for _, p := range palette {
		if hex, ok := parseColor(p); ok {
			c.palette = append(c.palette, hex)
		}
	}
	if len(c.palette) == 0 {
		c.palette = defaultPalette()
	}
	for k, v := range pinned {
		if hex, ok := parseColor(v); ok {
			if c.pinned == nil {
				c.pinned = make(map[string]string, len(pinned))
			}
			c.pinned[k] = hex
		}
	}
	return c
}

// otherColor is the grey of a pie's "Other" slice: 3:1 against white,
// and no palette's hue. No named series is drawn in it.
const otherColor = chartspec.OtherColor

// reserve makes colours for n series, so a chart with more series than
// the palette has colours extends it once (see of).
func (c *colors) reserve(n int) {
	if n > len(c.palette) && n > len(c.extended) {
		c.extended = chartspec.ExtendPalette(c.palette, n)
	}
}

// of answers the colour of the i-th series whose key (column id or
// category) is key: its pinned colour, else the palette's i-th, extended
// past its end. The i-th colour does not depend on how many series were
// reserved, so a chart that did not reserve gets the same colours.
func (c *colors) of(key string, i int) string {
	if hex, ok := c.pinned[key]; ok {
		return hex
	}
	i = max(i, 0)
	var hex string
	if i < len(c.palette) {
		hex = c.palette[i]
	} else {
		if i >= len(c.extended) {
			c.reserve(max(i+1, 2*len(c.extended)))
		}
		hex = c.extended[i]
	}
	if c.record {
		if c.assigned == nil {
			c.assigned = map[string]string{}
		}
		c.assigned[key] = hex
	}
	return hex
}

// mustColor parses a colour this package wrote itself.
func mustColor(hex string) colorful.Color {
	c, err := colorful.Hex(hex)
	if err != nil {
		return colorful.Color{R: 0.5, G: 0.5, B: 0.5}
	}
	return c
}

// appendHex writes a colour as #RRGGBB without allocating.
func appendHex(b []byte, c colorful.Color) []byte {
	const digits = "0123456789ABCDEF"
	c = c.Clamped()
	b = append(b, '#')
	for _, v := range [3]float64{c.R, c.G, c.B} {
		n := int(math.Round(v * 255))
		b = append(b, digits[n>>4], digits[n&15])
	}
	return b
}

// isDark reports whether text on this fill should be white.
func isDark(c colorful.Color) bool {
	l, _, _ := c.Clamped().Lab()
	return l < 0.6
}

// minTextContrast is the contrast text needs against its background
// (WCAG 1.4.3, normal-size text).
const minTextContrast = 4.5

// contrastRatio is the WCAG contrast ratio of two colours, 1 to 21.
func contrastRatio(a, b colorful.Color) float64 { return chartspec.Contrast(a, b) }

// colorScale maps values to colours for heatmaps: sequential from a pale
// tint through the base colour to a deep shade of its hue, or diverging
// through a near-white centre between two hues. Segments between coloured
// stops blend in HCL (hue kept, so blues do not turn purple); segments
// touching the neutral centre blend in CIE L*a*b*.
type colorScale struct {
	lo, mid, hi float64
	diverging   bool
	stops       []colorful.Color // evenly spaced from lo to hi
	neutral     int              // index of the neutral stop, -1 for none
	lab         bool             // blend every segment in L*a*b* (a palette's own stops)
}

// ramp is the pale tint, the colour itself and a deep shade of one hue.
func ramp(base string) (light, mid, dark colorful.Color) {
	mid = mustColor(base)
	h, c, l := mid.Hcl()
	light = colorful.Hcl(h-20, c*0.15, 0.97).Clamped()
	dark = colorful.Hcl(h+5, c*0.9, math.Min(0.3, l*0.5)).Clamped()
	return light, mid, dark
}

// newSequential runs from a light tint of base (at lo) to a dark shade (at hi).
func newSequential(base string, lo, hi float64) colorScale {
	if hi <= lo {
		hi = lo + 1
	}
	light, mid, dark := ramp(base)
	return colorScale{lo: lo, hi: hi, mid: (lo + hi) / 2, stops: []colorful.Color{light, mid, dark}, neutral: -1}
}

// newDiverging centres on zero when the data spans it, else on the middle,
// with a symmetric extent so equal distances get equal intensity; it runs
// from a deep shade of lowBase through a near-white centre to a deep
// shade of highBase.
func newDiverging(lowBase, highBase string, lo, hi float64) colorScale {
	_, lowMid, lowDark := ramp(lowBase)
	_, highMid, highDark := ramp(highBase)
	center := colorful.Hcl(0, 0, 0.97).Clamped()
	return divergingOver([]colorful.Color{lowDark, lowMid, center, highMid, highDark}, 2, lo, hi)
}

// newDivergingPalette spreads a diverging palette (see divergingPalette)
// over the data: its first colour at the low end, its last at the high
// end and its light middle at the centre.
func newDivergingPalette(stops []colorful.Color, lo, hi float64) colorScale {
	s := divergingOver(stops, len(stops)/2, lo, hi)
	s.lab = true
	return s
}

// divergingOver centres stops (neutral at index neutral) on zero when the
// data spans it, else on the middle of the data.
func divergingOver(stops []colorful.Color, neutral int, lo, hi float64) colorScale {
	mid := (lo + hi) / 2
	if lo < 0 && hi > 0 {
		mid = 0
	}
	ext := math.Max(hi-mid, mid-lo)
	if ext <= 0 {
		ext = 1
	}
	return colorScale{lo: mid - ext, mid: mid, hi: mid + ext, diverging: true, stops: stops, neutral: neutral}
}

// divergingPalette reads a palette as a diverging scale when it is one, as
// the catalog's red-blue preset is: three or more colours whose middle is
// light and nearly grey, between two darker ends of clearly different
// hues. The answer has an odd number of stops with the neutral one in the
// middle (an even palette gets the blend of its two middle colours).
func divergingPalette(pal []string) ([]colorful.Color, bool) {
	n := len(pal)
	if n < 3 {
		return nil, false
	}
	cols := make([]colorful.Color, n)
	for i, p := range pal {
		cols[i] = mustColor(p)
	}
	var center colorful.Color
	if n%2 == 1 {
		center = cols[n/2]
	} else {
		center = cols[n/2-1].BlendLab(cols[n/2], 0.5).Clamped()
	}
	_, cc, cl := center.Hcl()
	h0, c0, l0 := cols[0].Hcl()
	h1, c1, l1 := cols[n-1].Hcl()
	hueGap := math.Abs(math.Mod(h0-h1+540, 360) - 180)
	if cl < 0.85 || cc > 0.15 || l0 > cl-0.25 || l1 > cl-0.25 || c0 < 0.2 || c1 < 0.2 || hueGap < 60 {
		return nil, false
	}
	if n%2 == 1 {
		return cols, true
	}
	out := make([]colorful.Color, 0, n+1)
	out = append(out, cols[:n/2]...)
	out = append(out, center)
	return append(out, cols[n/2:]...), true
}

// at answers the colour for v.
func (s colorScale) at(v float64) colorful.Color {
	t := clamp01((v - s.lo) / (s.hi - s.lo))
	seg := t * float64(len(s.stops)-1)
	i := min(int(seg), len(s.stops)-2)
	f := seg - float64(i)
	a, b := s.stops[i], s.stops[i+1]
	if s.lab || i == s.neutral || i+1 == s.neutral {
		return a.BlendLab(b, f).Clamped()
	}
	return a.BlendHcl(b, f).Clamped()
}

func clamp01(t float64) float64 {
	if math.IsNaN(t) || t < 0 {
		return 0
	}
	return math.Min(t, 1)
}
