package draw

import (
	"slices"
	"strconv"
	"strings"
	"testing"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// TestDenseDataIsAggregated draws every type from 200,000 rows: the
// document stays small (its size follows the canvas, not the data), the
// charts that drew fewer rows say so in a notice and in their description,
// and small data draws every row without a notice.
func TestDenseDataIsAggregated(t *testing.T) {
	f := fonts(t)
	r := rng()
	const n = 200_000
	names, to, few := make([]string, n), make([]string, n), make([]string, n)
	for i := range names {
		names[i], to[i], few[i] = "name "+strconv.Itoa(i), "to "+strconv.Itoa(i%900), "group "+strconv.Itoa(i%3)
	}
	big := table(txt("c1", "Name", names...), txt("c2", "To", to...), num("c3", "A", series(r, n, 50, 40)...), num("c4", "B", series(r, n, 20, 10)...), txt("c5", "Group", few...))
	for _, tc := range []struct {
		typ     string
		mapping chartspec.Mapping
		notice  bool
		maxSVG  int
	}{
		{"bar", nil, true, 200_000},
		{"line", nil, true, 200_000},
		{"pie", nil, true, 100_000},
		{"scatter", chartspec.Mapping{"x": chartspec.One("c3"), "y": chartspec.One("c4"), "group": chartspec.One("c5")}, true, 2_000_000},
		{"histogram", nil, false, 100_000},
		{"boxplot", nil, false, 100_000},
		{"dotplot", nil, true, 200_000},
		{"sankey", nil, true, 1_000_000},
		{"radar", nil, true, 200_000},
		{"heatmap", nil, true, 2_000_000},
	} {
		t.Run(tc.typ, func(t *testing.T) {
			s := testSpec(tc.typ, nil, tc.mapping)
			res, err := Render(Input{Spec: s, Table: big, Fonts: f})
			if err != nil {
				t.Fatalf("Render: %v", err)
			}
			checkDocument(t, res.SVG)
			if len(res.SVG) > tc.maxSVG {
				t.Errorf("%d rows make a %d-byte document, more than %d", n, len(res.SVG), tc.maxSVG)
			}
			// the columns the chart has no role for, and dots set apart, are said apart
			notices := slices.DeleteFunc(slices.Clone(res.Notices), func(n dataset.Notice) bool {
				return n.Code == NoticeColumnNotDrawn || n.Code == NoticeTies
			})
			if got := len(notices) > 0; got != tc.notice {
				t.Fatalf("notices %v, want some: %v", notices, tc.notice)
			}
			for _, no := range notices {
				if no.Code == NoticeNeedsRoom {
					continue // names that need a bigger canvas, said apart
				}
				if no.Code != NoticeAggregated || !strings.Contains(no.Message, "200,000") {
					t.Errorf("notice %+v does not say how many there were", no)
				}
				if !containsText(t, res.SVG, no.Message) {
					t.Errorf("the description does not repeat %q", no.Message)
				}
			}
			small := &dataset.Table{Columns: big.Columns, Rows: 50}
			// (50 pie slices are more than a pie can tell apart: Other, and a notice)
			if res, err := Render(Input{Spec: testSpec(tc.typ, nil, tc.mapping), Table: subsetRows(small, 50), Fonts: f}); err != nil || aggregated(res.Notices) && tc.typ != "pie" {
				t.Errorf("50 rows: %v, notices %v", err, res.Notices)
			}
		})
	}
	pie, err := Render(Input{Spec: testSpec("pie", nil, nil), Table: big, Fonts: f})
	if err != nil || !containsText(t, pie.SVG, "Other (199,997 slices)") {
		t.Errorf("pie has no Other slice for the 199,997 smallest: %v", err)
	}
}

// subsetRows is the first n rows of t.
func subsetRows(t *dataset.Table, n int) *dataset.Table {
	out := &dataset.Table{Rows: n}
	for _, c := range t.Columns {
		nc := *c
		if c.Kind == dataset.Text {
			nc.Text = c.Text[:n]
		} else {
			nc.Num = c.Num[:n]
		}
		out.Columns = append(out.Columns, &nc)
	}
	return out
}

// aggregated reports a notice that rows were drawn from fewer marks.
func aggregated(ns []dataset.Notice) bool {
	for _, n := range ns {
		if n.Code == NoticeAggregated {
			return true
		}
	}
	return false
}
