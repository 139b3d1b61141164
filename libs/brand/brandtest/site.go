// Package brandtest builds websites for tests and benchmarks of brand
// extraction: the typical marketing site the speed targets are set for, and
// an HTTP handler that serves a brand.Site from its own paths.
package brandtest

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math/rand/v2"
	"net/http"
	"net/url"
	"strings"

	"chartd.dev/libs/brand"
)

// TypicalSite builds the page the speed target is set for: 100 KB of HTML,
// three 200 KB stylesheets and two icons, in the shape of a real
// marketing site (design tokens, component CSS, utility classes, media
// queries, an inline SVG logo).
func TypicalSite() brand.Site {
	r := rand.New(rand.NewPCG(1, 2))
	palette := []string{"#635bff", "#0a2540", "#425466", "#f6f9fc", "#00d4ff", "#ff5996", "#e6ebf1", "#fff", "#000", "#adbdcc", "rgb(99 91 255 / 80%)", "hsl(210 40% 96%)", "rgba(0,0,0,.1)", "#1a1f36", "#3c4257"}
	colour := func() string { return palette[r.IntN(len(palette))] }
	words := []string{"card", "hero", "grid", "btn", "nav", "link", "title", "body", "media", "badge", "list", "item", "footer", "header", "section", "panel", "icon", "tab", "form", "input"}
	word := func() string { return words[r.IntN(len(words))] }

	var h strings.Builder
	h.WriteString(`<!DOCTYPE html><html lang="en"><head><meta charset="utf-8"><title>Typical</title>
<meta name="theme-color" content="#635bff"><link rel="icon" href="/favicon.png" sizes="32x32"><link rel="apple-touch-icon" href="/apple-touch-icon.png"><link rel="manifest" href="/manifest.webmanifest">
<link rel="stylesheet" href="/a.css"><link rel="stylesheet" href="/b.css"><link rel="stylesheet" href="/c.css">
<style>:root{--brand:#635bff}.x{color:#0a2540}</style></head><body>
<header class="site-header"><a href="/" class="logo"><svg viewBox="0 0 60 25"><path fill="#635BFF" d="M0 0h10v10z"/><path fill="#0A2540" d="M20 0h10v10z"/></svg></a><nav class="nav">`)
	for i := 0; i < 8; i++ {
		fmt.Fprintf(&h, `<a class="nav__link text-slate-700 hover:text-indigo-600" href="/p%d">Page %d</a>`, i, i)
	}
	h.WriteString(`</nav></header><main>`)
	for h.Len() < 100<<10 {
		fmt.Fprintf(&h, `<section class="%s %s-%d bg-white py-12"><div class="container mx-auto"><h2 class="%s__title text-3xl font-bold text-gray-900">Heading %d</h2>
<p class="%s__body text-gray-600 leading-7">Lorem ipsum dolor sit amet, consectetur adipiscing elit, sed do eiusmod tempor incididunt ut labore et dolore magna aliqua.</p>
<a class="btn btn-primary bg-indigo-600 text-white" href="/x%d">Learn more</a> <a class="%s-link" href="/y" style="color:%s">Docs</a>
<svg class="icon" width="16" height="16"><path fill="currentColor" d="M0 0h16v16z"/></svg></div></section>
`, word(), word(), r.IntN(50), word(), r.IntN(1000), word(), r.IntN(1000), word(), colour())
	}
	h.WriteString(`</main><footer class="footer">© 2026</footer></body></html>`)

	sheet := func(n int) []byte {
		var c strings.Builder
		c.WriteString(":root{")
		for i := 0; i < 120; i++ {
			fmt.Fprintf(&c, "--%s-color-%d:%s;", word(), i, colour())
		}
		c.WriteString("--color-primary:#635bff;--color-accent:#00d4ff}\n")
		for c.Len() < 200<<10 {
			switch r.IntN(6) {
			case 0:
				fmt.Fprintf(&c, ".%s-%d{color:%s;background-color:%s;border:1px solid %s;padding:%dpx}\n", word(), r.IntN(500), colour(), colour(), colour(), r.IntN(40))
			case 1:
				fmt.Fprintf(&c, ".%s .%s-%d:hover,.%s>a{color:var(--color-primary);text-decoration:underline}\n", word(), word(), r.IntN(500), word())
			case 2:
				fmt.Fprintf(&c, "@media (min-width:%dpx){.%s-%d{display:flex;gap:%dpx;box-shadow:0 1px 2px %s}}\n", 480+r.IntN(800), word(), r.IntN(500), r.IntN(30), colour())
			case 3:
				fmt.Fprintf(&c, ".bg-%s-%d{--tw-bg-opacity:1;background-color:rgb(%d %d %d/var(--tw-bg-opacity))}\n", word(), 100*r.IntN(9), r.IntN(256), r.IntN(256), r.IntN(256))
			case 4:
				fmt.Fprintf(&c, ".btn-%s{--bs-btn-bg:%s;--bs-btn-color:#fff;background:linear-gradient(90deg,%s,%s)}\n", word(), colour(), colour(), colour())
			default:
				fmt.Fprintf(&c, ".%s__%s{margin:0 auto;font:500 %dpx/1.4 Inter,system-ui,sans-serif;transition:color .2s ease}\n", word(), word(), 10+r.IntN(30))
			}
		}
		return []byte(c.String())
	}
	return brand.Site{
		URL:  "https://typical.example/",
		HTML: []byte(h.String()),
		Stylesheets: []brand.Doc{
			{URL: "https://typical.example/a.css", Body: sheet(0)},
			{URL: "https://typical.example/b.css", Body: sheet(1)},
			{URL: "https://typical.example/c.css", Body: sheet(2)},
		},
		Manifest: []byte(`{"theme_color":"#635bff","background_color":"#ffffff"}`),
		Images: []brand.Image{
			{URL: "https://typical.example/favicon.png", ContentType: "image/png", Role: brand.RoleFavicon, Body: squareIcon(32, color.NRGBA{0x63, 0x5B, 0xFF, 0xFF})},
			{URL: "https://typical.example/apple-touch-icon.png", ContentType: "image/png", Role: brand.RoleAppleTouchIcon, Body: squareIcon(180, color.NRGBA{0x63, 0x5B, 0xFF, 0xFF})},
		},
	}
}

// squareIcon is a w×w icon: a fill colour with a white centre, as PNG.
func squareIcon(w int, fill color.NRGBA) []byte {
	img := image.NewNRGBA(image.Rect(0, 0, w, w))
	for y := 0; y < w; y++ {
		for x := 0; x < w; x++ {
			c := fill
			if x > w/3 && x < 2*w/3 && y > w/3 && y < 2*w/3 {
				c = color.NRGBA{0xFF, 0xFF, 0xFF, 0xFF}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	var b bytes.Buffer
	if err := png.Encode(&b, img); err != nil {
		panic(err) // encoding an in-memory NRGBA cannot fail
	}
	return b.Bytes()
}

// Handler serves site's documents at the paths of their URLs, with their
// content types, so a test server stands in for the website; other paths
// are 404.
func Handler(site brand.Site) http.Handler {
	type doc struct {
		ctype string
		body  []byte
	}
	docs := map[string]doc{pathOf(site.URL): {"text/html; charset=utf-8", site.HTML}}
	for _, d := range site.Stylesheets {
		docs[pathOf(d.URL)] = doc{"text/css", d.Body}
	}
	for _, im := range site.Images {
		docs[pathOf(im.URL)] = doc{im.ContentType, im.Body}
	}
	if site.Manifest != nil {
		docs["/manifest.webmanifest"] = doc{"application/manifest+json", site.Manifest}
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		d, ok := docs[r.URL.Path]
		if !ok {
			http.NotFound(w, r)
			return
		}
		w.Header().Set("Content-Type", d.ctype)
		w.Write(d.body)
	})
}

func pathOf(u string) string {
	p, err := url.Parse(u)
	if err != nil || p.Path == "" {
		return "/"
	}
	return p.Path
}
