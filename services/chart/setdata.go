package chart

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/gorilla/mux"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/clients"
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

// setData replaces a chart's data (spec §3 rule 2). The conflict check comes
// first; the data is then stored and the spec saved only if nobody changed
// the chart meanwhile, else the old data is put back.
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
	id := mux.Vars(r)["id"]
	l, err := s.loadChart(r.Context(), p, id, withRaw)
	if err != nil {
		return err
	}
	if expected != nil && !expected.Equal(l.c.UpdatedAt) {
		return storeErr(id, store.ErrConflict, "set data")
	}
	table, notices, err := dataset.ParseRequest(req.Data, format)
	if err != nil {
		return err
	}
	ct, err := s.chartType(l.spec.Type)
	if err != nil {
		return err
	}
	rb := chartspec.Rebind(l.spec, ct, columnsOf(l.table), table)
	for _, i := range rb.DroppedSteps {
		notices = append(notices, dataset.Notice{Code: "step_dropped", Message: fmt.Sprintf("steps[%d] no longer applies to the new data and was removed: %s", i, l.spec.Steps[i])})
	}
	if !rb.Kept {
		notices = append(notices, dataset.Notice{Code: "roles_repicked", Message: "the new data lacks some of the chart's columns by name, so its roles were picked again; check them with get_chart"})
	}
	rb.Spec.DataVersion = chartspec.DataVersionOf(format, req.Data)
	body, err := encodeSpec(rb.Spec)
	if err != nil {
		return err
	}
	if err := s.deps.Data.PutDataset(r.Context(), p, id, clients.Dataset{Format: format, Raw: json.RawMessage(req.Data)}); err != nil {
		return fmt.Errorf("store data of chart %s: %w", id, err)
	}
	old := l.c.UpdatedAt
	l.c.Spec, l.c.Type = body, rb.Spec.Type
	c, err := s.deps.Charts.UpdateChart(r.Context(), l.c, &old)
	if err != nil {
		if l.raw != nil {
			if rerr := s.deps.Data.PutDataset(context.WithoutCancel(r.Context()), p, id, clients.Dataset{Format: l.format, Raw: l.raw}); rerr != nil {
				s.deps.Log.ErrorContext(r.Context(), "restore data after a failed set_data", "chart", id, "err", rerr)
			}
		}
		if errors.Is(err, store.ErrConflict) && expected == nil {
			return apierr.New(apierr.Conflict, "chart %s changed while its data was being replaced; nothing was changed, send the data again", id)
		}
		return storeErr(id, err, "save chart")
	}
	httpx.WriteJSON(w, http.StatusOK, SetDataAnswer{
		Chart:       s.record(c),
		Columns:     columnsOf(table),
		Rows:        table.Rows,
		MappingKept: rb.Kept,
		Notices:     notices,
		Warnings:    s.lint(rb.Spec, afterSteps(rb.Spec, table)),
	})
	return nil
}
