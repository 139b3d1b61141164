package chart

import (
	"encoding/json"
	"fmt"
	"net/http"

	"github.com/gorilla/mux"

	"chartd.dev/libs/aggregate"
	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/httpx"
	"chartd.dev/libs/store"
)

// ApplyOpsRequest is the apply_ops body.
type ApplyOpsRequest struct {
	Ops               []json.RawMessage `json:"ops"`
	ExpectedUpdatedAt *string           `json:"expected_updated_at"`
}

// ApplyOpsAnswer is the apply_ops answer.
type ApplyOpsAnswer struct {
	Chart    Record    `json:"chart"`
	Applied  int       `json:"applied"`
	Warnings []Problem `json:"warnings"`
}

// applyOps applies ops all-or-nothing (spec §3 rule 1) as one edit: with
// expected_updated_at a compare-and-set on it; without, applied to the
// newest version while the chart is held, so no edit is lost or refused.
// A brand palette the ops name is read before the chart is held.
func (s *Service) applyOps(w http.ResponseWriter, r *http.Request) error {
	if err := httpx.CheckQuery(r); err != nil {
		return err
	}
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	var req ApplyOpsRequest
	if err := httpx.DecodeJSON(r, &req); err != nil {
		return err
	}
	if req.Ops == nil {
		return apierr.New(apierr.InvalidRequest, `ops is required: a list of ops such as [{"op":"setTitle","title":{"text":"Sales"}}]; GET /ops lists them`)
	}
	expected, err := parseExpected(req.ExpectedUpdatedAt)
	if err != nil {
		return err
	}
	var (
		spec  *chartspec.Spec
		after *dataset.Table
	)
	brand := chartspec.BrandBeforehand(r.Context(), req.Ops, s.deps.Brand.PaletteOf(p))
	c, err := s.edit(r.Context(), p, mux.Vars(r)["id"], expected, aggregate.WithTable, func(l *aggregate.Chart, c *store.Chart) error {
		var err error
		if spec, err = s.deps.Ops.ApplyRequest(r.Context(), l.Spec, req.Ops, l.Table, brand); err != nil {
			return err
		}
		after = afterSteps(spec, l.Table)
		return setSpec(c, spec)
	})
	if err != nil {
		return err
	}
	warnings, err := s.lint(r.Context(), saved{p: p, id: c.ID, updatedAt: c.UpdatedAt}, spec, after)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, ApplyOpsAnswer{Chart: s.record(c), Applied: len(req.Ops), Warnings: warnings})
	return nil
}

func (s *Service) lintChart(w http.ResponseWriter, r *http.Request) error {
	if err := httpx.CheckQuery(r); err != nil {
		return err
	}
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	l, err := s.charts.Load(r.Context(), p, mux.Vars(r)["id"], aggregate.WithTable)
	if err != nil {
		return err
	}
	problems, err := s.lint(r.Context(), saved{p: p, id: l.Stored.ID, updatedAt: l.Stored.UpdatedAt}, l.Spec, afterSteps(l.Spec, l.Table))
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string][]Problem{"problems": problems})
	return nil
}

// OpCatalog is the get_op_catalog answer.
type OpCatalog struct {
	Catalog string               `json:"catalog"`
	Ops     []chartspec.OpSchema `json:"ops"`
}

func (s *Service) opCatalog(w http.ResponseWriter, r *http.Request) error {
	if err := httpx.CheckQuery(r); err != nil {
		return err
	}
	if s.deps.Ops == nil {
		return fmt.Errorf("op catalog: no ops configured")
	}
	httpx.WriteJSON(w, http.StatusOK, OpCatalog{Catalog: s.deps.Ops.CatalogText(), Ops: s.deps.Ops.OpSchemas()})
	return nil
}
