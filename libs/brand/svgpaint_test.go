package brand

import (
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
<g fill="#E5312B">` + strings.Repeat(`<circle cx="160" cy="20" r="4"/>`, 5) + `</g>
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
	if w, h := d.pathBox("m10,10 l20 0 0 30 -20 0z"); w != 20 || h != 30 {
		t.Errorf("relative path box %v×%v", w, h)
	}
	if w, h := d.pathBox("M0 0C10 -5 20 5 30 0V-10H-2"); w != 32 || h != 15 {
		t.Errorf("curve path box %v×%v", w, h)
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
