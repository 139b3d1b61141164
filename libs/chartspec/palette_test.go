package chartspec

import (
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"

	colorful "github.com/lucasb-eyer/go-colorful"
)

// testPalettes are short palettes to extend: every catalog palette cut to
// 1..5 colours, and brand palettes as customers send them (two colours;
// a red, near-black and white one).
func testPalettes(t *testing.T) map[string][]string {
	t.Helper()
	f := newFixture(t)
	out := map[string][]string{}
	for _, p := range f.cat.Palettes() {
		for k := 1; k <= 5 && k <= len(p.Colors); k++ {
			out[fmt.Sprintf("%s/%d", p.ID, k)] = p.Colors[:k]
		}
	}
	out["brand navy+orange"] = []string{"#1F3A93", "#F28C28"}
	out["brand red+black+white"] = []string{"#E30613", "#1D1D1B", "#FFFFFF"}
	return out
}

// closest answers, for each vision (normal, deuteranopia, protanopia,
// tritanopia), the smallest distance between a generated colour (index
// from on) and any other colour of the list, in OKLab ×100 and in
// CIEDE2000.
func closest(t *testing.T, cols []string, from int) (ok, de [4]float64) {
	t.Helper()
	for v := range 4 {
		ok[v], de[v] = 1e9, 1e9
	}
	for i := from; i < len(cols); i++ {
		for j := range i {
			a, _, okA := ParseColor(cols[i])
			b, _, okB := ParseColor(cols[j])
			if !okA || !okB {
				t.Fatalf("bad colour %s or %s", cols[i], cols[j])
			}
			la, lb := linearLabs(a.LinearRgb()), linearLabs(b.LinearRgb())
			for v, vis := range [4]Vision{NormalVision, Deuteranopia, Protanopia, Tritanopia} {
				ok[v] = min(ok[v], okDistance(la[v], lb[v]))
				de[v] = min(de[v], DeltaE(Simulate(a, vis), Simulate(b, vis)))
			}
		}
	}
	return ok, de
}

// TestExtendPaletteDistinct extends every test palette of 1 to 5 colours
// to 8 and to 12 and measures each generated colour against every other
// colour of the chart, in normal vision and under each simulated
// colour-vision deficiency (Machado 2009: protan, deutan, tritan).
//
// The thresholds: OKLab distance ×100 has its just-noticeable difference
// near 2 (ΔE 2 in CIEDE2000 likewise); series marks are thin lines and
// small dots matched against a legend, so they need several times that.
//   - Up to MaxSeries (8), where lint stays quiet on the series count, the
//     generated colours keep lint's own limits: ExtendApart (10) in OKLab
//     and, as lint measures, CIEDE2000 10 in normal vision and 8 under a
//     simulated deficiency (SimilarDeltaE, SimilarCVDDeltaE), so lint's
//     similar-colors check says nothing about a colour the service chose.
//   - At 12, past what lint calls readable, there is not room for that in
//     sRGB at 3:1 against white: the bound is 3 just-noticeable
//     differences (6 ×100 OKLab) under every deficiency and 7.5 in normal
//     vision, so twelve lines stay twelve distinguishable colours.
func TestExtendPaletteDistinct(t *testing.T) {
	white := colorful.Color{R: 1, G: 1, B: 1}
	for name, pal := range testPalettes(t) {
		for _, n := range []int{8, 12} {
			if n <= len(pal) {
				continue
			}
			cols := ExtendPalette(pal, n)
			if len(cols) != n {
				t.Fatalf("%s: %d colours for %d series", name, len(cols), n)
			}
			if !slices.Equal(cols[:len(pal)], upper(pal)) {
				t.Errorf("%s: the palette's own colours changed: %v", name, cols[:len(pal)])
			}
			for _, hex := range cols[len(pal):] {
				c, _, _ := ParseColor(hex)
				if r := Contrast(c, white); r < MinContrast {
					t.Errorf("%s: generated %s has %.2f:1 against white", name, hex, r)
				}
				if hex == OtherColor {
					t.Errorf("%s: generated the Other grey", name)
				}
			}
			ok, de := closest(t, cols, len(pal))
			wantOK := [4]float64{ExtendApart, ExtendApart * extendCVDShare, ExtendApart * extendCVDShare, ExtendApart * extendCVDShare}
			wantDE := [4]float64{SimilarDeltaE, SimilarCVDDeltaE, SimilarCVDDeltaE, SimilarCVDDeltaE}
			if n == 12 {
				wantOK = [4]float64{7.5, 6, 6, 6}
				wantDE = [4]float64{}
			}
			for v, vis := range [4]Vision{NormalVision, Deuteranopia, Protanopia, Tritanopia} {
				if ok[v] < wantOK[v]-0.05 {
					t.Errorf("%s to %d: two colours %.1f apart in OKLab under %s, want %.1f: %v", name, n, ok[v], vis, wantOK[v], cols)
				}
				if de[v] < wantDE[v] {
					t.Errorf("%s to %d: two colours CIEDE2000 %.1f apart under %s, want %.1f: %v", name, n, de[v], vis, wantDE[v], cols)
				}
			}
		}
	}
}

func upper(pal []string) []string {
	out := make([]string, len(pal))
	for i, p := range pal {
		_, out[i], _ = ParseColor(p)
	}
	return out
}

// TestExtendPaletteRules: the same palette gives the same colours; the
// first colours do not change when more series are asked for; the
// palette's own colours come first and unchanged; colours repeat only
// past ExtendLimit; a palette of greys still gets coloured distinct
// colours; nothing to extend gives nothing.
func TestExtendPaletteRules(t *testing.T) {
	brand := []string{"#1f3a93", "#F28C28"}
	twelve := ExtendPalette(brand, 12)
	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"deterministic", func(t *testing.T) {
			if again := ExtendPalette(brand, 12); !slices.Equal(again, twelve) {
				t.Fatalf("%v then %v", twelve, again)
			}
		}},
		{"prefix stable", func(t *testing.T) {
			for n := 3; n < 12; n++ {
				if got := ExtendPalette(brand, n); !slices.Equal(got, twelve[:n]) {
					t.Fatalf("%d series: %v, but the first of 12 are %v", n, got, twelve[:n])
				}
			}
		}},
		{"palette first, as #RRGGBB", func(t *testing.T) {
			if twelve[0] != "#1F3A93" || twelve[1] != "#F28C28" {
				t.Fatalf("starts %v", twelve[:2])
			}
		}},
		{"no repeats up to the limit", func(t *testing.T) {
			all := ExtendPalette(brand, ExtendLimit)
			seen := map[string]bool{}
			for _, c := range all {
				if seen[c] {
					t.Fatalf("%s twice in %v", c, all)
				}
				seen[c] = true
			}
		}},
		{"repeats past the limit, cheaply", func(t *testing.T) {
			many := ExtendPalette(brand, 100_000)
			if len(many) != 100_000 || many[ExtendLimit] != many[0] || many[ExtendLimit+5] != many[5] {
				t.Fatalf("%d colours, [limit] %s", len(many), many[ExtendLimit])
			}
		}},
		{"long palette unchanged", func(t *testing.T) {
			ten := []string{"#2F6FDB", "#C8610C", "#17875F", "#D9415B", "#2490B0", "#B8448F", "#8C6D4F", "#6A4FC4", "#947500", "#0F6E75"}
			if got := ExtendPalette(ten, 3); !slices.Equal(got, ten) {
				t.Fatalf("got %v", got)
			}
		}},
		{"greys get colours", func(t *testing.T) {
			grey := ExtendPalette([]string{"#252525", "#737373"}, 6)
			for _, hex := range grey[2:] {
				c, _, _ := ParseColor(hex)
				if _, ch, _ := c.OkLch(); ch < extendMinChroma-0.01 {
					t.Errorf("%s has chroma %.3f", hex, ch)
				}
			}
		}},
		{"bad colours left out, nothing gives nothing", func(t *testing.T) {
			if got := ExtendPalette([]string{"red", "#12"}, 5); got != nil {
				t.Fatalf("got %v", got)
			}
			if got := ExtendPalette([]string{"red", "#123456"}, 2); len(got) != 2 || got[0] != "#123456" {
				t.Fatalf("got %v", got)
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.check)
	}
}

// TestOKBoundsCIEDE2000 holds the ground lintApart stands on: on sRGB
// colours whose OKLab distance (×100) is 16 to 60, CIEDE2000 is more than
// 1/extendSurelyApart of it, under every vision, so a pair that far
// apart in OKLab passes lint's check without it being computed.
func TestOKBoundsCIEDE2000(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	worst := 1e9
	for range 20_000 {
		a := colorful.Color{R: r.Float64(), G: r.Float64(), B: r.Float64()}
		b := colorful.Color{R: r.Float64(), G: r.Float64(), B: r.Float64()}
		la, lb := linearLabs(a.LinearRgb()), linearLabs(b.LinearRgb())
		for v, vis := range [4]Vision{NormalVision, Deuteranopia, Protanopia, Tritanopia} {
			ok := okDistance(la[v], lb[v])
			if ok < 16 || ok > 60 {
				continue
			}
			worst = min(worst, DeltaE(Simulate(a, vis), Simulate(b, vis))/ok)
		}
	}
	if worst <= 1/extendSurelyApart {
		t.Fatalf("CIEDE2000 fell to %.2f of the OKLab distance", worst)
	}
}

// TestExtendCandidates: the grid is never empty, whatever the palette.
func TestExtendCandidates(t *testing.T) {
	for _, pal := range [][]string{{"#000000"}, {"#FFFFFF"}, {"#808080"}, {"#FFFF00"}, {"#0000FF", "#FF00FF"}} {
		base := make([]colorful.Color, len(pal))
		for i, p := range pal {
			base[i], _, _ = ParseColor(p)
		}
		if n := len(extendCandidates(base)); n < 50 {
			t.Errorf("%v: only %d candidates", pal, n)
		}
	}
}

// BenchmarkExtendPalette is the work a chart of twelve series does once
// per drawing when its palette has two colours.
func BenchmarkExtendPalette(b *testing.B) {
	b.ReportAllocs()
	for b.Loop() {
		ExtendPalette([]string{"#1F3A93", "#F28C28"}, 12)
	}
}
