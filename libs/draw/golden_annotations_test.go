package draw

import (
	"math"
	"time"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// note, refLine and band build annotations as the ops store them.
func note(text string, x *chartspec.Scalar, series string) chartspec.Annotation {
	return chartspec.Annotation{Type: chartspec.KindNote, Text: text, X: x, Series: series}
}

func refLine(axis string, v *chartspec.Scalar, label string) chartspec.Annotation {
	return chartspec.Annotation{Type: chartspec.KindLine, Axis: axis, Value: v, Label: label}
}

func band(axis string, from, to *chartspec.Scalar, label string) chartspec.Annotation {
	return chartspec.Annotation{Type: chartspec.KindRange, Axis: axis, From: from, To: to, Label: label}
}

// annotated sets a case's annotations.
func annotated(as ...chartspec.Annotation) func(*Input) {
	return func(in *Input) { in.Spec.Annotations = as }
}

// storyBar30 is the 30-bar chart of BenchmarkBar30Story: five notes, a
// target line and a range.
func storyBar30(f *Fonts) Input {
	days := make([]string, 30)
	vals := make([]float64, 30)
	for i := range days {
		days[i] = time.Date(2024, 4, 1+i, 0, 0, 0, 0, time.UTC).Format("2006-01-02")
		vals[i] = math.Round(60 + 25*math.Sin(float64(i)/4) + float64(i))
	}
	s := testSpec("bar", nil, nil)
	s.Style.Title = chartspec.Text{Show: true, Text: "Daily sign-ups, April 2024"}
	s.Annotations = []chartspec.Annotation{
		band("x", chartspec.Word("2024-04-08"), chartspec.Word("2024-04-14"), "Campaign week"),
		refLine("y", chartspec.Number(100), "Target"),
		note("Launch day", chartspec.Word("2024-04-05"), ""),
		note("Outage", chartspec.Word("2024-04-18"), ""),
		note("Press coverage", chartspec.Word("2024-04-23"), ""),
		note("Best day", chartspec.Word("2024-04-30"), ""),
		note("Easter Monday", chartspec.Word("2024-04-01"), ""),
	}
	return Input{Spec: s, Table: table(dates("c1", "Day", dataset.UnitDay, days...), num("c2", "Sign-ups", vals...)), Fonts: f}
}

// annotationCases are the goldens of issue 34's notes, reference lines
// and ranges: each chart type that draws them × each feature.
func annotationCases(f *Fonts) []goldenCase {
	var cases []goldenCase
	add := caseAdder(f, &cases)
	title := func(t string) func(*Input) {
		return style(func(s *chartspec.Style) { s.Title = chartspec.Text{Show: true, Text: t} })
	}
	months := []string{"2023-01", "2023-02", "2023-03", "2023-04", "2023-05", "2023-06", "2023-07", "2023-08", "2023-09", "2023-10", "2023-11", "2023-12"}
	monthT := func() *dataset.Table {
		return table(dates("c1", "Month", dataset.UnitMonth, months...), num("c2", "Visitors", 62, 58, 71, 90, 84, 77, 45, 52, 80, 88, 86, 96))
	}
	quarterT := func() *dataset.Table {
		return table(txt("c1", "Region", "North", "East", "South", "West", "Centre"), num("c2", "Sales", 72, 88, 64, 90, 81), num("c3", "Target met", 60, 70, 75, 80, 70))
	}
	pen := func() *dataset.Table {
		return table(num("c1", "Flipper (mm)", 181, 186, 195, 193, 190, 181, 195, 182, 191, 198, 185, 195, 197, 184, 194, 174, 180, 189, 185, 180, 210, 215, 222, 230, 218, 212, 216, 225, 219, 221),
			num("c2", "Mass (g)", 3750, 3800, 3250, 3450, 3650, 3625, 4675, 3200, 3800, 4400, 3700, 3450, 4500, 3325, 4200, 3400, 3600, 3800, 3950, 3800, 4200, 5400, 5550, 5700, 5100, 4400, 5200, 5650, 4875, 5300))
	}
	ages := []float64{23, 25, 31, 35, 36, 38, 41, 42, 44, 45, 47, 48, 52, 53, 55, 58, 61, 64, 29, 33, 37, 39, 40, 43, 46, 49, 50, 51, 56, 27}
	boxT := func() *dataset.Table {
		var g []string
		var v []float64
		for i, a := range ages {
			g = append(g, []string{"Team A", "Team B", "Team C"}[i%3])
			v = append(v, a+float64(i%3)*6)
		}
		return table(txt("c1", "Team", g...), num("c2", "Age", v...))
	}
	dotT := func() *dataset.Table {
		return table(txt("c1", "Country", "Norway", "Denmark", "Sweden", "Finland", "Iceland", "Estonia"),
			num("c2", "2010", 71, 68, 66, 60, 58, 41), num("c3", "2020", 80, 74, 70, 69, 65, 58))
	}
	dot := testSpec("dotplot", nil, nil)

	// notes
	add("notes-bar", testSpec("bar", nil, nil), monthT(), title("Visitors per month"),
		annotated(note("Summer works closed the north wing", chartspec.Word("2023-07"), ""), note("Record month", chartspec.Word("2023-12"), "")))
	add("notes-bar-horizontal", testSpec("bar", map[string]any{"orientation": "horizontal"}, nil), quarterT(), title("Sales by region"),
		annotated(note("New store opened", chartspec.Word("West"), "c2"), note("Staff shortage", chartspec.Word("South"), "")))
	add("notes-line", testSpec("line", nil, nil), monthT(), title("Visitors per month"),
		annotated(note("Summer closure", chartspec.Word("2023-07"), ""), note("Spring peak", chartspec.Word("2023-04"), ""), note("Record", chartspec.Word("2023-12"), "")))
	add("notes-scatter", testSpec("scatter", nil, nil), pen(), title("Flipper length and body mass"),
		annotated(note("The heaviest penguin", chartspec.Number(230), ""), note("Shortest flippers", chartspec.Number(174), "")))
	add("notes-dotplot", dot, dotT(), title("Trust in government, 2010 and 2020"),
		annotated(note("Largest rise", chartspec.Word("Estonia"), "c3"), note("Highest", chartspec.Word("Norway"), "c3")))

	// reference lines
	add("lines-bar", testSpec("bar", nil, nil), monthT(), title("A 120 target on data up to 96 shows 120"),
		annotated(refLine("y", chartspec.Number(120), "Target"), refLine("y", chartspec.Word("mean"), "")))
	add("lines-line", testSpec("line", nil, nil), monthT(), title("Median and a date line"),
		annotated(refLine("y", chartspec.Word("median"), ""), refLine("x", chartspec.Word("2023-09-01"), "New site")))
	add("lines-scatter", testSpec("scatter", nil, nil), pen(), title("Mean mass and a 200 mm mark"),
		annotated(refLine("y", chartspec.Word("mean"), "Mean mass"), refLine("x", chartspec.Number(200), "200 mm")))
	add("lines-histogram", testSpec("histogram", nil, nil), table(num("c1", "Age", ages...)), title("Ages with their mean and median"),
		annotated(refLine("x", chartspec.Word("mean"), ""), refLine("x", chartspec.Word("median"), "")))
	add("lines-boxplot", testSpec("boxplot", nil, nil), boxT(), title("Ages by team, retirement line"),
		annotated(refLine("y", chartspec.Number(67), "Retirement age")))
	add("lines-dotplot", testSpec("dotplot", nil, nil), dotT(), title("Trust in government, EU average"),
		annotated(refLine("y", chartspec.Number(50), "EU average")))

	// ranges
	add("ranges-bar", testSpec("bar", nil, nil), monthT(), title("Summer months shaded"),
		annotated(band("x", chartspec.Word("2023-06"), chartspec.Word("2023-08"), "Summer")))
	add("ranges-line", testSpec("line", nil, nil), monthT(), title("A shaded recession and a target zone"),
		annotated(band("x", chartspec.Word("2023-06-15"), chartspec.Word("2023-08-20"), "Recession"), band("y", chartspec.Number(80), chartspec.Number(100), "Target zone")))
	add("ranges-scatter", testSpec("scatter", nil, nil), pen(), title("The usual mass band"),
		annotated(band("y", chartspec.Number(3500), chartspec.Number(4500), "Usual mass")))
	add("ranges-histogram", testSpec("histogram", nil, nil), table(num("c1", "Age", ages...)), title("Working ages 30 to 50"),
		annotated(band("x", chartspec.Number(30), chartspec.Number(50), "30 to 50")))
	add("ranges-boxplot", testSpec("boxplot", nil, nil), boxT(), title("The hiring band"),
		annotated(band("y", chartspec.Number(30), chartspec.Number(45), "Hiring band")))
	add("ranges-dotplot", testSpec("dotplot", nil, nil), dotT(), title("High trust, 70 and up"),
		annotated(band("y", chartspec.Number(70), chartspec.Number(100), "High trust")))

	// the benchmark's story
	in := storyBar30(f)
	cases = append(cases, goldenCase{"story-bar30", in})
	return cases
}
