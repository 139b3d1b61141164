package main

import (
	"strings"
	"testing"
)

// TestExtremeNumbersRender draws finite values at the ends of the float64
// range through render_image and through a saved chart's render_chart:
// each answers the picture (they used to panic into 500s on every render),
// and the summary of a column whose sum overflows is its true mean.
func TestExtremeNumbersRender(t *testing.T) {
	in := startAll(t)
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	for _, tc := range []struct {
		name, typ, data string
	}{
		{"bar of 1e98", "bar", "a,b\nx,1e98"},
		{"boxplot of 1e98", "boxplot", "a,b\nx,1e98"},
		{"bar of both extremes", "bar", "a,b\nx,-1e308\ny,1e308"},
		{"histogram of both extremes", "histogram", "v\n-1e308\n1e308"},
		{"boxplot of the largest float", "boxplot", "g,v\nx,-1.7976931348623157e308\nx,1.7976931348623157e308\nx,5"},
		{"line of tiny values", "line", "x,v\n1,1e-300\n2,3e-300"},
		{"pie of two maxima", "pie", "k,v\na,1e308\nb,1e308"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := c.do("POST", "/api/v1/render", map[string]any{"type": tc.typ, "format": "svg", "data": tc.data})
			if a.status != 200 || a.header.Get("Content-Type") != "image/svg+xml" {
				t.Fatalf("render_image: %d %s %.300s", a.status, a.header.Get("Content-Type"), a.body)
			}
			var created struct {
				Chart struct{ ID string } `json:"chart"`
			}
			cr := c.do("POST", "/api/v1/charts", map[string]any{"type": tc.typ, "data": tc.data})
			if cr.status != 201 {
				t.Fatalf("create_chart: %d %.300s", cr.status, cr.body)
			}
			cr.json(t, &created)
			for range 2 {
				r := c.do("GET", "/api/v1/charts/"+created.Chart.ID+"/render.svg", nil)
				if r.status != 200 || !strings.HasPrefix(string(r.body), "<svg") {
					t.Fatalf("render_chart: %d %.300s", r.status, r.body)
				}
			}
		})
	}
}

// TestSummaryOfHugeNumbers asks describe_data for columns whose plain sum
// overflows: the mean is finite and right, and the answer is JSON.
func TestSummaryOfHugeNumbers(t *testing.T) {
	in := startAll(t)
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	for _, tc := range []struct {
		name, data string
		min, max   float64
		mean       float64
	}{
		{"two maxima", "k,v\nx,1e308\ny,1e308", 1e308, 1e308, 1e308},
		{"largest float thrice", "k,v\nx,1.7976931348623157e308\ny,1.7976931348623157e308\nz,1.7976931348623157e308",
			1.7976931348623157e308, 1.7976931348623157e308, 1.7976931348623157e308},
		{"overflow and back", "k,v\nx,1e308\ny,1e308\nz,-1e308\nw,-1e308", -1e308, 1e308, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var created struct {
				Chart struct{ ID string } `json:"chart"`
			}
			cr := c.do("POST", "/api/v1/charts", map[string]any{"type": "bar", "data": tc.data})
			if cr.status != 201 {
				t.Fatalf("create_chart: %d %.300s", cr.status, cr.body)
			}
			cr.json(t, &created)
			a := c.do("GET", "/api/v1/charts/"+created.Chart.ID+"/data/summary", nil)
			if a.status != 200 || a.header.Get("Content-Type") != "application/json" {
				t.Fatalf("describe_data: %d %s %.300s", a.status, a.header.Get("Content-Type"), a.body)
			}
			var s struct {
				Columns []struct {
					ID             string
					Min, Max, Mean *float64
				}
			}
			a.json(t, &s)
			if len(s.Columns) != 2 || s.Columns[1].Mean == nil || s.Columns[1].Min == nil || s.Columns[1].Max == nil {
				t.Fatalf("summary %s", a.body)
			}
			v := s.Columns[1]
			if *v.Min != tc.min || *v.Max != tc.max || *v.Mean != tc.mean {
				t.Errorf("min %g max %g mean %g, want %g %g %g", *v.Min, *v.Max, *v.Mean, tc.min, tc.max, tc.mean)
			}
		})
	}
}
