package main

// Black-box tests of responsive embeds (issue 35): create_embed, the
// embed page and its picture at a width, oEmbed, the ETag and 304, and the
// one 404 of every refused embed.

import (
	"bytes"
	"compress/gzip"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"net/http/httptrace"
	"net/url"
	"regexp"
	"slices"
	"strings"
	"testing"
	"time"

	"chartd.dev/libs/imagelink"
)

// embedAnswer is a create_embed answer.
type embedAnswer struct {
	URL       string `json:"url"`
	HTML      string `json:"html"`
	OEmbedURL string `json:"oembed_url"`
}

// createEmbed calls create_embed and checks the answer's shape.
func createEmbed(t *testing.T, c *client, id string, body any) embedAnswer {
	t.Helper()
	a := c.do("POST", "/api/v1/charts/"+id+"/embed", body)
	if a.status != http.StatusOK {
		t.Fatalf("create_embed %v: %d %.400s", body, a.status, a.body)
	}
	var raw map[string]json.RawMessage
	a.json(t, &raw)
	if len(raw) != 3 {
		t.Errorf("create_embed answers %d members, want url, html and oembed_url: %s", len(raw), a.body)
	}
	var e embedAnswer
	a.json(t, &e)
	return e
}

// embedRefusal fails unless a is the embeds' one 404.
func embedRefusal(t *testing.T, what string, a answer) {
	t.Helper()
	if msg, ok := linkRefusal(t, what, a); ok && msg != imagelink.EmbedRefused {
		t.Errorf("%s: refused with %q, want the one message %q", what, msg, imagelink.EmbedRefused)
	}
}

var svgWidthRE = regexp.MustCompile(`^<svg[^>]* width="(\d+)"`)

// TestEmbeds: create_embed signs a page that any site may frame, cached
// for at most 60 s with an ETag from the chart's version; its picture is
// drawn at the frame's width with its marks; oEmbed answers for it and
// for nothing else; every refusal is the one 404, and a width out of
// range is a 400.
func TestEmbeds(t *testing.T) {
	in := startAll(t)
	alice := newBrowserClient(t, in.url)
	csrf := alice.signUp("embedder@example.com")
	p := alice.post("/account/keys", url.Values{"csrf": {csrf}, "name": {"laptop"}})
	key := newKeyRE.FindString(p.body)
	if p.status != http.StatusOK || key == "" {
		t.Fatalf("create a key on the account page: %d %.400s", p.status, p.body)
	}
	c := newClient(t, in.url, key)
	ch, _ := createChart(t, c, map[string]any{"type": "bar", "data": salesCSV})
	other, _ := createChart(t, c, map[string]any{"type": "bar", "data": salesCSV})
	web := newLinkClient(t, "")

	e := createEmbed(t, c, ch.ID, map[string]any{})
	auto := createEmbed(t, c, ch.ID, map[string]any{"theme": "auto"})
	svgOf := func(page string, w string) string {
		u, q, _ := strings.Cut(page, "?")
		return u + ".svg?" + q + "&w=" + w
	}

	t.Run("create_embed", func(t *testing.T) {
		if !strings.HasPrefix(e.URL, in.url+"/embed/"+ch.ID+"?kid=") || paramOf(t, e.URL, "sig") == "" {
			t.Errorf("url %q", e.URL)
		}
		if paramOf(t, auto.URL, "theme") != "auto" {
			t.Errorf("an auto embed's url %q does not carry its theme", auto.URL)
		}
		for _, want := range []string{`<iframe src="` + html.EscapeString(e.URL) + `"`, `data-chartd-embed="` + ch.ID + `"`, `title="`, `<script async src="` + in.url + `/embed.js"></script>`} {
			if !strings.Contains(e.HTML, want) {
				t.Errorf("html lacks %s: %s", want, e.HTML)
			}
		}
		if want := in.url + "/oembed?url=" + url.QueryEscape(e.URL) + "&format=json"; e.OEmbedURL != want {
			t.Errorf("oembed_url %q, want %q", e.OEmbedURL, want)
		}
		for _, tc := range []struct {
			name   string
			id     string
			body   any
			status int
		}{
			{"an unknown field", ch.ID, map[string]any{"colour": "red"}, 400},
			{"an unknown theme", ch.ID, map[string]any{"theme": "blue"}, 400},
			{"no such chart", missingChartID, map[string]any{}, 404},
		} {
			if a := c.do("POST", "/api/v1/charts/"+tc.id+"/embed", tc.body); a.status != tc.status {
				t.Errorf("%s: %d, want %d: %.300s", tc.name, a.status, tc.status, a.body)
			}
		}
		if a := c.do("GET", "/embed.js", nil); a.status != 200 || !strings.Contains(a.header.Get("Content-Type"), "javascript") || !strings.Contains(string(a.body), "chartd-height") {
			t.Errorf("/embed.js: %d %q %.200s", a.status, a.header.Get("Content-Type"), a.body)
		}
	})

	t.Run("the page", func(t *testing.T) {
		a := web.open(t, e.URL)
		if a.status != 200 || !strings.HasPrefix(a.header.Get("Content-Type"), "text/html") {
			t.Fatalf("page: %d %q %.300s", a.status, a.header.Get("Content-Type"), a.body)
		}
		csp := a.header.Get("Content-Security-Policy")
		for _, want := range []string{"frame-ancestors *", "script-src 'self'", "connect-src 'self'", "default-src 'none'"} {
			if !strings.Contains(csp, want) {
				t.Errorf("CSP %q lacks %s", csp, want)
			}
		}
		if xfo := a.header.Get("X-Frame-Options"); xfo != "" {
			t.Errorf("X-Frame-Options %q: the page is for framing", xfo)
		}
		if n, ok := maxAge(a); !ok || n > 60 || !strings.Contains(a.header.Get("Cache-Control"), "public") {
			t.Errorf("Cache-Control %q, want public with max-age at most 60", a.header.Get("Cache-Control"))
		}
		body := string(a.body)
		for _, want := range []string{
			`<link rel="alternate" type="application/json+oembed" href="` + html.EscapeString(e.OEmbedURL) + `"`,
			`<script src="` + in.url + `/static/embed-frame.js" defer></script>`,
			`<th scope="row">Germany</th><td>120</td>`, `<th scope="col">Sales</th>`,
			`aria-live="polite"`, `<noscript><img`,
		} {
			if !strings.Contains(body, want) {
				t.Errorf("the page lacks %s", want)
			}
		}
		if strings.Contains(body, "<script>") || strings.Contains(body, " on") && regexp.MustCompile(`\son[a-z]+=`).MatchString(body) {
			t.Error("the page has inline script")
		}
		for _, m := range regexp.MustCompile(`(?:src|href)="(https?://[^"]+)"`).FindAllStringSubmatch(body, -1) {
			if !strings.HasPrefix(html.UnescapeString(m[1]), in.url+"/") {
				t.Errorf("the page loads %s from another host", m[1])
			}
		}
		png := html.UnescapeString(regexp.MustCompile(`<noscript><img class="fallback" src="([^"]+)"`).FindStringSubmatch(body)[1])
		expectImage(t, "the no-script picture", web.open(t, png), "png")
		for _, path := range []string{"/static/embed-frame.js", "/static/embed.css"} {
			if a := web.open(t, in.url+path); a.status != 200 {
				t.Errorf("%s: %d", path, a.status)
			}
		}
	})

	t.Run("a 30-bar chart's page is under 30 KB gzipped before its SVG", func(t *testing.T) {
		var csv strings.Builder
		csv.WriteString("Country,Sales\n")
		for i := range 30 {
			fmt.Fprintf(&csv, "Country number %d,%d\n", i, 100+i*37)
		}
		bars, _ := createChart(t, c, map[string]any{"type": "bar", "data": csv.String()})
		page := createEmbed(t, c, bars.ID, map[string]any{})
		total := 0
		for _, u := range []string{page.URL, in.url + "/static/embed-frame.js", in.url + "/static/embed.css"} {
			a := web.open(t, u)
			if a.status != 200 {
				t.Fatalf("%s: %d", u, a.status)
			}
			var z bytes.Buffer
			gz := gzip.NewWriter(&z)
			gz.Write(a.body)
			gz.Close()
			total += z.Len()
		}
		if total > 30_000 {
			t.Errorf("the page, its script and its stylesheet are %d bytes gzipped, over 30 KB", total)
		}
		t.Logf("a 30-bar chart's embed page, script and stylesheet: %d bytes gzipped", total)
	})

	t.Run("the picture at a width", func(t *testing.T) {
		for _, tc := range []struct{ w, drawn string }{{"320", "320"}, {"333", "320"}, {"640", "640"}, {"1200", "1200"}, {"200", "200"}, {"2400", "2400"}} {
			a := web.open(t, svgOf(e.URL, tc.w))
			expectImage(t, "the picture at "+tc.w, a, "svg")
			if m := svgWidthRE.FindSubmatch(a.body); m == nil || string(m[1]) != tc.drawn {
				t.Errorf("w=%s: drawn %q px wide, want %s", tc.w, m, tc.drawn)
			}
			if !strings.Contains(string(a.body), `marks">[[`) {
				t.Errorf("w=%s: the picture lists no marks", tc.w)
			}
			if n, ok := maxAge(a); !ok || n > 60 {
				t.Errorf("w=%s: Cache-Control %q", tc.w, a.header.Get("Cache-Control"))
			}
		}
	})

	t.Run("counted like an image link's picture", func(t *testing.T) {
		left := func() int {
			var rec struct {
				ImageRenders struct{ Left int } `json:"image_renders"`
			}
			c.do("GET", "/api/v1/account", nil).json(t, &rec)
			return rec.ImageRenders.Left
		}
		before := left()
		for _, w := range []string{"880", "880", "895", "900"} {
			expectImage(t, "the picture at "+w, web.open(t, svgOf(e.URL, w)), "svg")
		}
		if used := before - left(); used != 2 {
			t.Errorf("widths 880, 880, 895 (drawn at 880) and 900 took %d pictures of the month, want 2", used)
		}
		if web.open(t, e.URL).status != 200 || before-left() != 2 {
			t.Errorf("the page itself took a picture of the month")
		}
	})

	t.Run("w out of range is a 4xx", func(t *testing.T) {
		for _, w := range []string{"199", "100", "2401", "99999999", "0", "-5", "abc", "320.5", ""} {
			a := web.open(t, svgOf(e.URL, w))
			if a.status < 400 || a.status > 499 {
				t.Errorf("w=%q: %d, want a 4xx: %.200s", w, a.status, a.body)
			}
		}
		u, q, _ := strings.Cut(e.URL, "?")
		if a := web.open(t, u+".svg?"+q); a.status != 400 {
			t.Errorf("no w: %d, want 400", a.status)
		}
	})

	t.Run("ETag and 304", func(t *testing.T) {
		a := web.open(t, e.URL)
		etag := a.header.Get("ETag")
		if etag == "" {
			t.Fatal("the page has no ETag")
		}
		if b := web.open(t, e.URL, "If-None-Match", etag); b.status != 304 || len(b.body) != 0 {
			t.Errorf("If-None-Match %s: %d with %d bytes, want 304 and none", etag, b.status, len(b.body))
		}
		pic := web.open(t, svgOf(e.URL, "640"))
		if b := web.open(t, svgOf(e.URL, "640"), "If-None-Match", pic.header.Get("ETag")); b.status != 304 {
			t.Errorf("the picture with its ETag: %d, want 304", b.status)
		}
		if auto := web.open(t, auto.URL); auto.header.Get("ETag") == etag {
			t.Error("an auto embed's page has the light one's ETag")
		}
		applyOps(t, c, ch.ID, setTitleOp("Sales by country, edited"))
		b := web.open(t, e.URL, "If-None-Match", etag)
		if b.status != 200 || b.header.Get("ETag") == etag || !strings.Contains(string(b.body), "Sales by country, edited") {
			t.Errorf("after an edit, the old ETag: %d, ETag %q, want 200 with the edit and a new ETag", b.status, b.header.Get("ETag"))
		}
		if b := web.open(t, svgOf(e.URL, "640"), "If-None-Match", pic.header.Get("ETag")); b.status != 200 || !strings.Contains(string(b.body), "Sales by country, edited") {
			t.Errorf("the picture after an edit with the old ETag: %d, want 200 with the edit", b.status)
		}
	})

	t.Run("oEmbed", func(t *testing.T) {
		a := web.open(t, e.OEmbedURL)
		if a.status != 200 || !strings.HasPrefix(a.header.Get("Content-Type"), "application/json") {
			t.Fatalf("oEmbed: %d %q %.300s", a.status, a.header.Get("Content-Type"), a.body)
		}
		var o struct {
			Version, Type, HTML, Title string
			Width, Height              int
			ProviderName               string `json:"provider_name"`
		}
		a.json(t, &o)
		if o.Version != "1.0" || o.Type != "rich" || o.ProviderName != "chartd" || o.Title == "" || o.Width <= 0 || o.Height <= 0 ||
			!strings.Contains(o.HTML, `<iframe src="`+html.EscapeString(e.URL)+`"`) {
			t.Errorf("oEmbed answer %s", a.body)
		}
		narrow := web.open(t, in.url+"/oembed?url="+url.QueryEscape(e.URL)+"&maxwidth=400&format=json")
		var n struct{ Width, Height int }
		narrow.json(t, &n)
		if n.Width != 400 || n.Height <= 0 {
			t.Errorf("maxwidth 400: %s", narrow.body)
		}
		forged := editQuery(t, e.URL, setParam("sig", flipChar(paramOf(t, e.URL, "sig"), 3)))
		img := createLink(t, c, map[string]any{"id": ch.ID, "format": "svg"}).URL
		for _, tc := range []struct{ name, url string }{
			{"the editor's url", in.url + "/charts/" + ch.ID},
			{"a forged embed", forged},
			{"an embed of another chart", strings.Replace(e.URL, ch.ID, other.ID, 1)},
			{"an image link", img},
			{"the embed's picture", svgOf(e.URL, "640")},
			{"another site", strings.Replace(e.URL, in.url, "http://elsewhere.example", 1)},
		} {
			embedRefusal(t, "oEmbed of "+tc.name, web.open(t, in.url+"/oembed?url="+url.QueryEscape(tc.url)+"&format=json"))
		}
		if a := web.open(t, in.url+"/oembed?url="+url.QueryEscape(e.URL)+"&format=xml"); a.status < 400 || a.status > 499 {
			t.Errorf("format xml: %d, want a 4xx", a.status)
		}
	})

	t.Run("forged and revoked embeds are the one 404", func(t *testing.T) {
		sig := paramOf(t, e.URL, "sig")
		cases := map[string]string{
			"a flipped signature":       editQuery(t, e.URL, setParam("sig", flipChar(sig, 5))),
			"a changed theme":           editQuery(t, auto.URL, setParam("theme", "dark")),
			"a theme added":             editQuery(t, e.URL, addParam("theme", "dark")),
			"another chart":             strings.Replace(e.URL, ch.ID, other.ID, 1),
			"an unknown parameter":      editQuery(t, e.URL, addParam("x", "1")),
			"no signature":              editQuery(t, e.URL, dropParam("sig")),
			"the picture, forged":       svgOf(editQuery(t, e.URL, setParam("sig", flipChar(sig, 5))), "640"),
			"an upper-case id":          strings.Replace(e.URL, ch.ID, strings.ToUpper(ch.ID), 1),
			"a path under the embeds":   in.url + "/embed/",
			"a deeper path":             in.url + "/embed/" + ch.ID + "/x",
			"an image link's signature": in.url + "/embed/" + ch.ID + "?" + strings.SplitN(createLink(t, c, map[string]any{"id": ch.ID, "format": "svg"}).URL, "?", 2)[1],
		}
		for name, u := range cases {
			embedRefusal(t, name, web.open(t, u))
		}
		if p := alice.post("/account/signing-keys/rotate", url.Values{"csrf": {csrf}}); p.status != http.StatusOK {
			t.Fatalf("rotate on the account page: %d %.300s", p.status, p.body)
		}
		embedRefusal(t, "the page after rotation", web.open(t, e.URL))
		embedRefusal(t, "the picture after rotation", web.open(t, svgOf(e.URL, "640")))
		embedRefusal(t, "oEmbed after rotation", web.open(t, e.OEmbedURL))
		fresh := createEmbed(t, c, ch.ID, map[string]any{})
		if a := web.open(t, fresh.URL); a.status != 200 {
			t.Errorf("an embed made after rotation: %d", a.status)
		}
	})
}

// TestEmbedPageSpeed logs the embed page's time to first byte (p50 and
// p90 over 200 loads, and of 304 answers; the goal is a p50 of 5 ms or
// less on a quiet machine) and its picture's, the server's part of a
// resize redraw. It bounds nothing, as the machine may be busy.
func TestEmbedPageSpeed(t *testing.T) {
	in := startAll(t)
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	ch, _ := createChart(t, c, map[string]any{"type": "bar", "data": salesCSV})
	e := createEmbed(t, c, ch.ID, map[string]any{})
	hc := &http.Client{Transport: &http.Transport{}}
	t.Cleanup(hc.CloseIdleConnections)
	ttfb := func(u string, hdr ...string) time.Duration {
		req, err := http.NewRequest("GET", u, nil)
		if err != nil {
			t.Fatal(err)
		}
		for i := 0; i+1 < len(hdr); i += 2 {
			req.Header.Set(hdr[i], hdr[i+1])
		}
		var start time.Time
		var first time.Duration
		req = req.WithContext(httptrace.WithClientTrace(req.Context(), &httptrace.ClientTrace{
			WroteRequest:         func(httptrace.WroteRequestInfo) { start = time.Now() },
			GotFirstResponseByte: func() { first = time.Since(start) },
		}))
		resp, err := hc.Do(req)
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		if resp.StatusCode != 200 && resp.StatusCode != 304 {
			t.Fatalf("page: %d", resp.StatusCode)
		}
		return first
	}
	quantiles := func(u string, hdr ...string) (time.Duration, time.Duration) {
		ttfb(u, hdr...) // warm the caches and the connection
		var d []time.Duration
		for range 200 {
			d = append(d, ttfb(u, hdr...))
		}
		slices.Sort(d)
		return d[len(d)/2], d[len(d)*9/10]
	}
	p50, p90 := quantiles(e.URL)
	t.Logf("embed page TTFB: p50 %s, p90 %s (goal: p50 ≤ 5 ms on a quiet machine)", p50, p90)
	resp, err := hc.Get(e.URL)
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	n50, n90 := quantiles(e.URL, "If-None-Match", resp.Header.Get("ETag"))
	t.Logf("embed page 304 TTFB: p50 %s, p90 %s", n50, n90)
	page, q, _ := strings.Cut(e.URL, "?")
	s50, s90 := quantiles(page + ".svg?" + q + "&w=640")
	t.Logf("embed picture at 640 px (drawn, counted once, fonts embedded) TTFB: p50 %s, p90 %s", s50, s90)
}
