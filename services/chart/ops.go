package chart

import (
	"context"
	"encoding/json"
	"fmt"

	"chartd.dev/libs/aggregate"
	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/route"
	"chartd.dev/libs/store"
)

// ApplyOpsRequest is the apply_ops request.
type ApplyOpsRequest struct {
	ID                string            `path:"id" json:"-"`
	Ops               []json.RawMessage `json:"ops" api:"required"`
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
func (s *Service) applyOps(ctx context.Context, p auth.Principal, req ApplyOpsRequest) (ApplyOpsAnswer, error) {
	if req.Ops == nil {
		return ApplyOpsAnswer{}, apierr.New(apierr.InvalidRequest, `ops is required: a list of ops such as [{"op":"setTitle","title":{"text":"Sales"}}]; GET /ops lists them`)
	}
	expected, err := parseExpected(req.ExpectedUpdatedAt)
	if err != nil {
		return ApplyOpsAnswer{}, err
	}
	var (
		spec  *chartspec.Spec
		after *dataset.Table
	)
	brand := chartspec.BrandBeforehand(ctx, req.Ops, s.deps.Brand.PaletteOf(p))
	c, err := s.edit(ctx, p, req.ID, expected, aggregate.WithTable, func(l *aggregate.Chart, c *store.Chart) error {
		var err error
		if spec, err = s.deps.Ops.ApplyRequest(ctx, l.Spec, req.Ops, l.Table, brand); err != nil {
			return err
		}
		after = afterSteps(spec, l.Table)
		return setSpec(c, spec)
	})
	if err != nil {
		return ApplyOpsAnswer{}, err
	}
	warnings, err := s.lint(ctx, saved{p: p, id: c.ID, updatedAt: c.UpdatedAt}, spec, after)
	if err != nil {
		return ApplyOpsAnswer{}, err
	}
	return ApplyOpsAnswer{Chart: s.record(c), Applied: len(req.Ops), Warnings: warnings}, nil
}

// LintAnswer is the lint_chart answer.
type LintAnswer struct {
	Problems []Problem `json:"problems"`
}

func (s *Service) lintChart(ctx context.Context, p auth.Principal, req ChartID) (LintAnswer, error) {
	l, err := s.charts.Load(ctx, p, req.ID, aggregate.WithTable)
	if err != nil {
		return LintAnswer{}, err
	}
	problems, err := s.lint(ctx, saved{p: p, id: l.Stored.ID, updatedAt: l.Stored.UpdatedAt}, l.Spec, afterSteps(l.Spec, l.Table))
	if err != nil {
		return LintAnswer{}, err
	}
	return LintAnswer{Problems: problems}, nil
}

// OpCatalog is the get_op_catalog answer.
type OpCatalog struct {
	Catalog string               `json:"catalog"`
	Ops     []chartspec.OpSchema `json:"ops"`
}

func (s *Service) opCatalog(context.Context, auth.Principal, route.None) (OpCatalog, error) {
	if s.deps.Ops == nil {
		return OpCatalog{}, fmt.Errorf("op catalog: no ops configured")
	}
	return OpCatalog{Catalog: s.deps.Ops.CatalogText(), Ops: s.deps.Ops.OpSchemas()}, nil
}
