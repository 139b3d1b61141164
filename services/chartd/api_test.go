package main

import (
	"strconv"
	"strings"
	"testing"
	"time"
)

// scenario is the API tour every deployment shape must pass the same way:
// all-in-one on the embedded backends, all-in-one on PostgreSQL + Redis,
// and split into processes.
func scenario(t *testing.T, in instance) {
	pro := newClient(t, in.url, in.newAccount(t, "pro"))
	free := newClient(t, in.url, in.newAccount(t, "free"))
	anon := newClient(t, in.url, "")
	bad := newClient(t, in.url, "chd_not_a_real_key")

	t.Run("health", func(t *testing.T) {
		for _, p := range []string{"/healthz", "/readyz"} {
			if a := anon.do("GET", p, nil); a.status != 200 {
				t.Fatalf("%s: %d %s", p, a.status, a.body)
			}
		}
	})

	t.Run("account", func(t *testing.T) {
		var rec struct {
			Plan        string                    `json:"plan"`
			SavedCharts struct{ Used, Limit int } `json:"saved_charts"`
			Requests    struct {
				Limit, Left, ResetsInSeconds int
			} `json:"requests"`
			Renders      struct{ Limit, Left int } `json:"renders"`
			ImageRenders struct{ Limit, Left int } `json:"image_renders"`
		}
		a := pro.do("GET", "/api/v1/account", nil)
		if a.status != 200 {
			t.Fatalf("%d %s", a.status, a.body)
		}
		a.json(t, &rec)
		if rec.Plan != "pro" || rec.SavedCharts.Limit != 10000 || rec.Requests.Limit != 1200 ||
			rec.Renders.Limit != 10000 || rec.Renders.Left != 10000 || rec.ImageRenders.Limit != 1000 {
			t.Fatalf("pro account = %s", a.body)
		}
		left := rec.Requests.Left
		if hdr, _ := strconv.Atoi(a.header.Get("X-RateLimit-Remaining")); hdr != left || left <= 0 || left >= 1200 {
			t.Fatalf("requests.left %d vs header %s", left, a.header.Get("X-RateLimit-Remaining"))
		}
		a = free.do("GET", "/api/v1/account", nil)
		a.json(t, &rec)
		if rec.Plan != "free" || rec.SavedCharts.Limit != 25 || rec.Requests.Limit != 120 || rec.Renders.Limit != 500 || rec.ImageRenders.Limit != 100 {
			t.Fatalf("free account = %s", a.body)
		}
	})

	t.Run("refusals", func(t *testing.T) {
		cases := []struct {
			name   string
			c      *client
			method string
			path   string
			body   any
			hdr    []string
			status int
			code   string
		}{
			{"no key", anon, "GET", "/api/v1/account", nil, nil, 401, "unauthorized"},
			{"bad key", bad, "GET", "/api/v1/palettes", nil, nil, 401, "unauthorized"},
			{"unknown route", pro, "GET", "/api/v1/nothing-here", nil, nil, 404, "not_found"},
			{"wrong method", pro, "PUT", "/api/v1/palettes", `{}`, nil, 400, "invalid_request"},
			{"unknown query", pro, "GET", "/api/v1/palettes?colour=red", nil, nil, 400, "invalid_request"},
			{"repeated query", pro, "GET", "/api/v1/examples?type=bar&type=pie", nil, nil, 400, "invalid_request"},
			{"unknown type", pro, "GET", "/api/v1/examples?type=donut", nil, nil, 400, "invalid_request"},
		}
		for _, tc := range cases {
			t.Run(tc.name, func(t *testing.T) {
				a := tc.c.do(tc.method, tc.path, tc.body, tc.hdr...)
				if a.status != tc.status || a.errCode(t) != tc.code {
					t.Fatalf("got %d %s, want %d %s", a.status, a.body, tc.status, tc.code)
				}
			})
		}
	})

	t.Run("reference lists", func(t *testing.T) {
		var types struct {
			ChartTypes []struct {
				Type  string `json:"type"`
				Guide string `json:"guide"`
				Roles []struct {
					Role     string `json:"role"`
					Required bool   `json:"required"`
				} `json:"roles"`
			} `json:"chart_types"`
		}
		pro.do("GET", "/api/v1/chart-types", nil).json(t, &types)
		var names []string
		for _, ct := range types.ChartTypes {
			names = append(names, ct.Type)
			if len(ct.Guide) < 100 || len(ct.Roles) == 0 {
				t.Errorf("%s: thin entry", ct.Type)
			}
		}
		if got := strings.Join(names, ","); got != "bar,line,pie,scatter,histogram,boxplot,dotplot,sankey,radar,heatmap" {
			t.Fatalf("types = %s", got)
		}
		var ex struct {
			Examples []struct{ ID, Type string } `json:"examples"`
		}
		pro.do("GET", "/api/v1/examples", nil).json(t, &ex)
		perType := map[string]int{}
		for _, e := range ex.Examples {
			perType[e.Type]++
		}
		for _, n := range names {
			if perType[n] < 2 {
				t.Errorf("type %s has %d examples", n, perType[n])
			}
		}
		pro.do("GET", "/api/v1/examples?type=sankey", nil).json(t, &ex)
		for _, e := range ex.Examples {
			if e.Type != "sankey" {
				t.Fatalf("filter let %s through", e.Type)
			}
		}
		var pals struct {
			Palettes []struct {
				ID     string   `json:"id"`
				Colors []string `json:"colors"`
				Light  bool     `json:"light"`
			} `json:"palettes"`
		}
		pro.do("GET", "/api/v1/palettes", nil).json(t, &pals)
		ids := map[string]bool{}
		light := false
		for _, p := range pals.Palettes {
			ids[p.ID] = true
			light = light || p.Light
		}
		if len(pals.Palettes) < 8 || !ids["okabe-ito"] || !light {
			t.Fatalf("palettes: %d, okabe-ito %v, a light one %v", len(pals.Palettes), ids["okabe-ito"], light)
		}
	})

	t.Run("openapi without key", func(t *testing.T) {
		a := anon.do("GET", "/api/v1/openapi.json", nil)
		if a.status != 200 || !strings.Contains(string(a.body), `"openapi": "3.1.0"`) || !strings.Contains(string(a.body), in.url+"/api/v1") {
			t.Fatalf("openapi: %d", a.status)
		}
	})

	t.Run("free rate limit", func(t *testing.T) {
		// 120 a minute refill at 2 a second: a slow machine may get a few
		// more than 120 through before the first refusal, never fewer, and
		// never more than the refill over the elapsed time allows.
		c := newClient(t, in.url, in.newAccount(t, "free"))
		start := time.Now()
		ok := 0
		var a answer
		for ok <= 240 {
			if a = c.do("GET", "/api/v1/palettes", nil); a.status != 200 {
				break
			}
			ok++
		}
		allowed := 120 + int(time.Since(start).Seconds()*2) + 1
		if ok < 120 || ok > allowed {
			t.Fatalf("%d requests passed before the first refusal; want 120..%d", ok, allowed)
		}
		if a.status != 429 || a.errCode(t) != "rate_limited" || a.header.Get("Retry-After") == "" {
			t.Fatalf("refusal: %d %s %v", a.status, a.body, a.header)
		}
	})
}

func TestAllEmbedded(t *testing.T) {
	scenario(t, startAll(t))
}

func TestAllPostgresRedis(t *testing.T) {
	scenario(t, startAll(t, "-postgres-url", freshDatabase(t), "-redis-url", shared.redis.URL()))
}

func TestSplitProcesses(t *testing.T) {
	scenario(t, startSplit(t))
}

func TestSplitProcessesPostgresRedis(t *testing.T) {
	scenario(t, startSplit(t, "-postgres-url", freshDatabase(t), "-redis-url", shared.redis.URL()))
}
