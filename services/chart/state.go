package chart

import (
	"cmp"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"

	"chartd.dev/libs/aggregate"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// Problem is a lint problem (spec §2).
type Problem = chartspec.Problem

// State is the chart state of get_chart (spec §2).
type State struct {
	Type    string         `json:"type" enum:"$chart_type"`
	Options map[string]any `json:"options"`
	// Variants are options kept for other chart types (setVariants), used
	// when the chart switches to that type.
	Variants          map[string]map[string]any `json:"variants"`
	Mapping           chartspec.Mapping         `json:"mapping"`
	Roles             []string                  `json:"roles"`
	Columns           []dataset.Column          `json:"columns"`
	ColumnCount       int                       `json:"columnCount"`
	Rows              int                       `json:"rows"`
	Steps             []json.RawMessage         `json:"steps"`
	ColumnsAfterSteps []dataset.Column          `json:"columnsAfterSteps"`
	RowsAfterSteps    int                       `json:"rowsAfterSteps"`
	Style             chartspec.Style           `json:"style"`
	// Annotations are the chart's notes, reference lines and ranges.
	Annotations []chartspec.Annotation `json:"annotations"`
	Warnings    []Problem              `json:"warnings"`
	// Highlight and Facet are null until setHighlight or setFacet; Theme
	// is light, dark or auto (setTheme).
	Highlight *chartspec.Highlight `json:"highlight"`
	Facet     *chartspec.Facet     `json:"facet"`
	Theme     string               `json:"theme" enum:"light,dark,auto"`
}

// state builds the chart state; it stops once ctx ends (the client has
// gone), between the steps, the roles and the lint.
func (s *Service) state(ctx context.Context, p auth.Principal, l *aggregate.Chart) (State, error) {
	after := afterSteps(l.Spec, l.Table)
	if err := ctx.Err(); err != nil {
		return State{}, fmt.Errorf("chart state: %w", err)
	}
	roles := s.roles(l.Spec, after)
	warnings, err := s.lint(ctx, saved{p: p, id: l.Stored.ID, updatedAt: l.Stored.UpdatedAt}, l.Spec, after)
	if err != nil {
		return State{}, err
	}
	steps := l.Spec.Steps
	if steps == nil {
		steps = []json.RawMessage{}
	}
	opts := l.Spec.Options
	if opts == nil {
		opts = map[string]any{}
	}
	mapping := l.Spec.Mapping
	if mapping == nil {
		mapping = chartspec.Mapping{}
	}
	variants := l.Spec.Variants
	if variants == nil {
		variants = map[string]map[string]any{}
	}
	return State{
		Type:              l.Spec.Type,
		Options:           opts,
		Variants:          variants,
		Mapping:           mapping,
		Roles:             roles,
		Columns:           columnsOf(l.Table),
		ColumnCount:       len(l.Table.Columns),
		Rows:              l.Table.Rows,
		Steps:             steps,
		ColumnsAfterSteps: columnsOf(after),
		RowsAfterSteps:    after.Rows,
		Style:             l.Spec.Style,
		Annotations:       annotationsOf(l.Spec),
		Warnings:          warnings,
		Highlight:         l.Spec.Highlight,
		Facet:             l.Spec.Facet,
		Theme:             chartspec.EffectiveTheme(l.Spec, ""),
	}, nil
}

// roles describes each role of the type and what fills it, for a person:
// "values (Values, numbers, required): c2 (Sales), c3 (Profit)".
func (s *Service) roles(spec *chartspec.Spec, t *dataset.Table) []string {
	ct, ok := s.deps.Catalog.Type(spec.Type)
	if !ok {
		return []string{}
	}
	out := make([]string, 0, len(ct.Roles))
	for _, role := range ct.Roles {
		need := "optional"
		if role.Required {
			need = "required"
		}
		ids := spec.Mapping.Cols(role.Role)
		cols := make([]string, len(ids))
		for i, c := range t.ColumnsByID(ids) {
			if c != nil {
				cols[i] = ids[i] + " (" + c.Name + ")"
			} else {
				cols[i] = ids[i] + " (missing)"
			}
		}
		filled := "not set"
		if len(cols) > 0 {
			filled = strings.Join(cols, ", ")
		}
		out = append(out, fmt.Sprintf("%s — %s, %s: %s", role.Role, role.Label, need, filled))
	}
	return out
}

// lint answers the readability problems of v, the saved chart whose spec
// and data after steps are given: chartspec's checks and, from the render
// service's drawing of v, the layout ones (startLayout), warns first;
// never nil. It fails only with ctx's error once the client has gone.
func (s *Service) lint(ctx context.Context, v saved, spec *chartspec.Spec, after *dataset.Table) ([]Problem, error) {
	layout := s.startLayout(ctx, v)
	p, err := chartspec.LintContext(ctx, spec, after, chartspec.LintEnv{Catalog: s.deps.Catalog})
	if err != nil {
		layout()
		return nil, err
	}
	if drawn := layout(); len(drawn) > 0 {
		p = append(p, drawn...)
		slices.SortStableFunc(p, func(a, b Problem) int { return cmp.Compare(infoRank(a), infoRank(b)) })
	}
	if p == nil {
		return []Problem{}, nil
	}
	return p, nil
}

// infoRank orders warns before everything else.
func infoRank(p Problem) int {
	if p.Level == chartspec.Warn {
		return 0
	}
	return 1
}

// FullSpec is the `spec` member of get_chart?include=spec (DESIGN §7).
type FullSpec struct {
	Type    string            `json:"type" enum:"$chart_type"`
	Options map[string]any    `json:"options"`
	Mapping chartspec.Mapping `json:"mapping"`
	Steps   []json.RawMessage `json:"steps"`
	Style   chartspec.Style   `json:"style"`
	// Annotations are the chart's notes, reference lines and ranges.
	Annotations []chartspec.Annotation `json:"annotations"`
	Data        SpecData               `json:"data"`
	Advanced    *struct{}              `json:"advanced"`
	// Highlight, Facet and Theme are left out until set (setHighlight,
	// setFacet, setTheme), so create_chart takes the spec back as it is.
	Highlight *chartspec.Highlight `json:"highlight,omitempty"`
	Facet     *chartspec.Facet     `json:"facet,omitempty"`
	Theme     string               `json:"theme,omitempty" enum:"light,dark,auto"`
}

// SpecData is the chart's data inside FullSpec: the parsed table as rows.
type SpecData struct {
	Format  string           `json:"format" enum:"csv,tsv,json"`
	Columns []dataset.Column `json:"columns"`
	Rows    [][]any          `json:"rows"`
}

func fullSpec(l *aggregate.Chart) *FullSpec {
	steps := l.Spec.Steps
	if steps == nil {
		steps = []json.RawMessage{}
	}
	rows := dataset.Rows(l.Table, l.Table.Rows)
	if rows == nil {
		rows = [][]any{}
	}
	format := l.Format
	if format == "" {
		format = "csv"
	}
	return &FullSpec{
		Type:        l.Spec.Type,
		Options:     l.Spec.Options,
		Mapping:     l.Spec.Mapping,
		Steps:       steps,
		Style:       l.Spec.Style,
		Annotations: annotationsOf(l.Spec),
		Highlight:   l.Spec.Highlight, Facet: l.Spec.Facet, Theme: l.Spec.Theme,
		Data: SpecData{Format: format, Columns: columnsOf(l.Table), Rows: rows},
	}
}

// annotationsOf is the spec's annotations as the state lists them: an
// empty list, never null, for a chart without any.
func annotationsOf(spec *chartspec.Spec) []chartspec.Annotation {
	if spec.Annotations == nil {
		return []chartspec.Annotation{}
	}
	return spec.Annotations
}
