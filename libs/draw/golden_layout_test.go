package draw

import (
	"fmt"
	"math"
	"math/rand/v2"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// layoutCases are the goldens of issue 32's layout items: every name
// shown, long names, labels that never overlap, outliers, small box
// plots, bubble size keys and pie shares. Each showed its defect on the
// code before.
func layoutCases(f *Fonts) []goldenCase {
	var cases []goldenCase
	add := caseAdder(f, &cases)
	r := rand.New(rand.NewPCG(32, 5))
	title := func(t string) func(*Input) {
		return style(func(s *chartspec.Style) { s.Title = chartspec.Text{Show: true, Text: t} })
	}
	labels := style(func(s *chartspec.Style) { s.Labels.Show = true })
	names := func(prefix string, n int) []string {
		out := make([]string, n)
		for i := range out {
			out[i] = fmt.Sprintf("%s %d", prefix, i+1)
		}
		return out
	}

	// item 5: every name shown, the canvas grows when no height is given
	add("layout-bar-50-rows-grow", testSpec("bar", map[string]any{"orientation": "horizontal"}, nil),
		table(txt("c1", "Station", names("Station", 50)...), num("c2", "Riders", series(r, 50, 5200, 4000)...)), title("Riders per station"))
	add("layout-bar-50-rows-fixed", testSpec("bar", map[string]any{"orientation": "horizontal"}, nil),
		table(txt("c1", "Station", names("Station", 50)...), num("c2", "Riders", series(r, 50, 5200, 4000)...)), title("Riders per station"),
		func(in *Input) { in.Height = 400 })
	var hx, hy []string
	var hv []float64
	for i := 0; i < 60; i++ {
		for _, m := range []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun"} {
			hy = append(hy, fmt.Sprintf("Sensor %02d", i+1))
			hx = append(hx, m)
			hv = append(hv, math.Round(r.Float64()*100))
		}
	}
	add("layout-heatmap-60-rows-grow", testSpec("heatmap", nil, chartspec.Mapping{"x": chartspec.One("c1"), "y": chartspec.One("c2"), "value": chartspec.One("c3")}),
		table(txt("c1", "Month", hx...), txt("c2", "Sensor", hy...), num("c3", "Reading", hv...)), title("Readings by sensor"))
	add("layout-dotplot-45-rows-grow", testSpec("dotplot", nil, nil),
		table(txt("c1", "Team", names("Team", 45)...), num("c2", "2023", series(r, 45, 60, 30)...), num("c3", "2024", series(r, 45, 62, 30)...)))

	// item 6: long names wrap, columns turn into bars when names are long
	parties := []string{"Christlich Demokratische Union Deutschlands", "Sozialdemokratische Partei Deutschlands", "Bündnis 90/Die Grünen",
		"Freie Demokratische Partei", "Alternative für Deutschland", "Christlich-Soziale Union in Bayern", "Die Linke", "Bündnis Sahra Wagenknecht – Vernunft und Gerechtigkeit"}
	seats := []float64{152, 120, 85, 0, 152, 44, 64, 0}
	add("layout-bar-party-names", testSpec("bar", nil, nil), table(txt("c1", "Partei", parties...), num("c2", "Sitze", seats...)), title("Sitze im Bundestag"))
	add("layout-bar-party-names-vertical", testSpec("bar", map[string]any{"orientation": "vertical"}, nil), table(txt("c1", "Partei", parties[:6]...), num("c2", "Sitze", seats[:6]...)),
		title("Sitze im Bundestag"), func(in *Input) {
			in.Spec.Options["orientationFixed"] = nil
			delete(in.Spec.Options, "orientationFixed")
		})
	var bg []string
	var bv []float64
	for i, p := range parties[:5] {
		for k := 0; k < 12; k++ {
			bg = append(bg, p)
			bv = append(bv, math.Round(40+float64(i)*5+r.NormFloat64()*10))
		}
	}
	add("layout-boxplot-long-groups", testSpec("boxplot", nil, nil), table(txt("c1", "Partei", bg...), num("c2", "Alter", bv...)))
	add("layout-pie-long-names", testSpec("pie", nil, nil), table(txt("c1", "Partei", parties[:6]...), num("c2", "Stimmen", 28.5, 16.4, 11.6, 4.3, 20.8, 6.0)), title("Zweitstimmen"))
	add("layout-legend-long-series", testSpec("line", nil, nil), table(dates("c1", "Jahr", dataset.UnitYear, "2019", "2020", "2021", "2022", "2023", "2024"),
		num("c2", parties[0], 30, 31, 24, 27, 30, 31), num("c3", parties[1], 17, 16, 25, 20, 16, 15), num("c4", parties[7], nan, nan, nan, nan, 4, 6)))

	// item 7: labels never overlap
	var lines []*dataset.Column
	var months []string
	for m := 1; m <= 15; m++ {
		months = append(months, fmt.Sprintf("%d-%02d", 2023+(m-1)/12, (m-1)%12+1))
	}
	lines = append(lines, dates("c1", "Month", dataset.UnitMonth, months...))
	for i := 0; i < 12; i++ {
		lines = append(lines, num(fmt.Sprintf("c%d", i+2), fmt.Sprintf("Store %d", i+1), series(r, 15, 100+float64(i)*8, 20)...))
	}
	add("layout-line-12x15-labels", testSpec("line", nil, nil), table(lines...), labels, title("Sales per store"))
	add("layout-bar-labels-300x200", testSpec("bar", nil, nil), table(txt("c1", "Region", "North", "South", "East", "West", "Central"),
		num("c2", "2023", 1234567, 987654, 1543210, 876543, 1111111), num("c3", "2024", 1299999, 1023456, 1498765, 912345, 1210000)),
		labels, func(in *Input) { in.Width, in.Height = 300, 200 })

	// item 8: outliers do not flatten the chart
	sx, sy := make([]float64, 61), make([]float64, 61)
	for i := 0; i < 60; i++ {
		sx[i] = math.Round(1000 + r.Float64()*9000)
		sy[i] = math.Round(sx[i]*0.3 + r.NormFloat64()*400)
	}
	sx[60], sy[60] = 1e9, 2500
	add("layout-scatter-1e9", testSpec("scatter", nil, nil), table(num("c1", "Turnover", sx...), num("c2", "Staff cost", sy...)), title("Turnover and staff cost"))
	inc := make([]float64, 1001)
	for i := 0; i < 1000; i++ {
		inc[i] = math.Round(math.Exp(10.4 + r.NormFloat64()*0.5))
	}
	inc[1000] = 5e6
	add("layout-histogram-5m-income", testSpec("histogram", nil, nil), table(num("c1", "Income", inc...)), title("Household income"))
	fx, fy := make([]float64, 60), make([]float64, 60)
	for i := range fx {
		fx[i] = math.Round(math.Pow(10, 3+r.Float64()*5))
		fy[i] = math.Round(fx[i] * (0.05 + r.Float64()*0.1))
	}
	add("layout-scatter-log-auto", testSpec("scatter", nil, nil), table(num("c1", "Revenue", fx...), num("c2", "Profit", fy...)), title("Firms of every size"))
	add("layout-bar-log-asked", testSpec("bar", nil, nil), table(txt("c1", "Firm", "Alpha", "Beta", "Gamma", "Delta", "Epsilon"), num("c2", "Revenue", 1200, 45000, 880000, 12e6, 310e6)),
		style(func(s *chartspec.Style) { s.YAxis = &chartspec.Axis{Log: true} }))

	// item 13: small box plots show their points and n
	var sg []string
	var sv []float64
	for g, n := range []int{3, 4, 2, 25} {
		for k := 0; k < n; k++ {
			sg = append(sg, fmt.Sprintf("Lab %c", 'A'+g))
			sv = append(sv, math.Round(50+r.NormFloat64()*12))
		}
	}
	add("layout-boxplot-small-n", testSpec("boxplot", nil, nil), table(txt("c1", "Lab", sg...), num("c2", "Result", sv...)), title("Results by lab"))

	// item 14: bubbles get a size key
	bx, by, bs := make([]float64, 20), make([]float64, 20), make([]float64, 20)
	for i := range bx {
		bx[i] = math.Round(20000 + r.Float64()*40000)
		by[i] = math.Round(60 + r.Float64()*25)
		bs[i] = math.Round(math.Exp(14 + r.Float64()*5))
	}
	add("layout-scatter-bubbles", testSpec("scatter", nil, chartspec.Mapping{"x": chartspec.One("c1"), "y": chartspec.One("c2"), "size": chartspec.One("c3")}),
		table(num("c1", "GDP per head", bx...), num("c2", "Life expectancy", by...), num("c3", "Population", bs...)), title("Richer, longer lives"))

	// item 18: pie shares on the slices
	add("layout-pie-shares", testSpec("pie", nil, nil), table(txt("c1", "Fuel", "Gas", "Coal", "Wind", "Solar", "Nuclear", "Hydro"), num("c2", "TWh", 120, 95, 140, 60, 30, 18)), title("Electricity by source"))
	add("layout-donut-shares", testSpec("pie", map[string]any{"donut": 0.55}, nil), table(txt("c1", "Browser", "Chrome", "Safari", "Edge", "Firefox", "Other"), num("c2", "Share", 64, 19, 5, 3, 9)))
	return cases
}
