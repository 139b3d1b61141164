package chart

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/gorilla/mux"

	"chartd.dev/charts"
	"chartd.dev/libs/aggregate"
	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
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
		if spec, table, notices, raw, format, err = s.example(ct, ex); err != nil {
			return err
		}
	case req.Type != nil:
		if ct, err = s.chartType(*req.Type); err != nil {
			return err
		}
		switch {
		case httpx.Present(req.Data):
			raw = req.Data
			if table, notices, err = dataset.ParseRequestContext(r.Context(), raw, format); err != nil {
				return err
			}
			spec = chartspec.New(ct, table, s.deps.Catalog.DefaultPalette().Colors)
			// Say where the automatic roles are a guess (setMapping fixes it).
			notices = append(notices, chartspec.AutoMappingNotices(ct, table)...)
		case req.Format != nil:
			return apierr.New(apierr.InvalidRequest, "format is given without data; send data, or leave format out to start from the type's sample data")
		default:
			if spec, table, notices, raw, format, err = s.example(ct, s.deps.Catalog.Sample(ct.Type)); err != nil {
				return err
			}
		}
	default:
		return apierr.New(apierr.InvalidRequest, "give type (a chart type, with data or alone for sample data) or example (a gallery id); GET /chart-types and GET /examples list them")
	}
	if len(req.Ops) > 0 {
		if spec, err = s.deps.Ops.ApplyRequest(r.Context(), spec, req.Ops, table, s.deps.Brand.PaletteOf(p)); err != nil {
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
	c, err := s.deps.Charts.CreateChart(r.Context(), store.Chart{AccountID: p.AccountID, Name: name, Type: spec.Type, Spec: body,
		Data: &store.Dataset{Format: format, Raw: []byte(raw)}}, plan.LimitsOf(p.Plan).SavedCharts)
	if errors.Is(err, store.ErrLimit) {
		return s.limitReached(p)
	}
	if err != nil {
		return fmt.Errorf("create chart: %w", err)
	}
	s.charts.Remember(p.AccountID, c.ID, spec.DataVersion, format, table)
	warnings, err := s.lint(r.Context(), saved{p: p, id: c.ID, updatedAt: c.UpdatedAt}, spec, table)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusCreated, CreateAnswer{
		Chart:    s.record(c),
		Columns:  columnsOf(table),
		Warnings: warnings,
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

// example is the chart of a gallery example: its spec, data and notices.
func (s *Service) example(ct charts.ChartType, ex charts.Example) (*chartspec.Spec, *dataset.Table, []dataset.Notice, jsontext.Value, string, error) {
	e, err := chartspec.Example(s.deps.Catalog, ct, ex)
	if err != nil {
		return nil, nil, nil, nil, "", err
	}
	return e.Spec, e.Table, e.Notices, jsontext.Value(e.Raw), e.Format, nil
}

func columnsOf(t *dataset.Table) []dataset.Column {
	out := make([]dataset.Column, len(t.Columns))
	for i, c := range t.Columns {
		out[i] = dataset.Column{ID: c.ID, Name: c.Name, Kind: c.Kind}
	}
	return out
}

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
	l, err := s.charts.Load(r.Context(), p, mux.Vars(r)["id"], aggregate.WithTable)
	if err != nil {
		return err
	}
	st, err := s.state(r.Context(), p, l)
	if err != nil {
		return err
	}
	out := GetAnswer{Chart: s.record(l.Stored), State: st}
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
	c, err := s.edit(r.Context(), p, mux.Vars(r)["id"], nil, aggregate.SpecOnly, func(_ *aggregate.Chart, c *store.Chart) error {
		c.Name = name
		return nil
	})
	if err != nil {
		return err
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
	if !aggregate.ValidID(id) {
		return aggregate.NotFound(id)
	}
	// One consistent read of spec and data, one transaction to write both.
	src, err := s.deps.Charts.GetChartWithData(r.Context(), p.AccountID, id)
	if err != nil {
		return aggregate.StoreError(id, err, "load chart")
	}
	name := "Copy of " + src.Name
	if r := []rune(name); len(r) > 200 {
		name = string(r[:200])
	}
	c, err := s.deps.Charts.CreateChart(r.Context(), store.Chart{AccountID: p.AccountID, Name: name, Type: src.Type, Spec: src.Spec, Data: src.Data},
		plan.LimitsOf(p.Plan).SavedCharts)
	if errors.Is(err, store.ErrLimit) {
		return s.limitReached(p)
	}
	if err != nil {
		return fmt.Errorf("duplicate chart %s: %w", id, err)
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
	n, err := io.ReadFull(r.Body, buf)
	if err != nil && !errors.Is(err, io.EOF) && !errors.Is(err, io.ErrUnexpectedEOF) {
		return apierr.Wrap(apierr.InvalidRequest, err, "the request body could not be read")
	}
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
	if !aggregate.ValidID(id) {
		return aggregate.NotFound(id)
	}
	if err := s.deps.Charts.DeleteChart(r.Context(), p.AccountID, id); err != nil {
		return aggregate.StoreError(id, err, "delete chart")
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"deleted": true, "id": id})
	return nil
}

// edit changes one of p's charts as one serialised read-modify-write
// (aggregate.Loader.Edit): change sees the chart as loaded (as far as mode
// says) and sets on c what to save (name, spec, type, and data when it
// replaces it). With expected, a chart changed since then is conflict and
// nothing is applied; without, edits of one chart run one after another,
// so none conflicts, none is lost, and a chart's spec and data always come
// from the same call.
func (s *Service) edit(ctx context.Context, p auth.Principal, id string, expected *time.Time, mode aggregate.Mode, change func(l *aggregate.Chart, c *store.Chart) error) (store.Chart, error) {
	return s.charts.Edit(ctx, s.deps.Charts, p, id, mode, func(l *aggregate.Chart, c *store.Chart) error {
		if expected != nil && !expected.Equal(l.Stored.UpdatedAt) {
			return aggregate.StoreError(id, store.ErrConflict, "edit chart")
		}
		return change(l, c)
	})
}

// setSpec stores spec on c, the record to save.
func setSpec(c *store.Chart, spec *chartspec.Spec) error {
	body, err := encodeSpec(spec)
	if err != nil {
		return err
	}
	c.Spec, c.Type = body, spec.Type
	return nil
}
