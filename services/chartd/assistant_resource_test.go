package main

import (
	"context"
	"crypto/sha256"
	"fmt"
	"io"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"chartd.dev/libs/plan"
	"chartd.dev/libs/quota"
	"chartd.dev/libs/store"
)

// mcpCall posts one JSON-RPC request to /mcp with a bearer token.
func mcpCall(t *testing.T, base, token, body string, hdr ...string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodPost, base+"/mcp", strings.NewReader(body))
	req.Header.Set("Authorization", "Bearer "+token)
	for i := 0; i+1 < len(hdr); i += 2 {
		req.Header.Set(hdr[i], hdr[i+1])
	}
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, string(raw)
}

// authorizePage opens an authorization request in the browser and waits
// until it shows the consent page, an error page, or has gone back to
// the app; it answers which.
func authorizePage(t *testing.T, ctx context.Context, cb *callback, authURL string) string {
	t.Helper()
	do(t, ctx, "open the authorization request", chromedp.Navigate(authURL))
	waitNavigated(t, ctx, fmt.Sprintf(`document.readyState === "complete" && (location.href.startsWith(%q) || !!document.getElementById("consent-allow") || document.title.startsWith("Bad Request"))`, cb.url))
	switch {
	case eval[bool](t, ctx, fmt.Sprintf(`location.href.startsWith(%q)`, cb.url)):
		<-cb.got
		return "redirect"
	case eval[bool](t, ctx, `!!document.getElementById("consent-allow")`):
		return "consent"
	}
	return "error page"
}

// TestAssistantResourceBinding checks RFC 8707 audience binding end to
// end, with this server as one resource: a request for another server's
// resource is refused at the authorization endpoint (on a page, not by a
// redirect), the token endpoint refuses another server's resource and
// takes any of this server's identifiers, the consent page names the
// resource, a token asked for {site_url}/mcp, {site_url} or {base_url}
// works at both /api/v1 and /mcp with the account's limits, and a token
// whose grant is for another server is refused at both. Refused
// authorization requests never redirect to the app without the person
// (RFC 9700 §4.11.2).
func TestAssistantResourceBinding(t *testing.T) {
	in := startAll(t)
	ctx := newBrowser(t)
	signUpInBrowser(t, ctx, in.url, "audience@example.com")
	cb := newCallback(t)

	clientID := registerClient(t, in.url, "Audience", cb.url)
	verifier := strings.Repeat("audience-", 6)
	authURL := func(change func(url.Values)) string {
		q := url.Values{"client_id": {clientID}, "redirect_uri": {cb.url}, "response_type": {"code"}, "scope": {"charts:read"},
			"state": {"s1"}, "code_challenge": {sha256Base64(verifier)}, "code_challenge_method": {"S256"}}
		change(q)
		return in.url + "/oauth/authorize?" + q.Encode()
	}

	for _, tt := range []struct {
		name    string
		change  func(url.Values)
		mention string
	}{
		{"another server's resource", func(q url.Values) { q.Set("resource", "https://evil.example/mcp") }, "https://evil.example/mcp"},
		{"two resources", func(q url.Values) { q["resource"] = []string{in.url, in.url + "/mcp"} }, "one resource"},
		{"a bad response_type", func(q url.Values) { q.Set("response_type", "token") }, "response_type"},
		{"an unknown scope", func(q url.Values) { q.Set("scope", "admin") }, "admin"},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if got := authorizePage(t, ctx, cb, authURL(tt.change)); got != "error page" {
				t.Fatalf("the authorization request led to the %s, want an error page", got)
			}
			text := eval[string](t, ctx, `document.querySelector("main").innerText`)
			back := eval[string](t, ctx, `document.getElementById("error-back") ? document.getElementById("error-back").href : ""`)
			if !strings.Contains(text, tt.mention) || !strings.HasPrefix(back, cb.url) || !strings.Contains(back, "error=") {
				t.Fatalf("error page says %q, offers the way back %q", text, back)
			}
		})
	}

	// A grant for one of this server's identifiers: the consent page
	// names it, and the token endpoint takes none or any of them.
	mcpResource := in.url + "/mcp"
	codeFor := func(resource string) string {
		u := authURL(func(q url.Values) { q.Set("resource", resource) })
		if got := authorizePage(t, ctx, cb, u); got != "consent" {
			t.Fatalf("authorization for %s led to the %s", resource, got)
		}
		if text := eval[string](t, ctx, `document.getElementById("consent-resource").innerText`); !strings.Contains(text, resource) {
			t.Fatalf("the consent page does not name the resource: %q", text)
		}
		return consent(t, ctx, cb, u, "Audience", []string{"charts:read"}).Get("code")
	}
	exchange := func(code string, resource ...string) (int, map[string]any) {
		return postForm(t, in.url+"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {clientID},
			"redirect_uri": {cb.url}, "code_verifier": {verifier}, "resource": resource})
	}
	if status, body := exchange(codeFor(mcpResource), "https://evil.example/mcp"); status != http.StatusBadRequest || body["error"] != "invalid_target" {
		t.Fatalf("exchange of a code for %s with resource https://evil.example/mcp: %d %v", mcpResource, status, body)
	}
	wantLimit := strconv.Itoa(plan.LimitsOf(store.PlanFree).RequestsPerMinute)
	var access string
	for _, tt := range []struct{ asked, exchanged string }{
		{mcpResource, mcpResource},
		{mcpResource, in.url},
		{in.url, ""},
		{in.url + "/api/v1", in.url + "/mcp"},
	} {
		var repeat []string
		if tt.exchanged != "" {
			repeat = []string{tt.exchanged}
		}
		status, tok := exchange(codeFor(tt.asked), repeat...)
		if status != http.StatusOK {
			t.Fatalf("exchange of a code for %s with resource %q: %d %v", tt.asked, tt.exchanged, status, tok)
		}
		access = tok["access_token"].(string)
		if r, body := bearerGet(t, in.url+"/api/v1/account", access); r.StatusCode != http.StatusOK || r.Header.Get(quota.HeaderLimit) != wantLimit {
			t.Fatalf("a token for %s at the REST API: %d, %s %q (want %s), %.300s", tt.asked, r.StatusCode, quota.HeaderLimit, r.Header.Get(quota.HeaderLimit), wantLimit, body)
		}
		if r, body := mcpCall(t, in.url, access, `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"list_charts","arguments":{}}}`); r.StatusCode != http.StatusOK ||
			!strings.Contains(body, `"structuredContent":{"charts":`) || strings.Contains(body, `"isError":true`) || r.Header.Get(quota.HeaderLimit) != wantLimit {
			t.Fatalf("a token for %s at /mcp, calling list_charts: %d, %s %q, %.300s", tt.asked, r.StatusCode, quota.HeaderLimit, r.Header.Get(quota.HeaderLimit), body)
		}
	}

	// A web page of another origin cannot call /mcp, even with a token;
	// the site's own origin can.
	if r, body := mcpCall(t, in.url, access, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "Origin", "http://evil.example"); r.StatusCode != http.StatusForbidden {
		t.Fatalf("/mcp from Origin http://evil.example: %d %.300s", r.StatusCode, body)
	}
	if r, body := mcpCall(t, in.url, access, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`, "Origin", in.url); r.StatusCode != http.StatusOK {
		t.Fatalf("/mcp from the site's origin: %d %.300s", r.StatusCode, body)
	}

	// A grant for another server's resource, as the old authorization
	// endpoint made them: its token is refused everywhere.
	st := in.open(t)
	defer st.Close()
	bg := context.Background()
	var accountID string
	accts, err := st.ListAccounts(bg)
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range accts {
		if gs, _ := st.ListOAuthGrants(bg, a.ID); len(gs) > 0 {
			accountID = a.ID
		}
	}
	g, err := st.CreateOAuthGrant(bg, store.OAuthGrant{AccountID: accountID, ClientID: clientID, Scopes: []string{"charts:read"}, Resource: "https://evil.example/mcp", CreatedAt: time.Now()})
	if err != nil {
		t.Fatal(err)
	}
	forged := "cda_forgedaudiencetokenforanotherresource"
	h := sha256.Sum256([]byte(forged))
	if err := st.CreateOAuthToken(bg, store.OAuthToken{Hash: h[:], GrantID: g.ID, Kind: store.OAuthAccess, ExpiresAt: time.Now().Add(time.Hour)}); err != nil {
		t.Fatal(err)
	}
	if r, body := bearerGet(t, in.url+"/api/v1/charts", forged); r.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a token for https://evil.example/mcp at /api/v1: %d %s", r.StatusCode, body)
	}
	r, body := mcpCall(t, in.url, forged, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`)
	if r.StatusCode != http.StatusUnauthorized {
		t.Fatalf("a token for https://evil.example/mcp at /mcp: %d %.300s", r.StatusCode, body)
	}
	// The challenge says the token is the problem and which scope to ask.
	if ch := r.Header.Get("WWW-Authenticate"); !strings.Contains(ch, `error="invalid_token"`) || !strings.Contains(ch, `scope="charts:read charts:write images brand"`) ||
		!strings.Contains(ch, `resource_metadata="`+in.url+`/.well-known/oauth-protected-resource/mcp"`) {
		t.Fatalf("WWW-Authenticate of a refused token: %q", ch)
	}
}
