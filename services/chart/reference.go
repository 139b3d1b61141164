package chart

import (
	"fmt"
	"net/http"
	"strings"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/docsite"
	"chartd.dev/libs/httpx"
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
	Type   string      `json:"type"`
	Label  string      `json:"label"`
	UseFor string      `json:"use_for"`
	Roles  []RoleEntry `json:"roles"`
	Guide  string      `json:"guide"`
}

// ExampleEntry is one item of list_examples.
type ExampleEntry struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
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

func (s *Service) listChartTypes(w http.ResponseWriter, r *http.Request) error {
	if err := httpx.CheckQuery(r); err != nil {
		return err
	}
	types := s.deps.Catalog.Types()
	out := make([]ChartTypeEntry, 0, len(types))
	for _, t := range types {
		e := ChartTypeEntry{Type: t.Type, Label: t.Label, UseFor: t.UseFor, Guide: t.Guide, Roles: []RoleEntry{}}
		for _, ro := range t.Roles {
			e.Roles = append(e.Roles, RoleEntry{Role: ro.Role, Label: ro.Label, Numeric: ro.Numeric, Required: ro.Required})
		}
		out = append(out, e)
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"chart_types": out})
	return nil
}

func (s *Service) listExamples(w http.ResponseWriter, r *http.Request) error {
	if err := httpx.CheckQuery(r, "type"); err != nil {
		return err
	}
	filter := r.URL.Query().Get("type")
	if r.URL.Query().Has("type") {
		if _, ok := s.deps.Catalog.Type(filter); !ok {
			return apierr.New(apierr.InvalidRequest, "unknown chart type %q in query parameter type; the types are %s", filter, s.typeNames())
		}
	}
	exs := s.deps.Catalog.Examples(filter)
	out := make([]ExampleEntry, 0, len(exs))
	for _, e := range exs {
		out = append(out, ExampleEntry{ID: e.ID, Type: e.Type, Label: e.Label, Description: e.Description})
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"examples": out})
	return nil
}

func (s *Service) listPalettes(w http.ResponseWriter, r *http.Request) error {
	if err := httpx.CheckQuery(r); err != nil {
		return err
	}
	ps := s.deps.Catalog.Palettes()
	out := make([]PaletteEntry, 0, len(ps))
	for _, p := range ps {
		out = append(out, PaletteEntry{ID: p.ID, Name: p.Name, Colors: p.Colors, Light: p.Light})
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]any{"palettes": out})
	return nil
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

func (s *Service) lookupDocs(w http.ResponseWriter, r *http.Request) error {
	if err := httpx.CheckQuery(r, "q"); err != nil {
		return err
	}
	q := r.URL.Query().Get("q")
	if err := docsite.CheckQuery(q); err != nil {
		return apierr.New(apierr.InvalidRequest, "%v", err)
	}
	if s.deps.Docs == nil {
		return fmt.Errorf("lookup_docs: no docs configured")
	}
	res := s.deps.Docs.Search(q, 10)
	if res == nil {
		res = []docsite.Result{}
	}
	httpx.WriteJSON(w, http.StatusOK, DocsAnswer{Results: res})
	return nil
}
