package main

import (
	"encoding/json"
	"regexp"
	"strings"
	"testing"
)

// yearLabel is a year written as a label or tick; groupedYear one written
// with a separator ("1,848").
var (
	yearLabel   = regexp.MustCompile(`>(1[0-9]{3}|20[0-9]{2})<`)
	groupedYear = regexp.MustCompile(`>(1,[0-9]{3}|2,0[0-9]{2})<`)
)

// TestYearColumnsServeNumberRoles (issue 22 item 5): a column named like
// years ("Year", "Year joined", "Jahr", "Founded") is read as dates, and
// every chart whose role needs a number takes it as the years themselves,
// a scatter as a date axis; before, each of these was refused with 400 (or
// drew "1,848"). render_image and a saved chart's render_chart both draw.
func TestYearColumnsServeNumberRoles(t *testing.T) {
	in := startAll(t)
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	for _, tc := range []struct {
		name, typ, data string
	}{
		{"scatter of Year,Temp", "scatter", "Year,Temp\n1880,13.9\n1900,14.0\n1920,14.1\n1940,14.3\n1960,14.2\n1980,14.4\n2000,14.7\n2020,15.0"},
		{"line of Year,Temp", "line", "Year,Temp\n1880,13.9\n1900,14.0\n1920,14.1"},
		{"histogram of Year joined", "histogram", "Name,Year joined\nAnn,2001\nBob,2005\nCid,2005\nDee,2012\nEve,2019"},
		{"box plot of Jahr", "boxplot", "Abteilung,Jahr\nA,1990\nA,2001\nA,2010\nB,1995\nB,2020"},
		{"bar of Founded", "bar", "Company,Founded\nSiemens,1847\nBayer,1863\nBASF,1865"},
		{"dot plot of Founded", "dotplot", "Company,Founded\nSiemens,1847\nBayer,1863\nBASF,1865"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := c.do("POST", "/api/v1/render", map[string]any{"type": tc.typ, "format": "svg", "data": tc.data})
			if a.status != 200 {
				t.Fatalf("render_image: %d %.400s", a.status, a.body)
			}
			svg := string(a.body)
			if !yearLabel.MatchString(svg) {
				t.Errorf("render_image: no year written as a label: %.300s", svg)
			}
			if m := groupedYear.FindString(svg); m != "" {
				t.Errorf("render_image: a year with a separator: %s", m)
			}
			ch, _ := createChart(t, c, map[string]any{"type": tc.typ, "data": tc.data})
			r := c.do("GET", "/api/v1/charts/"+ch.ID+"/render.svg", nil)
			if r.status != 200 || !strings.HasPrefix(string(r.body), "<svg") {
				t.Fatalf("render_chart: %d %.400s", r.status, r.body)
			}
			l := c.do("GET", "/api/v1/charts/"+ch.ID+"/lint", nil)
			if l.status != 200 || strings.Contains(string(l.body), "missing-required-role") {
				t.Fatalf("lint: %d %.400s", l.status, l.body)
			}
		})
	}
}

// TestWideHeatmapAndDivergingPalette (issue 22 item 4): a correlation
// matrix makes a heatmap of rows × columns, every cell drawn, and the
// red-blue palette asked for is used, centred on zero.
func TestWideHeatmapAndDivergingPalette(t *testing.T) {
	in := startAll(t)
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	ch, _ := createChart(t, c, map[string]any{"type": "heatmap",
		"data": "Var,A,B,C\nR0,1,0.42,-0.9\nR1,0.42,1,-0.5\nR2,-0.9,-0.5,1\nR3,0.1,0.3,-0.2",
		"ops":  []any{map[string]any{"op": "setPalette", "palette": "red-blue"}}})
	a := c.do("GET", "/api/v1/charts/"+ch.ID+"?include=spec", nil)
	var got struct {
		State struct {
			Mapping map[string]json.RawMessage `json:"mapping"`
		} `json:"state"`
	}
	a.json(t, &got)
	var values []string
	if err := json.Unmarshal(got.State.Mapping["value"], &values); err != nil || strings.Join(values, ",") != "c2,c3,c4" {
		t.Fatalf("value maps %s, want [c2 c3 c4]", got.State.Mapping["value"])
	}
	if _, ok := got.State.Mapping["x"]; ok || string(got.State.Mapping["y"]) != `"c1"` {
		t.Fatalf("mapping %v, want y c1 and no x", got.State.Mapping)
	}
	r := c.do("GET", "/api/v1/charts/"+ch.ID+"/render.svg", nil)
	svg := string(r.body)
	if r.status != 200 || strings.Contains(svg, "No data") {
		t.Fatalf("render_chart: %d, blank cells: %v", r.status, strings.Contains(svg, "No data"))
	}
	// red-blue's ends: −0.9 in its red, 1 in its blue (the scale runs −1..1)
	for _, hex := range []string{"#2166AC", "#F7F7F7"} {
		if !strings.Contains(svg, hex) {
			t.Errorf("the red-blue scale's %s is not drawn", hex)
		}
	}
}
