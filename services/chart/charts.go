package chart

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"
	"strings"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/gorilla/mux"

	"chartd.dev/charts"
	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/httpx"
	"chartd.dev/libs/plan"
	"chartd.dev/libs/store"
)

// CreateRequest is the create_chart body.
type CreateRequest struct {
	Type    *string           `json:"type"`
	Example *string           `json:"example"`
	Data    jsontext.Value    `json:"data"`
	Format  *string           `json:"format"`
	Name    *string           `json:"name"`
	Ops     []json.RawMessage `json:"ops"`
}

// CreateAnswer is the create_chart answer.
type CreateAnswer struct {
	Chart    Record           `json:"chart"`
	Columns  []dataset.Column `json:"columns"`
	Warnings []Problem        `json:"warnings"`
	Notices  []dataset.Notice `json:"notices"`
}

func (s *Service) chartType(name string) (charts.ChartType, error) {
	ct, ok := s.deps.Catalog.Type(name)
	if !ok {
		return ct, apierr.New(apierr.InvalidRequest, "type %q is not a chart type; use one of %s (GET /chart-types describes them)", name, s.typeNames())
	}
	return ct, nil
}

func (s *Service) create(w http.ResponseWriter, r *http.Request) error {
	if err := httpx.CheckQuery(r); err != nil {
		return err
	}
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	var req CreateRequest
	if err := httpx.DecodeJSON(r, &req); err != nil {
		return err
	}
	format, err := dataset.CheckFormat("format", req.Format)
	if err != nil {
		return err
	}
	var (
		ct      charts.ChartType
		spec    *chartspec.Spec
		table   *dataset.Table
		notices []dataset.Notice
		raw     jsontext.Value
	)
	switch {
	case req.Type != nil && req.Example != nil:
		return apierr.New(apierr.InvalidRequest, "give either type (with or without data) or example, not both")
	case req.Example != nil:
		if httpx.Present(req.Data) || req.Format != nil {
			return apierr.New(apierr.InvalidRequest, "an example brings its own data; to chart your data send type and data instead of example")
		}
		ex, ok := s.deps.Catalog.Example(*req.Example)
		if !ok {
			return apierr.New(apierr.InvalidRequest, "example %q does not exist; GET /examples lists them", *req.Example)
		}
		if ct, err = s.chartType(ex.Type); err != nil {
			return err
		}
		raw = jsontext.Value(mustJSON(ex.Data()))
		format = "csv"
		if table, notices, err = dataset.ParseRequest(raw, format); err != nil {
			return err
		}
		spec = chartspec.FromExample(s.deps.Catalog, ct, ex, table)
	case req.Type != nil:
		if ct, err = s.chartType(*req.Type); err != nil {
			return err
		}
		if httpx.Present(req.Data) {
			raw = req.Data
		} else {
			if req.Format != nil {
				return apierr.New(apierr.InvalidRequest, "format is given without data; send data, or leave format out to start from the type's sample data")
			}
			sample := s.deps.Catalog.Sample(ct.Type)
			raw, format = jsontext.Value(mustJSON(sample.Data())), "csv"
		}
		if table, notices, err = dataset.ParseRequest(raw, format); err != nil {
			return err
		}
		if !httpx.Present(req.Data) {
			spec = chartspec.FromExample(s.deps.Catalog, ct, s.deps.Catalog.Sample(ct.Type), table)
		} else {
			spec = chartspec.New(ct, table, s.deps.Catalog.DefaultPalette().Colors)
		}
	default:
		return apierr.New(apierr.InvalidRequest, "give type (a chart type, with data or alone for sample data) or example (a gallery id); GET /chart-types and GET /examples list them")
	}
	if len(req.Ops) > 0 {
		if spec, err = s.deps.Ops.ApplyRequest(r.Context(), spec, req.Ops, table, s.brandOf(p)); err != nil {
			return err
		}
	}
	spec.DataVersion = chartspec.DataVersionOf(format, raw)
	name := defaultName(spec, ct.Label)
	if req.Name != nil {
		if name, err = checkName(*req.Name); err != nil {
			return err
		}
	}
	body, err := encodeSpec(spec)
	if err != nil {
		return err
	}
	c, err := s.deps.Charts.CreateChart(r.Context(), store.Chart{AccountID: p.AccountID, Name: name, Type: spec.Type, Spec: body}, plan.LimitsOf(p.Plan).SavedCharts)
	if errors.Is(err, store.ErrLimit) {
		return s.limitReached(p)
	}
	if err != nil {
		return fmt.Errorf("create chart: %w", err)
	}
	if err := s.deps.Data.PutDataset(r.Context(), p, c.ID, clients.Dataset{Format: format, Raw: json.RawMessage(raw)}); err != nil {
		if derr := s.deps.Charts.DeleteChart(context.WithoutCancel(r.Context()), p.AccountID, c.ID); derr != nil {
			s.deps.Log.ErrorContext(r.Context(), "undo chart create", "chart", c.ID, "err", derr)
		}
		return fmt.Errorf("store data of chart %s: %w", c.ID, err)
	}
	httpx.WriteJSON(w, http.StatusCreated, CreateAnswer{
		Chart:    s.record(c),
		Columns:  columnsOf(table),
		Warnings: s.lint(spec, table),
		Notices:  notices,
	})
	return nil
}

func (s *Service) limitReached(p auth.Principal) error {
	lim := plan.LimitsOf(p.Plan).SavedCharts
	if p.Plan == plan.Free {
		return apierr.New(apierr.ChartLimitReached, "the free plan holds %d saved charts and this account has reached it; delete a chart or move to the pro plan", lim)
	}
	return apierr.New(apierr.ChartLimitReached, "this account holds its limit of %d saved charts; delete charts to make room", lim)
}

func mustJSON(v any) []byte {
	b, _ := json.Marshal(v)
	return b
}

// brandOf reads p's brand palette when an op asks for it.
func (s *Service) brandOf(p auth.Principal) func(context.Context) ([]string, error) {
	if s.deps.Brand == nil {
		return nil
	}
	return func(ctx context.Context) ([]string, error) { return s.deps.Brand(ctx, p) }
}

func columnsOf(t *dataset.Table) []dataset.Column {
	out := make([]dataset.Column, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = dataset.Column{ID: c.ID, Name: c.Name, Kind: c.Kind}
	}
	return out
}

// loadedChart is a saved chart with its spec and data (before steps).
type loadedChart struct {
	c      store.Chart
	spec   *chartspec.Spec
	table  *dataset.Table
	format string
	raw    json.RawMessage
}

// loadMode says how much of a chart to load.
type loadMode int

const (
	// specOnly loads the chart row.
	specOnly loadMode = iota
	// withData adds the parsed data (from the cache when it is fresh).
	withData
	// withRaw adds the data as sent too (include=spec, restoring data).
	withRaw
)

// loadChart loads a chart of p's account as far as mode says.
func (s *Service) loadChart(ctx context.Context, p auth.Principal, id string, mode loadMode) (loadedChart, error) {
	if !validID(id) {
		return loadedChart{}, notFound(id)
	}
	c, err := s.deps.Charts.GetChart(ctx, p.AccountID, id)
	if err != nil {
		return loadedChart{}, storeErr(id, err, "load chart")
	}
	spec, err := decodeSpec(c)
	if err != nil {
		return loadedChart{}, err
	}
	l := loadedChart{c: c, spec: spec, table: &dataset.Table{}}
	if mode == specOnly {
		return l, nil
	}
	if t, ok := s.tables.Get(id, p.AccountID, spec.DataVersion); ok && mode == withData && spec.DataVersion != "" {
		l.table = t
		return l, nil
	}
	d, err := s.deps.Data.GetDataset(ctx, p, id)
	var ae *apierr.Error
	if errors.As(err, &ae) && ae.Code == apierr.NotFound {
		return l, nil
	}
	if err != nil {
		return loadedChart{}, fmt.Errorf("load data of chart %s: %w", id, err)
	}
	t, _, err := dataset.Parse(d.Raw, d.Format)
	if err != nil {
		return loadedChart{}, fmt.Errorf("parse stored data of chart %s: %w", id, err)
	}
	l.table, l.format, l.raw = t, d.Format, d.Raw
	if spec.DataVersion != "" {
		s.tables.Add(id, p.AccountID, spec.DataVersion, t)
	}
	return l, nil
}

// The parsed-data cache holds up to tableCacheSize charts of at most
// maxCachedCells cells each: about 100 MB at worst.
const (
	tableCacheSize = 64
	maxCachedCells = 100_000
)

// afterSteps is the chart's data after its steps (failing steps skipped).
func afterSteps(spec *chartspec.Spec, t *dataset.Table) *dataset.Table {
	out, _ := spec.AfterSteps(t)
	return out
}

// ListAnswer is the list_charts answer.
type ListAnswer struct {
	Charts     []Record `json:"charts"`
	NextCursor *string  `json:"next_cursor"`
}

func (s *Service) list(w http.ResponseWriter, r *http.Request) error {
	if err := httpx.CheckQuery(r, "limit", "cursor"); err != nil {
		return err
	}
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	limit, err := httpx.QueryInt(r, "limit", 50, 1, 100)
	if err != nil {
		return err
	}
	cs, next, err := s.deps.Charts.ListCharts(r.Context(), p.AccountID, limit, r.URL.Query().Get("cursor"))
	if errors.Is(err, store.ErrBadCursor) {
		return apierr.New(apierr.InvalidRequest, "cursor is not one this API gave out; pass next_cursor from the previous page unchanged, or leave it out for the first page")
	}
	if err != nil {
		return fmt.Errorf("list charts: %w", err)
	}
	out := ListAnswer{Charts: make([]Record, 0, len(cs))}
	for _, c := range cs {
		out.Charts = append(out.Charts, s.record(c))
	}
	if next != "" {
		out.NextCursor = &next
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

// GetAnswer is the get_chart answer; Spec only with include=spec.
type GetAnswer struct {
	Chart Record    `json:"chart"`
	State State     `json:"state"`
	Spec  *FullSpec `json:"spec,omitempty"`
}

func (s *Service) get(w http.ResponseWriter, r *http.Request) error {
	if err := httpx.CheckQuery(r, "include"); err != nil {
		return err
	}
	include := r.URL.Query().Get("include")
	if r.URL.Query().Has("include") && include != "spec" {
		return apierr.New(apierr.InvalidRequest, "include %q: the only value is spec", include)
	}
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	mode := withData
	if include == "spec" {
		mode = withRaw
	}
	l, err := s.loadChart(r.Context(), p, mux.Vars(r)["id"], mode)
	if err != nil {
		return err
	}
	out := GetAnswer{Chart: s.record(l.c), State: s.state(l)}
	if include == "spec" {
		out.Spec = fullSpec(l)
	}
	httpx.WriteJSON(w, http.StatusOK, out)
	return nil
}

// RenameRequest is the rename_chart body.
type RenameRequest struct {
	Name *string `json:"name"`
}

func (s *Service) rename(w http.ResponseWriter, r *http.Request) error {
	if err := httpx.CheckQuery(r); err != nil {
		return err
	}
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	var req RenameRequest
	if err := httpx.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Name == nil {
		return apierr.New(apierr.InvalidRequest, "name is required: send {\"name\": \"…\"}")
	}
	name, err := checkName(*req.Name)
	if err != nil {
		return err
	}
	l, err := s.loadChart(r.Context(), p, mux.Vars(r)["id"], specOnly)
	if err != nil {
		return err
	}
	l.c.Name = name
	c, err := s.deps.Charts.UpdateChart(r.Context(), l.c, nil)
	if err != nil {
		return storeErr(l.c.ID, err, "rename chart")
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]Record{"chart": s.record(c)})
	return nil
}

func (s *Service) duplicate(w http.ResponseWriter, r *http.Request) error {
	if err := httpx.CheckQuery(r); err != nil {
		return err
	}
	if err := noBody(r); err != nil {
		return err
	}
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	id := mux.Vars(r)["id"]
	l, err := s.loadChart(r.Context(), p, id, specOnly)
	if err != nil {
		return err
	}
	var data clients.Dataset
	hasData := true
	data, err = s.deps.Data.GetDataset(r.Context(), p, id)
	if ae := (*apierr.Error)(nil); errors.As(err, &ae) && ae.Code == apierr.NotFound {
		hasData = false
	} else if err != nil {
		return fmt.Errorf("load data of chart %s: %w", id, err)
	}
	name := "Copy of " + l.c.Name
	if r := []rune(name); len(r) > 200 {
		name = string(r[:200])
	}
	c, err := s.deps.Charts.CreateChart(r.Context(), store.Chart{AccountID: p.AccountID, Name: name, Type: l.c.Type, Spec: l.c.Spec}, plan.LimitsOf(p.Plan).SavedCharts)
	if errors.Is(err, store.ErrLimit) {
		return s.limitReached(p)
	}
	if err != nil {
		return fmt.Errorf("duplicate chart %s: %w", id, err)
	}
	if hasData {
		if err := s.deps.Data.PutDataset(r.Context(), p, c.ID, data); err != nil {
			s.deps.Charts.DeleteChart(context.WithoutCancel(r.Context()), p.AccountID, c.ID)
			return fmt.Errorf("copy data of chart %s: %w", id, err)
		}
	}
	httpx.WriteJSON(w, http.StatusCreated, map[string]Record{"chart": s.record(c)})
	return nil
}

// noBody refuses a body on endpoints that take none (an empty JSON object
// is tolerated, as many clients send one).
func noBody(r *http.Request) error {
	if r.Body == nil || r.Body == http.NoBody {
		return nil
	}
	buf := make([]byte, 64)
	n, _ := r.Body.Read(buf)
	if b := strings.TrimSpace(string(buf[:n])); b != "" && b != "{}" {
		return apierr.New(apierr.InvalidRequest, "this endpoint takes no body; send none")
	}
	return nil
}

func (s *Service) delete(w http.ResponseWriter, r *http.Request) error {
	if err := httpx.CheckQuery(r); err != nil {
		return err
	}
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	id := mux.Vars(r)["id"]
	if !validID(id) {
		return notFound(id)
	}
	if err := s.deps.Charts.DeleteChart(r.Context(), p.AccountID, id); err != nil {
		return storeErr(id, err, "delete chart")
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"deleted": true, "id": id})
	return nil
}

// getSpec is the internal call the data service makes for summaries and
// queries.
func (s *Service) getSpec(w http.ResponseWriter, r *http.Request) error {
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	l, err := s.loadChart(r.Context(), p, mux.Vars(r)["id"], specOnly)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, clients.ChartSpec{Spec: l.c.Spec, UpdatedAt: s.record(l.c).UpdatedAt})
	return nil
}
