package main

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAnnotationsThroughTheAPI: the notes, lines and ranges of issue 34
// go in through apply_ops, come back in the chart state and in
// include=spec (which draws again through POST /render with the same
// note), are copied by duplicate_chart, and a reference line on a pie is
// refused with invalid_ops naming the types that take it.
func TestAnnotationsThroughTheAPI(t *testing.T) {
	in := startAll(t)
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	ch, _ := createChart(t, c, map[string]any{"type": "bar", "data": "Month,Visitors\nJan,62\nFeb,58\nMar,71\nApr,90\n"})
	ops := []any{
		map[string]any{"op": "addAnnotation", "annotation": map[string]any{"text": "Spring peak", "x": "Apr", "series": "c2"}},
		map[string]any{"op": "addReferenceLine", "line": map[string]any{"axis": "y", "value": 100, "label": "Target"}},
		map[string]any{"op": "addRange", "range": map[string]any{"axis": "x", "from": "Feb", "to": "Mar", "label": "Works"}},
	}
	if a := c.do("POST", "/api/v1/charts/"+ch.ID+"/ops", map[string]any{"ops": ops}); a.status != 200 {
		t.Fatalf("apply_ops: %d %s", a.status, a.body)
	}
	want := `[{"type":"note","text":"Spring peak","x":"Apr","series":"c2"},{"type":"line","axis":"y","value":100,"label":"Target"},{"type":"range","axis":"x","from":"Feb","to":"Mar","label":"Works"}]`
	var got struct {
		State struct{ Annotations json.RawMessage }
		Spec  json.RawMessage
	}
	c.do("GET", "/api/v1/charts/"+ch.ID+"?include=spec", nil).json(t, &got)
	if string(got.State.Annotations) != want {
		t.Errorf("state.annotations\n got %s\nwant %s", got.State.Annotations, want)
	}
	var spec struct{ Annotations json.RawMessage }
	if err := json.Unmarshal(got.Spec, &spec); err != nil || string(spec.Annotations) != want {
		t.Errorf("spec.annotations\n got %s\nwant %s (%v)", spec.Annotations, want, err)
	}
	svg := c.do("GET", "/api/v1/charts/"+ch.ID+"/render.svg", nil)
	if svg.status != 200 || !strings.Contains(string(svg.body), ">Spring peak<") || !strings.Contains(string(svg.body), ">Target<") {
		t.Fatalf("render.svg lacks the note or the line's label: %d %.300s", svg.status, svg.body)
	}
	r := c.do("POST", "/api/v1/render", map[string]any{"spec": got.Spec, "format": "svg"})
	if r.status != 200 || !strings.Contains(string(r.body), ">Spring peak<") {
		t.Fatalf("render of the include=spec spec lacks the note: %d %.300s", r.status, r.body)
	}

	a := c.do("POST", "/api/v1/charts/"+ch.ID+"/duplicate", nil)
	var dup struct{ Chart chartRec }
	a.json(t, &dup)
	var copied struct {
		State struct{ Annotations json.RawMessage }
	}
	c.do("GET", "/api/v1/charts/"+dup.Chart.ID, nil).json(t, &copied)
	if string(copied.State.Annotations) != want {
		t.Errorf("the duplicate's annotations\n got %s\nwant %s", copied.State.Annotations, want)
	}

	if a := c.do("POST", "/api/v1/charts/"+ch.ID+"/ops", map[string]any{"ops": []any{
		map[string]any{"op": "removeAnnotation", "index": 0}, map[string]any{"op": "clearAnnotations"},
	}}); a.status != 200 {
		t.Fatalf("remove and clear: %d %s", a.status, a.body)
	}
	c.do("GET", "/api/v1/charts/"+ch.ID, nil).json(t, &got)
	if string(got.State.Annotations) != "[]" {
		t.Errorf("after clearAnnotations: %s, want []", got.State.Annotations)
	}

	pie, _ := createChart(t, c, map[string]any{"type": "pie", "data": "Fruit,Count\nApple,3\nPear,2\n"})
	a = c.do("POST", "/api/v1/charts/"+pie.ID+"/ops", map[string]any{"ops": []any{
		map[string]any{"op": "addReferenceLine", "line": map[string]any{"axis": "y", "value": 2}},
	}})
	if a.status != 400 || a.errCode(t) != "invalid_ops" || !strings.Contains(string(a.body), "reference lines are drawn on bar, line, scatter, histogram, boxplot, dotplot charts, not on a pie chart") {
		t.Fatalf("a reference line on a pie: %d %s", a.status, a.body)
	}
	a = c.do("POST", "/api/v1/charts/"+ch.ID+"/ops", map[string]any{"ops": []any{
		map[string]any{"op": "addAnnotation", "annotation": map[string]any{"text": "x", "x": "May"}},
	}})
	if a.status != 400 || !strings.Contains(string(a.body), `\"May\" names no category in c1 (Month); the categories there are Jan, Feb, Mar, Apr`) {
		t.Fatalf("a note on a missing month: %d %s", a.status, a.body)
	}
}
