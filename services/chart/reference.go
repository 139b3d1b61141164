package chart

import (
	"context"
	"fmt"
	"strings"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/docsite"
	"chartd.dev/libs/route"
)

// RoleEntry is one role of a chart type entry (spec §2).
type RoleEntry struct {
	Role     string `json:"role"`
	Label    string `json:"label"`
	Numeric  bool   `json:"numeric"`
	Required bool   `json:"required"`
}

// ChartTypeEntry is one item of list_chart_types.
type ChartTypeEntry struct {
	Type   string      `json:"type" enum:"$chart_type"`
	Label  string      `json:"label"`
	UseFor string      `json:"use_for"`
	Roles  []RoleEntry `json:"roles"`
	Guide  string      `json:"guide"`
}

// ExampleEntry is one item of list_examples.
type ExampleEntry struct {
	ID          string `json:"id"`
	Type        string `json:"type" enum:"$chart_type"`
	Label       string `json:"label"`
	Description string `json:"description"`
}

// PaletteEntry is one item of list_palettes.
type PaletteEntry struct {
	ID     string   `json:"id"`
	Name   string   `json:"name"`
	Colors []string `json:"colors"`
	Light  bool     `json:"light"`
}

// ChartTypesAnswer is the list_chart_types answer.
type ChartTypesAnswer struct {
	ChartTypes []ChartTypeEntry `json:"chart_types"`
}

func (s *Service) listChartTypes(context.Context, auth.Principal, route.None) (ChartTypesAnswer, error) {
	types := s.deps.Catalog.Types()
	out := make([]ChartTypeEntry, 0, len(types))
	for _, t := range types {
		e := ChartTypeEntry{Type: t.Type, Label: t.Label, UseFor: t.UseFor, Guide: t.Guide, Roles: []RoleEntry{}}
		for _, ro := range t.Roles {
			e.Roles = append(e.Roles, RoleEntry{Role: ro.Role, Label: ro.Label, Numeric: ro.Numeric, Required: ro.Required})
		}
		out = append(out, e)
	}
	return ChartTypesAnswer{ChartTypes: out}, nil
}

// ExamplesRequest is the list_examples query.
type ExamplesRequest struct {
	Type *string `query:"type" json:"-" enum:"$chart_type"`
}

// ExamplesAnswer is the list_examples answer.
type ExamplesAnswer struct {
	Examples []ExampleEntry `json:"examples"`
}

func (s *Service) listExamples(_ context.Context, _ auth.Principal, req ExamplesRequest) (ExamplesAnswer, error) {
	var filter string
	if req.Type != nil {
		filter = *req.Type
		if _, ok := s.deps.Catalog.Type(filter); !ok {
			return ExamplesAnswer{}, apierr.New(apierr.InvalidRequest, "unknown chart type %q in query parameter type; the types are %s", filter, s.typeNames())
		}
	}
	exs := s.deps.Catalog.Examples(filter)
	out := make([]ExampleEntry, 0, len(exs))
	for _, e := range exs {
		out = append(out, ExampleEntry{ID: e.ID, Type: e.Type, Label: e.Label, Description: e.Description})
	}
	return ExamplesAnswer{Examples: out}, nil
}

// PalettesAnswer is the list_palettes answer.
type PalettesAnswer struct {
	Palettes []PaletteEntry `json:"palettes"`
}

func (s *Service) listPalettes(context.Context, auth.Principal, route.None) (PalettesAnswer, error) {
	ps := s.deps.Catalog.Palettes()
	out := make([]PaletteEntry, 0, len(ps))
	for _, p := range ps {
		out = append(out, PaletteEntry{ID: p.ID, Name: p.Name, Colors: p.Colors, Light: p.Light})
	}
	return PalettesAnswer{Palettes: out}, nil
}

func (s *Service) typeNames() string {
	var names []string
	for _, t := range s.deps.Catalog.Types() {
		names = append(names, t.Type)
	}
	return strings.Join(names, ", ")
}

// DocsAnswer is the lookup_docs answer.
type DocsAnswer struct {
	Results []docsite.Result `json:"results"`
}

// DocsRequest is the lookup_docs query.
type DocsRequest struct {
	Q string `query:"q" json:"-" api:"required"`
}

func (s *Service) lookupDocs(_ context.Context, _ auth.Principal, req DocsRequest) (DocsAnswer, error) {
	if err := docsite.CheckQuery(req.Q); err != nil {
		return DocsAnswer{}, apierr.New(apierr.InvalidRequest, "%v", err)
	}
	if s.deps.Docs == nil {
		return DocsAnswer{}, fmt.Errorf("lookup_docs: no docs configured")
	}
	res := s.deps.Docs.Search(req.Q, 10)
	if res == nil {
		res = []docsite.Result{}
	}
	return DocsAnswer{Results: res}, nil
}
