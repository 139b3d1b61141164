package chartspec

import (
	"math"
	"strconv"
	"strings"

	colorful "github.com/lucasb-eyer/go-colorful"
)

// Vision is a way of seeing colour that the similar-colors check simulates.
type Vision int

// The visions colours are judged under. Deuteranopia and protanopia
// (red–green colour blindness) affect about one man in twelve; lint checks
// series colours under them. Tritanopia (blue–yellow) is rare: lint does
// not check it, but generated palette colours (ExtendPalette) are kept
// apart under it too.
const (
	NormalVision Vision = iota
	Deuteranopia
	Protanopia
	Tritanopia
)

// String names the vision for messages.
func (v Vision) String() string {
	switch v {
	case Deuteranopia:
		return "deuteranopia (red–green colour blindness)"
	case Protanopia:
		return "protanopia (red–green colour blindness)"
	case Tritanopia:
		return "tritanopia (blue–yellow colour blindness)"
	}
	return "normal vision"
}

// cvdMatrix is Machado, Oliveira & Fernandes (2009), "A Physiologically-based
// Model for Simulation of Color Vision Deficiency", table of matrices at
// severity 1.0, to be applied to linear RGB. It is published data, returned
// fresh so no package state exists.
func cvdMatrix(v Vision) [3][3]float64 {
	switch v {
	case Deuteranopia:
		return [3][3]float64{
			{0.367322, 0.860646, -0.227968},
			{0.280085, 0.672501, 0.047413},
			{-0.011820, 0.042940, 0.968881},
		}
	case Protanopia:
		return [3][3]float64{
			{0.152286, 1.052583, -0.204868},
			{0.114503, 0.786281, 0.099216},
			{-0.003882, -0.048116, 1.051998},
		}
	case Tritanopia:
		return [3][3]float64{
			{1.255528, -0.076749, -0.178779},
			{-0.078411, 0.930809, 0.147602},
			{0.004733, 0.691367, 0.303900},
		}
	}
	return [3][3]float64{{1, 0, 0}, {0, 1, 0}, {0, 0, 1}}
}

// Simulate answers how c looks to a person with vision v (Machado 2009,
// applied in linear RGB through go-colorful, clamped to the sRGB gamut).
func Simulate(c colorful.Color, v Vision) colorful.Color {
	if v == NormalVision {
		return c
	}
	m := cvdMatrix(v)
	r, g, b := c.LinearRgb()
	out := colorful.LinearRgb(
		m[0][0]*r+m[0][1]*g+m[0][2]*b,
		m[1][0]*r+m[1][1]*g+m[1][2]*b,
		m[2][0]*r+m[2][1]*g+m[2][2]*b,
	)
	return out.Clamped()
}

// DeltaE is the CIEDE2000 colour difference of a and b on the usual scale
// (0 identical, about 2 just noticeable, above 10 clearly different).
// go-colorful works with L in 0..1, so its answer is scaled by 100.
func DeltaE(a, b colorful.Color) float64 {
	return a.DistanceCIEDE2000(b) * 100
}

// Luminance is the WCAG relative luminance of c: the Y of CIE XYZ, which
// go-colorful computes from linear sRGB.
func Luminance(c colorful.Color) float64 {
	_, y, _ := c.Xyz()
	return y
}

// Contrast is the WCAG contrast ratio of two colours, from 1 to 21.
func Contrast(a, b colorful.Color) float64 {
	la, lb := Luminance(a), Luminance(b)
	if la < lb {
		la, lb = lb, la
	}
	return (la + 0.05) / (lb + 0.05)
}

// ParseColor reads #RRGGBB or #RGB (either case) and answers the colour and
// its upper-case #RRGGBB form, the only form a spec stores.
func ParseColor(s string) (colorful.Color, string, bool) {
	s = strings.TrimSpace(s)
	if len(s) != 4 && len(s) != 7 {
		return colorful.Color{}, "", false
	}
	c, err := colorful.Hex(s)
	if err != nil {
		return colorful.Color{}, "", false
	}
	return c, strings.ToUpper(c.Hex()), true
}

// darkenTo answers the colour of the same hue and chroma as c, made just
// dark enough (in CIE LCh) to reach the contrast ratio want against bg, or
// false when no lightness reaches it.
func darkenTo(c, bg colorful.Color, want float64) (colorful.Color, bool) {
	h, ch, l := c.Hcl()
	for ; l >= 0; l -= 0.01 {
		cand := colorful.Hcl(h, ch, l).Clamped()
		if Contrast(cand, bg) >= want {
			return cand, true
		}
	}
	return colorful.Color{}, false
}

// formatRatio writes a contrast ratio like "2.9:1", rounded down so a
// ratio just short of 3 never reads as 3.0.
func formatRatio(r float64) string {
	return strconv.FormatFloat(math.Floor(r*10)/10, 'f', 1, 64) + ":1"
}
