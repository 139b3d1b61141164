package draw

import (
	"fmt"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// looksCases are issue 34's highlight, small multiples and themes, one
// picture per chart type and feature (the raster package draws each to
// PNG: testdata/png/issue34).
func looksCases(f *Fonts) []goldenCase {
	var cases []goldenCase
	add := caseAdder(f, &cases)
	title := func(t, sub string) func(*Input) {
		return style(func(s *chartspec.Style) {
			s.Title = chartspec.Text{Show: true, Text: t}
			s.Subtitle = chartspec.Text{Show: sub != "", Text: sub}
		})
	}
	hlCats := func(names ...string) func(*Input) {
		return func(in *Input) { in.Spec.Highlight = &chartspec.Highlight{Categories: names} }
	}
	hlSeries := func(ids ...string) func(*Input) {
		return func(in *Input) { in.Spec.Highlight = &chartspec.Highlight{Series: ids} }
	}
	themed := func(th string) func(*Input) { return func(in *Input) { in.Spec.Theme = th } }
	facet := func(col, scales string, columns int) func(*Input) {
		return func(in *Input) { in.Spec.Facet = &chartspec.Facet{Column: col, Scales: scales, Columns: columns} }
	}
	r := rng()

	// highlight: one per type that takes it
	add("looks-bar-highlight", testSpec("bar", nil, nil), looksBarTable(), hlCats("Italy"),
		title("Italy sold a quarter of the total", "Sales in € million, 2024"))
	add("looks-line-highlight", testSpec("line", nil, nil), looksLineTable(), hlSeries("c3"),
		title("France recovered slowest after 2020", "Index"))
	add("looks-pie-highlight", testSpec("pie", nil, nil), table(txt("c1", "Browser", "Chrome", "Safari", "Edge", "Firefox", "Other"), num("c2", "Share", 64, 19, 5, 3, 9)),
		hlCats("Safari"), title("Safari holds a fifth of the market", ""))
	add("looks-scatter-highlight", testSpec("scatter", nil, nil), table(
		num("c1", "GDP per head", series(r, 24, 40, 25)...), num("c2", "Life expectancy", series(r, 24, 78, 5)...),
		txt("c3", "Region", repeatEach([]string{"Europe", "Asia", "Americas", "Africa"}, 6)...)),
		func(in *Input) {
			in.Spec.Mapping = chartspec.Mapping{"x": chartspec.One("c1"), "y": chartspec.One("c2"), "group": chartspec.One("c3")}
		}, hlCats("Asia"), title("Asia's countries among the rest", ""))
	add("looks-boxplot-highlight", testSpec("boxplot", nil, nil), table(
		txt("c1", "Team", repeatEach([]string{"North", "South", "East", "West"}, 12)...), num("c2", "Days to close", series(r, 48, 20, 12)...)),
		hlCats("East"), title("East closes tickets fastest", ""))
	add("looks-dotplot-highlight", testSpec("dotplot", nil, nil), table(txt("c1", "Country", countries(8)...),
		num("c2", "2014", series(r, 8, 60, 15)...), num("c3", "2024", series(r, 8, 70, 15)...)),
		hlSeries("c3"), title("Where 2024 stands", ""))
	add("looks-radar-highlight", testSpec("radar", nil, nil), table(txt("c1", "Skill", "Speed", "Power", "Range", "Armour", "Stealth", "Cost"),
		num("c2", "Model A", 7, 5, 6, 4, 8, 6), num("c3", "Model B", 5, 8, 4, 7, 3, 5), num("c4", "Model C", 6, 6, 8, 5, 5, 7)),
		hlSeries("c4"), title("Model C has the longest range", ""))

	// dark: one per type
	add("looks-bar-dark", testSpec("bar", nil, nil), looksBarTable(), themed(chartspec.ThemeDark), title("Sales by country", "€ million, 2024"),
		style(func(s *chartspec.Style) { s.Labels.Show = true }))
	add("looks-line-dark", testSpec("line", nil, nil), looksLineTable(), themed(chartspec.ThemeDark), title("Four economies since 2017", "Index"))
	add("looks-pie-dark", testSpec("pie", map[string]any{"donut": 0.5}, nil), table(txt("c1", "Browser", "Chrome", "Safari", "Edge", "Firefox", "Other"), num("c2", "Share", 64, 19, 5, 3, 9)),
		themed(chartspec.ThemeDark), title("Browser share", ""))
	add("looks-heatmap-dark", testSpec("heatmap", nil, nil), table(txt("c1", "Day", "Mon", "Tue", "Wed", "Thu", "Fri"),
		num("c2", "Morning", 12, 15, 11, 18, 9), num("c3", "Noon", 30, 28, 35, 31, 26), num("c4", "Evening", 22, 19, 25, 27, 33)),
		themed(chartspec.ThemeDark), title("Visits by time of day", ""))
	add("looks-bar-highlight-dark", testSpec("bar", nil, nil), looksBarTable(), hlCats("Italy"), themed(chartspec.ThemeDark),
		title("Italy sold a quarter of the total", "Sales in € million, 2024"))
	add("looks-line-auto", testSpec("line", nil, nil), looksLineTable(), themed(chartspec.ThemeAuto), title("Follows the reader's light or dark page", ""))

	// small multiples
	regions := []string{"North", "South", "East", "West", "Centre", "Coast"}
	months := []string{"Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"}
	var reg, mon []string
	var sales []float64
	for i, g := range regions {
		for j, m := range months {
			reg, mon = append(reg, g), append(mon, m)
			sales = append(sales, float64(20+10*i)+8*float64(j%6)+float64((i*7+j*3)%5))
		}
	}
	longT := func() *dataset.Table {
		return table(txt("c1", "Region", reg...), txt("c2", "Month", mon...), num("c3", "Sales", sales...))
	}
	lineMap := func(in *Input) {
		in.Spec.Mapping = chartspec.Mapping{"x": chartspec.One("c2"), "values": chartspec.Many("c3")}
	}
	barMap := func(in *Input) {
		in.Spec.Mapping = chartspec.Mapping{"category": chartspec.One("c2"), "values": chartspec.Many("c3")}
	}
	add("looks-line-facet-shared", testSpec("line", nil, nil), longT(), lineMap, facet("c1", chartspec.ScalesShared, 0),
		title("Sales by region", "Shared scales: the same axis in every panel"))
	add("looks-line-facet-free", testSpec("line", nil, nil), longT(), lineMap, facet("c1", chartspec.ScalesFree, 0),
		title("Sales by region", "Free scales: each panel its own axis"))
	add("looks-bar-facet-shared", testSpec("bar", nil, nil), longT(), barMap, facet("c1", chartspec.ScalesShared, 3),
		title("Monthly sales by region", ""))
	var p12 []string
	var v12 []float64
	var c12 []string
	for i := 0; i < 12; i++ {
		for j := 0; j < 30; j++ {
			p12 = append(p12, fmt.Sprintf("Store %d", i+1))
			c12 = append(c12, fmt.Sprintf("D%d", j+1))
			v12 = append(v12, float64(10+(i*13+j*7)%40))
		}
	}
	add("looks-bar-facet-12", testSpec("bar", nil, nil), table(txt("c1", "Store", p12...), txt("c2", "Day", c12...), num("c3", "Visits", v12...)),
		func(in *Input) {
			in.Spec.Mapping = chartspec.Mapping{"category": chartspec.One("c2"), "values": chartspec.Many("c3")}
		}, facet("c1", chartspec.ScalesShared, 0), title("Twelve stores, thirty days", ""))
	add("looks-scatter-facet", testSpec("scatter", nil, nil), table(
		num("c1", "GDP per head", series(r, 24, 40, 25)...), num("c2", "Life expectancy", series(r, 24, 78, 5)...),
		txt("c3", "Region", repeatEach([]string{"Europe", "Asia", "Americas", "Africa"}, 6)...)),
		func(in *Input) {
			in.Spec.Mapping = chartspec.Mapping{"x": chartspec.One("c1"), "y": chartspec.One("c2"), "group": chartspec.One("c3")}
		}, facet("c3", chartspec.ScalesShared, 0), title("Wealth and health by region", ""))
	add("looks-histogram-facet", testSpec("histogram", nil, nil), table(
		txt("c1", "Site", repeatEach([]string{"Plant A", "Plant B", "Plant C", "Plant D"}, 40)...), num("c2", "Weight (g)", series(r, 160, 500, 30)...)),
		func(in *Input) { in.Spec.Mapping = chartspec.Mapping{"value": chartspec.One("c2")} },
		facet("c1", chartspec.ScalesShared, 2), title("Weights by plant", ""))
	add("looks-boxplot-facet", testSpec("boxplot", nil, nil), table(
		txt("c1", "Year", repeatEach([]string{"2023", "2024"}, 48)...), txt("c2", "Team", repeatEach([]string{"North", "South", "East", "West"}, 12, 2)...),
		num("c3", "Days", series(r, 96, 20, 12)...)),
		func(in *Input) {
			in.Spec.Mapping = chartspec.Mapping{"group": chartspec.One("c2"), "value": chartspec.One("c3")}
		}, facet("c1", chartspec.ScalesShared, 0), title("Days to close, by year", ""))
	add("looks-dotplot-facet", testSpec("dotplot", nil, nil), table(
		txt("c1", "Continent", repeatEach([]string{"Europe", "Asia"}, 5)...), txt("c2", "Country", "Germany", "France", "Italy", "Spain", "Poland", "Japan", "Korea", "India", "China", "Vietnam"),
		num("c3", "2014", series(r, 10, 60, 15)...), num("c4", "2024", series(r, 10, 70, 15)...)),
		func(in *Input) {
			in.Spec.Mapping = chartspec.Mapping{"category": chartspec.One("c2"), "values": chartspec.Many("c3", "c4")}
		}, facet("c1", chartspec.ScalesShared, 2), title("Scores, 2014 and 2024", ""))
	return cases
}

// repeatEach repeats each value n times, the whole list times times (1 if
// left out).
func repeatEach(vs []string, n int, times ...int) []string {
	k := 1
	if len(times) > 0 {
		k = times[0]
	}
	var out []string
	for range k {
		for _, v := range vs {
			for range n {
				out = append(out, v)
			}
		}
	}
	return out
}
