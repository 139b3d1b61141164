package httpx

import (
	"bytes"
	"context"
	"encoding/json"
	"io"
	"log/slog"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func discardLogger() *slog.Logger { return slog.New(slog.NewJSONHandler(io.Discard, nil)) }

func TestGuardPanic(t *testing.T) {
	var logs bytes.Buffer
	log := slog.New(slog.NewJSONHandler(&logs, nil))
	h := Guard(log, "http://x/docs", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		panic("password=hunter2")
	}))
	rec := httptest.NewRecorder()
	h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
	var b struct {
		Error struct{ Code, Message, Docs string } `json:"error"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
		t.Fatal(err)
	}
	if rec.Code != 500 || b.Error.Code != "internal" || b.Error.Docs != "http://x/docs/limits/#internal" || strings.Contains(rec.Body.String(), "hunter2") {
		t.Fatalf("%d %s", rec.Code, rec.Body)
	}
	if !strings.Contains(logs.String(), "hunter2") || !strings.Contains(logs.String(), `"status":500`) {
		t.Fatalf("the panic must be logged for operators: %s", logs.String())
	}
}

// TestGuardLogLevel: a readiness probe's 503 is expected while a process
// starts, so its request line is a warning; other 5xx are errors.
func TestGuardLogLevel(t *testing.T) {
	for _, tt := range []struct {
		status int
		level  string
	}{
		{http.StatusOK, "INFO"},
		{http.StatusNotFound, "INFO"},
		{http.StatusServiceUnavailable, "WARN"},
		{http.StatusInternalServerError, "ERROR"},
		{http.StatusBadGateway, "ERROR"},
	} {
		var logs bytes.Buffer
		h := Guard(slog.New(slog.NewJSONHandler(&logs, nil)), "http://x/docs", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.WriteHeader(tt.status)
		}))
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/api/v1/charts", nil))
		var line struct{ Level, Msg string }
		if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
			t.Fatalf("status %d: log %q: %v", tt.status, logs.String(), err)
		}
		if line.Msg != "request" || line.Level != tt.level {
			t.Errorf("status %d logged as %s %q, want %s", tt.status, line.Level, line.Msg, tt.level)
		}
	}
}

// guardLine runs one request through Guard, logging at DEBUG and up, and
// answers its request line.
func guardLine(t *testing.T, r *http.Request, h http.HandlerFunc) (line struct {
	Level, Msg string
	Status     int
}, lines int) {
	t.Helper()
	var logs bytes.Buffer
	g := Guard(slog.New(slog.NewJSONHandler(&logs, &slog.HandlerOptions{Level: slog.LevelDebug})), "http://x/docs", h)
	g.ServeHTTP(httptest.NewRecorder(), r)
	for _, l := range bytes.Split(bytes.TrimSpace(logs.Bytes()), []byte("\n")) {
		if err := json.Unmarshal(l, &line); err != nil {
			t.Fatalf("log %q: %v", logs.String(), err)
		}
		lines++
	}
	return line, lines
}

// TestGuardContinue: an informational answer (100 Continue, forwarded by
// the reverse proxy when the client sent Expect: 100-continue) is not the
// request's status; the final one is.
func TestGuardContinue(t *testing.T) {
	line, _ := guardLine(t, httptest.NewRequest("POST", "/api/v1/render", nil), func(w http.ResponseWriter, r *http.Request) {
		w.WriteHeader(http.StatusContinue)
		w.WriteHeader(http.StatusOK)
		w.Write([]byte("ok"))
	})
	if line.Status != 200 || line.Level != "INFO" {
		t.Fatalf("logged %s status %d, want INFO 200", line.Level, line.Status)
	}
}

// TestGuardClientGone: a client that hangs up before its answer is the
// 499 of the request log, at DEBUG, not an ERROR 500 or 502.
func TestGuardClientGone(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	r := httptest.NewRequest("GET", "/api/v1/charts", nil).WithContext(ctx)
	line, _ := guardLine(t, r, func(w http.ResponseWriter, r *http.Request) {
		cancel()
		w.WriteHeader(http.StatusBadGateway)
	})
	if line.Status != StatusClientClosed || line.Level != "DEBUG" {
		t.Fatalf("logged %s status %d, want DEBUG 499", line.Level, line.Status)
	}
}

// TestGuardProbes: a probe answered 2xx is a DEBUG line (a kubelet asks
// every few seconds); a failing probe keeps its WARN line.
func TestGuardProbes(t *testing.T) {
	for _, tt := range []struct {
		path   string
		status int
		level  string
	}{
		{"/healthz", 200, "DEBUG"},
		{"/readyz", 200, "DEBUG"},
		{"/readyz", 503, "WARN"},
		{"/healthz", 503, "WARN"},
	} {
		line, _ := guardLine(t, httptest.NewRequest("GET", tt.path, nil), func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(tt.status) })
		if line.Level != tt.level {
			t.Errorf("%s %d logged at %s, want %s", tt.path, tt.status, line.Level, tt.level)
		}
	}
}
