package draw

import (
	"fmt"
	"math"
	"testing"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/fontstack"
)

// bar30 is the 30-bar chart of the performance target: axes, a legend
// (forced on) and data labels.
func bar30(f *Fonts) Input {
	r := rng()
	s := testSpec("bar", nil, nil)
	s.Style.Title = chartspec.Text{Show: true, Text: "Thirty bars"}
	s.Style.Legend.Show = chartspec.On
	s.Style.Labels.Show = true
	return Input{Spec: s, Table: table(txt("c1", "Country", countries(30)...), num("c2", "Sales", series(r, 30, 5e6, 4e6)...)), Fonts: f}
}

// scatterN is an n-point scatter of two number columns.
func scatterN(f *Fonts, n int) Input {
	r := rng()
	x, y := make([]float64, n), make([]float64, n)
	for i := range x {
		x[i] = r.NormFloat64() * 10
		y[i] = x[i]*0.8 + r.NormFloat64()*6
	}
	return Input{Spec: testSpec("scatter", nil, nil), Table: table(num("c1", "x", x...), num("c2", "y", y...)), Fonts: f}
}

func benchDraw(b *testing.B, in Input) {
	b.ReportAllocs()
	for b.Loop() {
		if _, err := SVG(in); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkBar30(b *testing.B)         { benchDraw(b, bar30(fonts(b))) }
func BenchmarkScatter10000(b *testing.B)  { benchDraw(b, scatterN(fonts(b), 10000)) }
func BenchmarkScatter100000(b *testing.B) { benchDraw(b, scatterN(fonts(b), 100000)) }
func BenchmarkLine10000(b *testing.B)     { benchDraw(b, lineN(fonts(b), 10000)) }
func BenchmarkEveryGoldenCase(b *testing.B) {
	for _, tc := range goldenCases(fonts(b)) {
		b.Run(tc.name, func(b *testing.B) { benchDraw(b, tc.in) })
	}
}

// lineN is an n-point daily line.
func lineN(f *Fonts, n int) Input {
	r := rng()
	x, y := make([]float64, n), make([]float64, n)
	v := 100.0
	for i := range x {
		x[i] = 1.6e12 + float64(i)*86400000
		v += r.NormFloat64()
		y[i] = v
	}
	return Input{Spec: testSpec("line", nil, nil), Table: table(&dataset.Column{ID: "c1", Name: "Day", Kind: dataset.Date, DateUnit: dataset.UnitDay, Num: x}, num("c2", "Value", y...)), Fonts: f}
}

func BenchmarkMeasure(b *testing.B) {
	f := fonts(b)
	s := "Department of Transportation and Infrastructure"
	b.ReportAllocs()
	for b.Loop() {
		_ = f.Width(s, 12, false)
	}
	b.ReportMetric(float64(len(s)), "runes")
}

func BenchmarkLoadFonts(b *testing.B) {
	st, err := fontstack.Find()
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := LoadFonts(st); err != nil {
			b.Fatal(err)
		}
	}
}

// TestPerformanceBudget keeps the numbers from regressing: the
// 30-bar chart within 300 allocations, scatters within their time budget
// (with a margin for a busy machine).
func TestPerformanceBudget(t *testing.T) {
	f := fonts(t)
	in := bar30(f)
	allocs := testing.AllocsPerRun(20, func() {
		if _, err := SVG(in); err != nil {
			t.Fatal(err)
		}
	})
	if allocs > 300 {
		t.Errorf("30-bar chart: %.0f allocations per draw, budget 300", allocs)
	}
	for _, c := range []struct {
		n      int
		budget float64 // ns
	}{{10000, 5e6}, {100000, 50e6}} {
		res := testing.Benchmark(func(b *testing.B) { benchDraw(b, scatterN(f, c.n)) })
		if ns := float64(res.NsPerOp()); ns > c.budget*2 {
			t.Errorf("%d-point scatter: %s per draw, budget %s", c.n, fmtNs(ns), fmtNs(c.budget))
		}
	}
}

func fmtNs(ns float64) string {
	if ns >= 1e6 {
		return fmt.Sprintf("%.1f ms", ns/1e6)
	}
	return fmt.Sprintf("%.0f µs", math.Round(ns/1e3))
}
