package draw

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// TestNameUnit reads units from column names the way a desk writes them
// on the top tick, and leaves brackets that hold no unit alone.
func TestNameUnit(t *testing.T) {
	for _, tc := range []struct{ name, pre, suf string }{
		{"Revenue (€)", "€", ""},
		{"Share of respondents (%)", "", "%"},
		{"Price in $", "$", ""},
		{"Annual salary (USD)", "$", ""},
		{"GDP 2023 (USD trillion)", "$", "tn"},
		{"Cost (€m)", "€", "m"},
		{"Speed (km/h)", "", " km/h"},
		{"Mean temperature (°C)", "", "°C"},
		{"CO2 (ppm)", "", " ppm"},
		{"Energy [TWh]", "", " TWh"},
		{"Population (million)", "", " million"},
		{"Life expectancy (years)", "", " years"},
		// no unit
		{"Sales (2024)", "", ""},
		{"Order(s)", "", ""},
		{"Weight (1000 lb)", "", ""},
		{"Amount (EUR per month)", "", ""},
		{"Revenue (est.)", "", ""},
		{"Born in Germany", "", ""},
		{"Sales", "", ""},
		{"()", "", ""},
	} {
		if pre, suf := nameUnit(tc.name); pre != tc.pre || suf != tc.suf {
			t.Errorf("nameUnit(%q) = %q, %q; want %q, %q", tc.name, pre, suf, tc.pre, tc.suf)
		}
	}
}

// TestUnitOnTopTickOnly: the unit is written once per value axis, on its
// top tick, whether it comes from the data (€ cells), the style (a %
// suffix) or the column's name; value labels keep their own.
func TestUnitOnTopTickOnly(t *testing.T) {
	f := fonts(t)
	c10 := countries(6)
	vals := []float64{4200000, 3100000, 2650000, 2100000, 1500000, 990000}
	for _, tc := range []struct {
		name string
		col  *dataset.Column
		opts map[string]any
		want string // the top tick
	}{
		{"data currency", &dataset.Column{ID: "c2", Name: "Sales", Kind: dataset.Number, Num: vals, Currency: "€"}, nil, "€4.5M"},
		{"name currency", num("c2", "Revenue (€)", vals...), nil, "€4.5M"},
		{"name percent horizontal", num("c2", "Share (%)", 62.3, 51, 38.5, 30.3, 27.1, 13.5), map[string]any{"orientation": "horizontal"}, "70%"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svg, err := SVG(Input{Spec: testSpec("bar", tc.opts, nil), Table: table(txt("c1", "Country", c10...), tc.col), Fonts: f})
			if err != nil {
				t.Fatal(err)
			}
			var ticks []string
			for _, e := range textsOf(t, svg) {
				if e.group == "axes" && !strings.ContainsAny(e.text, "abcdefghijklmnopqrstuvwxyz") {
					ticks = append(ticks, e.text)
				}
			}
			with := 0
			for _, s := range ticks {
				if strings.ContainsAny(s, "€%$") {
					with++
				}
			}
			if len(ticks) < 3 || with != 1 || !strings.Contains(strings.Join(ticks, " "), tc.want) {
				t.Errorf("ticks %q: want the unit once, on %q", ticks, tc.want)
			}
		})
	}
}

// TestDailyTicksAtMonthStarts: daily data over three months or more is
// ticked at month starts, thinning to every 2nd or 3rd month; a few weeks
// by the 1st and 15th.
func TestDailyTicksAtMonthStarts(t *testing.T) {
	day := unitStep("day")
	ms := func(s string) float64 {
		tm, _ := time.Parse("2006-01-02", s)
		return float64(tm.UnixMilli())
	}
	for _, tc := range []struct {
		lo, hi string
		target int
		want   string
	}{
		{"2024-01-01", "2024-03-30", 8, "Jan 2024|Feb|Mar"},
		{"2024-01-01", "2024-12-31", 8, "Jan 2024|Mar|May|Jul|Sep|Nov"},
		{"2024-01-01", "2025-06-30", 7, "Jan 2024|Apr|Jul|Oct|Jan 2025|Apr"},
		{"2024-01-01", "2024-02-29", 6, "Jan 1, 2024|Jan 15|Feb 1|Feb 15"},
	} {
		ticks, u := timeTicks(ms(tc.lo), ms(tc.hi), tc.target, day)
		var parts []string
		for i, v := range ticks {
			prev := 0.0
			if i > 0 {
				prev = ticks[i-1]
			}
			parts = append(parts, string(appendTimeTick(nil, v, u, prev, i == 0)))
		}
		if got := strings.Join(parts, "|"); got != tc.want {
			t.Errorf("daily ticks %s..%s = %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
	// 90 daily bars: month names at the month starts, not every 8th day;
	// weekdays only (no 1st of June, a Saturday) still tick each month
	for _, weekdays := range []bool{false, true} {
		var days []string
		for d := 0; d < 200; d++ {
			tm := time.Date(2024, 4, 1+d, 0, 0, 0, 0, time.UTC)
			if weekdays && (tm.Weekday() == time.Saturday || tm.Weekday() == time.Sunday) {
				continue
			}
			days = append(days, tm.Format("2006-01-02"))
		}
		n := len(days)
		svg, err := SVG(Input{Spec: testSpec("bar", nil, nil), Table: table(dates("c1", "Day", dataset.UnitDay, days...), num("c2", "Orders", series(rng(), n, 300, 100)...)), Fonts: fonts(t)})
		if err != nil {
			t.Fatal(err)
		}
		var got []string
		for _, e := range textsOf(t, svg) {
			if e.group == "axes" && e.anchor == "middle" {
				got = append(got, e.text)
			}
		}
		if s := strings.Join(got, "|"); s != "Apr 2024|May|Jun|Jul|Aug|Sep|Oct" && s != "Apr 2024|Jun|Aug|Oct" {
			t.Errorf("weekdays=%v: bottom labels %q, want month starts", weekdays, s)
		}
	}
}

// TestSmallPlotNamesThreeTicks: a value axis on a plot 80 px tall or more
// names three ticks at least, on a 1-2-5 step, and its low end (the
// baseline) is one of them.
func TestSmallPlotNamesThreeTicks(t *testing.T) {
	r := rng()
	for i := 0; i < 200; i++ {
		lo := math.Round(r.Float64() * 50000)
		hi := lo + math.Round(1000+r.Float64()*40000)
		for _, length := range []float64{80, 111, 160} {
			a := &axis{kind: axisValue, lo: lo, hi: hi, format: numFormat{decimals: -1, scale: 1}}
			a.computeTicks(length, math.Min(48, length/3))
			if len(a.ticks) < 3 {
				t.Fatalf("%g..%g on %g px: ticks %v, want three at least", lo, hi, length, a.ticks)
			}
			if math.Abs(a.ticks[0]-a.d0) > 1e-9*math.Max(1, math.Abs(a.d0)) {
				t.Errorf("%g..%g on %g px: axis starts at %g, below its first tick %g", lo, hi, length, a.d0, a.ticks[0])
			}
		}
	}
}

// TestTruncateMiddle keeps both ends of a name too long for its room.
func TestTruncateMiddle(t *testing.T) {
	f := fonts(t)
	for i := 1; i <= 12; i++ {
		s := fmt.Sprintf("Customer service centre, North-West region %d", i)
		got := f.TruncateMiddle(s, 9, false, 110)
		if w := f.Width(got, 9, false); w > 110 {
			t.Errorf("%q is %.1f px, over 110", got, w)
		}
		if !strings.HasPrefix(got, "Customer") || !strings.HasSuffix(got, fmt.Sprintf(" %d", i)) || !strings.Contains(got, "…") {
			t.Errorf("TruncateMiddle(%q) = %q: want the start, an ellipsis and the number", s, got)
		}
	}
	if got := f.TruncateMiddle("short", 9, false, 110); got != "short" {
		t.Errorf("a name that fits changed: %q", got)
	}
	if got := f.TruncateMiddle("中国・四国地方の太平洋側沿岸部", 12, false, 60); got != f.Truncate("中国・四国地方の太平洋側沿岸部", 12, false, 60) {
		t.Errorf("text without spaces is cut at its end: %q", got)
	}
}

// TestLongNamesWrapBeforeTheyAreCut: legend entries, pie labels and
// direct line labels wrap to more lines before anything is cut, and two
// names alike but for their end stay apart.
func TestLongNamesWrapBeforeTheyAreCut(t *testing.T) {
	f := fonts(t)
	urban, rural := "Household spending on energy, urban areas", "Household spending on energy, rural areas"
	cases := map[string]Input{
		"legend":        {Spec: testSpec("bar", nil, nil), Table: table(txt("c1", "Year", "2023", "2024"), num("c2", urban, 1, 2), num("c3", rural, 2, 3))},
		"legend column": {Spec: testSpec("bar", nil, nil), Table: table(txt("c1", "Year", "2023", "2024"), num("c2", urban, 1, 2), num("c3", rural, 2, 3))},
		"direct":        {Spec: testSpec("line", nil, nil), Table: table(txt("c1", "Year", "2023", "2024"), num("c2", urban, 1, 2), num("c3", rural, 2, 3))},
		"pie":           {Spec: testSpec("pie", nil, nil), Table: table(txt("c1", "Kind", urban, rural), num("c2", "Value", 1, 2)), Width: 400, Height: 300},
	}
	cases["legend column"].Spec.Style.Legend.Position = chartspec.Position{X: "right", Y: "middle"}
	cases["pie"].Spec.Style.Labels.Show = true
	for name, in := range cases {
		in.Fonts = f
		svg, err := SVG(in)
		if err != nil {
			t.Fatal(err)
		}
		all := ""
		for _, e := range textsOf(t, svg) {
			all += e.text + "|"
		}
		if !strings.Contains(all, "urban") || !strings.Contains(all, "rural") {
			t.Errorf("%s: the names' ends are lost: %q", name, all)
		}
	}
}

// TestNoWordBrokenInside: category names wrap at spaces (and after
// hyphens, between East Asian characters), never inside a word: a name
// too long for its slot is turned instead ("Netherla", "nds" was drawn).
func TestNoWordBrokenInside(t *testing.T) {
	f := fonts(t)
	names := countries(10)
	for _, size := range [][2]int{{800, 600}, {400, 300}, {600, 400}} {
		s := testSpec("bar", nil, nil)
		s.Style.Legend.Position = chartspec.Position{X: "left", Y: "middle"}
		svg, err := SVG(Input{Spec: s, Table: table(txt("c1", "Country", names...), num("c2", "Sales", series(rng(), 10, 100, 50)...),
			num("c3", "Profit", series(rng(), 10, 20, 10)...)), Width: size[0], Height: size[1], Fonts: f})
		if err != nil {
			t.Fatal(err)
		}
		for _, e := range textsOf(t, svg) {
			if e.group != "axes" || e.lines == nil {
				continue
			}
			if joined := strings.Join(e.lines, " "); !slices.Contains(names, joined) && !strings.Contains(joined, "…") {
				t.Errorf("%v: label drawn as %q", size, e.lines)
			}
		}
	}
}
