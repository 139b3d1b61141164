package main

import (
	"strings"
	"testing"
)

// TestPictureLintHeader: a picture goes out with the ids of its chart's
// lint warnings in the Chartd-Lint header, on every image endpoint and public image link, so a
// /render caller who gets only the image learns that its bar axis does
// not start at zero; a chart without warnings sends no header.
func TestPictureLintHeader(t *testing.T) {
	in := startAll(t)
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	const scores = "Team,Score\nAlpha,982\nBeta,994\nGamma,988\nDelta,975\n"
	notZero := []any{map[string]any{"op": "setTitle", "title": map[string]any{"text": "Scores"}}, map[string]any{"op": "setAxis", "axis": "y", "min": 970}}
	ch, _ := createChart(t, c, map[string]any{"type": "bar", "data": scores, "ops": notZero})
	plain, _ := createChart(t, c, map[string]any{"type": "bar", "data": scores, "ops": notZero[:1]})
	web := newLinkClient(t, "")
	for _, tc := range []struct {
		name, chart, want string
	}{{"image link", ch.ID, "bar-axis-not-zero"}, {"image link at zero", plain.ID, ""}} {
		t.Run(tc.name, func(t *testing.T) {
			a := web.open(t, createLink(t, c, map[string]any{"id": tc.chart, "format": "svg"}).URL)
			if a.status != 200 || a.header.Get("Chartd-Lint") != tc.want {
				t.Errorf("%d, Chartd-Lint %q, want %q", a.status, a.header.Get("Chartd-Lint"), tc.want)
			}
		})
	}
	for _, tc := range []struct {
		name, method, path string
		body               any
		want               string
	}{
		{"render_image svg", "POST", "/api/v1/render", map[string]any{"type": "bar", "format": "svg", "data": scores, "ops": notZero}, "bar-axis-not-zero"},
		{"render_image png", "POST", "/api/v1/render", map[string]any{"type": "bar", "format": "png", "data": scores, "ops": notZero}, "bar-axis-not-zero"},
		{"render_chart", "GET", "/api/v1/charts/" + ch.ID + "/render.svg", nil, "bar-axis-not-zero"},
		{"render_template", "POST", "/api/v1/charts/" + ch.ID + "/render", map[string]any{"format": "svg", "data": scores}, "bar-axis-not-zero"},
		{"render_image at zero", "POST", "/api/v1/render", map[string]any{"type": "bar", "format": "svg", "data": scores, "ops": notZero[:1]}, ""},
		{"render_chart at zero", "GET", "/api/v1/charts/" + plain.ID + "/render.svg", nil, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := c.doPatient(tc.method, tc.path, tc.body)
			if a.status != 200 {
				t.Fatalf("%d %.300s", a.status, a.body)
			}
			got := a.header.Get("Chartd-Lint")
			if tc.want == "" {
				if got != "" {
					t.Errorf("Chartd-Lint %q on a chart without warnings", got)
				}
				return
			}
			if !strings.Contains(", "+got+", ", ", "+tc.want+", ") {
				t.Errorf("Chartd-Lint %q, want it to list %s", got, tc.want)
			}
		})
	}
}
