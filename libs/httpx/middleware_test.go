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
