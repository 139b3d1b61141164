package draw

import (
	"encoding/json"
	"html"
	"regexp"
	"testing"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

var marksRE = regexp.MustCompile(`<metadata id="chartd-[a-z0-9]+-` + MarksID + `">([^<]*)</metadata>`)

// marksOf reads the marks a picture lists; nil when it lists none.
func marksOf(t *testing.T, svg []byte) [][7]any {
	t.Helper()
	m := marksRE.FindSubmatch(svg)
	if m == nil {
		return nil
	}
	var rows [][7]any
	if err := json.Unmarshal([]byte(html.UnescapeString(string(m[1]))), &rows); err != nil {
		t.Fatalf("marks are not JSON: %v: %s", err, m[1])
	}
	return rows
}

// TestMarksListed: with Input.Marks a picture of every chart type lists
// each of its marks with its category, series and value in the chart's
// number format, in its own <metadata>; without it the picture is
// unchanged.
func TestMarksListed(t *testing.T) {
	f := fonts(t)
	cats := txt("c1", "Fruit", "Apples & pears", "Plums", "Figs")
	a, b := num("c2", "2024", 1200, 3400, 560), num("c3", "2025", 1500, nan, 700)
	one := chartspec.One
	scores := table(txt("c1", "Class", "A", "A", "A", "A", "A", "A", "A", "A", "A", "B", "B", "B"),
		num("c2", "Score", 1, 2, 3, 4, 5, 6, 7, 8, 9, 2.5, 4, 6))
	flows := table(txt("c1", "From", "Coal", "Gas", "Power"), txt("c2", "To", "Power", "Power", "Homes"), num("c3", "TWh", 50, 30, 60))
	for _, tc := range []struct {
		name        string
		spec        *chartspec.Spec
		table       *dataset.Table
		n           int
		first, last [3]string
	}{
		{"grouped bars", testSpec("bar", map[string]any{"orientation": "vertical"}, nil), table(cats, a, b), 5,
			[3]string{"Apples & pears", "2024", "1,200"}, [3]string{"Figs", "2025", "700"}},
		{"stacked bars", testSpec("bar", map[string]any{"orientation": "horizontal", "stack": "stacked"}, nil), table(cats, a, b), 5,
			[3]string{"Apples & pears", "2024", "1,200"}, [3]string{"Figs", "2025", "700"}},
		{"line", testSpec("line", nil, nil), table(dates("c1", "Year", dataset.UnitYear, "2021", "2022", "2023"), a), 3,
			[3]string{"2021", "2024", "1,200"}, [3]string{"2023", "2024", "560"}},
		{"scatter", testSpec("scatter", nil, chartspec.Mapping{"x": one("c2"), "y": one("c3"), "group": chartspec.Ref{}}), table(cats, a, b), 2,
			[3]string{"Apples & pears", "", "1,500"}, [3]string{"Figs", "", "700"}},
		{"pie", testSpec("pie", nil, chartspec.Mapping{"label": one("c1"), "value": one("c2")}), table(cats, a), 3,
			[3]string{"Apples & pears", "2024", "1,200 (23%)"}, [3]string{"Figs", "2024", "560 (11%)"}},
		{"histogram", testSpec("histogram", map[string]any{"bins": 4}, chartspec.Mapping{"value": one("c2")}), scores, 4,
			[3]string{"0–2.5", "Score", "2"}, [3]string{"7.5–10", "Score", "2"}},
		{"box plot", testSpec("boxplot", nil, chartspec.Mapping{"group": one("c1"), "value": one("c2")}), scores, 4,
			[3]string{"A", "Score", "median 5, middle half 3–7"}, [3]string{"B", "Score", "6"}},
		{"dot plot", testSpec("dotplot", nil, chartspec.Mapping{"category": one("c1"), "values": chartspec.Many("c2", "c3")}), table(cats, a, b), 5,
			[3]string{"Apples & pears", "2024", "1,200"}, [3]string{"Figs", "2025", "700"}},
		{"heatmap", testSpec("heatmap", nil, chartspec.Mapping{"y": one("c1"), "value": chartspec.Many("c2", "c3")}), table(cats, a, b), 5,
			[3]string{"Apples & pears", "2024", "1,200"}, [3]string{"Figs", "2025", "700"}},
		{"radar", testSpec("radar", nil, chartspec.Mapping{"axis": one("c1"), "values": chartspec.Many("c2", "c3")}), table(cats, a, b), 5,
			[3]string{"Apples & pears", "2024", "1,200"}, [3]string{"Figs", "2025", "700"}},
		{"sankey", testSpec("sankey", nil, chartspec.Mapping{"source": one("c1"), "target": one("c2"), "value": one("c3")}), flows, 3,
			[3]string{"Coal → Power", "TWh", "50"}, [3]string{"Power → Homes", "TWh", "60"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			in := Input{Spec: tc.spec, Table: tc.table, Fonts: f, Width: 640, Height: 400}
			plain, err := SVG(in)
			if err != nil {
				t.Fatal(err)
			}
			if marksOf(t, plain) != nil {
				t.Error("a picture not asked for marks lists them")
			}
			in.Marks = true
			res, err := Render(in)
			if err != nil {
				t.Fatal(err)
			}
			svg := res.SVG
			rows := marksOf(t, svg)
			if len(res.Marks) != len(rows) {
				t.Errorf("Result.Marks holds %d marks, the picture lists %d", len(res.Marks), len(rows))
			}
			if len(rows) != tc.n {
				t.Fatalf("%d marks, want %d: %v", len(rows), tc.n, rows)
			}
			name := func(r [7]any) [3]string { return [3]string{r[4].(string), r[5].(string), r[6].(string)} }
			if got := name(rows[0]); got != tc.first {
				t.Errorf("first mark names %q, want %q", got, tc.first)
			}
			if got := name(rows[len(rows)-1]); got != tc.last {
				t.Errorf("last mark names %q, want %q", got, tc.last)
			}
			for _, r := range rows {
				x, y, w, h := r[0].(float64), r[1].(float64), r[2].(float64), r[3].(float64)
				if x < 0 || y < 0 || w < 0 || h < 0 || x+w > 640 || y+h > 400 {
					t.Errorf("mark %v lies outside the picture", r)
				}
			}
		})
	}
}

// TestMarksThinned: a 10,000-point scatter lists at most maxMarks marks,
// spread through the drawing order.
func TestMarksThinned(t *testing.T) {
	r := rng()
	xs, ys := series(r, 10_000, 50, 40), series(r, 10_000, 50, 40)
	s := testSpec("scatter", nil, chartspec.Mapping{"x": chartspec.One("c1"), "y": chartspec.One("c2"), "group": chartspec.Ref{}})
	svg, err := SVG(Input{Spec: s, Table: table(num("c1", "X", xs...), num("c2", "Y", ys...)), Fonts: fonts(t), Width: 800, Height: 600, Marks: true})
	if err != nil {
		t.Fatal(err)
	}
	if n := len(marksOf(t, svg)); n < maxMarks/2 || n > maxMarks {
		t.Errorf("%d marks listed, want %d..%d", n, maxMarks/2, maxMarks)
	}
}

// TestMinTextAtReadingWidths: an embed's picture (MinText 11) sets no text
// below 11 px at 320, 480, 768 and 1200 px wide.
func TestMinTextAtReadingWidths(t *testing.T) {
	f := fonts(t)
	cats := txt("c1", "Country", countries(12)...)
	vals := num("c2", "Population (millions)", series(rng(), 12, 40, 30)...)
	for _, w := range []int{320, 480, 768, 1200} {
		for _, typ := range []string{"bar", "line"} {
			tab := table(cats, vals)
			if typ == "line" {
				tab = table(dates("c1", "Year", dataset.UnitYear, "2013", "2014", "2015", "2016", "2017", "2018", "2019", "2020", "2021", "2022", "2023", "2024"), vals)
			}
			s := testSpec(typ, nil, nil)
			s.Style.Title = chartspec.Text{Text: "Population of twelve countries", Show: true}
			svg, err := SVG(Input{Spec: s, Table: tab, Fonts: f, Width: w, Watermark: true, MinText: 11})
			if err != nil {
				t.Fatal(err)
			}
			for _, e := range textsOf(t, svg) {
				if e.size < 11 {
					t.Errorf("%s at %d px: %q is set in %.1f px", typ, w, e.text, e.size)
				}
			}
		}
	}
}
