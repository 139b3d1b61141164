package apierr_test

import (
	"errors"
	"fmt"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
	"time"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/store"
)

// A store's "storage full", however deeply wrapped, is the contract's
// internal 500 with Retry-After and a message that says the storage is
// full and the request is not at fault; a delete that could not be done
// says so and does not claim that deletes work; any other error keeps the
// generic message.
func TestStorageFullAnswer(t *testing.T) {
	cause := errors.New("database or disk is full (13)")
	for _, tc := range []struct {
		name      string
		err       error
		want, not []string
	}{
		{"write", fmt.Errorf("create chart: %w", store.FullError(cause)),
			[]string{"storage is full", "not a fault of the request", "deleting charts still works"}, []string{"disk is full (13)", "nothing was deleted"}},
		{"delete", fmt.Errorf("delete chart: %w", store.DeleteFullError(cause)),
			[]string{"storage is full", "not a fault of the request", "nothing was deleted"}, []string{"disk is full (13)", "deleting charts still works"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			e := apierr.Write(w, "https://docs", tc.err)
			if w.Code != http.StatusInternalServerError || e.Code != apierr.Internal || !e.Unavailable {
				t.Fatalf("status %d code %s unavailable %v", w.Code, e.Code, e.Unavailable)
			}
			if w.Header().Get("Retry-After") != "60" {
				t.Fatalf("Retry-After %q", w.Header().Get("Retry-After"))
			}
			body := w.Body.String()
			for _, s := range tc.want {
				if !strings.Contains(body, s) {
					t.Errorf("body lacks %q: %s", s, body)
				}
			}
			for _, s := range tc.not {
				if strings.Contains(body, s) {
					t.Errorf("body has %q: %s", s, body)
				}
			}
		})
	}
	if e := apierr.From(errors.New("boom")); e.RetryAfter != 0 || strings.Contains(e.Message, "full") {
		t.Fatalf("plain error mapped as %+v", e)
	}
}

// A transient internal error (a browser killed under a render) answers
// 503 with Retry-After and its message, code internal; every other code
// keeps its table status, and an internal error that is not transient
// stays 500.
func TestTransientAnswer(t *testing.T) {
	tests := []struct {
		name   string
		err    error
		status int
		retry  string
	}{
		{"transient", fmt.Errorf("rasterize: %w", apierr.Transient(errors.New("draw: context canceled"), 2*time.Second, "the render fleet lost a browser; retry in a few seconds")), http.StatusServiceUnavailable, "2"},
		{"unavailable", apierr.Unavailable(errors.New("dial"), 5*time.Second, "away"), http.StatusInternalServerError, "5"},
		{"bug", errors.New("boom"), http.StatusInternalServerError, ""},
		{"transient flag on another code", &apierr.Error{Code: apierr.RateLimited, Message: "busy", Transient: true}, http.StatusTooManyRequests, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			w := httptest.NewRecorder()
			e := apierr.Write(w, "https://docs", tt.err)
			if w.Code != tt.status || w.Header().Get("Retry-After") != tt.retry {
				t.Fatalf("status %d Retry-After %q, want %d %q", w.Code, w.Header().Get("Retry-After"), tt.status, tt.retry)
			}
			if tt.status == http.StatusServiceUnavailable && (e.Code != apierr.Internal || !e.Unavailable || !strings.Contains(w.Body.String(), "retry in a few seconds")) {
				t.Fatalf("transient answer %+v: %s", e, w.Body.String())
			}
		})
	}
}
