package brand

import (
	"image/color"
	"testing"
)

// TestSources: each returned colour says in a few words why it was
// picked, from its strongest evidence; the colour the logo anchors first
// names the logo even where a stylesheet names it more heavily.
func TestSources(t *testing.T) {
	page := func(head, body, css string) Site {
		return Site{URL: "https://acme.example/",
			HTML:        []byte(`<!doctype html><html><head>` + head + `</head><body>` + body + `</body></html>`),
			Stylesheets: []Doc{{URL: "https://acme.example/site.css", Body: []byte(css)}}}
	}
	logo := `<header><a href="/" class="logo"><svg viewBox="0 0 100 40"><rect width="100" height="40" fill="#19BFD3"/></svg></a></header>`
	band := `<main><section class="band"><h1>Acme makes things</h1><p>What Acme makes, and why.</p><p>More words.</p></section>
<section><h2>Plans</h2><ul><li>Free</li><li>Pro</li></ul></section></main>`
	favicon := []Image{{URL: "https://acme.example/favicon.png", Role: RoleFavicon,
		Body: encodePNG(t, roundedSquare(32, 4, hexColor("#E8590C"), color.NRGBA{255, 255, 255, 255}))}}
	for _, tc := range []struct {
		name  string
		site  Site
		color string
		want  string
	}{
		{"inline SVG logo", page(``, logo, `body{color:#222}`), "#19BFD3", "logo SVG fill"},
		{"brand custom property", page(``, `<p>x</p>`, `:root{--color-brand-red:#D62828}`), "#D62828", "CSS --color-brand-red"},
		{"theme-color", page(`<meta name="theme-color" content="#6B21A8">`, `<p>x</p>`, ``), "#6B21A8", "meta theme-color"},
		{"button", page(``, `<a class="btn" href="/go">Go</a>`, `.btn{background:#2F9E44;color:#fff}`), "#2F9E44", "button colour"},
		{"painted band", page(``, band, `.band{background:#1C7ED6}`), "#1C7ED6", "painted area 100 %"},
		{"favicon anchors over theme-color", func() Site {
			s := page(`<meta name="theme-color" content="#1C7ED6">`, `<p>x</p>`, ``)
			s.Images = favicon
			return s
		}(), "#E8590C", "favicon"},
	} {
		res, err := Extract(tc.site)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(res.Sources) != len(res.Colors) {
			t.Fatalf("%s: %d sources for %d colours", tc.name, len(res.Sources), len(res.Colors))
		}
		i := rankOf(res.Colors, tc.color)
		if i < 0 {
			t.Errorf("%s: %s not returned: %v", tc.name, tc.color, res.Colors)
			continue
		}
		if res.Sources[i] != tc.want {
			t.Errorf("%s: source of %s is %q, want %q (all: %q)", tc.name, res.Colors[i], res.Sources[i], tc.want, res.Sources)
		}
	}
}
