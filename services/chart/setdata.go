package chart

import (
	"context"
	"fmt"

	"github.com/go-json-experiment/json/jsontext"

	"chartd.dev/libs/aggregate"
	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/httpx"
	"chartd.dev/libs/store"
)

// SetDataRequest is the set_data request.
type SetDataRequest struct {
	ID                string         `path:"id" json:"-"`
	Data              jsontext.Value `json:"data" api:"required"`
	Format            *string        `json:"format" enum:"csv,tsv,json"`
	ExpectedUpdatedAt *string        `json:"expected_updated_at"`
}

// SetDataAnswer is the set_data answer.
type SetDataAnswer struct {
	Chart       Record           `json:"chart"`
	Columns     []dataset.Column `json:"columns"`
	Rows        int              `json:"rows"`
	MappingKept bool             `json:"mapping_kept"`
	Notices     []dataset.Notice `json:"notices"`
	Warnings    []Problem        `json:"warnings"`
}

// setData replaces a chart's data (spec §3 rule 2) as one edit: the spec
// rebound to the new data and the data itself are saved together, in one
// serialised edit of the chart (a compare-and-set with
// expected_updated_at).
func (s *Service) setData(ctx context.Context, p auth.Principal, req SetDataRequest) (SetDataAnswer, error) {
	if !httpx.Present(req.Data) {
		return SetDataAnswer{}, apierr.New(apierr.InvalidRequest, "data is required: a CSV/TSV string, an array of objects or an array of arrays with a header row")
	}
	format, err := dataset.CheckFormat("format", req.Format)
	if err != nil {
		return SetDataAnswer{}, err
	}
	expected, err := parseExpected(req.ExpectedUpdatedAt)
	if err != nil {
		return SetDataAnswer{}, err
	}
	table, parsed, err := dataset.ParseRequestContext(ctx, req.Data, format)
	if err != nil {
		return SetDataAnswer{}, err
	}
	var (
		notices []dataset.Notice
		rb      chartspec.Rebinding
	)
	data := &store.Dataset{Format: format, Raw: []byte(req.Data)}
	version := chartspec.DataVersionOf(format, req.Data)
	c, err := s.edit(ctx, p, req.ID, expected, aggregate.WithTable, func(l *aggregate.Chart, c *store.Chart) error {
		ct, err := s.chartType(l.Spec.Type)
		if err != nil {
			return err
		}
		rb = chartspec.Rebind(l.Spec, ct, columnsOf(l.Table), table)
		notices = append([]dataset.Notice{}, parsed...)
		for _, i := range rb.DroppedSteps {
			notices = append(notices, dataset.Notice{Code: "step_dropped", Message: fmt.Sprintf("steps[%d] no longer applies to the new data and was removed: %s", i, l.Spec.Steps[i])})
		}
		if !rb.Kept {
			notices = append(notices, dataset.Notice{Code: "roles_repicked", Message: "the new data lacks some of the chart's columns by name, so its roles were picked again; check them with get_chart"})
		}
		rb.Spec.DataVersion = version
		c.Data = data
		return setSpec(c, rb.Spec)
	})
	if err != nil {
		return SetDataAnswer{}, err
	}
	s.charts.Remember(p.AccountID, c.ID, version, format, table)
	warnings, err := s.lint(ctx, saved{p: p, id: c.ID, updatedAt: c.UpdatedAt}, rb.Spec, afterSteps(rb.Spec, table))
	if err != nil {
		return SetDataAnswer{}, err
	}
	return SetDataAnswer{
		Chart:       s.record(c),
		Columns:     columnsOf(table),
		Rows:        table.Rows,
		MappingKept: rb.Kept,
		Notices:     notices,
		Warnings:    warnings,
	}, nil
}
