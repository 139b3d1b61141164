package draw

import (
	"slices"
	"strings"
	"testing"

	"chartd.dev/charts"
	"chartd.dev/libs/chartspec"
)

// TestGalleryDefaultsPassLint builds every gallery example as create_chart
// does (the default palette unless the example names one) and lints it:
// colours the service chose itself must not trip its own colour checks at
// warn level, and no colour may be faint at all (the old orange and
// yellow gave 12 examples a faint-color problem; the radar example's
// Okabe–Ito orange and sky blue, 2.2:1 and 2.3:1, tripped it at info).
func TestGalleryDefaultsPassLint(t *testing.T) {
	cat, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]bool{chartspec.CheckFaintColor: true, chartspec.CheckSimilarColors: true}
	for _, ex := range cat.Examples("") {
		t.Run(ex.ID, func(t *testing.T) {
			ct, ok := cat.Type(ex.Type)
			if !ok {
				t.Fatalf("unknown type %s", ex.Type)
			}
			e, err := chartspec.Example(cat, ct, ex)
			if err != nil {
				t.Fatal(err)
			}
			after, _ := e.Spec.AfterSteps(e.Table)
			for _, p := range chartspec.Lint(e.Spec, after, chartspec.LintEnv{Catalog: cat}) {
				if ours[p.ID] && p.Level == chartspec.Warn || p.ID == chartspec.CheckFaintColor {
					t.Errorf("%s: %s", p.Level, p.Message)
				}
			}
		})
	}
}

// TestDefaultPaletteContrast keeps every default colour at 3:1 or more
// against white (WCAG 1.4.11, what the faint-color lint asks) and white
// value labels on it readable: text drawn on a mark in the mark's colour
// or on it in white must reach 3:1 as well.
func TestDefaultPaletteContrast(t *testing.T) {
	background := lightTheme().background
	c0 := &canvas{theme: lightTheme()}
	inkOn, textColor := c0.inkOn, c0.textColor
	for _, hex := range defaultPalette() {
		c := mustColor(hex)
		if r := contrastRatio(c, mustColor(background)); r < chartspec.MinContrast {
			t.Errorf("%s has %.2f:1 against white, below %.1f:1", hex, r, chartspec.MinContrast)
		}
		if ink := inkOn(hex); contrastRatio(c, mustColor(ink)) < 3 {
			t.Errorf("%s: label ink %s has only %.2f:1 on it", hex, ink, contrastRatio(c, mustColor(ink)))
		}
		if tc := textColor(hex); contrastRatio(mustColor(tc), mustColor(background)) < minTextContrast {
			t.Errorf("%s: as text %s has only %.2f:1 on white", hex, tc, contrastRatio(mustColor(tc), mustColor(background)))
		}
	}
	if got := strings.Join(defaultPalette(), ","); strings.Count(got, "#") != 12 { // twelve, each pair apart (issue 32 item 12)
		t.Errorf("default palette has %d colours, want 12", strings.Count(got, "#"))
	}
}

// TestGoldenDefaultsPassLint lints every golden picture whose colours the
// service chose (the default palette and no series colour): what we draw
// by default must not trip our own colour checks at warn level.
func TestGoldenDefaultsPassLint(t *testing.T) {
	cat, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	ours := map[string]bool{chartspec.CheckFaintColor: true, chartspec.CheckSimilarColors: true}
	linted := 0
	for _, tc := range goldenCases(fonts(t)) {
		st := tc.in.Spec.Style
		if !slices.Equal(st.Palette, defaultPalette()) || len(st.SeriesColors) > 0 {
			continue
		}
		linted++
		t.Run(tc.name, func(t *testing.T) {
			after, _ := tc.in.Spec.AfterSteps(tc.in.Table)
			for _, p := range chartspec.Lint(tc.in.Spec, after, chartspec.LintEnv{Catalog: cat, Transparent: tc.in.Transparent}) {
				if ours[p.ID] && p.Level == chartspec.Warn {
					t.Errorf("%s %s: %s", p.Level, p.ID, p.Message)
				}
			}
		})
	}
	if linted < 50 {
		t.Errorf("only %d goldens use the default colours; the check would prove little", linted)
	}
}
