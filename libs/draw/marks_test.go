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

// TestMarksListed: with Input.Marks a picture lists every mark with its
// category, series and value in the chart's number format, in its own
// <metadata>; without it the picture is unchanged.
func TestMarksListed(t *testing.T) {
	f := fonts(t)
	cats := txt("c1", "Fruit", "Apples & pears", "Plums", "Figs")
	a, b := num("c2", "2024", 1200, 3400, 560), num("c3", "2025", 1500, nan, 700)
	for _, tc := range []struct {
		name  string
		spec  *chartspec.Spec
		table *dataset.Table
		n     int
		first [3]string
	}{
		{"grouped bars", testSpec("bar", map[string]any{"orientation": "vertical"}, nil), table(cats, a, b), 5, [3]string{"Apples & pears", "2024", "1,200"}},
		{"stacked bars", testSpec("bar", map[string]any{"orientation": "horizontal", "stack": "stacked"}, nil), table(cats, a, b), 5, [3]string{"Apples & pears", "2024", "1,200"}},
		{"line", testSpec("line", nil, nil), table(dates("c1", "Year", dataset.UnitYear, "2021", "2022", "2023"), a), 3, [3]string{"2021", "2024", "1,200"}},
		{"scatter", testSpec("scatter", nil, chartspec.Mapping{"x": chartspec.One("c2"), "y": chartspec.One("c3"), "group": chartspec.Ref{}}), table(cats, a, b), 2, [3]string{"Apples & pears", "", "1,500"}},
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
			if got := [3]string{rows[0][4].(string), rows[0][5].(string), rows[0][6].(string)}; got != tc.first {
				t.Errorf("first mark names %q, want %q", got, tc.first)
			}
			for _, r := range rows {
				x, y := r[0].(float64), r[1].(float64)
				if x < 0 || y < 0 || x > 640 || y > 400 {
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
