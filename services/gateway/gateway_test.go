package gateway

import (
	"context"
	"encoding/json"
	"io"
	"net/http"
	"net/http/httptest"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/getkin/kin-openapi/openapi3"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/quota"
	"chartd.dev/libs/revoke"
	"chartd.dev/libs/route"
	"chartd.dev/libs/store"
	"chartd.dev/libs/store/sqlite"
	"chartd.dev/libs/telemetry"
)

type fixture struct {
	g     *Gateway
	st    store.Store
	key   string
	acct  store.Account
	calls int
}

// newFixture builds a gateway on a real SQLite store and the in-process
// limiter; the chart service is a handler that records what reached it.
func newFixture(t testing.TB, planID string, chartSvc http.Handler) *fixture {
	t.Helper()
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(t.TempDir(), "chartd.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	acct, err := st.CreateAccount(ctx, planID)
	if err != nil {
		t.Fatal(err)
	}
	key, prefix, hash := auth.NewKey()
	if _, err := st.CreateAPIKey(ctx, acct.ID, "test", prefix, hash); err != nil {
		t.Fatal(err)
	}
	tel, err := telemetry.New(ctx, telemetry.Config{Service: "test", LogLevel: 8, LogOut: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	f := &fixture{st: st, key: key, acct: acct}
	if chartSvc == nil {
		chartSvc = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			f.calls++
			w.Header().Set("Content-Type", "application/json")
			w.Write([]byte(`{}`))
		})
	}
	internal := chartSvc
	if _, bench := t.(*testing.B); !bench {
		// Benchmarks route to the bare handler: the services' own token
		// check is not gateway overhead.
		internal = auth.Internal("tok", "http://x/docs", chartSvc)
	}
	usage := auth.Internal("tok", "http://x/docs", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/internal/v1/charts/count":
			w.Write([]byte(`{"used":3}`))
		case "/internal/v1/usage":
			w.Write([]byte(`{"renders":7,"image_renders":2}`))
		}
	}))
	g, err := New(Config{Site: route.Site{PublicURL: "http://example.test", InternalToken: "tok"}, MaxBodyBytes: 1 << 10, MaxHeaderBytes: 4 << 10, KeyCacheTTL: time.Minute},
		Deps{
			Accounts: st,
			Limiter:  quota.NewMemory(nil),
			Services: map[string]Upstream{"chart": {Routes: testRoutes(), Handler: internal}},
			Charts:   clients.Chart{Base: clients.NewBase("", usage, "tok", clients.Telemetry{})},
			Renders:  clients.Render{Base: clients.NewBase("", usage, "tok", clients.Telemetry{})},
			Tel:      tel,
		})
	if err != nil {
		t.Fatal(err)
	}
	f.g = g
	return f
}

// testRoutes stand for the services' tables: the paths these tests call.
func testRoutes() []route.Route {
	return []route.Route{
		{Op: "list_chart_types", Method: http.MethodGet, Path: "/api/v1/chart-types"},
		{Op: "list_palettes", Method: http.MethodGet, Path: "/api/v1/palettes"},
		{Op: "get_chart", Method: http.MethodGet, Path: "/api/v1/charts/{id}"},
		{Op: "rename_chart", Method: http.MethodPatch, Path: "/api/v1/charts/{id}"},
		{Op: "delete_chart", Method: http.MethodDelete, Path: "/api/v1/charts/{id}"},
		{Op: "render_chart", Method: http.MethodGet, Path: "/api/v1/charts/{id}/render.{format}"},
		{Op: "count_charts", Method: http.MethodGet, Path: "/internal/v1/charts/count", Access: route.Internal},
	}
}

func (f *fixture) do(method, path, key string, body string, hdr ...string) *httptest.ResponseRecorder {
	var rb io.Reader
	if body != "" {
		rb = strings.NewReader(body)
	}
	req := httptest.NewRequest(method, "http://example.test"+path, rb)
	if key != "" {
		req.Header.Set("Authorization", "Bearer "+key)
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	rec := httptest.NewRecorder()
	f.g.Handler().ServeHTTP(rec, req)
	return rec
}

func errorCode(t *testing.T, rec *httptest.ResponseRecorder) apierr.BodyError {
	t.Helper()
	var b apierr.Body
	if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
		t.Fatalf("status %d: body is not the error body: %v: %s", rec.Code, err, rec.Body)
	}
	if b.Error.Docs != "http://example.test/docs/limits/#"+string(b.Error.Code) {
		t.Errorf("docs = %q", b.Error.Docs)
	}
	if b.Error.Code.Status() != rec.Code {
		t.Errorf("code %s with status %d, want %d", b.Error.Code, rec.Code, b.Error.Code.Status())
	}
	return b.Error
}

func TestRefusals(t *testing.T) {
	f := newFixture(t, "pro", nil)
	tests := []struct {
		name, method, path, key, body string
		hdr                           []string
		code                          apierr.Code
		msg                           string
	}{
		{name: "no key", method: "GET", path: "/api/v1/chart-types", code: apierr.Unauthorized, msg: "Authorization"},
		{name: "wrong scheme", method: "GET", path: "/api/v1/chart-types", hdr: []string{"Authorization", "Basic abc"}, code: apierr.Unauthorized},
		{name: "bad key", method: "GET", path: "/api/v1/chart-types", key: "chd_nope", code: apierr.Unauthorized, msg: "not valid"},
		{name: "unknown route", method: "GET", path: "/api/v1/nope", key: f.key, code: apierr.NotFound, msg: "openapi.json"},
		{name: "outside api", method: "GET", path: "/wp-admin", code: apierr.NotFound},
		{name: "wrong method", method: "DELETE", path: "/api/v1/account", key: f.key, code: apierr.InvalidRequest, msg: "GET"},
		{name: "unknown query", method: "GET", path: "/api/v1/account?x=1", key: f.key, code: apierr.InvalidRequest, msg: `"x"`},
		{name: "unknown chart sub-path", method: "GET", path: "/api/v1/charts/abc/nothing", key: f.key, code: apierr.NotFound},
		{name: "not a render file", method: "GET", path: "/api/v1/charts/abc/rendering", key: f.key, code: apierr.NotFound},
		{name: "render file, wrong method", method: "PUT", path: "/api/v1/charts/abc/render.svg", key: f.key, code: apierr.InvalidRequest, msg: "use GET"},
		{name: "trailing slash", method: "GET", path: "/api/v1/palettes/", key: f.key, code: apierr.NotFound},
		{name: "chart, wrong method", method: "POST", path: "/api/v1/charts/abc", key: f.key, code: apierr.InvalidRequest, msg: "DELETE or GET or HEAD or PATCH"},
		{name: "body too large by length", method: "GET", path: "/api/v1/chart-types", key: f.key, body: strings.Repeat("x", 2000), code: apierr.TooLarge},
		{name: "empty segment", method: "GET", path: "/api/v1/charts//render.png", key: f.key, code: apierr.NotFound},
		{name: "dot-dot out of docs", method: "GET", path: "/docs/../../etc/passwd", code: apierr.NotFound},
		{name: "dot segment", method: "GET", path: "/api/v1/./palettes", key: f.key, code: apierr.NotFound},
		{name: "malformed escape in query", method: "GET", path: "/api/v1/palettes?x=%zz", key: f.key, code: apierr.InvalidRequest, msg: `"%zz"`},
		{name: "semicolon in query", method: "GET", path: "/api/v1/charts/abc?include=spec;x=1", key: f.key, code: apierr.InvalidRequest, msg: "';'"},
		{name: "malformed query, public route", method: "GET", path: "/api/v1/openapi.json?%", code: apierr.InvalidRequest, msg: "escape"},
		{name: "headers too large", method: "GET", path: "/api/v1/palettes", key: f.key, hdr: []string{"X-Padding", strings.Repeat("p", 5000)}, code: apierr.InvalidRequest, msg: "over the limit of 4096 bytes"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			rec := f.do(tt.method, tt.path, tt.key, tt.body, tt.hdr...)
			e := errorCode(t, rec)
			if e.Code != tt.code {
				t.Fatalf("code = %s (%s), want %s", e.Code, e.Message, tt.code)
			}
			if !strings.Contains(e.Message, tt.msg) {
				t.Errorf("message %q lacks %q", e.Message, tt.msg)
			}
			for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
				if len(rec.Header()[h]) != 1 {
					t.Errorf("missing %s (spelled so) on a refusal: %v", h, rec.Header())
				}
			}
		})
	}
	if rec := f.do("DELETE", "/api/v1/account", f.key, ""); rec.Header().Get("Allow") != "GET, HEAD" {
		t.Errorf("Allow = %q", rec.Header().Get("Allow"))
	}
}

func TestForgedInternalHeadersAreDropped(t *testing.T) {
	var seen string
	f := newFixture(t, "free", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p, _ := auth.FromContext(r.Context())
		seen = p.AccountID
	}))
	f.do("GET", "/api/v1/chart-types", f.key, "", auth.HeaderAccount, "someone-else", auth.HeaderPlan, "pro")
	if seen != f.acct.ID {
		t.Fatalf("service saw account %q, want %q", seen, f.acct.ID)
	}
}

func TestRateLimit(t *testing.T) {
	f := newFixture(t, "free", nil)
	for i := 0; i < 120; i++ {
		rec := f.do("GET", "/api/v1/chart-types", f.key, "")
		if rec.Code != 200 {
			t.Fatalf("request %d: %d %s", i+1, rec.Code, rec.Body)
		}
		if got := rateHeader(rec, "X-RateLimit-Remaining"); got != itoa(119-i) {
			t.Fatalf("request %d: remaining %s", i+1, got)
		}
	}
	rec := f.do("GET", "/api/v1/chart-types", f.key, "")
	if e := errorCode(t, rec); e.Code != apierr.RateLimited {
		t.Fatalf("121st request: %s", e.Code)
	}
	if rec.Header().Get("Retry-After") == "" || rateHeader(rec, "X-RateLimit-Limit") != "120" {
		t.Fatalf("headers: %v", rec.Header())
	}
	if f.calls != 120 {
		t.Fatalf("service reached %d times, want 120", f.calls)
	}
}

func itoa(n int) string { b, _ := json.Marshal(n); return string(b) }

func TestPanicIsInternal(t *testing.T) {
	f := newFixture(t, "pro", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic("secret database password in panic")
	}))
	rec := f.do("GET", "/api/v1/palettes", f.key, "")
	e := errorCode(t, rec)
	if e.Code != apierr.Internal || strings.Contains(rec.Body.String(), "secret") {
		t.Fatalf("panic answer: %d %s", rec.Code, rec.Body)
	}
}

func TestAccount(t *testing.T) {
	f := newFixture(t, "free", nil)
	rec := f.do("GET", "/api/v1/account", f.key, "")
	if rec.Code != 200 {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	var a AccountRecord
	if err := json.Unmarshal(rec.Body.Bytes(), &a); err != nil {
		t.Fatal(err)
	}
	if a.Plan != "free" || a.SavedCharts != (SavedCharts{Used: 3, Limit: 25}) ||
		a.Requests.Limit != 120 || a.Requests.Left != 119 ||
		a.Renders.Limit != 500 || a.Renders.Left != 493 || a.ImageRenders.Limit != 100 || a.ImageRenders.Left != 98 {
		t.Fatalf("account = %+v", a)
	}
	if a.Renders.ResetsInSeconds <= 0 || a.Renders.ResetsInSeconds > 86400 || a.ImageRenders.ResetsInSeconds <= 0 {
		t.Fatalf("resets = %+v", a)
	}
}

func TestRevokedKeyStopsAfterCacheTTL(t *testing.T) {
	f := newFixture(t, "pro", nil)
	now := time.Now()
	f.g.keys.now = func() time.Time { return now }
	if rec := f.do("GET", "/api/v1/palettes", f.key, ""); rec.Code != 200 {
		t.Fatal(rec.Code)
	}
	keys, _ := f.st.ListAPIKeys(context.Background(), f.acct.ID)
	if err := f.st.RevokeAPIKey(context.Background(), f.acct.ID, keys[0].ID); err != nil {
		t.Fatal(err)
	}
	now = now.Add(2 * time.Minute)
	if e := errorCode(t, f.do("GET", "/api/v1/palettes", f.key, "")); e.Code != apierr.Unauthorized {
		t.Fatalf("revoked key: %s", e.Code)
	}
}

// rateHeader reads a rate-limit header by its exact spelling, as the
// gateway writes it on the wire.
func rateHeader(rec *httptest.ResponseRecorder, name string) string {
	if v := rec.Header()[name]; len(v) == 1 {
		return v[0]
	}
	return ""
}

func TestInternalRoutesAreNotServed(t *testing.T) {
	f := newFixture(t, "pro", nil)
	rec := f.do("GET", "/internal/v1/charts/count", f.key, "")
	if e := errorCode(t, rec); e.Code != apierr.NotFound || f.calls != 0 {
		t.Fatalf("internal route reached through the gateway: %s, %d calls", e.Code, f.calls)
	}
}

func TestOpenAPIDocumentIsValid(t *testing.T) {
	raw, err := OpenAPI("http://example.test/api/v1")
	if err != nil {
		t.Fatal(err)
	}
	loader := openapi3.NewLoader()
	doc, err := loader.LoadFromData(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi document invalid: %v", err)
	}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			if _, ok := op.Responses.Map()["500"]; !ok {
				t.Errorf("%s %s lacks the internal error answer", method, path)
			}
		}
	}
}

// BenchmarkGatewayOverhead measures auth + rate limit + routing to a
// trivial handler, all in-process: "full" is the whole edge handler with
// request ids, the access log guard and otelhttp; "core" is auth, limits
// and routing alone.
func BenchmarkGatewayOverhead(b *testing.B) {
	b.Run("full", func(b *testing.B) { benchGateway(b, func(g *Gateway) http.Handler { return g.Handler() }) })
	b.Run("core", func(b *testing.B) { benchGateway(b, func(g *Gateway) http.Handler { return g.router }) })
}

func benchGateway(b *testing.B, pick func(*Gateway) http.Handler) {
	f := newFixture(b, "pro", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(204)
	}))
	// Time advances a second per limiter call, so the pro allowance never
	// runs out and every iteration takes the allowed path.
	clock := time.Now()
	f.g.deps.Limiter = quota.NewMemory(func() time.Time { clock = clock.Add(time.Second); return clock })
	h := pick(f.g)
	req := httptest.NewRequest("GET", "http://example.test/api/v1/palettes", nil)
	req.Header.Set("Authorization", "Bearer "+f.key)
	w := &discardWriter{h: http.Header{}}
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		clear(w.h)
		h.ServeHTTP(w, req)
	}
}

type discardWriter struct {
	h    http.Header
	code int
}

func (d *discardWriter) Header() http.Header         { return d.h }
func (d *discardWriter) Write(b []byte) (int, error) { return len(b), nil }
func (d *discardWriter) WriteHeader(c int)           { d.code = c }

func TestCleanPath(t *testing.T) {
	for _, tt := range []struct {
		path  string
		clean bool
	}{
		{"/", true},
		{"/docs/", true},
		{"/docs/limits/", true},
		{"/api/v1/charts/x/render.png", true},
		{"/a.b/..c/.d", true},
		{"", false},
		{"*", false},
		{"docs", false},
		{"//", false},
		{"/api/v1/charts//render.png", false},
		{"/docs/../../etc/passwd", false},
		{"/docs/..", false},
		{"/docs/.", false},
		{"/./docs/", false},
		{"/docs//", false},
	} {
		if got := cleanPath(tt.path); got != tt.clean {
			t.Errorf("cleanPath(%q) = %v, want %v", tt.path, got, tt.clean)
		}
	}
}

// TestRateLimitedKeyRefusalIsOneBody: a request with a bad key past its
// address' allowance is answered rate_limited, once; not rate_limited
// followed by unauthorized.
func TestRateLimitedKeyRefusalIsOneBody(t *testing.T) {
	for _, tt := range []struct {
		name, key string
		want      apierr.Code
	}{
		{name: "no key", want: apierr.Unauthorized},
		{name: "bad key", key: "chd_nope", want: apierr.Unauthorized},
	} {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t, "free", nil)
			for i := 0; i < 120; i++ {
				if e := errorCode(t, f.do("GET", "/api/v1/chart-types", tt.key, "")); e.Code != tt.want {
					t.Fatalf("request %d: %s", i+1, e.Code)
				}
			}
			rec := f.do("GET", "/api/v1/chart-types", tt.key, "")
			if e := errorCode(t, rec); e.Code != apierr.RateLimited {
				t.Fatalf("past the allowance: %s %s", e.Code, rec.Body)
			}
		})
	}
}

// TestProbesAreNeverRefused: an address past its allowance still gets
// its health answers, with its rate-limit headers, and asking them
// spends nothing.
func TestProbesAreNeverRefused(t *testing.T) {
	f := newFixture(t, "free", nil)
	for _, p := range []string{"/healthz", "/readyz"} {
		rec := f.do("GET", p, "", "")
		if rec.Code != 200 || rateHeader(rec, "X-RateLimit-Remaining") != "120" {
			t.Fatalf("%s before: %d, remaining %q", p, rec.Code, rateHeader(rec, "X-RateLimit-Remaining"))
		}
	}
	for i := 0; i < 125; i++ {
		f.do("GET", "/api/v1/chart-types", "chd_nope", "")
	}
	for _, p := range []string{"/healthz", "/readyz"} {
		rec := f.do("GET", p, "", "")
		if rec.Code != 200 {
			t.Fatalf("%s past the allowance: %d %s", p, rec.Code, rec.Body)
		}
		if rateHeader(rec, "X-RateLimit-Limit") != "120" || rateHeader(rec, "X-RateLimit-Remaining") != "0" || rateHeader(rec, "X-RateLimit-Reset") == "" {
			t.Errorf("%s headers: %v", p, rec.Header())
		}
	}
}

// TestKeyCacheRevocation: a revocation event drops the account's cached
// keys and no other's, a lookup begun before it is not cached, and a
// reset drops everything.
func TestKeyCacheRevocation(t *testing.T) {
	c := newKeyCache(time.Minute, time.Now)
	a, b := [32]byte{1}, [32]byte{2}
	_, gen, _ := c.get(a)
	c.put(a, auth.Principal{AccountID: "A"}, gen)
	c.put(b, auth.Principal{AccountID: "B"}, gen)
	_, begun, _ := c.get([32]byte{3}) // a lookup of another key of A begins
	c.revoked(revoke.Event{Kind: revoke.APIKeys, ID: "A"})
	if _, _, ok := c.get(a); ok {
		t.Fatal("A's key is still cached after A's keys were revoked")
	}
	if _, _, ok := c.get(b); !ok {
		t.Fatal("B's key was dropped by a revocation of A's")
	}
	c.put([32]byte{3}, auth.Principal{AccountID: "A"}, begun)
	if _, _, ok := c.get([32]byte{3}); ok {
		t.Fatal("a lookup begun before the revocation was cached")
	}
	c.revoked(revoke.Event{Kind: revoke.SigningKey, ID: "B"})
	if _, _, ok := c.get(b); !ok {
		t.Fatal("a signing-key event dropped an API key")
	}
	c.revoked(revoke.Event{Kind: revoke.Reset})
	if _, _, ok := c.get(b); ok {
		t.Fatal("B's key is still cached after a reset")
	}
}
