package charts

import (
	"flag"
	"os"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite docs/chart-types.md from types.json and examples.json")

// renderChartTypesPage writes the chart-types reference page from the
// catalog, so the page can never disagree with the data the API serves.
func renderChartTypesPage(c *Catalog) string {
	var b strings.Builder
	b.WriteString("# Chart types\n\n")
	b.WriteString("chartd draws ten chart types. This page lists, for each one, what it is for, how to choose it, the roles its data fills and the options it takes. `list_chart_types` (GET `{base_url}/chart-types`) answers the same entries as data, and `list_examples` (GET `{base_url}/examples?type=<type>`) lists ready-made examples to start from.\n\n")
	b.WriteString("A role is a slot of the chart that columns fill, such as the categories and the values of a bar chart. The chart's `mapping` maps each role to a column id (`c1`, `c2`, ...), or to a list of ids for a role that takes one or more columns; chartd picks a mapping from the data when a chart is created and `setMapping` changes it. A numeric role takes number columns, and also a year column (a date column of whole years, such as \"Year\", \"Jahr\" or \"Founded\"), read as the years themselves; a required role must be mapped before the chart can be drawn.\n\n")
	b.WriteString("Options are set with the `setVariants` op, keyed by chart type, for example `{\"op\": \"setVariants\", \"variants\": {\"bar\": {\"orientation\": \"horizontal\"}}}`. A value outside the allowed ones is refused with `invalid_ops`. When `create_chart` gets a `type` alone, it uses the type's sample example, marked below.\n")
	for _, t := range c.Types() {
		b.WriteString("\n## " + t.Type + "\n\n")
		b.WriteString("**" + t.Label + ".** Best for " + strings.ToLower(t.UseFor[:1]) + t.UseFor[1:] + "\n\n")
		b.WriteString(t.Guide + "\n\n")
		b.WriteString("Roles:\n\n| Role | Meaning | Numbers only | Required | Columns |\n| --- | --- | --- | --- | --- |\n")
		for _, r := range t.Roles {
			cols := "one"
			if r.Multi {
				cols = "one or more (a list)"
			}
			b.WriteString("| `" + r.Role + "` | " + r.Label + " | " + yesNo(r.Numeric) + " | " + yesNo(r.Required) + " | " + cols + " |\n")
		}
		if len(t.Options) == 0 {
			b.WriteString("\nOptions: none.\n")
		} else {
			b.WriteString("\nOptions:\n\n| Option | Allowed values | Default | What it does |\n| --- | --- | --- | --- |\n")
			for _, o := range t.Options {
				b.WriteString("| `" + o.Name + "` | " + o.Allowed() + " | `" + showValue(o.Default) + "` | " + o.Description + " |\n")
			}
		}
		b.WriteString("\nExamples:\n\n")
		sample := c.Sample(t.Type).ID
		for _, e := range c.Examples(t.Type) {
			mark := ""
			if e.ID == sample {
				mark = " (the sample data for this type)"
			}
			b.WriteString("- `" + e.ID + "`" + mark + ": " + e.Label + ". " + e.Description + "\n")
		}
	}
	return b.String()
}

func yesNo(v bool) string {
	if v {
		return "yes"
	}
	return "no"
}

// TestChartTypesPageMatchesCatalog keeps docs/chart-types.md generated from
// the catalog; run `go test -run ChartTypesPage -update` after changing types or examples.
func TestChartTypesPageMatchesCatalog(t *testing.T) {
	c := mustLoad(t)
	want := renderChartTypesPage(c)
	const file = "docs/chart-types.md"
	if *update {
		if err := os.WriteFile(file, []byte(want), 0o644); err != nil {
			t.Fatalf("write %s: %v", file, err)
		}
	}
	got, err := os.ReadFile(file)
	if err != nil {
		t.Fatalf("read %s: %v", file, err)
	}
	if string(got) != want {
		t.Fatalf("%s is out of date with types.json/examples.json; run go test -run ChartTypesPage -update", file)
	}
	p, ok := c.Page("chart-types")
	if !ok {
		t.Fatal("chart-types page missing from the catalog")
	}
	for _, ty := range SpecTypes() {
		if !hasSection(p, ty) {
			t.Errorf("chart-types page has no section #%s", ty)
		}
	}
}

func hasSection(p Page, anchor string) bool {
	for _, s := range p.Sections() {
		if s.Anchor == anchor {
			return true
		}
	}
	return false
}
