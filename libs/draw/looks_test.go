package draw

import (
	"bytes"
	"regexp"
	"strings"
	"testing"

	"chartd.dev/charts"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// looksBarTable is ten countries' sales.
func looksBarTable() *dataset.Table {
	return table(txt("c1", "Country", countries(10)...),
		num("c2", "Sales", 42, 31, 26.5, 21, 15, 13.2, 9.9, 8.7, 6.4, 4.1))
}

// looksLineTable is four series over eight years.
func looksLineTable() *dataset.Table {
	years := []string{"2017", "2018", "2019", "2020", "2021", "2022", "2023", "2024"}
	return table(dates("c1", "Year", dataset.UnitYear, years...),
		num("c2", "Germany", 10, 12, 13, 11, 14, 16, 17, 19),
		num("c3", "France", 8, 9, 9.5, 7, 10, 11, 12, 12.5),
		num("c4", "Italy", 6, 6.5, 7, 5, 7.5, 8, 8.2, 9),
		num("c5", "Spain", 5, 5.5, 6, 4, 6.5, 7.2, 8, 8.8))
}

func TestDarkThemeContrast(t *testing.T) {
	d := darkTheme()
	bg := mustColor(d.background)
	for _, tc := range []struct {
		name, hex string
		min       float64
	}{
		{"title", d.inkTitle, minTextContrast}, {"subtitle", d.inkSubtitle, minTextContrast}, {"tick", d.inkTick, minTextContrast},
		{"label", d.inkLabel, minTextContrast}, {"muted", d.inkMuted, minTextContrast}, {"axis", d.inkAxis, minMarkContrast},
	} {
		if r := contrastRatio(mustColor(tc.hex), bg); r < tc.min {
			t.Errorf("dark %s %s: %.2f:1 against %s, want %.1f:1", tc.name, tc.hex, r, d.background, tc.min)
		}
	}
	cat, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	bright, ok := cat.Palette("bright-dark")
	if !ok || strings.Join(bright.Colors, ",") != strings.Join(chartspec.BrightDarkColors(), ",") {
		t.Errorf("brightDarkPalette is not the catalog's bright-dark: %v", bright.Colors)
	}
	for _, p := range cat.Palettes() {
		if p.ID == "default" && strings.Join(chartspec.DarkPalette(p.Colors), ",") != strings.Join(bright.Colors, ",") {
			t.Error("the default palette's dark variant is not bright-dark")
		}
		for i, hex := range chartspec.DarkPalette(p.Colors) {
			if r := contrastRatio(mustColor(hex), bg); r < minMarkContrast {
				t.Errorf("palette %s colour %d on dark: %s at %.2f:1, want 3:1", p.ID, i, hex, r)
			}
			if tc := textColorOn(hex, d.background); contrastRatio(mustColor(tc), bg) < minTextContrast {
				t.Errorf("palette %s colour %d as text on dark: %s", p.ID, i, tc)
			}
		}
	}
}

func TestThemeDrawsThePage(t *testing.T) {
	f := fonts(t)
	cases := []struct {
		name      string
		spec      string // the spec's theme
		override  string // Input.Theme
		bg, title string
		css       bool
	}{
		{"light by default", "", "", "#FFFFFF", "#1F2328", false},
		{"dark spec", chartspec.ThemeDark, "", "#16181D", "#F0F3F6", false},
		{"render asks for light", chartspec.ThemeDark, chartspec.ThemeLight, "#FFFFFF", "#1F2328", false},
		{"render asks for dark", chartspec.ThemeAuto, chartspec.ThemeDark, "#16181D", "#F0F3F6", false},
		{"auto is light in the file, with CSS", chartspec.ThemeAuto, "", "#FFFFFF", "#1F2328", true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := testSpec("line", nil, nil)
			spec.Theme = tc.spec
			spec.Style.Title = chartspec.Text{Show: true, Text: "Sales"}
			svg, err := SVG(Input{Spec: spec, Table: looksLineTable(), Fonts: f, Theme: tc.override})
			if err != nil {
				t.Fatal(err)
			}
			checkDocument(t, svg)
			if !bytes.Contains(svg, []byte(`<rect width="100%" height="100%" fill="`+tc.bg+`"/>`)) {
				t.Errorf("background is not %s", tc.bg)
			}
			if !bytes.Contains(svg, []byte(`fill="`+tc.title+`">Sales<`)) {
				t.Errorf("title is not drawn in %s", tc.title)
			}
			if got := bytes.Contains(svg, []byte("<style>")); got != tc.css {
				t.Errorf("carries CSS: %v, want %v", got, tc.css)
			}
		})
	}
}

var fillOrStroke = regexp.MustCompile(` (fill|stroke)="(#[0-9A-F]{6})"`)

// TestAutoThemeCarriesBothThemes: an auto SVG defines custom properties
// for the light colours, redefines them under prefers-color-scheme: dark,
// and gives every themed fill and stroke its property, scoped to itself.
func TestAutoThemeCarriesBothThemes(t *testing.T) {
	f := fonts(t)
	spec := testSpec("bar", nil, nil)
	spec.Theme = chartspec.ThemeAuto
	spec.Style.Title = chartspec.Text{Show: true, Text: "Sales"}
	spec.Style.Labels.Show = true
	svg, err := SVG(Input{Spec: spec, Table: looksBarTable(), Fonts: f})
	if err != nil {
		t.Fatal(err)
	}
	s := string(svg)
	cls := regexp.MustCompile(`^<svg [^>]*class="([^"]+)"`).FindStringSubmatch(s)
	if cls == nil {
		t.Fatal("the root has no class to scope the theme CSS")
	}
	css := s[strings.Index(s, "<style>"):strings.Index(s, "</style>")]
	if !strings.Contains(css, "@media (prefers-color-scheme: dark){."+cls[1]+"{") {
		t.Errorf("no prefers-color-scheme: dark rule for .%s: %s", cls[1], css)
	}
	l, d := lightTheme(), darkTheme()
	for _, pair := range [][2]string{{l.background, d.background}, {l.inkTitle, d.inkTitle}, {l.inkGrid, d.inkGrid}, {"#2F6FDB", "#7DD3FC"}} {
		i := strings.Index(css, ":"+pair[0]+";")
		if i < 0 {
			t.Errorf("no custom property holds %s", pair[0])
			continue
		}
		prop := css[strings.LastIndex(css[:i], "--"):i]
		if !strings.Contains(css, prop+":"+pair[1]+";") {
			t.Errorf("%s (%s) does not turn %s on a dark page", prop, pair[0], pair[1])
		}
	}
	for _, m := range fillOrStroke.FindAllStringSubmatch(s, -1) {
		if m[2] == markInkLight || m[2] == markInkAuto {
			continue // ink on a mark follows the mark
		}
		if !strings.Contains(css, "."+cls[1]+` [`+m[1]+`="`+m[2]+`"]{`+m[1]+":var(--") {
			t.Errorf("%s=%s has no rule: it would stay light on a dark page", m[1], m[2])
		}
	}
}

// TestHighlightGreyVersusColour: what a highlight names keeps its palette
// colour and its label; everything else is the theme's one grey, drawn
// underneath, and out of the legend.
func TestHighlightGreyVersusColour(t *testing.T) {
	f := fonts(t)
	dim := lightTheme().inkDim
	t.Run("bar categories", func(t *testing.T) {
		spec := testSpec("bar", nil, nil)
		spec.Highlight = &chartspec.Highlight{Categories: []string{"Italy"}}
		svg := string(checkedSVG(t, Input{Spec: spec, Table: looksBarTable(), Fonts: f}))
		if n := strings.Count(svg, `<rect fill="`+dim+`"`); n != 9 {
			t.Errorf("%d grey bars, want 9", n)
		}
		if !strings.Contains(svg, `<g fill="#2F6FDB">`) {
			t.Error("Italy's bar lost the palette's first colour")
		}
		labels := svg[strings.Index(svg, `<g class="labels">`):]
		labels = labels[:strings.Index(labels, "</g>")]
		if strings.Count(labels, "<text") != 1 || !strings.Contains(labels, ">26.5<") {
			t.Errorf("want one value label, Italy's 26.5: %s", labels)
		}
	})
	t.Run("line series", func(t *testing.T) {
		spec := testSpec("line", nil, nil)
		spec.Highlight = &chartspec.Highlight{Series: []string{"c3"}}
		svg := string(checkedSVG(t, Input{Spec: spec, Table: looksLineTable(), Fonts: f}))
		greys := strings.Count(svg, `<path fill="none" stroke="`+dim+`"`)
		if greys != 3 {
			t.Errorf("%d grey lines, want 3", greys)
		}
		france := strings.Index(svg, `<path fill="none" stroke="#C8610C"`)
		if france < 0 || france < strings.LastIndex(svg, `<path fill="none" stroke="`+dim+`"`) {
			t.Error("France's line is not in its colour on top of the grey ones")
		}
		for _, other := range []string{">Germany<", ">Italy<", ">Spain<"} {
			if strings.Contains(svg, other) {
				t.Errorf("%s is named; only the highlighted line is", other)
			}
		}
		if !strings.Contains(svg, ">France<") {
			t.Error("France is not named at its line's end")
		}
	})
	t.Run("pie categories", func(t *testing.T) {
		spec := testSpec("pie", nil, nil)
		spec.Highlight = &chartspec.Highlight{Categories: []string{"Germany", "France"}}
		svg := string(checkedSVG(t, Input{Spec: spec, Table: table(txt("c1", "Country", countries(5)...), num("c2", "Sales", 40, 30, 15, 10, 5)), Fonts: f}))
		if n := strings.Count(svg, `fill="`+dim+`"`); n != 3 {
			t.Errorf("%d grey slices, want 3", n)
		}
	})
	t.Run("dark grey", func(t *testing.T) {
		spec := testSpec("bar", nil, nil)
		spec.Theme = chartspec.ThemeDark
		spec.Highlight = &chartspec.Highlight{Categories: []string{"Italy"}}
		svg := string(checkedSVG(t, Input{Spec: spec, Table: looksBarTable(), Fonts: f}))
		if n := strings.Count(svg, `<rect fill="`+darkTheme().inkDim+`"`); n != 9 {
			t.Errorf("%d dark-grey bars, want 9", n)
		}
	})
}

// checkedSVG draws and checks the document.
func checkedSVG(t *testing.T, in Input) []byte {
	t.Helper()
	svg := mustSVG(t, in)
	checkDocument(t, svg)
	return svg
}

// facet12x30 is twelve stores' thirty days as small multiples of bars.
func facet12x30(f *Fonts) Input {
	var store, day []string
	var visits []float64
	for i := 0; i < 12; i++ {
		for j := 0; j < 30; j++ {
			store = append(store, "Store "+itoa(i+1))
			day = append(day, "D"+itoa(j+1))
			visits = append(visits, float64(10+(i*13+j*7)%40+i*3))
		}
	}
	spec := testSpec("bar", nil, chartspec.Mapping{"category": chartspec.One("c2"), "values": chartspec.Many("c3")})
	spec.Facet = &chartspec.Facet{Column: "c1", Scales: chartspec.ScalesShared}
	return Input{Spec: spec, Table: table(txt("c1", "Store", store...), txt("c2", "Day", day...), num("c3", "Visits", visits...)), Fonts: f}
}

// BenchmarkFacet12x30 draws twelve panels of thirty bars (budget 1 ms).
func BenchmarkFacet12x30(b *testing.B) { benchDraw(b, facet12x30(fonts(b))) }

// panelTickText is a value tick's text, whatever its colour.
var panelTickText = regexp.MustCompile(`<text x="[^"]*" y="([^"]*)"[^>]*text-anchor="end">([^<]*)</text>`)

// TestFacetPanels: one titled panel per value in data order; shared
// scales give every panel the same value ticks, written once per row;
// free scales let each panel have its own.
func TestFacetPanels(t *testing.T) {
	f := fonts(t)
	in := facet12x30(f)
	svg := string(checkedSVG(t, in))
	if n := strings.Count(svg, `<g class="panel">`); n != 12 {
		t.Fatalf("%d panels, want 12", n)
	}
	last := -1
	for i := 1; i <= 12; i++ {
		at := strings.Index(svg, ">Store "+itoa(i)+"<")
		if at < last {
			t.Errorf("Store %d's panel is not in data order", i)
		}
		last = at
	}
	ticks := func(svg string) []string {
		var out []string
		for _, p := range strings.Split(svg, `<g class="panel">`)[1:] {
			axes := p[strings.Index(p, `<g class="axes">`):]
			var ts []string
			for _, m := range panelTickText.FindAllStringSubmatch(axes[:strings.Index(axes, "</g>")], -1) {
				ts = append(ts, m[2])
			}
			out = append(out, strings.Join(ts, ","))
		}
		return out
	}
	shared := ticks(svg)
	cols, _ := chartspec.FacetGrid(12, 0, 768, 500)
	for i, ts := range shared {
		if i%cols == 0 && ts != shared[0] {
			t.Errorf("panel %d writes ticks %q, panel 0 %q: shared scales differ", i, ts, shared[0])
		}
		if i%cols != 0 && ts != "" {
			t.Errorf("panel %d writes ticks %q: only the first of a row does", i, ts)
		}
	}
	in.Spec.Facet.Scales = chartspec.ScalesFree
	free := ticks(string(checkedSVG(t, in)))
	differ := false
	for _, ts := range free {
		if ts == "" {
			t.Error("a free panel writes no ticks")
		}
		differ = differ || ts != free[0]
	}
	if !differ {
		t.Errorf("free scales gave every panel the same ticks %q", free[0])
	}
}
