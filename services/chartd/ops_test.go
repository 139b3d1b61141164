package main

import (
	"strings"
	"sync"
	"testing"
)

func opsScenario(t *testing.T, in instance) {
	c := newClient(t, in.url, in.newAccount(t, "pro"))

	t.Run("op catalog", func(t *testing.T) {
		var cat struct {
			Catalog string
			Ops     []struct {
				Op     string
				Schema map[string]any
			}
		}
		c.do("GET", "/api/v1/ops", nil).json(t, &cat)
		names := map[string]bool{}
		for _, o := range cat.Ops {
			names[o.Op] = true
			props, _ := o.Schema["properties"].(map[string]any)
			opProp, _ := props["op"].(map[string]any)
			if o.Schema["type"] != "object" || o.Schema["additionalProperties"] != false || opProp["const"] != o.Op || o.Schema["required"] == nil {
				t.Errorf("%s schema: %v", o.Op, o.Schema)
			}
			if !strings.Contains(cat.Catalog, o.Op) {
				t.Errorf("catalog text lacks %s", o.Op)
			}
		}
		for _, want := range []string{"setTitle", "setSubtitle", "setFooter", "setType", "setVariants", "setMapping", "addTransform", "updateTransform", "removeTransform", "clearTransforms", "setPalette", "setSeriesColor", "setLegend", "setLabels", "setAxisTitle", "setAxis", "setNumberFormat", "setSize"} {
			if !names[want] {
				t.Errorf("op %s missing", want)
			}
		}
	})

	t.Run("apply ops all or nothing", func(t *testing.T) {
		ch, _ := createChart(t, c, map[string]any{"type": "bar", "data": salesCSV})
		a := c.do("POST", "/api/v1/charts/"+ch.ID+"/ops", map[string]any{"ops": []any{
			map[string]any{"op": "setTitle", "title": map[string]any{"text": "Changed"}},
			map[string]any{"op": "setMapping", "mapping": map[string]any{"values": []string{"c9"}}},
		}})
		if a.status != 400 || a.errCode(t) != "invalid_ops" || !strings.Contains(string(a.body), "ops[1]") || !strings.Contains(string(a.body), "c9") || !strings.Contains(string(a.body), "c1 (Country)") {
			t.Fatalf("bad op: %d %s", a.status, a.body)
		}
		var g struct {
			Chart chartRec
			State struct {
				Style struct{ Title struct{ Text string } }
			}
		}
		c.do("GET", "/api/v1/charts/"+ch.ID, nil).json(t, &g)
		if g.State.Style.Title.Text != "" || g.Chart.Updated != ch.Updated {
			t.Fatalf("a refused op list changed the chart: %+v", g)
		}
		var ok struct {
			Chart    chartRec
			Applied  int
			Warnings []map[string]any
		}
		a = c.do("POST", "/api/v1/charts/"+ch.ID+"/ops", map[string]any{"expected_updated_at": ch.Updated, "ops": []any{
			map[string]any{"op": "setTitle", "title": map[string]any{"text": "Sales"}},
			map[string]any{"op": "setType", "type": "pie"},
		}})
		a.json(t, &ok)
		if a.status != 200 || ok.Applied != 2 || ok.Chart.Type != "pie" || !parseTime(t, ok.Chart.Updated).After(parseTime(t, ch.Updated)) {
			t.Fatalf("apply: %d %s", a.status, a.body)
		}
		if a := c.do("POST", "/api/v1/charts/"+ch.ID+"/ops", map[string]any{"expected_updated_at": ch.Updated, "ops": []any{map[string]any{"op": "setTitle", "title": map[string]any{"text": "stale"}}}}); a.status != 409 || a.errCode(t) != "conflict" {
			t.Fatalf("stale token: %d %s", a.status, a.body)
		}
		if a := c.do("POST", "/api/v1/charts/"+ch.ID+"/ops", map[string]any{}); a.errCode(t) != "invalid_request" {
			t.Fatalf("no ops: %s", a.body)
		}
		if a := c.do("POST", "/api/v1/charts/"+ch.ID+"/ops", map[string]any{"ops": []any{map[string]any{"op": "setTitle", "title": map[string]any{"text": strings.Repeat("x", 6<<20)}}}}); a.status != 413 || a.errCode(t) != "too_large" {
			t.Fatalf("body over 5 MiB: %d %.200s", a.status, a.body)
		}
		if a := c.do("POST", "/api/v1/charts/"+ch.ID+"/ops", map[string]any{"ops": []any{map[string]any{"op": "frobnicate"}}}); a.errCode(t) != "invalid_ops" || !strings.Contains(string(a.body), "setTitle") {
			t.Fatalf("unknown op: %s", a.body)
		}
	})

	t.Run("footer", func(t *testing.T) {
		ch, _ := createChart(t, c, map[string]any{"type": "bar", "data": salesCSV})
		var g struct {
			State struct {
				Style map[string]any
			}
		}
		c.do("GET", "/api/v1/charts/"+ch.ID, nil).json(t, &g)
		if _, ok := g.State.Style["footer"]; ok {
			t.Fatalf("a new chart has a footer: %v", g.State.Style)
		}
		a := c.do("POST", "/api/v1/charts/"+ch.ID+"/ops", map[string]any{"ops": []any{
			map[string]any{"op": "setFooter", "footer": map[string]any{"source": "Eurostat", "notes": "Provisional <figures> & more.", "byline": "Data desk"}},
		}})
		if a.status != 200 {
			t.Fatalf("setFooter: %d %s", a.status, a.body)
		}
		var got struct {
			State struct {
				Style struct {
					Footer map[string]string
					Title  map[string]any
					Size   string
				}
			}
		}
		c.do("GET", "/api/v1/charts/"+ch.ID, nil).json(t, &got)
		if f := got.State.Style.Footer; f["source"] != "Eurostat" || f["notes"] != "Provisional <figures> & more." || f["byline"] != "Data desk" || got.State.Style.Size == "" || got.State.Style.Title == nil {
			t.Fatalf("state.style after setFooter: %+v", got.State.Style)
		}
		svg := c.do("GET", "/api/v1/charts/"+ch.ID+"/render.svg", nil)
		if svg.status != 200 || !strings.Contains(string(svg.body), "Source: Eurostat · Chart: Data desk") || !strings.Contains(string(svg.body), "Provisional &lt;figures&gt; &amp; more.") {
			t.Fatalf("render.svg lacks the footer: %d %.2000s", svg.status, svg.body)
		}
		if a := c.do("POST", "/api/v1/charts/"+ch.ID+"/ops", map[string]any{"ops": []any{
			map[string]any{"op": "setFooter", "footer": map[string]any{"byline": strings.Repeat("b", 101)}},
		}}); a.status != 400 || a.errCode(t) != "invalid_ops" || !strings.Contains(string(a.body), "ops[0].footer.byline: must be at most 100 characters") {
			t.Fatalf("a long byline: %d %s", a.status, a.body)
		}
		c.do("POST", "/api/v1/charts/"+ch.ID+"/ops", map[string]any{"ops": []any{
			map[string]any{"op": "setFooter", "footer": map[string]any{"source": nil, "notes": "", "byline": nil}},
		}})
		g.State.Style = nil
		c.do("GET", "/api/v1/charts/"+ch.ID, nil).json(t, &g)
		if _, ok := g.State.Style["footer"]; ok {
			t.Fatalf("a cleared footer stays: %v", g.State.Style)
		}
		// The direct render takes a spec with a footer, as include=spec gives it.
		var full struct{ Spec map[string]any }
		c.do("POST", "/api/v1/charts/"+ch.ID+"/ops", map[string]any{"ops": []any{
			map[string]any{"op": "setFooter", "footer": map[string]any{"source": "Round trip"}},
		}})
		c.do("GET", "/api/v1/charts/"+ch.ID+"?include=spec", nil).json(t, &full)
		r := c.do("POST", "/api/v1/render", map[string]any{"spec": full.Spec, "format": "svg"})
		if r.status != 200 || !strings.Contains(string(r.body), "Source: Round trip") {
			t.Fatalf("render a spec with a footer: %d %.500s", r.status, r.body)
		}
	})

	t.Run("50 writers, one token, one winner", func(t *testing.T) {
		ch, _ := createChart(t, c, map[string]any{"type": "bar", "data": salesCSV})
		var wg sync.WaitGroup
		var mu sync.Mutex
		statuses := map[int]int{}
		for i := 0; i < 50; i++ {
			wg.Add(1)
			go func() {
				defer wg.Done()
				a := c.do("POST", "/api/v1/charts/"+ch.ID+"/ops", map[string]any{"expected_updated_at": ch.Updated, "ops": []any{
					map[string]any{"op": "setSubtitle", "subtitle": map[string]any{"text": "writer"}},
				}})
				mu.Lock()
				statuses[a.status]++
				mu.Unlock()
			}()
		}
		wg.Wait()
		if statuses[200] != 1 || statuses[409] != 49 {
			t.Fatalf("statuses %v", statuses)
		}
	})

	t.Run("lint", func(t *testing.T) {
		rows := "Fruit,Count\n"
		for _, f := range []string{"Apple", "Pear", "Plum", "Kiwi", "Fig", "Lime", "Date", "Lemon"} {
			rows += f + ",3\n"
		}
		ch, _ := createChart(t, c, map[string]any{"type": "pie", "data": rows})
		var l struct {
			Problems []struct{ ID, Level, Message string }
		}
		c.do("GET", "/api/v1/charts/"+ch.ID+"/lint", nil).json(t, &l)
		found := false
		for _, p := range l.Problems {
			if p.ID == "pie-too-many-slices" {
				found = p.Level == "warn" && strings.Contains(p.Message, "topN")
			}
		}
		if !found {
			t.Fatalf("lint: %+v", l)
		}
		var ok struct{ Warnings []struct{ ID string } }
		c.do("POST", "/api/v1/charts/"+ch.ID+"/ops", map[string]any{"ops": []any{
			map[string]any{"op": "addTransform", "transform": map[string]any{"type": "topN", "n": 5}},
			map[string]any{"op": "setTitle", "title": map[string]any{"text": "Fruit"}},
		}}).json(t, &ok)
		for _, w := range ok.Warnings {
			if w.ID == "pie-too-many-slices" {
				t.Fatalf("topN 5 did not fix the pie: %+v", ok.Warnings)
			}
		}
	})
}

func TestOpsEmbedded(t *testing.T) {
	opsScenario(t, startAll(t))
}

func TestOpsPostgresRedis(t *testing.T) {
	opsScenario(t, startAll(t, "-postgres-url", freshDatabase(t), "-redis-url", shared.redis.URL()))
}
