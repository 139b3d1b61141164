package draw

import (
	"bytes"
	"encoding/xml"
	"flag"
	"fmt"
	"io"
	"math"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

var update = flag.Bool("update", false, "rewrite the golden SVGs in testdata/")

// goldenCase is one picture under test.
type goldenCase struct {
	name string
	in   Input
}

// goldenCases lists every chart type and variant plus the edge cases.
func goldenCases(f *Fonts) []goldenCase {
	var cases []goldenCase
	add := caseAdder(f, &cases)
	titled := style(func(s *chartspec.Style) {
		s.Title = chartspec.Text{Show: true, Text: "Sales by country"}
		s.Subtitle = chartspec.Text{Show: true, Text: "Net sales in euros, 2024"}
	})
	labels := style(func(s *chartspec.Style) { s.Labels.Show = true })
	r := rng()

	// bar
	c10 := countries(10)
	sales := []float64{4200000, 3100000, 2650000, 2100000, 1500000, 1320000, 990000, 870000, 640000, 410000}
	profit := []float64{820000, 510000, 600000, 330000, 290000, 250000, 140000, 200000, 90000, 60000}
	cost := []float64{1200000, 900000, 800000, 700000, 600000, 500000, 400000, 300000, 200000, 100000}
	barT := func() *dataset.Table {
		return table(txt("c1", "Country", c10...), num("c2", "Sales", sales...), num("c3", "Profit", profit...), num("c4", "Cost", cost...))
	}
	one := chartspec.Mapping{"category": chartspec.One("c1"), "values": chartspec.Many("c2")}
	three := chartspec.Mapping{"category": chartspec.One("c1"), "values": chartspec.Many("c2", "c3", "c4")}
	add("bar-vertical", testSpec("bar", nil, one), barT(), titled)
	add("bar-vertical-labels", testSpec("bar", nil, one), barT(), titled, labels)
	add("bar-horizontal", testSpec("bar", map[string]any{"orientation": "horizontal"}, one), barT(), titled, labels)
	add("bar-grouped", testSpec("bar", nil, three), barT(), titled)
	add("bar-grouped-labels", testSpec("bar", nil, chartspec.Mapping{"category": chartspec.One("c1"), "values": chartspec.Many("c2", "c3")}), table(txt("c1", "Country", c10[:5]...), num("c2", "Sales", sales[:5]...), num("c3", "Profit", profit[:5]...)), titled, labels)
	add("bar-stacked", testSpec("bar", map[string]any{"stack": "stacked"}, three), barT(), titled, labels)
	add("bar-percent", testSpec("bar", map[string]any{"stack": "percent"}, three), barT(), titled, labels)
	add("bar-horizontal-stacked", testSpec("bar", map[string]any{"orientation": "horizontal", "stack": "stacked"}, three), barT(), titled,
		style(func(s *chartspec.Style) { s.Legend.Position = chartspec.Position{X: "center", Y: "bottom"} }))
	add("bar-negatives", testSpec("bar", nil, nil), table(txt("c1", "Quarter", "Q1", "Q2", "Q3", "Q4", "Q5", "Q6"),
		num("c2", "Change", 12.5, -8.25, 3, -15.75, 22, 0)), labels, style(func(s *chartspec.Style) {
		s.Title = chartspec.Text{Show: true, Text: "Quarterly change"}
		s.NumberFormat = &chartspec.NumberFormat{Suffix: "%"}
	}))
	add("bar-auto-mapping", testSpec("bar", nil, nil), barT())
	add("bar-40-categories", testSpec("bar", nil, nil), table(txt("c1", "Country", countries(40)...), num("c2", "Population", series(r, 40, 5e6, 4.5e6)...)), titled)
	longNames := []string{"Department of Transportation and Infrastructure", "Ministry of Finance", "Health and Human Services Agency",
		"Education", "Office of the Chief Information Officer and Digital Services", "Parks", "Environmental Protection and Climate Resilience"}
	add("bar-long-labels", testSpec("bar", nil, nil), table(txt("c1", "Agency", longNames...), num("c2", "Budget", 950, 2300, 1800, 1250, 430, 120, 760)), titled)
	add("bar-long-labels-horizontal", testSpec("bar", map[string]any{"orientation": "horizontal"}, nil), table(txt("c1", "Agency", longNames...), num("c2", "Budget", 950, 2300, 1800, 1250, 430, 120, 760)), labels)
	var twelve []*dataset.Column
	twelve = append(twelve, txt("c1", "Region", "North", "South", "East", "West"))
	for i := 0; i < 12; i++ {
		twelve = append(twelve, num(fmt.Sprintf("c%d", i+2), fmt.Sprintf("Product %c", 'A'+i), series(r, 4, 50, 40)...))
	}
	add("bar-12-series", testSpec("bar", nil, nil), table(twelve...), titled)
	add("bar-one-row", testSpec("bar", nil, nil), table(txt("c1", "Country", "Germany"), num("c2", "Sales", 4200000)), titled, labels)
	add("bar-all-blank", testSpec("bar", nil, nil), table(txt("c1", "Country", "A", "B", "C"), num("c2", "Sales", nan, nan, nan)), titled)
	add("bar-some-blank", testSpec("bar", nil, nil), table(txt("c1", "Country", "A", "B", "C", "D"), num("c2", "Sales", 10, nan, 30, 0)), labels)
	add("bar-non-latin", testSpec("bar", nil, nil), table(txt("c1", "都市", "東京", "北京市", "서울특별시", "القاهرة", "Москва", "🚀 Launch", "São Paulo"),
		num("c2", "人口", 37400000, 21500000, 9700000, 21300000, 12600000, 500000, 22400000)), labels,
		style(func(s *chartspec.Style) {
			s.Title = chartspec.Text{Show: true, Text: "世界の都市 — 人口 🌍"}
		}))
	months := []string{"2023-01", "2023-02", "2023-03", "2023-04", "2023-05", "2023-06", "2023-07", "2023-08", "2023-09", "2023-10", "2023-11", "2023-12", "2024-01", "2024-02", "2024-03"}
	add("bar-date-categories", testSpec("bar", nil, nil), table(dates("c1", "Month", dataset.UnitMonth, months...), num("c2", "Orders", series(r, 15, 1200, 400)...)))
	add("bar-legend-middle-left", testSpec("bar", nil, three), barT(), style(func(s *chartspec.Style) {
		s.Legend.Position = chartspec.Position{X: "left", Y: "middle"}
		s.XAxisTitle = &chartspec.AxisTitle{Text: "Country"}
		s.YAxisTitle = &chartspec.AxisTitle{Text: "Euros"}
	}))
	add("bar-palette-series-colors", testSpec("bar", nil, three), barT(), style(func(s *chartspec.Style) {
		s.Palette = []string{"#264653", "#2A9D8F", "#E9C46A"}
		s.SeriesColors = map[string]string{"c4": "#E76F51", "c3": "not a colour"}
	}))

	// line
	days := make([]string, 0, 60)
	for d := 0; d < 60; d++ {
		days = append(days, time.Date(2024, 1, 1+d, 0, 0, 0, 0, time.UTC).Format("2006-01-02"))
	}
	add("line-dates", testSpec("line", nil, nil), table(dates("c1", "Month", dataset.UnitMonth, months...),
		num("c2", "Revenue", series(r, 15, 34000, 9000)...), num("c3", "Costs", series(r, 15, 21000, 5000)...)), titled)
	add("line-days", testSpec("line", map[string]any{"curve": "smooth"}, nil), table(dates("c1", "Day", dataset.UnitDay, days...), num("c2", "Visitors", series(r, 60, 900, 400)...)))
	add("line-number-x", testSpec("line", map[string]any{"markers": true}, nil), table(num("c1", "Speed (km/h)", 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120),
		num("c2", "Fuel use", 9.1, 6.8, 5.6, 5.0, 4.7, 4.6, 4.8, 5.2, 5.9, 6.7, 7.6, 8.7)), labels)
	add("line-step", testSpec("line", map[string]any{"curve": "step", "markers": true}, nil), table(dates("c1", "Year", dataset.UnitYear, "2015", "2016", "2017", "2018", "2019", "2020", "2021", "2022", "2023", "2024"),
		num("c2", "Rate", 0.5, 0.75, 1.5, 2.5, 1.75, 0.25, 0.25, 4.5, 5.5, 4.75)), style(func(s *chartspec.Style) {
		s.YAxis = &chartspec.Axis{TickFormat: "number"}
		s.NumberFormat = &chartspec.NumberFormat{Suffix: "%", Decimals: new(int)}
	}))
	add("line-gaps", testSpec("line", nil, nil), table(dates("c1", "Month", dataset.UnitMonth, months...),
		num("c2", "Sensor A", 5, 6, nan, 8, 9, 7, nan, nan, 4, 5, 6, nan, 8, 9, 10),
		num("c3", "Sensor B", 3, nan, 5, nan, 4, 5, 6, 7, 8, nan, nan, nan, nan, 6, 5)))
	add("line-text-x", testSpec("line", map[string]any{"curve": "smooth"}, nil), table(txt("c1", "Day", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"),
		num("c2", "Steps", 8200, 9100, 7600, 10300, 6900, 13400, 4100)), labels)
	add("line-negatives", testSpec("line", nil, nil), table(num("c1", "Hour", 0, 3, 6, 9, 12, 15, 18, 21, 24), num("c2", "Temperature", -8.5, -11.2, -9.8, -3.1, 1.9, 2.4, -1.5, -5.7, -7.9)))
	add("line-log", testSpec("line", nil, nil), table(dates("c1", "Year", dataset.UnitYear, "2016", "2017", "2018", "2019", "2020", "2021", "2022", "2023", "2024"),
		num("c2", "Users", 120, 900, 4300, 21000, 160000, 900000, 3100000, 11000000, 52000000)), style(func(s *chartspec.Style) { s.YAxis = &chartspec.Axis{Log: true} }))
	tenKv := make([]float64, 10000)
	walk := 100.0
	for i := range tenKv {
		walk += r.NormFloat64()
		tenKv[i] = math.Round(walk*100) / 100
	}
	ms := make([]float64, 10000)
	for i := range ms {
		ms[i] = 1577836800000 + float64(i)*60000
	}
	add("line-10000-rows", testSpec("line", nil, nil), table(&dataset.Column{ID: "c1", Name: "Time", Kind: dataset.Date, DateUnit: dataset.UnitTime, Num: ms}, num("c2", "Price", tenKv...)))
	add("line-one-row", testSpec("line", nil, nil), table(dates("c1", "Day", dataset.UnitDay, "2024-05-01"), num("c2", "Value", 42)))
	add("line-axis-range", testSpec("line", nil, nil), table(num("c1", "x", 0, 1, 2, 3, 4, 5, 6, 7, 8), num("c2", "y", 5, 12, 30, 55, 80, 120, 60, 20, 2)),
		style(func(s *chartspec.Style) { s.YAxis = &chartspec.Axis{Min: ptr(10), Max: ptr(100)} }))

	// pie
	browsers := table(txt("c1", "Browser", "Chrome", "Safari", "Edge", "Firefox", "Samsung Internet", "Opera", "Other"), num("c2", "Share", 64.7, 18.6, 5.2, 2.8, 2.5, 2.2, 4.0))
	add("pie", testSpec("pie", nil, nil), browsers, titled)
	add("pie-labels", testSpec("pie", nil, nil), browsers, labels)
	add("pie-donut", testSpec("pie", map[string]any{"donut": 0.6}, nil), browsers, labels, style(func(s *chartspec.Style) { s.Legend.Show = chartspec.On }))
	add("pie-one-row", testSpec("pie", map[string]any{"donut": 0.5}, nil), table(txt("c1", "Kind", "All"), num("c2", "Count", 12)))
	var many []string
	manyV := make([]float64, 24)
	for i := range manyV {
		many = append(many, fmt.Sprintf("Segment %d", i+1))
		manyV[i] = math.Round(1000 / float64(i+1))
	}
	add("pie-24-slices", testSpec("pie", nil, nil), table(txt("c1", "Segment", many...), num("c2", "Value", manyV...)), labels)
	add("pie-negatives-blanks", testSpec("pie", nil, nil), table(txt("c1", "Item", "A", "B", "C", "D", "E"), num("c2", "Value", 30, -10, nan, 0, 70)), labels)
	add("pie-non-latin", testSpec("pie", nil, nil), table(txt("c1", "Fruit", "りんご", "바나나", "برتقال", "Груша", "🍇 grapes"), num("c2", "Kg", 40, 25, 15, 12, 8)), labels)

	// scatter
	n := 200
	hx, hy, age, grp := make([]float64, n), make([]float64, n), make([]float64, n), make([]string, n)
	for i := 0; i < n; i++ {
		g := i % 3
		grp[i] = []string{"Adélie", "Chinstrap", "Gentoo"}[g]
		hx[i] = math.Round((190+float64(g)*12+r.NormFloat64()*7)*10) / 10
		hy[i] = math.Round((3700+float64(g)*700+(hx[i]-190)*30+r.NormFloat64()*250)*1) / 1
		age[i] = math.Round(1 + r.Float64()*20)
	}
	pen := func() *dataset.Table {
		return table(num("c1", "Flipper length (mm)", hx...), num("c2", "Body mass (g)", hy...), num("c3", "Age", age...), txt("c4", "Species", grp...))
	}
	add("scatter", testSpec("scatter", nil, chartspec.Mapping{"x": chartspec.One("c1"), "y": chartspec.One("c2"), "group": chartspec.Ref{}}), pen(), titled)
	add("scatter-groups", testSpec("scatter", nil, nil), pen())
	add("scatter-size", testSpec("scatter", map[string]any{"opacity": 0.6}, chartspec.Mapping{"x": chartspec.One("c1"), "y": chartspec.One("c2"), "size": chartspec.One("c3"), "group": chartspec.One("c4")}), pen(),
		style(func(s *chartspec.Style) { s.Legend.Position = chartspec.Position{X: "right", Y: "middle"} }))
	bigScatter := func(n int) *dataset.Table {
		rr := rng()
		x, y := make([]float64, n), make([]float64, n)
		for i := range x {
			x[i] = math.Round(rr.NormFloat64()*1000) / 100
			y[i] = math.Round((x[i]*0.8+rr.NormFloat64()*6)*100) / 100
		}
		return table(num("c1", "x", x...), num("c2", "y", y...))
	}
	add("scatter-10000-rows", testSpec("scatter", map[string]any{"pointSize": 2, "opacity": 0.3}, nil), bigScatter(10000))
	add("scatter-labels-blanks", testSpec("scatter", nil, nil), table(num("c1", "x", 1, 2, nan, 4, 5, 6), num("c2", "y", 2.5, nan, 3, 8.25, 6, 7.5)), labels)

	// histogram
	ages := make([]float64, 500)
	for i := range ages {
		ages[i] = math.Round(38 + r.NormFloat64()*12)
	}
	add("histogram-auto", testSpec("histogram", nil, nil), table(num("c1", "Age", ages...)), titled)
	add("histogram-bins-8", testSpec("histogram", map[string]any{"bins": 8.0}, nil), table(num("c1", "Age", ages...)), labels)
	add("histogram-one-value", testSpec("histogram", nil, nil), table(num("c1", "Score", 7, 7, 7)), labels)
	skew := make([]float64, 10000)
	for i := range skew {
		skew[i] = math.Round(math.Exp(r.NormFloat64()*0.6+3) * 100)
	}
	add("histogram-10000-rows", testSpec("histogram", nil, nil), table(num("c1", "Order value", skew...)), style(func(s *chartspec.Style) {
		s.NumberFormat = &chartspec.NumberFormat{Prefix: "$"}
	}))

	// boxplot
	depts := make([]string, 0, 240)
	salary := make([]float64, 0, 240)
	for i := 0; i < 240; i++ {
		d := i % 4
		depts = append(depts, []string{"Engineering", "Sales", "Support", "Marketing"}[d])
		v := []float64{120000, 85000, 56000, 78000}[d] + r.NormFloat64()*[]float64{18000, 22000, 7000, 12000}[d]
		if i%37 == 0 {
			v *= 1.9
		}
		salary = append(salary, math.Round(v))
	}
	box := func() *dataset.Table { return table(txt("c1", "Department", depts...), num("c2", "Salary", salary...)) }
	add("boxplot", testSpec("boxplot", nil, nil), box(), titled)
	add("boxplot-horizontal", testSpec("boxplot", map[string]any{"orientation": "horizontal"}, nil), box(), labels)
	add("boxplot-no-group", testSpec("boxplot", nil, chartspec.Mapping{"value": chartspec.One("c2"), "group": chartspec.Ref{}}), box())

	// dotplot
	teams := []string{"Aurora", "Borealis", "Cascade", "Drift", "Ember", "Fjord", "Glacier", "Harbor"}
	add("dotplot", testSpec("dotplot", nil, nil), table(txt("c1", "Team", teams...), num("c2", "Score", series(r, 8, 70, 25)...)), titled, labels)
	add("dotplot-two-series", testSpec("dotplot", nil, nil), table(txt("c1", "Team", teams...), num("c2", "2023", series(r, 8, 60, 20)...), num("c3", "2024", series(r, 8, 75, 20)...)), titled)
	add("dotplot-vertical", testSpec("dotplot", map[string]any{"orientation": "vertical"}, nil), table(txt("c1", "Team", teams...), num("c2", "2023", series(r, 8, 60, 20)...), num("c3", "2024", series(r, 8, 75, 20)...)), labels)

	// sankey
	energy := func() *dataset.Table {
		return table(
			txt("c1", "From", "Coal", "Gas", "Nuclear", "Wind", "Solar", "Hydro", "Coal", "Gas", "Electricity", "Electricity", "Electricity", "Gas", "Oil", "Oil", "Losses"),
			txt("c2", "To", "Electricity", "Electricity", "Electricity", "Electricity", "Electricity", "Electricity", "Industry", "Homes", "Homes", "Industry", "Transport", "Industry", "Transport", "Industry", "Heat"),
			num("c3", "TWh", 120, 160, 90, 75, 40, 25, 35, 110, 180, 210, 30, 45, 260, 40, 0))
	}
	add("sankey", testSpec("sankey", nil, nil), energy(), titled)
	add("sankey-alphabetical-labels", testSpec("sankey", map[string]any{"nodeSort": "alphabetical"}, nil), energy(), labels)
	add("sankey-cycle", testSpec("sankey", nil, nil), table(txt("c1", "Source", "A", "B", "C", "A", "D"), txt("c2", "Target", "B", "C", "A", "D", "D"), num("c3", "Flow", 10, 8, 5, 4, 3)), labels)

	// radar
	skills := []string{"Speed", "Strength", "Stamina", "Technique", "Tactics", "Teamwork"}
	add("radar", testSpec("radar", nil, nil), table(txt("c1", "Skill", skills...), num("c2", "Player A", 82, 64, 90, 71, 55, 88), num("c3", "Player B", 60, 85, 70, 80, 90, 65)), titled)
	add("radar-no-fill-labels", testSpec("radar", map[string]any{"fill": false}, nil), table(txt("c1", "Skill", skills...), num("c2", "Player A", 82, 64, nan, 71, 55, 88)), labels)

	// heatmap
	dayNames := []string{"Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"}
	var hx2, hy2 []string
	var hv []float64
	for d, day := range dayNames {
		for h := 6; h <= 22; h += 2 {
			hx2 = append(hx2, fmt.Sprintf("%02d:00", h))
			hy2 = append(hy2, day)
			hv = append(hv, math.Round(20+15*math.Sin(float64(h)/4)+float64(d*3)+r.Float64()*8))
		}
	}
	add("heatmap", testSpec("heatmap", nil, nil), table(txt("c1", "Hour", hx2...), txt("c2", "Day", hy2...), num("c3", "Visits", hv...)), titled)
	add("heatmap-labels", testSpec("heatmap", nil, nil), table(txt("c1", "Hour", hx2...), txt("c2", "Day", hy2...), num("c3", "Visits", hv...)), labels,
		style(func(s *chartspec.Style) { s.Legend.Position = chartspec.Position{X: "right", Y: "middle"} }))
	delta := make([]float64, len(hv))
	for i, v := range hv {
		delta[i] = v - 32
	}
	delta[5] = nan
	add("heatmap-diverging", testSpec("heatmap", map[string]any{"colorScale": "diverging"}, nil), table(txt("c1", "Hour", hx2...), txt("c2", "Day", hy2...), num("c3", "Change", delta...)),
		style(func(s *chartspec.Style) { s.Legend.Position = chartspec.Position{X: "center", Y: "bottom"} }))

	// issue 13: per-type defects, each with the picture that shows it fixed
	vars := []string{"MPG", "Cylinders", "Displacement", "Horsepower", "Weight", "Acceleration"}
	corr := [][]float64{{1, -0.85, -0.85, -0.78, -0.83, 0.42}, {-0.85, 1, 0.95, 0.84, 0.9, -0.5}, {-0.85, 0.95, 1, 0.9, 0.93, -0.54},
		{-0.78, 0.84, 0.9, 1, 0.86, -0.69}, {-0.83, 0.9, 0.93, 0.86, 1, -0.42}, {0.42, -0.5, -0.54, -0.69, -0.42, 1}}
	var cv1, cv2 []string
	var cvv []float64
	for i, a := range vars {
		for j, b := range vars {
			cv1, cv2, cvv = append(cv1, a), append(cv2, b), append(cvv, corr[i][j])
		}
	}
	cvv[4] = nan // MPG × Weight left blank: hatched, named in the legend
	add("heatmap-correlation-red-blue", testSpec("heatmap", map[string]any{"colorScale": "diverging"}, chartspec.Mapping{"x": chartspec.One("c2"), "y": chartspec.One("c1"), "value": chartspec.One("c3")}),
		table(txt("c1", "Variable", cv1...), txt("c2", "Compared with", cv2...), num("c3", "Correlation", cvv...)), labels,
		style(func(s *chartspec.Style) {
			s.Palette = []string{"#B2182B", "#EF8A62", "#FDDBC7", "#F7F7F7", "#D1E5F0", "#67A9CF", "#2166AC"}
			s.Title = chartspec.Text{Show: true, Text: "Heavier cars use more fuel"}
		}))
	add("sankey-long-flows", testSpec("sankey", nil, nil), table(
		txt("c1", "From", "Salary", "Salary", "Salary", "Bonus", "Bonus", "Income", "Income", "Income", "Housing", "Housing", "Savings", "Savings", "Savings"),
		txt("c2", "To", "Income", "Savings", "Taxes", "Income", "Pension", "Housing", "Living", "Savings", "Rent", "Utilities", "Stocks", "Bonds", "Cash"),
		num("c3", "€k", 52, 6, 22, 8, 4, 20, 28, 12, 16, 4, 9, 5, 4)), titled)
	var pie25 []string
	pie25v := make([]float64, 25)
	for i := range pie25v {
		pie25 = append(pie25, fmt.Sprintf("Region %c", 'A'+i))
		pie25v[i] = math.Round(100 + 900*math.Abs(math.Sin(float64(i)*1.7)))
	}
	pie25v[3], pie25v[7], pie25v[11] = 4200, -150, nan
	add("pie-25-slices-unsorted", testSpec("pie", nil, nil), table(txt("c1", "Region", pie25...), num("c2", "Sales", pie25v...)), titled)
	odd := make([]float64, 300)
	// A generator of its own: the shared r feeds the cases below, whose
	// pictures must not change when a case is added here.
	rOdd := rng()
	for i := range odd {
		odd[i] = math.Round((0.05+math.Abs(rOdd.NormFloat64())*0.8)*1000) / 1000
	}
	add("histogram-nice-bins", testSpec("histogram", map[string]any{"bins": 8.0}, nil), table(num("c1", "Response time (s)", odd...)), labels)
	axes24 := make([]string, 24)
	ra, rb := make([]float64, 24), make([]float64, 24)
	for i := range axes24 {
		axes24[i] = fmt.Sprintf("%02d:00 shift", i)
		ra[i] = math.Round(60 + 30*math.Sin(float64(i)/3))
		rb[i] = math.Round(50 + 25*math.Cos(float64(i)/4))
	}
	ra[5], ra[6], rb[17] = nan, nan, nan
	add("radar-24-axes-gaps", testSpec("radar", nil, nil), table(txt("c1", "Hour", axes24...), num("c2", "Plant A", ra...), num("c3", "Plant B", rb...)), titled)

	// more edge cases across types
	add("dotplot-40-categories", testSpec("dotplot", nil, nil), table(txt("c1", "Country", countries(40)...), num("c2", "Score", series(r, 40, 60, 35)...)))
	add("pie-all-blank", testSpec("pie", nil, nil), table(txt("c1", "Kind", "a", "b"), num("c2", "Count", nan, nan)), titled)
	add("sankey-one-row", testSpec("sankey", nil, nil), table(txt("c1", "From", "Budget"), txt("c2", "To", "Spent"), num("c3", "Amount", 1200)), labels)
	add("heatmap-one-row", testSpec("heatmap", nil, nil), table(txt("c1", "x", "Mon"), txt("c2", "y", "9:00"), num("c3", "Value", 3)), labels)
	add("boxplot-one-row", testSpec("boxplot", nil, nil), table(txt("c1", "Group", "A"), num("c2", "Value", 42)), labels)
	var lines12 []*dataset.Column
	lines12 = append(lines12, dates("c1", "Month", dataset.UnitMonth, months...))
	for i := 0; i < 12; i++ {
		lines12 = append(lines12, num(fmt.Sprintf("c%d", i+2), fmt.Sprintf("Store %d", i+1), series(r, 15, 100+float64(i)*20, 15)...))
	}
	add("line-12-series", testSpec("line", nil, nil), table(lines12...), titled, style(func(s *chartspec.Style) { s.Legend.Position = chartspec.Position{X: "right", Y: "middle"} }))
	add("radar-12-series", testSpec("radar", map[string]any{"fill": false}, nil), table(twelve...), style(func(s *chartspec.Style) { s.Legend.Position = chartspec.Position{X: "center", Y: "bottom"} }))

	// canvas options
	add("style-watermark", testSpec("bar", nil, one), barT(), titled, func(in *Input) { in.Watermark = true })
	add("style-transparent", testSpec("pie", map[string]any{"donut": 0.5}, nil), browsers, func(in *Input) { in.Transparent = true })
	add("style-small-300x200", testSpec("line", nil, nil), table(dates("c1", "Month", dataset.UnitMonth, months...), num("c2", "Revenue", series(r, 15, 34000, 9000)...)),
		titled, func(in *Input) { in.Width, in.Height = 300, 200; in.Watermark = true })
	add("style-wide-1600x500", testSpec("bar", nil, three), barT(), titled, labels, style(func(s *chartspec.Style) { s.Size = "1600×500" }))
	add("style-long-title", testSpec("bar", nil, one), barT(), style(func(s *chartspec.Style) {
		s.Title = chartspec.Text{Show: true, Text: "A very long title that goes on and on about sales in many European countries over a number of years and does not stop"}
		s.Subtitle = chartspec.Text{Show: true, Text: "And a subtitle that is also rather long, explaining where the numbers come from and what was left out of them, in detail"}
	}))
	add("style-currency-compact", testSpec("bar", nil, one), table(txt("c1", "Country", c10...), &dataset.Column{ID: "c2", Name: "Sales", Kind: dataset.Number, Num: sales, Currency: "€"}), labels,
		style(func(s *chartspec.Style) { s.Legend.Show = chartspec.Off }))
	cases = append(cases, axesCases(f)...)
	cases = append(cases, numberCases(f)...)
	cases = append(cases, footerCases(f)...)
	cases = append(cases, scriptCases(f)...)
	cases = append(cases, paletteCases(f)...)
	cases = append(cases, kindCases(f)...)
	cases = append(cases, layoutCases(f)...)
	cases = append(cases, truthCases(f)...)
	cases = append(cases, issue32NumberCases(f)...)
	cases = append(cases, annotationCases(f)...)
	cases = append(cases, looksCases(f)...)
	return cases
}

// TestGolden draws every case, checks the document and compares it to testdata.
func TestGolden(t *testing.T) {
	f := fonts(t)
	seen := map[string]bool{}
	for _, tc := range goldenCases(f) {
		t.Run(tc.name, func(t *testing.T) {
			if seen[tc.name] {
				t.Fatalf("duplicate case name %s", tc.name)
			}
			seen[tc.name] = true
			got, err := SVG(tc.in)
			if err != nil {
				t.Fatalf("SVG: %v", err)
			}
			checkDocument(t, got)
			path := filepath.Join("testdata", tc.name+".svg")
			if *update {
				if err := os.WriteFile(path, got, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(path)
			if err != nil {
				t.Fatalf("read golden (run go test ./draw -update): %v", err)
			}
			if !bytes.Equal(got, want) {
				t.Errorf("%s differs from the golden file (%d vs %d bytes); review with tools/gallery and run go test ./draw -update", path, len(got), len(want))
			}
		})
	}
	if !*update {
		// no stale goldens: every file in testdata belongs to a case
		files, _ := filepath.Glob(filepath.Join("testdata", "*.svg"))
		for _, p := range files {
			if !seen[strings.TrimSuffix(filepath.Base(p), ".svg")] {
				t.Errorf("stale golden %s has no case", p)
			}
		}
	}
}

var (
	numberAttr = regexp.MustCompile(` (?:x|y|width|height|cx|cy|r|x1|x2|y1|y2)="([^"]*)"`)
)

// autoRoot reports an svg root of theme auto, which alone carries CSS.
func autoRoot(root *xml.StartElement) bool {
	for _, a := range root.Attr {
		if a.Name.Local == "class" && strings.HasSuffix(a.Value, "auto") {
			return true
		}
	}
	return false
}

// checkDocument asserts what every picture must be: well-formed XML with
// an accessible svg root, no external references and no NaN coordinates.
func checkDocument(t *testing.T, svg []byte) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var root *xml.StartElement
	var titleText, descText string
	var path []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not well-formed XML: %v", err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if root == nil {
				e := el.Copy()
				root = &e
			}
			path = append(path, el.Name.Local)
			if el.Name.Local == "style" && autoRoot(root) {
				break // an auto picture's theme CSS (autoStyle); its text is checked below
			}
			switch el.Name.Local {
			case "script", "style", "image", "use", "a", "foreignObject", "iframe", "feImage":
				t.Fatalf("active or external element <%s>", el.Name.Local)
			}
			for _, a := range el.Attr {
				v := strings.ToLower(a.Value)
				if strings.Contains(a.Name.Local, "href") || strings.HasPrefix(a.Name.Local, "on") ||
					strings.Contains(v, "url(") && !strings.HasPrefix(v, "url(#") || strings.Contains(v, "@import") || strings.Contains(v, "javascript:") {
					t.Fatalf("external reference or script in %s=%q", a.Name.Local, a.Value)
				}
			}
		case xml.Directive, xml.ProcInst:
			t.Fatalf("unexpected directive or processing instruction %q", el)
		case xml.EndElement:
			path = path[:len(path)-1]
		case xml.CharData:
			if n := len(path); n > 0 && path[n-1] == "style" && (bytes.Contains(el, []byte("url(")) || bytes.Contains(el, []byte("@import"))) {
				t.Fatalf("theme CSS loads something: %q", el)
			}
			if len(path) == 2 && path[1] == "title" {
				titleText += string(el)
			}
			if len(path) == 2 && path[1] == "desc" {
				descText += string(el)
			}
		}
	}
	if root == nil || root.Name.Local != "svg" {
		t.Fatal("root element is not <svg>")
	}
	attrs := map[string]string{}
	for _, a := range root.Attr {
		attrs[a.Name.Local] = a.Value
	}
	if attrs["role"] != "img" || attrs["aria-labelledby"] == "" {
		t.Errorf("root lacks role=img / aria-labelledby: %v", attrs)
	}
	// The root names Roboto and DejaVu Sans, then families of the stack
	// in stack order (the ones the text is drawn with).
	names := strings.Split(attrs["font-family"], ", ")
	stack := strings.Split(fonts(t).Family, ", ")
	if len(names) < 2 || names[0] != "'Roboto'" || names[1] != "'DejaVu Sans'" {
		t.Errorf("root font-family = %q, want 'Roboto', 'DejaVu Sans' first", attrs["font-family"])
	}
	for i, at := 0, 0; i < len(names); i++ {
		k := slices.Index(stack[at:], names[i])
		if k < 0 {
			t.Errorf("root font-family = %q: %s is not in the stack after %s", attrs["font-family"], names[i], stack[at-1])
			break
		}
		at += k + 1
	}
	if !bytes.Contains(svg, []byte(` font-family="'Roboto', 'DejaVu Sans'`)) {
		t.Error("the font-family list is not written with plain single quotes")
	}
	if strings.TrimSpace(titleText) == "" || strings.TrimSpace(descText) == "" {
		t.Errorf("title %q / desc %q must not be empty", titleText, descText)
	}
	if bytes.Contains(svg, []byte("sans-serif")) {
		t.Error("names a generic sans-serif font")
	}
	for _, m := range numberAttr.FindAllSubmatch(svg, -1) {
		if bytes.Contains(m[1], []byte("NaN")) || bytes.Contains(m[1], []byte("Inf")) {
			t.Fatalf("bad number in %s", m[0])
		}
	}
}
