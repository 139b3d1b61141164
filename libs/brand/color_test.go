package brand

import (
	"testing"
)

func TestParseColorValue(t *testing.T) {
	cases := []struct {
		in   string
		want string // "" = not a colour
	}{
		{"#abc", "#AABBCC"},
		{"#AbCdEf", "#ABCDEF"},
		{"  #635bff ", "#635BFF"},
		{"#abcd", "#AABBCC"},     // alpha dd ≈ 0.87: kept
		{"#abcdef80", ""},        // alpha 0.5: a tint, dropped
		{"#abcdefff", "#ABCDEF"}, // opaque 8-digit
		{"#ab", ""},              // wrong length
		{"#ggg", ""},             // not hex
		{"rgb(255, 0, 0)", "#FF0000"},
		{"RGB(255,0,0)", "#FF0000"},
		{"rgba(0,0,255,.5)", ""},
		{"rgba(0,0,255,0.9)", "#0000FF"},
		{"rgb(0 112 60)", "#00703C"},
		{"rgb(0 112 60 / 80%)", "#00703C"},
		{"rgb(0 112 60 / 20%)", ""},
		{"rgb(100%, 50%, 0%)", "#FF8000"},
		{"rgb(300 -5 12)", "#FF000C"}, // clamped
		{"rgb(1 2)", ""},
		{"rgb(1 2 3 4 5)", ""},
		{"hsl(120, 100%, 25%)", "#008000"},
		{"hsl(152deg 100% 22%)", "#00703B"},
		{"hsl(0.5turn 100% 50%)", "#00FFFF"},
		{"hsl(3.14159rad 100% 50%)", "#00FFFF"},
		{"hsla(0,0%,100%,.1)", ""},
		{"hsl(-120 100% 50%)", "#0000FF"},
		{"hwb(0 0% 0%)", "#FF0000"},
		{"hwb(0 60% 60%)", "#808080"},
		{"color(srgb 1 0 0)", "#FF0000"},
		{"oklch(62.3% .214 259.815)", "#2B7FFF"},
		{"oklch(0.623 0.214 259.815 / 0.9)", "#2B7FFF"},
		{"oklab(0.628 0.225 0.126)", "#FF0000"},
		{"lab(54.29% 80.8 69.89)", "#FF0000"},
		{"lch(54.29 106.8 40.85)", "#FF0000"},
		{"rebeccapurple", "#663399"},
		{"RED", "#FF0000"},
		{"transparent", ""},
		{"currentColor", ""},
		{"inherit", ""},
		{"none", ""},
		{"url(#gradient)", ""},
		{"linear-gradient(90deg, #f00 0%, #00f 100%)", "#FF0000"},
		{"var(--x)", ""},
		{"var(--x, #0f0)", "#00FF00"},
		{"calc(1px + 2px)", ""},
		{"rgb(calc(10) 0 0)", ""},
		{"rgb(var(--c))", ""},
		{"", ""},
		{"#", ""},
		{"rgb(", ""},
		{"rgb(1e2 0 0)", "#640000"},
	}
	for _, c := range cases {
		got, ok := parseColorValue([]byte(c.in))
		switch {
		case c.want == "" && ok:
			t.Errorf("%q: got %s, want no colour", c.in, got.hex())
		case c.want != "" && !ok:
			t.Errorf("%q: got no colour, want %s", c.in, c.want)
		case c.want != "" && deltaE(got.hex(), c.want) > 1:
			t.Errorf("%q: got %s, want %s", c.in, got.hex(), c.want)
		}
	}
}

func TestBareTriplet(t *testing.T) {
	cases := map[string]string{
		"262.1 83.3% 57.8%": "#7C3AED", // shadcn HSL channels
		"13, 110, 253":      "#0D6EFD", // Bootstrap --bs-primary-rgb
		"99 91 255":         "#635BFF", // Tailwind rgb channels
		"0 0% 100%":         "#FFFFFF",
		"1px 2px 3px":       "",
		"300 20 20":         "",
		"12":                "",
	}
	for in, want := range cases {
		var buf [16]tok
		got, ok := bareTriplet(trimWS(lexValue([]byte(in), buf[:0])))
		if want == "" {
			if ok {
				t.Errorf("%q: got %s, want none", in, got.hex())
			}
			continue
		}
		if !ok || deltaE(got.hex(), want) > 1 {
			t.Errorf("%q: got %s %v, want %s", in, got.hex(), ok, want)
		}
	}
}

func TestToneOf(t *testing.T) {
	for h, want := range map[string]tone{
		"#0A2540": chromatic, // Stripe navy must survive
		"#635BFF": chromatic,
		"#425466": neutral, // slate text
		"#64748B": neutral,
		"#F6F9FC": neutral,
		"#0D1117": neutral,
		"#FFFFFF": neutral,
		"#000000": neutral,
		"#E6F0FF": neutral, // a pale tint
		"#FFCB57": chromatic,
	} {
		c, _, _ := parseHex([]byte(h[1:]))
		if got := toneOf(c.lab()); got != want {
			t.Errorf("%s: tone %d, want %d", h, got, want)
		}
	}
}

// TestVarResolution follows var() through aliases, fallbacks and
// definitions that come later or in another stylesheet.
func TestVarResolution(t *testing.T) {
	site := Site{
		URL: "https://v.example/",
		Stylesheets: []Doc{
			{URL: "a.css", Body: []byte(`.btn-primary { background: var(--button-bg); }
a { color: var(--missing, #e11d48); }
.cta { background: rgb(var(--brand-rgb) / 90%); }`)},
			{URL: "b.css", Body: []byte(`:root { --indigo-600: #4f46e5; --button-bg: var(--indigo-600); --brand-rgb: 79 70 229;
--loop-a: var(--loop-b); --loop-b: var(--loop-a); }
.x { color: var(--loop-a); }
@media (prefers-color-scheme: dark) { :root { --button-bg: #000; } }`)},
		},
	}
	res, err := Extract(site)
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, res)
	want := map[string]bool{"button:#4F46E5": false, "link:#E11D48": false}
	for _, s := range res.Signals {
		k := string(s.Kind) + ":" + s.Color
		if _, ok := want[k]; ok {
			want[k] = true
		}
		if s.Kind == KindButton && s.Color == "#000000" {
			t.Errorf("dark-scheme override replaced the default: %+v", s)
		}
	}
	for k, seen := range want {
		if !seen {
			t.Errorf("missing signal %s in %+v", k, res.Signals)
		}
	}
	if res.Colors[0] != "#4F46E5" {
		t.Errorf("got %v", res.Colors)
	}
}

func TestUnescapeIdent(t *testing.T) {
	for in, want := range map[string]string{
		`hover\:bg-indigo-700`: "hover:bg-indigo-700",
		`bg-\[\#635bff\]`:      "bg-[#635bff]",
		`\31 0`:                "10",
		`w-1\/2`:               "w-1/2",
		`plain`:                "plain",
		`trailing\`:            `trailing\`,
	} {
		if got := unescapeIdent([]byte(in)); got != want {
			t.Errorf("%q: got %q, want %q", in, got, want)
		}
	}
}

func TestVarWeight(t *testing.T) {
	for name, want := range map[string]float64{
		"--brand":                          8,
		"--color-brand-primary":            8,
		"--bs-primary":                     7,
		"--primary-hover":                  3.5,
		"--accent":                         5,
		"--text-color":                     0.75,
		"--color-primary-700":              2.8,
		"--color-primary-600":              7,
		"--tw-ring-color":                  0,
		"--wp--preset--color--vivid-red":   0,
		"--wp--preset--color--primary":     7,
		"--wp--preset--gradient--x":        0,
		"--spacing-4":                      0,
		"--brand-secondary":                4.8,
		"--fb-color-brand-primary-subtle":  4,
		"--fb-color-brand-secondary-hover": 2.4,
		"--docsearch-primary-color":        7 * 0.15,
		"--swiper-theme-color":             1.5 * 0.15,
	} {
		if got := varWeight(name, false); abs(got-want) > 1e-9 {
			t.Errorf("%s: %v, want %v", name, got, want)
		}
	}
	if got := varWeight("--brand", true); got != 4 {
		t.Errorf("dark --brand: %v", got)
	}
}

func abs(v float64) float64 {
	if v < 0 {
		return -v
	}
	return v
}

func TestClassifySelector(t *testing.T) {
	cases := []struct {
		sel  string
		role role
		mult float64
	}{
		{".btn-primary", roleButton, 1.5},
		{".btn-primary:hover", roleButton, 0.75},
		{".btn-outline-secondary", roleButton, 0.3},
		{"button, [type=submit]", roleButton, 1},
		{"a", roleLink, 1},
		{".navbar .nav-link", roleLink, 1},
		{"nav a:hover", roleLink, 0.5},
		{".site-footer a", roleLink, 0.3},
		{"header", roleHeader, 1},
		{".SiteHeader", roleHeader, 1},
		{".site-logo", roleLogo, 1},
		{".customer-logos img", roleNone, 1},
		{".wp-social-link-facebook", roleNone, 1},
		{"h1, h2, .title", roleNone, 1},
		{":root", roleNone, 1},
		{".card > .btn-brand", roleButton, 1.5},
	}
	for _, c := range cases {
		var buf [32]tok
		p := trimWS(lexValue([]byte(c.sel), buf[:0]))
		got := classifySelector(p)
		if got.role != c.role || abs(got.mult-c.mult) > 1e-9 {
			t.Errorf("%q: role %d mult %v, want %d %v", c.sel, got.role, got.mult, c.role, c.mult)
		}
	}
}
