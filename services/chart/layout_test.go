package chart

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"testing"
	"time"

	"chartd.dev/charts"
	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/dataset"
)

// fixedLayouts answers one layout, or an error, for every chart.
type fixedLayouts struct {
	layout clients.Layout
	err    error
}

func (f fixedLayouts) Layout(context.Context, auth.Principal, string) (clients.Layout, error) {
	return f.layout, f.err
}

// TestLintLayoutProblems: the render service's needs_more_room notices
// join chartspec's problems as warns, before the infos, and labels_hidden
// as an info note, for the version linted only; other notices, an error or
// another version leave them out.
func TestLintLayoutProblems(t *testing.T) {
	cat, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	tab, _, err := dataset.Parse("Country,Sales\nA,1\nB,2\n", "csv")
	if err != nil {
		t.Fatal(err)
	}
	ct, _ := cat.Type("bar")
	spec := chartspec.New(ct, tab, cat.DefaultPalette().Colors) // no title: a missing-title info
	at := time.Date(2026, 11, 27, 9, 41, 7, 123456000, time.UTC)
	room := dataset.Notice{Code: chartspec.NoticeNeedsRoom, Message: "the title is cut after 2 lines; make the chart 260 px tall or shorten the title"}
	tests := []struct {
		name    string
		layouts Layouts
		want    []string // problem ids in order
	}{
		{"no render service", nil, []string{chartspec.CheckMissingTitle}},
		{"the version linted", fixedLayouts{layout: clients.Layout{UpdatedAt: at, Notices: []dataset.Notice{{Code: "points_aggregated", Message: "x"}, room}}},
			[]string{chartspec.CheckNeedsRoom, chartspec.CheckMissingTitle}},
		{"labels dropped are a note", fixedLayouts{layout: clients.Layout{UpdatedAt: at, Notices: []dataset.Notice{{Code: "labels_hidden", Message: "12 labels dropped"}, room}}},
			[]string{chartspec.CheckNeedsRoom, chartspec.CheckMissingTitle, chartspec.CheckLabelsHidden}},
		{"the same version at nanoseconds", fixedLayouts{layout: clients.Layout{UpdatedAt: at.Add(999), Notices: []dataset.Notice{room}}},
			[]string{chartspec.CheckNeedsRoom, chartspec.CheckMissingTitle}},
		{"another version", fixedLayouts{layout: clients.Layout{UpdatedAt: at.Add(time.Microsecond), Notices: []dataset.Notice{room}}},
			[]string{chartspec.CheckMissingTitle}},
		{"render refuses", fixedLayouts{err: apierr.New(apierr.InvalidRequest, "cannot draw")}, []string{chartspec.CheckMissingTitle}},
		{"render away", fixedLayouts{err: errors.New("connection refused")}, []string{chartspec.CheckMissingTitle}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			s := &Service{cfg: Config{LayoutTimeout: time.Second}, deps: Deps{Catalog: cat, Layouts: tt.layouts, Log: slog.New(slog.NewTextHandler(io.Discard, nil))}}
			got, err := s.lint(context.Background(), saved{id: "x", updatedAt: at}, spec, tab)
			if err != nil {
				t.Fatal(err)
			}
			var ids []string
			for _, p := range got {
				ids = append(ids, p.ID)
			}
			if len(ids) != len(tt.want) {
				t.Fatalf("problems %v, want %v", got, tt.want)
			}
			for i := range ids {
				if ids[i] != tt.want[i] {
					t.Fatalf("problems %v, want %v", got, tt.want)
				}
			}
		})
	}
}
