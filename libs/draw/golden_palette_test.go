package draw

import (
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"regexp"
	"strings"
	"testing"

	"chartd.dev/charts"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// paletteCases are the goldens of issue 22's item 3 (a palette shorter
// than the series painted series 3 to n in one grey under a legend entry
// "Other: …") and of its small legend-order item: each would have shown
// its defect on the old code.
func paletteCases(f *Fonts) []goldenCase {
	var cases []goldenCase
	add := caseAdder(f, &cases)
	title := func(t, sub string) func(*Input) {
		return style(func(s *chartspec.Style) {
			s.Title = chartspec.Text{Show: true, Text: t}
			s.Subtitle = chartspec.Text{Show: true, Text: sub}
		})
	}
	palette := func(colors ...string) func(*Input) {
		return style(func(s *chartspec.Style) { s.Palette = colors })
	}
	// a brand palette of two colours, navy and orange
	brand := palette("#1F3A93", "#F28C28")
	r := rand.New(rand.NewPCG(22, 3))

	products := []string{"Basic", "Plus", "Pro", "Team", "Enterprise"}
	quarters := []string{"Q1", "Q2", "Q3", "Q4"}
	cols := []*dataset.Column{txt("c1", "Quarter", quarters...)}
	for i, p := range products {
		cols = append(cols, num(fmt.Sprintf("c%d", i+2), p, series(r, len(quarters), 60+float64(i)*12, 20)...))
	}
	add("bar-brand-2-colours-5-series", testSpec("bar", nil, nil), table(cols...), brand,
		title("Revenue by plan", "Two brand colours, five plans: each plan keeps a colour of its own"))

	months := []string{"2024-01", "2024-02", "2024-03", "2024-04", "2024-05", "2024-06", "2024-07", "2024-08", "2024-09", "2024-10", "2024-11", "2024-12"}
	lines := []*dataset.Column{dates("c1", "Month", dataset.UnitMonth, months...)}
	for i, p := range products {
		lines = append(lines, num(fmt.Sprintf("c%d", i+2), p, series(r, len(months), 100+float64(i)*35, 14)...))
	}
	add("line-brand-2-colours-5-series", testSpec("line", nil, nil), table(lines...), brand,
		title("Active users by plan", "Two brand colours, five plans"))

	twelve := []*dataset.Column{dates("c1", "Month", dataset.UnitMonth, months...)}
	for i := range 12 {
		twelve = append(twelve, num(fmt.Sprintf("c%d", i+2), fmt.Sprintf("Store %d", i+1), series(r, len(months), 80+float64(i)*22, 10)...))
	}
	add("line-12-series-3-colours", testSpec("line", nil, nil), table(twelve...), palette("#0B5394", "#E69138", "#6AA84F"),
		title("Sales by store", "Twelve stores, a palette of three: twelve distinct colours"),
		style(func(s *chartspec.Style) { s.Legend.Position = chartspec.Position{X: "right", Y: "middle"} }))

	add("pie-brand-2-colours-6-slices", testSpec("pie", nil, nil), table(txt("c1", "Channel", "Search", "Direct", "Social", "Email", "Referral", "Display"),
		num("c2", "Visits", 4200, 3100, 1900, 1200, 800, 500)), brand, title("Visits by channel", "Two brand colours, six named slices"))

	// the legend in natural order (4, 6, 8 cylinders), not the data's 6, 4, 8
	cars := parseCSV(`Model,Weight,MPG,Cylinders
Mazda RX4,2.62,21.0,6 cylinders
Datsun 710,2.32,22.8,4 cylinders
Hornet Sportabout,3.44,18.7,8 cylinders
Valiant,3.46,18.1,6 cylinders
Merc 240D,3.19,24.4,4 cylinders
Duster 360,3.57,14.3,8 cylinders
Fiat 128,2.20,32.4,4 cylinders
Cadillac Fleetwood,5.25,10.4,8 cylinders
Merc 280,3.44,19.2,6 cylinders
Toyota Corolla,1.84,33.9,4 cylinders
Camaro Z28,3.84,13.3,8 cylinders
Ferrari Dino,2.77,19.7,6 cylinders
`)
	scatter := chartspec.Mapping{"x": chartspec.One("c2"), "y": chartspec.One("c3"), "group": chartspec.One("c4")}
	// big points, so the swapped colours show in the PNG beyond its tolerance
	big := map[string]any{"pointSize": 12.0}
	add("scatter-groups-natural-order", testSpec("scatter", big, scatter), cars, title("Heavier cars go fewer miles per gallon", "Groups in natural order: 4, 6, 8 cylinders"))
	// a sort step by the group column is the user's order, and is kept
	sorted := testSpec("scatter", big, scatter)
	sorted.Steps = []json.RawMessage{json.RawMessage(`{"type":"sort","column":"c4","direction":"desc"}`)}
	add("scatter-groups-sorted-desc", sorted, sortedDesc(cars, "c4"), title("Heavier cars go fewer miles per gallon", "Sorted by cylinders, descending: 8, 6, 4"))
	return cases
}

// parseCSV reads a test table as set_data does.
func parseCSV(csv string) *dataset.Table {
	raw, _ := json.Marshal(csv)
	t, _, err := dataset.ParseRequest(raw, "csv")
	if err != nil {
		panic(err)
	}
	return t
}

// sortedDesc applies a descending sort step by column id, as the chart
// service does before drawing.
func sortedDesc(t *dataset.Table, id string) *dataset.Table {
	out, err := dataset.ApplyAll(t, []dataset.Step{&dataset.SortStep{Type: "sort", Column: id, Direction: "desc"}}, dataset.Defaults{})
	if err != nil {
		panic(err)
	}
	return out
}

// legendSwatch finds the colour of each legend key, in order.
var legendSwatch = regexp.MustCompile(`<(?:rect|circle|line)[^>]*? (?:fill|stroke)="(#[0-9A-F]{6})"`)

// TestLintSeesDrawnColours: for every golden whose legend names its
// series, the colours lint judges (chartspec.ChartSeries) are the colours
// drawn, key by key, past the palette's end too.
func TestLintSeesDrawnColours(t *testing.T) {
	cat, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	compared := 0
	for _, tc := range goldenCases(fonts(t)) {
		switch tc.in.Spec.Type {
		case "bar", "line", "dotplot", "radar", "scatter", "pie":
		default:
			continue
		}
		res, err := Render(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		if len(res.Notices) > 0 || tc.in.Spec.Highlight != nil {
			continue // rows reduced (a pie's Other slice, merged points), a legend of the highlighted only: not the data lint sees
		}
		svg := string(res.SVG)
		start := strings.Index(svg, `<g class="legend">`)
		if start < 0 {
			continue
		}
		end := start + strings.Index(svg[start:], `</g>`)
		var drawn []string
		for _, m := range legendSwatch.FindAllStringSubmatch(svg[start:end], -1) {
			drawn = append(drawn, m[1])
		}
		if n := len(drawn); n > 0 && drawn[n-1] == lightTheme().inkTitle && strings.Contains(svg[start:end], ">Net total<") {
			drawn = drawn[:n-1] // the net-total line's key names a mark, not a series
		}
		after, _ := tc.in.Spec.AfterSteps(tc.in.Table)
		spec := *tc.in.Spec
		if len(spec.Mapping) == 0 {
			// the service maps the columns when the chart is made; these
			// goldens leave it to draw, which maps them the same way
			ct, _ := cat.Type(spec.Type)
			spec.Mapping = chartspec.AutoMapping(ct, after)
		}
		series := chartspec.ChartSeries(&spec, after, len(drawn))
		if len(series) < len(drawn) {
			t.Errorf("%s: %d legend keys, lint sees %d series", tc.name, len(drawn), len(series))
			continue
		}
		compared++
		for i, c := range drawn {
			if series[i].Color != c {
				t.Errorf("%s: key %d (%s) drawn %s, lint judges %s", tc.name, i, series[i].Label, c, series[i].Color)
			}
		}
	}
	if compared < 20 {
		t.Fatalf("only %d goldens compared", compared)
	}
}
