package gateway

import (
	"net/http"
	"net/http/httptest"
	"testing"
)

func TestStdPattern(t *testing.T) {
	for _, tc := range []struct {
		path, want string
		match      map[string]bool // request path → accepted by the check
	}{
		{path: "/api/v1/charts/{id}", want: "/api/v1/charts/{id}"},
		{path: "/docs/", want: "/docs/{$}"},
		{path: "/docs/{slug}/", want: "/docs/{slug}/{$}"},
		{path: "/api/v1/charts/{id}/render.{format}", want: "/api/v1/charts/{id}/{segf}",
			match: map[string]bool{"/api/v1/charts/x/render.svg": true, "/api/v1/charts/x/render.": false, "/api/v1/charts/x/renders": false}},
	} {
		got, check := stdPattern(tc.path)
		if got != tc.want {
			t.Errorf("%s → %s, want %s", tc.path, got, tc.want)
		}
		if (check != nil) != (tc.match != nil) {
			t.Errorf("%s: check %v", tc.path, check != nil)
		}
		for p, ok := range tc.match {
			mux := http.NewServeMux()
			matched := false
			mux.HandleFunc(got, func(w http.ResponseWriter, r *http.Request) { matched = check(r) })
			mux.ServeHTTP(httptest.NewRecorder(), httptest.NewRequest("GET", p, nil))
			if matched != ok {
				t.Errorf("%s on %s: %v, want %v", p, tc.path, matched, ok)
			}
		}
	}
}
