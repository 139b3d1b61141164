package main

import (
	"context"
	"net/http"
	"net/http/httptest"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/chromedp/chromedp"

	"chartd.dev/libs/people"
)

// TestSignInNextStaysOnSite signs in with next values that a browser reads
// as another host once it drops TAB, CR or LF, and has Chromium follow the
// Location the sign-in answers: it must land on the site, never on the
// other server. (The sign-in form's CSP form-action already stops Chromium
// from following a cross-origin redirect of the form post itself, so the
// browser follows the Location as a navigation, as browsers without that
// rule do.)
func TestSignInNextStaysOnSite(t *testing.T) {
	in := startAll(t)
	evil := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		w.Write([]byte("<title>evil</title>phished"))
	}))
	t.Cleanup(evil.Close)
	evilHost := strings.TrimPrefix(evil.URL, "http://")
	newBrowserClient(t, in.url).signUp("tab@example.com")
	site, _ := url.Parse(in.url)

	ctx := newBrowser(t)
	for _, next := range []string{"/\t/" + evilHost + "/", "/\n/" + evilHost + "/", "/\r\n/" + evilHost + "/", "/\t\\" + evilHost + "/",
		"\t//" + evilHost + "/", "/ /" + evilHost + "/"} {
		t.Run(url.QueryEscape(next), func(t *testing.T) {
			c := newBrowserClient(t, in.url)
			form := c.get("/signin?next=" + url.QueryEscape(next))
			// The transport itself, which leaves the Location unparsed.
			req, _ := http.NewRequest(http.MethodPost, in.url+"/signin", strings.NewReader(url.Values{"csrf": {csrfOf(t, form)},
				"email": {"tab@example.com"}, "password": {"a long enough password"}, "next": {next}}.Encode()))
			req.Header.Set("Content-Type", "application/x-www-form-urlencoded")
			req.Header.Set("Origin", in.url)
			for _, ck := range c.http.Jar.Cookies(site) {
				req.AddCookie(ck)
			}
			resp, err := http.DefaultTransport.RoundTrip(req)
			if err != nil {
				t.Fatal(err)
			}
			resp.Body.Close()
			loc := resp.Header.Get("Location")
			if resp.StatusCode != http.StatusSeeOther || loc == "" {
				t.Fatalf("sign-in: %d, Location %q", resp.StatusCode, loc)
			}
			start := in.url + "/signup"
			do(t, ctx, "open the site", chromedp.Navigate(start))
			do(t, ctx, "follow the Location "+strconv.Quote(loc), chromedp.Evaluate[chromedp.Void](`location.assign(`+strconv.Quote(loc)+`)`))
			waitNavigated(t, ctx, `document.readyState === "complete" && location.href !== `+strconv.Quote(start))
			if host := eval[string](t, ctx, `location.host`); host != site.Host {
				t.Fatalf("sign-in with next=%q answered Location %q, which led Chromium to %s (%s)", next, loc, eval[string](t, ctx, `location.href`), eval[string](t, ctx, `document.title`))
			}
		})
	}
}

// waitNavigated waits for cond across navigations: a poll begun in the
// page being left loses its context or target and is begun again.
func waitNavigated(t *testing.T, ctx context.Context, cond string) {
	t.Helper()
	deadline := time.Now().Add(30 * time.Second)
	for {
		_, err := chromedp.Run(ctx, chromedp.Poll[bool](cond, chromedp.WithPollingTimeout(time.Until(deadline))))
		if err == nil {
			return
		}
		if (!strings.Contains(err.Error(), "Cannot find context") && !strings.Contains(err.Error(), "Inspected target navigated")) || time.Now().After(deadline) {
			t.Fatalf("waiting for %s: %v", cond, err)
		}
	}
}

// TestPreCookieIssuedByServer signs in with a pre-session cookie and form
// token the client chose itself (as a page on a sibling domain that can
// set cookies would, to sign the browser in to its own account): refused.
// The site's own cookie and token still work.
func TestPreCookieIssuedByServer(t *testing.T) {
	in := startAll(t)
	newBrowserClient(t, in.url).signUp("pre@example.com")
	site, _ := url.Parse(in.url)

	chosen := strings.Repeat("A", 43)
	c := newBrowserClient(t, in.url)
	c.http.Jar.SetCookies(site, []*http.Cookie{{Name: "chartd_pre", Value: chosen, Path: "/"}})
	p := c.post("/signin", url.Values{"csrf": {people.CSRFToken(chosen)}, "email": {"pre@example.com"}, "password": {"a long enough password"}})
	if p.status != http.StatusForbidden || sessionCookie(p.header) != nil || strings.HasSuffix(p.url, "/charts") {
		t.Fatalf("sign-in with a client-chosen pre-session cookie: %d at %s", p.status, p.url)
	}

	// The form replaces the chosen cookie with one the site issued.
	form := c.get("/signin")
	p = c.post("/signin", url.Values{"csrf": {csrfOf(t, form)}, "email": {"pre@example.com"}, "password": {"a long enough password"}})
	if p.status != http.StatusOK || !strings.HasSuffix(p.url, "/charts") {
		t.Fatalf("sign-in with the site's form: %d at %s", p.status, p.url)
	}
}

// TestPreSessionLoginCSRF plants a pre-session cookie taken from the site,
// with its form token, in another browser (login CSRF: the victim would
// work in the attacker's account). Every pre-session form refuses the
// post when the browser names no page of the site: no Origin and no
// Referer, a foreign Origin, Origin "null", or, without Origin, a foreign
// Referer. The same cookie and token pass with the site's Origin, or with
// no Origin and a Referer on the site.
func TestPreSessionLoginCSRF(t *testing.T) {
	in := startAll(t)
	newBrowserClient(t, in.url).signUp("attacker@example.com")
	site, _ := url.Parse(in.url)

	// The attacker's own visit: a cookie the site issued and its token.
	attacker := newBrowserClient(t, in.url)
	token := csrfOf(t, attacker.get("/signin"))
	var planted *http.Cookie
	for _, ck := range attacker.http.Jar.Cookies(site) {
		if ck.Name == "chartd_pre" {
			planted = ck
		}
	}
	if planted == nil {
		t.Fatal("the sign-in form set no chartd_pre cookie")
	}
	victim := func() *browserClient {
		c := newBrowserClient(t, in.url)
		c.http.Jar.SetCookies(site, []*http.Cookie{{Name: planted.Name, Value: planted.Value, Path: "/"}})
		return c
	}
	signedIn := func(c *browserClient) bool {
		for _, ck := range c.http.Jar.Cookies(site) {
			if ck.Name == people.CookieName {
				return true
			}
		}
		return false
	}
	creds := url.Values{"csrf": {token}, "email": {"attacker@example.com"}, "password": {"a long enough password"}}
	forms := []struct {
		path string
		form url.Values
	}{
		{"/signin", creds},
		{"/signup", url.Values{"csrf": {token}, "email": {"attacker@example.com"}, "password": {"a long enough password"}}},
		{"/signup/confirm", url.Values{"csrf": {token}, "token": {strings.Repeat("A", 43)}}},
		{"/signin/link", url.Values{"csrf": {token}, "token": {strings.Repeat("A", 43)}}},
	}
	for _, tt := range []struct {
		name string
		hdr  []string
	}{
		{"no Origin and no Referer", []string{"Origin", ""}},
		{"a foreign Origin", []string{"Origin", "http://evil.example", "Referer", in.url + "/signin"}},
		{"Origin null", []string{"Origin", "null"}},
		{"no Origin and a foreign Referer", []string{"Origin", "", "Referer", "http://evil.example/login.html"}},
		{"no Origin and a look-alike Referer", []string{"Origin", "", "Referer", "http://" + site.Host + ".evil.example/signin"}},
	} {
		for _, f := range forms {
			t.Run(tt.name+" "+f.path, func(t *testing.T) {
				c := victim()
				p := c.post(f.path, f.form, tt.hdr...)
				if p.status != http.StatusForbidden || !strings.Contains(p.body, "not sent from a page of this site") || signedIn(c) {
					t.Fatalf("POST %s with a planted pre-session cookie and its token, %s: %d at %s (signed in: %v):\n%.300s", f.path, tt.name, p.status, p.url, signedIn(c), p.body)
				}
			})
		}
	}

	// The cookie and token are good: the site's own pages pass.
	for _, tt := range []struct {
		name string
		hdr  []string
	}{
		{"the site's Origin", []string{"Origin", in.url}},
		{"no Origin and the site's Referer", []string{"Origin", "", "Referer", in.url + "/signin?next=%2Fcharts"}},
	} {
		c := victim()
		if p := c.post("/signin", creds, tt.hdr...); p.status != http.StatusOK || !strings.HasSuffix(p.url, "/charts") || !signedIn(c) {
			t.Fatalf("sign-in with %s: %d at %s (signed in: %v)", tt.name, p.status, p.url, signedIn(c))
		}
	}
}
