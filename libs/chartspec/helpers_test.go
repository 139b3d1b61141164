package chartspec

import (
	"encoding/json"
	"flag"
	"fmt"
	"strings"
	"testing"

	"chartd.dev/charts"
	"chartd.dev/libs/dataset"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

// fixture is the catalog and compiled ops shared by a test.
type fixture struct {
	cat *charts.Catalog
	ops *Ops
}

func newFixture(t testing.TB) fixture {
	t.Helper()
	cat, err := charts.Load()
	if err != nil {
		t.Fatalf("load catalog: %v", err)
	}
	ops, err := NewOps(cat)
	if err != nil {
		t.Fatalf("new ops: %v", err)
	}
	return fixture{cat: cat, ops: ops}
}

// parseCSV reads CSV text into a table.
func parseCSV(t testing.TB, csv string) *dataset.Table {
	t.Helper()
	tab, _, err := dataset.Parse(csv, "csv")
	if err != nil {
		t.Fatalf("parse %q: %v", csv, err)
	}
	return tab
}

// newSpec is a fresh spec of a type for a table, with the default palette.
func (f fixture) newSpec(t testing.TB, typ string, tab *dataset.Table) *Spec {
	t.Helper()
	ct, ok := f.cat.Type(typ)
	if !ok {
		t.Fatalf("no chart type %s", typ)
	}
	return New(ct, tab, f.cat.DefaultPalette().Colors)
}

// apply applies ops and fails the test on a refusal.
func (f fixture) apply(t testing.TB, spec *Spec, tab *dataset.Table, ops ...string) *Spec {
	t.Helper()
	out, err := f.ops.Apply(spec, raws(ops...), Env{Table: tab})
	if err != nil {
		t.Fatalf("apply %v: %v", ops, err)
	}
	return out
}

func raws(ops ...string) []json.RawMessage {
	out := make([]json.RawMessage, len(ops))
	for i, o := range ops {
		out[i] = json.RawMessage(o)
	}
	return out
}

// afterSteps runs the spec's steps on tab, as the chart service does.
func afterSteps(t testing.TB, spec *Spec, tab *dataset.Table) *dataset.Table {
	t.Helper()
	steps, err := dataset.DecodeSteps(mustJSON(t, spec.Steps))
	if err != nil {
		t.Fatalf("decode steps: %v", err)
	}
	out, err := dataset.ApplyAll(tab, steps, dataset.Defaults{ValueColumn: spec.ValueColumn()})
	if err != nil {
		t.Fatalf("apply steps: %v", err)
	}
	return out
}

func mustJSON(t testing.TB, v any) []byte {
	t.Helper()
	if s, ok := v.([]json.RawMessage); ok && s == nil {
		return []byte("[]")
	}
	b, err := json.Marshal(v)
	if err != nil {
		t.Fatalf("marshal: %v", err)
	}
	return b
}

// salesCSV is a small bar-chart table: Country, Sales, Profit.
const salesCSV = "Country,Sales,Profit\nFrance,10,2\nSpain,5,1\nItaly,7,3\n"

// rowsCSV builds a CSV with a header and n rows from a row function.
func rowsCSV(header string, n int, row func(i int) string) string {
	var b strings.Builder
	b.WriteString(header + "\n")
	for i := 0; i < n; i++ {
		b.WriteString(row(i) + "\n")
	}
	return b.String()
}

// wideCSV is a table with a text column and k number columns of n rows.
func wideCSV(n, k int) string {
	var b strings.Builder
	b.WriteString("Name")
	for j := 0; j < k; j++ {
		fmt.Fprintf(&b, ",S%d", j+1)
	}
	b.WriteByte('\n')
	for i := 0; i < n; i++ {
		fmt.Fprintf(&b, "Item %d", i)
		for j := 0; j < k; j++ {
			fmt.Fprintf(&b, ",%d", (i*7+j*13)%97+1)
		}
		b.WriteByte('\n')
	}
	return b.String()
}
