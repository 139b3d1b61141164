// Package oauth is chartd's OAuth 2.1 authorization server logic for AI
// assistants: public clients registered dynamically (RFC 7591), the
// authorization code grant with PKCE S256 only, exact redirect-URI
// matching, 1-hour access tokens and rotating refresh tokens whose reuse
// revokes the whole grant. Every code and token is stored as its SHA-256
// only. HTTP lives in services/gateway/oauth and the site's consent page.
package oauth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"log/slog"
	"net/url"
	"slices"
	"strings"
	"time"

	"chartd.dev/libs/store"
)

// The scopes an app may ask for, each checked per operation (ScopeOf).
const (
	ScopeRead   = "charts:read"
	ScopeWrite  = "charts:write"
	ScopeImages = "images"
	ScopeBrand  = "brand"
)

// Scopes lists every scope in the order the consent page shows them.
func Scopes() []string { return []string{ScopeRead, ScopeWrite, ScopeImages, ScopeBrand} }

// Describe says what a scope lets an app do, in the consent page's words.
func Describe(scope string) string {
	switch scope {
	case ScopeRead:
		return "See your charts, their data and your account's usage"
	case ScopeWrite:
		return "Create, change and delete your charts"
	case ScopeImages:
		return "Draw your charts as pictures and make public image links"
	case ScopeBrand:
		return "See, set and look up your brand palette"
	}
	return scope
}

// ScopeOf answers the scope an operation needs from an access token; ""
// for an operation outside the table (public routes, the MCP endpoint
// itself, whose tools are checked as the operations they call).
func ScopeOf(op string) string {
	switch op {
	case "list_charts", "get_chart", "lint_chart", "describe_data", "query_data", "get_account",
		"list_chart_types", "list_examples", "list_palettes", "get_op_catalog", "lookup_docs":
		return ScopeRead
	case "create_chart", "apply_ops", "rename_chart", "duplicate_chart", "delete_chart", "set_data":
		return ScopeWrite
	case "render_chart", "render_image", "render_template", "create_image_url", "create_embed":
		return ScopeImages
	case "get_brand_palette", "set_brand_palette", "extract_brand_palette":
		return ScopeBrand
	}
	return ""
}

// Token prefixes, so a leaked value is recognisable and the gateway can
// tell an access token from an API key without a lookup.
const (
	AccessPrefix  = "cda_"
	RefreshPrefix = "cdr_"
	CodePrefix    = "cdc_"
)

// Lifetimes (docs/decisions/oauth-mcp.md, "Lifetimes").
const (
	DefaultAccessTTL  = time.Hour
	DefaultRefreshTTL = 30 * 24 * time.Hour
	DefaultCodeTTL    = time.Minute
	// DefaultClientTTL is how long an app registered by anyone is kept
	// when no person connects it: registration is open, so what nobody
	// uses must not pile up.
	DefaultClientTTL = 24 * time.Hour
	// touchEvery bounds how often "last used" is written per grant.
	touchEvery = time.Minute
)

// Limits on registration.
const (
	maxClientName   = 100
	maxRedirectURIs = 10
	maxRedirectURI  = 2000
)

// Error is an OAuth error answer (RFC 6749 §5.2): its code, a description
// for people, and the HTTP status.
type Error struct {
	Code        string
	Description string
	Status      int
}

func (e *Error) Error() string { return e.Code + ": " + e.Description }

func oerr(status int, code, format string, args ...any) *Error {
	return &Error{Code: code, Description: fmt.Sprintf(format, args...), Status: status}
}

func invalidGrant(format string, args ...any) *Error {
	return oerr(400, "invalid_grant", format, args...)
}

// Server issues and checks codes and tokens.
type Server struct {
	st         store.OAuth
	resources  []string
	clientTTL  time.Duration
	now        func() time.Time
	log        *slog.Logger
	accessTTL  time.Duration
	refreshTTL time.Duration
	codeTTL    time.Duration
}

// Config sets the lifetimes (zero values take the defaults) and the
// resources tokens may be asked for.
type Config struct {
	AccessTTL, RefreshTTL, CodeTTL time.Duration
	// ClientTTL is how long a registered app nobody connected is kept.
	ClientTTL time.Duration
	// Resources are this server's resource identifiers (RFC 8707): the
	// public URL, the MCP endpoint and the REST API's base URL, which all
	// name one resource. A request for any other resource is
	// invalid_target; none: only requests without a resource are
	// accepted.
	Resources []string
}

// New builds the server on st; now is the clock (time.Now when nil).
func New(st store.OAuth, cfg Config, now func() time.Time, log *slog.Logger) *Server {
	if now == nil {
		now = time.Now
	}
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Server{st: st, now: now, log: log, resources: canonAll(cfg.Resources), accessTTL: cfg.AccessTTL, refreshTTL: cfg.RefreshTTL, codeTTL: cfg.CodeTTL}
	if s.accessTTL <= 0 {
		s.accessTTL = DefaultAccessTTL
	}
	if s.refreshTTL <= 0 {
		s.refreshTTL = DefaultRefreshTTL
	}
	if s.codeTTL <= 0 {
		s.codeTTL = DefaultCodeTTL
	}
	s.clientTTL = cfg.ClientTTL
	if s.clientTTL <= 0 {
		s.clientTTL = DefaultClientTTL
	}
	return s
}

// AccessTTL is how long an access token lives.
func (s *Server) AccessTTL() time.Duration { return s.accessTTL }

// newSecret makes a random value with prefix (about 260 bits) and its
// stored hash.
func newSecret(prefix string) (string, []byte) {
	v := prefix + strings.ToLower(rand.Text()+rand.Text())
	return v, hash(v)
}

func hash(v string) []byte {
	h := sha256.Sum256([]byte(v))
	return h[:]
}

// Challenge is the PKCE S256 challenge of verifier (RFC 7636 §4.2).
func Challenge(verifier string) string {
	h := sha256.Sum256([]byte(verifier))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

// validVerifier checks RFC 7636's 43..128 unreserved characters.
func validVerifier(v string) bool {
	if len(v) < 43 || len(v) > 128 {
		return false
	}
	for _, c := range []byte(v) {
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || c == '-' || c == '.' || c == '_' || c == '~') {
			return false
		}
	}
	return true
}

// Register stores a public client (RFC 7591). Redirect URIs must be
// absolute without a fragment: https anywhere, http only on a loopback
// host, or an app's private scheme.
func (s *Server) Register(ctx context.Context, name string, redirectURIs []string) (store.OAuthClient, error) {
	name = strings.TrimSpace(name)
	if name == "" {
		name = "Unnamed app"
	}
	if len([]rune(name)) > maxClientName {
		return store.OAuthClient{}, oerr(400, "invalid_client_metadata", "client_name is longer than %d characters", maxClientName)
	}
	if len(redirectURIs) == 0 || len(redirectURIs) > maxRedirectURIs {
		return store.OAuthClient{}, oerr(400, "invalid_redirect_uri", "send 1 to %d redirect_uris", maxRedirectURIs)
	}
	for _, u := range redirectURIs {
		if err := checkRedirectURI(u); err != nil {
			return store.OAuthClient{}, err
		}
	}
	// Each registration sweeps the apps nobody connected in time.
	if n, err := s.st.DeleteUnusedOAuthClients(ctx, s.now().Add(-s.clientTTL)); err != nil {
		s.log.WarnContext(ctx, "delete unused oauth clients", "err", err)
	} else if n > 0 {
		s.log.InfoContext(ctx, "deleted unused oauth clients", "count", n)
	}
	c, err := s.st.CreateOAuthClient(ctx, name, redirectURIs)
	if err != nil {
		return store.OAuthClient{}, fmt.Errorf("register client: %w", err)
	}
	return c, nil
}

func checkRedirectURI(raw string) error {
	bad := func(why string) error {
		return oerr(400, "invalid_redirect_uri", "redirect_uri %q %s", raw, why)
	}
	if len(raw) > maxRedirectURI {
		return bad("is too long")
	}
	u, err := url.Parse(raw)
	if err != nil || !u.IsAbs() {
		return bad("is not an absolute URL")
	}
	if u.Fragment != "" || strings.Contains(raw, "#") {
		return bad("has a fragment")
	}
	switch u.Scheme {
	case "https":
		if u.Host == "" {
			return bad("has no host")
		}
	case "http":
		switch u.Hostname() {
		case "localhost", "127.0.0.1", "::1":
		default:
			return bad("uses http on a host other than loopback; use https")
		}
	case "javascript", "data", "file", "vbscript", "about", "blob", "chrome", "view-source", "ws", "wss", "ftp", "mailto",
		"filesystem", "tel", "sms", "urn", "news", "intent", "edge", "opera", "brave", "resource", "jar":
		return bad("uses a scheme that is not an app's: use https, http on loopback, or the app's own scheme")
	}
	if u.Opaque != "" {
		// An app's own scheme names a path (myapp:/cb or myapp://host/cb),
		// not an opaque value like mailto:.
		return bad("is not a URL with a path")
	}
	return nil
}

// Request is a checked authorization request: what the consent page shows
// and, once allowed, what the code is bound to.
type Request struct {
	Client      store.OAuthClient
	RedirectURI string
	Scopes      []string
	State       string
	Challenge   string
	Resource    string
}

// Redirectable says whether an authorization error may be sent to the
// redirect URI (it was checked) or must be shown on the page.
type Redirectable struct {
	Err         *Error
	RedirectURI string
	State       string
}

func (e *Redirectable) Error() string { return e.Err.Error() }

// CheckAuthorize validates an authorization request (its query). Errors
// before the client and redirect URI are known to be good are *Error (show
// them); later ones are *Redirectable (send them back to the app).
func (s *Server) CheckAuthorize(ctx context.Context, q url.Values) (Request, error) {
	c, err := s.st.GetOAuthClient(ctx, q.Get("client_id"))
	if errors.Is(err, store.ErrNotFound) {
		return Request{}, oerr(400, "invalid_client", "this app (client_id %q) is not registered here; the app must register again", q.Get("client_id"))
	}
	if err != nil {
		return Request{}, fmt.Errorf("authorize: %w", err)
	}
	ru := q.Get("redirect_uri")
	if !slices.Contains(c.RedirectURIs, ru) {
		return Request{}, oerr(400, "invalid_request", "redirect_uri %q is not one this app registered; it must match exactly", ru)
	}
	state := q.Get("state")
	back := func(code, format string, args ...any) error {
		return &Redirectable{Err: oerr(400, code, format, args...), RedirectURI: ru, State: state}
	}
	if q.Get("response_type") != "code" {
		return Request{}, back("unsupported_response_type", "response_type must be code")
	}
	if q.Get("code_challenge_method") != "S256" {
		return Request{}, back("invalid_request", "code_challenge_method must be S256 (PKCE is required; plain is not accepted)")
	}
	ch := q.Get("code_challenge")
	if len(ch) != 43 {
		return Request{}, back("invalid_request", "code_challenge must be the base64url SHA-256 of the code verifier (43 characters)")
	}
	scopes, err := ParseScopes(q.Get("scope"))
	if err != nil {
		return Request{}, back("invalid_scope", "%v", err)
	}
	resource, oe := s.checkResource(q["resource"])
	if oe != nil {
		return Request{}, &Redirectable{Err: oe, RedirectURI: ru, State: state}
	}
	return Request{Client: c, RedirectURI: ru, Scopes: scopes, State: state, Challenge: ch, Resource: resource}, nil
}

// canon spells a resource identifier for comparison: without a trailing
// slash, so "https://chartd.dev/" and "https://chartd.dev" are one.
func canon(resource string) string { return strings.TrimRight(resource, "/") }

func canonAll(rs []string) []string {
	out := make([]string, len(rs))
	for i, r := range rs {
		out[i] = canon(r)
	}
	return out
}

// checkResource accepts none or one resource parameter naming one of this
// server's resources, answered in its canonical spelling ("" for none).
func (s *Server) checkResource(vals []string) (string, *Error) {
	switch len(vals) {
	case 0:
		return "", nil
	case 1:
		if r := canon(vals[0]); slices.Contains(s.resources, r) {
			return r, nil
		}
		return "", oerr(400, "invalid_target", "resource %q is not served here; ask for one of %s", vals[0], strings.Join(s.resources, ", "))
	}
	return "", oerr(400, "invalid_target", "send one resource parameter, not %d", len(vals))
}

// sameServer checks a token request's resource parameters: none, or one
// of this server's identifiers. They name one resource (the grant's or
// another spelling of this server), so any of them is the grant's.
func (s *Server) sameServer(vals []string) error {
	if _, oe := s.checkResource(vals); oe != nil {
		return oe
	}
	return nil
}

// Allows tells whether a grant's tokens may be used here. This server is
// one resource whatever identifier the app asked for ({site_url},
// {site_url}/mcp or {base_url}): such a token works at every endpoint. A
// grant for another server's resource (or for an identifier this server
// no longer has, after its public URL changed) never passes (RFC 8707
// audience binding).
func (s *Server) Allows(g store.OAuthGrant) bool {
	gr := canon(g.Resource)
	return gr == "" || slices.Contains(s.resources, gr)
}

// ParseScopes reads a space-separated scope list; empty means every scope.
// offline_access, which some clients add to ask for a refresh token, is
// accepted and dropped: every grant has one.
func ParseScopes(raw string) ([]string, error) {
	var out []string
	for _, sc := range strings.Fields(raw) {
		if sc == "offline_access" {
			continue
		}
		if !slices.Contains(Scopes(), sc) {
			return nil, fmt.Errorf("unknown scope %q; the scopes are %s", sc, strings.Join(Scopes(), ", "))
		}
		if !slices.Contains(out, sc) {
			out = append(out, sc)
		}
	}
	if len(out) == 0 {
		return Scopes(), nil
	}
	return out, nil
}

// Approve records the person's consent for accountID: a grant and a code,
// answered as the URL to send the browser back to.
func (s *Server) Approve(ctx context.Context, r Request, accountID, issuer string) (string, error) {
	g, err := s.st.CreateOAuthGrant(ctx, store.OAuthGrant{AccountID: accountID, ClientID: r.Client.ID, Scopes: r.Scopes, Resource: r.Resource, CreatedAt: s.now()})
	if err != nil {
		return "", fmt.Errorf("approve: %w", err)
	}
	code, h := newSecret(CodePrefix)
	if err := s.st.CreateOAuthToken(ctx, store.OAuthToken{Hash: h, GrantID: g.ID, Kind: store.OAuthCode, RedirectURI: r.RedirectURI,
		Challenge: r.Challenge, ExpiresAt: s.now().Add(s.codeTTL)}); err != nil {
		return "", fmt.Errorf("approve: %w", err)
	}
	return redirectWith(r.RedirectURI, url.Values{"code": {code}, "state": optional(r.State), "iss": {issuer}}), nil
}

// DenyURL is where the browser goes when the person says no, or when a
// checked request is refused.
func DenyURL(redirectURI, state, code, description, issuer string) string {
	return redirectWith(redirectURI, url.Values{"error": {code}, "error_description": {description}, "state": optional(state), "iss": {issuer}})
}

func optional(v string) []string {
	if v == "" {
		return nil
	}
	return []string{v}
}

// redirectWith adds params to a registered redirect URI's own query.
func redirectWith(redirectURI string, params url.Values) string {
	u, err := url.Parse(redirectURI)
	if err != nil {
		return redirectURI
	}
	q := u.Query()
	for k, vs := range params {
		for _, v := range vs {
			q.Set(k, v)
		}
	}
	u.RawQuery = q.Encode()
	return u.String()
}

// Tokens is a token answer (RFC 6749 §5.1).
type Tokens struct {
	AccessToken  string `json:"access_token"`
	TokenType    string `json:"token_type"`
	ExpiresIn    int    `json:"expires_in"`
	RefreshToken string `json:"refresh_token"`
	Scope        string `json:"scope"`
}

// Token answers the token endpoint's form: grant_type authorization_code
// (with code, redirect_uri, client_id, code_verifier) or refresh_token
// (with refresh_token, client_id); either may name this server as its
// resource, and another server is invalid_target.
func (s *Server) Token(ctx context.Context, form url.Values) (Tokens, error) {
	switch form.Get("grant_type") {
	case "authorization_code":
		return s.exchange(ctx, form)
	case "refresh_token":
		return s.refresh(ctx, form)
	}
	return Tokens{}, oerr(400, "unsupported_grant_type", "grant_type must be authorization_code or refresh_token")
}

// spend uses a code or refresh token once. A second use revokes the
// grant it belongs to: whoever holds a copy loses everything it gave.
func (s *Server) spend(ctx context.Context, kind, value string) (store.OAuthToken, store.OAuthGrant, error) {
	t, err := s.st.SpendOAuthToken(ctx, kind, hash(value), s.now())
	switch {
	case errors.Is(err, store.ErrConflict):
		if g, gerr := s.st.GetOAuthGrant(ctx, t.GrantID); gerr == nil {
			if rerr := s.st.RevokeOAuthGrant(ctx, g.AccountID, g.ID, s.now()); rerr != nil {
				return t, store.OAuthGrant{}, fmt.Errorf("revoke grant after reuse: %w", rerr)
			}
			s.log.WarnContext(ctx, "oauth token reused; grant revoked", "kind", kind, "grant", g.ID, "account", g.AccountID)
		}
		return t, store.OAuthGrant{}, invalidGrant("this %s was already used; the connection is revoked, so connect the app again", kindName(kind))
	case errors.Is(err, store.ErrNotFound):
		return t, store.OAuthGrant{}, invalidGrant("the %s is not valid, has expired or the app was disconnected", kindName(kind))
	case err != nil:
		return t, store.OAuthGrant{}, fmt.Errorf("spend %s: %w", kind, err)
	}
	g, err := s.st.GetOAuthGrant(ctx, t.GrantID)
	if err != nil {
		return t, store.OAuthGrant{}, fmt.Errorf("grant of %s: %w", kind, err)
	}
	return t, g, nil
}

func kindName(kind string) string {
	if kind == store.OAuthCode {
		return "authorization code"
	}
	return "refresh token"
}

func (s *Server) exchange(ctx context.Context, form url.Values) (Tokens, error) {
	t, g, err := s.spend(ctx, store.OAuthCode, form.Get("code"))
	if err != nil {
		return Tokens{}, err
	}
	// The code is spent whatever follows: a failed check cannot be retried.
	if !equal(g.ClientID, form.Get("client_id")) {
		return Tokens{}, invalidGrant("the code was issued to another client_id")
	}
	if !equal(t.RedirectURI, form.Get("redirect_uri")) {
		return Tokens{}, invalidGrant("redirect_uri must be exactly the one of the authorization request")
	}
	v := form.Get("code_verifier")
	if !validVerifier(v) || !equal(Challenge(v), t.Challenge) {
		return Tokens{}, invalidGrant("code_verifier does not match the code_challenge (PKCE S256)")
	}
	if err := s.sameServer(form["resource"]); err != nil {
		return Tokens{}, err
	}
	return s.issue(ctx, g)
}

func (s *Server) refresh(ctx context.Context, form url.Values) (Tokens, error) {
	_, g, err := s.spend(ctx, store.OAuthRefresh, form.Get("refresh_token"))
	if err != nil {
		return Tokens{}, err
	}
	if !equal(g.ClientID, form.Get("client_id")) {
		return Tokens{}, invalidGrant("the refresh token was issued to another client_id")
	}
	if err := s.sameServer(form["resource"]); err != nil {
		return Tokens{}, err
	}
	return s.issue(ctx, g)
}

// issue makes a fresh access and refresh token pair for a grant.
func (s *Server) issue(ctx context.Context, g store.OAuthGrant) (Tokens, error) {
	now := s.now()
	access, ah := newSecret(AccessPrefix)
	refresh, rh := newSecret(RefreshPrefix)
	if err := s.st.CreateOAuthToken(ctx, store.OAuthToken{Hash: ah, GrantID: g.ID, Kind: store.OAuthAccess, ExpiresAt: now.Add(s.accessTTL)}); err != nil {
		return Tokens{}, s.issueErr(err)
	}
	if err := s.st.CreateOAuthToken(ctx, store.OAuthToken{Hash: rh, GrantID: g.ID, Kind: store.OAuthRefresh, ExpiresAt: now.Add(s.refreshTTL)}); err != nil {
		return Tokens{}, s.issueErr(err)
	}
	// The first tokens make the grant a connection the account page lists.
	if err := s.st.TouchOAuthGrant(ctx, g.ID, now); err != nil {
		return Tokens{}, s.issueErr(err)
	}
	return Tokens{AccessToken: access, TokenType: "Bearer", ExpiresIn: int(s.accessTTL / time.Second), RefreshToken: refresh, Scope: strings.Join(g.Scopes, " ")}, nil
}

func (s *Server) issueErr(err error) error {
	if errors.Is(err, store.ErrNotFound) {
		return invalidGrant("the app was disconnected")
	}
	return fmt.Errorf("issue tokens: %w", err)
}

// Verify authenticates an access token: its live grant and account.
// Missing, expired or disconnected is store.ErrNotFound. Use is recorded
// at most once a minute per grant.
func (s *Server) Verify(ctx context.Context, token string) (store.OAuthGrant, store.Account, error) {
	now := s.now()
	g, a, err := s.st.LookupOAuthAccess(ctx, hash(token), now)
	if err != nil {
		return g, a, err
	}
	if g.LastUsedAt == nil || now.Sub(*g.LastUsedAt) >= touchEvery {
		if err := s.st.TouchOAuthGrant(ctx, g.ID, now); err != nil {
			s.log.WarnContext(ctx, "record oauth grant use", "err", err)
		}
	}
	return g, a, nil
}

// Connections lists the account's connected apps.
func (s *Server) Connections(ctx context.Context, accountID string) ([]store.OAuthGrant, error) {
	all, err := s.st.ListOAuthGrants(ctx, accountID)
	if err != nil {
		return nil, err
	}
	// A consent whose code was never exchanged (the exchange failed, or
	// the app never came back) connected nothing: its grant has had no
	// tokens, so no use, and is not listed.
	out := all[:0]
	for _, g := range all {
		if g.LastUsedAt != nil {
			out = append(out, g)
		}
	}
	return out, nil
}

// Disconnect revokes one of the account's grants: its access token stops
// at the next call and its refresh token is dead.
func (s *Server) Disconnect(ctx context.Context, accountID, grantID string) error {
	return s.st.RevokeOAuthGrant(ctx, accountID, grantID, s.now())
}

// equal compares secrets-adjacent values in constant time.
func equal(a, b string) bool {
	return subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}
