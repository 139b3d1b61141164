package draw

import (
	"slices"
	"strings"

	"chartd.dev/libs/chartspec"
	colorful "github.com/lucasb-eyer/go-colorful"
)

// theme is the colours of the page a chart is drawn on. They are fields
// of the canvas, so every part of the drawing (and the notes drawn on it)
// recolours with the theme.
type theme struct {
	// name is light, dark or auto; auto draws the light colours and adds
	// CSS that turns them dark for readers who prefer dark (autoStyle).
	name string
	// background paints the page and the halos around text.
	background string
	// inkTitle … inkLabel are text; inkGrid, inkAxis the gridlines and
	// axis lines; inkMuted says "no data"; inkGuide and inkRule are the
	// dot plot's row guides and range rules; blankFill and blankStroke
	// hatch blank heatmap cells; inkDim is the one grey of everything a
	// highlight leaves out.
	inkTitle, inkSubtitle, inkTick, inkLabel string
	inkGrid, inkAxis, inkMuted               string
	inkGuide, inkRule                        string
	blankFill, blankStroke                   string
	inkDim                                   string
}

// lightTheme is every chart's default: quiet greys so the data stands out.
func lightTheme() theme {
	return theme{name: chartspec.ThemeLight, background: "#FFFFFF",
		inkTitle: "#1F2328", inkSubtitle: "#59636E", inkTick: "#59636E", inkLabel: "#3D444D",
		inkGrid: "#E6E9ED", inkAxis: "#8C959F", inkMuted: "#9AA3AD",
		inkGuide: "#C9CED4", inkRule: "#AEB6BF", blankFill: "#F1F3F5", blankStroke: "#B8C0C8",
		inkDim: "#C6CCD2"}
}

// darkTheme is for a dark page: text at 4.5:1 or more against the
// background (WCAG 1.4.3), axis lines at 3:1 (1.4.11), gridlines and the
// highlight's grey kept quiet on purpose, as on the light page.
func darkTheme() theme {
	return theme{name: chartspec.ThemeDark, background: "#16181D",
		inkTitle: "#F0F3F6", inkSubtitle: "#A8B1BB", inkTick: "#A8B1BB", inkLabel: "#CDD3DA",
		inkGrid: "#2C3139", inkAxis: "#6E7781", inkMuted: "#8B949E",
		inkGuide: "#3A414A", inkRule: "#5C6570", blankFill: "#22262C", blankStroke: "#4A525C",
		inkDim: "#464D57"}
}

// themeNamed answers the theme a picture is drawn in (auto draws light
// colours, which autoStyle turns dark for readers who prefer it).
func themeNamed(name string) theme {
	switch name {
	case chartspec.ThemeDark:
		return darkTheme()
	case chartspec.ThemeAuto:
		t := lightTheme()
		t.name = chartspec.ThemeAuto
		return t
	}
	return lightTheme()
}

// colors answers the colours a theme's pairs are read from (auto: none of
// the light ones change in the file itself).
func (t theme) pairs() [][2]string {
	l, d := lightTheme(), darkTheme()
	return [][2]string{
		{l.background, d.background}, {l.inkTitle, d.inkTitle}, {l.inkSubtitle, d.inkSubtitle},
		{l.inkLabel, d.inkLabel}, {l.inkGrid, d.inkGrid}, {l.inkAxis, d.inkAxis}, {l.inkMuted, d.inkMuted},
		{l.inkGuide, d.inkGuide}, {l.inkRule, d.inkRule}, {l.blankFill, d.blankFill},
		{l.blankStroke, d.blankStroke}, {l.inkDim, d.inkDim},
	}
}

// Text on a mark follows the mark's colour, not the page: white on dark
// fills, near-black on light ones. markInkAuto is the near-black of an
// auto picture, a shade apart from the title ink so the dark page's CSS
// does not turn it light on a light mark.
const (
	markInkLight = "#FFFFFF"
	markInkDark  = "#1F2328"
	markInkAuto  = "#1F2329"
)

// inkOn is the text colour for a label drawn on a mark of colour hex.
func (c *canvas) inkOn(hex string) string {
	switch {
	case isDark(mustColor(hex)):
		return markInkLight
	case c.name == chartspec.ThemeAuto:
		return markInkAuto
	}
	return markInkDark
}

// textColor is a series colour made to read as text on the page (4.5:1):
// labels keep their series' hue, darker on a light page and lighter on a
// dark one.
func (c *canvas) textColor(hex string) string { return textColorOn(hex, c.background) }

// textColorOn moves hex's lightness (HCL, hue kept) until it reads at
// 4.5:1 against bg.
func textColorOn(hex, bg string) string {
	col, page := mustColor(hex), mustColor(bg)
	if contrastRatio(col, page) >= minTextContrast {
		return hex
	}
	h, ch, l := col.Hcl()
	darkPage := isDark(page)
	lo, hi := 0.0, l // search toward black
	if darkPage {
		lo, hi = l, 1 // toward white
	}
	ok := func(m float64) bool {
		return contrastRatio(colorful.Hcl(h, ch, m).Clamped(), page) >= minTextContrast+0.05
	}
	for range 20 {
		m := (lo + hi) / 2
		if ok(m) == !darkPage {
			lo = m
		} else {
			hi = m
		}
	}
	best := lo
	if darkPage {
		best = hi
	}
	return string(appendHex(nil, colorful.Hcl(h, ch, best).Clamped()))
}

// minMarkContrast is what a mark's colour needs against the page (WCAG
// 1.4.11, graphical objects).
const minMarkContrast = 3.0

// autoStyle is the CSS of an auto picture: custom properties holding the
// light colours, redefined in a prefers-color-scheme: dark media query,
// and rules giving every fill and stroke drawn in a themed colour its
// property. Presentation attributes lose to any CSS rule, so the file
// itself stays the light drawing (which the rasterizer never sees: a PNG
// is drawn light or dark, without CSS). cls scopes the rules to this
// picture, so an SVG inlined in a page recolours nothing else.
func autoStyle(cls string, pairs [][2]string) string {
	var b, light, dark, rules strings.Builder
	seen := map[string]bool{}
	n := 0
	for _, p := range pairs {
		if seen[p[0]] || p[0] == p[1] {
			continue
		}
		seen[p[0]] = true
		v := "--chartd-" + itoa(n)
		n++
		light.WriteString(v + ":" + p[0] + ";")
		dark.WriteString(v + ":" + p[1] + ";")
		for _, prop := range [...]string{"fill", "stroke"} {
			rules.WriteString("." + cls + ` [` + prop + `="` + p[0] + `"]{` + prop + ":var(" + v + ")}")
		}
	}
	b.WriteString("<style>." + cls + "{" + light.String() + "}")
	b.WriteString("@media (prefers-color-scheme: dark){." + cls + "{" + dark.String() + "}}")
	b.WriteString(rules.String())
	b.WriteString("</style>")
	return b.String()
}

// newThemedColors is newColors for a theme's page: on a dark page the
// palette's dark variant (chartspec.DarkPalette); pinned colours stay as
// the person chose them, and lint says when one is faint on dark.
func newThemedColors(palette []string, pinned map[string]string, th theme) colors {
	c := newColors(palette, pinned)
	if th.name != chartspec.ThemeDark {
		return c
	}
	c.palette = chartspec.DarkPalette(c.palette)
	return c
}

// autoPairs are the light colours of an auto picture and what they turn
// into on a dark page: the theme's, the palette's (and pinned colours')
// and the text colours made from them (pinned colours stay).
func (c *canvas) autoPairs() [][2]string {
	pairs := c.theme.pairs()
	light, dark := lightTheme().background, darkTheme().background
	add := func(from []string, to []string) {
		for i, p := range from {
			pairs = append(pairs, [2]string{p, to[i]}, [2]string{textColorOn(p, light), textColorOn(to[i], dark)})
		}
	}
	pal := slices.Concat(c.colors.palette, c.colors.extended)
	darkPal := chartspec.DarkPalette(c.colors.palette)
	if len(pal) > len(darkPal) {
		darkPal = chartspec.ExtendPalette(darkPal, len(pal))
	}
	add(pal, darkPal[:len(pal)])
	return pairs
}
