package brand

import (
	"fmt"
	"net/url"
	"reflect"
	"strings"
	"testing"
)

func TestLinks(t *testing.T) {
	var sheets strings.Builder
	for i := 0; i < 12; i++ {
		fmt.Fprintf(&sheets, `<link rel="stylesheet" href="/s%d.css">`, i)
	}
	page := `<!doctype html><html><head>
<base href="https://cdn.example.com/site/">
<link rel="stylesheet" href="main.css">
<link rel="preload" as="style" href="/late.css">
<link rel="stylesheet" href="print.css" media="print">
<link rel="stylesheet" href="swap.css" media="print" onload="this.media='all'">
<link rel="alternate stylesheet" href="contrast.css">
<link rel="stylesheet" href="main.css#dup">
<link rel="manifest" href="/app.webmanifest">
<link rel="manifest" href="/second.webmanifest">
<link rel="apple-touch-icon" sizes="120x120" href="/touch-120.png">
<link rel="apple-touch-icon" sizes="180x180" href="/touch-180.png">
<link rel="icon" href="/favicon.ico">
<link rel="icon" type="image/png" sizes="32x32" href="/favicon-32.png">
<link rel="icon" type="image/png" sizes="16x16" href="/favicon-16.png">
<link rel="icon" href="data:image/svg+xml,%3Csvg%3E%3C/svg%3E">
<link rel="mask-icon" href="/pinned.svg" color="#ff0000">
<meta property="og:image" content="https://cdn.example.com/og-logo.png">
` + sheets.String() + `
</head><body>
<div class="customer-logos"><img src="/acme-logo.png" alt="Acme logo"></div>
<header><a href="https://www.links.example/"><img src="/img/wordmark.svg" alt="Links Inc"></a></header>
<img src="javascript:alert(1)" class="logo">
<img src="/img/footer-logo.png" class="footer__logo">
</body></html>`
	got := Links("https://links.example/page", []byte(page))
	want := Wanted{
		Stylesheets: []string{
			"https://cdn.example.com/site/main.css",
			"https://cdn.example.com/late.css",
			"https://cdn.example.com/site/swap.css",
			"https://cdn.example.com/s0.css",
			"https://cdn.example.com/s1.css",
			"https://cdn.example.com/s2.css",
			"https://cdn.example.com/s3.css",
			"https://cdn.example.com/s4.css",
			"https://cdn.example.com/s5.css",
			"https://cdn.example.com/s6.css",
		},
		Manifest: "https://cdn.example.com/app.webmanifest",
		Images: []WantedImage{
			{"https://cdn.example.com/touch-180.png", RoleAppleTouchIcon},
			{"https://cdn.example.com/favicon.ico", RoleFavicon},
			{"https://cdn.example.com/img/wordmark.svg", RoleLogo},
			{"https://cdn.example.com/favicon-32.png", RoleFavicon},
		},
	}
	if !reflect.DeepEqual(got, want) {
		t.Errorf("Links:\n got %+v\nwant %+v", got, want)
	}
}

func TestLinksDefaultsAndLimits(t *testing.T) {
	got := Links("https://bare.example/a/b?q=1", []byte(`<html><head><title>x</title></head><body>
<a href="/"><img class="site-logo" srcset="/logo@2x.png 2x, /logo.png 1x"></a>
<div id="partners"><img src="/partner-logo.png" alt="partner logo"></div>
<img src="/photo.jpg" alt="team photo">
</body></html>`))
	want := []WantedImage{
		{"https://bare.example/favicon.ico", RoleFavicon},
		{"https://bare.example/logo@2x.png", RoleLogo},
	}
	if !reflect.DeepEqual(got.Images, want) || got.Manifest != "" || len(got.Stylesheets) != 0 {
		t.Errorf("got %+v", got)
	}
	// An unusable page URL: only absolute links survive.
	got = Links("not a url", []byte(`<link rel=stylesheet href="/x.css"><link rel=stylesheet href="https://ok.example/y.css">`))
	if !reflect.DeepEqual(got.Stylesheets, []string{"https://ok.example/y.css"}) {
		t.Errorf("got %+v", got)
	}
	// The icon sizes parser prefers vector icons and the largest bitmap.
	if iconSize([]byte("16x16 48x48 32x32"), nil, nil, 0) != 48 || iconSize([]byte("any"), nil, nil, 0) != 4096 ||
		iconSize(nil, nil, []byte("/i.svg?v=2"), 0) != 4096 {
		t.Error("iconSize")
	}
}

func TestIsHome(t *testing.T) {
	page := mustURL(t, "https://www.shop.example/products/1")
	for href, want := range map[string]bool{
		"/":                           true,
		"./":                          true,
		"index.html":                  true,
		"/en-gb/":                     true,
		"/de":                         true,
		"https://shop.example":        true,
		"https://www.shop.example/":   true,
		"//shop.example/":             true,
		"https://shop.example/?utm=1": false,
		"https://other.example/":      false,
		"/products":                   false,
		"/blog/":                      false,
		"":                            false,
		"javascript:void(0)":          false,
	} {
		if got := isHome([]byte(href), page); got != want {
			t.Errorf("isHome(%q) = %v", href, got)
		}
	}
}

func mustURL(t *testing.T, s string) *url.URL {
	t.Helper()
	u, err := url.Parse(s)
	if err != nil {
		t.Fatal(err)
	}
	return u
}

func TestLinksRefresh(t *testing.T) {
	for _, tt := range []struct {
		meta string
		want string
	}{
		{`<meta http-equiv="refresh" content="0; url=https://www.new.example/">`, "https://www.new.example/"},
		{`<meta http-equiv="Refresh" content="3;URL='/en/home'">`, "https://old.example/en/home"},
		{`<meta http-equiv="refresh" content="0,/moved">`, "https://old.example/moved"},
		{`<meta http-equiv="refresh" content=' 1.5 ; url = "next.html" '>`, "https://old.example/dir/next.html"},
		{`<meta http-equiv="refresh" content="60; url=/later">`, ""},        // a page that reloads later
		{`<meta http-equiv="refresh" content="30">`, ""},                    // reloads itself
		{`<meta http-equiv="refresh" content="0; url=javascript:x()">`, ""}, // not http(s)
		{`<meta name="refresh" content="0; url=/x">`, ""},                   // not http-equiv
		{`<meta http-equiv="refresh" content="0; url=ftp://x.example/">`, ""},
	} {
		got := Links("https://old.example/dir/page", []byte("<html><head>"+tt.meta+"</head></html>"))
		if got.Refresh != tt.want {
			t.Errorf("%s: Refresh = %q, want %q", tt.meta, got.Refresh, tt.want)
		}
	}
}

// SVG illustrations in the header or hero are read (their colours paint the
// first screen); the same file elsewhere, raster heroes, and walls of
// other companies' logos are not.
func TestLinksHeroSVG(t *testing.T) {
	page := `<html><head><link rel="icon" href="/favicon.ico"></head><body>
<header><a href="/"><img src="/img/logo.svg" alt="Acme"></a></header>
<section class="hero is-primary"><img src="/img/cloud-illustration.svg"><img src="/img/photo.jpg"></section>
<div class="partners"><img src="/img/other.svg"></div>
<footer><img src="/img/footer-art.svg"></footer></body></html>`
	w := Links("https://acme.example/", []byte(page))
	var heroes []string
	for _, im := range w.Images {
		if im.Role == RoleHero {
			heroes = append(heroes, im.URL)
		}
	}
	if len(heroes) != 1 || heroes[0] != "https://acme.example/img/cloud-illustration.svg" {
		t.Fatalf("hero images %v in %+v", heroes, w.Images)
	}
	svg := `<svg viewBox="0 0 10 10"><rect width="10" height="10" fill="#7B2FBE"/></svg>`
	res, err := Extract(Site{URL: "https://acme.example/", HTML: []byte(page),
		Images: []Image{{URL: heroes[0], Role: RoleHero, Body: []byte(svg)}}})
	if err != nil || len(res.Colors) == 0 || res.Colors[0] != "#7B2FBE" || res.Signals[0].Kind != KindHeroImage {
		t.Fatalf("%v %v %+v", res.Colors, err, res.Signals)
	}
}

// An image that says logo but names someone else (a foundation, a
// platform) is not taken for the site's logo; one that names the site,
// however written, is.
func TestLinksLogoNamesOther(t *testing.T) {
	for _, c := range []struct {
		site, alt string
		want      bool
	}{
		{"https://cri-o.example/", "Cloud Native Computing Foundation logo", false},
		{"https://cri-o.example/", "CRI-O logo", true},
		{"https://goharbor.example/", "Harbor logo", true},
		{"https://www.acme.example/", "Logo", true},
		{"https://longhorn.example/", "Longhorn navbar logo", true},
	} {
		page := `<body><img src="/img/mark.png" alt="` + c.alt + `"></body>`
		w := Links(c.site, []byte(page))
		got := false
		for _, im := range w.Images {
			got = got || im.Role == RoleLogo
		}
		if got != c.want {
			t.Errorf("%s %q: logo chosen %v, want %v", c.site, c.alt, got, c.want)
		}
	}
}

// CSSLogos names a logo a stylesheet draws on an element of the page, once,
// resolved against the stylesheet; not one on a rule that matches nothing,
// not another company's, not past the room left.
func TestCSSLogos(t *testing.T) {
	page := `<html><head><title>Acme</title></head><body><header><h1 class="project-name">Acme</h1><div class="cncf"></div>
<nav><a href="/a">A</a><a href="/b">B</a></nav></header><main><p>Hello</p></main></body></html>`
	css := `/* .project-name{background:url(/x/commented-logo.svg)} */
@media screen { .project-name { background-image: url("../img/acme-logo.svg") } }
.project-name:hover{background:url('../img/acme-logo.svg')}
.missing{background-image:url(../img/missing-logo.svg)}
.cncf{background:url(/partners/cncf-logo.png)}
.project-name::after{background:url(data:image/svg+xml,logo)}`
	s := Site{URL: "https://acme.example/", HTML: []byte(page),
		Stylesheets: []Doc{{URL: "https://acme.example/css/site.css", Body: []byte(css)}}}
	got := CSSLogos(s, 3)
	if len(got) != 1 || got[0].URL != "https://acme.example/img/acme-logo.svg" || got[0].Role != RoleLogo {
		t.Fatalf("%+v", got)
	}
	if got := CSSLogos(s, 0); len(got) != 0 {
		t.Errorf("no room: %+v", got)
	}
	s.Images = []Image{{URL: "https://acme.example/img/acme-logo.svg"}}
	if got := CSSLogos(s, 3); len(got) != 0 {
		t.Errorf("already held: %+v", got)
	}
	// A page with no logo in its HTML leaves one image fetch for CSSLogos.
	w := Links("https://acme.example/", []byte(`<head><link rel="apple-touch-icon" href="/t.png">
<link rel="icon" href="/a.png" sizes="16x16"><link rel="icon" href="/b.png" sizes="32x32">
<link rel="icon" href="/c.png" sizes="48x48"><link rel="icon" href="/d.png" sizes="64x64"></head>`))
	if len(w.Images) != MaxImages-1 {
		t.Errorf("images %d, want %d", len(w.Images), MaxImages-1)
	}
}

// A 16-pixel icon is not fetched beside a larger one (its colours are
// anti-aliased blends of the same mark); alone, it is.
func TestLinksSkipsLowResIcon(t *testing.T) {
	w := Links("https://acme.example/", []byte(`<link rel="icon" sizes="32x32" href="/32.png"><link rel="icon" sizes="16x16" href="/16.png">`))
	for _, im := range w.Images {
		if strings.HasSuffix(im.URL, "/16.png") {
			t.Errorf("16 px icon fetched beside the 32 px one: %+v", w.Images)
		}
	}
	w = Links("https://acme.example/", []byte(`<link rel="icon" sizes="16x16" href="/16.png">`))
	if len(w.Images) != 1 || !strings.HasSuffix(w.Images[0].URL, "/16.png") {
		t.Errorf("lone 16 px icon: %+v", w.Images)
	}
}
