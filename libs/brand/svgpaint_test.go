package brand

import (
	"bytes"
	"encoding/base64"
	"image"
	"image/color"
	"image/draw"
	"image/png"
	"math"
	"slices"
	"strings"
	"testing"
)

// An SVG logo's colours count by the area they paint: one large blue shape
// outweighs five small red dots, and the white backdrop and a transparent
// overlay count not at all. (Counting uses put red first and white in.)
func TestSVGWeighsByPaintedArea(t *testing.T) {
	svg := `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 200 100">
<style>.b{fill:#1F6FEB}</style>
<rect width="100%" height="100%" fill="#FFFFFF"/>
<path class="b" d="M10 10h120v80H10z"/>
<g>` + strings.Repeat(`<circle cx="160" cy="20" r="4" fill="#E5312B"/>`, 5) + `</g>
<rect x="0" y="0" width="200" height="100" fill="#00FF00" fill-opacity="0"/>
<defs><rect id="unused" width="500" height="500" fill="#FFAA00"/></defs>
</svg>`
	p := &palette{}
	svgPaint([]byte(svg), p)
	got := map[string]float64{}
	for i, c := range p.c {
		got[c.hex()] = p.area[i]
	}
	if _, ok := got["#FFFFFF"]; ok {
		t.Errorf("white counted: %v", got)
	}
	if _, ok := got["#00FF00"]; ok {
		t.Errorf("transparent fill counted: %v", got)
	}
	if _, ok := got["#FFAA00"]; ok {
		t.Errorf("a shape in <defs> counted: %v", got)
	}
	if got["#1F6FEB"] <= 5*got["#E5312B"] || got["#E5312B"] == 0 {
		t.Errorf("areas: %v", got)
	}
	res, err := Extract(Site{URL: "https://s.example/", Images: []Image{{URL: "https://s.example/logo.svg", Body: []byte(svg), Role: RoleLogo}}})
	if err != nil || len(res.Colors) == 0 || res.Colors[0] != "#1F6FEB" {
		t.Fatalf("%v %v", res.Colors, err)
	}
	for _, c := range res.Colors {
		if c == "#FFFFFF" {
			t.Errorf("white returned: %v", res.Colors)
		}
	}
	// The same markup inline in the home link weighs the same way.
	res, err = Extract(Site{URL: "https://s.example/", HTML: []byte(`<a href="/">` + svg + `</a>`)})
	if err != nil || res.Colors[0] != "#1F6FEB" || res.Signals[0].Kind != KindSVGLogo {
		t.Fatalf("inline: %v %v", res.Colors, err)
	}
}

// Path extents follow relative and absolute commands, and transforms
// scale a shape's area.
func TestSVGPathBoxAndTransform(t *testing.T) {
	d := &svgDoc{}
	if w, h, _ := d.pathBox("m10,10 l20 0 0 30 -20 0z"); w != 20 || h != 30 {
		t.Errorf("relative path box %v×%v", w, h)
	}
	if w, h, _ := d.pathBox("M0 0C10 -5 20 5 30 0V-10H-2"); w != 32 || h != 15 {
		t.Errorf("curve path box %v×%v", w, h)
	}
	// Two letters far apart: two small subpath boxes, not one wide box.
	if w, h, subs := d.pathBox("M0 0h2v2h-2z M100 0h2v2h-2z"); w != 102 || h != 2 || len(subs) != 2 || subs[1] != [2]float64{2, 2} {
		t.Errorf("subpaths: %v×%v %v", w, h, subs)
	}
	if s := transformScale("translate(5 5) scale(2) matrix(1 0 0 3 0 0)"); s != 12 {
		t.Errorf("scale %v", s)
	}
	svg := `<svg viewBox="0 0 100 100"><rect width="10" height="10" fill="#1F6FEB"/><g transform="scale(4)"><rect width="10" height="10" fill="#E5312B"/></g></svg>`
	p := &palette{}
	svgPaint([]byte(svg), p)
	if len(p.c) != 2 || p.area[1] != 16*p.area[0] {
		t.Errorf("transform area: %v %v", p.c, p.area)
	}
}

// A hostile SVG (thousands of nested groups, hundreds of rules, a path of a
// million numbers) is read within the reader's bounds: elements, numbers
// and rules stop at their limits, and the colours read so far still count.
func TestSVGHostileBounds(t *testing.T) {
	var b strings.Builder
	b.WriteString(`<svg><style>`)
	for range 2000 {
		b.WriteString(".c{fill:#123456}")
	}
	b.WriteString(`</style>`)
	b.WriteString(strings.Repeat(`<g class="c a b d e f g h i j k l m n o p q r s">`, 3000))
	b.WriteString(`<path class="c" d="M` + strings.Repeat("1 ", 1<<20) + `"/>`)
	b.WriteString(strings.Repeat(`<rect class="c" width="1" height="1"/>`, 3000))
	d := parseSVG([]byte(b.String()))
	if len(d.els) > maxSVGElements || d.nums > maxSVGNumbers || len(d.rules) > maxSVGRules {
		t.Fatalf("bounds: %d elements, %d numbers, %d rules", len(d.els), d.nums, len(d.rules))
	}
	p := &palette{}
	d.paint(p)
	if len(p.c) != 1 || p.c[0].hex() != "#123456" {
		t.Errorf("colours %v", p.c)
	}
}

// A site template's theme-color (Cayman writes #157878 for every site)
// says which template, not which brand: the logo's colour comes first.
func TestStockThemeColor(t *testing.T) {
	page := `<head><meta name="theme-color" content="#157878"></head>
<body><a href="/"><svg viewBox="0 0 10 10"><rect width="10" height="10" fill="#294172"/></svg></a></body>`
	res, err := Extract(Site{URL: "https://s.example/", HTML: []byte(page)})
	if err != nil || res.Colors[0] != "#294172" {
		t.Fatalf("%v %v", res.Colors, err)
	}
}

// A mark's main colour counts its role's full weight however many other
// colours the mark has (before, a three-colour logo's main colour at 40%
// got 6·√0.4 = 3.8, below one link rule's 4.8); a grey mark with a small
// coloured dot does not count the dot fully.
func TestMarkWeights(t *testing.T) {
	blue, red, green, grey := rgb{0x08, 0x91, 0xD1}, rgb{0xE5, 0x31, 0x2B}, rgb{0x2E, 0xA0, 0x43}, rgb{0x77, 0x77, 0x77}
	ws := markWeights([]rgb{blue, red, green}, []float64{0.4, 0.3, 0.3}, []float64{0.4, 0.3, 0.3}, 6)
	if math.Abs(ws[0]-6) > 1e-9 || math.Abs(ws[1]-6*math.Sqrt(0.75)) > 1e-9 {
		t.Errorf("three colours: %v", ws)
	}
	ws = markWeights([]rgb{grey, red}, []float64{0.95, 0.05}, []float64{0.95, 0.05}, 6)
	if want := 6 * math.Sqrt(0.05/markFullShare); math.Abs(ws[1]-want) > 1e-9 || ws[0] > 6 {
		t.Errorf("grey mark with a dot: %v, want the dot at %.2f", ws, want)
	}
}

// A gradient counts as it is painted, and a translucent paint as it looks
// laid on white: two translucent stops are seen mostly as their blend (a
// person sees the logo's middle green, not its darkest stop); a stop held
// over a third of the run outweighs the one it fades to; a group at
// 70 % opacity shows a tint. (Before, stops shared half the area whatever
// their offsets, the blend counted nothing, stop-opacity written as an
// attribute was not read and group opacity changed no colour.)
func TestSVGGradientAsPainted(t *testing.T) {
	const defs = `<defs>
<linearGradient id="tr"><stop offset="0%" stop-color="#88C649" stop-opacity=".8"/><stop offset="100%" stop-color="#439240" stop-opacity=".84"/></linearGradient>
<linearGradient id="held"><stop offset="0" stop-color="#60B932"/><stop offset=".28" stop-color="#60B932"/><stop offset="1" stop-color="#367C34"/></linearGradient>
<linearGradient id="ref" href="#held"/>
</defs>`
	for _, tc := range []struct {
		name, shapes, want string
	}{
		{"translucent stops show their blend", `<rect width="10" height="10" fill="url(#tr)"/>`, "#82BB66"},
		{"a held stop outweighs its fade", `<rect width="10" height="10" fill="url(#held)"/>`, "#60B932"},
		{"a referenced gradient keeps its offsets", `<rect width="10" height="10" fill="url(#ref)"/>`, "#60B932"},
		{"group opacity tints", `<g opacity=".7"><rect width="10" height="10" fill="#0000FF"/></g>`, "#4D4DFF"},
		{"opacity and fill-opacity multiply", `<g opacity=".8"><rect width="10" height="10" fill="#1F6FEB" fill-opacity=".9"/></g>`, "#5E97F1"},
	} {
		p := &palette{}
		svgPaint([]byte(`<svg viewBox="0 0 10 10">`+defs+tc.shapes+`</svg>`), p)
		heaviest := ""
		if len(p.c) > 0 {
			heaviest = p.c[slices.Index(p.area, slices.Max(p.area))].hex()
		}
		if heaviest != tc.want {
			t.Errorf("%s: heaviest %q, want %q (%v %v)", tc.name, heaviest, tc.want, p.c, p.area)
		}
	}
}

// A logo exported as an SVG wrapping a PNG counts the PNG's colours: a
// grey wordmark on white with five small coloured arrows, each under 5 %
// of the image, gives the arrows' colours, the navy first as the largest.
// (Before, the SVG painted nothing and its raster was not read.)
func TestSVGEmbeddedRaster(t *testing.T) {
	img := image.NewNRGBA(image.Rect(0, 0, 200, 50))
	draw.Draw(img, img.Bounds(), image.NewUniform(color.White), image.Point{}, draw.Src)
	fill := func(x0, x1 int, c color.NRGBA) {
		draw.Draw(img, image.Rect(x0, 0, x1, 50), image.NewUniform(c), image.Point{}, draw.Src)
	}
	fill(100, 200, color.NRGBA{0x71, 0x70, 0x73, 0xFF}) // the wordmark, 50 %
	arrows := []color.NRGBA{{0x1E, 0x44, 0x88, 0xFF}, {0x79, 0x45, 0x9B, 0xFF}, {0x1A, 0xBF, 0xD3, 0xFF}, {0x21, 0x8F, 0xCF, 0xFF}, {0x78, 0xBE, 0x43, 0xFF}}
	for i, c := range arrows {
		fill(10+16*i, 10+16*i+9-i, c) // 4.5 % down to 2.5 %
	}
	var buf bytes.Buffer
	if err := png.Encode(&buf, img); err != nil {
		t.Fatal(err)
	}
	svg := `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" viewBox="0 0 200 50">
<g fill="none"><image width="200" height="50" xlink:href="data:image/png;base64,` + base64.StdEncoding.EncodeToString(buf.Bytes()) + `"/></g></svg>`
	for _, tc := range []struct {
		name string
		site Site
	}{
		{"logo file", Site{URL: "https://s.example/", Images: []Image{{URL: "https://s.example/logo.svg", Body: []byte(svg), Role: RoleLogo}}}},
		{"inline logo", Site{URL: "https://s.example/", HTML: []byte(`<a href="/">` + svg + `</a>`)}},
	} {
		res, err := Extract(tc.site)
		if err != nil || len(res.Colors) < 3 || res.Colors[0] != "#1E4488" {
			t.Errorf("%s: %v %v, want the navy #1E4488 first and the other arrows after", tc.name, res.Colors, err)
		}
	}
}
