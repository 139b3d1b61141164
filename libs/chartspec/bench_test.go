package chartspec

import (
	"fmt"
	"strings"
	"testing"

	"chartd.dev/libs/dataset"
)

// benchTable is n rows: a text category, a date and k number columns.
func benchTable(b *testing.B, n, k int) *dataset.Table {
	var sb strings.Builder
	sb.WriteString("Country,Day")
	for j := 1; j <= k; j++ {
		fmt.Fprintf(&sb, ",Series %d", j)
	}
	sb.WriteByte('\n')
	for i := 0; i < n; i++ {
		fmt.Fprintf(&sb, "Country %d,%d-%02d-%02d", i%250, 2000+i%25, i%12+1, i%28+1)
		for j := 0; j < k; j++ {
			fmt.Fprintf(&sb, ",%d", (i*31+j*17)%1000)
		}
		sb.WriteByte('\n')
	}
	return parseCSV(b, sb.String())
}

// BenchmarkApply10Ops is apply_ops' library part: ten typical ops, two of
// them data steps, on a 10,000-row chart.
func BenchmarkApply10Ops(b *testing.B) {
	f := newFixture(b)
	tab := benchTable(b, 10000, 3)
	spec := f.newSpec(b, "bar", tab)
	ops := raws(
		`{"op":"setTitle","title":{"text":"Sales by country"}}`,
		`{"op":"setVariants","variants":{"bar":{"orientation":"horizontal"}}}`,
		`{"op":"setMapping","mapping":{"category":"c1","values":["c3","c4"]}}`,
		`{"op":"addTransform","transform":{"type":"sort","column":"c3","direction":"desc"}}`,
		`{"op":"addTransform","transform":{"type":"limit","n":20}}`,
		`{"op":"setPalette","palette":"okabe-ito"}`,
		`{"op":"setSeriesColor","series":"c3","color":"#D62728"}`,
		`{"op":"setAxis","axis":"y","min":0,"tickFormat":"compact"}`,
		`{"op":"setLegend","show":true,"position":{"x":"right","y":"top"}}`,
		`{"op":"setNumberFormat","decimals":0,"prefix":"$"}`,
	)
	env := Env{Table: tab}
	b.ReportAllocs()
	for b.Loop() {
		if _, err := f.ops.Apply(spec, ops, env); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkLint is a full lint of a 10,000-row, 12-series chart.
func BenchmarkLint(b *testing.B) {
	f := newFixture(b)
	tab := benchTable(b, 10000, 12)
	for _, typ := range []string{"bar", "line"} {
		b.Run(typ, func(b *testing.B) {
			spec := f.newSpec(b, typ, tab)
			if typ == "line" {
				spec.Mapping["x"] = One("c2")
			}
			if n := len(spec.Mapping.Cols("values")); n != 12 {
				b.Fatalf("%d series, want 12", n)
			}
			env := LintEnv{Catalog: f.cat}
			if len(Lint(spec, tab, env)) == 0 {
				b.Fatal("no problems found on a chart that has some")
			}
			b.ReportAllocs()
			for b.Loop() {
				Lint(spec, tab, env)
			}
		})
	}
	b.Run("scatter", func(b *testing.B) {
		spec := f.newSpec(b, "scatter", tab)
		env := LintEnv{Catalog: f.cat}
		b.ReportAllocs()
		for b.Loop() {
			Lint(spec, tab, env)
		}
	})
}
