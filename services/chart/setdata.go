package chart

import (
	"fmt"
	"net/http"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/gorilla/mux"

	"chartd.dev/libs/aggregate"
	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/httpx"
	"chartd.dev/libs/store"
)

// SetDataRequest is the set_data body.
type SetDataRequest struct {
	Data              jsontext.Value `json:"data"`
	Format            *string        `json:"format"`
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
func (s *Service) setData(w http.ResponseWriter, r *http.Request) error {
	if err := httpx.CheckQuery(r); err != nil {
		return err
	}
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	var req SetDataRequest
	if err := httpx.DecodeJSON(r, &req); err != nil {
		return err
	}
	if !httpx.Present(req.Data) {
		return apierr.New(apierr.InvalidRequest, "data is required: a CSV/TSV string, an array of objects or an array of arrays with a header row")
	}
	format, err := dataset.CheckFormat("format", req.Format)
	if err != nil {
		return err
	}
	expected, err := parseExpected(req.ExpectedUpdatedAt)
	if err != nil {
		return err
	}
	table, parsed, err := dataset.ParseRequestContext(r.Context(), req.Data, format)
	if err != nil {
		return err
	}
	var (
		notices []dataset.Notice
		rb      chartspec.Rebinding
	)
	data := &store.Dataset{Format: format, Raw: []byte(req.Data)}
	version := chartspec.DataVersionOf(format, req.Data)
	c, err := s.edit(r.Context(), p, mux.Vars(r)["id"], expected, aggregate.WithTable, func(l *aggregate.Chart, c *store.Chart) error {
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
		return err
	}
	s.charts.Remember(p.AccountID, c.ID, version, format, table)
	warnings, err := s.lint(r.Context(), saved{p: p, id: c.ID, updatedAt: c.UpdatedAt}, rb.Spec, afterSteps(rb.Spec, table))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, SetDataAnswer{
		Chart:       s.record(c),
		Columns:     columnsOf(table),
		Rows:        table.Rows,
		MappingKept: rb.Kept,
		Notices:     notices,
		Warnings:    warnings,
	})
	return nil
}
