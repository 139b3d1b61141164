package draw

import (
	"bytes"
	"encoding/xml"
	"io"
	"strings"
	"testing"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// titleAndDesc reads the accessible name and description of a picture.
func titleAndDesc(t *testing.T, svg []byte) (title, desc string) {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	depth, in := 0, ""
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return title, desc
		}
		if err != nil {
			t.Fatal(err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			depth++
			if depth == 2 {
				in = el.Name.Local
			}
		case xml.EndElement:
			depth--
			in = ""
		case xml.CharData:
			switch in {
			case "title":
				title += string(el)
			case "desc":
				desc += string(el)
			}
		}
	}
}

func TestDescriptions(t *testing.T) {
	f := fonts(t)
	c10 := countries(10)
	sales := []float64{4200000, 3100000, 2650000, 2100000, 1500000, 1320000, 990000, 870000, 640000, 410000}
	cases := []struct {
		name  string
		spec  *chartspec.Spec
		table *dataset.Table
		title string
		desc  string
	}{
		{"bar", testSpec("bar", nil, nil), table(txt("c1", "Country", c10...), num("c2", "Sales", sales...)),
			"Bar chart of Sales by Country", "Bar chart of Sales by Country, 10 bars, largest Germany 4.2M"},
		{"bar negatives", testSpec("bar", map[string]any{"orientation": "horizontal"}, nil), table(txt("c1", "Q", "Q1", "Q2"), num("c2", "Change", 5, -3)),
			"Horizontal bar chart of Change by Q", "Horizontal bar chart of Change by Q, 2 bars, largest Q1 5, smallest Q2 −3"},
		{"bar grouped", testSpec("bar", map[string]any{"stack": "stacked"}, nil), table(txt("c1", "Q", "Q1", "Q2"), num("c2", "A", 5, 3), num("c3", "B", 1, 7)),
			"Stacked bar chart of A and B by Q", "Stacked bar chart of A and B by Q, 2 categories in 2 series, largest Q2 (B) 7"},
		{"bar blank", testSpec("bar", nil, nil), table(txt("c1", "Q", "Q1"), num("c2", "A", nan)),
			"Bar chart of A by Q", "Bar chart of A by Q, no values to show"},
		{"line", testSpec("line", nil, nil), table(dates("c1", "Month", dataset.UnitMonth, "2024-01", "2024-02", "2024-03"), num("c2", "Revenue", 10, 30, 20)),
			"Line chart of Revenue over Month", "Line chart of Revenue over Month, 3 points from Jan 2024 to Mar 2024, highest 30 at Feb 2024"},
		{"pie", testSpec("pie", map[string]any{"donut": 0.5}, nil), table(txt("c1", "Browser", "Chrome", "Safari"), num("c2", "Users", 640, 360)),
			"Donut chart of Users by Browser", "Donut chart of Users by Browser, 2 slices, largest Chrome 64% (640), total 1,000"},
		{"scatter", testSpec("scatter", nil, nil), table(num("c1", "H", 1, 2, 3, 4), num("c2", "W", 2, 4, 6, 8.5)),
			"Scatter plot of W against H", "Scatter plot of W against H, 4 points, correlation 1.00"},
		{"histogram", testSpec("histogram", map[string]any{"bins": 2.0}, nil), table(num("c1", "Age", 10, 20, 30, 40, 40)),
			"Histogram of Age", "Histogram of Age, 5 values in 2 bins (set count) from 0 to 40, most in 20–40 (4 values)"},
		{"boxplot", testSpec("boxplot", nil, nil), table(txt("c1", "Team", "A", "A", "B", "B"), num("c2", "Score", 1, 3, 10, 20)),
			"Box plot of Score by Team", "Box plot of Score by Team, 4 values in 2 groups, highest median B 15"},
		{"dotplot", testSpec("dotplot", nil, nil), table(txt("c1", "Team", "A", "B"), num("c2", "Score", 4, 9)),
			"Dot plot of Score by Team", "Dot plot of Score by Team, 2 categories, highest B 9, lowest A 4"},
		{"sankey", testSpec("sankey", nil, nil), table(txt("c1", "From", "A", "A", "B"), txt("c2", "To", "B", "C", "C"), num("c3", "Flow", 5, 2, 4)),
			"Sankey diagram of Flow from From to To", "Sankey diagram of Flow from From to To, 3 nodes in 3 columns, 3 flows, largest A → B 5"},
		{"radar", testSpec("radar", nil, nil), table(txt("c1", "Skill", "Speed", "Power", "Skill"), num("c2", "Ann", 5, 9, 7)),
			"Radar chart of Ann across Skill", "Radar chart of Ann across Skill, 3 axes, Ann highest on Power (9)"},
		{"heatmap", testSpec("heatmap", nil, nil), table(txt("c1", "Hour", "9", "10", "9"), txt("c2", "Day", "Mon", "Mon", "Tue"), num("c3", "Visits", 4, 8, 1)),
			"Heatmap of Visits by Hour and Day", "Heatmap of Visits by Hour and Day, 2 × 2 cells, highest 10 × Mon 8, lowest 9 × Tue 1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out, err := SVG(Input{Spec: tc.spec, Table: tc.table, Fonts: f})
			if err != nil {
				t.Fatal(err)
			}
			title, desc := titleAndDesc(t, out)
			if title != tc.title {
				t.Errorf("title = %q, want %q", title, tc.title)
			}
			if desc != tc.desc {
				t.Errorf("desc = %q\n want %q", desc, tc.desc)
			}
		})
	}
}

// TestTitleWinsOverGeneratedName: a shown title is the accessible name.
func TestTitleWinsOverGeneratedName(t *testing.T) {
	s := testSpec("bar", nil, nil)
	s.Style.Title = chartspec.Text{Show: true, Text: "Our sales"}
	out, err := SVG(Input{Spec: s, Table: table(txt("c1", "C", "a"), num("c2", "V", 1)), Fonts: fonts(t)})
	if err != nil {
		t.Fatal(err)
	}
	if title, desc := titleAndDesc(t, out); title != "Our sales" || !strings.HasPrefix(desc, "Bar chart of V by C") {
		t.Errorf("title %q desc %q", title, desc)
	}
}
