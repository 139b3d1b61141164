// Package oauth serves the authorization server's HTTP endpoints for AI
// assistants: authorization-server metadata (RFC 8414), protected-resource
// metadata (RFC 9728), dynamic client registration (RFC 7591) and the
// token endpoint. The consent page is the site's (it needs the session);
// the logic is libs/oauth. Answers use OAuth's own error format, not the
// API's, because OAuth clients read that one.
package oauth

import (
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"net/http"
	"strings"

	authz "chartd.dev/libs/oauth"
	"chartd.dev/libs/route"
)

// Paths of the endpoints, from the site root.
const (
	AuthServerMetadataPath = "/.well-known/oauth-authorization-server"
	ResourceMetadataPath   = "/.well-known/oauth-protected-resource"
	AuthorizePath          = "/oauth/authorize"
	TokenPath              = "/oauth/token"
	RegisterPath           = "/oauth/register"
	// MCPPath is the MCP endpoint, the resource assistants are given.
	MCPPath = "/mcp"
)

// maxRegistration bounds a registration request body.
const maxRegistration = 64 << 10

// Handlers serves the endpoints.
type Handlers struct {
	issuer string
	docs   string
	srv    *authz.Server
	log    *slog.Logger
	mux    *http.ServeMux
}

// New builds the endpoints for the site at publicURL (the issuer).
func New(site route.Site, srv *authz.Server, log *slog.Logger) *Handlers {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	h := &Handlers{issuer: strings.TrimRight(site.PublicURL, "/"), docs: site.DocsURL(), srv: srv, log: log, mux: http.NewServeMux()}
	for _, e := range endpoints() {
		fn := e.Handle
		h.mux.Handle(e.Method+" "+e.Path, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			// Browser-based assistants call these across origins; they
			// carry no cookie and answer no secret of a person.
			w.Header().Set("Access-Control-Allow-Origin", "*")
			if err := fn(h, w, r); err != nil {
				h.fail(w, r, err)
			}
		}))
	}
	return h
}

func endpoints() []route.Endpoint[*Handlers] {
	e := func(op, method, path string, fn func(*Handlers, http.ResponseWriter, *http.Request) error) route.Endpoint[*Handlers] {
		return route.Endpoint[*Handlers]{Route: route.Route{Op: op, Method: method, Path: path, Access: route.Public}, Handle: fn}
	}
	return []route.Endpoint[*Handlers]{
		e("oauth_server_metadata", http.MethodGet, AuthServerMetadataPath, (*Handlers).serverMetadata),
		e("oauth_resource_metadata", http.MethodGet, ResourceMetadataPath, (*Handlers).resourceMetadata),
		e("oauth_resource_metadata", http.MethodGet, ResourceMetadataPath+MCPPath, (*Handlers).resourceMetadata),
		e("oauth_register", http.MethodPost, RegisterPath, (*Handlers).register),
		e("oauth_token", http.MethodPost, TokenPath, (*Handlers).token),
	}
}

// Routes is the endpoints' route table, for the gateway.
func Routes() []route.Route { return route.Routes(endpoints()) }

// Handler serves every endpoint.
func (h *Handlers) Handler() http.Handler { return h.mux }

// ResourceMetadataURL is the protected-resource metadata of the resource
// at path (the MCP endpoint, or the API as a whole), for WWW-Authenticate.
func ResourceMetadataURL(publicURL, path string) string {
	base := strings.TrimRight(publicURL, "/") + ResourceMetadataPath
	if strings.HasPrefix(path, MCPPath) {
		return base + MCPPath
	}
	return base
}

func (h *Handlers) serverMetadata(w http.ResponseWriter, r *http.Request) error {
	writeJSON(w, http.StatusOK, map[string]any{
		"issuer":                                         h.issuer,
		"authorization_endpoint":                         h.issuer + AuthorizePath,
		"token_endpoint":                                 h.issuer + TokenPath,
		"registration_endpoint":                          h.issuer + RegisterPath,
		"scopes_supported":                               authz.Scopes(),
		"response_types_supported":                       []string{"code"},
		"response_modes_supported":                       []string{"query"},
		"grant_types_supported":                          []string{"authorization_code", "refresh_token"},
		"token_endpoint_auth_methods_supported":          []string{"none"},
		"code_challenge_methods_supported":               []string{"S256"},
		"authorization_response_iss_parameter_supported": true,
		"service_documentation":                          h.docs + "/",
	})
	return nil
}

func (h *Handlers) resourceMetadata(w http.ResponseWriter, r *http.Request) error {
	resource := h.issuer
	if strings.HasSuffix(r.URL.Path, MCPPath) {
		resource += MCPPath
	}
	writeJSON(w, http.StatusOK, map[string]any{
		"resource":                 resource,
		"resource_name":            "chartd",
		"authorization_servers":    []string{h.issuer},
		"scopes_supported":         authz.Scopes(),
		"bearer_methods_supported": []string{"header"},
		"resource_documentation":   h.docs + "/",
	})
	return nil
}

// registration is the part of RFC 7591 client metadata chartd reads.
type registration struct {
	ClientName              string   `json:"client_name"`
	RedirectURIs            []string `json:"redirect_uris"`
	TokenEndpointAuthMethod string   `json:"token_endpoint_auth_method"`
	GrantTypes              []string `json:"grant_types"`
	ResponseTypes           []string `json:"response_types"`
}

func (h *Handlers) register(w http.ResponseWriter, r *http.Request) error {
	var req registration
	dec := json.NewDecoder(io.LimitReader(r.Body, maxRegistration))
	if err := dec.Decode(&req); err != nil {
		return &authz.Error{Code: "invalid_client_metadata", Description: "send the client metadata as a JSON object", Status: http.StatusBadRequest}
	}
	for _, gt := range req.GrantTypes {
		if gt != "authorization_code" && gt != "refresh_token" {
			return &authz.Error{Code: "invalid_client_metadata", Description: "grant_types may be authorization_code and refresh_token only", Status: http.StatusBadRequest}
		}
	}
	c, err := h.srv.Register(r.Context(), req.ClientName, req.RedirectURIs)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	// A public client: token_endpoint_auth_method is always none, whatever
	// was asked; PKCE proves the caller.
	writeJSON(w, http.StatusCreated, map[string]any{
		"client_id":                  c.ID,
		"client_id_issued_at":        c.CreatedAt.Unix(),
		"client_name":                c.Name,
		"redirect_uris":              c.RedirectURIs,
		"grant_types":                []string{"authorization_code", "refresh_token"},
		"response_types":             []string{"code"},
		"token_endpoint_auth_method": "none",
	})
	return nil
}

func (h *Handlers) token(w http.ResponseWriter, r *http.Request) error {
	if err := r.ParseForm(); err != nil {
		return &authz.Error{Code: "invalid_request", Description: "send the parameters as application/x-www-form-urlencoded", Status: http.StatusBadRequest}
	}
	form := r.PostForm
	if id, _, ok := r.BasicAuth(); ok && form.Get("client_id") == "" {
		// Some clients send a public client's id as HTTP Basic with an
		// empty password.
		form.Set("client_id", id)
	}
	t, err := h.srv.Token(r.Context(), form)
	if err != nil {
		return err
	}
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	writeJSON(w, http.StatusOK, t)
	return nil
}

// fail writes an OAuth error answer; causes of ours are logged and
// answered as server_error.
func (h *Handlers) fail(w http.ResponseWriter, r *http.Request, err error) {
	var oe *authz.Error
	if !errors.As(err, &oe) {
		h.log.ErrorContext(r.Context(), "oauth endpoint failed", "path", r.URL.Path, "err", err)
		oe = &authz.Error{Code: "server_error", Description: "something went wrong on our side; try again in a moment", Status: http.StatusInternalServerError}
	}
	w.Header().Set("Cache-Control", "no-store")
	writeJSON(w, oe.Status, map[string]string{"error": oe.Code, "error_description": oe.Description})
}

func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.WriteHeader(status)
	// A failed write means the client went away; nothing is left to say.
	_ = json.NewEncoder(w).Encode(v)
}
