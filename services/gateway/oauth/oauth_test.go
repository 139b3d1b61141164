package oauth

import (
	"context"
	"encoding/json"
	"net/http"
	"net/http/httptest"
	"net/url"
	"path/filepath"
	"strings"
	"testing"

	authz "chartd.dev/libs/oauth"
	"chartd.dev/libs/route"
	"chartd.dev/libs/store/sqlite"
)

func newHandlers(t *testing.T) http.Handler {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	return New(route.Site{PublicURL: "http://chartd.test"}, authz.New(st, authz.Config{}, nil, nil), nil).Handler()
}

func TestEndpoints(t *testing.T) {
	h := newHandlers(t)
	tests := []struct {
		name, method, path, ctype, body string
		status                          int
		want                            map[string]any
	}{
		{"server metadata", "GET", AuthServerMetadataPath, "", "", 200, map[string]any{"issuer": "http://chartd.test", "token_endpoint": "http://chartd.test/oauth/token"}},
		{"mcp resource metadata", "GET", ResourceMetadataPath + MCPPath, "", "", 200, map[string]any{"resource": "http://chartd.test/mcp"}},
		{"root resource metadata", "GET", ResourceMetadataPath, "", "", 200, map[string]any{"resource": "http://chartd.test"}},
		{"register", "POST", RegisterPath, "application/json", `{"client_name":"A","redirect_uris":["http://127.0.0.1:5/cb"],"token_endpoint_auth_method":"client_secret_basic"}`, 201,
			map[string]any{"client_name": "A", "token_endpoint_auth_method": "none"}},
		{"register http on a public host", "POST", RegisterPath, "application/json", `{"redirect_uris":["http://evil.example/cb"]}`, 400, map[string]any{"error": "invalid_redirect_uri"}},
		{"register not JSON", "POST", RegisterPath, "application/json", `redirect_uris=x`, 400, map[string]any{"error": "invalid_client_metadata"}},
		{"implicit grant", "POST", TokenPath, "application/x-www-form-urlencoded", url.Values{"grant_type": {"password"}}.Encode(), 400, map[string]any{"error": "unsupported_grant_type"}},
		{"unknown code", "POST", TokenPath, "application/x-www-form-urlencoded", url.Values{"grant_type": {"authorization_code"}, "code": {"cdc_x"}}.Encode(), 400, map[string]any{"error": "invalid_grant"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			req := httptest.NewRequest(tt.method, tt.path, strings.NewReader(tt.body))
			if tt.ctype != "" {
				req.Header.Set("Content-Type", tt.ctype)
			}
			rec := httptest.NewRecorder()
			h.ServeHTTP(rec, req)
			if rec.Code != tt.status {
				t.Fatalf("status %d, want %d: %s", rec.Code, tt.status, rec.Body)
			}
			var got map[string]any
			if err := json.Unmarshal(rec.Body.Bytes(), &got); err != nil {
				t.Fatal(err)
			}
			for k, v := range tt.want {
				if got[k] != v {
					t.Errorf("%s = %v, want %v", k, got[k], v)
				}
			}
		})
	}
}

func TestResourceMetadataURL(t *testing.T) {
	tests := []struct{ path, want string }{
		{"/mcp", "http://x/.well-known/oauth-protected-resource/mcp"},
		{"/api/v1/charts", "http://x/.well-known/oauth-protected-resource"},
	}
	for _, tt := range tests {
		if got := ResourceMetadataURL("http://x/", tt.path); got != tt.want {
			t.Errorf("%s: %s, want %s", tt.path, got, tt.want)
		}
	}
}
