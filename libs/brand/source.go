package brand

import (
	"fmt"
	"math"
	"strings"
)

// source says in a few words why a kept group's colour was picked, so a
// person reading the answer can check it against the page: its heaviest
// mark signal (logo, icon) when that weighs enough to anchor the ranking
// (minAnchor), as a person names a brand's colour from its logo first;
// else its heaviest signal. A colour whose strongest evidence is how much
// it is used says how much of the page's coloured area it paints instead.
func (e *extractor) source(nodes []node, g group, chromaArea float64) string {
	best, bestW, mark, markW := -1, 0.0, -1, 0.0
	for _, ni := range g.nodes {
		for _, si := range nodes[ni].sigs {
			s := e.signals[si]
			if s.w > bestW {
				best, bestW = si, s.w
			}
			if s.mark != "" && s.w > markW {
				mark, markW = si, s.w
			}
		}
	}
	if markW >= minAnchor {
		best = mark
	}
	if best < 0 {
		return "used on the page"
	}
	s := e.signals[best]
	switch s.kind {
	case KindSVGLogo:
		if s.mark == "" {
			return "CSS fill of the logo"
		}
		return "logo SVG fill"
	case KindLogoImage:
		if strings.Contains(s.where, "SVG fill") {
			return "logo SVG fill"
		}
		return "logo image"
	case KindAppleTouchIcon:
		return "app icon"
	case KindFavicon:
		return "favicon"
	case KindMaskIcon:
		return "mask-icon colour"
	case KindHeroImage:
		return "header illustration"
	case KindThemeColor:
		return "meta theme-color"
	case KindManifestTheme:
		return "web manifest theme_color"
	case KindManifestBackground:
		return "web manifest background_color"
	case KindTileColor:
		return "tile colour"
	case KindCSSVariable:
		if name, _, ok := strings.Cut(s.where, " "); ok && strings.HasPrefix(name, "--") {
			return "CSS " + name
		}
		return "CSS custom property"
	case KindButton:
		return "button colour"
	case KindLink:
		return "link colour"
	case KindHeader:
		return "header colour"
	}
	area := 0.0
	for _, ni := range g.nodes {
		area += e.area[nodes[ni].c]
	}
	if area > 0 && chromaArea > 0 {
		return fmt.Sprintf("painted area %.0f %%", math.Max(1, 100*area/chromaArea))
	}
	return "used across the stylesheets"
}

// chromaticArea is the area all chromatic colours paint, the whole that
// "painted area N %" is a share of.
func (e *extractor) chromaticArea() float64 {
	total := 0.0
	for c, a := range e.area {
		if l, aa, b := c.lab(); toneOf(l, aa, b) == chromatic {
			total += a
		}
	}
	return total
}
