package main

import (
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"testing"

	"chartd.dev/libs/auth"
	"chartd.dev/services/render"
)

// TestFleetStats: the render target reports its pool to the RenderFleet
// operator on an internal route; without the internal token it answers
// nothing, and the gateway does not route it.
func TestFleetStats(t *testing.T) {
	in := startAll(t)
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	if a := c.do("POST", "/api/v1/render", map[string]any{"type": "bar", "data": salesCSV}); a.status != 200 {
		t.Fatalf("render: %d %s", a.status, a.body)
	}
	h, err := in.app.upstream(render.Name)
	if err != nil {
		t.Fatal(err)
	}
	get := func(token string) *httptest.ResponseRecorder {
		req := httptest.NewRequest(http.MethodGet, "/internal/v1/fleet-stats", nil)
		if token != "" {
			req.Header.Set(auth.HeaderToken, token)
		}
		rec := httptest.NewRecorder()
		h.ServeHTTP(rec, req)
		return rec
	}
	rec := get(in.app.cfg.InternalToken)
	var st render.FleetStats
	if rec.Code != 200 || json.Unmarshal(rec.Body.Bytes(), &st) != nil {
		t.Fatalf("fleet stats: %d %s", rec.Code, rec.Body)
	}
	if st.Tabs != 1 || !st.Ready || st.Queue != 0 || st.BusyTabs != 0 || st.P95RenderMS <= 0 || st.ChromiumRSSBytes < 10<<20 {
		t.Errorf("fleet stats %+v", st)
	}
	if rec := get("wrong-token-0123456789"); rec.Code != http.StatusUnauthorized && rec.Code != http.StatusNotFound {
		t.Errorf("wrong token: %d %s", rec.Code, rec.Body)
	}
	if a := c.do("GET", "/internal/v1/fleet-stats", nil); a.status != 404 {
		t.Errorf("through the gateway: %d %s", a.status, a.body)
	}
}
