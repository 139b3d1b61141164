package main

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"image/png"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"
	"github.com/modelcontextprotocol/go-sdk/auth"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/modelcontextprotocol/go-sdk/oauthex"
	"github.com/santhosh-tekuri/jsonschema/v6"

	"chartd.dev/libs/plan"
	"chartd.dev/libs/quota"
	"chartd.dev/libs/route"
	"chartd.dev/libs/store"
	"chartd.dev/services/gateway"
	"chartd.dev/services/gateway/mcp"
)

// specOps reads every operation name of the spec's endpoint tables, kept
// in testdata/spec-operations.txt (the spec is not part of a checkout).
func specOps(t *testing.T) []string {
	t.Helper()
	raw, err := os.ReadFile("testdata/spec-operations.txt")
	if err != nil {
		t.Fatalf("read the spec's operations: %v", err)
	}
	var ops []string
	for _, line := range strings.Split(string(raw), "\n") {
		if line = strings.TrimSpace(line); line != "" && !strings.HasPrefix(line, "#") {
			ops = append(ops, line)
		}
	}
	if len(ops) < 20 {
		t.Fatalf("found only %d operations: %v", len(ops), ops)
	}
	return ops
}

// TestEveryOperationHasOneTool: the MCP tool table, generated from the
// services' route tables and the OpenAPI document, has exactly one tool per spec operation and nothing
// else, each with an object input schema and a description.
func TestEveryOperationHasOneTool(t *testing.T) {
	doc, err := gateway.OpenAPI("http://example.test" + route.APIBase)
	if err != nil {
		t.Fatal(err)
	}
	var routes []route.Route
	for _, s := range services() {
		routes = append(routes, s.routes...)
	}
	tools, err := mcp.Tools(doc, routes)
	if err != nil {
		t.Fatal(err)
	}
	count := map[string]int{}
	for _, tool := range tools {
		count[tool.Op]++
		if tool.InputSchema["type"] != "object" || tool.Description == "" {
			t.Errorf("tool %s: schema type %v, description %q", tool.Op, tool.InputSchema["type"], tool.Description)
		}
	}
	// The README's examples (the spec's endpoints as curl calls) are
	// valid tool arguments; a broken one is not.
	examples := []struct {
		op, args string
		valid    bool
	}{
		{"create_chart", `{"type":"bar","data":"Country,Sales\nGermany,120","ops":[{"op":"setTitle","title":{"text":"Sales by country"}}]}`, true},
		{"apply_ops", `{"id":"c-1","ops":[{"op":"addTransform","transform":{"type":"sort","column":"c2","direction":"desc"}},{"op":"setPalette","palette":"okabe-ito"}]}`, true},
		{"apply_ops", `{"id":"c-1"}`, false},
		{"apply_ops", `{"id":"c-1","ops":[{"op":"addAnnotation","annotation":{"text":"Launch day","x":"2024-03-05","series":"c2"}},{"op":"addReferenceLine","line":{"axis":"y","value":"mean"}},{"op":"addRange","range":{"axis":"x","from":"2020-02-01","to":"2020-04-30"}},{"op":"removeAnnotation","index":0},{"op":"clearAnnotations"}]}`, true},
		{"apply_ops", `{"id":"c-1","ops":[{"op":"addAnnotaton","annotation":{"text":"x","x":"a"}}]}`, false},
		{"query_data", `{"id":"c-1","limit":2}`, true},
		{"render_chart", `{"id":"c-1","format":"png","scale":2,"transparent":true}`, true},
		{"render_chart", `{"id":"c-1","format":"gif"}`, false},
		{"render_image", `{"type":"pie","data":"k,v\na,1\nb,2","width":400,"height":300,"scale":2}`, true},
		{"create_image_url", `{"id":"c-1","expires_in":3600}`, true},
		{"create_embed", `{"id":"c-1","theme":"auto"}`, true},
		{"create_embed", `{"id":"c-1","theme":"blue"}`, false},
		{"set_brand_palette", `{"colors":["#0af","#FF8800"]}`, true},
		{"lookup_docs", `{"q":"rate limit"}`, true},
	}
	byOp := map[string]mcp.Tool{}
	for _, tool := range tools {
		byOp[tool.Op] = tool
	}
	for _, ex := range examples {
		c := jsonschema.NewCompiler()
		if err := c.AddResource("tool.json", byOp[ex.op].InputSchema); err != nil {
			t.Fatalf("%s schema: %v", ex.op, err)
		}
		sch, err := c.Compile("tool.json")
		if err != nil {
			t.Fatalf("%s schema does not compile: %v", ex.op, err)
		}
		v, err := jsonschema.UnmarshalJSON(strings.NewReader(ex.args))
		if err != nil {
			t.Fatal(err)
		}
		if err := sch.Validate(v); (err == nil) != ex.valid {
			t.Errorf("%s %s: validation error %v, want valid=%v", ex.op, ex.args, err, ex.valid)
		}
	}

	ops := specOps(t)
	for _, op := range ops {
		if count[op] != 1 {
			t.Errorf("operation %s has %d tools, want 1", op, count[op])
		}
	}
	for op := range count {
		if !slices.Contains(ops, op) {
			t.Errorf("tool %s is not an operation of the spec", op)
		}
	}
}

// callback catches the browser's redirect back to the assistant.
type callback struct {
	url string
	got chan url.Values
}

func newCallback(t *testing.T) *callback {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	cb := &callback{url: "http://" + ln.Addr().String() + "/callback", got: make(chan url.Values, 4)}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != "/callback" {
			// The browser also asks for /favicon.ico.
			http.NotFound(w, r)
			return
		}
		cb.got <- r.URL.Query()
		io.WriteString(w, "You can close this window.")
	})}
	go srv.Serve(ln)
	t.Cleanup(func() { srv.Close() })
	return cb
}

// consent drives the consent page in the browser: it checks what the page
// shows, allows, and answers the redirect's parameters.
func consent(t *testing.T, ctx context.Context, cb *callback, authURL, app string, scopes []string) url.Values {
	t.Helper()
	do(t, ctx, "open the consent page", chromedp.Navigate(authURL), chromedp.WaitVisible(chromedp.ID("consent-allow")))
	text := eval[string](t, ctx, `document.querySelector("main").innerText`)
	if !strings.Contains(text, app) {
		t.Errorf("consent page does not name the app %q: %s", app, text)
	}
	for _, sc := range scopes {
		if !strings.Contains(text, sc) {
			t.Errorf("consent page does not show the scope %s: %s", sc, text)
		}
	}
	do(t, ctx, "allow", chromedp.Click(chromedp.ID("consent-allow")))
	var q url.Values
	select {
	case q = <-cb.got:
	case <-time.After(30 * time.Second):
		t.Fatal("the browser never came back to the app")
	}
	// Let the browser finish loading the app's page before the caller
	// navigates again: a navigation started mid-load is aborted.
	landed := fmt.Sprintf(`location.href.startsWith(%q) && document.readyState === "complete"`, cb.url)
	// Evaluated afresh each time: the page's script context is replaced
	// while it navigates, which ends a single poll with an error.
	for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
		ok, err := chromedp.Run(ctx, chromedp.Evaluate[bool](landed))
		if err == nil && ok {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the browser did not finish loading the app's page: %v", err)
		}
	}
	return q
}

func toolText(t *testing.T, res *sdk.CallToolResult) string {
	t.Helper()
	if len(res.Content) == 0 {
		t.Fatal("tool answered no content")
	}
	tc, ok := res.Content[0].(*sdk.TextContent)
	if !ok {
		t.Fatalf("tool answered %T, want text", res.Content[0])
	}
	return tc.Text
}

func callTool(t *testing.T, s *sdk.ClientSession, name string, args map[string]any) *sdk.CallToolResult {
	t.Helper()
	res, err := s.CallTool(context.Background(), &sdk.CallToolParams{Name: name, Arguments: args})
	if err != nil {
		t.Fatalf("call %s: %v", name, err)
	}
	return res
}

func postForm(t *testing.T, u string, form url.Values) (int, map[string]any) {
	t.Helper()
	resp, err := http.PostForm(u, form)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var body map[string]any
	json.NewDecoder(resp.Body).Decode(&body)
	return resp.StatusCode, body
}

func bearerGet(t *testing.T, u, token string) (*http.Response, string) {
	t.Helper()
	req, _ := http.NewRequest(http.MethodGet, u, nil)
	req.Header.Set("Authorization", "Bearer "+token)
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	raw, _ := io.ReadAll(resp.Body)
	return resp, string(raw)
}

// TestAssistantEndToEnd connects the MCP Go SDK's client the way an
// assistant does, from the address {site_url}/mcp alone: discovery from
// the 401, dynamic registration, the consent page in Chromium, the token
// exchange with PKCE, then tools/list, create_chart, apply_ops,
// render_chart (a real PNG), a refused tool call, a refresh, and the
// disconnect on the account page, after which the token gets 401 and the
// refresh token is dead.
func TestAssistantEndToEnd(t *testing.T) {
	in := startAll(t)
	ctx := newBrowser(t)
	signUpInBrowser(t, ctx, in.url, "assistant@example.com")
	cb := newCallback(t)

	// Before anything: /mcp without a token points to the metadata.
	resp, _ := bearerGet(t, in.url+"/mcp", "")
	if resp.StatusCode != http.StatusUnauthorized || !strings.Contains(resp.Header.Get("WWW-Authenticate"), `resource_metadata="`+in.url+`/.well-known/oauth-protected-resource/mcp"`) {
		t.Fatalf("401 from /mcp: %d, WWW-Authenticate %q", resp.StatusCode, resp.Header.Get("WWW-Authenticate"))
	}

	session, handler, consents := connectAssistant(t, ctx, in, cb)
	if *consents != 1 {
		t.Fatalf("consent pages shown: %d", *consents)
	}

	tools, err := session.ListTools(context.Background(), nil)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, tool := range tools.Tools {
		names = append(names, tool.Name)
	}
	for _, op := range specOps(t) {
		if !slices.Contains(names, op) {
			t.Errorf("tools/list has no %s: %v", op, names)
		}
	}

	var created struct {
		Chart struct{ ID, URL string }
	}
	res := callTool(t, session, "create_chart", map[string]any{"type": "bar", "data": "Country,Sales\nGermany,120\nFrance,95"})
	if res.IsError {
		t.Fatalf("create_chart: %s", toolText(t, res))
	}
	if err := json.Unmarshal([]byte(toolText(t, res)), &created); err != nil || created.Chart.ID == "" {
		t.Fatalf("create_chart answer: %v %s", err, toolText(t, res))
	}
	res = callTool(t, session, "apply_ops", map[string]any{"id": created.Chart.ID, "ops": []any{map[string]any{"op": "setTitle", "title": map[string]any{"text": "Sales"}}}})
	if res.IsError || !strings.Contains(toolText(t, res), `"applied":1`) {
		t.Fatalf("apply_ops: %s", toolText(t, res))
	}
	res = callTool(t, session, "apply_ops", map[string]any{"id": created.Chart.ID, "ops": []any{map[string]any{"op": "addTransform", "transform": map[string]any{"type": "sort", "column": "c9"}}}})
	if !res.IsError || !strings.Contains(toolText(t, res), `"code":"invalid_ops"`) {
		t.Fatalf("a refused apply_ops is not a tool error with the API's code: %v %s", res.IsError, toolText(t, res))
	}
	res = callTool(t, session, "render_chart", map[string]any{"id": created.Chart.ID, "format": "png"})
	img, ok := res.Content[0].(*sdk.ImageContent)
	if res.IsError || !ok || img.MIMEType != "image/png" {
		t.Fatalf("render_chart answered %T (error %v)", res.Content[0], res.IsError)
	}
	pic, err := png.Decode(bytes.NewReader(img.Data))
	if err != nil || pic.Bounds().Dx() != 800 {
		t.Fatalf("render_chart PNG: %v, bounds %v", err, pic)
	}
	// SVG text is nothing an assistant can show: the answer links the
	// chart's page too.
	res = callTool(t, session, "render_chart", map[string]any{"id": created.Chart.ID, "format": "svg"})
	if link, ok := res.Content[len(res.Content)-1].(*sdk.ResourceLink); res.IsError || !ok || link.URI != created.Chart.URL {
		t.Fatalf("render_chart svg answered %d blocks, the last %T (error %v)", len(res.Content), res.Content[len(res.Content)-1], res.IsError)
	}
	// A refusal names the tool to call, not a REST call.
	res = callTool(t, session, "get_chart", map[string]any{"id": "0f0e0d0c-0b0a-4000-8000-000000000000"})
	if !res.IsError || !strings.Contains(toolText(t, res), "list_charts") || strings.Contains(toolText(t, res), "GET /") {
		t.Fatalf("get_chart of a missing chart: %s", toolText(t, res))
	}

	ts, err := handler.TokenSource(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	tok, err := ts.Token()
	if err != nil {
		t.Fatal(err)
	}
	// The SDK asks for the MCP endpoint's resource (RFC 8707); the token
	// works at the REST API too, with the account's limits (spec: "It
	// works at every endpoint with the same limits").
	r, body := bearerGet(t, in.url+"/api/v1/charts/"+created.Chart.ID, tok.AccessToken)
	if want := strconv.Itoa(plan.LimitsOf(store.PlanFree).RequestsPerMinute); r.StatusCode != http.StatusOK || !strings.Contains(body, created.Chart.ID) || r.Header.Get(quota.HeaderLimit) != want {
		t.Fatalf("REST with the SDK's access token for /mcp: %d, %s %q (want %s), %.300s", r.StatusCode, quota.HeaderLimit, r.Header.Get(quota.HeaderLimit), want, body)
	}

	// Refresh: a new pair; the old refresh token is spent.
	var clientID string
	st := in.open(t)
	defer st.Close()
	accts, err := st.ListAccounts(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	for _, a := range accts {
		if gs, _ := st.ListOAuthGrants(context.Background(), a.ID); len(gs) == 1 {
			clientID = gs[0].ClientID
			if gs[0].ClientName != "Test Assistant" || len(gs[0].Scopes) != 4 {
				t.Fatalf("grant = %+v", gs[0])
			}
		}
	}
	code, fresh := postForm(t, in.url+"/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {tok.RefreshToken}, "client_id": {clientID}})
	if code != http.StatusOK || fresh["access_token"] == nil || fresh["refresh_token"] == tok.RefreshToken {
		t.Fatalf("refresh: %d %v", code, fresh)
	}
	newAccess, newRefresh := fresh["access_token"].(string), fresh["refresh_token"].(string)
	if r, body := mcpCall(t, in.url, newAccess, `{"jsonrpc":"2.0","id":1,"method":"tools/list"}`); r.StatusCode != http.StatusOK {
		t.Fatalf("refreshed token: %d %.300s", r.StatusCode, body)
	}

	// Disconnect on the account page.
	do(t, ctx, "open the account page", chromedp.Navigate(in.url+"/account"), chromedp.WaitVisible(chromedp.ID("connected-apps")))
	row := eval[string](t, ctx, `document.querySelector("#connected-apps tbody tr").innerText`)
	if !strings.Contains(row, "Test Assistant") || !strings.Contains(row, "charts:write") || strings.Contains(row, "never") {
		t.Errorf("connected app row: %q", row)
	}
	do(t, ctx, "disconnect", chromedp.Evaluate[chromedp.Void](`document.querySelector("#connected-apps form").submit()`), chromedp.WaitVisible(chromedp.ID("no-apps")))

	for _, token := range []string{tok.AccessToken, newAccess} {
		r, body := bearerGet(t, in.url+"/api/v1/account", token)
		if r.StatusCode != http.StatusUnauthorized || !strings.Contains(body, `"unauthorized"`) {
			t.Fatalf("after disconnect: %d %s", r.StatusCode, body)
		}
		req, _ := http.NewRequest(http.MethodPost, in.url+"/mcp", strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Authorization", "Bearer "+token)
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		mr, err := http.DefaultClient.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		mr.Body.Close()
		if mr.StatusCode != http.StatusUnauthorized || !strings.Contains(mr.Header.Get("WWW-Authenticate"), "resource_metadata=") {
			t.Fatalf("/mcp after disconnect: %d %q", mr.StatusCode, mr.Header.Get("WWW-Authenticate"))
		}
	}
	if code, body := postForm(t, in.url+"/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {newRefresh}, "client_id": {clientID}}); code != http.StatusBadRequest || body["error"] != "invalid_grant" {
		t.Fatalf("refresh after disconnect: %d %v", code, body)
	}
}

// connectAssistant connects the MCP Go SDK's client to in's /mcp the way
// an assistant does: discovery, registration, the consent page (allowed
// in the browser ctx) and the token exchange. consents counts the consent
// pages shown; a second one fails the authorization.
func connectAssistant(t *testing.T, ctx context.Context, in instance, cb *callback) (*sdk.ClientSession, *auth.AuthorizationCodeHandler, *int) {
	t.Helper()
	consents := new(int)
	handler, err := auth.NewAuthorizationCodeHandler(&auth.AuthorizationCodeHandlerConfig{
		DynamicClientRegistrationConfig: &auth.DynamicClientRegistrationConfig{Metadata: &oauthex.ClientRegistrationMetadata{
			ClientName: "Test Assistant", RedirectURIs: []string{cb.url}, GrantTypes: []string{"authorization_code", "refresh_token"},
			TokenEndpointAuthMethod: "none",
		}},
		RedirectURL: cb.url,
		AuthorizationCodeFetcher: func(_ context.Context, args *auth.AuthorizationArgs) (*auth.AuthorizationResult, error) {
			*consents++
			if *consents > 1 {
				return nil, fmt.Errorf("authorization asked for again")
			}
			q := consent(t, ctx, cb, args.URL, "Test Assistant", []string{"charts:read", "charts:write", "images", "brand"})
			return &auth.AuthorizationResult{Code: q.Get("code"), State: q.Get("state"), Iss: q.Get("iss")}, nil
		},
	})
	if err != nil {
		t.Fatal(err)
	}
	client := sdk.NewClient(&sdk.Implementation{Name: "test-assistant", Version: "1"}, nil)
	session, err := client.Connect(context.Background(), &sdk.StreamableClientTransport{Endpoint: in.url + "/mcp", OAuthHandler: handler, DisableStandaloneSSE: true}, nil)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	t.Cleanup(func() { session.Close() })
	return session, handler, consents
}

// TestAssistantTokenExpiry runs with 1-second access tokens: an expired
// token is refused, the SDK client refreshes by itself (rotating the
// refresh token) and goes on, and replaying a spent refresh token revokes
// the whole grant, so the client's current tokens stop too.
func TestAssistantTokenExpiry(t *testing.T) {
	in := startAll(t, "-gateway.oauth-access-ttl=1s")
	ctx := newBrowser(t)
	signUpInBrowser(t, ctx, in.url, "expiry@example.com")
	session, handler, _ := connectAssistant(t, ctx, in, newCallback(t))
	ts, err := handler.TokenSource(context.Background())
	if err != nil {
		t.Fatal(err)
	}
	first, err := ts.Token()
	if err != nil {
		t.Fatal(err)
	}
	time.Sleep(1500 * time.Millisecond)
	if r, body := bearerGet(t, in.url+"/api/v1/account", first.AccessToken); r.StatusCode != http.StatusUnauthorized {
		t.Fatalf("expired access token: %d %s", r.StatusCode, body)
	}
	if res := callTool(t, session, "get_account", nil); res.IsError {
		t.Fatalf("get_account after expiry: %s", toolText(t, res))
	}
	now, err := ts.Token()
	if err != nil {
		t.Fatal(err)
	}
	if now.RefreshToken == first.RefreshToken {
		t.Fatal("the refresh token did not rotate")
	}
	st := in.open(t)
	defer st.Close()
	var clientID, accountID string
	accts, _ := st.ListAccounts(context.Background())
	for _, a := range accts {
		if gs, _ := st.ListOAuthGrants(context.Background(), a.ID); len(gs) == 1 {
			clientID, accountID = gs[0].ClientID, a.ID
		}
	}
	if code, body := postForm(t, in.url+"/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {first.RefreshToken}, "client_id": {clientID}}); code != http.StatusBadRequest || body["error"] != "invalid_grant" {
		t.Fatalf("replayed refresh token: %d %v", code, body)
	}
	if gs, _ := st.ListOAuthGrants(context.Background(), accountID); len(gs) != 0 {
		t.Fatalf("grant still connected after a replayed refresh token: %+v", gs)
	}
	if code, body := postForm(t, in.url+"/oauth/token", url.Values{"grant_type": {"refresh_token"}, "refresh_token": {now.RefreshToken}, "client_id": {clientID}}); code != http.StatusBadRequest || body["error"] != "invalid_grant" {
		t.Fatalf("current refresh token after the replay: %d %v", code, body)
	}
	if res, err := session.CallTool(context.Background(), &sdk.CallToolParams{Name: "get_account"}); err == nil && !res.IsError {
		t.Fatal("a tool call still works after the grant was revoked")
	}
}

// TestAssistantRefusals checks the security refusals end to end with a
// token allowed charts:read only: a write is unauthorized naming the
// missing scope, another account's chart is not_found, a wrong PKCE
// verifier or redirect URI gets no token, and a reused code revokes the
// grant.
func TestAssistantRefusals(t *testing.T) {
	in := startAll(t)
	ctx := newBrowser(t)
	signUpInBrowser(t, ctx, in.url, "reader@example.com")
	cb := newCallback(t)
	other := newClient(t, in.url, in.newAccount(t, "free"))
	var theirs struct{ Chart struct{ ID string } }
	other.do("POST", "/api/v1/charts", map[string]any{"type": "bar", "data": "k,v\na,1"}).json(t, &theirs)

	resp, err := http.Post(in.url+"/oauth/register", "application/json", strings.NewReader(`{"client_name":"Reader","redirect_uris":["`+cb.url+`"]}`))
	if err != nil {
		t.Fatal(err)
	}
	var reg struct {
		ClientID                string `json:"client_id"`
		TokenEndpointAuthMethod string `json:"token_endpoint_auth_method"`
	}
	json.NewDecoder(resp.Body).Decode(&reg)
	resp.Body.Close()
	if resp.StatusCode != http.StatusCreated || reg.ClientID == "" || reg.TokenEndpointAuthMethod != "none" {
		t.Fatalf("register: %d %+v", resp.StatusCode, reg)
	}
	verifier := strings.Repeat("v3rifier-", 6)
	sum := sha256Base64(verifier)
	authURL := in.url + "/oauth/authorize?" + url.Values{"client_id": {reg.ClientID}, "redirect_uri": {cb.url}, "response_type": {"code"},
		"scope": {"charts:read"}, "state": {"s1"}, "code_challenge": {sum}, "code_challenge_method": {"S256"}}.Encode()
	// Without a session the consent page sends the person to sign in
	// first, and back to the same request after.
	noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
	if r, err := noRedirect.Get(authURL); err != nil || r.StatusCode != http.StatusSeeOther ||
		r.Header.Get("Location") != "/signin?next="+url.QueryEscape(strings.TrimPrefix(authURL, in.url)) {
		t.Fatalf("consent without a session: %v %v", err, r.Header.Get("Location"))
	}
	codeFor := func() string {
		q := consent(t, ctx, cb, authURL, "Reader", []string{"charts:read"})
		if q.Get("state") != "s1" || q.Get("iss") != in.url || q.Get("code") == "" {
			t.Fatalf("redirect back: %v", q)
		}
		return q.Get("code")
	}
	exchange := func(code, redirect, verifier string) (int, map[string]any) {
		return postForm(t, in.url+"/oauth/token", url.Values{"grant_type": {"authorization_code"}, "code": {code}, "client_id": {reg.ClientID},
			"redirect_uri": {redirect}, "code_verifier": {verifier}})
	}
	for _, tt := range []struct{ name, redirect, verifier string }{
		{"PKCE mismatch", cb.url, strings.Repeat("x", 43)},
		{"redirect URI mismatch", cb.url + "/", verifier},
	} {
		t.Run(tt.name, func(t *testing.T) {
			if code, body := exchange(codeFor(), tt.redirect, tt.verifier); code != http.StatusBadRequest || body["error"] != "invalid_grant" {
				t.Fatalf("exchange: %d %v", code, body)
			}
		})
	}

	code := codeFor()
	status, tok := exchange(code, cb.url, verifier)
	if status != http.StatusOK || tok["scope"] != "charts:read" || tok["expires_in"] != float64(3600) {
		t.Fatalf("exchange: %d %v", status, tok)
	}
	reader := newClient(t, in.url, tok["access_token"].(string))
	tests := []struct {
		name, method, path string
		body               any
		status             int
		code, mentions     string
	}{
		{"read allowed", "GET", "/api/v1/charts", nil, http.StatusOK, "", ""},
		{"write needs charts:write", "POST", "/api/v1/charts", map[string]any{"type": "bar"}, http.StatusUnauthorized, "unauthorized", "charts:write"},
		{"images needs images", "GET", "/api/v1/charts/" + theirs.Chart.ID + "/render.png", nil, http.StatusUnauthorized, "unauthorized", "images"},
		{"brand needs brand", "GET", "/api/v1/brand-palette", nil, http.StatusUnauthorized, "unauthorized", "brand"},
		{"another account's chart", "GET", "/api/v1/charts/" + theirs.Chart.ID, nil, http.StatusNotFound, "not_found", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			a := reader.do(tt.method, tt.path, tt.body)
			if a.status != tt.status {
				t.Fatalf("status %d, want %d: %s", a.status, tt.status, a.body)
			}
			if tt.code != "" && a.errCode(t) != tt.code {
				t.Fatalf("code %s, want %s", a.errCode(t), tt.code)
			}
			if !strings.Contains(string(a.body), tt.mentions) {
				t.Fatalf("answer does not name %q: %s", tt.mentions, a.body)
			}
		})
	}

	// The code again: refused, and the grant it made is revoked.
	if status, body := exchange(code, cb.url, verifier); status != http.StatusBadRequest || body["error"] != "invalid_grant" {
		t.Fatalf("reused code: %d %v", status, body)
	}
	if a := reader.do("GET", "/api/v1/charts", nil); a.status != http.StatusUnauthorized {
		t.Fatalf("token after its code was reused: %d %s", a.status, a.body)
	}
}

// sha256Base64 is the PKCE S256 challenge of a verifier.
func sha256Base64(v string) string {
	h := sha256.Sum256([]byte(v))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

// registerClient registers an OAuth client named name with one redirect
// URI, as an assistant's dynamic registration does, and answers its id.
func registerClient(t *testing.T, base, name, redirect string) string {
	t.Helper()
	body, _ := json.Marshal(map[string]any{"client_name": name, "redirect_uris": []string{redirect}})
	resp, err := http.Post(base+"/oauth/register", "application/json", bytes.NewReader(body))
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	var reg struct {
		ClientID string `json:"client_id"`
	}
	if err := json.NewDecoder(resp.Body).Decode(&reg); err != nil || reg.ClientID == "" {
		t.Fatalf("register %s: status %d, client id %q, %v", name, resp.StatusCode, reg.ClientID, err)
	}
	return reg.ClientID
}
