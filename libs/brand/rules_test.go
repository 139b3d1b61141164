package brand

import (
	"fmt"
	"image/color"
	"slices"
	"strings"
	"testing"
)

// buttonPage is a page whose stylesheet paints accent on a link rule, a
// button rule used by many buttons, and a primary variable, with the given
// inline SVG logo in its header.
func buttonPage(logo, accent string) Site {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Acme</title></head><body>
<header class="navbar"><a href="/" class="logo">` + logo + `</a>
<nav><a href="/docs">Docs</a><a href="/blog">Blog</a></nav></header>
<section class="hero"><h1>Acme</h1><a class="button" href="/start">Start</a></section><main>`)
	for i := range 20 {
		fmt.Fprintf(&b, `<p>Item %d <a href="/i%d">more</a> <a class="button" href="/b%d">Go</a></p>`, i, i, i)
	}
	b.WriteString(`</main></body></html>`)
	css := fmt.Sprintf(`:root { --primary: %[1]s }
a { color: %[1]s }
nav a:hover { color: %[1]s }
.button { background: %[1]s; border: 1px solid %[1]s; color: #fff }
.button:hover { background: %[1]s }`, accent)
	return Site{URL: "https://acme.example/", HTML: []byte(b.String()),
		Stylesheets: []Doc{{URL: "https://acme.example/site.css", Body: []byte(css)}}}
}

// TestLogoAnchorsRanking: the colour the logo and the icon agree on comes
// first, though a link and button colour on many elements (and a
// --primary variable) has more evidence in the stylesheets. Before the
// rule, the button colour came first (antrea.io, git-lfs.com, vitess.io).
func TestLogoAnchorsRanking(t *testing.T) {
	logo := `<svg viewBox="0 0 100 40"><rect width="60" height="40" fill="#19BFD3"/><rect x="60" width="40" height="40" fill="#1E4489"/></svg>`
	s := buttonPage(logo, "#0095D3")
	s.Images = []Image{{URL: "https://acme.example/favicon.png", Role: RoleFavicon,
		Body: encodePNG(t, roundedSquare(32, 4, hexColor("#19BFD3"), color.NRGBA{255, 255, 255, 255}))}}
	res, err := Extract(s)
	if err != nil {
		t.Fatal(err)
	}
	if len(res.Colors) < 2 || res.Colors[0] != "#19BFD3" {
		t.Errorf("got %v, want the logo's #19BFD3 first", res.Colors)
	}
	if rankOf(res.Colors, "#0095D3") < 0 {
		t.Errorf("the button colour is lost: %v", res.Colors)
	}
	// Without a chromatic mark the stylesheets decide.
	s = buttonPage(`<svg viewBox="0 0 10 10"><rect width="10" height="10" fill="#333333"/></svg>`, "#0095D3")
	if res, err := Extract(s); err != nil || res.Colors[0] != "#0095D3" {
		t.Errorf("grey logo: got %v, %v", res.Colors, err)
	}
}

// TestLogoTieBrokenByPage: a logo of four equal colours does not say which
// is the brand's; the one the page paints on its buttons and links does
// (nats.io).
func TestLogoTieBrokenByPage(t *testing.T) {
	logo := `<svg viewBox="0 0 100 10"><rect width="25" height="10" fill="#375C93"/><rect x="25" width="25" height="10" fill="#34A574"/>` +
		`<rect x="50" width="25" height="10" fill="#27AAE1"/><rect x="75" width="25" height="10" fill="#8DC63F"/></svg>`
	for _, accent := range []string{"#27AAE1", "#34A574"} {
		res, err := Extract(buttonPage(logo, accent))
		if err != nil || res.Colors[0] != accent {
			t.Errorf("buttons %s: got %v, %v", accent, res.Colors, err)
		}
	}
}

// TestFlatFillOutweighsGradient: an icon's flat navy is its colour more
// than the many shades of a teal gradient that together cover more pixels
// (tldr.sh's icon). Before, the gradient's cluster came first.
func TestFlatFillOutweighsGradient(t *testing.T) {
	navy, lo, hi := hexColor("#203050"), hexColor("#4D9182"), hexColor("#97D6D2")
	icon := shape(120, 120, func(x, y float64) color.NRGBA {
		if y < 24 {
			return navy
		}
		f := x / 120 // a horizontal gradient, one shade per column
		mix := func(a, b uint8) uint8 { return uint8(float64(a)*(1-f) + float64(b)*f) }
		return color.NRGBA{mix(lo.R, hi.R), mix(lo.G, hi.G), mix(lo.B, hi.B), 255}
	})
	s := Site{URL: "https://tldr.example/", HTML: []byte(`<html><body><h1>tldr</h1></body></html>`),
		Images: []Image{{URL: "https://tldr.example/icon.png", Role: RoleFavicon, Body: encodePNG(t, icon)}}}
	res, err := Extract(s)
	if err != nil || len(res.Colors) == 0 || res.Colors[0] != "#203050" {
		t.Fatalf("got %v, %v; want the flat #203050 first", res.Colors, err)
	}
	cls := dominant(icon)
	for _, cl := range cls {
		if cl.c == (rgb{0x20, 0x30, 0x50}) != cl.isFlat() {
			t.Errorf("flatness of %s: share %.2f, flat %.2f", cl.c.hex(), cl.share, cl.flat)
		}
	}
}

// TestNearIdenticalSVGFillsAreOneColour: a blue exported as #4194D7,
// #4596D8 and #4496D8 on different shapes is one blue, whose whole area
// makes it the mark's main colour (goharbor.io's icon). Before, each
// counted apart and the green's one fill was the main colour.
func TestNearIdenticalSVGFillsAreOneColour(t *testing.T) {
	svg := `<svg viewBox="0 0 100 10"><rect width="40" height="10" fill="#60B932"/>` +
		`<rect x="40" width="20" height="10" fill="#4194D7"/><rect x="60" width="20" height="10" fill="#4596D8"/>` +
		`<rect x="80" width="20" height="10" fill="#4496D8"/></svg>`
	e := newExtractor("")
	e.scanImage([]byte(svg), "image/svg+xml", "icon.svg", RoleFavicon)
	var blue, green float64
	for _, s := range e.signals {
		switch {
		case deltaE(s.c.hex(), "#4596D8") < 3:
			blue += s.w
		case s.c.hex() == "#60B932":
			green = s.w
		}
	}
	if blue != 5 || green >= blue {
		t.Errorf("blue %.2f, green %.2f: want the blue main at 5 (%+v)", blue, green, e.signals)
	}
}

// TestNoisyRasterTakesCSSValue: a raster logo whose orange is spread over
// many pixel values names no one value; the orange the stylesheets name
// represents the colour (git-scm.com's logo PNG and its #F14E32).
func TestNoisyRasterTakesCSSValue(t *testing.T) {
	base := hexColor("#F34C28")
	noisy := shape(80, 80, func(x, y float64) color.NRGBA {
		d := uint8(int(x*97+y*89) % 7) // seven values, none a flat fill (x, y are pixel centres)
		return color.NRGBA{base.R - d, base.G + d/2, base.B + d, 255}
	})
	s := Site{URL: "https://git.example/",
		HTML: []byte(`<html><body><header><a href="/"><img src="/logo.png" alt="Git logo"></a></header>` +
			`<p><a href="/a">a</a> <a href="/b">b</a></p></body></html>`),
		Stylesheets: []Doc{{URL: "https://git.example/s.css", Body: []byte(`a { color: #F14E32 } p a:hover { color: #F14E32 }`)}},
		Images:      []Image{{URL: "https://git.example/logo.png", Role: RoleLogo, Body: encodePNG(t, noisy)}},
	}
	res, err := Extract(s)
	if err != nil || len(res.Colors) == 0 || res.Colors[0] != "#F14E32" {
		t.Errorf("got %v, %v; want the stylesheet's #F14E32", res.Colors, err)
	}
}

// TestLinksDropsOtherOrganisationsLogo: when a logo candidate names the
// site, one whose file or class names something else is another
// organisation's mark (goharbor.io's "is-cncf-logo"
// cloud-native-computing.svg), not fetched as the site's logo.
func TestLinksDropsOtherOrganisationsLogo(t *testing.T) {
	page := `<html><body><nav><a href="/"><img src="/img/logos/harbor-horizontal-color.png" alt="Harbor logo"></a></nav>
<section><p>A CNCF project</p><img class="is-cncf-logo" src="/img/logos/cloud-native-computing.svg"></section></body></html>`
	w := Links("https://goharbor.example/", []byte(page))
	var logos []string
	for _, im := range w.Images {
		if im.Role == RoleLogo {
			logos = append(logos, im.URL)
		}
	}
	if len(logos) != 1 || !strings.HasSuffix(logos[0], "harbor-horizontal-color.png") {
		t.Errorf("logos %v", logos)
	}
	// A logo named only "logo" is kept beside one that names the site.
	page = `<html><body><header><a href="/"><img src="/logo.svg" class="logo"></a></header>
<footer><img src="/img/harbor-logo-white.png" alt="logo"></footer></body></html>`
	if n := len(Links("https://goharbor.example/", []byte(page)).Images); n < 3 {
		t.Errorf("generic logo dropped: %d images", n)
	}
}

// TestRareColoursAreNotFrequent: colours used only by rules that paint
// nothing here (a code highlighter's theme on a page without code) are
// not frequent because everything else is rarer still (strimzi.io's
// highlight.js theme came 2nd–7th).
func TestRareColoursAreNotFrequent(t *testing.T) {
	s := Site{URL: "https://kafka.example/",
		HTML: []byte(`<html><body><header><a href="/" class="logo"><svg viewBox="0 0 10 10"><rect width="10" height="10" fill="#192C47"/></svg></a></header>` +
			strings.Repeat(`<p>Text</p>`, 10) + `</body></html>`),
		Stylesheets: []Doc{{URL: "https://cdn.example/hljs.css", Body: []byte(
			`.hljs-string, .hljs-title { color: #880000 } .hljs-comment { color: #888888 } .hljs-number { color: #397300 } .hljs-keyword { color: #1F7199 }`)}},
	}
	res, err := Extract(s)
	if err != nil || len(res.Colors) != 1 || res.Colors[0] != "#192C47" {
		t.Errorf("got %v, %v; want only the logo's #192C47", res.Colors, err)
	}
}

// TestHighlightSelector holds the code-highlighting classes, Pygments'
// short ones included, apart from look-alikes.
func TestHighlightSelector(t *testing.T) {
	for sel, want := range map[string]bool{
		".nf": true, ".s2": true, "div .lineno": true, ".hljs-string": true, "pre code .k": true,
		".highlight .err, .x": true, ".nav": false, ".navbar-brand": false, ".button.is-primary": false,
		".cpfx": false, "a.s": false, ".kx": false,
	} {
		if got := highlightSelector(sel); got != want {
			t.Errorf("%q: %v, want %v", sel, got, want)
		}
	}
}

// bandPage is a page with an orange logo, a full-width band (a video,
// headings, text and lists) whose gradient ends in band, and links in
// link, a near shade of band, in a dark section and in the footer.
func bandPage(band, link string) Site {
	var b strings.Builder
	b.WriteString(`<!doctype html><html><head><title>Acme</title></head><body>
<header class="nav"><a href="/" class="logo"><svg viewBox="0 0 10 10"><rect width="10" height="10" fill="#E8590C"/></svg></a>
<a href="/docs">Docs</a></header>
<div class="band"><div class="grid"><div class="col"><iframe src="https://video.example/v"></iframe></div>
<div class="col"><h1>Run it anywhere in minutes</h1><p>Acme runs your workloads on any cluster, in many configurations, with one command.</p></div>`)
	for i := range 3 {
		fmt.Fprintf(&b, `<div class="col"><h4>Feature %d</h4><ul><li>Secure by default</li><li>Simple to configure</li><li>Native tools</li></ul></div>`, i)
	}
	b.WriteString(`</div></div><div class="dark"><h2>What is Acme?</h2>`)
	for i := range 6 {
		fmt.Fprintf(&b, `<p>Read <a href="/r%d">the guide</a> or <a href="/s%d">ask</a>.</p>`, i, i)
	}
	b.WriteString(`</div><footer class="site-footer"><p><a href="/gh">GitHub</a> <a href="/tw">Twitter</a></p></footer></body></html>`)
	css := fmt.Sprintf(`a { color: #1F579C }
.band { background: linear-gradient(145deg, #182C46 0%%, #27516C 50%%, %[1]s 100%%) }
.dark, .site-footer { background: #182C46; color: #fff }
.dark a, .site-footer a { color: %[2]s }
.site-footer p a { color: %[2]s }`, band, link)
	return Site{URL: "https://acme.example/", HTML: []byte(b.String()),
		Stylesheets: []Doc{{URL: "https://acme.example/site.css", Body: []byte(css)}}}
}

// TestMostPaintedShadeRepresents: of two shades within the merge radius,
// the one a full-width band is painted with represents their group, not
// the link colour with more rule evidence (strimzi.io: the video band's
// #53B9D7 and the dark section's and footer's link #98D5E7, ΔE 9.5).
// Before, the link colour represented the group and the band's was lost.
func TestMostPaintedShadeRepresents(t *testing.T) {
	res, err := Extract(bandPage("#53B9D7", "#98D5E7"))
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Contains(res.Colors, "#53B9D7") {
		t.Errorf("got %v, want the band's #53B9D7", res.Colors)
	}
	if rankOf(res.Colors, "#98D5E7") >= 0 {
		t.Errorf("got %v: the link shade #98D5E7 is returned beside the band's", res.Colors)
	}
	// A shade only hovered paints nothing at rest: the links keep the group.
	s := bandPage("#53B9D7", "#98D5E7")
	s.Stylesheets[0].Body = []byte(strings.Replace(string(s.Stylesheets[0].Body), ".band {", ".band:hover {", 1))
	if res, err := Extract(s); err != nil || !slices.Contains(res.Colors, "#98D5E7") {
		t.Errorf("hovered band: got %v, %v, want the links' #98D5E7", res.Colors, err)
	}
}
