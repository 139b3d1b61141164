// Package data is the data service: it computes describe_data and
// query_data on a chart's data after its steps. It owns no table: it reads
// the chart aggregate from the chart service, its owner, in one internal
// call, through the shared aggregate loader.
package data

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"net/http"

	"chartd.dev/libs/aggregate"
	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/route"
)

// Name is the service's name: its target and its flag prefix.
const Name = "data"

// Config is the data service's settings: its flags are -data.*.
type Config = aggregate.ReaderConfig

// Deps are the parts the service is built from.
type Deps struct {
	// Charts reads chart aggregates from their owner, the chart service.
	Charts aggregate.Source
	Log    *slog.Logger
}

// Service is the data service.
type Service struct {
	cfg    Config
	deps   Deps
	charts *aggregate.Loader
}

// New builds the service.
func New(cfg Config, deps Deps) (*Service, error) {
	if deps.Charts == nil || deps.Log == nil {
		return nil, fmt.Errorf("data service: Charts and Log are required")
	}
	loader, err := aggregate.NewLoader(deps.Charts, cfg.Tables)
	if err != nil {
		return nil, fmt.Errorf("data service: %w", err)
	}
	return &Service{cfg: cfg, deps: deps, charts: loader}, nil
}

// Endpoints is the service's route table.
func Endpoints() []route.Endpoint[*Service] {
	return []route.Endpoint[*Service]{
		route.JSON(route.Spec{Route: route.Route{Op: "describe_data", Method: http.MethodGet, Path: route.APIBase + "/charts/{id}/data/summary"}}, (*Service).describe),
		route.JSON(route.Spec{Route: route.Route{Op: "query_data", Method: http.MethodPost, Path: route.APIBase + "/charts/{id}/data/query"}, Body: route.BodyOptional}, (*Service).query),
	}
}

// Routes is the service's route table without handlers, for the gateway.
func Routes() []route.Route { return route.Routes(Endpoints()) }

// Handler is the service behind the internal-token check.
func (s *Service) Handler() http.Handler {
	return route.Handler(s.cfg.Site, Name, s, Endpoints(), s.deps.Log)
}

// applyChartSteps runs the chart's steps, keeping going past failures.
func applyChartSteps(l *aggregate.Chart) (*dataset.Table, []StepProblem) {
	t, errs := l.Spec.AfterSteps(l.Table)
	return t, problems("chart", errs)
}

// StepProblem is one step that failed in query_data: `in` is "chart" for
// the chart's own steps and "query" for the steps sent with the query.
type StepProblem struct {
	In      string `json:"in" enum:"chart,query"`
	Index   int    `json:"index"`
	Message string `json:"message"`
}

// problems labels step errors with where the steps came from.
func problems(in string, errs []dataset.StepError) []StepProblem {
	out := make([]StepProblem, 0, len(errs))
	for _, e := range errs {
		out = append(out, StepProblem{In: in, Index: e.Index, Message: e.Error()})
	}
	return out
}

// Summary is the describe_data answer.
type Summary struct {
	Rows    int                     `json:"rows"`
	Columns []dataset.ColumnSummary `json:"columns"`
}

// ChartID is the request of describe_data: the chart.
type ChartID struct {
	ID string `path:"id" json:"-"`
}

func (s *Service) describe(ctx context.Context, p auth.Principal, req ChartID) (Summary, error) {
	l, err := s.charts.Load(ctx, p, req.ID, aggregate.WithTable)
	if err != nil {
		return Summary{}, err
	}
	t, _ := applyChartSteps(l)
	return Summary{Rows: t.Rows, Columns: dataset.Describe(t)}, nil
}

// QueryRequest is the query_data request.
type QueryRequest struct {
	ID    string            `path:"id" json:"-"`
	Steps []json.RawMessage `json:"steps"`
	Limit *int              `json:"limit"`
}

// QueryAnswer is the query_data answer.
type QueryAnswer struct {
	Columns   []string      `json:"columns"`
	Rows      [][]any       `json:"rows"`
	TotalRows int           `json:"total_rows"`
	Errors    []StepProblem `json:"errors"`
}

func (s *Service) query(ctx context.Context, p auth.Principal, req QueryRequest) (QueryAnswer, error) {
	limit := 100
	if req.Limit != nil {
		if *req.Limit < 1 || *req.Limit > 1000 {
			return QueryAnswer{}, apierr.New(apierr.InvalidRequest, "limit must be an integer from 1 to 1000, not %d", *req.Limit)
		}
		limit = *req.Limit
	}
	l, err := s.charts.Load(ctx, p, req.ID, aggregate.WithTable)
	if err != nil {
		return QueryAnswer{}, err
	}
	t, probs := applyChartSteps(l)
	t, qerrs := dataset.TryRaw(t, req.Steps, dataset.Defaults{ValueColumn: l.Spec.ValueColumn()})
	probs = append(probs, problems("query", qerrs)...)
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = c.ID + " (" + c.Name + ")"
	}
	rows := dataset.Rows(t, limit)
	if rows == nil {
		rows = [][]any{}
	}
	return QueryAnswer{Columns: cols, Rows: rows, TotalRows: t.Rows, Errors: probs}, nil
}
