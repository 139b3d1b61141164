package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestLooksStateAndRender (issue 34): setHighlight, setFacet and setTheme
// are kept in the chart state and the spec (include=spec), copied by
// duplicate_chart, refused with invalid_ops when they do not fit, and a
// render's theme (query or body) overrides the chart's for one picture.
func TestLooksStateAndRender(t *testing.T) {
	in := startAll(t)
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	data := "Region,Month,Sales\nNorth,Jan,10\nNorth,Feb,12\nSouth,Jan,7\nSouth,Feb,9\n"
	ch, _ := createChart(t, c, map[string]any{"type": "bar", "data": data, "ops": []any{
		map[string]any{"op": "setMapping", "mapping": map[string]any{"category": "c2", "values": []string{"c3"}}},
		map[string]any{"op": "setHighlight", "highlight": map[string]any{"categories": []string{"Feb"}}},
		map[string]any{"op": "setFacet", "facet": map[string]any{"column": "c1", "scales": "free"}},
		map[string]any{"op": "setTheme", "theme": "dark"},
	}})
	type looks struct {
		Highlight json.RawMessage `json:"highlight"`
		Facet     json.RawMessage `json:"facet"`
		Theme     string          `json:"theme"`
	}
	read := func(id string) (state, spec looks) {
		var got struct {
			State looks `json:"state"`
			Spec  looks `json:"spec"`
		}
		c.do("GET", "/api/v1/charts/"+id+"?include=spec", nil).json(t, &got)
		return got.State, got.Spec
	}
	want := looks{Highlight: json.RawMessage(`{"categories":["Feb"]}`), Facet: json.RawMessage(`{"column":"c1","scales":"free"}`), Theme: "dark"}
	same := func(what string, got looks) {
		t.Helper()
		if string(got.Highlight) != string(want.Highlight) || string(got.Facet) != string(want.Facet) || got.Theme != want.Theme {
			t.Errorf("%s: highlight %s facet %s theme %q, want %s %s %q", what, got.Highlight, got.Facet, got.Theme, want.Highlight, want.Facet, want.Theme)
		}
	}
	state, spec := read(ch.ID)
	same("state", state)
	same("spec", spec)
	var dup struct{ Chart chartRec }
	c.do("POST", "/api/v1/charts/"+ch.ID+"/duplicate", nil).json(t, &dup)
	state, spec = read(dup.Chart.ID)
	same("the copy's state", state)
	same("the copy's spec", spec)

	a := c.do("POST", "/api/v1/charts/"+ch.ID+"/ops", map[string]any{"ops": []any{map[string]any{"op": "setFacet", "facet": map[string]any{"column": "c3"}}}})
	if a.errCode(t) != "invalid_ops" || !strings.Contains(string(a.body), "small multiples take a text column") {
		t.Errorf("facet of a number column: %d %s", a.status, a.body)
	}

	dark := c.do("GET", "/api/v1/charts/"+ch.ID+"/render.svg?fonts=system", nil)
	light := c.do("GET", "/api/v1/charts/"+ch.ID+"/render.svg?fonts=system&theme=light", nil)
	if dark.status != 200 || light.status != 200 {
		t.Fatalf("render_chart: %d %d %.300s", dark.status, light.status, light.body)
	}
	if !strings.Contains(string(dark.body), `fill="#16181D"`) || strings.Contains(string(light.body), `fill="#16181D"`) {
		t.Error("the chart's dark theme, or the render's light one, is not drawn")
	}
	if !strings.Contains(string(dark.body), `<g class="panel">`) {
		t.Error("the small multiples are not drawn")
	}
	body := c.do("POST", "/api/v1/render", map[string]any{"type": "bar", "format": "svg", "fonts": "system", "data": "A,B\nx,1\ny,2\n", "theme": "dark"})
	if body.status != 200 || !strings.Contains(string(body.body), `fill="#16181D"`) {
		t.Errorf("render_image with theme dark: %d %.300s", body.status, body.body)
	}
	if a := c.do("GET", "/api/v1/charts/"+ch.ID+"/render.svg?theme=sepia", nil); a.errCode(t) != "invalid_request" {
		t.Errorf("theme sepia: %d %s", a.status, a.body)
	}
}
