package main

import (
	"bytes"
	"context"
	"log/slog"
	"net"
	"slices"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"chartd.dev/libs/telemetry"
)

// TestTraceCrossesInternalCalls: get_account calls the chart and render
// services; their server spans must belong to the gateway's trace, and the
// request log line must carry the request id and the trace id. Each
// server span, the gateway's own included, names the route template it
// matched (http.route), variables unexpanded.
func TestTraceCrossesInternalCalls(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	var logs syncBuffer
	tel := &telemetry.Providers{
		Log:        slog.New(telemetry.NewLogHandler(&logs, slog.LevelInfo)),
		Tracer:     tp,
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
	defer app.Close()
	done := make(chan error, 1)
	go func() { done <- serve(ctx, app, ln, time.Second) }()
	defer func() { cancel(); <-done }()

	in := instance{url: pub, open: storeOpener(cfg)}
	c := newClient(t, pub, in.newAccount(t, "pro"))
	a := c.do("GET", "/api/v1/account", nil, "X-Request-Id", "trace-test-1")
	if a.status != 200 {
		t.Fatalf("%d %s", a.status, a.body)
	}
	// A proxied route with a path variable: the gateway names its template.
	if a := c.do("GET", "/api/v1/charts/nochart/data/summary", nil); a.status != 404 {
		t.Fatalf("summary of a missing chart: %d %s", a.status, a.body)
	}
	tp.ForceFlush(context.Background())
	spans := exp.GetSpans()
	var gw *tracetest.SpanStub
	gwRoutes := map[string]bool{}
	for i, s := range spans {
		if s.Name != "gateway GET" || s.SpanKind.String() != "server" {
			continue
		}
		r := spanRoute(s)
		if r == "" {
			t.Errorf("gateway server span has no http.route: %v", s.Attributes)
		}
		gwRoutes[r] = true
		if r == "/api/v1/account" {
			gw = &spans[i]
		}
	}
	if gw == nil {
		for _, s := range spans {
			t.Logf("span %q kind %s route %q", s.Name, s.SpanKind, spanRoute(s))
		}
		t.Fatalf("no gateway server span with http.route /api/v1/account among %d spans", len(spans))
	}
	if !gwRoutes["/api/v1/charts/{id}/data/summary"] {
		t.Errorf("gateway span routes %v: want the template /api/v1/charts/{id}/data/summary", gwRoutes)
	}
	services := map[string]bool{}
	for _, s := range spans {
		if s.SpanKind.String() == "server" && s.Name != "gateway GET" && s.SpanContext.TraceID() == gw.SpanContext.TraceID() {
			if !s.Parent.IsValid() {
				t.Errorf("span %s has no parent", s.Name)
			}
			services[s.Name] = true
			if !slices.ContainsFunc(s.Attributes, func(a attribute.KeyValue) bool {
				return a.Key == "http.route" && strings.HasPrefix(a.Value.AsString(), "/")
			}) {
				t.Errorf("server span %s has no http.route: %v", s.Name, s.Attributes)
			}
		}
	}
	if !services["chart GET"] || !services["render GET"] {
		t.Fatalf("service spans: %v", services)
	}
	line := ""
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, `"path":"/api/v1/account"`) {
			line = l
		}
	}
	if !strings.Contains(line, `"request_id":"trace-test-1"`) || !strings.Contains(line, `"trace_id":"`+gw.SpanContext.TraceID().String()+`"`) {
		t.Fatalf("request log line lacks ids: %q", line)
	}
}

// spanRoute is a span's http.route attribute, "" when it has none.
func spanRoute(s tracetest.SpanStub) string {
	for _, a := range s.Attributes {
		if a.Key == "http.route" {
			return a.Value.AsString()
		}
	}
	return ""
}

type syncBuffer struct {
	mu  chan struct{}
	buf bytes.Buffer
}

func (b *syncBuffer) lock() {
	if b.mu == nil {
		b.mu = make(chan struct{}, 1)
	}
	b.mu <- struct{}{}
}

func (b *syncBuffer) Write(p []byte) (int, error) {
	b.lock()
	defer func() { <-b.mu }()
	return b.buf.Write(p)
}

func (b *syncBuffer) String() string {
	b.lock()
	defer func() { <-b.mu }()
	return b.buf.String()
}
