package chart

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"time"

	"github.com/go-json-experiment/json/jsontext"

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
	Type    *string           `json:"type" enum:"$chart_type"`
	Example *string           `json:"example"`
	Data    jsontext.Value    `json:"data"`
	Format  *string           `json:"format" enum:"csv,tsv,json"`
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

func (s *Service) create(ctx context.Context, p auth.Principal, req CreateRequest) (CreateAnswer, error) {
	format, err := dataset.CheckFormat("format", req.Format)
	if err != nil {
		return CreateAnswer{}, err
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
		return CreateAnswer{}, apierr.New(apierr.InvalidRequest, "give either type (with or without data) or example, not both")
	case req.Example != nil:
		if httpx.Present(req.Data) || req.Format != nil {
			return CreateAnswer{}, apierr.New(apierr.InvalidRequest, "an example brings its own data; to chart your data send type and data instead of example")
		}
		ex, ok := s.deps.Catalog.Example(*req.Example)
		if !ok {
			return CreateAnswer{}, apierr.New(apierr.InvalidRequest, "example %q does not exist; GET /examples lists them", *req.Example)
		}
		if ct, err = s.chartType(ex.Type); err != nil {
			return CreateAnswer{}, err
		}
		if spec, table, notices, raw, format, err = s.example(ct, ex); err != nil {
			return CreateAnswer{}, err
		}
	case req.Type != nil:
		if ct, err = s.chartType(*req.Type); err != nil {
			return CreateAnswer{}, err
		}
		switch {
		case httpx.Present(req.Data):
			raw = req.Data
			if table, notices, err = dataset.ParseRequestContext(ctx, raw, format); err != nil {
				return CreateAnswer{}, err
			}
			spec = chartspec.New(ct, table, s.deps.Catalog.DefaultPalette().Colors)
			// Say where the automatic roles are a guess (setMapping fixes it).
			notices = append(notices, chartspec.AutoMappingNotices(ct, table)...)
		case req.Format != nil:
			return CreateAnswer{}, apierr.New(apierr.InvalidRequest, "format is given without data; send data, or leave format out to start from the type's sample data")
		default:
			if spec, table, notices, raw, format, err = s.example(ct, s.deps.Catalog.Sample(ct.Type)); err != nil {
				return CreateAnswer{}, err
			}
		}
	default:
		return CreateAnswer{}, apierr.New(apierr.InvalidRequest, "give type (a chart type, with data or alone for sample data) or example (a gallery id); GET /chart-types and GET /examples list them")
	}
	if len(req.Ops) > 0 {
		if spec, err = s.deps.Ops.ApplyRequest(ctx, spec, req.Ops, table, s.deps.Brand.PaletteOf(p)); err != nil {
			return CreateAnswer{}, err
		}
	}
	spec.DataVersion = chartspec.DataVersionOf(format, raw)
	name := defaultName(spec, ct.Label)
	if req.Name != nil {
		if name, err = checkName(*req.Name); err != nil {
			return CreateAnswer{}, err
		}
	}
	body, err := encodeSpec(spec)
	if err != nil {
		return CreateAnswer{}, err
	}
	c, err := s.deps.Charts.CreateChart(ctx, store.Chart{AccountID: p.AccountID, Name: name, Type: spec.Type, Spec: body,
		Data: &store.Dataset{Format: format, Raw: []byte(raw)}}, plan.LimitsOf(p.Plan).SavedCharts)
	if errors.Is(err, store.ErrLimit) {
		return CreateAnswer{}, s.limitReached(p)
	}
	if err != nil {
		return CreateAnswer{}, fmt.Errorf("create chart: %w", err)
	}
	s.charts.Remember(p.AccountID, c.ID, spec.DataVersion, format, table)
	warnings, err := s.lint(ctx, saved{p: p, id: c.ID, updatedAt: c.UpdatedAt}, spec, table)
	if err != nil {
		return CreateAnswer{}, err
	}
	return CreateAnswer{
		Chart:    s.record(c),
		Columns:  columnsOf(table),
		Warnings: warnings,
		Notices:  notices,
	}, nil
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

// ListRequest is the list_charts query.
type ListRequest struct {
	Limit  *string `query:"limit" json:"-"`
	Cursor string  `query:"cursor" json:"-"`
}

func (s *Service) list(ctx context.Context, p auth.Principal, req ListRequest) (ListAnswer, error) {
	limit, err := httpx.IntParam("limit", req.Limit, 50, 1, 100)
	if err != nil {
		return ListAnswer{}, err
	}
	cs, next, err := s.deps.Charts.ListCharts(ctx, p.AccountID, limit, req.Cursor)
	if errors.Is(err, store.ErrBadCursor) {
		return ListAnswer{}, apierr.New(apierr.InvalidRequest, "cursor is not one this API gave out; pass next_cursor from the previous page unchanged, or leave it out for the first page")
	}
	if err != nil {
		return ListAnswer{}, fmt.Errorf("list charts: %w", err)
	}
	out := ListAnswer{Charts: make([]Record, 0, len(cs))}
	for _, c := range cs {
		out.Charts = append(out.Charts, s.record(c))
	}
	if next != "" {
		out.NextCursor = &next
	}
	return out, nil
}

// GetAnswer is the get_chart answer; Spec only with include=spec.
type GetAnswer struct {
	Chart Record    `json:"chart"`
	State State     `json:"state"`
	Spec  *FullSpec `json:"spec,omitempty"`
}

// GetRequest is the get_chart request.
type GetRequest struct {
	ID      string  `path:"id" json:"-"`
	Include *string `query:"include" json:"-" enum:"spec"`
}

func (s *Service) get(ctx context.Context, p auth.Principal, req GetRequest) (GetAnswer, error) {
	if req.Include != nil && *req.Include != "spec" {
		return GetAnswer{}, apierr.New(apierr.InvalidRequest, "include %q: the only value is spec", *req.Include)
	}
	l, err := s.charts.Load(ctx, p, req.ID, aggregate.WithTable)
	if err != nil {
		return GetAnswer{}, err
	}
	st, err := s.state(ctx, p, l)
	if err != nil {
		return GetAnswer{}, err
	}
	out := GetAnswer{Chart: s.record(l.Stored), State: st}
	if req.Include != nil {
		out.Spec = fullSpec(l)
	}
	return out, nil
}

// RenameRequest is the rename_chart request.
type RenameRequest struct {
	ID   string  `path:"id" json:"-"`
	Name *string `json:"name" api:"required"`
}

// ChartAnswer is the answer of rename_chart and duplicate_chart.
type ChartAnswer struct {
	Chart Record `json:"chart"`
}

// ChartID is the request of the endpoints that name a chart only.
type ChartID struct {
	ID string `path:"id" json:"-"`
}

func (s *Service) rename(ctx context.Context, p auth.Principal, req RenameRequest) (ChartAnswer, error) {
	if req.Name == nil {
		return ChartAnswer{}, apierr.New(apierr.InvalidRequest, "name is required: send {\"name\": \"…\"}")
	}
	name, err := checkName(*req.Name)
	if err != nil {
		return ChartAnswer{}, err
	}
	c, err := s.edit(ctx, p, req.ID, nil, aggregate.SpecOnly, func(_ *aggregate.Chart, c *store.Chart) error {
		c.Name = name
		return nil
	})
	if err != nil {
		return ChartAnswer{}, err
	}
	return ChartAnswer{Chart: s.record(c)}, nil
}

func (s *Service) duplicate(ctx context.Context, p auth.Principal, req ChartID) (ChartAnswer, error) {
	id := req.ID
	if !aggregate.ValidID(id) {
		return ChartAnswer{}, aggregate.NotFound(id)
	}
	// One consistent read of spec and data, one transaction to write both.
	src, err := s.deps.Charts.GetChartWithData(ctx, p.AccountID, id)
	if err != nil {
		return ChartAnswer{}, aggregate.StoreError(id, err, "load chart")
	}
	name := "Copy of " + src.Name
	if r := []rune(name); len(r) > 200 {
		name = string(r[:200])
	}
	c, err := s.deps.Charts.CreateChart(ctx, store.Chart{AccountID: p.AccountID, Name: name, Type: src.Type, Spec: src.Spec, Data: src.Data},
		plan.LimitsOf(p.Plan).SavedCharts)
	if errors.Is(err, store.ErrLimit) {
		return ChartAnswer{}, s.limitReached(p)
	}
	if err != nil {
		return ChartAnswer{}, fmt.Errorf("duplicate chart %s: %w", id, err)
	}
	return ChartAnswer{Chart: s.record(c)}, nil
}

// DeleteAnswer is the delete_chart answer.
type DeleteAnswer struct {
	Deleted bool   `json:"deleted" enum:"true"`
	ID      string `json:"id"`
}

func (s *Service) delete(ctx context.Context, p auth.Principal, req ChartID) (DeleteAnswer, error) {
	id := req.ID
	if !aggregate.ValidID(id) {
		return DeleteAnswer{}, aggregate.NotFound(id)
	}
	if err := s.deps.Charts.DeleteChart(ctx, p.AccountID, id); err != nil {
		return DeleteAnswer{}, aggregate.StoreError(id, err, "delete chart")
	}
	return DeleteAnswer{Deleted: true, ID: id}, nil
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
