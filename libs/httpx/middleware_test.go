package httpx

import (
	"bytes"
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
		h.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", "/readyz", nil))
		var line struct{ Level, Msg string }
		if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
			t.Fatalf("status %d: log %q: %v", tt.status, logs.String(), err)
		}
		if line.Msg != "request" || line.Level != tt.level {
			t.Errorf("status %d logged as %s %q, want %s", tt.status, line.Level, line.Msg, tt.level)
		}
	}
}
