package main

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"net/url"
	"os"
	"strings"
	"testing"
	"time"

	"chartd.dev/libs/httpx"

	"chartd.dev/libs/testserver"
)

// stopTarget stops one process of a split instance (SIGINT: at once).
func stopTarget(t *testing.T, in instance, target string) {
	t.Helper()
	cmd := in.procs[target]
	if err := cmd.Process.Signal(os.Interrupt); err != nil {
		t.Fatal(err)
	}
	cmd.Wait()
}

// getStatus GETs u and answers its status and how long it took.
func getStatus(t *testing.T, u string) (int, time.Duration) {
	t.Helper()
	start := time.Now()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatalf("GET %s: %v", u, err)
	}
	resp.Body.Close()
	return resp.StatusCode, time.Since(start)
}

// TestSplitUpstreamAway: with the render and brand services down, every
// other process stays ready (a process is ready on its own modules), the
// routes that need no missing service answer, get_account answers with
// the usage unknown, and a route that needs render answers the contract's
// error body (internal, 500) with Retry-After, not an empty 502.
func TestSplitUpstreamAway(t *testing.T) {
	pace := testserver.MeasurePace()
	in := startSplit(t)
	c := newClient(t, in.url, in.newAccount(t, "free"))
	ch, _ := createChart(t, c, map[string]any{"type": "bar", "data": salesCSV})
	if a := c.do("GET", "/api/v1/charts", nil); len(a.header.Values(httpx.HeaderRequestID)) != 1 {
		t.Errorf("a proxied answer carries X-Request-Id %q, want one value", a.header.Values(httpx.HeaderRequestID))
	}
	stopTarget(t, in, "render")
	stopTarget(t, in, "brand")

	for _, target := range []string{"gateway", "chart", "data"} {
		u := in.url + "/readyz"
		if target != "gateway" {
			u = "http://" + in.addrs[target] + "/readyz"
		}
		status, took := getStatus(t, u)
		if status != 200 {
			t.Errorf("%s /readyz with render and brand down: %d, want 200", target, status)
		}
		if pace.Over(took, time.Second) {
			t.Errorf("%s /readyz took %s: a probe must answer well inside the kubelet's 2 s", target, took)
		}
	}
	if a := c.do("GET", "/api/v1/charts", nil); a.status != 200 {
		t.Errorf("list_charts with render down: %d %.200s", a.status, a.body)
	}
	var acct struct {
		ImageRenders struct{ Limit, Left int } `json:"image_renders"`
	}
	a := c.do("GET", "/api/v1/account", nil)
	if a.status != 200 {
		t.Fatalf("get_account with render down: %d %.300s, want 200 with the usage unknown", a.status, a.body)
	}
	a.json(t, &acct)
	if acct.ImageRenders.Limit != 100 {
		t.Errorf("get_account with render down: image_renders %+v", acct.ImageRenders)
	}
	for _, req := range []struct{ method, path string }{
		{"POST", "/api/v1/render"},
		{"GET", "/api/v1/charts/" + ch.ID + "/render.svg"},
	} {
		var body any
		if req.method == "POST" {
			body = map[string]any{"type": "bar", "data": salesCSV}
		}
		a := c.do(req.method, req.path, body)
		if a.status != 500 || a.errCode(t) != "internal" || a.header.Get("Retry-After") == "" {
			t.Errorf("%s %s with render down: %d Retry-After %q %.300s, want 500 internal with Retry-After", req.method, req.path, a.status, a.header.Get("Retry-After"), a.body)
			continue
		}
		if code := a.errCode(t); code != "internal" {
			t.Errorf("%s %s with render down: code %s", req.method, req.path, code)
		}
		if n := len(a.header.Values(httpx.HeaderRequestID)); n != 1 {
			t.Errorf("%s %s: %d X-Request-Id values", req.method, req.path, n)
		}
	}
}

// TestProxyToDeadUpstream: the gateway's proxy to a service that does not
// answer writes the error body (internal 500, Retry-After) and logs through slog,
// never net/http's plain "http: proxy error" line; a service's answer
// reaches the client with the gateway's one X-Request-Id.
func TestProxyToDeadUpstream(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	live := httptest.NewServer(httpx.Guard(log, "http://x/docs", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Write([]byte("ok"))
	})))
	defer live.Close()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	dead := "http://" + ln.Addr().String()
	ln.Close()
	serve := func(target string) *httptest.ResponseRecorder {
		u, _ := url.Parse(target)
		h := httpx.Guard(log, "http://x/docs", newProxy("render", u, http.DefaultTransport, "http://x/docs", log))
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, httptest.NewRequest("GET", "/api/v1/charts/x/render.svg", nil))
		return rec
	}
	if rec := serve(live.URL); rec.Code != 200 || len(rec.Header().Values(httpx.HeaderRequestID)) != 1 {
		t.Errorf("live upstream: %d, X-Request-Id %q", rec.Code, rec.Header().Values(httpx.HeaderRequestID))
	}
	rec := serve(dead)
	var b struct {
		Error struct{ Code, Message, Docs string } `json:"error"`
	}
	if rec.Code != 500 || rec.Header().Get("Retry-After") == "" || json.Unmarshal(rec.Body.Bytes(), &b) != nil || b.Error.Code != "internal" || b.Error.Docs != "http://x/docs/limits/#internal" {
		t.Fatalf("dead upstream: %d Retry-After %q %s", rec.Code, rec.Header().Get("Retry-After"), rec.Body)
	}
	for _, line := range strings.Split(strings.TrimSpace(logs.String()), "\n") {
		if !json.Valid([]byte(line)) {
			t.Errorf("log line not structured: %s", line)
		}
	}
	if strings.Contains(logs.String(), "http: proxy error") || !strings.Contains(logs.String(), "connection refused") {
		t.Errorf("logs: %s", logs.String())
	}
}

// TestSplitImageLinkPerViewer: through the gateway in split mode, two
// viewers at two addresses have an image-link allowance each; render
// trusts the address the gateway passes on.
func TestSplitImageLinkPerViewer(t *testing.T) {
	const perAddress = 3
	in := startSplit(t, "-render.link-rate-address=3")
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	ch, _ := createChart(t, c, map[string]any{"type": "bar", "data": salesCSV})
	link := createLink(t, c, map[string]any{"id": ch.ID, "format": "svg"}).URL
	first, second := fromAddr(t, proxyIP), fromAddr(t, directIP)
	for i := range perAddress {
		if status, _ := get(t, first, link, ""); status != 200 {
			t.Fatalf("viewer 1, open %d: %d", i+1, status)
		}
	}
	if status, _ := get(t, first, link, ""); status != 429 {
		t.Fatalf("viewer 1 past its allowance: %d, want 429", status)
	}
	if status, rem := get(t, second, link, ""); status != 200 || rem != perAddress-1 {
		t.Fatalf("viewer 2 at another address: %d with %d left, want 200 with %d left (one bucket per viewer)", status, rem, perAddress-1)
	}
}
