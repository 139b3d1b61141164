package fleetstats

import (
	"context"
	"net/http"
	"net/http/httptest"
	"strings"
	"testing"
)

func TestGet(t *testing.T) {
	tests := []struct {
		name    string
		status  int
		body    string
		want    Stats
		wantErr string
	}{
		{name: "full answer", status: 200,
			body: `{"queue":3,"busy_tabs":2,"tabs":2,"p95_render_ms":140.5,"chromium_rss_bytes":734003200,"ready":true}`,
			want: Stats{Queue: 3, BusyTabs: 2, Tabs: 2, P95RenderMillis: 140.5, ChromiumRSSBytes: 734003200, Ready: true}},
		{name: "extra fields are fine", status: 200,
			body: `{"queue":0,"busy_tabs":0,"tabs":4,"p95_render_ms":0,"chromium_rss_bytes":1,"ready":false,"renders_total":9}`,
			want: Stats{Tabs: 4, ChromiumRSSBytes: 1}},
		{name: "missing field", status: 200, body: `{"queue":0,"busy_tabs":0,"tabs":4,"p95_render_ms":0,"ready":true}`,
			wantErr: `no "chromium_rss_bytes"`},
		{name: "negative", status: 200, body: `{"queue":-1,"busy_tabs":0,"tabs":4,"p95_render_ms":0,"chromium_rss_bytes":1,"ready":true}`,
			wantErr: "negative"},
		{name: "refused", status: 401, body: `{"error":{"code":"unauthorized"}}`, wantErr: "status 401"},
		{name: "not json", status: 200, body: `<html>`, wantErr: "invalid character"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
				if r.URL.Path != Path || r.Header.Get(TokenHeader) != "token-0123456789abcdef" || r.Method != http.MethodGet {
					http.Error(w, "wrong request", http.StatusBadRequest)
					return
				}
				w.Header().Set("Content-Type", "application/json")
				w.WriteHeader(tt.status)
				w.Write([]byte(tt.body))
			}))
			defer srv.Close()
			got, err := Client{Token: "token-0123456789abcdef"}.Get(context.Background(), srv.URL)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if got != tt.want {
				t.Fatalf("got %+v, want %+v", got, tt.want)
			}
		})
	}
}
