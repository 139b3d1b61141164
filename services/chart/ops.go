package chart

import (
	"encoding/json"
	"errors"
	"fmt"
	"net/http"

	"github.com/gorilla/mux"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
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

// maxOpRetries bounds how often apply_ops without expected_updated_at
// re-reads and re-applies when a concurrent edit wins the race.
const maxOpRetries = 5

// applyOps applies ops all-or-nothing (spec §3 rule 1). With
// expected_updated_at the save is a compare-and-set on it; without, the ops
// are re-applied on the newest version when another edit lands first, so no
// edit is lost.
func (s *Service) applyOpsHandler(w http.ResponseWriter, r *http.Request) error {
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
	id := mux.Vars(r)["id"]
	for attempt := 0; ; attempt++ {
		l, err := s.loadChart(r.Context(), p, id, withData)
		if err != nil {
			return err
		}
		if expected != nil && !expected.Equal(l.c.UpdatedAt) {
			return storeErr(id, store.ErrConflict, "apply ops")
		}
		spec, err := s.deps.Ops.ApplyRequest(r.Context(), l.spec, req.Ops, l.table, s.brandOf(p))
		if err != nil {
			return err
		}
		body, err := encodeSpec(spec)
		if err != nil {
			return err
		}
		token := l.c.UpdatedAt
		l.c.Spec, l.c.Type = body, spec.Type
		c, err := s.deps.Charts.UpdateChart(r.Context(), l.c, &token)
		if errors.Is(err, store.ErrConflict) && expected == nil && attempt < maxOpRetries {
			continue
		}
		if err != nil {
			return storeErr(id, err, "save chart")
		}
		httpx.WriteJSON(w, http.StatusOK, ApplyOpsAnswer{Chart: s.record(c), Applied: len(req.Ops), Warnings: s.lint(spec, afterSteps(spec, l.table))})
		return nil
	}
}

func (s *Service) lintHandler(w http.ResponseWriter, r *http.Request) error {
	if err := httpx.CheckQuery(r); err != nil {
		return err
	}
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	l, err := s.loadChart(r.Context(), p, mux.Vars(r)["id"], withData)
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, map[string][]Problem{"problems": s.lint(l.spec, afterSteps(l.spec, l.table))})
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
