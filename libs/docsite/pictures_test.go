package docsite

import (
	"strconv"
	"strings"
	"testing"

	"chartd.dev/charts"
	"chartd.dev/libs/gallery"
)

// fakeGallery has a marked SVG for every example and pair, leaving out
// the example skip.
func fakeGallery(cat *charts.Catalog, skip string) *gallery.Gallery {
	g := &gallery.Gallery{Examples: map[string]string{}, Types: map[string]string{}, Fonts: `<svg id="font-block"></svg>`}
	for _, ex := range cat.Examples("") {
		if ex.ID != skip {
			g.Examples[ex.ID] = `<svg role="img" data-ex="` + ex.ID + `"><title id="chartd-` + strings.ReplaceAll(ex.ID, "-", "") + `-title">t</title></svg>`
		}
	}
	for _, ct := range cat.Types() {
		g.Types[ct.Type] = cat.Sample(ct.Type).ID
	}
	for _, op := range []string{"setPalette", "setLabels", "setVariants", "setFooter"} {
		g.Pairs = append(g.Pairs, gallery.Pair{Op: op, JSON: `{"op":"` + op + `"}`, Example: "bar-gdp-by-country",
			Before: `<svg data-before="` + op + `"></svg>`, After: `<svg data-after="` + op + `"></svg>`})
	}
	g.Pairs = append(g.Pairs, gallery.Pair{Op: "clearAnnotations", JSON: `{"op":"clearAnnotations"}`, Setup: `[{"op":"addRange"}]`, Example: "line-monthly-sales",
		Before: `<svg data-before="clearAnnotations"></svg>`, After: `<svg data-after="clearAnnotations"></svg>`})
	for _, w := range gallery.EmbedWidths() {
		g.Widths = append(g.Widths, gallery.Sized{Width: w, Height: w * 3 / 4,
			SVG: `<svg data-width="` + strconv.Itoa(w) + `"><title id="chartd-bargdpbycountry-title">t</title></svg>`})
	}
	return g
}

func TestPicturedPages(t *testing.T) {
	cat, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	s, err := NewPictured(cat, "https://x.test/docs", "https://x.test/v1", "https://x.test", fakeGallery(cat, ""))
	if err != nil {
		t.Fatal(err)
	}
	page, _ := s.Page("chart-types")
	p := string(page)
	for _, ex := range cat.Examples("") {
		if !strings.Contains(p, `data-ex="`+ex.ID+`"`) {
			t.Errorf("example %s has no picture", ex.ID)
		}
	}
	for _, ct := range cat.Types() {
		sec := p[strings.Index(p, `<h2 id="`+ct.Type+`">`):]
		if i := strings.Index(sec, `<figure class="type-picture">`); i < 0 || i != strings.Index(sec, "</h2>")+len("</h2>\n") {
			t.Errorf("type %s: no picture right under its heading", ct.Type)
		}
	}
	if strings.Count(p, `id="chartd-bargdpbycountry-title"`) != 1 || !strings.Contains(p, `id="chartd-bargdpbycountryt-title"`) {
		t.Errorf("the type's copy of its sample picture keeps the ids apart")
	}
	if strings.Count(p, `id="font-block"`) != 1 {
		t.Errorf("the font block is on the page once")
	}
	ops, _ := s.Page("ops")
	for _, op := range []string{"setPalette", "setLabels", "setVariants", "setFooter"} {
		if !strings.Contains(string(ops), `data-before="`+op+`"`) || !strings.Contains(string(ops), `data-after="`+op+`"`) {
			t.Errorf("op %s has no before/after pair", op)
		}
	}
	embedding, _ := s.Page("embedding")
	e := string(embedding)
	frame, oembed := strings.Index(e, ">What the frame does</h2>"), strings.Index(e, `<h2 id="oembed"`)
	for _, w := range gallery.EmbedWidths() {
		at := strings.Index(e, `data-width="`+strconv.Itoa(w)+`"`)
		if at < frame || at > oembed || frame < 0 {
			t.Errorf("the embedding page shows no picture %d px wide in its section on what the frame does (at %d, section %d–%d)", w, at, frame, oembed)
		}
	}
	if strings.Count(e, `-title"`) != 3 || strings.Count(e, `id="chartd-bargdpbycountryw320-title"`) != 1 {
		t.Errorf("the three widths keep their ids apart")
	}
	if strings.Count(e, `id="font-block"`) != 1 {
		t.Errorf("the embedding page carries the font block once")
	}
	noWidths := fakeGallery(cat, "")
	noWidths.Widths = nil
	if _, err := NewPictured(cat, "https://x.test/docs", "https://x.test/v1", "https://x.test", noWidths); err == nil {
		t.Errorf("a gallery without the widths pictures builds the docs")
	}
	if !strings.Contains(string(ops), `data-after="clearAnnotations"`) || !strings.Contains(string(ops), `with <code>[{&#34;op&#34;:&#34;addRange&#34;}]</code>, before and after`) {
		t.Errorf("a pair with a setup names it in its caption")
	}
	limits, _ := s.Page("limits")
	if strings.Contains(string(limits), "font-block") {
		t.Errorf("a page without pictures carries no fonts")
	}
	if _, err := NewPictured(cat, "https://x.test/docs", "https://x.test/v1", "https://x.test", fakeGallery(cat, "pie-household-budget")); err == nil || !strings.Contains(err.Error(), "pie-household-budget") {
		t.Errorf("an example without a picture: err = %v, want it named", err)
	}
}
