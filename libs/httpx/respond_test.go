package httpx

import (
	"bytes"
	"encoding/json"
	"log/slog"
	"math"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

// TestWriteJSONUnencodable answers a value JSON cannot carry with the one
// error body (JSON, `internal`, its docs link) and logs why, while an
// encodable value is written as it is.
func TestWriteJSONUnencodable(t *testing.T) {
	for _, tc := range []struct {
		name       string
		v          any
		status     int
		body, logs string
	}{
		{"infinite mean", map[string]float64{"mean": math.Inf(1)}, 500,
			`{"error":{"code":"internal","message":"the service failed to answer; try again, and report it if it persists","docs":"http://x/docs/limits/#internal"}}`,
			"unsupported value: +Inf"},
		{"NaN in a list", []float64{1, math.NaN()}, 500, `"docs":"http://x/docs/limits/#internal"`, "unsupported value: NaN"},
		{"channel", map[string]any{"c": make(chan int)}, 500, `"code":"internal"`, "unsupported type"},
		{"finite", map[string]float64{"mean": 1e308}, 201, `{"mean":1e+308}`, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var logs bytes.Buffer
			h := Guard(slog.New(slog.NewJSONHandler(&logs, nil)), "http://x/docs", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				WriteJSON(w, 201, tc.v)
			}))
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, httptest.NewRequest("GET", "/", nil))
			if rec.Code != tc.status || rec.Header().Get("Content-Type") != "application/json" {
				t.Fatalf("answer %d %q, want %d application/json", rec.Code, rec.Header().Get("Content-Type"), tc.status)
			}
			if !json.Valid(rec.Body.Bytes()) || !strings.Contains(rec.Body.String(), tc.body) {
				t.Errorf("body %s, want %s in it", rec.Body, tc.body)
			}
			if !strings.Contains(logs.String(), tc.logs) {
				t.Errorf("log lacks %q: %s", tc.logs, logs.String())
			}
		})
	}
}
