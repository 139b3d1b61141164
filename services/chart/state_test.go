package chart

import (
	"context"
	"errors"
	"fmt"
	"strings"
	"testing"

	"chartd.dev/charts"
	"chartd.dev/libs/aggregate"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// wide is a bar chart on cols columns × 1 row, its values mapped to every
// number column, and the service that describes it.
func wide(tb testing.TB, cols int) (*Service, *chartspec.Spec, *dataset.Table) {
	tb.Helper()
	cat, err := charts.Load()
	if err != nil {
		tb.Fatal(err)
	}
	var b strings.Builder
	b.WriteString("label")
	for j := 2; j <= cols; j++ {
		fmt.Fprintf(&b, ",s%d", j)
	}
	b.WriteString("\nx")
	for j := 2; j <= cols; j++ {
		fmt.Fprintf(&b, ",%d", j)
	}
	t, _, err := dataset.Parse(b.String(), "csv")
	if err != nil {
		tb.Fatal(err)
	}
	ct, _ := cat.Type("bar")
	return &Service{deps: Deps{Catalog: cat}}, chartspec.New(ct, t, cat.DefaultPalette().Colors), t
}

func TestRolesWide(t *testing.T) {
	s, spec, tab := wide(t, 100_000)
	shifted := &dataset.Table{Rows: tab.Rows, Columns: tab.Columns[1:]}
	tests := []struct {
		name    string
		t       *dataset.Table
		missing int
	}{
		{"ids in place", tab, 0},
		{"ids shifted by a step", shifted, 0},
		{"columns gone", &dataset.Table{Rows: 1, Columns: tab.Columns[:1]}, 99_999},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			roles := s.roles(spec, tt.t)
			if len(roles) != 2 || !strings.HasPrefix(roles[1], "values") || !strings.Contains(roles[1], "c100000 (s100000)") != (tt.missing > 0) {
				t.Fatalf("roles %.200q", roles)
			}
			if n := strings.Count(roles[1], "(missing)"); n != tt.missing {
				t.Fatalf("%d columns missing, want %d", n, tt.missing)
			}
		})
	}
}

func TestStateStopsWhenTheClientHasGone(t *testing.T) {
	s, spec, tab := wide(t, 50)
	l := &aggregate.Chart{Spec: spec, Table: tab}
	tests := []struct {
		name    string
		cancel  bool
		wantErr error
	}{
		{"client there", false, nil},
		{"client gone", true, context.Canceled},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			ctx, cancel := context.WithCancel(context.Background())
			defer cancel()
			if tt.cancel {
				cancel()
			}
			st, err := s.state(ctx, auth.Principal{}, l)
			if !errors.Is(err, tt.wantErr) || (err == nil && (st.ColumnCount != 50 || len(st.Roles) != 2)) {
				t.Fatalf("state answered %+v, %v", st.Roles, err)
			}
		})
	}
}

// BenchmarkRoles is get_chart's role description on 100,000 columns.
func BenchmarkRoles(b *testing.B) {
	s, spec, tab := wide(b, 100_000)
	b.ReportAllocs()
	for b.Loop() {
		s.roles(spec, tab)
	}
}
