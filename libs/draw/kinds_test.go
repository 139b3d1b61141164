package draw

import (
	"encoding/json"
	"math"
	"slices"
	"strings"
	"testing"
	"time"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// TestRolesAsTheAPIPicksThem: for the tables of issue 22 (identifiers,
// years, wide heatmaps, long names), the roles draw fills for an unmapped
// spec are the ones a new chart gets from chartspec.AutoMapping, so a
// picture drawn without a mapping is the chart the API saves.
func TestRolesAsTheAPIPicksThem(t *testing.T) {
	cat, err := catalog()
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ typ, csv, want string }{
		{"scatter", "ID,Height,Weight\n1,170,60\n2,180,80\n3,160,55", "x=c2 y=c3"},
		{"scatter", "Year,Temp\n1880,13.9\n1890,14.0\n1900,14.1", "x=c1 y=c2"},
		{"histogram", "Name,Year joined\nAnn,2001\nBob,2010", "value=c2"},
		{"boxplot", "Abteilung,Jahr\na,1990\na,2001\nb,2010", "group=c1 value=c2"},
		{"bar", "Company,Founded\nSiemens,1847\nBayer,1863", "category=c1 values=c2"},
		{"bar", "Height,ID,Weight\n170,1,60\n180,2,80", "category=c2 values=c1,c3"},
		{"heatmap", "Var,A,B,C\nR0,1,0.4,-0.9\nR1,0.4,1,-0.5\nR2,-0.9,-0.5,1", "value=c2,c3,c4 y=c1"},
		{"heatmap", "Day,Hour,Visits\nMon,06:00,3\nMon,08:00,5\nTue,06:00,2", "value=c3 x=c1 y=c2"},
		{"heatmap", "Store,Sales\nA,3\nB,4", "value=c2 y=c1"},
	} {
		raw, _ := json.Marshal(tc.csv)
		tb, _, err := dataset.ParseRequest(raw, "csv")
		if err != nil {
			t.Fatal(err)
		}
		ct, _ := cat.Type(tc.typ)
		api := mappingString(chartspec.AutoMapping(ct, tb))
		drawn := mappingString(AutoMapping(tc.typ, tb))
		if api != tc.want || drawn != tc.want {
			t.Errorf("%s on %q: API %s, draw %s, want %s", tc.typ, tc.csv, api, drawn, tc.want)
		}
	}
}

// TestYearFormat: values of a year column are written as years, without
// grouping or compact units, in labels and ticks alike; other columns keep
// their grouping.
func TestYearFormat(t *testing.T) {
	years := &dataset.Column{ID: "c1", Name: "Founded", Kind: dataset.Number, Years: true, Num: []float64{1848, 2024}}
	f := baseFormat(&chartspec.Style{}, []*dataset.Column{years})
	for v, want := range map[float64]string{1848: "1848", 2024: "2024", 12000: "12000", 1987.5: "1987.5", -44: "−44"} {
		if got := formatValue(v, f); got != want {
			t.Errorf("label of %v: %q, want %q", v, got, want)
		}
		if got := string(newTickFormat(f, []float64{v}, 1).appendTick(nil, v)); got != want {
			t.Errorf("tick of %v: %q, want %q", v, got, want)
		}
	}
	plain := baseFormat(&chartspec.Style{}, []*dataset.Column{{ID: "c2", Name: "Sales", Kind: dataset.Number, Num: []float64{1848}}})
	if got := formatValue(1848, plain); got != "1,848" {
		t.Errorf("a number column: %q", got)
	}
}

// TestDisplayUnit: dates read at the unit they show, not the one written.
func TestDisplayUnit(t *testing.T) {
	ms := func(y, m, d int) float64 {
		return float64(time.Date(y, time.Month(m), d, 0, 0, 0, 0, time.UTC).UnixMilli())
	}
	for _, tc := range []struct {
		name string
		unit string
		vals []float64
		want string
	}{
		{"first days are months", dataset.UnitDay, []float64{ms(2024, 1, 1), ms(2024, 2, 1), ms(2024, 3, 1)}, dataset.UnitMonth},
		{"new years are years", dataset.UnitDay, []float64{ms(2020, 1, 1), ms(2021, 1, 1)}, dataset.UnitYear},
		{"other days stay days", dataset.UnitDay, []float64{ms(2024, 1, 1), ms(2024, 1, 2)}, dataset.UnitDay},
		{"one first day stays a day", dataset.UnitDay, []float64{ms(2024, 3, 1), ms(2024, 3, 1)}, dataset.UnitDay},
		{"midnights are days", dataset.UnitTime, []float64{ms(2024, 1, 1), ms(2024, 1, 2), math.NaN()}, dataset.UnitDay},
		{"times stay times", dataset.UnitTime, []float64{ms(2024, 1, 1) + 3600_000, ms(2024, 1, 2)}, dataset.UnitTime},
		{"months stay months", dataset.UnitMonth, []float64{ms(2024, 1, 1), ms(2025, 1, 1)}, dataset.UnitMonth},
	} {
		c := &dataset.Column{Kind: dataset.Date, DateUnit: tc.unit, Num: tc.vals}
		if got := displayUnit(c); got != tc.want {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	c := &dataset.Column{Kind: dataset.Date, DateUnit: dataset.UnitTime, Num: []float64{ms(2024, 1, 1) + 14*3600_000 + 30*60_000, ms(2024, 1, 2)}}
	if got := strings.Join(dateLabels(c), " | "); got != "Jan 1, 2024 14:30 | Jan 2 00:00" {
		t.Errorf("time labels %q", got)
	}
}

// TestHeatmapScales: which colour scale a heatmap gets, by its data, the
// name of its values and the palette.
func TestHeatmapScales(t *testing.T) {
	f := fonts(t)
	redBlue := []string{"#B2182B", "#EF8A62", "#FDDBC7", "#F7F7F7", "#D1E5F0", "#67A9CF", "#2166AC"}
	for _, tc := range []struct {
		name      string
		value     string
		vals      []float64
		palette   []string
		diverging bool
		mid       float64
		lowWarmer bool // the low end is warmer (redder) than the high end
	}{
		{"one-sided amounts: a ramp", "Sales", []float64{1, 5, 9, 3}, nil, false, 5, true},            // pale to deep blue
		{"both sides of zero: diverging at 0", "Change", []float64{-2, 5, 9, -1}, nil, true, 0, true}, // orange to blue
		{"red-blue asked: diverging at the middle", "Sales", []float64{1, 5, 9, 3}, redBlue, true, 5, true},
		{"red-blue across zero: centred on 0", "Correlation", []float64{-0.9, 0.2, 1, 0.4}, redBlue, true, 0, true},
		{"temperatures across zero: blue to red", "Temperature (°C)", []float64{-20, 5, 35, 10}, nil, true, 0, false},
		{"temperatures on red-blue: blue stays cold", "Temp", []float64{-20, 5, 35, 10}, redBlue, true, 0, false},
		{"warm temperatures: a heat ramp", "Mean temp", []float64{12, 20, 35, 28}, nil, false, 23.5, false},
	} {
		tb := table(txt("c1", "Row", "a", "b", "c", "d"), txt("c2", "Col", "x", "x", "y", "y"), num("c3", tc.value, tc.vals...))
		in := Input{Spec: testSpec("heatmap", nil, chartspec.Mapping{"x": chartspec.One("c2"), "y": chartspec.One("c1"), "value": chartspec.One("c3")}), Table: tb, Fonts: f}
		if tc.palette != nil {
			in.Spec.Style.Palette = tc.palette
		}
		roles, err := resolveRoles("heatmap", in.Spec.Mapping, tb)
		if err != nil {
			t.Fatal(err)
		}
		h := newHeatmap(newCanvas(in, 800, 600), roles)
		if h.diverging != tc.diverging || math.Abs(h.scale.mid-tc.mid) > 1e-9 {
			t.Errorf("%s: diverging %v around %v, want %v around %v", tc.name, h.diverging, h.scale.mid, tc.diverging, tc.mid)
		}
		lo, hi := h.scale.at(h.scale.lo), h.scale.at(h.scale.hi)
		if got := warmth(lo) > warmth(hi); got != tc.lowWarmer {
			t.Errorf("%s: low end warmer %v (low %s, high %s)", tc.name, got, lo.Hex(), hi.Hex())
		}
		if tc.value == "Mean temp" && warmth(hi) < 0.5 {
			t.Errorf("%s: the hottest cell is %s, not a warm colour", tc.name, hi.Hex())
		}
	}
}

// TestWholeNumberBins: whole numbers get a bin each, centred on them, and
// never share the last bin with its lower neighbours.
func TestWholeNumberBins(t *testing.T) {
	kids := []float64{0, 0, 1, 1, 1, 2, 2, 2, 3, 4, 5, 6, 6}
	edges, rule := histogramBins(kids, 0)
	if rule != ruleUnit || len(edges) != 8 || edges[0] != -0.5 || edges[7] != 6.5 {
		t.Fatalf("0–6: %s %v", rule, edges)
	}
	if got := binCounts(kids, edges); got[5] != 1 || got[6] != 2 {
		t.Errorf("5 and 6 counted %v", got)
	}
	// wide whole numbers: round edges, and the maximum a bin of its own
	var scores []float64
	for i := range 200 {
		scores = append(scores, float64((i*37)%101))
	}
	slices.Sort(scores)
	edges, rule = histogramBins(scores, 0)
	if rule == ruleUnit || edges[0] != 0 || edges[len(edges)-1] <= 100 {
		t.Errorf("0–100: %s %v", rule, edges)
	}
	// fractions keep the rule's own bins
	if _, rule := histogramBins([]float64{0.5, 1.25, 2.5, 3.75, 4.5, 5.25}, 0); rule == ruleUnit {
		t.Error("fractions got unit bins")
	}
}

// TestAbbreviateMonths: English month names shorten to three letters;
// anything else is left alone.
func TestAbbreviateMonths(t *testing.T) {
	got, ok := abbreviateMonths([]string{"January", "Sept.", "december", "May"})
	if !ok || strings.Join(got, ",") != "Jan,Sep,Dec,May" {
		t.Errorf("got %v %v", got, ok)
	}
	if _, ok := abbreviateMonths([]string{"Jan", "Feb"}); ok {
		t.Error("already short names were shortened")
	}
	if _, ok := abbreviateMonths([]string{"January", "Marchmont"}); ok {
		t.Error("a word that is no month was taken for one")
	}
}
