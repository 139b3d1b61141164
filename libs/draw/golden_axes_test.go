package draw

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"time"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// axesCases are the goldens of issue 13's axes, text and label defects:
// each would have shown its defect.
func axesCases(f *Fonts) []goldenCase {
	var cases []goldenCase
	add := caseAdder(f, &cases)
	labels := style(func(s *chartspec.Style) { s.Labels.Show = true })
	title := func(t string) func(*Input) {
		return style(func(s *chartspec.Style) { s.Title = chartspec.Text{Show: true, Text: t} })
	}
	r := rand.New(rand.NewPCG(13, 13))
	parse := func(csv string) *dataset.Table {
		raw, _ := json.Marshal(csv)
		t, _, err := dataset.ParseRequest(raw, "csv")
		if err != nil {
			panic(err)
		}
		return t
	}

	// 2: monthly dates as heatmap rows: one row per month, never "Jan 2024" and "Jan"
	var hx, hy []string
	var hv []float64
	for _, store := range []string{"North", "South", "East"} {
		for m := 1; m <= 12; m++ {
			hx = append(hx, store)
			hy = append(hy, fmt.Sprintf("2024-%02d", m))
			hv = append(hv, math.Round(40+20*math.Sin(float64(m)/2)+r.Float64()*10))
		}
	}
	add("heatmap-month-rows", testSpec("heatmap", nil, nil), table(txt("c1", "Store", hx...), dates("c2", "Month", dataset.UnitMonth, hy...), num("c3", "Sales", hv...)), title("One row per month"))

	// 3: roles picked by kind and meaning
	add("line-weekday-roles", testSpec("line", nil, nil), table(txt("c1", "Day", "Mon", "Tue", "Wed", "Thu", "Fri", "Sat", "Sun"),
		num("c2", "Visits", 5200, 6100, 5900, 6400, 7200, 3100, 2800), num("c3", "Orders", 410, 480, 455, 520, 610, 240, 200)))
	var groups []string
	var gv []float64
	for g := 0; g < 50; g++ {
		for k := 0; k < 8; k++ {
			groups = append(groups, fmt.Sprintf("Plant %02d", g+1))
			gv = append(gv, math.Round(50+float64(g%7)*4+r.NormFloat64()*6))
		}
	}
	add("boxplot-50-groups", testSpec("boxplot", map[string]any{"orientation": "horizontal"}, nil), table(txt("c1", "Plant", groups...), num("c2", "Yield", gv...)), title("Yield by plant"))
	n := 40
	bx, by, bs := make([]float64, n), make([]float64, n), make([]float64, n)
	for i := range bx {
		bx[i] = math.Round(1000 + r.Float64()*40000)
		by[i] = math.Round((60+r.Float64()*25)*10) / 10
		bs[i] = math.Round(1 + r.Float64()*300)
	}
	add("scatter-size-by-name", testSpec("scatter", nil, nil), table(num("c1", "GDP per head", bx...), num("c2", "Life expectancy", by...), num("c3", "size", bs...)), title("Bubbles sized by the column named size"))

	// 5: every row named; labels kept
	add("bar-50-horizontal-labels", testSpec("bar", map[string]any{"orientation": "horizontal"}, nil),
		table(txt("c1", "Country", countries(50)...), num("c2", "Exports", series(r, 50, 120, 100)...)), labels, title("Exports by country"))

	// 6: line labels that would collide
	months := make([]string, 24)
	for i := range months {
		months[i] = time.Date(2023, time.Month(1+i), 1, 0, 0, 0, 0, time.UTC).Format("2006-01")
	}
	add("line-labels-dense", testSpec("line", map[string]any{"markers": true}, nil), table(dates("c1", "Month", dataset.UnitMonth, months...),
		num("c2", "Web", series(r, 24, 120, 12)...), num("c3", "Store", series(r, 24, 118, 12)...), num("c4", "Phone", series(r, 24, 60, 10)...)), labels)

	// 8: years without a year word in the header
	add("line-years-kanji-header", testSpec("line", nil, nil), parse("年,売上\n2015,120\n2016,135\n2017,128\n2018,150\n2019,171\n2020,140\n2021,166\n2022,190\n2023,205\n2024,221"))

	// 9: scales that hug the data
	rx, ry := make([]float64, 60), make([]float64, 60)
	for i := range rx {
		rx[i] = math.Round(2000 + r.Float64()*95000)
		ry[i] = math.Round((0.08+r.Float64()*0.85)*1000) / 1000
	}
	add("scatter-positive-rates", testSpec("scatter", nil, nil), table(num("c1", "Visitors", rx...), num("c2", "Conversion rate", ry...)),
		style(func(s *chartspec.Style) { s.YAxis = &chartspec.Axis{TickFormat: "percent"} }), func(in *Input) { in.Width, in.Height = 400, 300 })
	add("bar-stacked-negatives", testSpec("bar", map[string]any{"stack": "stacked"}, nil), table(txt("c1", "Quarter", "Q1", "Q2", "Q3", "Q4", "Q5", "Q6"),
		num("c2", "Product", 42, 38, 51, 47, 30, 55), num("c3", "Services", 18, 22, 15, 25, 28, 20), num("c4", "Write-offs", -12, -35, -8, -20, -75, -5)), labels, title("Net result by quarter"))
	add("bar-headroom-labels", testSpec("bar", nil, nil), table(txt("c1", "City", "Tokyo", "Delhi", "Shanghai", "São Paulo", "Mexico City"),
		num("c2", "Population", 37400000, 31200000, 27100000, 22000000, 21800000)), labels, title("Largest cities"))

	// 11: long text wraps before it is cut
	add("bar-long-labels-400x300", testSpec("bar", nil, nil), table(txt("c1", "Programme", "Community health outreach", "Rural broadband rollout", "Teacher training and retention", "Flood defence upgrades"),
		num("c2", "Budget", 12.5, 30.2, 18.4, 24.9)), func(in *Input) { in.Width, in.Height = 400, 300 })

	// 11: heatmap rows, legends and pie labels wrap to two or three lines
	// before they are cut, and a cut keeps the distinguishing end
	// a generator of its own, so the cases below keep their data
	r11 := rand.New(rand.NewPCG(11, 11))
	var lx, ly []string
	var lv []float64
	for row := 1; row <= 6; row++ {
		for _, q := range []string{"Q1", "Q2", "Q3", "Q4"} {
			lx = append(lx, q)
			ly = append(ly, fmt.Sprintf("Regional distribution centre %d", row))
			lv = append(lv, math.Round(40+r11.Float64()*60))
		}
	}
	add("heatmap-long-rows-400x300", testSpec("heatmap", nil, nil), table(txt("c1", "Quarter", lx...), txt("c2", "Site", ly...), num("c3", "Orders", lv...)),
		labels, func(in *Input) { in.Width, in.Height = 400, 300 })
	var tx, ty []string
	var tv []float64
	for row := 1; row <= 24; row++ {
		for _, q := range []string{"Q1", "Q2", "Q3", "Q4"} {
			tx = append(tx, q)
			ty = append(ty, fmt.Sprintf("Customer service centre, North-West region %d", row))
			tv = append(tv, math.Round(40+r11.Float64()*60))
		}
	}
	add("heatmap-tight-rows-400x300", testSpec("heatmap", nil, nil), table(txt("c1", "Quarter", tx...), txt("c2", "Site", ty...), num("c3", "Calls", tv...)),
		func(in *Input) { in.Width, in.Height = 400, 300 })
	add("bar-long-legend", testSpec("bar", nil, nil), table(txt("c1", "Year", "2021", "2022", "2023", "2024"),
		num("c2", "Household spending on energy, urban areas", 1820, 2410, 2260, 2050),
		num("c3", "Household spending on energy, rural areas", 2140, 2790, 2610, 2380),
		num("c4", "Household spending on transport, all areas", 3100, 3350, 3420, 3510)), title("Spending per household"))
	add("bar-long-legend-column", testSpec("bar", map[string]any{"stack": "stacked"}, nil), table(txt("c1", "Year", "2021", "2022", "2023", "2024"),
		num("c2", "Household spending on energy, urban areas", 1820, 2410, 2260, 2050),
		num("c3", "Household spending on energy, rural areas", 2140, 2790, 2610, 2380),
		num("c4", "Household spending on transport, all areas", 3100, 3350, 3420, 3510)),
		style(func(s *chartspec.Style) { s.Legend.Position = chartspec.Position{X: "right", Y: "middle"} }))
	add("line-direct-long-names", testSpec("line", nil, nil), table(dates("c1", "Month", dataset.UnitMonth, months[:12]...),
		num("c2", "Share of journeys made by bicycle in the city centre", series(r11, 12, 24, 4)...),
		num("c3", "Share of journeys made by bicycle in the suburbs", series(r11, 12, 11, 3)...)))
	add("pie-long-labels-400x300", testSpec("pie", nil, nil), table(txt("c1", "Source", "Offshore wind farms in the North Sea", "Onshore wind, northern regions", "Solar parks and rooftop panels",
		"Hydroelectric power stations", "Biomass and biogas plants", "Other renewable sources"), num("c2", "TWh", 41.2, 28.7, 22.4, 9.8, 7.1, 2.3)),
		labels, func(in *Input) { in.Width, in.Height = 400, 300 })

	// 12: one unit per axis and per label set
	add("bar-units-billions", testSpec("bar", nil, nil), table(txt("c1", "Company", "Alpha", "Beta", "Gamma", "Delta", "Epsilon"),
		num("c2", "Revenue", 877000000, 640000000, 412000000, 95000000, 801000000)), labels)

	// the unit on the top tick only ("€5M", "60%", "420 ppm"), from the
	// data's format or from the column's name
	add("bar-unit-from-name", testSpec("bar", nil, nil), table(txt("c1", "Country", countries(8)...),
		num("c2", "Revenue (€)", 4200000, 3100000, 2650000, 2100000, 1500000, 1320000, 990000, 870000)), labels, title("Revenue by country"))
	add("bar-horizontal-unit-percent", testSpec("bar", map[string]any{"orientation": "horizontal"}, nil), table(txt("c1", "Language", "JavaScript", "Python", "SQL", "TypeScript", "Java", "C#", "Go"),
		num("c2", "Share of respondents (%)", 62.3, 51, 51, 38.5, 30.3, 27.1, 13.5)), title("Most used languages"))
	co2 := make([]string, 12)
	for i := range co2 {
		co2[i] = fmt.Sprint(2013 + i)
	}
	add("line-unit-words", testSpec("line", nil, nil), table(dates("c1", "Year", dataset.UnitYear, co2...),
		num("c2", "CO2 (ppm)", 396.8, 398.6, 400.8, 404.2, 406.5, 408.7, 411.7, 414.2, 416.5, 418.6, 421.1, 424.6)), title("Carbon dioxide at Mauna Loa"))

	// 14: thin or wrap, do not turn
	years := make([]string, 35)
	for i := range years {
		years[i] = fmt.Sprint(1990 + i)
	}
	add("bar-35-years", testSpec("bar", nil, nil), table(dates("c1", "Year", dataset.UnitYear, years...), num("c2", "Output", series(r, 35, 100, 30)...)))
	days := make([]string, 90)
	for i := range days {
		days[i] = time.Date(2024, 1, 1+i, 0, 0, 0, 0, time.UTC).Format("2006-01-02")
	}
	add("bar-90-days", testSpec("bar", nil, nil), table(dates("c1", "Day", dataset.UnitDay, days...), num("c2", "Orders", series(r, 90, 300, 120)...)))
	add("bar-japanese-long-label", testSpec("bar", nil, nil), table(txt("c1", "地域", "北海道", "東北", "関東", "中部", "近畿", "中国・四国地方の太平洋側沿岸部", "九州"),
		num("c2", "人口", 5.1, 8.6, 43.5, 21.2, 22.3, 11.0, 14.2)), labels)
	add("bar-wide-value-labels", testSpec("bar", nil, nil), table(txt("c1", "Month", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"),
		num("c2", "Amount", 1234.56, 2345.67, 1987.65, 3456.78, 2876.54, 3210.98, 2999.99, 3567.89, 3111.11, 2222.22, 3888.88, 4012.34)), labels,
		func(in *Input) { in.Width, in.Height = 500, 350 })

	// 17: big canvases set big type
	add("style-poster-4000x2250", testSpec("line", nil, nil), table(dates("c1", "Month", dataset.UnitMonth, months...),
		num("c2", "Revenue", series(r, 24, 34000, 9000)...)), title("Revenue per month"), func(in *Input) { in.Width, in.Height = 4000, 2250 })

	// direct labels: names at the lines' ends, pushed apart
	var five []*dataset.Column
	five = append(five, dates("c1", "Month", dataset.UnitMonth, months...))
	for i, name := range []string{"Germany", "France", "Italy", "Spain", "Poland"} {
		five = append(five, num(fmt.Sprintf("c%d", i+2), name, series(r, 24, 100+float64(i)*3, 8)...))
	}
	add("line-direct-labels", testSpec("line", nil, nil), table(five...), title("Index, 2023 = 100"))
	return cases
}
