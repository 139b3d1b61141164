package main

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/url"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"

	"chartd.dev/libs/telemetry"
)

// rawAnswer is an answer read off the wire.
type rawAnswer struct {
	status int
	header http.Header
	body   []byte
}

// rawDo writes req to the server of publicURL byte for byte, on a
// connection of its own, and reads one answer: how requests that
// net/http's client would never send (unclean paths, malformed query
// strings, "OPTIONS *") reach the server.
func rawDo(t *testing.T, publicURL, req string) rawAnswer {
	t.Helper()
	u, err := url.Parse(publicURL)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("%.60q: no HTTP answer: %v", req, err)
	}
	defer resp.Body.Close()
	body, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%.60q: body: %v", req, err)
	}
	return rawAnswer{status: resp.StatusCode, header: resp.Header, body: body}
}

// oneErrorBody answers the code and message of body, failing unless body
// is exactly one error body: {"error":{"code","message","docs"}} and
// nothing after it.
func oneErrorBody(t *testing.T, body []byte) (code, message string) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(body))
	var b struct {
		Error struct{ Code, Message, Docs string } `json:"error"`
	}
	if err := dec.Decode(&b); err != nil {
		t.Fatalf("not a JSON error body: %v: %q", err, body)
	}
	if _, err := dec.Token(); !errors.Is(err, io.EOF) {
		t.Fatalf("more after the error body (%v): %q", err, body)
	}
	if b.Error.Code == "" || b.Error.Message == "" || !strings.Contains(b.Error.Docs, "/docs/limits/#"+b.Error.Code) {
		t.Fatalf("not an error body: %q", body)
	}
	return b.Error.Code, b.Error.Message
}

// hasRateLimitHeaders fails unless the three X-RateLimit-* headers are set.
func hasRateLimitHeaders(t *testing.T, h http.Header) {
	t.Helper()
	for _, name := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		if h.Get(name) == "" {
			t.Errorf("no %s: %v", name, h)
		}
	}
}

// TestRequestsOutsideTheRoutesGetTheErrorBody: requests the standard
// library would answer in its own way (a redirect to the cleaned path, a
// bare 200, a silently dropped query pair, a plain-text 431) get the API
// error body with the rate-limit headers, and never a redirect.
func TestRequestsOutsideTheRoutesGetTheErrorBody(t *testing.T) {
	in := startAll(t)
	key := in.newAccount(t, "pro")
	auth := "Authorization: Bearer " + key + "\r\n"
	tests := []struct {
		name, req string
		status    int
		code      string
		msg       string // part of the message
	}{
		{name: "dot-dot out of the docs", req: "GET /docs/../../etc/passwd HTTP/1.1\r\n", status: 404, code: "not_found"},
		{name: "NUL in a docs slug", req: "GET /docs/%00 HTTP/1.1\r\n", status: 404, code: "not_found"},
		{name: "NUL in a docs slug with slash", req: "GET /docs/%00/ HTTP/1.1\r\n", status: 404, code: "not_found"},
		{name: "unknown docs page without slash", req: "GET /docs/no-such-page HTTP/1.1\r\n", status: 404, code: "not_found"},
		{name: "empty chart id", req: "GET /api/v1/charts//render.png HTTP/1.1\r\n" + auth, status: 404, code: "not_found"},
		{name: "dot segment", req: "GET /api/v1/./account HTTP/1.1\r\n" + auth, status: 404, code: "not_found"},
		{name: "OPTIONS *", req: "OPTIONS * HTTP/1.1\r\n", status: 404, code: "not_found"},
		{name: "malformed escape in limit", req: "GET /api/v1/charts?limit=%zz HTTP/1.1\r\n" + auth, status: 400, code: "invalid_request", msg: `"%zz"`},
		{name: "semicolon separator", req: "GET /api/v1/charts?limit=1;cursor=x HTTP/1.1\r\n" + auth, status: 400, code: "invalid_request", msg: "';'"},
		{name: "malformed escape, public route", req: "GET /api/v1/openapi.json?x=%g0 HTTP/1.1\r\n", status: 400, code: "invalid_request", msg: `"%g0"`},
		{name: "headers over the gateway's limit", req: "GET /api/v1/account HTTP/1.1\r\n" + auth + "X-Padding: " + strings.Repeat("p", 100<<10) + "\r\n",
			status: 400, code: "invalid_request", msg: "over the limit of 65536 bytes"},
		{name: "TE header", req: "GET /api/v1/account HTTP/1.1\r\nTE: gzip, chunked\r\n", status: 401, code: "unauthorized"},
	}
	host := strings.TrimPrefix(in.url, "http://")
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := rawDo(t, in.url, tt.req+"Host: "+host+"\r\nConnection: close\r\n\r\n")
			if a.status != tt.status {
				t.Fatalf("status %d, want %d; Location %q, body %.300q", a.status, tt.status, a.header.Get("Location"), a.body)
			}
			if loc := a.header.Get("Location"); loc != "" {
				t.Errorf("redirects to %q", loc)
			}
			code, msg := oneErrorBody(t, a.body)
			if code != tt.code || !strings.Contains(msg, tt.msg) {
				t.Errorf("code %s, message %q; want %s with %q", code, msg, tt.code, tt.msg)
			}
			hasRateLimitHeaders(t, a.header)
		})
	}
	t.Run("a docs page without its slash is still sent there", func(t *testing.T) {
		a := rawDo(t, in.url, "GET /docs/limits HTTP/1.1\r\nHost: "+host+"\r\nConnection: close\r\n\r\n")
		if a.status != 301 || a.header.Get("Location") != "/docs/limits/" {
			t.Fatalf("%d to %q", a.status, a.header.Get("Location"))
		}
	})
}

// TestAnonymousPastTheLimitGetsOneAnswer: a client sending a bad key past
// its address' allowance gets the rate_limited body alone, not followed
// by an unauthorized one; and the health probes still answer that
// address, with its rate-limit headers.
func TestAnonymousPastTheLimitGetsOneAnswer(t *testing.T) {
	in := startAll(t)
	anon := newClient(t, in.url, "")
	hc := &http.Client{Transport: &http.Transport{}, Timeout: 30 * time.Second}
	t.Cleanup(hc.CloseIdleConnections)
	// badKey sends one request with a bad key and checks that its answer
	// is one error body: rate_limited with Retry-After, or unauthorized.
	badKey := func(i int) (limited bool) {
		req, err := http.NewRequest("GET", in.url+"/api/v1/account", nil)
		if err != nil {
			t.Fatal(err)
		}
		req.Header.Set("Authorization", "Bearer chd_not_a_real_key")
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		want := "unauthorized"
		if resp.StatusCode == http.StatusTooManyRequests {
			want = "rate_limited"
			if resp.Header.Get("Retry-After") == "" {
				t.Errorf("request %d: 429 without Retry-After", i)
			}
		}
		if code, _ := oneErrorBody(t, body); code != want {
			t.Fatalf("request %d: %d with %s", i, resp.StatusCode, code)
		}
		hasRateLimitHeaders(t, resp.Header)
		return want == "rate_limited"
	}
	limited := 0
	for i := 1; i <= 400 && limited < 5; i++ {
		if badKey(i) {
			limited++
		}
	}
	if limited == 0 {
		t.Fatal("400 bad-key requests were never rate limited; the check above proved nothing")
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		for i := 1; !badKey(i); i++ {
			if i == 100 {
				t.Fatal("the address is no longer limited")
			}
		}
		a := anon.do("GET", p, nil)
		if a.status != 200 {
			t.Errorf("%s for an address past its allowance: %d %s", p, a.status, a.body)
		}
		if left := a.header.Get("X-RateLimit-Remaining"); left != "0" && left != "1" {
			t.Errorf("%s: X-RateLimit-Remaining %q, want the address' (about 0)", p, left)
		}
	}
}

// TestReadyzNamesTheModuleNotTheCause: with the store gone, /readyz
// answers 503 naming the module; the cause is logged at WARN, and
// nothing of it, nor an ERROR line, comes from the probe.
func TestReadyzNamesTheModuleNotTheCause(t *testing.T) {
	var logs syncBuffer
	tel := &telemetry.Providers{
		Log:        slog.New(telemetry.NewLogHandler(&logs, slog.LevelInfo)),
		Tracer:     sdktrace.NewTracerProvider(),
		Meter:      noop.NewMeterProvider(),
		Propagator: propagation.TraceContext{},
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	pub := "http://" + ln.Addr().String()
	cfg, err := ParseConfig([]string{"-data-dir", t.TempDir(), "-addr", ln.Addr().String(), "-render.browsers=1"}, env(nil))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	app, err := NewApp(ctx, cfg, tel)
	if err != nil {
		t.Fatal(err)
	}
	done := make(chan error, 1)
	go func() { done <- serve(ctx, app, ln, time.Second) }()
	defer func() { cancel(); <-done }()
	waitReady(t, app)
	anon := newClient(t, pub, "")
	if a := anon.do("GET", "/readyz", nil); a.status != 200 {
		t.Fatalf("ready before the failure: %d %s", a.status, a.body)
	}
	if err := app.store.Close(); err != nil {
		t.Fatal(err)
	}
	a := anon.do("GET", "/readyz", nil, "X-Request-Id", "readyz-store-down")
	code, msg := oneErrorBody(t, a.body)
	if a.status != 503 || code != "internal" || !strings.Contains(msg, "store") {
		t.Fatalf("readyz with the store closed: %d %s", a.status, a.body)
	}
	if strings.Contains(msg, "closed") || strings.Contains(msg, "sql") || strings.Contains(msg, "ping") {
		t.Errorf("the answer tells a stranger the cause: %q", msg)
	}
	var warned bool
	for _, l := range strings.Split(logs.String(), "\n") {
		if !strings.Contains(l, "readyz-store-down") {
			continue
		}
		var rec struct{ Level, Msg, Err string }
		if err := json.Unmarshal([]byte(l), &rec); err != nil {
			t.Fatalf("log line %q: %v", l, err)
		}
		if rec.Level == "ERROR" {
			t.Errorf("the probe logged at ERROR: %s", l)
		}
		warned = warned || rec.Level == "WARN" && rec.Msg == "not ready" && strings.Contains(rec.Err, "store: ") && strings.Contains(rec.Err, "closed")
	}
	if !warned {
		t.Errorf("no WARN line with the cause and the request id:\n%s", logs.String())
	}
}

// TestUnknownRenderFieldListsTheFields: an unknown field in a render
// body lists every field the body takes, the picture options included,
// and names no Go type.
func TestUnknownRenderFieldListsTheFields(t *testing.T) {
	in := startAll(t)
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	for _, tt := range []struct {
		name, path string
		want       []string
	}{
		{name: "render_image", path: "/api/v1/render",
			want: []string{"data", "data_format", "fonts", "format", "height", "name", "ops", "scale", "spec", "theme", "transparent", "type", "width"}},
		{name: "render_template", path: "/api/v1/charts/00000000-0000-0000-0000-000000000000/render",
			want: []string{"data", "data_format", "fonts", "format", "height", "name", "ops", "scale", "theme", "transparent", "width"}},
	} {
		t.Run(tt.name, func(t *testing.T) {
			a := c.do("POST", tt.path, map[string]any{"data": "a,b\nx,1", "formt": "svg"})
			code, msg := oneErrorBody(t, a.body)
			if a.status != 400 || code != "invalid_request" {
				t.Fatalf("%d %s", a.status, a.body)
			}
			if want := "allowed fields: " + strings.Join(tt.want, ", "); !strings.HasSuffix(msg, want) {
				t.Errorf("message %q, want it to end %q", msg, want)
			}
			if strings.Contains(msg, "BodyOptions") {
				t.Errorf("message names a Go type: %q", msg)
			}
		})
	}
}

// TestGatewayHeaderLimitStaysBelowTheServerCap: -gateway.max-header-bytes
// must leave room under net/http's own cap, or oversized requests would
// get net/http's plain-text 431 instead of the error body.
func TestGatewayHeaderLimitStaysBelowTheServerCap(t *testing.T) {
	for _, tt := range []struct {
		value string
		ok    bool
	}{
		{"65536", true},
		{"4096", true},
		{"131072", true},
		{"1024", false},
		{"131073", false},
		{"1048576", false},
	} {
		_, err := ParseConfig([]string{"-data-dir", t.TempDir(), "-gateway.max-header-bytes", tt.value}, env(nil))
		if (err == nil) != tt.ok || err != nil && !strings.Contains(err.Error(), "-gateway.max-header-bytes") {
			t.Errorf("-gateway.max-header-bytes %s: %v", tt.value, err)
		}
	}
}
