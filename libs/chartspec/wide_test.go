package chartspec

import (
	"context"
	"errors"
	"strings"
	"testing"

	"chartd.dev/libs/dataset"
)

// wideColumns is the width of issue 12's data: 100,000 columns, one row.
const wideColumns = 100_000

// TestWideData runs the per-column paths on 100,000 columns (they took
// 40 to 80 s when each id was looked up by scanning the columns); each
// answer must still be right and its messages short.
func TestWideData(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, wideCSV(1, wideColumns))
	spec := f.newSpec(t, "bar", tab)
	if n := len(spec.Mapping.Cols("values")); n != wideColumns {
		t.Fatalf("values maps %d columns, want %d", n, wideColumns)
	}
	// The same data after a step that drops the first column: every id
	// now sits one place early, so lookups by position miss.
	shifted := &dataset.Table{Rows: tab.Rows, Columns: tab.Columns[1:]}
	tests := []struct {
		name  string
		check func(t *testing.T)
	}{
		{"series stop at the limit", func(t *testing.T) {
			s := ChartSeries(spec, tab, maxColorSeries)
			if len(s) != maxColorSeries || s[0].Key != "c2" || s[maxColorSeries-1].Key != "c25" {
				t.Fatalf("%d series from %s to %s", len(s), s[0].Key, s[len(s)-1].Key)
			}
		}},
		{"every series without a limit", func(t *testing.T) {
			if s := ChartSeries(spec, shifted, 0); len(s) != wideColumns || s[len(s)-1].Key != "c100001" {
				t.Fatalf("%d series", len(s))
			}
		}},
		{"lint names too many series", func(t *testing.T) {
			if !hasProblem(Lint(spec, tab, LintEnv{Catalog: f.cat}), CheckTooManySeries) {
				t.Fatal("no too-many-series problem")
			}
		}},
		{"a message about many missing columns stays short", func(t *testing.T) {
			gone := &dataset.Table{Rows: tab.Rows, Columns: tab.Columns[:1]}
			found := false
			for _, p := range Lint(spec, gone, LintEnv{Catalog: f.cat}) {
				if p.ID != CheckMissingRole || !strings.Contains(p.Message, "values") {
					continue
				}
				found = true
				if len(p.Message) > 2000 || !strings.Contains(p.Message, "(100000 in all)") {
					t.Fatalf("missing-role message of %d bytes: %.300s", len(p.Message), p.Message)
				}
			}
			if !found {
				t.Fatal("no missing-role problem for values")
			}
		}},
		{"mapping kept on shifted columns", func(t *testing.T) {
			ct, _ := f.cat.Type("bar")
			if m := KeepMapping(spec.Mapping, ct, shifted); len(m.Cols("values")) != wideColumns {
				t.Fatalf("kept %d value columns", len(m.Cols("values")))
			}
		}},
	}
	for _, tt := range tests {
		t.Run(tt.name, tt.check)
	}
}

func hasProblem(ps []Problem, id string) bool {
	for _, p := range ps {
		if p.ID == id {
			return true
		}
	}
	return false
}

// TestLintContextStops: a lint whose caller has gone answers ctx's error.
func TestLintContextStops(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, wideCSV(40, 3))
	spec := f.newSpec(t, "bar", tab)
	tests := []struct {
		name    string
		cancel  bool
		wantErr error
	}{
		{"caller there", false, nil},
		{"caller gone", true, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				cancel()
			}
			ps, err := LintContext(ctx, spec, tab, LintEnv{Catalog: f.cat})
			if !errors.Is(err, tt.wantErr) || (err == nil && !hasProblem(ps, CheckTooManyCategories)) {
				t.Fatalf("LintContext answered %v, %v", ps, err)
			}
		})
	}
}

// BenchmarkWide is the per-column hot paths of issue 12 on 100,000
// columns × 1 row, the ids in place and shifted by one (after a step).
func BenchmarkWide(b *testing.B) {
	f := newFixture(b)
	tab := parseCSV(b, wideCSV(1, wideColumns))
	spec := f.newSpec(b, "bar", tab)
	shifted := &dataset.Table{Rows: tab.Rows, Columns: tab.Columns[1:]}
	ct, _ := f.cat.Type("bar")
	benches := []struct {
		name string
		run  func()
	}{
		{"ChartSeries", func() { ChartSeries(spec, tab, 0) }},
		{"ChartSeries/shifted", func() { ChartSeries(spec, shifted, 0) }},
		{"Lint", func() { Lint(spec, tab, LintEnv{Catalog: f.cat}) }},
		{"Lint/shifted", func() { Lint(spec, shifted, LintEnv{Catalog: f.cat}) }},
		{"AutoMapping", func() { AutoMapping(ct, tab) }},
		{"KeepMapping/shifted", func() { KeepMapping(spec.Mapping, ct, shifted) }},
	}
	for _, bb := range benches {
		b.Run(bb.name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				bb.run()
			}
		})
	}
}
