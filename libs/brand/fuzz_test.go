package brand

import (
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"testing"
)

// FuzzColors runs the CSS and HTML colour readers on arbitrary bytes: as a
// colour value, a stylesheet, a style attribute, a page, a manifest and an
// SVG icon. Nothing may panic, and every colour that comes out must be a
// valid "#RRGGBB".
func FuzzColors(f *testing.F) {
	for _, s := range []string{
		"#635bff", "#abcd", "rgb(0 112 60 / 80%)", "rgba(1,2,3,.9)", "hsl(152deg 100% 22%)",
		"oklch(62.3% .214 259.815)", "lab(50% 40 59.5)", "hwb(0 0% 0%)", "color(srgb 1 0 0)",
		"rebeccapurple", "var(--a, var(--b, #fff))", "rgb(var(--c) / var(--tw-bg-opacity))",
		":root{--brand:#635bff;--x:var(--brand)} .btn-primary{background:var(--x)} a{color:red}",
		".hover\\:bg-indigo-700:hover{background-color:rgb(67 56 202/var(--tw-bg-opacity))}",
		"@media (prefers-color-scheme: dark){:root{--primary:262 83% 58%}}",
		"a{&:hover{color:#f00}} .x{.y{color:#0f0}}",
		"}}}{{{;;;::: --a: { } #",
		"rgb(", "#", "url(#a", "/* unterminated",
		`<meta name="theme-color" content="#1da1f2"><a href="/"><svg><style>.a{fill:#f00}</style><path class="a"/></svg></a>`,
		`<a class="bg-indigo-600" style="color:#fff;background:hsl(0 100% 50%)">x</a><style>.bg-indigo-600{background:#4f46e5}</style>`,
		`<link rel="icon" href="data:image/svg+xml,%3Csvg%3E%3Crect fill='red'/%3E%3C/svg%3E">`,
		`{"theme_color":"#e91e63","background_color":"rgb(1 2 3)"}`,
		`<svg><stop stop-color="#123456"/></svg>`,
		`<svg viewBox="0 0 1e308 1e308"><g transform="matrix(1e308 0 0 1e308 0 0) scale(-1e308)"><path fill="#f60" d="m1.5.5-2e400z a1 1 0 0 0 .5.5"/><rect width="-5%" height="1e999"/></g></svg>`,
		`<svg><linearGradient id="a" href="#a"/><linearGradient id="b" xlink:href="#a"/><circle r="3" fill="url(#b)" stroke="url('#a')" stroke-width="x"/></svg>`,
		`<a href="/"><svg><g opacity=".7"><image width="5" height="5" href="data:image/png;base64,iVBORw0KGgo="/></g><linearGradient id="g"><stop offset="2" stop-opacity="-1"/><stop offset="-50%"/></linearGradient><rect width="1" height="1" fill="url(#g)"/></svg></a>`,
	} {
		f.Add([]byte(s))
	}
	// The corpus pages and stylesheets are realistic seeds.
	_ = filepath.WalkDir(corpusDir, func(p string, d os.DirEntry, err error) error {
		if err == nil && !d.IsDir() && (filepath.Ext(p) == ".css" || filepath.Ext(p) == ".html") {
			if b, err := os.ReadFile(p); err == nil && len(b) < 8<<10 {
				f.Add(b)
			}
		}
		return nil
	})
	f.Fuzz(func(t *testing.T, data []byte) {
		if c, ok := parseColorValue(data); ok && !validHex(c.hex()) {
			t.Fatalf("invalid colour %q", c.hex())
		}
		sites := []Site{
			{URL: "https://f.example/", HTML: data},
			{URL: "https://f.example/", Stylesheets: []Doc{{URL: "https://f.example/a.css", Body: data}}},
			{Manifest: data},
			{Images: []Image{{Body: data, ContentType: "image/svg+xml", Role: RoleLogo}}},
		}
		CSSLogos(Site{URL: "https://f.example/", HTML: data, Stylesheets: []Doc{{URL: "https://f.example/a.css", Body: data}}}, MaxImages)
		for _, s := range sites {
			res, err := Extract(s)
			if err != nil {
				if !errors.Is(err, ErrNoColors) || len(res.Colors) != 0 {
					t.Fatalf("unexpected %v %v", res.Colors, err)
				}
				continue
			}
			checkFuzzResult(t, res)
		}
		e := newExtractor("")
		e.scanCSS(data, "style attribute", &selInfo{role: roleButton, mult: 1})
		e.finishCSS()
		if res, _, err := e.rankDetailed(); err == nil {
			checkFuzzResult(t, res)
		}
		w := Links("https://f.example/dir/", data)
		if len(w.Stylesheets) > MaxStylesheets || len(w.Images) > MaxImages {
			t.Fatalf("limits: %+v", w)
		}
		all := append(append([]string{}, w.Stylesheets...), w.Manifest)
		for _, im := range w.Images {
			all = append(all, im.URL)
		}
		for _, u := range all {
			if u == "" {
				continue
			}
			pu, err := url.Parse(u)
			if err != nil || (pu.Scheme != "http" && pu.Scheme != "https") || pu.Host == "" {
				t.Fatalf("bad URL %q", u)
			}
		}
	})
}

func checkFuzzResult(t *testing.T, res Result) {
	t.Helper()
	if len(res.Colors) == 0 || len(res.Colors) > MaxColors {
		t.Fatalf("got %d colours", len(res.Colors))
	}
	for _, c := range res.Colors {
		if !validHex(c) {
			t.Fatalf("invalid colour %q", c)
		}
	}
	for _, s := range res.Signals {
		if !validHex(s.Color) || s.Weight <= 0 {
			t.Fatalf("bad signal %+v", s)
		}
	}
}
