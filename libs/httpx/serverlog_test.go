package httpx

import (
	"bytes"
	"context"
	"encoding/json"
	"log/slog"
	"net"
	"net/http"
	"strings"
	"sync"
	"testing"

	"go.opentelemetry.io/otel/attribute"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/metric/metricdata"
)

// serverErrors reads ServerErrorsMetric by kind.
func serverErrors(t *testing.T, r *sdkmetric.ManualReader) map[string]int64 {
	t.Helper()
	var rm metricdata.ResourceMetrics
	if err := r.Collect(context.Background(), &rm); err != nil {
		t.Fatalf("collect metrics: %v", err)
	}
	out := map[string]int64{}
	for _, sm := range rm.ScopeMetrics {
		for _, m := range sm.Metrics {
			if m.Name != ServerErrorsMetric {
				continue
			}
			sum, ok := m.Data.(metricdata.Sum[int64])
			if !ok {
				t.Fatalf("%s is %T, want an int64 sum", m.Name, m.Data)
			}
			for _, dp := range sum.DataPoints {
				kind, _ := dp.Attributes.Value(attribute.Key("kind"))
				out[kind.AsString()] += dp.Value
			}
		}
	}
	return out
}

// TestServerErrorLogCountsAndLogs writes what net/http writes: every line
// becomes a structured record at its level and one count of its kind.
func TestServerErrorLogCountsAndLogs(t *testing.T) {
	for _, tt := range []struct {
		line, kind, level string
	}{
		{"http: superfluous response.WriteHeader call from chartd.dev/services/gateway.(*Gateway).limit (gateway.go:259)", "superfluous_write_header", "ERROR"},
		{"http: panic serving 127.0.0.1:5555: boom\ngoroutine 1", "panic", "ERROR"},
		{"http: TLS handshake error from 127.0.0.1:5555: EOF", "tls_handshake", "WARN"},
		{"http: Accept error: too many open files; retrying in 5ms", "accept", "WARN"},
		{"http2: something new", "other", "WARN"},
	} {
		reader := sdkmetric.NewManualReader()
		var logs bytes.Buffer
		l, err := ServerErrorLog(slog.New(slog.NewJSONHandler(&logs, nil)), sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter("t"))
		if err != nil {
			t.Fatal(err)
		}
		l.Print(tt.line)
		var rec struct{ Level, Msg, Kind, Err string }
		if err := json.Unmarshal(logs.Bytes(), &rec); err != nil {
			t.Fatalf("%s: log %q: %v", tt.kind, logs.String(), err)
		}
		if rec.Msg != "http server" || rec.Level != tt.level || rec.Kind != tt.kind || rec.Err != tt.line {
			t.Errorf("%q logged as %+v, want %s %s", tt.line, rec, tt.level, tt.kind)
		}
		if got := serverErrors(t, reader); len(got) != 1 || got[tt.kind] != 1 {
			t.Errorf("%q counted %v, want one %s", tt.line, got, tt.kind)
		}
	}
}

// TestServerErrorLogSeesSuperfluousWriteHeader runs a real server whose
// handler writes its status twice: net/http's complaint is counted.
func TestServerErrorLogSeesSuperfluousWriteHeader(t *testing.T) {
	reader := sdkmetric.NewManualReader()
	var logs syncWriter
	l, err := ServerErrorLog(slog.New(slog.NewJSONHandler(&logs, nil)), sdkmetric.NewMeterProvider(sdkmetric.WithReader(reader)).Meter("t"))
	if err != nil {
		t.Fatal(err)
	}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{ErrorLog: l, Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusTooManyRequests)
		w.WriteHeader(http.StatusUnauthorized)
	})}
	go srv.Serve(ln)
	defer srv.Close()
	resp, err := http.Get("http://" + ln.Addr().String() + "/")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if got := serverErrors(t, reader); got["superfluous_write_header"] != 1 {
		t.Fatalf("counted %v, want one superfluous_write_header", got)
	}
	if !strings.Contains(logs.String(), `"level":"ERROR"`) {
		t.Fatalf("not logged at ERROR: %s", logs.String())
	}
}

// syncWriter is a buffer written by the server's goroutines and read by
// the test.
type syncWriter struct {
	mu  sync.Mutex
	buf bytes.Buffer
}

func (s *syncWriter) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.Write(p)
}

func (s *syncWriter) String() string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.buf.String()
}
