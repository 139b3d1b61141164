package main

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"chartd.dev/libs/auth"
	"chartd.dev/libs/telemetry"
)

// problem is a lint problem of an answer.
type problem struct{ ID, Level, Message string }

// roomProblems answers the needs-room problems of a list, failing on any
// that is not a warn.
func roomProblems(t *testing.T, ps []problem) []problem {
	t.Helper()
	var out []problem
	for _, p := range ps {
		if p.ID == "needs-room" {
			if p.Level != "warn" || !strings.Contains(p.Message, "setSize") {
				t.Errorf("needs-room problem %+v: want a warn naming setSize", p)
			}
			out = append(out, p)
		}
	}
	return out
}

var (
	tallNeed = regexp.MustCompile(`make the chart (\d+) px tall`)
	sizeNeed = regexp.MustCompile(`style size (\d+)×(\d+)`)
)

// neededSize reads the size a needs-room message names: "… 620 px tall"
// at width w, or "style size 800×1150".
func neededSize(t *testing.T, msg string, w int) (int, int) {
	t.Helper()
	if m := sizeNeed.FindStringSubmatch(msg); m != nil {
		a, _ := strconv.Atoi(m[1])
		b, _ := strconv.Atoi(m[2])
		return a, b
	}
	if m := tallNeed.FindStringSubmatch(msg); m != nil {
		h, _ := strconv.Atoi(m[1])
		return w, h
	}
	t.Fatalf("needs-room message names no height: %s", msg)
	return 0, 0
}

// rowsCSV is a table of n categories with long-ish names and a value each.
func rowsCSV(n int) string {
	var b strings.Builder
	b.WriteString("Region,Sales\n")
	for i := 1; i <= n; i++ {
		fmt.Fprintf(&b, "Sales region number %d,%d\n", i, 100+i*7%53)
	}
	return b.String()
}

// longTitle is a 200-character title, the longest setTitle takes.
var longTitle = strings.Repeat("Sales fell in every region but one ", 6)[:200]

func sizeOp(w, h int) map[string]any { return map[string]any{"op": "setSize", "width": w, "height": h} }

var horizontal = map[string]any{"op": "setVariants", "variants": map[string]any{"bar": map[string]any{"orientation": "horizontal"}}}

// roomScenario: lint (create, apply_ops, set_data, get_chart, lint_chart)
// says when text is cut or shrunk, with the height that holds it, found
// by the render service's drawing; a chart that fits says nothing, and the
// size named clears the warning.
func roomScenario(t *testing.T, in instance) {
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	create := func(t *testing.T, body map[string]any) (string, []problem) {
		t.Helper()
		a := c.do("POST", "/api/v1/charts", body)
		if a.status != 201 {
			t.Fatalf("create: %d %s", a.status, a.body)
		}
		var out struct {
			Chart    chartRec
			Warnings []problem
		}
		a.json(t, &out)
		return out.Chart.ID, out.Warnings
	}
	lint := func(t *testing.T, id string) []problem {
		t.Helper()
		var out struct{ Problems []problem }
		a := c.do("GET", "/api/v1/charts/"+id+"/lint", nil)
		if a.status != 200 {
			t.Fatalf("lint: %d %s", a.status, a.body)
		}
		a.json(t, &out)
		var g struct{ State struct{ Warnings []problem } }
		c.do("GET", "/api/v1/charts/"+id, nil).json(t, &g)
		if fmt.Sprint(g.State.Warnings) != fmt.Sprint(out.Problems) {
			t.Errorf("get_chart's warnings differ from lint's:\n%v\n%v", g.State.Warnings, out.Problems)
		}
		return out.Problems
	}
	ops := func(t *testing.T, id string, list ...any) []problem {
		t.Helper()
		a := c.do("POST", "/api/v1/charts/"+id+"/ops", map[string]any{"ops": list})
		if a.status != 200 {
			t.Fatalf("ops: %d %s", a.status, a.body)
		}
		var out struct{ Warnings []problem }
		a.json(t, &out)
		return out.Warnings
	}
	// clears applies the size a needs-room warning names and expects
	// none after it.
	clears := func(t *testing.T, id string, msg string, w int) {
		t.Helper()
		nw, nh := neededSize(t, msg, w)
		if got := roomProblems(t, ops(t, id, sizeOp(nw, nh))); len(got) != 0 {
			t.Errorf("at the size named (%d×%d) lint still warns: %v", nw, nh, got)
		}
	}

	// 800×500: a height other than a new chart's, so the chart keeps it
	// (with the default size it grows to name every row)
	t.Run("fifty rows at 800×500", func(t *testing.T) {
		id, warnings := create(t, map[string]any{"type": "bar", "data": rowsCSV(50), "ops": []any{horizontal, sizeOp(800, 500)}})
		got := roomProblems(t, warnings)
		if len(got) != 1 {
			t.Fatalf("create warns %d times for room, want once: %v", len(got), warnings)
		}
		t.Logf("create warns: %s", got[0].Message)
		if _, h := neededSize(t, got[0].Message, 800); h <= 500 {
			t.Errorf("the size named is no taller than 500: %s", got[0].Message)
		}
		if again := roomProblems(t, lint(t, id)); len(again) != 1 || again[0] != got[0] {
			t.Errorf("lint answers %v, create %v", again, got)
		}
		clears(t, id, got[0].Message, 800)
	})

	// setTitle takes 200 characters at most, which wrap to fit at 500×400;
	// at 300×200 the title's share of the height holds 3 of its 5 lines.
	t.Run("a 200-character title at 300×200", func(t *testing.T) {
		id, warnings := create(t, map[string]any{"type": "bar", "data": salesCSV, "ops": []any{sizeOp(300, 200)}})
		if got := roomProblems(t, warnings); len(got) != 0 {
			t.Fatalf("a short chart warns for room: %v", got)
		}
		got := roomProblems(t, ops(t, id, map[string]any{"op": "setTitle", "title": map[string]any{"text": longTitle}}))
		if len(got) != 1 || !strings.Contains(got[0].Message, "title") || !tallNeed.MatchString(got[0].Message) {
			t.Fatalf("apply_ops: want one needs-room on the title naming a height, got %v", got)
		}
		t.Logf("apply_ops warns: %s", got[0].Message)
		if again := roomProblems(t, lint(t, id)); len(again) != 1 || again[0] != got[0] {
			t.Errorf("lint answers %v, apply_ops %v", again, got)
		}
		clears(t, id, got[0].Message, 300)
	})

	t.Run("set_data to fifty rows", func(t *testing.T) {
		id, _ := create(t, map[string]any{"type": "bar", "data": salesCSV, "ops": []any{horizontal, sizeOp(800, 500)}})
		a := c.do("PUT", "/api/v1/charts/"+id+"/data", map[string]any{"data": rowsCSV(50)})
		if a.status != 200 {
			t.Fatalf("set_data: %d %s", a.status, a.body)
		}
		var out struct{ Warnings []problem }
		a.json(t, &out)
		if got := roomProblems(t, out.Warnings); len(got) != 1 {
			t.Fatalf("set_data: want one needs-room, got %v", out.Warnings)
		}
	})

	t.Run("a chart that fits", func(t *testing.T) {
		id, warnings := create(t, map[string]any{"type": "bar", "data": salesCSV, "ops": []any{map[string]any{"op": "setTitle", "title": map[string]any{"text": "Sales by country"}}}})
		if got := roomProblems(t, warnings); len(got) != 0 {
			t.Errorf("create warns for room: %v", got)
		}
		if got := roomProblems(t, lint(t, id)); len(got) != 0 {
			t.Errorf("lint warns for room: %v", got)
		}
	})
}

func TestLintNeedsRoomEmbedded(t *testing.T) {
	// A generous bound: under a loaded test machine a missing warning
	// would be the timeout, not the check.
	roomScenario(t, startAll(t, "-chart.layout-timeout=20s"))
}

// TestLintNeedsRoomPostgresRedis: the version lint holds and the version
// render draws agree on PostgreSQL's timestamps too.
func TestLintNeedsRoomPostgresRedis(t *testing.T) {
	roomScenario(t, startAll(t, append(clusterFlags(t), "-chart.layout-timeout=20s")...))
}

// chartTarget is a chart service run alone (-target=chart) in this
// process, its render service at renderURL, answering on a loopback
// server; call sends the internal headers of a pro account in its store.
type chartTarget struct {
	url, token string
	p          auth.Principal
	logs       *syncBuffer
	app        *App
}

func startChartTarget(t *testing.T, renderURL string, extra ...string) chartTarget {
	t.Helper()
	dir := t.TempDir()
	token := "chart-alone-internal-token-0123456789"
	// The brand service answers its readiness only: lint calls it not.
	brandSrv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/readyz" {
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(brandSrv.Close)
	args := append([]string{"-target=chart", "-single-node-trial", "-data-dir", dir, "-internal-token", token, "-public-url", "http://127.0.0.1:9",
		"-brand-url", brandSrv.URL, "-render-url", renderURL}, extra...)
	cfg, err := ParseConfig(args, func(string) string { return "" })
	if err != nil {
		t.Fatal(err)
	}
	logs := &syncBuffer{mu: make(chan struct{}, 1)}
	tel, err := telemetry.New(context.Background(), telemetry.Config{Service: "test", LogLevel: slog.LevelWarn, LogOut: logs})
	if err != nil {
		t.Fatal(err)
	}
	app, err := NewApp(context.Background(), cfg, tel)
	if err != nil {
		t.Fatal(err)
	}
	srv := httptest.NewServer(app.Handler())
	t.Cleanup(func() {
		srv.Close()
		app.Close()
	})
	st := storeOpener(cfg)(t)
	defer st.Close()
	a, err := st.CreateAccount(context.Background(), "pro")
	if err != nil {
		t.Fatal(err)
	}
	return chartTarget{url: srv.URL, token: token, p: auth.Principal{AccountID: a.ID, Plan: "pro"}, logs: logs, app: app}
}

// call sends a request to the chart service and answers its status, its
// body and how long it took.
func (c chartTarget) call(t *testing.T, method, path string, body any) (int, []byte, time.Duration) {
	t.Helper()
	var rb io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rb = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, c.url+path, rb)
	if err != nil {
		t.Fatal(err)
	}
	req.Header.Set("Content-Type", "application/json")
	auth.SetInternal(req.Header, c.token, c.p)
	began := time.Now()
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, path, err)
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatal(err)
	}
	return resp.StatusCode, data, time.Since(began)
}

// TestChartTargetNeedsRenderURL: run apart, the chart target is told
// where render is, as for every service it calls.
func TestChartTargetNeedsRenderURL(t *testing.T) {
	_, err := ParseConfig([]string{"-target=chart", "-internal-token=0123456789abcdef0", "-brand-url=http://10.0.0.1:9"}, func(string) string { return "" })
	if err == nil || !strings.Contains(err.Error(), "-render-url") {
		t.Fatalf("missing render url not reported: %v", err)
	}
}

// TestLintWithoutRender: with the render service unreachable, or there but
// never answering, the chart target is ready and lint still answers its
// other problems, without the layout ones, within the layout timeout, and
// logs why.
func TestLintWithoutRender(t *testing.T) {
	const timeout = 300 * time.Millisecond
	// Slack for a loaded machine; without the bound the hanging render
	// service would hold lint for ever.
	const slack = 2 * time.Second
	stuck := make(chan struct{})
	hanging := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		select {
		case <-r.Context().Done():
		case <-stuck:
		}
	}))
	t.Cleanup(func() {
		close(stuck)
		hanging.Close()
	})
	tests := []struct {
		name      string
		renderURL string
		log       string
		waits     bool
	}{
		{"render unreachable", "http://" + freeAddr(t), "the render service is unreachable or failed", false},
		{"render never answers", hanging.URL, "the render service did not answer in time", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			c := startChartTarget(t, tt.renderURL, "-chart.layout-timeout="+timeout.String())
			// Lint does without render, so the chart target is ready
			// without it (and render, which calls chart, can start after).
			ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
			defer cancel()
			if err := c.app.Ready(ctx); err != nil {
				t.Errorf("the chart target is not ready without render: %v", err)
			}
			status, body, took := c.call(t, "POST", "/api/v1/charts", map[string]any{"type": "bar", "data": rowsCSV(50), "ops": []any{horizontal, sizeOp(800, 600)}})
			if status != 201 {
				t.Fatalf("create: %d %s", status, body)
			}
			var created struct {
				Chart    chartRec
				Warnings []problem
			}
			if err := json.Unmarshal(body, &created); err != nil {
				t.Fatal(err)
			}
			check := func(what string, ps []problem, took time.Duration) {
				t.Helper()
				if took > timeout+slack || (tt.waits && took < timeout) {
					t.Errorf("%s took %v with a layout timeout of %v", what, took, timeout)
				}
				ids := map[string]bool{}
				for _, p := range ps {
					ids[p.ID] = true
				}
				if ids["needs-room"] || !ids["too-many-categories"] {
					t.Errorf("%s: want the other problems (too-many-categories) without needs-room, got %v", what, ps)
				}
			}
			check("create", created.Warnings, took)
			status, body, took = c.call(t, "GET", "/api/v1/charts/"+created.Chart.ID+"/lint", nil)
			if status != 200 {
				t.Fatalf("lint: %d %s", status, body)
			}
			var linted struct{ Problems []problem }
			if err := json.Unmarshal(body, &linted); err != nil {
				t.Fatal(err)
			}
			check("lint", linted.Problems, took)
			if logs := c.logs.String(); strings.Count(logs, tt.log) < 2 {
				t.Errorf("the log does not say twice %q:\n%s", tt.log, logs)
			}
		})
	}
}
