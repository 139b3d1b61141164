package telemetry

import (
	"bytes"
	"context"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/trace"

	"chartd.dev/libs/httpx"
)

// TestOTLPExport: with OTEL_EXPORTER_OTLP_ENDPOINT set, spans and metrics
// reach an OTLP/HTTP collector (here a loopback stand-in that records what
// is posted to it).
func TestOTLPExport(t *testing.T) {
	var mu sync.Mutex
	got := map[string]int{}
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		body, _ := io.ReadAll(r.Body)
		mu.Lock()
		if r.Method == http.MethodPost && len(body) > 0 {
			got[r.URL.Path]++
		}
		mu.Unlock()
		w.Header().Set("Content-Type", "application/x-protobuf")
	}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	t.Setenv("OTEL_EXPORTER_OTLP_PROTOCOL", "http/protobuf")
	p, err := New(context.Background(), Config{Service: "test", LogOut: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	_, span := p.Tracer.Tracer("t").Start(context.Background(), "work")
	if !span.IsRecording() {
		t.Fatal("with an exporter, spans must be sampled")
	}
	span.End()
	c, err := p.Meter.Meter("t").Int64Counter("chartd_test_total")
	if err != nil {
		t.Fatal(err)
	}
	c.Add(context.Background(), 1)
	if err := p.Shutdown(context.Background()); err != nil {
		t.Fatal(err)
	}
	mu.Lock()
	defer mu.Unlock()
	if got["/v1/traces"] == 0 || got["/v1/metrics"] == 0 {
		t.Fatalf("collector received %v", got)
	}
}

// TestNoExporter: without an endpoint nothing is recorded, but spans still
// carry trace ids, and log records carry the request and trace ids.
func TestNoExporter(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	var buf bytes.Buffer
	p, err := New(context.Background(), Config{Service: "svc", LogOut: &buf, LogLevel: slog.LevelInfo})
	if err != nil {
		t.Fatal(err)
	}
	ctx, span := p.Tracer.Tracer("t").Start(context.Background(), "work")
	if span.IsRecording() || !trace.SpanContextFromContext(ctx).HasTraceID() {
		t.Fatal("unsampled spans must still have trace ids")
	}
	p.Log.InfoContext(httpx.WithRequestID(ctx, "rid-1"), "hello")
	line := buf.String()
	for _, want := range []string{`"request_id":"rid-1"`, `"trace_id":"` + span.SpanContext().TraceID().String() + `"`, `"service":"svc"`} {
		if !strings.Contains(line, want) {
			t.Errorf("log line lacks %s: %s", want, line)
		}
	}
}

// TestSampleRatio: with an exporter, the ratio decides how many new traces
// are recorded (it was always all), while a sampled caller is followed.
func TestSampleRatio(t *testing.T) {
	collector := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {}))
	defer collector.Close()
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", collector.URL)
	p, err := New(context.Background(), Config{Service: "test", LogOut: io.Discard, SampleRatio: 0.25})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown(context.Background())
	recorded := 0
	const n = 4000
	for range n {
		_, span := p.Tracer.Tracer("t").Start(context.Background(), "work")
		if span.IsRecording() {
			recorded++
		}
		span.End()
	}
	// Trace ids are random: 25% of 4000 is 1000 ± 4σ (σ ≈ 27).
	if recorded < 890 || recorded > 1110 {
		t.Fatalf("%d of %d traces recorded at ratio 0.25", recorded, n)
	}
	parent := trace.NewSpanContext(trace.SpanContextConfig{TraceID: trace.TraceID{0xff, 1}, SpanID: trace.SpanID{1}, TraceFlags: trace.FlagsSampled, Remote: true})
	for range 50 {
		_, span := p.Tracer.Tracer("t").Start(trace.ContextWithRemoteSpanContext(context.Background(), parent), "child")
		if !span.IsRecording() {
			t.Fatal("a sampled caller's trace must be recorded whatever the ratio")
		}
		span.End()
	}
	if _, err := New(context.Background(), Config{Service: "test", LogOut: io.Discard, SampleRatio: 1.5}); err == nil {
		t.Fatal("ratio 1.5 accepted")
	}
}

// TestPrometheus: with Prometheus on and no OTLP endpoint, instruments
// made on the meter provider are served in the text exposition, under
// the names scrapers see.
func TestPrometheus(t *testing.T) {
	t.Setenv("OTEL_EXPORTER_OTLP_ENDPOINT", "")
	p, err := New(context.Background(), Config{Service: "svc", LogOut: io.Discard, Prometheus: true})
	if err != nil {
		t.Fatal(err)
	}
	defer p.Shutdown(context.Background())
	if p.Metrics == nil {
		t.Fatal("no metrics handler")
	}
	c, err := p.Meter.Meter("t").Int64Counter("chartd.test.things")
	if err != nil {
		t.Fatal(err)
	}
	c.Add(context.Background(), 3)
	rec := httptest.NewRecorder()
	p.Metrics.ServeHTTP(rec, httptest.NewRequest(http.MethodGet, "/metrics", nil))
	body := rec.Body.String()
	for _, want := range []string{"chartd_test_things_total 3", `target_info{`, `service_name="svc"`, "go_goroutines "} {
		if !strings.Contains(body, want) {
			t.Errorf("exposition lacks %q:\n%s", want, body)
		}
	}
	q, err := New(context.Background(), Config{Service: "svc", LogOut: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	if q.Metrics != nil {
		t.Fatal("a handler without Prometheus")
	}
}
