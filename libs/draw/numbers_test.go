package draw

import (
	"math"
	"regexp"
	"strconv"
	"testing"

	"chartd.dev/libs/chartspec"
)

// TestExtremeNumbers draws every chart type from finite values at the ends
// of the float64 range: no panic, a valid document, and tick labels a few
// characters long (scientific notation), never hundreds of digits.
func TestExtremeNumbers(t *testing.T) {
	f := fonts(t)
	label := regexp.MustCompile(`<text[^>]*>([^<]*)</text>`)
	note := regexp.MustCompile(`<g class="note">.*?</g>`)
	for _, tc := range []struct {
		name string
		vals []float64
	}{
		{"one huge value", []float64{1e98}},
		{"two maxima", []float64{1e308, 1e308}},
		{"opposite extremes", []float64{-1e308, 1e308}},
		{"largest finite either side", []float64{-math.MaxFloat64, math.MaxFloat64, 5}},
		{"near the top", []float64{1.7e308, 1.79e308, 1.75e308, 1.72e308}},
		{"tiny", []float64{1e-300, 3e-300}},
		{"smallest subnormal", []float64{5e-324}},
		{"huge and close", []float64{1e15, 1e15 + 1}},
	} {
		for _, typ := range []string{"bar", "line", "pie", "scatter", "histogram", "boxplot", "dotplot", "sankey", "radar", "heatmap"} {
			t.Run(tc.name+"/"+typ, func(t *testing.T) {
				n := len(tc.vals)
				names, to, other := make([]string, n), make([]string, n), make([]float64, n)
				for i := range names {
					names[i], to[i], other[i] = "row "+strconv.Itoa(i), "to "+strconv.Itoa(i%2), float64(i)
				}
				tbl := table(txt("c1", "Name", names...), txt("c2", "To", to...), num("c3", "Value", tc.vals...), num("c4", "Other", other...))
				s := testSpec(typ, nil, nil)
				if typ == "scatter" {
					s.Mapping = chartspec.Mapping{"x": chartspec.One("c3"), "y": chartspec.One("c4")}
				}
				out, err := SVG(Input{Spec: s, Table: tbl, Fonts: f})
				if err != nil {
					t.Fatalf("SVG: %v", err)
				}
				checkDocument(t, out)
				// a note under the chart (why a pie has Other) is prose, not a label
				for _, m := range label.FindAllSubmatch(note.ReplaceAll(out, nil), -1) {
					if len([]rune(string(m[1]))) > 24 {
						t.Errorf("label %q is too long to read", m[1])
					}
				}
			})
		}
	}
}

// TestScientificLabels pins the notation of extreme magnitudes in values and ticks.
func TestScientificLabels(t *testing.T) {
	plain := numFormat{decimals: -1, scale: 1}
	for _, tc := range []struct {
		v    float64
		f    numFormat
		want string
	}{
		{1e98, plain, "1e98"},
		{-2.345e300, plain, "−2.35e300"},
		{2.5e-9, plain, "2.5e−9"},
		{1.2e15, numFormat{decimals: 1, scale: 1, prefix: "$"}, "$1.2e15"},
		{999e12, plain, "999T"},
		{0.00001, plain, "0.00001"},
	} {
		if got := formatValue(tc.v, tc.f); got != tc.want {
			t.Errorf("formatValue(%g) = %q, want %q", tc.v, got, tc.want)
		}
	}
	for _, tc := range []struct {
		ticks []float64
		step  float64
		want  []string
	}{
		{[]float64{0, 5e307, 1e308}, 5e307, []string{"0", "5e307", "1e308"}},
		{[]float64{1.7e308, 1.72e308}, 2e306, []string{"1.7e308", "1.72e308"}},
		{[]float64{0, 5e-301, 1e-300}, 5e-301, []string{"0", "5e−301", "1e−300"}},
		{[]float64{0, 20000, 40000}, 20000, []string{"0", "20k", "40k"}},
	} {
		tf := newTickFormat(plain, tc.ticks, tc.step)
		for i, v := range tc.ticks {
			if got := string(tf.appendTick(nil, v)); got != tc.want[i] {
				t.Errorf("tick %g (step %g) = %q, want %q", v, tc.step, got, tc.want[i])
			}
		}
	}
}
