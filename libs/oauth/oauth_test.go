package oauth_test

import (
	"context"
	"errors"
	"net/url"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"chartd.dev/libs/oauth"
	"chartd.dev/libs/store"
	"chartd.dev/libs/store/sqlite"
)

const (
	redirect = "http://127.0.0.1:40000/callback"
	issuer   = "http://chartd.test"
	verifier = "dBjftJeZ4CVP-mB92K27uhbUJU1p1r_wW1gFWFOEjXk-extra"
)

// clock is a settable time source.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }
func (c *clock) add(d time.Duration) {
	c.mu.Lock()
	c.t = c.t.Add(d)
	c.mu.Unlock()
}

type fixture struct {
	st      store.Store
	srv     *oauth.Server
	clock   *clock
	client  store.OAuthClient
	account store.Account
}

func newFixture(t *testing.T) *fixture {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "s.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c := &clock{t: time.Now()}
	srv := oauth.New(st, oauth.Config{Resources: []string{issuer, issuer + "/mcp", issuer + "/api/v1"}}, c.now, nil)
	cl, err := srv.Register(context.Background(), "Test app", []string{redirect})
	if err != nil {
		t.Fatal(err)
	}
	a, err := st.CreateAccount(context.Background(), store.PlanFree)
	if err != nil {
		t.Fatal(err)
	}
	return &fixture{st: st, srv: srv, clock: c, client: cl, account: a}
}

// authorize runs the authorization request and consent, answering the code.
func (f *fixture) authorize(t *testing.T, scope string, resource ...string) string {
	t.Helper()
	q := url.Values{"client_id": {f.client.ID}, "redirect_uri": {redirect}, "response_type": {"code"}, "scope": {scope},
		"code_challenge": {oauth.Challenge(verifier)}, "code_challenge_method": {"S256"}, "state": {"xyz"}, "resource": resource}
	req, err := f.srv.CheckAuthorize(context.Background(), q)
	if err != nil {
		t.Fatalf("authorize: %v", err)
	}
	to, err := f.srv.Approve(context.Background(), req, f.account.ID, issuer)
	if err != nil {
		t.Fatalf("approve: %v", err)
	}
	u, _ := url.Parse(to)
	if got := u.Query().Get("state"); got != "xyz" {
		t.Fatalf("state = %q", got)
	}
	if got := u.Query().Get("iss"); got != issuer {
		t.Fatalf("iss = %q", got)
	}
	return u.Query().Get("code")
}

func (f *fixture) codeForm(code string) url.Values {
	return url.Values{"grant_type": {"authorization_code"}, "code": {code}, "redirect_uri": {redirect}, "client_id": {f.client.ID}, "code_verifier": {verifier}}
}

func wantOAuthErr(t *testing.T, err error, code string) {
	t.Helper()
	var oe *oauth.Error
	if !errors.As(err, &oe) || oe.Code != code {
		t.Fatalf("error = %v, want OAuth error %s", err, code)
	}
}

func TestCheckAuthorizeRefusals(t *testing.T) {
	f := newFixture(t)
	good := url.Values{"client_id": {f.client.ID}, "redirect_uri": {redirect}, "response_type": {"code"},
		"code_challenge": {oauth.Challenge(verifier)}, "code_challenge_method": {"S256"}}
	tests := []struct {
		name       string
		change     func(q url.Values)
		code       string
		redirected bool
	}{
		{"unknown client", func(q url.Values) { q.Set("client_id", "nope") }, "invalid_client", false},
		{"redirect uri differs by a slash", func(q url.Values) { q.Set("redirect_uri", redirect+"/") }, "invalid_request", false},
		{"redirect uri with another query", func(q url.Values) { q.Set("redirect_uri", redirect+"?x=1") }, "invalid_request", false},
		{"plain PKCE", func(q url.Values) { q.Set("code_challenge_method", "plain") }, "invalid_request", true},
		{"no PKCE", func(q url.Values) { q.Del("code_challenge"); q.Del("code_challenge_method") }, "invalid_request", true},
		{"implicit flow", func(q url.Values) { q.Set("response_type", "token") }, "unsupported_response_type", true},
		{"unknown scope", func(q url.Values) { q.Set("scope", "charts:read admin") }, "invalid_scope", true},
		{"another server's resource", func(q url.Values) { q.Set("resource", "https://evil.example/mcp") }, "invalid_target", true},
		{"a resource under this one", func(q url.Values) { q.Set("resource", issuer+"/api/v1/charts") }, "invalid_target", true},
		{"two resources", func(q url.Values) { q["resource"] = []string{issuer, issuer + "/mcp"} }, "invalid_target", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			q := url.Values{}
			for k, v := range good {
				q[k] = append([]string(nil), v...)
			}
			tt.change(q)
			_, err := f.srv.CheckAuthorize(context.Background(), q)
			var rd *oauth.Redirectable
			if tt.redirected {
				if !errors.As(err, &rd) || rd.Err.Code != tt.code {
					t.Fatalf("error = %v, want %s sent back to the app", err, tt.code)
				}
				return
			}
			if errors.As(err, &rd) {
				t.Fatalf("error %v would be sent to an unchecked redirect uri", err)
			}
			wantOAuthErr(t, err, tt.code)
		})
	}
}

func TestCodeExchangeRefusals(t *testing.T) {
	tests := []struct {
		name   string
		change func(f *fixture, form url.Values)
	}{
		{"PKCE mismatch", func(_ *fixture, form url.Values) { form.Set("code_verifier", strings.Repeat("a", 43)) }},
		{"no verifier", func(_ *fixture, form url.Values) { form.Del("code_verifier") }},
		{"redirect uri mismatch", func(_ *fixture, form url.Values) { form.Set("redirect_uri", "http://127.0.0.1:40000/other") }},
		{"another client", func(_ *fixture, form url.Values) { form.Set("client_id", "someone-else") }},
		{"unknown code", func(_ *fixture, form url.Values) { form.Set("code", "cdc_forged") }},
		{"expired code", func(f *fixture, _ url.Values) { f.clock.add(2 * time.Minute) }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := newFixture(t)
			form := f.codeForm(f.authorize(t, ""))
			tt.change(f, form)
			_, err := f.srv.Token(context.Background(), form)
			wantOAuthErr(t, err, "invalid_grant")
		})
	}
}

func TestReusedCodeRevokesGrant(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	code := f.authorize(t, "charts:read")
	tok, err := f.srv.Token(ctx, f.codeForm(code))
	if err != nil {
		t.Fatal(err)
	}
	if tok.TokenType != "Bearer" || tok.ExpiresIn != 3600 || tok.Scope != "charts:read" || !strings.HasPrefix(tok.AccessToken, oauth.AccessPrefix) {
		t.Fatalf("tokens = %+v", tok)
	}
	_, err = f.srv.Token(ctx, f.codeForm(code))
	wantOAuthErr(t, err, "invalid_grant")
	if _, _, err := f.srv.Verify(ctx, tok.AccessToken); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("access token after code reuse: %v, want revoked", err)
	}
}

func TestRefreshRotatesAndReuseRevokes(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	first, err := f.srv.Token(ctx, f.codeForm(f.authorize(t, "")))
	if err != nil {
		t.Fatal(err)
	}
	refresh := func(rt string) (oauth.Tokens, error) {
		return f.srv.Token(ctx, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {rt}, "client_id": {f.client.ID}})
	}
	// After expiry (injected clock) the access token is refused; the
	// refresh token gives a new pair.
	f.clock.add(time.Hour + time.Second)
	if _, _, err := f.srv.Verify(ctx, first.AccessToken); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("expired access token: %v", err)
	}
	second, err := refresh(first.RefreshToken)
	if err != nil {
		t.Fatal(err)
	}
	if second.RefreshToken == first.RefreshToken || second.AccessToken == first.AccessToken {
		t.Fatal("refresh did not rotate")
	}
	g, a, err := f.srv.Verify(ctx, second.AccessToken)
	if err != nil || a.ID != f.account.ID || len(g.Scopes) != 4 {
		t.Fatalf("verify: %+v %+v %v", g, a, err)
	}
	_, err = refresh("cdr_other")
	wantOAuthErr(t, err, "invalid_grant")
	// The old refresh token again: the whole grant is revoked.
	_, err = refresh(first.RefreshToken)
	wantOAuthErr(t, err, "invalid_grant")
	if _, _, err := f.srv.Verify(ctx, second.AccessToken); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("access token after refresh reuse: %v", err)
	}
	_, err = refresh(second.RefreshToken)
	wantOAuthErr(t, err, "invalid_grant")
}

func TestDisconnect(t *testing.T) {
	f := newFixture(t)
	ctx := context.Background()
	tok, err := f.srv.Token(ctx, f.codeForm(f.authorize(t, "images")))
	if err != nil {
		t.Fatal(err)
	}
	conns, err := f.srv.Connections(ctx, f.account.ID)
	if err != nil || len(conns) != 1 || conns[0].ClientName != "Test app" {
		t.Fatalf("connections = %+v, %v", conns, err)
	}
	if err := f.srv.Disconnect(ctx, f.account.ID, conns[0].ID); err != nil {
		t.Fatal(err)
	}
	if _, _, err := f.srv.Verify(ctx, tok.AccessToken); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("access after disconnect: %v", err)
	}
	_, err = f.srv.Token(ctx, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}, "client_id": {f.client.ID}})
	wantOAuthErr(t, err, "invalid_grant")
}

func TestRegisterRedirectURIs(t *testing.T) {
	f := newFixture(t)
	tests := []struct {
		uri string
		ok  bool
	}{
		{"https://claude.ai/api/mcp/auth_callback", true},
		{"http://localhost:6274/oauth/callback", true},
		{"http://[::1]:9/cb", true},
		{"cursor://anysphere.cursor-mcp/oauth/callback", true},
		{"http://evil.example/cb", false},
		{"https://a.example/cb#frag", false},
		{"/relative", false},
		{"javascript:alert(1)", false},
		{"com.example.app:/oauth/callback", true},
		{"about:blank", false},
		{"blob:https://a.example/uuid", false},
		{"chrome://settings", false},
		{"view-source:https://a.example/", false},
		{"ws://127.0.0.1/cb", false},
		{"wss://a.example/cb", false},
		{"ftp://a.example/cb", false},
		{"mailto:a@example.com", false},
		{"CHROME://settings", false},
	}
	for _, tt := range tests {
		t.Run(tt.uri, func(t *testing.T) {
			_, err := f.srv.Register(context.Background(), "x", []string{tt.uri})
			if (err == nil) != tt.ok {
				t.Fatalf("register %q: %v, want ok=%v", tt.uri, err, tt.ok)
			}
		})
	}
}

func TestScopes(t *testing.T) {
	tests := []struct {
		op, scope string
	}{
		{"get_chart", oauth.ScopeRead}, {"lookup_docs", oauth.ScopeRead}, {"create_chart", oauth.ScopeWrite},
		{"apply_ops", oauth.ScopeWrite}, {"render_chart", oauth.ScopeImages}, {"create_image_url", oauth.ScopeImages},
		{"create_embed", oauth.ScopeImages}, {"set_brand_palette", oauth.ScopeBrand}, {"healthz", ""},
	}
	for _, tt := range tests {
		if got := oauth.ScopeOf(tt.op); got != tt.scope {
			t.Errorf("ScopeOf(%s) = %q, want %q", tt.op, got, tt.scope)
		}
	}
	got, err := oauth.ParseScopes("images offline_access images")
	if err != nil || len(got) != 1 || got[0] != "images" {
		t.Fatalf("ParseScopes = %v, %v", got, err)
	}
	if all, _ := oauth.ParseScopes(""); len(all) != 4 {
		t.Fatalf("empty scope = %v, want every scope", all)
	}
}

// TestResourceBinding checks RFC 8707 with this server as one resource:
// the grant keeps the identifier it was asked for, the token endpoint
// takes any of this server's identifiers and refuses another server's,
// and Allows passes a grant for any of this server's identifiers (its
// tokens work at every endpoint) and no other.
func TestResourceBinding(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	code := f.authorize(t, "", issuer+"/mcp/")
	form := f.codeForm(code)
	form.Set("resource", "https://evil.example/mcp")
	_, err := f.srv.Token(ctx, form)
	wantOAuthErr(t, err, "invalid_target")

	code = f.authorize(t, "", issuer+"/mcp")
	form = f.codeForm(code)
	form.Set("resource", issuer+"/mcp")
	tok, err := f.srv.Token(ctx, form)
	if err != nil {
		t.Fatalf("exchange with the same resource: %v", err)
	}
	g, _, err := f.srv.Verify(ctx, tok.AccessToken)
	if err != nil || g.Resource != issuer+"/mcp" {
		t.Fatalf("grant %+v, %v: want the resource %s/mcp", g, err, issuer)
	}
	// Another spelling of this server is the same resource.
	for _, same := range []string{issuer, issuer + "/api/v1", issuer + "/mcp"} {
		tok, err = f.srv.Token(ctx, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}, "client_id": {f.client.ID}, "resource": {same}})
		if err != nil {
			t.Fatalf("refresh of a grant for %s/mcp with resource %s: %v", issuer, same, err)
		}
	}
	_, err = f.srv.Token(ctx, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}, "client_id": {f.client.ID}, "resource": {"https://evil.example"}})
	wantOAuthErr(t, err, "invalid_target")
	// The refused refresh spent the token: the next one is a reuse.
	_, err = f.srv.Token(ctx, url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}, "client_id": {f.client.ID}})
	wantOAuthErr(t, err, "invalid_grant")

	for _, tt := range []struct {
		grant string
		want  bool
	}{
		{"", true},
		{issuer, true},
		{issuer + "/", true},
		{issuer + "/mcp", true},
		{issuer + "/api/v1", true},
		{"https://evil.example/mcp", false},
		{"https://evil.example", false},
		{"http://old-name.test/mcp", false},
		{issuer + "/m", false},
		{issuer + "/api/v1/charts", false},
	} {
		if got := f.srv.Allows(store.OAuthGrant{Resource: tt.grant}); got != tt.want {
			t.Errorf("Allows(grant for %q) = %v, want %v", tt.grant, got, tt.want)
		}
	}
}

// TestUnusedClientsExpire registers apps, connects one, and lets a day
// pass: the next registration deletes the apps nobody connected.
func TestUnusedClientsExpire(t *testing.T) {
	ctx := context.Background()
	f := newFixture(t)
	f.authorize(t, "") // f.client now has a grant
	unused, err := f.srv.Register(ctx, "Never connected", []string{redirect})
	if err != nil {
		t.Fatal(err)
	}
	f.clock.add(oauth.DefaultClientTTL + time.Minute)
	if _, err := f.srv.Register(ctx, "Another", []string{redirect}); err != nil {
		t.Fatal(err)
	}
	if _, err := f.st.GetOAuthClient(ctx, unused.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("an app nobody connected for a day: %v, want deleted", err)
	}
	if _, err := f.st.GetOAuthClient(ctx, f.client.ID); err != nil {
		t.Fatalf("a connected app: %v", err)
	}
}
