package main

import (
	"context"
	"log/slog"
	"net"
	"strings"
	"testing"
	"time"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"

	"chartd.dev/libs/telemetry"
)

// TestInternalErrorCauseIsLoggedNotShown forces an internal error (the
// store closed under a running service): the caller gets the bare
// `internal` body, while the log line and the span carry the cause with
// the request id.
func TestInternalErrorCauseIsLoggedNotShown(t *testing.T) {
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
	cfg, err := ParseConfig([]string{"-data-dir", t.TempDir(), "-addr", ln.Addr().String(), "-gateway.key-cache-ttl", "1m", "-render.browsers=1"}, env(nil))
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

	in := instance{url: pub, open: storeOpener(cfg)}
	c := newClient(t, pub, in.newAccount(t, "pro"))
	if a := c.do("GET", "/api/v1/charts", nil); a.status != 200 {
		t.Fatalf("list before the failure: %d %s", a.status, a.body)
	}
	// The key stays cached in the gateway, so the request reaches the
	// chart service, whose store is gone.
	if err := app.store.Close(); err != nil {
		t.Fatal(err)
	}
	a := c.do("GET", "/api/v1/charts", nil, "X-Request-Id", "internal-cause-1")
	if a.status != 500 || a.errCode(t) != "internal" {
		t.Fatalf("want internal, got %d %s", a.status, a.body)
	}
	if strings.Contains(string(a.body), "closed") || strings.Contains(string(a.body), "list charts") {
		t.Errorf("the body leaks the cause: %s", a.body)
	}
	var line string
	for _, l := range strings.Split(logs.String(), "\n") {
		if strings.Contains(l, "internal error") && strings.Contains(l, "internal-cause-1") {
			line = l
		}
	}
	if line == "" || !strings.Contains(line, "list charts") || !strings.Contains(line, "closed") {
		t.Fatalf("no log line with the request id and the cause:\n%s", logs.String())
	}
	tp.ForceFlush(context.Background())
	recorded := false
	for _, s := range exp.GetSpans() {
		if s.Status.Code != codes.Error {
			continue
		}
		for _, e := range s.Events {
			for _, kv := range e.Attributes {
				if kv.Key == "exception.message" && strings.Contains(kv.Value.AsString(), "closed") {
					recorded = true
				}
			}
		}
	}
	if !recorded {
		t.Error("no span recorded the cause")
	}
}
