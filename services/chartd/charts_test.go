package main

import (
	"fmt"
	"regexp"
	"strings"
	"testing"
	"time"
)

// chartRec is the chart record of answers.
type chartRec struct {
	ID, Name, Type, URL  string
	CreatedAt, UpdatedAt string `json:"-"`
	Created              string `json:"created_at"`
	Updated              string `json:"updated_at"`
}

type column struct{ ID, Name, Kind string }

var isoMicro = regexp.MustCompile(`^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}\+00:00$`)

const salesCSV = "Country,Sales,Profit\nGermany,120,30\nFrance,95,12\nSpain,60,-4\nItaly,80,9\n"

func createChart(t *testing.T, c *client, body any) (chartRec, []column) {
	t.Helper()
	a := c.do("POST", "/api/v1/charts", body)
	if a.status != 201 {
		t.Fatalf("create: %d %s", a.status, a.body)
	}
	var out struct {
		Chart   chartRec `json:"chart"`
		Columns []column `json:"columns"`
	}
	a.json(t, &out)
	return out.Chart, out.Columns
}

func parseTime(t *testing.T, s string) time.Time {
	t.Helper()
	if !isoMicro.MatchString(s) {
		t.Fatalf("timestamp %q is not ISO 8601 with microseconds and +00:00", s)
	}
	v, err := time.Parse(time.RFC3339Nano, s)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// chartsScenario covers every chart and data endpoint of the spec.
func chartsScenario(t *testing.T, in instance) {
	pro := newClient(t, in.url, in.newAccount(t, "pro"))
	other := newClient(t, in.url, in.newAccount(t, "pro"))

	t.Run("create from data", func(t *testing.T) {
		ch, cols := createChart(t, pro, map[string]any{"type": "bar", "data": salesCSV})
		if ch.Type != "bar" || ch.URL != in.url+"/charts/"+ch.ID || len(ch.ID) != 36 || ch.Name != "Untitled bar chart" {
			t.Fatalf("record %+v", ch)
		}
		parseTime(t, ch.Created)
		if ch.Created != ch.Updated {
			t.Errorf("fresh chart: created %s updated %s", ch.Created, ch.Updated)
		}
		want := []column{{"c1", "Country", "text"}, {"c2", "Sales", "number"}, {"c3", "Profit", "number"}}
		if fmt.Sprint(cols) != fmt.Sprint(want) {
			t.Fatalf("columns %v", cols)
		}
		var g struct {
			State struct {
				Mapping     map[string]any `json:"mapping"`
				Rows        int            `json:"rows"`
				ColumnCount int            `json:"columnCount"`
				Roles       []string       `json:"roles"`
				Options     map[string]any `json:"options"`
			} `json:"state"`
		}
		pro.do("GET", "/api/v1/charts/"+ch.ID, nil).json(t, &g)
		if g.State.Rows != 4 || g.State.ColumnCount != 3 || g.State.Mapping["category"] != "c1" ||
			fmt.Sprint(g.State.Mapping["values"]) != "[c2 c3]" || g.State.Options["orientation"] != "auto" || len(g.State.Roles) != 2 {
			t.Fatalf("state %+v", g.State)
		}
	})

	t.Run("create from json rows and arrays", func(t *testing.T) {
		_, cols := createChart(t, pro, map[string]any{"type": "pie", "data": []map[string]any{{"Browser": "Chrome", "Share": 65}, {"Browser": "Safari", "Share": 18}}})
		if len(cols) != 2 || cols[1].Kind != "number" {
			t.Fatalf("rows: %v", cols)
		}
		_, cols = createChart(t, pro, map[string]any{"type": "line", "data": [][]any{{"Month", "Visits"}, {"2024-01", 10}, {"2024-02", 12}}})
		if len(cols) != 2 || cols[0].Kind != "date" {
			t.Fatalf("arrays: %v", cols)
		}
	})

	t.Run("create from type alone and example", func(t *testing.T) {
		ch, cols := createChart(t, pro, map[string]any{"type": "sankey"})
		if ch.Type != "sankey" || len(cols) < 3 {
			t.Fatalf("sample: %+v %v", ch, cols)
		}
		var ex struct {
			Examples []struct{ ID, Label string } `json:"examples"`
		}
		pro.do("GET", "/api/v1/examples?type=line", nil).json(t, &ex)
		ch, cols = createChart(t, pro, map[string]any{"example": ex.Examples[0].ID})
		if ch.Type != "line" || len(cols) < 2 || ch.Name == "" || strings.HasPrefix(ch.Name, "Untitled") {
			t.Fatalf("example: %+v %v", ch, cols)
		}
	})

	t.Run("create with ops", func(t *testing.T) {
		ch, _ := createChart(t, pro, map[string]any{"type": "bar", "data": salesCSV, "ops": []any{
			map[string]any{"op": "setTitle", "title": map[string]any{"text": "Sales by country"}},
			map[string]any{"op": "setVariants", "variants": map[string]any{"bar": map[string]any{"orientation": "horizontal"}}},
			map[string]any{"op": "addTransform", "transform": map[string]any{"type": "sort", "column": "c2", "direction": "desc"}},
			map[string]any{"op": "setPalette", "palette": "okabe-ito"},
		}})
		if ch.Name != "Sales by country" {
			t.Fatalf("name %q", ch.Name)
		}
		var g struct {
			State struct {
				Options map[string]any   `json:"options"`
				Steps   []map[string]any `json:"steps"`
				Style   struct {
					Title   struct{ Text string } `json:"title"`
					Palette []string              `json:"palette"`
				} `json:"style"`
			} `json:"state"`
		}
		pro.do("GET", "/api/v1/charts/"+ch.ID, nil).json(t, &g)
		if g.State.Options["orientation"] != "horizontal" || len(g.State.Steps) != 1 || g.State.Style.Title.Text != "Sales by country" || g.State.Style.Palette[0] != "#E69F00" && g.State.Style.Palette[0] != "#000000" {
			t.Fatalf("ops not applied: %+v", g.State)
		}
		a := pro.do("POST", "/api/v1/charts", map[string]any{"type": "bar", "data": salesCSV, "ops": []any{
			map[string]any{"op": "setTitle", "title": map[string]any{"text": "ok"}},
			map[string]any{"op": "addTransform", "transform": map[string]any{"type": "sort", "column": "c9"}},
		}})
		if a.status != 400 || a.errCode(t) != "invalid_ops" || !strings.Contains(string(a.body), "ops[1]") || !strings.Contains(string(a.body), "c9") {
			t.Fatalf("bad op: %d %s", a.status, a.body)
		}
	})

	t.Run("create refusals", func(t *testing.T) {
		big := strings.Repeat("1,", 999) + "1\n"
		cells := "c" + strings.Repeat(",c", 999) + "\n" + strings.Repeat(big, 1001)
		for _, tc := range []struct {
			name string
			body any
			code string
			msg  string
		}{
			{"nothing", map[string]any{}, "invalid_request", "type"},
			{"both", map[string]any{"type": "bar", "example": "x"}, "invalid_request", "not both"},
			{"unknown type", map[string]any{"type": "donut"}, "invalid_request", "bar"},
			{"unknown example", map[string]any{"example": "nope"}, "invalid_request", "examples"},
			{"unknown field", map[string]any{"type": "bar", "dta": "a,b"}, "invalid_request", "dta"},
			{"bad format", map[string]any{"type": "bar", "data": salesCSV, "format": "xlsx"}, "invalid_request", "csv"},
			{"ragged rows", map[string]any{"type": "bar", "data": "a,b\n1,2\n3,4,5\n"}, "invalid_request", "row"},
			{"wrong ops type", map[string]any{"type": "bar", "ops": "setTitle"}, "invalid_request", "ops"},
			{"too many cells", map[string]any{"type": "bar", "data": cells}, "too_large", "cells"},
			{"body over 5 MiB", map[string]any{"type": "bar", "data": strings.Repeat("x", 6<<20)}, "too_large", "bytes"},
		} {
			t.Run(tc.name, func(t *testing.T) {
				a := pro.do("POST", "/api/v1/charts", tc.body)
				if code := a.errCode(t); code != tc.code || !strings.Contains(string(a.body), tc.msg) {
					t.Fatalf("%d %s", a.status, a.body)
				}
			})
		}
		a := pro.do("POST", "/api/v1/charts", `{"type":"bar"}`, "Content-Type", "text/plain")
		if a.errCode(t) != "invalid_request" {
			t.Fatalf("content type: %s", a.body)
		}
	})

	t.Run("list, rename, duplicate, delete", func(t *testing.T) {
		c := newClient(t, in.url, in.newAccount(t, "pro"))
		var ids []string
		for i := 0; i < 3; i++ {
			ch, _ := createChart(t, c, map[string]any{"type": "bar", "data": salesCSV, "name": fmt.Sprintf("chart %d", i)})
			ids = append(ids, ch.ID)
		}
		var page struct {
			Charts     []chartRec `json:"charts"`
			NextCursor *string    `json:"next_cursor"`
		}
		c.do("GET", "/api/v1/charts?limit=2", nil).json(t, &page)
		if len(page.Charts) != 2 || page.NextCursor == nil || page.Charts[0].ID != ids[2] || page.Charts[1].ID != ids[1] {
			t.Fatalf("page 1: %+v", page)
		}
		c.do("GET", "/api/v1/charts?limit=2&cursor="+*page.NextCursor, nil).json(t, &page)
		if len(page.Charts) != 1 || page.NextCursor != nil || page.Charts[0].ID != ids[0] {
			t.Fatalf("page 2: %+v", page)
		}
		before := page.Charts[0]
		var ren struct{ Chart chartRec }
		a := c.do("PATCH", "/api/v1/charts/"+ids[0], map[string]any{"name": "Renamed"})
		a.json(t, &ren)
		if ren.Chart.Name != "Renamed" || !parseTime(t, ren.Chart.Updated).After(parseTime(t, before.Updated)) || ren.Chart.Created != before.Created {
			t.Fatalf("rename: %s", a.body)
		}
		c.do("GET", "/api/v1/charts", nil).json(t, &page)
		if page.Charts[0].ID != ids[0] {
			t.Fatalf("the renamed chart is not first: %+v", page.Charts)
		}
		for _, bad := range []string{"?limit=0", "?limit=101", "?cursor=garbage", "?limit=2&sort=name"} {
			if a := c.do("GET", "/api/v1/charts"+bad, nil); a.errCode(t) != "invalid_request" {
				t.Fatalf("%s: %s", bad, a.body)
			}
		}
		if a := c.do("PATCH", "/api/v1/charts/"+ids[0], map[string]any{}); a.errCode(t) != "invalid_request" {
			t.Fatalf("rename without name: %s", a.body)
		}
		var dup struct{ Chart chartRec }
		a = c.do("POST", "/api/v1/charts/"+ids[0]+"/duplicate", nil)
		if a.status != 201 {
			t.Fatalf("duplicate: %d %s", a.status, a.body)
		}
		a.json(t, &dup)
		if dup.Chart.Name != "Copy of Renamed" || dup.Chart.ID == ids[0] {
			t.Fatalf("duplicate: %+v", dup.Chart)
		}
		var g struct {
			State struct{ Rows int } `json:"state"`
		}
		c.do("GET", "/api/v1/charts/"+dup.Chart.ID, nil).json(t, &g)
		if g.State.Rows != 4 {
			t.Fatalf("the copy lost its data: %+v", g)
		}
		var del struct {
			Deleted bool
			ID      string
		}
		c.do("DELETE", "/api/v1/charts/"+ids[1], nil).json(t, &del)
		if !del.Deleted || del.ID != ids[1] {
			t.Fatalf("delete: %+v", del)
		}
		for _, p := range []string{"GET /api/v1/charts/" + ids[1], "DELETE /api/v1/charts/" + ids[1], "GET /api/v1/charts/" + ids[1] + "/data/summary"} {
			m, path, _ := strings.Cut(p, " ")
			if a := c.do(m, path, nil); a.status != 404 || a.errCode(t) != "not_found" {
				t.Fatalf("%s after delete: %d %s", p, a.status, a.body)
			}
		}
	})

	t.Run("another account's chart is not_found everywhere", func(t *testing.T) {
		ch, _ := createChart(t, pro, map[string]any{"type": "bar", "data": salesCSV})
		id := ch.ID
		for _, tc := range []struct {
			method, path string
			body         any
		}{
			{"GET", "/api/v1/charts/" + id, nil},
			{"PATCH", "/api/v1/charts/" + id, map[string]any{"name": "x"}},
			{"DELETE", "/api/v1/charts/" + id, nil},
			{"POST", "/api/v1/charts/" + id + "/duplicate", nil},
			{"PUT", "/api/v1/charts/" + id + "/data", map[string]any{"data": salesCSV}},
			{"GET", "/api/v1/charts/" + id + "/data/summary", nil},
			{"POST", "/api/v1/charts/" + id + "/data/query", map[string]any{}},
			{"GET", "/api/v1/charts/00000000-0000-0000-0000-000000000000", nil},
			{"GET", "/api/v1/charts/not-a-uuid", nil},
		} {
			if a := other.do(tc.method, tc.path, tc.body); a.status != 404 || a.errCode(t) != "not_found" {
				t.Fatalf("%s %s: %d %s", tc.method, tc.path, a.status, a.body)
			}
		}
		var g struct{ Chart chartRec }
		pro.do("GET", "/api/v1/charts/"+id, nil).json(t, &g)
		if g.Chart.Name != ch.Name {
			t.Fatal("another account changed the chart")
		}
	})

	t.Run("get with spec", func(t *testing.T) {
		ch, _ := createChart(t, pro, map[string]any{"type": "bar", "data": salesCSV})
		var g struct {
			Spec struct {
				Type string
				Data struct {
					Format  string
					Columns []column
					Rows    [][]any
				}
				Advanced any
			} `json:"spec"`
		}
		a := pro.do("GET", "/api/v1/charts/"+ch.ID+"?include=spec", nil)
		a.json(t, &g)
		if g.Spec.Type != "bar" || len(g.Spec.Data.Rows) != 4 || g.Spec.Data.Rows[0][0] != "Germany" || g.Spec.Data.Rows[0][1] != 120.0 || g.Spec.Advanced != nil || !strings.Contains(string(a.body), `"advanced":null`) {
			t.Fatalf("spec: %s", a.body)
		}
		if a := pro.do("GET", "/api/v1/charts/"+ch.ID+"?include=data", nil); a.errCode(t) != "invalid_request" {
			t.Fatalf("include=data: %s", a.body)
		}
	})

	t.Run("set_data", func(t *testing.T) {
		ch, _ := createChart(t, pro, map[string]any{"type": "bar", "data": salesCSV, "ops": []any{
			map[string]any{"op": "addTransform", "transform": map[string]any{"type": "sort", "column": "c2", "direction": "desc"}},
		}})
		// Same columns by name, in another order: roles and steps follow the names.
		a := pro.do("PUT", "/api/v1/charts/"+ch.ID+"/data", map[string]any{"data": "Profit,Country,Sales\n1,Norway,10\n2,Chile,20\n", "expected_updated_at": ch.Updated})
		var sd struct {
			Chart       chartRec
			Columns     []column
			Rows        int
			MappingKept bool `json:"mapping_kept"`
		}
		a.json(t, &sd)
		if a.status != 200 || !sd.MappingKept || sd.Rows != 2 || !parseTime(t, sd.Chart.Updated).After(parseTime(t, ch.Updated)) {
			t.Fatalf("kept: %d %s", a.status, a.body)
		}
		var g struct {
			State struct {
				Mapping map[string]any   `json:"mapping"`
				Steps   []map[string]any `json:"steps"`
			} `json:"state"`
		}
		pro.do("GET", "/api/v1/charts/"+ch.ID, nil).json(t, &g)
		if g.State.Mapping["category"] != "c2" || fmt.Sprint(g.State.Mapping["values"]) != "[c3 c1]" || g.State.Steps[0]["column"] != "c3" {
			t.Fatalf("remapped state: %+v", g.State)
		}
		// Stale token: conflict, nothing changes.
		if a := pro.do("PUT", "/api/v1/charts/"+ch.ID+"/data", map[string]any{"data": "x,y\n1,2\n", "expected_updated_at": ch.Updated}); a.status != 409 || a.errCode(t) != "conflict" {
			t.Fatalf("stale: %d %s", a.status, a.body)
		}
		var sum struct{ Rows int }
		pro.do("GET", "/api/v1/charts/"+ch.ID+"/data/summary", nil).json(t, &sum)
		if sum.Rows != 2 {
			t.Fatalf("a refused set_data changed the data: %d rows", sum.Rows)
		}
		// Other columns: roles are picked again.
		a = pro.do("PUT", "/api/v1/charts/"+ch.ID+"/data", map[string]any{"data": [][]any{{"City", "Population"}, {"Oslo", 700000}}})
		a.json(t, &sd)
		if a.status != 200 || sd.MappingKept {
			t.Fatalf("not kept: %s", a.body)
		}
		pro.do("GET", "/api/v1/charts/"+ch.ID, nil).json(t, &g)
		if g.State.Mapping["category"] != "c1" || fmt.Sprint(g.State.Mapping["values"]) != "[c2]" {
			t.Fatalf("repicked: %+v", g.State)
		}
		if a := pro.do("PUT", "/api/v1/charts/"+ch.ID+"/data", map[string]any{}); a.errCode(t) != "invalid_request" {
			t.Fatalf("no data: %s", a.body)
		}
		big := "c" + strings.Repeat(",c", 999) + "\n" + strings.Repeat(strings.Repeat("1,", 999)+"1\n", 1001)
		if a := pro.do("PUT", "/api/v1/charts/"+ch.ID+"/data", map[string]any{"data": big}); a.status != 413 || a.errCode(t) != "too_large" {
			t.Fatalf("too many cells: %d %s", a.status, a.body)
		}
		if a := pro.do("PUT", "/api/v1/charts/"+ch.ID+"/data", map[string]any{"data": strings.Repeat("y", 6<<20)}); a.status != 413 || a.errCode(t) != "too_large" {
			t.Fatalf("body over 5 MiB: %d %s", a.status, a.body)
		}
	})

	t.Run("describe and query", func(t *testing.T) {
		ch, _ := createChart(t, pro, map[string]any{"type": "bar", "data": "Country,Sales\nGermany,120\nFrance,\nSpain,60\nFrance,80\n", "ops": []any{
			map[string]any{"op": "addTransform", "transform": map[string]any{"type": "sort", "column": "c2", "direction": "desc"}},
		}})
		var sum struct {
			Rows    int
			Columns []map[string]any
		}
		pro.do("GET", "/api/v1/charts/"+ch.ID+"/data/summary", nil).json(t, &sum)
		if sum.Rows != 4 || sum.Columns[0]["distinct"] != 3.0 || sum.Columns[1]["blanks"] != 1.0 || sum.Columns[1]["max"] != 120.0 || sum.Columns[1]["min"] != 60.0 {
			t.Fatalf("summary: %+v", sum)
		}
		var q struct {
			Columns   []string
			Rows      [][]any
			TotalRows int `json:"total_rows"`
			Errors    []map[string]any
		}
		pro.do("POST", "/api/v1/charts/"+ch.ID+"/data/query", map[string]any{"limit": 2}).json(t, &q)
		if fmt.Sprint(q.Columns) != "[c1 (Country) c2 (Sales)]" || len(q.Rows) != 2 || q.TotalRows != 4 || q.Rows[0][1] != 120.0 || len(q.Errors) != 0 {
			t.Fatalf("query: %+v", q)
		}
		pro.do("POST", "/api/v1/charts/"+ch.ID+"/data/query", map[string]any{"steps": []any{
			map[string]any{"type": "filter", "column": "c2", "operator": "gt", "value": 70},
			map[string]any{"type": "sort", "column": "c7"},
		}}).json(t, &q)
		if q.TotalRows != 2 || len(q.Errors) != 1 || q.Errors[0]["index"] != 1.0 || !strings.Contains(fmt.Sprint(q.Errors[0]["message"]), "c7") {
			t.Fatalf("query steps: %+v", q)
		}
		pro.do("GET", "/api/v1/charts/"+ch.ID+"/data/summary", nil).json(t, &sum)
		if sum.Rows != 4 {
			t.Fatal("query steps were saved")
		}
		if a := pro.do("POST", "/api/v1/charts/"+ch.ID+"/data/query", map[string]any{"limit": 1001}); a.errCode(t) != "invalid_request" {
			t.Fatalf("limit: %s", a.body)
		}
	})

	t.Run("free plan chart limit", func(t *testing.T) {
		c := newClient(t, in.url, in.newAccount(t, "free"))
		var first string
		for i := 0; i < 25; i++ {
			ch, _ := createChart(t, c, map[string]any{"type": "pie", "data": "a,b\nx,1\n"})
			first = ch.ID
		}
		if a := c.do("POST", "/api/v1/charts", map[string]any{"type": "pie", "data": "a,b\nx,1\n"}); a.status != 409 || a.errCode(t) != "chart_limit_reached" {
			t.Fatalf("26th: %d %s", a.status, a.body)
		}
		if a := c.do("POST", "/api/v1/charts/"+first+"/duplicate", nil); a.status != 409 || a.errCode(t) != "chart_limit_reached" {
			t.Fatalf("duplicate at limit: %d %s", a.status, a.body)
		}
		var acct struct {
			SavedCharts struct{ Used, Limit int } `json:"saved_charts"`
		}
		c.do("GET", "/api/v1/account", nil).json(t, &acct)
		if acct.SavedCharts.Used != 25 || acct.SavedCharts.Limit != 25 {
			t.Fatalf("account: %+v", acct)
		}
	})
}

func TestChartsEmbedded(t *testing.T) {
	chartsScenario(t, startAll(t))
}

func TestChartsPostgresRedis(t *testing.T) {
	chartsScenario(t, startAll(t, "-postgres-url", freshDatabase(t), "-redis-url", shared.redis.URL()))
}
