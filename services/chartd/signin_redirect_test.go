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
