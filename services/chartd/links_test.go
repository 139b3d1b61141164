package main

// Black-box tests of signed public image links (issue 10): create_image_url
// (POST /api/v1/image-urls) and the public GET /img/<chart_id>.<format>
// route it hands out, in one process and split into processes with two
// render replicas.

import (
	"context"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net/http"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"chartd.dev/libs/imagelink"
	"chartd.dev/libs/quota"
	"chartd.dev/libs/secrets"
	"chartd.dev/libs/signing"
)

// linkDataCSV is the data of data links on a salesCSV chart: the chart's
// columns by name, in another order.
const linkDataCSV = "Profit,Sales,Country\n1,300,Peru\n2,200,Chad\n"

// missingChartID is a well-formed chart id that no account holds.
const missingChartID = "0f0e0d0c-0b0a-4000-8000-000000000000"

func setTitleOp(text string) map[string]any {
	return map[string]any{"op": "setTitle", "title": map[string]any{"text": text}}
}

// imageURL is a create_image_url answer.
type imageURL struct {
	URL       string   `json:"url"`
	ExpiresAt *string  `json:"expires_at"`
	Chart     chartRec `json:"chart"`
}

// createLink calls create_image_url and checks the answer's shape.
func createLink(t *testing.T, c *client, body map[string]any) imageURL {
	t.Helper()
	a := c.do("POST", "/api/v1/image-urls", body)
	if a.status != 200 && a.status != 201 {
		t.Fatalf("create_image_url %v: answer %d, want 200 or 201: %.400s", body, a.status, a.body)
	}
	var raw map[string]json.RawMessage
	a.json(t, &raw)
	for _, k := range []string{"url", "expires_at", "chart"} {
		if _, ok := raw[k]; !ok {
			t.Fatalf("create_image_url answer lacks %q: %s", k, a.body)
		}
	}
	var out imageURL
	a.json(t, &out)
	if out.URL == "" || out.Chart.ID != body["id"] {
		t.Fatalf("create_image_url answer: url %q, chart.id %q (want %v): %s", out.URL, out.Chart.ID, body["id"], a.body)
	}
	return out
}

// applyOps edits a chart and fails unless the edit is saved.
func applyOps(t *testing.T, c *client, id string, ops ...any) {
	t.Helper()
	if a := c.do("POST", "/api/v1/charts/"+id+"/ops", map[string]any{"ops": ops}); a.status != 200 {
		t.Fatalf("apply_ops: %d %s", a.status, a.body)
	}
}

// setData replaces a chart's data and fails unless it is saved.
func setData(t *testing.T, c *client, id, data string) {
	t.Helper()
	if a := c.do("PUT", "/api/v1/charts/"+id+"/data", map[string]any{"data": data}); a.status != 200 {
		t.Fatalf("set_data: %d %s", a.status, a.body)
	}
}

// linkClient opens public image links as a browser's <img> does: no API
// key, and no OpenAPI check (/img lives outside the API's base URL).
type linkClient struct {
	http *http.Client
	// via is the host:port requests are sent to instead of the link's own,
	// the Host header staying the link's: what an ingress routing /img
	// straight to a render replica does. Empty: the link's own address.
	via string
}

func newLinkClient(t *testing.T, via string) linkClient {
	t.Helper()
	hc := &http.Client{
		Transport:     &http.Transport{},
		Timeout:       60 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	t.Cleanup(hc.CloseIdleConnections)
	return linkClient{http: hc, via: via}
}

// open GETs link with the header pairs in hdr ("Host" sets the Host
// header). Rate-limit headers must be on every answer, refusals included.
func (lc linkClient) open(t *testing.T, link string, hdr ...string) answer {
	t.Helper()
	req, err := http.NewRequest("GET", link, nil)
	if err != nil {
		t.Fatalf("link %q: %v", link, err)
	}
	if lc.via != "" {
		req.URL.Host = lc.via // req.Host stays the link's host
	}
	for i := 0; i+1 < len(hdr); i += 2 {
		if strings.EqualFold(hdr[i], "Host") {
			req.Host = hdr[i+1]
			continue
		}
		req.Header.Set(hdr[i], hdr[i+1])
	}
	if req.Header.Get("Authorization") != "" {
		t.Fatal("public links are opened without a key")
	}
	resp, err := lc.http.Do(req)
	if err != nil {
		t.Fatalf("GET %s (via %q): %v", link, lc.via, err)
	}
	defer resp.Body.Close()
	body, _ := io.ReadAll(resp.Body)
	a := answer{status: resp.StatusCode, header: resp.Header, body: body}
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		if resp.Header.Get(h) == "" {
			t.Errorf("GET %s: answer %d lacks %s", req.URL.Path, resp.StatusCode, h)
		}
	}
	return a
}

// expectImage fails unless a is the picture of a link: 200, the format's
// type, an ETag and a Cache-Control with a max-age.
func expectImage(t *testing.T, what string, a answer, format string) {
	t.Helper()
	want := map[string]string{"png": "image/png", "svg": "image/svg+xml"}[format]
	if a.status != 200 || a.header.Get("Content-Type") != want {
		t.Fatalf("%s: answer %d %q, want 200 %s: %.300s", what, a.status, a.header.Get("Content-Type"), want, a.body)
	}
	if a.header.Get("ETag") == "" {
		t.Errorf("%s: no ETag", what)
	}
	if _, ok := maxAge(a); !ok {
		t.Errorf("%s: Cache-Control %q has no max-age", what, a.header.Get("Cache-Control"))
	}
	if format == "png" {
		ihdr(t, a.body)
	} else {
		wellFormed(t, a.body)
	}
}

var maxAgeRE = regexp.MustCompile(`(?:^|[,\s])max-age=(\d+)`)

func maxAge(a answer) (int, bool) {
	m := maxAgeRE.FindStringSubmatch(a.header.Get("Cache-Control"))
	if m == nil {
		return 0, false
	}
	n, err := strconv.Atoi(m[1])
	return n, err == nil
}

// linkRefusal reads a refused link's answer: it must be 404 with the error
// body and code not_found. It answers the message (for comparing causes)
// and whether the answer was such a refusal, reporting with t.Errorf.
func linkRefusal(t *testing.T, what string, a answer) (string, bool) {
	t.Helper()
	var b struct {
		Error struct{ Code, Message, Docs string } `json:"error"`
	}
	if a.status != 404 {
		t.Errorf("%s: answer %d %q, want 404 not_found: %.200q", what, a.status, a.header.Get("Content-Type"), a.body)
		return "", false
	}
	if err := json.Unmarshal(a.body, &b); err != nil || b.Error.Code != "not_found" || b.Error.Message == "" || !strings.Contains(b.Error.Docs, "/docs/limits/#not_found") {
		t.Errorf("%s: 404 without the not_found error body: %.300s", what, a.body)
		return "", false
	}
	return b.Error.Message, true
}

// linkParam is one query parameter of a link, spelled as sent.
type linkParam struct{ name, value string }

func linkQuery(t *testing.T, link string) []linkParam {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatalf("link %q: %v", link, err)
	}
	var ps []linkParam
	if u.RawQuery == "" {
		return nil
	}
	for _, part := range strings.Split(u.RawQuery, "&") {
		n, v, _ := strings.Cut(part, "=")
		ps = append(ps, linkParam{n, v})
	}
	return ps
}

// paramOf answers the raw value of the link's parameter name ("" if absent).
func paramOf(t *testing.T, link, name string) string {
	t.Helper()
	for _, p := range linkQuery(t, link) {
		if p.name == name {
			return p.value
		}
	}
	return ""
}

// editQuery answers link with its query rewritten by edit, spelled raw
// (nothing re-encoded), the order kept.
func editQuery(t *testing.T, link string, edit func([]linkParam) []linkParam) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	var parts []string
	for _, p := range edit(linkQuery(t, link)) {
		parts = append(parts, p.name+"="+p.value)
	}
	u.RawQuery = strings.Join(parts, "&")
	return u.String()
}

// editPath answers link with another path, the query kept.
func editPath(t *testing.T, link, path string) string {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatal(err)
	}
	u.Path, u.RawPath = path, ""
	return u.String()
}

func setParam(name, value string) func([]linkParam) []linkParam {
	return func(ps []linkParam) []linkParam {
		out := []linkParam{}
		for _, p := range ps {
			if p.name == name {
				p.value = value
			}
			out = append(out, p)
		}
		return out
	}
}

func dropParam(name string) func([]linkParam) []linkParam {
	return func(ps []linkParam) []linkParam {
		out := []linkParam{}
		for _, p := range ps {
			if p.name != name {
				out = append(out, p)
			}
		}
		return out
	}
}

func addParam(name, value string) func([]linkParam) []linkParam {
	return func(ps []linkParam) []linkParam {
		return append(append([]linkParam{}, ps...), linkParam{name, value})
	}
}

func renameParam(from, to string) func([]linkParam) []linkParam {
	return func(ps []linkParam) []linkParam {
		out := []linkParam{}
		for _, p := range ps {
			if p.name == from {
				p.name = to
			}
			out = append(out, p)
		}
		return out
	}
}

// flipChar changes the base64url character at i to another one.
func flipChar(s string, i int) string {
	c := byte('A')
	if s[i] == 'A' {
		c = 'B'
	}
	return s[:i] + string(c) + s[i+1:]
}

// linkCSV answers CSV with the columns of a salesCSV chart, exactly n bytes
// long.
func linkCSV(n int) string {
	var b strings.Builder
	b.WriteString("Profit,Sales,Country\n")
	for i := 1; ; i++ {
		row := fmt.Sprintf("%d,%d,Country %d\n", i, 100+i, i)
		if b.Len()+len(row) > n-20 {
			break
		}
		b.WriteString(row)
	}
	b.WriteString("0,0,")
	b.WriteString(strings.Repeat("Z", n-b.Len()-1))
	b.WriteString("\n")
	return b.String()
}

// noisyCSV answers about n bytes of CSV that no compression makes short.
func noisyCSV(n int) string {
	const alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789"
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString("Profit,Sales,Country\n")
	for b.Len() < n {
		name := make([]byte, 40)
		for i := range name {
			name[i] = alphabet[r.IntN(len(alphabet))]
		}
		fmt.Fprintf(&b, "%d,%d,%s\n", r.IntN(1000), r.IntN(1000), name)
	}
	return b.String()
}

// serverKeyFile answers the file of the server key of an instance running
// in this process: -secrets-key-file, or the one -target=all makes in the
// data dir.
func serverKeyFile(in instance) string {
	if in.app.cfg.SecretsKeyFile != "" {
		return in.app.cfg.SecretsKeyFile
	}
	return filepath.Join(in.app.cfg.DataDir, secrets.DefaultKeyFile)
}

// writeKeyFile writes a fresh server key file for processes run apart.
func writeKeyFile(t *testing.T) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), "secrets.key")
	if err := os.WriteFile(p, []byte(hex.EncodeToString(secrets.GenerateKey())+"\n"), 0o600); err != nil {
		t.Fatal(err)
	}
	return p
}

// forgeLink signs l for the instance's site with the secret of the
// account's signing key kid, read from the store and opened with the server
// key — what the service itself does, so the link is genuine and only its
// fields (e.g. an expiry in the past) are the test's choice.
func forgeLink(t *testing.T, in instance, keyFile, accountID string, l imagelink.Link) string {
	t.Helper()
	box, err := secrets.LoadKeyFile(keyFile)
	if err != nil {
		t.Fatalf("forging a link needs the server key: %v", err)
	}
	st := in.open(t)
	defer st.Close()
	k, err := st.GetSigningKey(context.Background(), accountID, l.KID)
	if err != nil {
		t.Fatalf("signing key %s of account %s: %v", l.KID, accountID, err)
	}
	secret, _, err := signing.Open(box, k)
	if err != nil {
		t.Fatalf("signing key %s does not open with the server key %s: %v", l.KID, keyFile, err)
	}
	u, err := url.Parse(in.url)
	if err != nil {
		t.Fatal(err)
	}
	pq, err := imagelink.Sign(u.Host, l, secret)
	if err != nil {
		t.Fatal(err)
	}
	return in.url + pq
}

// linksScenario covers create_image_url and opening its links through the
// instance's public URL. keyFile is the server key (for signing links with
// an expiry in the past).
func linksScenario(t *testing.T, in instance, keyFile string) {
	pro := newClient(t, in.url, in.newAccount(t, "pro"))
	other := newClient(t, in.url, in.newAccount(t, "pro"))
	web := newLinkClient(t, "")
	ch, _ := createChart(t, pro, map[string]any{"type": "bar", "data": salesCSV})
	ch2, _ := createChart(t, pro, map[string]any{"type": "bar", "data": salesCSV, "ops": []any{setTitleOp("Another chart")}})
	otherCh, _ := createChart(t, other, map[string]any{"type": "bar", "data": salesCSV})

	t.Run("create_image_url answers url, expires_at null and chart", func(t *testing.T) {
		for _, tc := range []struct {
			body   map[string]any
			format string
			scale  string
		}{
			{map[string]any{"id": ch.ID}, "png", "1"},
			{map[string]any{"id": ch.ID, "format": "png", "scale": 2, "width": 500, "height": 300}, "png", "2"},
			{map[string]any{"id": ch.ID, "format": "svg"}, "svg", "1"},
		} {
			l := createLink(t, pro, tc.body)
			if prefix := in.url + "/img/" + ch.ID + "." + tc.format + "?"; !strings.HasPrefix(l.URL, prefix) {
				t.Errorf("%v: url %q, want it to start with %q", tc.body, l.URL, prefix)
			}
			if l.ExpiresAt != nil {
				t.Errorf("%v: expires_at %q, want null without expires_in", tc.body, *l.ExpiresAt)
			}
			if kid := paramOf(t, l.URL, "kid"); kid == "" {
				t.Errorf("%v: url %q has no kid", tc.body, l.URL)
			}
			if s := paramOf(t, l.URL, "scale"); s != tc.scale {
				t.Errorf("%v: url %q has scale %q, want %s", tc.body, l.URL, s, tc.scale)
			}
			if sig := paramOf(t, l.URL, "sig"); !regexp.MustCompile(`^[A-Za-z0-9_-]{43}$`).MatchString(sig) {
				t.Errorf("%v: sig %q is not 43 characters of base64url", tc.body, sig)
			}
			if exp := paramOf(t, l.URL, "exp"); exp != "" {
				t.Errorf("%v: a link without expires_in carries exp=%s", tc.body, exp)
			}
		}
	})

	t.Run("expires_in sets expires_at and the link works until then", func(t *testing.T) {
		for _, secs := range []int{60, 3600, 315_360_000} {
			before := time.Now()
			l := createLink(t, pro, map[string]any{"id": ch.ID, "expires_in": secs})
			after := time.Now()
			if l.ExpiresAt == nil {
				t.Fatalf("expires_in %d: expires_at is null", secs)
			}
			at, err := time.Parse(time.RFC3339Nano, *l.ExpiresAt)
			if err != nil {
				t.Fatalf("expires_in %d: expires_at %q is not RFC 3339: %v", secs, *l.ExpiresAt, err)
			}
			d := time.Duration(secs) * time.Second
			if at.Before(before.Add(d).Add(-2*time.Second)) || at.After(after.Add(d).Add(2*time.Second)) {
				t.Errorf("expires_in %d: expires_at %s, want about %s", secs, at, before.Add(d))
			}
			exp, err := strconv.ParseInt(paramOf(t, l.URL, "exp"), 10, 64)
			if err != nil || exp < at.Unix()-1 || exp > at.Unix()+1 {
				t.Errorf("expires_in %d: url %q: exp should be expires_at in unix seconds (%d)", secs, l.URL, at.Unix())
			}
			expectImage(t, fmt.Sprintf("link with expires_in %d", secs), web.open(t, l.URL), "png")
		}
	})

	t.Run("create_image_url refusals", func(t *testing.T) {
		for _, tc := range []struct {
			name     string
			body     map[string]any
			status   int
			code     string
			contains string
		}{
			{"unknown chart", map[string]any{"id": missingChartID}, 404, "not_found", ""},
			{"another account's chart", map[string]any{"id": otherCh.ID}, 404, "not_found", ""},
			{"expires_in 59", map[string]any{"id": ch.ID, "expires_in": 59}, 400, "invalid_request", "60"},
			{"expires_in 315360001", map[string]any{"id": ch.ID, "expires_in": 315_360_001}, 400, "invalid_request", "60"},
			{"expires_in not a number", map[string]any{"id": ch.ID, "expires_in": "soon"}, 400, "invalid_request", ""},
			{"format gif", map[string]any{"id": ch.ID, "format": "gif"}, 400, "invalid_request", ""},
			{"scale 3", map[string]any{"id": ch.ID, "scale": 3}, 400, "invalid_request", ""},
			{"width 50", map[string]any{"id": ch.ID, "width": 50}, 400, "invalid_request", ""},
			{"no id", map[string]any{"format": "png"}, 400, "invalid_request", ""},
			{"unknown field", map[string]any{"id": ch.ID, "colour": "red"}, 400, "invalid_request", "colour"},
			{"data of 3,100 characters (4,134 once encoded)", map[string]any{"id": ch.ID, "data": linkCSV(3100)}, 400, "invalid_request", ""},
			{"data of 8,000 random characters", map[string]any{"id": ch.ID, "data": noisyCSV(8000)}, 400, "invalid_request", ""},
			// Columns are matched by name as render_template does, which
			// refuses data without the chart's columns.
			{"data without the chart's columns", map[string]any{"id": ch.ID, "data": "Country,Revenue\nPeru,1\n"}, 400, "invalid_request", ""},
		} {
			a := pro.do("POST", "/api/v1/image-urls", tc.body)
			if a.status != tc.status {
				t.Errorf("%s: answer %d, want %d %s: %.300s", tc.name, a.status, tc.status, tc.code, a.body)
				continue
			}
			if code := a.errCode(t); code != tc.code || !strings.Contains(string(a.body), tc.contains) {
				t.Errorf("%s: %s, want code %s naming %q", tc.name, a.body, tc.code, tc.contains)
			}
		}
	})

	t.Run("about 3,000 characters of CSV fit in a link", func(t *testing.T) {
		// 2,900 bytes are 3,867 characters of base64url: under 4,000 when
		// the data itself is measured (not, say, its JSON string literal).
		l := createLink(t, pro, map[string]any{"id": ch.ID, "data": linkCSV(2900), "format": "svg"})
		expectImage(t, "link with 2,900 characters of data", web.open(t, l.URL), "svg")
		if d := paramOf(t, l.URL, "d"); len(d) > imagelink.MaxDataLen {
			t.Errorf("d is %d characters", len(d))
		}
	})

	t.Run("links open without a key", func(t *testing.T) {
		for _, tc := range []struct {
			name        string
			body        map[string]any
			format      string
			w, h        int
			transparent bool
		}{
			{"default", map[string]any{"id": ch.ID}, "png", 800, 600, false},
			{"scale 2 at 500×300", map[string]any{"id": ch.ID, "scale": 2, "width": 500, "height": 300}, "png", 1000, 600, false},
			{"transparent", map[string]any{"id": ch.ID, "transparent": true}, "png", 800, 600, true},
			{"svg", map[string]any{"id": ch.ID, "format": "svg"}, "svg", 0, 0, false},
		} {
			l := createLink(t, pro, tc.body)
			a := web.open(t, l.URL)
			expectImage(t, tc.name, a, tc.format)
			if n, _ := maxAge(a); n > 60 || strings.Contains(a.header.Get("Cache-Control"), "immutable") {
				t.Errorf("%s: a live link's Cache-Control %q: want max-age at most 60 and not immutable", tc.name, a.header.Get("Cache-Control"))
			}
			if tc.format != "png" {
				continue
			}
			if w, h := ihdr(t, a.body); w != tc.w || h != tc.h {
				t.Errorf("%s: %d×%d, want %d×%d", tc.name, w, h, tc.w, tc.h)
			}
			_, _, _, alpha := decodePNG(t, a.body).At(1, 1).RGBA()
			if tc.transparent != (alpha == 0) {
				t.Errorf("%s: corner alpha %d", tc.name, alpha)
			}
		}
	})

	t.Run("If-None-Match answers 304", func(t *testing.T) {
		l := createLink(t, pro, map[string]any{"id": ch.ID})
		a := web.open(t, l.URL)
		expectImage(t, "link", a, "png")
		etag := a.header.Get("ETag")
		if b := web.open(t, l.URL, "If-None-Match", etag); b.status != 304 || len(b.body) != 0 {
			t.Errorf("If-None-Match %s: answer %d with %d bytes, want 304 without a body", etag, b.status, len(b.body))
		}
		if b := web.open(t, l.URL, "If-None-Match", `"not-the-etag"`); b.status != 200 || string(b.body) != string(a.body) {
			t.Errorf("If-None-Match of another ETag: answer %d, want 200 and the picture", b.status)
		}
	})

	t.Run("a live link shows each edit at once", func(t *testing.T) {
		live, _ := createChart(t, pro, map[string]any{"type": "bar", "data": salesCSV})
		png := createLink(t, pro, map[string]any{"id": live.ID})
		svg := createLink(t, pro, map[string]any{"id": live.ID, "format": "svg"})
		a1 := web.open(t, png.URL)
		expectImage(t, "before the edit", a1, "png")
		s1 := web.open(t, svg.URL)
		expectImage(t, "svg before the edit", s1, "svg")

		applyOps(t, pro, live.ID, setTitleOp("Changed"))
		// No waiting: the server must not answer a picture it knows is old.
		a2 := web.open(t, png.URL)
		expectImage(t, "after setTitle", a2, "png")
		if string(a2.body) == string(a1.body) || a2.header.Get("ETag") == a1.header.Get("ETag") {
			t.Errorf("after setTitle the link answers the old picture (ETag %s → %s)", a1.header.Get("ETag"), a2.header.Get("ETag"))
		}
		if b := web.open(t, png.URL, "If-None-Match", a1.header.Get("ETag")); b.status != 200 || string(b.body) != string(a2.body) {
			t.Errorf("If-None-Match of the picture before the edit: answer %d, want 200 and the new picture", b.status)
		}
		s2 := web.open(t, svg.URL)
		expectImage(t, "svg after setTitle", s2, "svg")
		if !strings.Contains(string(s2.body), "Changed") || strings.Contains(string(s1.body), "Changed") {
			t.Errorf("the svg link does not show the new title")
		}

		setData(t, pro, live.ID, "Country,Sales,Profit\nNorway,10,1\nChile,20,2\n")
		a3 := web.open(t, png.URL)
		expectImage(t, "after set_data", a3, "png")
		if string(a3.body) == string(a2.body) || a3.header.Get("ETag") == a2.header.Get("ETag") {
			t.Errorf("after set_data the link answers the old picture")
		}
		if s3 := web.open(t, svg.URL); !strings.Contains(string(s3.body), "Norway") {
			t.Errorf("the svg link does not show the new data")
		}
	})

	t.Run("a data link draws its data and never changes", func(t *testing.T) {
		dch, _ := createChart(t, pro, map[string]any{"type": "bar", "data": salesCSV})
		live := createLink(t, pro, map[string]any{"id": dch.ID, "format": "svg"})
		data := createLink(t, pro, map[string]any{"id": dch.ID, "format": "svg", "data": linkDataCSV})
		tsv := createLink(t, pro, map[string]any{"id": dch.ID, "format": "svg", "data_format": "tsv",
			"data": strings.ReplaceAll(linkDataCSV, ",", "\t")})
		dataPNG := createLink(t, pro, map[string]any{"id": dch.ID, "data": linkDataCSV})
		livePNG := createLink(t, pro, map[string]any{"id": dch.ID})

		l1, d1, p1, lp1 := web.open(t, live.URL), web.open(t, data.URL), web.open(t, dataPNG.URL), web.open(t, livePNG.URL)
		expectImage(t, "live svg", l1, "svg")
		expectImage(t, "data svg", d1, "svg")
		expectImage(t, "data png", p1, "png")
		expectImage(t, "live png", lp1, "png")
		if string(d1.body) == string(l1.body) || string(p1.body) == string(lp1.body) {
			t.Fatal("the data link draws the same picture as the live link")
		}
		if !strings.Contains(string(d1.body), "Peru") || strings.Contains(string(d1.body), "Germany") {
			t.Error("the data link does not show its data")
		}
		for _, a := range []answer{d1, p1} {
			if cc := a.header.Get("Cache-Control"); !strings.Contains(cc, "immutable") {
				t.Errorf("a data link's Cache-Control %q is not immutable", cc)
			}
		}
		if tv := web.open(t, tsv.URL); tv.status != 200 || string(tv.body) != string(d1.body) {
			t.Errorf("the same data as TSV: answer %d, want the picture of the CSV link", tv.status)
		}

		// Neither new data nor a new style changes a data link's picture.
		for _, edit := range []struct {
			name string
			do   func()
		}{
			{"set_data", func() { setData(t, pro, dch.ID, "Country,Sales,Profit\nNorway,10,1\nChile,20,2\n") }},
			{"apply_ops setTitle", func() { applyOps(t, pro, dch.ID, setTitleOp("Edited")) }},
		} {
			edit.do()
			for _, tc := range []struct {
				name   string
				link   string
				before answer
				format string
			}{{"data svg", data.URL, d1, "svg"}, {"data png", dataPNG.URL, p1, "png"}} {
				a := web.open(t, tc.link)
				expectImage(t, tc.name+" after "+edit.name, a, tc.format)
				if string(a.body) != string(tc.before.body) || a.header.Get("ETag") != tc.before.header.Get("ETag") {
					t.Errorf("%s: the picture changed after %s of the chart (ETag %s → %s)", tc.name, edit.name, tc.before.header.Get("ETag"), a.header.Get("ETag"))
				}
			}
		}
		if l2 := web.open(t, live.URL); string(l2.body) == string(l1.body) {
			t.Error("the live link of the same chart did not change")
		}
	})

	t.Run("every altered link answers the same 404", func(t *testing.T) {
		link := createLink(t, pro, map[string]any{"id": ch.ID}).URL
		link2 := createLink(t, pro, map[string]any{"id": ch2.ID}).URL
		otherLink := createLink(t, other, map[string]any{"id": otherCh.ID}).URL
		dataLink := createLink(t, pro, map[string]any{"id": ch.ID, "format": "svg", "data": linkDataCSV}).URL
		expLink := createLink(t, pro, map[string]any{"id": ch.ID, "expires_in": 3600}).URL
		for _, l := range []string{link, link2, otherLink, dataLink, expLink} {
			if a := web.open(t, l); a.status != 200 {
				t.Fatalf("untouched link %s: answer %d %.200s", l, a.status, a.body)
			}
		}
		u, _ := url.Parse(in.url)
		sig, kid := paramOf(t, link, "sig"), paramOf(t, link, "kid")
		d, exp := paramOf(t, dataLink, "d"), paramOf(t, expLink, "exp")
		expN, _ := strconv.ParseInt(exp, 10, 64)
		if d == "" || exp == "" {
			t.Fatalf("want d on the data link %q and exp on the expiring one %q", dataLink, expLink)
		}
		later := strconv.FormatInt(time.Now().Add(time.Hour).Unix(), 10)
		unsigned, unsignedOK := linkRefusal(t, "unsigned link", web.open(t, in.url+"/img/"+ch.ID+".png"))
		for _, tc := range []struct {
			name, link, host string
		}{
			{"sig with one character changed", editQuery(t, link, setParam("sig", flipChar(sig, 10))), ""},
			{"sig of another chart's link", editQuery(t, link, setParam("sig", paramOf(t, link2, "sig"))), ""},
			{"sig dropped", editQuery(t, link, dropParam("sig")), ""},
			{"sig duplicated", editQuery(t, link, addParam("sig", sig)), ""},
			{"path of another chart of the account", editPath(t, link, "/img/"+ch2.ID+".png"), ""},
			{"path of another account's chart", editPath(t, link, "/img/"+otherCh.ID+".png"), ""},
			{"path of no chart", editPath(t, link, "/img/"+missingChartID+".png"), ""},
			{"path with the chart id in upper case", editPath(t, link, "/img/"+strings.ToUpper(ch.ID)+".png"), ""},
			{"format changed to svg", editPath(t, link, "/img/"+ch.ID+".svg"), ""},
			{"format gif", editPath(t, link, "/img/"+ch.ID+".gif"), ""},
			{"kid dropped", editQuery(t, link, dropParam("kid")), ""},
			{"kid of another account", editQuery(t, link, setParam("kid", paramOf(t, otherLink, "kid"))), ""},
			{"kid and sig of another account's link", editQuery(t, editQuery(t, link, setParam("kid", paramOf(t, otherLink, "kid"))), setParam("sig", paramOf(t, otherLink, "sig"))), ""},
			{"kid of no key", editQuery(t, link, setParam("kid", "no-such-kid")), ""},
			{"kid in upper case", editQuery(t, link, setParam("kid", strings.ToUpper(kid))), ""},
			{"scale changed", editQuery(t, link, setParam("scale", "2")), ""},
			{"scale duplicated", editQuery(t, link, addParam("scale", "1")), ""},
			{"scale dropped", editQuery(t, link, dropParam("scale")), ""},
			{"scale percent-encoded", editQuery(t, link, setParam("scale", "%31")), ""},
			{"parameter name in another case", editQuery(t, link, renameParam("scale", "Scale")), ""},
			{"unknown parameter", editQuery(t, link, addParam("foo", "1")), ""},
			{"w added", editQuery(t, link, addParam("w", "500")), ""},
			{"t added", editQuery(t, link, addParam("t", "1")), ""},
			{"exp added", editQuery(t, link, addParam("exp", later)), ""},
			{"exp moved", editQuery(t, expLink, setParam("exp", strconv.FormatInt(expN+1, 10))), ""},
			{"exp dropped", editQuery(t, expLink, dropParam("exp")), ""},
			{"d edited", editQuery(t, dataLink, setParam("d", flipChar(d, len(d)/2))), ""},
			{"d dropped", editQuery(t, dataLink, dropParam("d")), ""},
			{"d added to a live link", editQuery(t, link, addParam("d", d)), ""},
			{"no query", editQuery(t, link, func([]linkParam) []linkParam { return nil }), ""},
			{"another host", link, "evil.example"},
			{"another port", link, u.Hostname() + ":1"},
			{"another host with the link's port", link, "localhost:" + u.Port()},
		} {
			var hdr []string
			if tc.host != "" {
				hdr = []string{"Host", tc.host}
			}
			msg, ok := linkRefusal(t, tc.name, web.open(t, tc.link, hdr...))
			if ok && unsignedOK && msg != unsigned {
				t.Errorf("%s: the refusal says %q, an unsigned link's %q: every cause must answer alike", tc.name, msg, unsigned)
			}
		}
		if a := web.open(t, link); a.status != 200 {
			t.Fatalf("the untouched link after the tampering: answer %d", a.status)
		}
	})

	t.Run("an expired link is refused", func(t *testing.T) {
		link := createLink(t, pro, map[string]any{"id": ch.ID, "format": "svg"}).URL
		acct, kid := accountOf(t, in, pro.key), paramOf(t, link, "kid")
		sign := func(exp int64) string {
			return forgeLink(t, in, keyFile, acct, imagelink.Link{ChartID: ch.ID, Format: "svg", KID: kid, Scale: 1, Expires: exp})
		}
		// A link signed here with a future expiry works, so the refusals
		// below are the expiry's doing.
		expectImage(t, "link signed with exp in an hour", web.open(t, sign(time.Now().Add(time.Hour).Unix())), "svg")
		linkRefusal(t, "link whose exp has passed", web.open(t, sign(time.Now().Add(-time.Second).Unix())))

		// A link expiring in 3 s works until then and not after.
		exp := time.Now().Add(3 * time.Second).Unix()
		soon := sign(exp)
		sent := time.Now()
		if a := web.open(t, soon); sent.Unix() < exp-1 && a.status != 200 {
			t.Fatalf("link expiring in 3 s: answer %d before its expiry", a.status)
		}
		deadline := time.Unix(exp, 0).Add(5 * time.Second)
		for {
			sent := time.Now()
			a := web.open(t, soon)
			if a.status == 404 {
				if sent.Unix() < exp-1 {
					t.Fatalf("refused at %s, before its exp %d", sent, exp)
				}
				linkRefusal(t, "expired link", a)
				break
			}
			if a.status != 200 {
				t.Fatalf("link near its expiry: answer %d %.200s", a.status, a.body)
			}
			if time.Now().After(deadline) {
				t.Fatalf("link still answers 200 %s after its exp", time.Since(time.Unix(exp, 0)))
			}
			time.Sleep(100 * time.Millisecond)
		}
	})

	t.Run("a link's picture counts once per version", func(t *testing.T) {
		c := newClient(t, in.url, in.newAccount(t, "pro"))
		cch, _ := createChart(t, c, map[string]any{"type": "bar", "data": salesCSV})
		_, before := accountUsage(t, c)
		l := createLink(t, c, map[string]any{"id": cch.ID})
		if _, n := accountUsage(t, c); n != before {
			t.Fatalf("creating a link: image renders left %d → %d, want no cost", before, n)
		}
		for i := 0; i < 20; i++ {
			if a := web.open(t, l.URL); a.status != 200 {
				t.Fatalf("open %d: answer %d %.200s", i+1, a.status, a.body)
			}
		}
		if _, n := accountUsage(t, c); n != before-1 {
			t.Fatalf("20 opens of one picture: image renders left %d → %d, want one less", before, n)
		}
		applyOps(t, c, cch.ID, setTitleOp("Changed"))
		if _, n := accountUsage(t, c); n != before-1 {
			t.Fatalf("the edit alone: image renders left %d → %d", before-1, n)
		}
		for i := 0; i < 5; i++ {
			if a := web.open(t, l.URL); a.status != 200 {
				t.Fatalf("open %d after the edit: answer %d %.200s", i+1, a.status, a.body)
			}
		}
		if _, n := accountUsage(t, c); n != before-2 {
			t.Fatalf("opens after an edit: image renders left %d → %d, want one less than before the edit (%d)", before, n, before-2)
		}
	})
}

// linkAllowance spends an account's month of image renders in the counter
// (in-process instances only): versions already counted keep being served,
// a new version is refused with image_limit_reached.
func linkAllowance(t *testing.T, in instance) {
	c := newClient(t, in.url, in.newAccount(t, "free"))
	web := newLinkClient(t, "")
	ch, _ := createChart(t, c, map[string]any{"type": "bar", "data": salesCSV})
	l := createLink(t, c, map[string]any{"id": ch.ID, "format": "svg"})
	expectImage(t, "first open", web.open(t, l.URL), "svg")
	_, left := accountUsage(t, c)
	owner := accountOf(t, in, c.key)
	for i := range left {
		if _, _, err := in.app.counter.AddUnique(context.Background(), "images:"+owner, quota.Month, fmt.Sprintf("links-test-filler-%d", i)); err != nil {
			t.Fatal(err)
		}
	}
	if _, n := accountUsage(t, c); n != 0 {
		t.Fatalf("image renders left %d after spending them", n)
	}
	expectImage(t, "a counted version with the allowance used up", web.open(t, l.URL), "svg")
	applyOps(t, c, ch.ID, setTitleOp("Changed"))
	a := web.open(t, l.URL)
	if a.status != 429 || a.errCode(t) != "image_limit_reached" {
		t.Fatalf("a new version with the allowance used up: answer %d %.300s, want 429 image_limit_reached", a.status, a.body)
	}
	// Whoever opens a public link learns nothing of its owner's plan.
	body := string(a.body)
	if !strings.Contains(body, "not available right now") || strings.Contains(body, strconv.Itoa(left+1)) ||
		strings.Contains(body, "owner") || strings.Contains(body, "month") {
		t.Errorf("the refusal of a public link tells of its owner's allowance: %s", body)
	}
}

// linkRevocation revokes a link's signing key in the store, as `chartctl
// signing-key revoke` does, and waits until the link is refused at every
// address in vias ("" for the public URL, else a render replica's
// host:port). The instance must run with -render.signing-key-ttl=1s.
func linkRevocation(t *testing.T, in instance, vias []string) {
	pro := newClient(t, in.url, in.newAccount(t, "pro"))
	other := newClient(t, in.url, in.newAccount(t, "pro"))
	ch, _ := createChart(t, pro, map[string]any{"type": "bar", "data": salesCSV})
	och, _ := createChart(t, other, map[string]any{"type": "bar", "data": salesCSV})
	link := createLink(t, pro, map[string]any{"id": ch.ID, "format": "svg"}).URL
	otherLink := createLink(t, other, map[string]any{"id": och.ID, "format": "svg"}).URL
	var webs []linkClient
	for _, via := range vias {
		webs = append(webs, newLinkClient(t, via))
	}
	// Every replica has the key cached as live before it is revoked.
	for _, w := range webs {
		expectImage(t, "link via "+w.via, w.open(t, link), "svg")
	}

	acct, kid := accountOf(t, in, pro.key), paramOf(t, link, "kid")
	st := in.open(t)
	keys, err := st.ListSigningKeys(context.Background(), acct)
	if err != nil {
		t.Fatal(err)
	}
	found := false
	for _, k := range keys {
		if k.ID == kid {
			found = true
			if k.RevokedAt != nil {
				t.Fatalf("the link's key %s is revoked already", kid)
			}
		}
	}
	if !found {
		t.Fatalf("the link's kid %s is not one of the account's signing keys %v", kid, keys)
	}
	if err := st.RevokeSigningKey(context.Background(), acct, kid); err != nil {
		t.Fatal(err)
	}
	st.Close()
	revoked := time.Now()

	for _, w := range webs {
		deadline := revoked.Add(5 * time.Second)
		for {
			a := w.open(t, link)
			if a.status == 404 {
				linkRefusal(t, "revoked link via "+w.via, a)
				break
			}
			if a.status != 200 {
				t.Fatalf("link via %q while its key is revoked: answer %d %.200s", w.via, a.status, a.body)
			}
			if time.Now().After(deadline) {
				t.Fatalf("link via %q still answers 200 %s after its signing key was revoked (key cache TTL 1 s)", w.via, time.Since(revoked))
			}
			time.Sleep(50 * time.Millisecond)
		}
		expectImage(t, "another account's link via "+w.via, w.open(t, otherLink), "svg")
	}

	// A link made now is signed with a live key and works everywhere.
	fresh := createLink(t, pro, map[string]any{"id": ch.ID, "format": "svg"}).URL
	if k := paramOf(t, fresh, "kid"); k == kid {
		t.Fatalf("a link made after the revocation is signed with the revoked key %s", kid)
	}
	for _, w := range webs {
		expectImage(t, "link made after the revocation via "+w.via, w.open(t, fresh), "svg")
	}
}

// startSplitReplicas runs every service as its own process, as startSplit
// does, plus a second render replica, and answers the instance (its URL is
// the gateway's) and both render replicas' host:port. The gateway and the
// other services call the first replica.
func startSplitReplicas(t *testing.T, extra ...string) (instance, []string) {
	t.Helper()
	bin := chartdBinary(t)
	dir := t.TempDir()
	token := "split-mode-internal-token-0123456789"
	gw := freeAddr(t)
	pub := "http://" + gw
	common := append([]string{"-data-dir", dir, "-internal-token", token, "-public-url", pub, "-log-level", "warn", "-render.browsers=1"}, extra...)
	addrs := map[string]string{}
	var targets []string
	for _, s := range services() {
		if s.name != "gateway" {
			targets = append(targets, s.name)
		}
	}
	for _, target := range targets {
		addrs[target] = freeAddr(t)
		common = append(common, "-"+target+"-url", "http://"+addrs[target])
	}
	for _, target := range targets {
		startProcess(t, bin, addrs[target], append([]string{"-target=" + target}, common...)...)
	}
	replica := freeAddr(t)
	startProcess(t, bin, replica, append([]string{"-target=render"}, common...)...)
	startProcess(t, bin, gw, append([]string{"-target=gateway"}, common...)...)
	waitURL(t, pub+"/readyz", nil, nil)
	for _, target := range targets {
		waitURL(t, "http://"+addrs[target]+"/readyz", nil, nil)
	}
	waitURL(t, "http://"+replica+"/readyz", nil, nil)
	cfg := Config{DataDir: dir}
	for i := 0; i+1 < len(extra); i++ {
		if extra[i] == "-postgres-url" {
			cfg.PostgresURL = extra[i+1]
		}
	}
	return instance{url: pub, open: storeOpener(cfg)}, []string{addrs["render"], replica}
}

func TestLinksEmbedded(t *testing.T) {
	in := startAll(t)
	linksScenario(t, in, serverKeyFile(in))
	t.Run("a used-up allowance stops only new versions", func(t *testing.T) { linkAllowance(t, in) })
}

func TestLinkRevocationEmbedded(t *testing.T) {
	linkRevocation(t, startAll(t, "-render.signing-key-ttl=1s"), []string{""})
}

// TestLinksSplitPostgresRedis runs the services apart on the cluster
// backends with two render replicas: links work through the public URL and
// at each replica directly (as the ingress sends /img, the gateway not on
// the path), and a revocation reaches both replicas.
func TestLinksSplitPostgresRedis(t *testing.T) {
	keyFile := writeKeyFile(t)
	in, renders := startSplitReplicas(t, append(clusterFlags(t), "-secrets-key-file", keyFile, "-render.signing-key-ttl=1s")...)
	linksScenario(t, in, keyFile)

	t.Run("render replicas serve links without the gateway", func(t *testing.T) {
		pro := newClient(t, in.url, in.newAccount(t, "pro"))
		ch, _ := createChart(t, pro, map[string]any{"type": "bar", "data": salesCSV})
		l := createLink(t, pro, map[string]any{"id": ch.ID})
		pub := newLinkClient(t, "").open(t, l.URL)
		expectImage(t, "through the public URL", pub, "png")
		for _, r := range renders {
			w := newLinkClient(t, r)
			a := w.open(t, l.URL)
			expectImage(t, "at render replica "+r, a, "png")
			if a.header.Get("ETag") != pub.header.Get("ETag") {
				t.Errorf("render replica %s: ETag %s, the public URL's %s: one picture, one ETag", r, a.header.Get("ETag"), pub.header.Get("ETag"))
			}
			if b := w.open(t, l.URL, "If-None-Match", pub.header.Get("ETag")); b.status != 304 {
				t.Errorf("render replica %s: If-None-Match of the public URL's ETag: answer %d, want 304", r, b.status)
			}
			linkRefusal(t, "another host at render replica "+r, w.open(t, l.URL, "Host", "evil.example"))
		}
	})

	t.Run("revocation reaches every replica", func(t *testing.T) {
		linkRevocation(t, in, append([]string{""}, renders...))
	})
}
