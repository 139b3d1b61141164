package chartspec

import (
	"encoding/json"
	"strconv"
	"strings"
	"testing"
)

// regionsCSV is long data for small multiples: a region, a month, sales.
const regionsCSV = "Region,Month,Sales,Units\nNorth,Jan,10,1\nNorth,Feb,12,2\nSouth,Jan,7,3\nSouth,Feb,9,4\nEast,Jan,4,5\nEast,Feb,6,6\n"

func TestLooksOpsApply(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, regionsCSV)
	cases := []struct {
		name string
		typ  string
		ops  []string
		want string // the spec's highlight, facet and theme as JSON
	}{
		{"highlight categories", "bar", []string{`{"op":"setHighlight","highlight":{"categories":["South"]}}`},
			`{"highlight":{"categories":["South"]}}`},
		{"highlight series", "line", []string{`{"op":"setMapping","mapping":{"x":"c2","values":["c3","c4"]}}`, `{"op":"setHighlight","highlight":{"series":["c4"]}}`},
			`{"highlight":{"series":["c4"]}}`},
		{"highlight null clears", "bar", []string{`{"op":"setHighlight","highlight":{"categories":["South"]}}`, `{"op":"setHighlight","highlight":null}`},
			`{}`},
		{"facet defaults to shared scales", "line", []string{`{"op":"setFacet","facet":{"column":"c1"}}`},
			`{"facet":{"column":"c1","scales":"shared"}}`},
		{"facet free with columns", "bar", []string{`{"op":"setFacet","facet":{"column":"c1","scales":"free","columns":3}}`},
			`{"facet":{"column":"c1","scales":"free","columns":3}}`},
		{"facet null clears", "bar", []string{`{"op":"setFacet","facet":{"column":"c1"}}`, `{"op":"setFacet","facet":null}`},
			`{}`},
		{"theme dark", "pie", []string{`{"op":"setTheme","theme":"dark"}`}, `{"theme":"dark"}`},
		{"theme auto", "sankey", []string{`{"op":"setTheme","theme":"auto"}`}, `{"theme":"auto"}`},
		{"theme light is the default", "bar", []string{`{"op":"setTheme","theme":"dark"}`, `{"op":"setTheme","theme":"light"}`}, `{}`},
		{"setType to a type without facets keeps it", "bar", []string{`{"op":"setFacet","facet":{"column":"c1"}}`, `{"op":"setType","type":"heatmap"}`},
			`{"facet":{"column":"c1","scales":"shared"}}`},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			out := f.apply(t, f.newSpec(t, tc.typ, tab), tab, tc.ops...)
			got := mustJSON(t, struct {
				Highlight *Highlight `json:"highlight,omitempty"`
				Facet     *Facet     `json:"facet,omitempty"`
				Theme     string     `json:"theme,omitempty"`
			}{out.Highlight, out.Facet, out.Theme})
			if string(got) != tc.want {
				t.Errorf("got %s, want %s", got, tc.want)
			}
		})
	}
}

func TestLooksOpsRefusals(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, regionsCSV)
	many := parseCSV(t, rowsCSV("Name,Value", 40, func(i int) string { return "N" + strconv.Itoa(i) + ",1" }))
	cases := []struct {
		name string
		typ  string
		tab  bool // many rows
		op   string
		want string
	}{
		{"unknown category names the ones that exist", "bar", false, `{"op":"setHighlight","highlight":{"categories":["West"]}}`,
			`ops[0].highlight.categories[0]: no category "West" in c1 (Region); the categories are "North", "South", "East"`},
		{"unknown series", "bar", false, `{"op":"setHighlight","highlight":{"series":["c9"]}}`,
			"ops[0].highlight.series[0]: no series \"c9\"; the series are the value columns c3 (Sales), c4 (Units)"},
		{"highlight on a heatmap names the types", "heatmap", false, `{"op":"setHighlight","highlight":{"categories":["North"]}}`,
			"ops[0]: setHighlight has no meaning on a heatmap chart; it works on bar, line, pie, scatter, boxplot, dotplot and radar charts"},
		{"categories on a line", "line", false, `{"op":"setHighlight","highlight":{"categories":["North"]}}`,
			"ops[0].highlight.categories: a line chart highlights series, not categories; categories work on bar, pie, scatter and boxplot charts"},
		{"empty highlight object", "bar", false, `{"op":"setHighlight","highlight":{}}`, "ops[0].highlight: …"},
		{"facet of a number column", "bar", false, `{"op":"setFacet","facet":{"column":"c3"}}`,
			"ops[0].facet.column: c3 (Sales) is a number column; small multiples take a text column, one panel per value; the text columns are c1 (Region), c2 (Month)"},
		{"facet of too many values", "bar", true, `{"op":"setFacet","facet":{"column":"c1"}}`,
			"ops[0].facet.column: c1 (Name) has 40 values, and small multiples draw at most 36 panels; filter the rows first (addTransform filter) or choose a column with fewer values"},
		{"facet of a sankey names the types", "sankey", false, `{"op":"setFacet","facet":{"column":"c1"}}`,
			"ops[0]: setFacet has no meaning on a sankey chart; it works on bar, line, scatter, histogram, boxplot and dotplot charts"},
		{"facet of a heatmap", "heatmap", false, `{"op":"setFacet","facet":{"column":"c1"}}`,
			"ops[0]: setFacet has no meaning on a heatmap chart; it works on bar, line, scatter, histogram, boxplot and dotplot charts"},
		{"facet of an unknown column", "bar", false, `{"op":"setFacet","facet":{"column":"c9"}}`,
			"ops[0].facet.column: no column c9; the text columns are c1 (Region), c2 (Month)"},
		{"facet scales", "bar", false, `{"op":"setFacet","facet":{"column":"c1","scales":"own"}}`, "ops[0].facet.scales: …"},
		{"unknown theme", "bar", false, `{"op":"setTheme","theme":"sepia"}`, "ops[0].theme: …"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tb := tab
			if tc.tab {
				tb = many
			}
			_, err := f.ops.Apply(f.newSpec(t, tc.typ, tb), raws(tc.op), Env{Table: tb})
			if err == nil {
				t.Fatalf("%s was applied", tc.op)
			}
			if prefix, ok := strings.CutSuffix(tc.want, "…"); ok {
				if !strings.HasPrefix(err.Error(), prefix) {
					t.Errorf("got %q, want it to start %q", err, prefix)
				}
			} else if err.Error() != tc.want {
				t.Errorf("got  %q\nwant %q", err, tc.want)
			}
		})
	}
}

func TestLooksRoundTripAndClone(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, regionsCSV)
	spec := f.apply(t, f.newSpec(t, "bar", tab), tab,
		`{"op":"setHighlight","highlight":{"categories":["South","East"]}}`,
		`{"op":"setFacet","facet":{"column":"c2","scales":"free","columns":2}}`,
		`{"op":"setTheme","theme":"auto"}`)
	b := mustJSON(t, spec)
	var back Spec
	if err := json.Unmarshal(b, &back); err != nil {
		t.Fatal(err)
	}
	if string(mustJSON(t, &back)) != string(b) {
		t.Errorf("round trip changed the spec:\n%s\n%s", b, mustJSON(t, &back))
	}
	c := spec.Clone()
	c.Highlight.Categories[0] = "West"
	c.Facet.Columns = 4
	if string(mustJSON(t, spec)) != string(b) {
		t.Error("changing the clone's highlight or facet changed the original")
	}
	if c.Theme != ThemeAuto {
		t.Errorf("clone theme %q", c.Theme)
	}
}
