package draw

import (
	"context"
	"fmt"
	"math"
	"syscall"
	"testing"
	"time"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/fontstack"
	fontsubset "chartd.dev/libs/subset"
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

func BenchmarkBar30(b *testing.B) { benchDraw(b, bar30(fonts(b))) }

// BenchmarkBar30Embedded is the 30-bar chart as an SVG served to clients:
// drawn, then its fonts embedded from a warm subset cache (budget 0.5 ms).
func BenchmarkBar30Embedded(b *testing.B) {
	in, sub := bar30(fonts(b)), subsets(b)
	benchEmbed(b, in, func() Subsetter { return sub })
}

// BenchmarkBar30EmbeddedCold is BenchmarkBar30Embedded with an empty
// cache each time: hb-subset and woff2_compress run for every face.
func BenchmarkBar30EmbeddedCold(b *testing.B) {
	in, tool := bar30(fonts(b)), subsetTool(b)
	benchEmbed(b, in, func() Subsetter { return fontsubset.NewCache(tool, 1<<20, time.Minute) })
}

func benchEmbed(b *testing.B, in Input, sub func() Subsetter) {
	ctx := context.Background()
	svg, err := SVG(in)
	if err != nil {
		b.Fatal(err)
	}
	out, err := in.Fonts.EmbedFonts(ctx, svg, sub()) // warm
	if err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	for b.Loop() {
		svg, err := SVG(in)
		if err != nil {
			b.Fatal(err)
		}
		if _, err := in.Fonts.EmbedFonts(ctx, svg, sub()); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(len(out)-len(svg)), "font-bytes")
}

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
// (with a margin for a busy machine). Time is the process's CPU time, the
// least of a few rounds: wall time is what the CI machine's load decides
// (a 1 ms draw took 19.8 ms of wall time beside the Chromium tests), while
// CPU time is what the drawing code costs.
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
		budget time.Duration
	}{{10000, 5 * time.Millisecond}, {100000, 50 * time.Millisecond}} {
		cpu := cpuPerDraw(t, scatterN(f, c.n))
		t.Logf("%d-point scatter: %s of CPU per draw", c.n, fmtNs(float64(cpu)))
		if cpu > 2*c.budget {
			t.Errorf("%d-point scatter: %s of CPU per draw, budget %s", c.n, fmtNs(float64(cpu)), fmtNs(float64(c.budget)))
		}
	}
}

// cpuPerDraw is the least CPU time of the process per draw of in, over five
// rounds of 20 draws (long enough for the clock's resolution not to
// matter). The process's time includes the garbage collector's workers,
// which the draw's allocations set to work.
func cpuPerDraw(t *testing.T, in Input) time.Duration {
	t.Helper()
	const draws = 20
	best := time.Duration(math.MaxInt64)
	for range 5 {
		before := cpuTime(t)
		for range draws {
			if _, err := SVG(in); err != nil {
				t.Fatal(err)
			}
		}
		best = min(best, (cpuTime(t)-before)/time.Duration(draws))
	}
	return best
}

// cpuTime is the user plus system CPU time the process has used.
func cpuTime(t *testing.T) time.Duration {
	t.Helper()
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		t.Fatalf("getrusage: %v", err)
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}

func fmtNs(ns float64) string {
	if ns >= 1e6 {
		return fmt.Sprintf("%.1f ms", ns/1e6)
	}
	return fmt.Sprintf("%.0f µs", math.Round(ns/1e3))
}

// BenchmarkLineLabels12x15 draws 12 lines of 15 points with value labels
// on: the whole picture, so the labels' collision-checked placement in it
// stays within its 1 ms budget (issue 32 item 7).
func BenchmarkLineLabels12x15(b *testing.B) {
	for _, tc := range layoutCases(fonts(b)) {
		if tc.name == "layout-line-12x15-labels" {
			benchDraw(b, tc.in)
			return
		}
	}
	b.Fatal("no layout case layout-line-12x15-labels")
}
