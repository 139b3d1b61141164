package lifecycle

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/http/httptest"
	"strings"
	"testing"

	"chartd.dev/libs/apierr"
)

// TestServeReady: a probe names the modules that are not ready and keeps
// their causes (here a PostgreSQL address and user) in the log.
func TestServeReady(t *testing.T) {
	pgDown := errors.New("ping postgres: failed to connect to user=postgres database=chartd: 127.0.0.1:40543: connection refused")
	tests := []struct {
		name     string
		modules  []Module
		status   int
		message  string
		logLevel string
	}{
		{name: "ready", modules: []Module{{Name: "store", Ready: func(context.Context) error { return nil }}}, status: 200},
		{name: "no checks", status: 200},
		{name: "store down", modules: []Module{{Name: "store", Ready: func(context.Context) error { return pgDown }}},
			status: 503, message: "not ready: store; try again shortly", logLevel: "WARN"},
		{name: "pool warming and redis down", modules: []Module{
			{Name: "redis", Ready: func(context.Context) error { return errors.New("dial tcp 10.0.0.7:6379: connection refused") }},
			{Name: "raster", Ready: func(context.Context) error {
				return errors.New("no warm Chromium tab yet: the render pool is starting")
			}},
		}, status: 503, message: "not ready: redis, raster; try again shortly", logLevel: "WARN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var g Group
			for _, m := range tt.modules {
				g.Add(m)
			}
			var logs bytes.Buffer
			rec := httptest.NewRecorder()
			ServeReady(rec, httptest.NewRequest("GET", "/readyz", nil), g.Ready, "http://x/docs", slog.New(slog.NewJSONHandler(&logs, nil)))
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			if tt.status == 200 {
				if strings.TrimSpace(rec.Body.String()) != `{"status":"ready"}` || logs.Len() != 0 {
					t.Fatalf("ready answer %s, log %s", rec.Body, logs.String())
				}
				return
			}
			var b apierr.Body
			if err := json.Unmarshal(rec.Body.Bytes(), &b); err != nil {
				t.Fatalf("not the error body: %s", rec.Body)
			}
			if b.Error.Code != apierr.Internal || b.Error.Message != tt.message || b.Error.Docs != "http://x/docs/limits/#internal" {
				t.Errorf("body %+v, want message %q", b.Error, tt.message)
			}
			for _, leak := range []string{"127.0.0.1", "10.0.0.7", "user=", "Chromium"} {
				if strings.Contains(rec.Body.String(), leak) {
					t.Errorf("the answer tells a stranger %q: %s", leak, rec.Body)
				}
			}
			var line struct{ Level, Msg, Err string }
			if err := json.Unmarshal(logs.Bytes(), &line); err != nil {
				t.Fatalf("log %q: %v", logs.String(), err)
			}
			if line.Level != tt.logLevel || line.Msg != "not ready" || !strings.Contains(line.Err, tt.modules[0].Name+": ") {
				t.Errorf("log line %+v: want the cause at %s", line, tt.logLevel)
			}
			if rec.Header().Get("Cache-Control") != "no-store" {
				t.Errorf("Cache-Control %q", rec.Header().Get("Cache-Control"))
			}
		})
	}
}
