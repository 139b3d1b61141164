package main

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"net/http/cookiejar"
	"net/url"
	"os"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/cdproto/runtime"
	"github.com/chromedp/chromedp"
)

// browserClient is a person's browser without JavaScript: a cookie jar
// that follows redirects, for the site's forms.
type browserClient struct {
	t    *testing.T
	base string
	http *http.Client
	// xff, when set, is sent as X-Forwarded-For: the client's address
	// behind a trusted proxy (-gateway.trusted-proxies).
	xff string
	// origin, when set, is the Origin its form posts send: the site's
	// public origin when that is not base's (a browser names the page's).
	origin string
}

func newBrowserClient(t *testing.T, base string) *browserClient {
	t.Helper()
	jar, err := cookiejar.New(nil)
	if err != nil {
		t.Fatal(err)
	}
	c := &browserClient{t: t, base: base, http: &http.Client{Jar: jar, Timeout: 30 * time.Second}}
	t.Cleanup(c.http.CloseIdleConnections)
	return c
}

// page is one answer of the site.
type page struct {
	status int
	header http.Header
	body   string
	url    string
}

func (c *browserClient) send(req *http.Request) page {
	c.t.Helper()
	if c.xff != "" {
		req.Header.Set("X-Forwarded-For", c.xff)
	}
	resp, err := c.http.Do(req)
	if err != nil {
		c.t.Fatalf("%s %s: %v", req.Method, req.URL, err)
	}
	defer resp.Body.Close()
	b, _ := io.ReadAll(resp.Body)
	return page{status: resp.StatusCode, header: resp.Header, body: string(b), url: resp.Request.URL.String()}
}

func (c *browserClient) get(path string) page {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodGet, c.base+path, nil)
	return c.send(req)
}

// post sends a form with the site's Origin, as a browser posting a page's
// form does; hdr sets headers in pairs, and an empty value removes one.
func (c *browserClient) post(path string, form url.Values, hdr ...string) page {
	c.t.Helper()
	req, _ := http.NewRequest(http.MethodPost, c.base+path, strings.NewReader(form.Encode()))
	req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
	req.Header.Set("Origin", cmp.Or(c.origin, c.base))
	for i := 0; i+1 < len(hdr); i += 2 {
		if hdr[i+1] == "" {
			req.Header.Del(hdr[i])
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	return c.send(req)
}

// api calls /api/v1 with the session cookie, as the editor's script does;
// csrf, when set, goes in X-CSRF-Token.
func (c *browserClient) api(method, path, body, csrf string) page {
	c.t.Helper()
	req, _ := http.NewRequest(method, c.base+"/api/v1"+path, strings.NewReader(body))
	if body != "" {
		req.Header.Set("Content-Type", "application/json")
	}
	if csrf != "" {
		req.Header.Set("X-CSRF-Token", csrf)
	}
	return c.send(req)
}

var csrfField = regexp.MustCompile(`name="csrf" value="([^"]*)"`)

// csrfOf reads the CSRF token a page's forms carry.
func csrfOf(t *testing.T, p page) string {
	t.Helper()
	m := csrfField.FindStringSubmatch(p.body)
	if m == nil {
		t.Fatalf("no CSRF field on %s (%d):\n%.500s", p.url, p.status, p.body)
	}
	return m[1]
}

// signUp makes an account through the sign-up form and the emailed
// confirmation link, and answers the session's CSRF token.
func (c *browserClient) signUp(email string) string {
	c.t.Helper()
	p := c.confirm(c.startSignUp(email))
	if p.status != http.StatusOK || pathOf(p.url) != "/charts/new" {
		c.t.Fatalf("sign up %s: %d at %s:\n%.800s", email, p.status, p.url, p.body)
	}
	return csrfOf(c.t, p)
}

// sessionCookie answers the Set-Cookie of the session in h.
func sessionCookie(h http.Header) *http.Cookie {
	for _, c := range (&http.Response{Header: h}).Cookies() {
		if c.Name == "chartd_session" {
			return c
		}
	}
	return nil
}

// TestSiteSessionCookie signs up on an http and an https site and checks
// the session cookie's flags: a cookie without them fails.
func TestSiteSessionCookie(t *testing.T) {
	tests := []struct {
		name       string
		extra      []string
		origin     string
		wantSecure bool
	}{
		{"http", nil, "", false},
		{"https", []string{"-public-url", "https://chartd.test"}, "https://chartd.test", true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			in := startAll(t, tt.extra...)
			c := newBrowserClient(t, in.url)
			c.origin = tt.origin
			c.http.CheckRedirect = func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }
			p := c.confirm(c.startSignUp("flags-" + tt.name + "@example.com"))
			if p.status != http.StatusSeeOther {
				t.Fatalf("sign up: %d %.300s", p.status, p.body)
			}
			ck := sessionCookie(p.header)
			if ck == nil {
				t.Fatalf("no session cookie in %v", p.header["Set-Cookie"])
			}
			if !ck.HttpOnly || ck.SameSite != http.SameSiteLaxMode || ck.Path != "/" || ck.Secure != tt.wantSecure || ck.MaxAge <= 0 || len(ck.Value) < 40 {
				t.Fatalf("session cookie %q: HttpOnly=%v SameSite=%v Path=%q Secure=%v (want %v) MaxAge=%d",
					p.header["Set-Cookie"], ck.HttpOnly, ck.SameSite, ck.Path, ck.Secure, tt.wantSecure, ck.MaxAge)
			}
		})
	}
}

// TestSiteSecurity checks CSRF, scoping, sign-out, sign-in throttling,
// escaping, and the headers every page carries.
func TestSiteSecurity(t *testing.T) {
	in := startAll(t, "-gateway.key-cache-ttl=50ms")
	alice := newBrowserClient(t, in.url)
	csrf := alice.signUp("alice@example.com")

	// Another account's chart, made with its API key.
	bobKey := in.newAccount(t, "free")
	bob := newClient(t, in.url, bobKey)
	var made struct{ Chart struct{ ID, URL string } }
	bob.do("POST", "/api/v1/charts", map[string]any{"type": "bar", "name": "Bob secret chart", "data": "Country,Sales\nBobland,4242\n"}).json(t, &made)

	// XSS payloads in the name, the title and a cell, through Alice's session.
	payload := `<img src=x onerror=alert(1)><script>alert(2)</script>`
	p := alice.api("POST", "/charts", fmt.Sprintf(`{"type":"bar","name":%q,"data":"k,v\n%s,1\n","ops":[{"op":"setTitle","title":{"text":%q}}]}`,
		payload, strings.ReplaceAll(payload, `"`, `\"`), payload), csrf)
	if p.status != http.StatusCreated {
		t.Fatalf("create with session and CSRF header: %d %s", p.status, p.body)
	}
	var own struct{ Chart struct{ ID string } }
	answer{body: []byte(p.body)}.json(t, &own)

	tests := []struct {
		name   string
		do     func() page
		status int
		// absent must not appear in the body.
		absent []string
	}{
		{"api write without CSRF header", func() page {
			return alice.api("POST", "/charts", `{"type":"bar","data":"a,b\nx,1"}`, "")
		}, http.StatusUnauthorized, nil},
		{"api write with a wrong CSRF header", func() page {
			return alice.api("POST", "/charts", `{"type":"bar","data":"a,b\nx,1"}`, "not-the-token")
		}, http.StatusUnauthorized, nil},
		{"api delete without CSRF header", func() page { return alice.api("DELETE", "/charts/"+own.Chart.ID, "", "") }, http.StatusUnauthorized, nil},
		{"api read with the session", func() page { return alice.api("GET", "/account", "", "") }, http.StatusOK, nil},
		{"form without CSRF token", func() page { return alice.post("/account/keys", url.Values{"name": {"x"}}) }, http.StatusForbidden, []string{"chd_"}},
		{"form with another origin", func() page {
			return alice.post("/account/keys", url.Values{"name": {"x"}, "csrf": {csrf}}, "Origin", "http://evil.example")
		}, http.StatusForbidden, []string{"chd_"}},
		{"another account's chart page", func() page { return alice.get("/charts/" + made.Chart.ID) }, http.StatusNotFound, []string{"Bob secret chart", "Bobland", "4242"}},
		{"another account's chart through the API", func() page { return alice.api("GET", "/charts/"+made.Chart.ID+"?include=spec", "", "") }, http.StatusNotFound, []string{"Bobland"}},
		{"not a chart id", func() page { return alice.get("/charts/..%2f..%2faccount") }, http.StatusNotFound, nil},
		{"chart list escapes names", func() page { return alice.get("/charts") }, http.StatusOK, []string{"<script>alert", "<img src=x"}},
		{"another account's thumbnail", func() page { return alice.get("/charts/" + made.Chart.ID + "/thumbnail.svg") }, http.StatusNotFound, []string{"Bobland", "4242", "<svg"}},
		{"not a chart id's thumbnail", func() page { return alice.get("/charts/x/thumbnail.svg") }, http.StatusNotFound, []string{"<svg"}},
		{"editor escapes the name", func() page { return alice.get("/charts/" + own.Chart.ID) }, http.StatusOK, []string{"<script>alert", "<img src=x"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p := tt.do()
			if p.status != tt.status {
				t.Fatalf("status %d, want %d: %.300s", p.status, tt.status, p.body)
			}
			for _, a := range tt.absent {
				if strings.Contains(p.body, a) {
					t.Fatalf("the answer shows %q:\n%.1000s", a, p.body)
				}
			}
			for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
				if p.header.Get(h) == "" {
					t.Fatalf("answer lacks %s", h)
				}
			}
			if ct := p.header.Get("Content-Type"); strings.HasPrefix(ct, "text/html") {
				if csp := p.header.Get("Content-Security-Policy"); !strings.Contains(csp, "script-src 'self'") || strings.Contains(csp, "unsafe-inline") {
					t.Fatalf("page CSP %q", csp)
				}
				if p.header.Get("X-Frame-Options") != "DENY" || p.header.Get("X-Content-Type-Options") != "nosniff" {
					t.Fatalf("page headers %v", p.header)
				}
				if strings.Contains(p.body, "<script>") || regexp.MustCompile(`<script(?:\s[^>]*)?>[^<]`).MatchString(p.body) {
					t.Fatalf("page has an inline script:\n%.1000s", p.body)
				}
			}
		})
	}

	t.Run("no session leads to sign-in", func(t *testing.T) {
		anon := newBrowserClient(t, in.url)
		p := anon.get("/charts/" + made.Chart.ID)
		if p.status != http.StatusOK || !strings.Contains(p.url, "/signin?next=") || strings.Contains(p.body, "Bobland") || strings.Contains(p.body, "Bob secret") {
			t.Fatalf("anonymous chart page: %d at %s", p.status, p.url)
		}
		p = anon.get("/charts/" + made.Chart.ID + "/thumbnail.svg")
		if !strings.Contains(p.url, "/signin?next=") || strings.Contains(p.body, "<svg") || strings.Contains(p.body, "Bobland") {
			t.Fatalf("anonymous thumbnail: %d at %s", p.status, p.url)
		}
	})

	t.Run("sign-out ends the session", func(t *testing.T) {
		c := newBrowserClient(t, in.url)
		token := c.signUp("carol@example.com")
		u, _ := url.Parse(in.url)
		old := c.http.Jar.Cookies(u)
		if p := c.post("/signout", url.Values{"csrf": {token}}); p.status != http.StatusOK {
			t.Fatalf("sign out: %d", p.status)
		}
		replay := newBrowserClient(t, in.url)
		replay.http.Jar.SetCookies(u, old)
		if p := replay.api("GET", "/account", "", ""); p.status != http.StatusUnauthorized {
			t.Fatalf("a signed-out session still reads the account: %d", p.status)
		}
	})

	t.Run("sign-in is throttled", func(t *testing.T) {
		c := newBrowserClient(t, in.url)
		form := c.get("/signin")
		token := csrfOf(t, form)
		var last page
		for range 12 {
			last = c.post("/signin", url.Values{"csrf": {token}, "email": {"alice@example.com"}, "password": {"wrong password here"}})
			if last.status == http.StatusTooManyRequests {
				break
			}
			if last.status != http.StatusUnauthorized {
				t.Fatalf("wrong password: %d", last.status)
			}
		}
		if last.status != http.StatusTooManyRequests {
			t.Fatalf("12 wrong passwords for one account were all tried: last %d", last.status)
		}
		// The right password is refused too while the account is throttled.
		if p := c.post("/signin", url.Values{"csrf": {token}, "email": {"alice@example.com"}, "password": {"a long enough password"}}); p.status != http.StatusTooManyRequests {
			t.Fatalf("throttled account signed in: %d", p.status)
		}
	})
}

// chromium finds the browser for the browser tests; none is a failure.
func chromium(t *testing.T) string {
	t.Helper()
	for _, p := range []string{"/usr/lib/chromium/chromium", "/usr/bin/chromium"} {
		if _, err := os.Stat(p); err == nil {
			return p
		}
	}
	t.Fatal("no Chromium at /usr/lib/chromium/chromium or /usr/bin/chromium: install the chromium package (make test does)")
	return ""
}

// newBrowser starts a headless Chromium for one test.
func newBrowser(t *testing.T) context.Context {
	t.Helper()
	opts := append([]chromedp.ExecAllocatorOption{}, chromedp.DefaultExecAllocatorOptions[:]...)
	opts = append(opts, chromedp.ExecPath(chromium(t)), chromedp.UserDataDir(t.TempDir()), chromedp.NoSandbox,
		chromedp.Flag("disable-background-networking", true), chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-sync", true), chromedp.Flag("disable-quic", true), chromedp.Flag("no-first-run", true))
	actx, acancel := chromedp.NewExecAllocator(context.Background(), opts...)
	ctx, cancel := chromedp.NewContext(actx)
	ctx, tcancel := context.WithTimeout(ctx, 3*time.Minute)
	t.Cleanup(func() { tcancel(); cancel(); acancel() })
	if err := chromedp.Do(ctx); err != nil {
		t.Fatalf("start chromium: %v", err)
	}
	return ctx
}

// await evaluates a JavaScript expression that may be a promise.
func await(p *runtime.EvaluateParams) { p.AwaitPromise = new(true) }

// poll waits until the JavaScript condition holds.
// A poll begun while the page navigates (after a reload or a form post,
// say) can lose its script context, or, in a page with script turned off,
// never settle: each attempt is bounded by pollAttempt and begun again in
// the page that is there then, until the deadline.
func poll(t *testing.T, ctx context.Context, what, cond string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		left := time.Until(deadline)
		actx, cancel := context.WithTimeout(ctx, min(pollAttempt, left)+time.Second)
		_, err := chromedp.Run(actx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(min(pollAttempt, left))))
		hung := actx.Err() != nil && ctx.Err() == nil
		cancel()
		if err == nil {
			return
		}
		// a navigation under way ends the page the poll ran in: poll the next
		navigated := strings.Contains(err.Error(), "Cannot find context with specified id") || strings.Contains(err.Error(), "Inspected target navigated or closed")
		timedOut := hung || errors.Is(err, chromedp.ErrPollingTimeout) || errors.Is(err, context.DeadlineExceeded)
		if (!navigated && !timedOut) || time.Now().After(deadline) {
			// what the page says in its status lines tells why it never got there
			sctx, cancel := context.WithTimeout(ctx, 5*time.Second)
			said, serr := chromedp.Run(sctx, chromedp.Evaluate[string](`location.pathname + " — " + [...document.querySelectorAll("[role=status], .error")].map(e => (e.id || e.className) + ": " + e.textContent.trim()).filter(s => !s.endsWith(": ")).join(" | ")`))
			cancel()
			if serr != nil {
				said = "(unreadable: " + serr.Error() + ")"
			}
			t.Fatalf("waiting for %s (%s): %v; the page says: %s", what, cond, err, said)
		}
	}
}

// pollAttempt bounds one attempt of poll.
const pollAttempt = 5 * time.Second

func eval[T any](t *testing.T, ctx context.Context, expr string) T {
	t.Helper()
	v, err := chromedp.Run(ctx, chromedp.Evaluate[T](expr, await))
	if err != nil {
		t.Fatalf("evaluate %s: %v", expr, err)
	}
	return v
}

func do(t *testing.T, ctx context.Context, what string, steps ...chromedp.Action[chromedp.Void]) {
	t.Helper()
	if err := chromedp.Do(ctx, steps...); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
}

// TestSiteBrowserWalk walks the whole path in a real browser: sign up,
// make an API key, make a chart with it, edit it in the editor (title,
// CSV, lint fix), share it as an image link, rotate the signing key and
// revoke the API key.
func TestSiteBrowserWalk(t *testing.T) {
	in := startAll(t, "-render.signing-key-ttl=100ms", "-gateway.key-cache-ttl=100ms")
	ctx := newBrowser(t)
	signUpInBrowser(t, ctx, in.url, "walker@example.com")
	do(t, ctx, "create an API key",
		chromedp.SetValue(chromedp.ID("key-name"), "walk"),
		chromedp.Submit(chromedp.ID("key-name")),
		chromedp.WaitVisible(chromedp.ID("new-key")),
	)
	axeCheck(t, ctx, "the account page with a new key")
	key := strings.TrimSpace(eval[string](t, ctx, `document.getElementById("new-key").textContent`))
	if !strings.HasPrefix(key, "chd_") {
		t.Fatalf("new key %q", key)
	}

	api := newClient(t, in.url, key)
	var made struct{ Chart struct{ ID, URL string } }
	a := api.do("POST", "/api/v1/charts", map[string]any{"type": "line", "data": "Year,Sales\n2020,5\n2021,7\n2022,6\n"})
	if a.status != http.StatusCreated {
		t.Fatalf("create chart with the new key: %d %s", a.status, a.body)
	}
	a.json(t, &made)
	if made.Chart.URL != in.url+"/charts/"+made.Chart.ID {
		t.Fatalf("chart url %q", made.Chart.URL)
	}

	do(t, ctx, "open the editor", chromedp.Navigate(made.Chart.URL))
	poll(t, ctx, "the editor", `window.chartdEditor && window.chartdEditor.ready`)

	before := eval[int](t, ctx, `window.chartdEditor.previews`)
	do(t, ctx, "change the title",
		chromedp.SetValue(chromedp.ID("title"), "Walked sales"),
		chromedp.Click(chromedp.ID("apply")),
	)
	poll(t, ctx, "the new preview", fmt.Sprintf(`window.chartdEditor.previews > %d`, before))
	// a preview begun before the save may land first: wait for the one
	// that shows the edit
	poll(t, ctx, "the preview with the new title", `window.chartdEditor.svg.text().then(s => s.includes("Walked sales"))`)

	before = eval[int](t, ctx, `window.chartdEditor.previews`)
	do(t, ctx, "write the footer",
		chromedp.SetValue(chromedp.ID("footer-notes"), "Figures for 2022 are provisional & <rounded>."),
		chromedp.SetValue(chromedp.ID("footer-source"), "Company reports"),
		chromedp.Click(chromedp.ID("apply")),
	)
	poll(t, ctx, "the preview with the footer", fmt.Sprintf(`window.chartdEditor.previews > %d`, before))
	for _, want := range []string{"Figures for 2022 are provisional &amp; &lt;rounded&gt;.", "Source: Company reports"} {
		poll(t, ctx, "the preview showing "+want, fmt.Sprintf(`window.chartdEditor.svg.text().then(s => s.includes(%q))`, want))
	}
	// The form shows the chart's state again, and the API has the footer.
	poll(t, ctx, "the footer fields from the state", `document.getElementById("footer-notes").value === "Figures for 2022 are provisional & <rounded>." && document.getElementById("footer-byline").value === ""`)
	var st struct {
		State struct {
			Style struct{ Footer map[string]string }
		}
	}
	api.do("GET", "/api/v1/charts/"+made.Chart.ID, nil).json(t, &st)
	if f := st.State.Style.Footer; f["notes"] != "Figures for 2022 are provisional & <rounded>." || f["source"] != "Company reports" || f["byline"] != "" {
		t.Fatalf("the chart's footer after the editor: %v", f)
	}

	before = eval[int](t, ctx, `window.chartdEditor.previews`)
	do(t, ctx, "paste CSV",
		chromedp.SetValue(chromedp.ID("csv"), "Year,Sales\n2024,9\n2022,3\n2023,4\n"),
		chromedp.Click(chromedp.ID("set-data")),
		// The chart has a title: the editor asks whether it fits the new data.
		chromedp.WaitVisible(chromedp.ID("title-keep")),
		chromedp.Click(chromedp.ID("title-keep")),
	)
	poll(t, ctx, "the new data", fmt.Sprintf(`window.chartdEditor.previews > %d && document.getElementById("data-table").textContent.includes("2024")`, before))

	poll(t, ctx, "a lint fix", `!!document.querySelector("#lint button.fix")`)
	lintID := eval[string](t, ctx, `document.querySelector("#lint button.fix").closest("li").getAttribute("data-lint")`)
	do(t, ctx, "apply the lint fix", chromedp.Click(chromedp.CSS("#lint button.fix")))
	poll(t, ctx, "the problem gone", fmt.Sprintf(`!document.querySelector('#lint li[data-lint=%q]')`, lintID))

	do(t, ctx, "create an image link", chromedp.Click(chromedp.ID("make-link")), chromedp.WaitVisible(chromedp.ID("image-link")))
	poll(t, ctx, "the image link made", `!document.getElementById("image-link").getAttribute("href").startsWith("#")`)
	link := eval[string](t, ctx, `document.getElementById("image-link").href`)
	if st, ct := fetchStatus(t, link); st != http.StatusOK || ct != "image/png" {
		t.Fatalf("image link %s: %d %s", link, st, ct)
	}
	do(t, ctx, "open the image link", chromedp.Navigate(link))

	do(t, ctx, "rotate the signing key",
		chromedp.Navigate(in.url+"/account"),
		chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`),
		chromedp.Click(chromedp.ID("rotate-signing")),
		chromedp.WaitVisible(chromedp.ID("signing-keys")),
	)
	waitStatus(t, "the image link after rotation", link, http.StatusNotFound)

	do(t, ctx, "revoke the API key",
		chromedp.Evaluate[chromedp.Void](`window.confirm = () => true`),
		chromedp.Click(chromedp.CSS(`form[action^="/account/keys/"] button`)),
		chromedp.WaitVisible(chromedp.ID("api-keys")),
	)
	deadline := time.Now().Add(10 * time.Second)
	for {
		a := api.do("GET", "/api/v1/account", nil)
		if a.status == http.StatusUnauthorized {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("the revoked key still answers %d", a.status)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

func fetchStatus(t *testing.T, u string) (int, string) {
	t.Helper()
	resp, err := http.Get(u)
	if err != nil {
		t.Fatal(err)
	}
	io.Copy(io.Discard, resp.Body)
	resp.Body.Close()
	return resp.StatusCode, resp.Header.Get("Content-Type")
}

// waitStatus polls u until it answers want.
func waitStatus(t *testing.T, what, u string, want int) {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		st, _ := fetchStatus(t, u)
		if st == want {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%s: %d, want %d", what, st, want)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// apiFromPage calls the API from the signed-in page, with its CSRF token,
// and answers the JSON answer.
const apiFromPage = `(method, path, body) => fetch("/api/v1" + path, {method, headers: {"Content-Type": "application/json",
  "X-CSRF-Token": document.querySelector('meta[name="csrf-token"]').content}, body: JSON.stringify(body)}).then(r => r.json())`

// TestSiteBrowserPages checks, in a real browser, that hostile text is
// shown as text, that every page fits a 360 px phone, and measures page
// weight, time to interactive and the editor's preview update on a
// 1,000-row chart.
func TestSiteBrowserPages(t *testing.T) {
	in := startAll(t)
	ctx := newBrowser(t)
	signUpInBrowser(t, ctx, in.url, "pages@example.com")
	payload := `<img src=x onerror="window.__xss=1"><script>window.__xss=2</script>`
	xss := eval[string](t, ctx, fmt.Sprintf(`(%s)("POST", "/charts", {type: "bar", name: %q, data: "k,v\n" + %q.replaceAll(",", ";") + ",1\nb,2\n",
		ops: [{op: "setTitle", title: {text: %q}}]}).then(j => j.chart.id)`, apiFromPage, payload, payload, payload))
	rows := make([]string, 0, 1001)
	rows = append(rows, "Day,Visits,Orders")
	for i := range 1000 {
		rows = append(rows, fmt.Sprintf("%d,%d,%d", i, 1000+i*7%313, 100+i*3%97))
	}
	big := eval[string](t, ctx, fmt.Sprintf(`(%s)("POST", "/charts", {type: "line", name: "Thousand rows", data: %q}).then(j => j.chart.id)`,
		apiFromPage, strings.Join(rows, "\n")))

	t.Run("hostile text is shown as text", func(t *testing.T) {
		do(t, ctx, "open the editor", chromedp.Navigate(in.url+"/charts/"+xss))
		poll(t, ctx, "the editor", `window.chartdEditor && window.chartdEditor.ready`)
		checks := []struct{ what, expr string }{
			{"name", fmt.Sprintf(`document.getElementById("chart-name").textContent === %q`, payload)},
			{"title field", fmt.Sprintf(`document.getElementById("title").value === %q`, payload)},
			{"data cell", fmt.Sprintf(`[...document.querySelectorAll("#data-table td")].some(td => td.textContent === %q)`, strings.ReplaceAll(payload, ",", ";"))},
			{"nothing ran", `window.__xss === undefined && !document.querySelector("main img[src='x'], main script")`},
		}
		for _, c := range checks {
			if !eval[bool](t, ctx, c.expr) {
				t.Errorf("%s: %s is false", c.what, c.expr)
			}
		}
		do(t, ctx, "open the chart list", chromedp.Navigate(in.url+"/charts"))
		if !eval[bool](t, ctx, fmt.Sprintf(`[...document.querySelectorAll(".card .name")].some(e => e.textContent === %q) && window.__xss === undefined`, payload)) {
			t.Error("the chart list does not show the name as text")
		}
	})

	pages := []struct {
		name, path, ready string
	}{
		{"home", "/", `document.readyState === "complete"`},
		{"sign in", "/signin", `document.readyState === "complete"`},
		{"account", "/account", `document.readyState === "complete"`},
		{"charts", "/charts", `document.readyState === "complete"`},
		{"editor", "/charts/" + big, `window.chartdEditor && window.chartdEditor.ready`},
	}
	for _, p := range pages {
		t.Run("measure "+p.name, func(t *testing.T) {
			do(t, ctx, "desktop", chromedp.EmulateViewport(1280, 900))
			do(t, ctx, "open", chromedp.Navigate(in.url+p.path))
			poll(t, ctx, "ready", p.ready)
			// Bytes of the page, its style sheets and scripts (images and
			// the API's answers apart), and the time from navigation start
			// to interactive: the editor's first preview and state drawn,
			// else DOMContentLoaded with the deferred scripts run.
			weight := eval[int](t, ctx, `(() => { const n = performance.getEntriesByType("navigation")[0];
				return n.encodedBodySize + performance.getEntriesByType("resource").filter(r => r.initiatorType === "link" || r.initiatorType === "script" || r.initiatorType === "css")
					.reduce((s, r) => s + r.encodedBodySize, 0) })()`)
			tti := eval[float64](t, ctx, `window.chartdEditor && window.chartdEditor.readyAt || performance.getEntriesByType("navigation")[0].domContentLoadedEventEnd`)
			t.Logf("%s: %d bytes before images, interactive at %.0f ms", p.name, weight, tti)
			if weight > 100<<10 {
				t.Errorf("%s weighs %d bytes before images, over 100 KB", p.name, weight)
			}
			do(t, ctx, "phone", chromedp.EmulateViewport(360, 740), chromedp.Reload())
			poll(t, ctx, "ready", p.ready)
			if w := eval[int](t, ctx, `document.documentElement.scrollWidth`); w > 360 {
				t.Errorf("%s is %d px wide on a 360 px phone", p.name, w)
			}
		})
	}

	t.Run("preview after an op on 1,000 rows", func(t *testing.T) {
		do(t, ctx, "open", chromedp.EmulateViewport(1280, 900), chromedp.Navigate(in.url+"/charts/"+big))
		poll(t, ctx, "the editor", `window.chartdEditor && window.chartdEditor.ready`)
		var ms []float64
		for i := range 5 {
			before := eval[int](t, ctx, `window.chartdEditor.previews`)
			do(t, ctx, "change the title", chromedp.SetValue(chromedp.ID("title"), fmt.Sprintf("Visits, take %d", i)), chromedp.Click(chromedp.ID("apply")))
			poll(t, ctx, "the new preview", fmt.Sprintf(`window.chartdEditor.previews > %d`, before))
			ms = append(ms, eval[float64](t, ctx, `window.chartdEditor.lastPreviewMs`))
		}
		t.Logf("preview redrawn after an op on a 1,000-row chart: %.0f ms each (op → new picture shown)", ms)
		for _, m := range ms {
			if m > 2000 {
				t.Errorf("a preview took %.0f ms", m)
			}
		}
	})
}

// rendersLeft reads renders.left of GET /account with the session.
func (c *browserClient) rendersLeft() int {
	c.t.Helper()
	p := c.api("GET", "/account", "", "")
	var acct struct {
		Renders struct{ Left *int }
	}
	answer{body: []byte(p.body)}.json(c.t, &acct)
	if p.status != http.StatusOK || acct.Renders.Left == nil {
		c.t.Fatalf("GET /account: %d %s", p.status, p.body)
	}
	return *acct.Renders.Left
}

var thumbSrc = regexp.MustCompile(`<img src="(/charts/[^"]+/thumbnail\.svg\?v=[0-9]+)"`)

// TestSiteThumbnailsDoNotCountRenders opens the chart list, in a real
// browser and as plain requests, and checks that its thumbnails are drawn
// (each chart as SVG) without taking anything from the account's daily
// renders, while render_chart still does.
func TestSiteThumbnailsDoNotCountRenders(t *testing.T) {
	in := startAll(t)
	c := newBrowserClient(t, in.url)
	csrf := c.signUp("thumbs@example.com")
	for i, typ := range []string{"bar", "pie", "line"} {
		p := c.api("POST", "/charts", fmt.Sprintf(`{"type":%q,"name":"Thumb %d","data":"k,v\na,%d\nb,2\nc,3\n"}`, typ, i, i+1), csrf)
		if p.status != http.StatusCreated {
			t.Fatalf("create %s: %d %s", typ, p.status, p.body)
		}
	}
	left := c.rendersLeft()

	list := c.get("/charts")
	srcs := thumbSrc.FindAllStringSubmatch(list.body, -1)
	if list.status != http.StatusOK || len(srcs) != 3 {
		t.Fatalf("chart list: %d, %d thumbnails:\n%.2000s", list.status, len(srcs), list.body)
	}
	for _, m := range srcs {
		p := c.get(m[1])
		if p.status != http.StatusOK || p.header.Get("Content-Type") != "image/svg+xml" || !strings.HasPrefix(p.body, "<svg") ||
			!strings.Contains(p.header.Get("Cache-Control"), "private") || !strings.Contains(p.header.Get("Content-Security-Policy"), "sandbox") {
			t.Fatalf("thumbnail %s: %d %v %.200s", m[1], p.status, p.header, p.body)
		}
		if !strings.Contains(p.body, `width="480"`) {
			t.Errorf("thumbnail %s is not drawn at the thumbnail width: %.200s", m[1], p.body)
		}
	}
	if got := c.rendersLeft(); got != left {
		t.Fatalf("opening the chart list took %d renders (renders.left %d → %d)", left-got, left, got)
	}

	// In a real browser: sign in to the same account, which opens the list.
	ctx := newBrowser(t)
	do(t, ctx, "sign in and open the chart list",
		chromedp.Navigate(in.url+"/signin?next=/charts"),
		chromedp.SetValue(chromedp.ID("email"), "thumbs@example.com"),
		chromedp.SetValue(chromedp.ID("password"), "a long enough password"),
		chromedp.Submit(chromedp.ID("password")),
		chromedp.WaitVisible(chromedp.CSS("ul.grid")),
	)
	poll(t, ctx, "every thumbnail drawn", `document.querySelectorAll(".card img").length === 3 && [...document.querySelectorAll(".card img")].every(i => i.complete && i.naturalWidth > 0)`)
	if got := c.rendersLeft(); got != left {
		t.Fatalf("opening the chart list in a browser took %d renders (renders.left %d → %d)", left-got, left, got)
	}

	// render_chart still counts, so the check above could have failed.
	id := strings.TrimSuffix(strings.TrimPrefix(srcs[0][1], "/charts/"), "/thumbnail.svg?v="+strings.Split(srcs[0][1], "?v=")[1])
	if p := c.api("GET", "/charts/"+id+"/render.svg", "", ""); p.status != http.StatusOK {
		t.Fatalf("render.svg: %d %s", p.status, p.body)
	}
	if got := c.rendersLeft(); got != left-1 {
		t.Fatalf("render_chart took %d renders, want 1", left-got)
	}
}
