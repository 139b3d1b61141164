package main

import (
	"net/http"
	"strings"
	"testing"

	"chartd.dev/libs/apierr"
)

func TestDocs(t *testing.T) {
	in := startAll(t)
	anon := newClient(t, in.url, "")
	c := newClient(t, in.url, in.newAccount(t, "pro"))

	t.Run("every error code's docs link lands on its section", func(t *testing.T) {
		for _, code := range apierr.Codes {
			link := apierr.DocsURL(in.url+"/docs", code)
			page, frag, _ := strings.Cut(link, "#")
			resp, err := http.Get(page)
			if err != nil {
				t.Fatal(err)
			}
			var b strings.Builder
			buf := make([]byte, 64<<10)
			for {
				n, err := resp.Body.Read(buf)
				b.WriteString(string(buf[:n]))
				if err != nil {
					break
				}
			}
			resp.Body.Close()
			if resp.StatusCode != 200 || !strings.HasPrefix(resp.Header.Get("Content-Type"), "text/html") {
				t.Fatalf("%s: %d %s", page, resp.StatusCode, resp.Header.Get("Content-Type"))
			}
			if frag != string(code) || !strings.Contains(b.String(), `id="`+frag+`"`) {
				t.Errorf("%s: no section with id %q", link, frag)
			}
		}
	})

	t.Run("site", func(t *testing.T) {
		if a := anon.do("GET", "/docs/", nil); a.status != 200 || !strings.Contains(string(a.body), "limits") {
			t.Fatalf("index: %d", a.status)
		}
		if a := anon.do("GET", "/docs/authentication/", nil); a.status != 200 || !strings.Contains(string(a.body), "Bearer") || strings.Contains(string(a.body), "{base_url}") {
			t.Fatalf("authentication page: %d", a.status)
		}
		if a := anon.do("GET", "/docs/no-such-page/", nil); a.status != 404 || a.errCode(t) != "not_found" {
			t.Fatalf("unknown page: %d %s", a.status, a.body)
		}
		noRedirect := &http.Client{CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}
		resp, err := noRedirect.Get(in.url + "/docs/limits")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 301 || resp.Header.Get("Location") != "/docs/limits/" {
			t.Fatalf("redirect: %d %s", resp.StatusCode, resp.Header.Get("Location"))
		}
	})

	t.Run("lookup_docs", func(t *testing.T) {
		for _, tc := range []struct{ q, want string }{
			{"invalid_request", "invalid_request"},
			{"topN", "topN"},
			{"rate limit", "rate"},
		} {
			var r struct {
				Results []struct{ Title, Text string }
			}
			a := c.do("GET", "/api/v1/docs/search?q="+strings.ReplaceAll(tc.q, " ", "+"), nil)
			a.json(t, &r)
			if a.status != 200 || len(r.Results) == 0 || !strings.Contains(strings.ToLower(r.Results[0].Title+" "+r.Results[0].Text), strings.ToLower(tc.want)) {
				t.Fatalf("%q: %s", tc.q, a.body)
			}
		}
		for _, bad := range []string{"", "?q=", "?q=%20", "?query=x"} {
			if a := c.do("GET", "/api/v1/docs/search"+bad, nil); a.status != 400 || a.errCode(t) != "invalid_request" {
				t.Fatalf("%q: %d %s", bad, a.status, a.body)
			}
		}
	})
}
