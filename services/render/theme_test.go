package render

import (
	"testing"

	"chartd.dev/libs/chartspec"
)

// TestRenderTheme: a render's theme is read from the body, refused when
// unknown, drawn into the picture (an auto chart's PNG light unless dark
// is asked for) and part of the picture's hash, so a light and a dark
// picture are two pictures in the cache and the monthly count.
func TestRenderTheme(t *testing.T) {
	str := func(s string) *string { return &s }
	for _, tc := range []struct {
		name   string
		format string
		theme  *string
		spec   string
		draw   string // draw.Input.Theme
		refuse bool
	}{
		{"nothing asked keeps the chart's", "png", nil, chartspec.ThemeDark, "", false},
		{"dark asked", "png", str("dark"), "", "dark", false},
		{"auto chart as PNG is light", "png", nil, chartspec.ThemeAuto, "light", false},
		{"auto chart as PNG asked dark", "png", str("dark"), chartspec.ThemeAuto, "dark", false},
		{"auto asked for a PNG is light", "png", str("auto"), "", "light", false},
		{"auto SVG keeps its CSS", "svg", nil, chartspec.ThemeAuto, "", false},
		{"auto asked for an SVG", "svg", str("auto"), "", "auto", false},
		{"unknown theme", "png", str("sepia"), "", "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			o, err := BodyOptions{Format: &tc.format, Theme: tc.theme}.options()
			if tc.refuse {
				if err == nil {
					t.Fatal("theme accepted")
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got := drawTheme(&chartspec.Spec{Theme: tc.spec}, o); got != tc.draw {
				t.Errorf("drawn with theme %q, want %q", got, tc.draw)
			}
		})
	}
	pic := picture{svg: []byte("<svg/>")}
	light, dark := imageOptions{format: "png", scale: 1, theme: "light"}, imageOptions{format: "png", scale: 1, theme: "dark"}
	if pictureHash(pic, light) == pictureHash(pic, dark) {
		t.Error("the theme is not in the picture hash")
	}
}
