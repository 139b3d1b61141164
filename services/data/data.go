// Package data is the data service: it owns the datasets table (each
// chart's data as sent) and answers describe_data and query_data, computed
// on the data after the chart's steps.
package data

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/httpx"
	"chartd.dev/libs/store"
)

// Config is the data service's settings.
type Config struct {
	PublicURL     string
	InternalToken string
}

// Deps are the parts the service is built from.
type Deps struct {
	Datasets store.Datasets
	// Charts reads chart specs (steps, mapping) from the chart service.
	Charts clients.Chart
	Log    *slog.Logger
}

// Service is the data service.
type Service struct {
	cfg     Config
	deps    Deps
	docsURL string
	errs    httpx.Errors
}

// New builds the service.
func New(cfg Config, deps Deps) (*Service, error) {
	if deps.Datasets == nil || deps.Log == nil {
		return nil, fmt.Errorf("data service: Datasets and Log are required")
	}
	docs := strings.TrimRight(cfg.PublicURL, "/") + "/docs"
	return &Service{cfg: cfg, deps: deps, docsURL: docs, errs: httpx.Errors{DocsURL: docs}}, nil
}

// Routes registers the service's routes on r.
func (s *Service) Routes(r *mux.Router) {
	r.Methods(http.MethodGet).Path("/api/v1/charts/{id}/data/summary").Handler(s.errs.Wrap(s.describe))
	r.Methods(http.MethodPost).Path("/api/v1/charts/{id}/data/query").Handler(s.errs.Wrap(s.query))
	r.Methods(http.MethodPut).Path("/internal/v1/datasets/{id}").Handler(s.errs.Wrap(s.putDataset))
	r.Methods(http.MethodGet).Path("/internal/v1/datasets/{id}").Handler(s.errs.Wrap(s.getDataset))
}

// Handler is the service behind the internal-token check.
func (s *Service) Handler() http.Handler {
	r := mux.NewRouter()
	s.Routes(r)
	r.NotFoundHandler = s.errs.Wrap(func(w http.ResponseWriter, r *http.Request) error {
		return apierr.New(apierr.NotFound, "no endpoint %s %s in the data service", r.Method, r.URL.Path)
	})
	return auth.Internal(s.cfg.InternalToken, s.docsURL, r)
}

func chartNotFound(id string) error {
	return apierr.New(apierr.NotFound, "no chart %s in this account; list your charts with GET /charts", id)
}

func (s *Service) putDataset(w http.ResponseWriter, r *http.Request) error {
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	var d clients.Dataset
	body, err := readAll(r)
	if err != nil {
		return err
	}
	if err := json.Unmarshal(body, &d); err != nil {
		return apierr.Wrap(apierr.InvalidRequest, err, "dataset body is not valid")
	}
	id := mux.Vars(r)["id"]
	err = s.deps.Datasets.PutDataset(r.Context(), store.Dataset{ChartID: id, AccountID: p.AccountID, Format: d.Format, Raw: d.Raw})
	if errors.Is(err, store.ErrNotFound) {
		return chartNotFound(id)
	}
	if err != nil {
		return fmt.Errorf("put dataset %s: %w", id, err)
	}
	w.WriteHeader(http.StatusNoContent)
	return nil
}

func (s *Service) getDataset(w http.ResponseWriter, r *http.Request) error {
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	id := mux.Vars(r)["id"]
	d, err := s.deps.Datasets.GetDataset(r.Context(), p.AccountID, id)
	if errors.Is(err, store.ErrNotFound) {
		return chartNotFound(id)
	}
	if err != nil {
		return fmt.Errorf("get dataset %s: %w", id, err)
	}
	httpx.WriteJSON(w, http.StatusOK, clients.Dataset{Format: d.Format, Raw: d.Raw})
	return nil
}

func readAll(r *http.Request) ([]byte, error) {
	b, err := io.ReadAll(r.Body)
	if err != nil {
		return nil, fmt.Errorf("read dataset body: %w", err)
	}
	return b, nil
}

// loaded is a chart's spec and its table before steps.
type loaded struct {
	spec  *chartspec.Spec
	table *dataset.Table
}

// load reads the chart's spec (from the chart service) and data.
func (s *Service) load(r *http.Request, p auth.Principal, id string) (loaded, error) {
	cs, err := s.deps.Charts.GetSpec(r.Context(), p, id)
	if err != nil {
		return loaded{}, err
	}
	var spec chartspec.Spec
	if err := json.Unmarshal(cs.Spec, &spec); err != nil {
		return loaded{}, fmt.Errorf("decode spec of %s: %w", id, err)
	}
	d, err := s.deps.Datasets.GetDataset(r.Context(), p.AccountID, id)
	if errors.Is(err, store.ErrNotFound) {
		return loaded{spec: &spec, table: &dataset.Table{}}, nil
	}
	if err != nil {
		return loaded{}, fmt.Errorf("get dataset %s: %w", id, err)
	}
	t, _, err := dataset.Parse(json.RawMessage(d.Raw), d.Format)
	if err != nil {
		return loaded{}, fmt.Errorf("parse stored data of %s: %w", id, err)
	}
	return loaded{spec: &spec, table: t}, nil
}

// StepProblem is one step that failed in query_data: `in` is "chart" for
// the chart's own steps and "query" for the steps sent with the query.
type StepProblem struct {
	In      string `json:"in"`
	Index   int    `json:"index"`
	Message string `json:"message"`
}

// applyChartSteps runs the chart's steps, keeping going past failures.
func applyChartSteps(l loaded) (*dataset.Table, []StepProblem) {
	t, errs := l.spec.AfterSteps(l.table)
	return t, problems("chart", errs)
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

func (s *Service) describe(w http.ResponseWriter, r *http.Request) error {
	if err := httpx.CheckQuery(r); err != nil {
		return err
	}
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	l, err := s.load(r, p, mux.Vars(r)["id"])
	if err != nil {
		return err
	}
	t, _ := applyChartSteps(l)
	httpx.WriteJSON(w, http.StatusOK, Summary{Rows: t.Rows, Columns: dataset.Describe(t)})
	return nil
}

// QueryRequest is the query_data body.
type QueryRequest struct {
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

func (s *Service) query(w http.ResponseWriter, r *http.Request) error {
	if err := httpx.CheckQuery(r); err != nil {
		return err
	}
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	var req QueryRequest
	if r.ContentLength != 0 || r.Header.Get("Content-Type") != "" {
		if err := httpx.DecodeJSON(r, &req); err != nil {
			return err
		}
	}
	limit := 100
	if req.Limit != nil {
		if *req.Limit < 1 || *req.Limit > 1000 {
			return apierr.New(apierr.InvalidRequest, "limit must be an integer from 1 to 1000, not %d", *req.Limit)
		}
		limit = *req.Limit
	}
	l, err := s.load(r, p, mux.Vars(r)["id"])
	if err != nil {
		return err
	}
	t, probs := applyChartSteps(l)
	t, qerrs := dataset.TryRaw(t, req.Steps, dataset.Defaults{ValueColumn: l.spec.ValueColumn()})
	probs = append(probs, problems("query", qerrs)...)
	cols := make([]string, len(t.Columns))
	for i, c := range t.Columns {
		cols[i] = c.ID + " (" + c.Name + ")"
	}
	rows := dataset.Rows(t, limit)
	if rows == nil {
		rows = [][]any{}
	}
	httpx.WriteJSON(w, http.StatusOK, QueryAnswer{Columns: cols, Rows: rows, TotalRows: t.Rows, Errors: probs})
	return nil
}
