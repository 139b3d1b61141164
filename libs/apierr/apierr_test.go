package apierr_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/store"
)

// A store's "storage full", however deeply wrapped, is the contract's
// internal 500 with Retry-After and a message that says the storage is
// full and the request is not at fault; any other error keeps the generic
// message.
func TestStorageFullAnswer(t *testing.T) {
	err := fmt.Errorf("create chart: %w", store.FullError(errors.New("database or disk is full (13)")))
	w := httptest.NewRecorder()
	e := apierr.Write(w, "https://docs", err)
	if w.Code != http.StatusInternalServerError || e.Code != apierr.Internal || !e.Unavailable {
		t.Fatalf("status %d code %s unavailable %v", w.Code, e.Code, e.Unavailable)
	}
	if w.Header().Get("Retry-After") != "60" {
		t.Fatalf("Retry-After %q", w.Header().Get("Retry-After"))
	}
	body := w.Body.String()
	if !strings.Contains(body, "storage is full") || !strings.Contains(body, "not a fault of the request") || strings.Contains(body, "disk is full (13)") {
		t.Fatalf("body %s", body)
	}
	if e := apierr.From(errors.New("boom")); e.RetryAfter != 0 || strings.Contains(e.Message, "full") {
		t.Fatalf("plain error mapped as %+v", e)
	}
}
