package draw

import (
	"math"
	"strings"

	colorful "github.com/lucasb-eyer/go-colorful"
)

// defaultPalette is the catalog's "default" palette, used when a spec
// carries no valid palette colour (a test keeps the two in step).
func defaultPalette() []string {
	return []string{"#2F6FDB", "#F08A24", "#1FA67A", "#D9415B", "#7B5CD6", "#C9A227", "#2BA7C9", "#8C6D4F", "#D66BB4", "#6B7785"}
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
// the palette in order, cycling.
type colors struct {
	palette []string
	pinned  map[string]string
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

// of answers the colour of the i-th series whose key (column id or category) is key.
func (c colors) of(key string, i int) string {
	if hex, ok := c.pinned[key]; ok {
		return hex
	}
	return c.palette[i%len(c.palette)]
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
// with a symmetric extent so equal distances get equal intensity.
func newDiverging(lowBase, highBase string, lo, hi float64) colorScale {
	mid := (lo + hi) / 2
	if lo < 0 && hi > 0 {
		mid = 0
	}
	ext := math.Max(hi-mid, mid-lo)
	if ext <= 0 {
		ext = 1
	}
	_, lowMid, lowDark := ramp(lowBase)
	_, highMid, highDark := ramp(highBase)
	center := colorful.Hcl(0, 0, 0.97).Clamped()
	return colorScale{lo: mid - ext, mid: mid, hi: mid + ext, diverging: true,
		stops: []colorful.Color{lowDark, lowMid, center, highMid, highDark}, neutral: 2}
}

// at answers the colour for v.
func (s colorScale) at(v float64) colorful.Color {
	t := clamp01((v - s.lo) / (s.hi - s.lo))
	seg := t * float64(len(s.stops)-1)
	i := min(int(seg), len(s.stops)-2)
	f := seg - float64(i)
	a, b := s.stops[i], s.stops[i+1]
	if i == s.neutral || i+1 == s.neutral {
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
