package draw

import (
	"math"
	"regexp"
	"strconv"
	"testing"

	"chartd.dev/libs/chartspec"
)

func TestBandStepWhole(t *testing.T) {
	for _, c := range []struct {
		name      string
		n         int
		length    float64
		want      float64
		wantWhole bool
	}{
		{"30 slots of 23 px", 30, 690, 23, true},
		{"12 slots of 57.5 px: 6 px over", 12, 690, 57, true},
		{"50 slots of 13.8 px: 40 px over is too much", 50, 690, 13.8, false},
		{"100 slots of 5.9 px: too narrow to cut", 100, 590, 5.9, false},
		{"reversed", 30, -690, -23, true},
	} {
		t.Run(c.name, func(t *testing.T) {
			a := newBandAxis(make([]string, c.n), 0, 0)
			a.r0, a.r1 = 0, c.length
			if got := a.step(); math.Abs(got-c.want) > 1e-9 {
				t.Fatalf("step = %v, want %v", got, c.want)
			}
			first, last := a.bandStart(0), a.bandStart(c.n-1)+a.step()
			if c.wantWhole && (first != math.Round(first) || math.Abs(first-(c.length-last)) > 1) {
				t.Errorf("slots run %v..%v of 0..%v: not centred on whole pixels", first, last, c.length)
			}
			if !c.wantWhole && (first != 0 || math.Abs(last-c.length) > 1e-9) {
				t.Errorf("slots run %v..%v, want the whole 0..%v", first, last, c.length)
			}
		})
	}
}

var barRect = regexp.MustCompile(`<rect x="([-0-9.]+)" y="([-0-9.]+)" width="([0-9.]+)" height="([0-9.]+)"/>`)

// TestBarsOnWholePixels: bars wide enough start and end on pixel edges,
// bars meant to be alike are as wide, and bars of a group as far apart.
func TestBarsOnWholePixels(t *testing.T) {
	f := fonts(t)
	r := rng()
	for _, c := range []struct {
		name   string
		stack  string
		series int
	}{{"one series", "", 1}, {"grouped", "", 3}, {"stacked", "stacked", 3}} {
		t.Run(c.name, func(t *testing.T) {
			cols := []string{}
			tab := table(txt("c1", "Country", countries(13)...))
			for i := range c.series {
				id := "c" + strconv.Itoa(i+2)
				cols = append(cols, id)
				tab.Columns = append(tab.Columns, num(id, "S"+id, series(r, 13, 500, 300)...))
			}
			s := testSpec("bar", map[string]any{"stack": c.stack}, chartspec.Mapping{"category": chartspec.One("c1"), "values": chartspec.Many(cols...)})
			if c.stack == "" {
				delete(s.Options, "stack")
			}
			out, err := SVG(Input{Spec: s, Table: tab, Fonts: f, Width: 777, Height: 411})
			if err != nil {
				t.Fatal(err)
			}
			rects := barRect.FindAllStringSubmatch(string(out), -1)
			if len(rects) != 13*c.series {
				t.Fatalf("%d bars, want %d", len(rects), 13*c.series)
			}
			widths := map[float64]int{}
			for _, m := range rects {
				for _, v := range m[1:] {
					x, _ := strconv.ParseFloat(v, 64)
					if x != math.Round(x) {
						t.Errorf("bar %s: %s is not on a pixel edge", m[0], v)
					}
				}
				w, _ := strconv.ParseFloat(m[3], 64)
				widths[w]++
			}
			if len(widths) != 1 {
				t.Errorf("bar widths %v, want one width", widths)
			}
			if c.series > 1 && c.stack == "" {
				x := func(k int) float64 { v, _ := strconv.ParseFloat(rects[k][1], 64); return v }
				gaps := map[float64]bool{}
				for i := range 13 {
					for si := 1; si < c.series; si++ {
						// rects come series by series, 13 bars each
						gaps[x(si*13+i)-x((si-1)*13+i)] = true
					}
				}
				if len(gaps) != 1 {
					t.Errorf("bars of a group are %v apart, want one distance", gaps)
				}
			}
		})
	}
}

// TestFractionalStepNotSnapped: on a band whose step is not cut to whole
// pixels, bars keep their fractions, so they stay evenly spaced.
func TestFractionalStepNotSnapped(t *testing.T) {
	r := rng()
	s := testSpec("bar", nil, chartspec.Mapping{"category": chartspec.One("c1"), "values": chartspec.Many("c2")})
	out, err := SVG(Input{Spec: s, Fonts: fonts(t), Width: 800, Height: 400,
		Table: table(txt("c1", "Country", countries(40)...), num("c2", "Sales", series(r, 40, 500, 300)...))})
	if err != nil {
		t.Fatal(err)
	}
	rects := barRect.FindAllStringSubmatch(string(out), -1)
	if len(rects) != 40 {
		t.Fatalf("%d bars, want 40", len(rects))
	}
	var xs []float64
	for _, m := range rects {
		x, _ := strconv.ParseFloat(m[1], 64)
		xs = append(xs, x)
	}
	for i := 2; i < len(xs); i++ {
		if d := (xs[i] - xs[i-1]) - (xs[1] - xs[0]); math.Abs(d) > 0.02 {
			t.Fatalf("bars %d and %d are %v apart, bars 0 and 1 %v", i-1, i, xs[i]-xs[i-1], xs[1]-xs[0])
		}
	}
	if step := xs[1] - xs[0]; math.Abs(step-math.Round(step)) < 0.02 {
		t.Fatalf("the step is %v, whole: the case needs a fractional one", step)
	}
}

var cellRect = regexp.MustCompile(`<rect x="([-0-9.]+)" y="([-0-9.]+)" width="([0-9.]+)" height="([0-9.]+)" fill="#`)

// TestHeatmapCellsOnWholePixels: the sample heatmap's cells (a whole step
// both ways) sit on pixel edges, all of one size.
func TestHeatmapCellsOnWholePixels(t *testing.T) {
	var in *Input
	for _, c := range goldenCases(fonts(t)) {
		if c.name == "heatmap" {
			in = &c.in
		}
	}
	if in == nil {
		t.Fatal("no heatmap golden case")
	}
	out, err := SVG(*in)
	if err != nil {
		t.Fatal(err)
	}
	cells := cellRect.FindAllStringSubmatch(string(out), -1)
	if len(cells) < 20 {
		t.Fatalf("%d cells", len(cells))
	}
	sizes := map[string]bool{}
	for _, m := range cells {
		for _, v := range m[1:] {
			if x, _ := strconv.ParseFloat(v, 64); x != math.Round(x) {
				t.Errorf("cell %s: %s is not on a pixel edge", m[0], v)
			}
		}
		sizes[m[3]+"×"+m[4]] = true
	}
	if len(sizes) != 1 {
		t.Errorf("cell sizes %v, want one", sizes)
	}
}
