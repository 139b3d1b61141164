package main

import (
	"fmt"
	"net/http"
	"net/url"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"
)

var (
	newKeyRE    = regexp.MustCompile(`chd_[A-Za-z0-9_-]+`)
	revokeKeyRE = regexp.MustCompile(`action="/account/keys/([^/"]+)/revoke"`)
)

// TestRevocationAcrossProcesses runs the services apart on PostgreSQL and
// Redis with two gateway processes, and caches that would keep a revoked
// key for a minute: a key revoked on the account page through one gateway
// is refused by the very next request through the other, and an image
// link by the very next request after its signing key is rotated; a link
// that expires in 60 s is never cached past its expiry.
func TestRevocationAcrossProcesses(t *testing.T) {
	in := startSplit(t, append(clusterFlags(t), revocationFlags...)...)
	other := freeAddr(t)
	startProcess(t, chartdBinary(t), other, append([]string{"-target=gateway"}, in.args...)...)
	waitURL(t, "http://"+other+"/readyz", nil, nil)
	revocation(t, in, other)
}

// TestRevocationEmbedded: in one process, without Redis, the same.
func TestRevocationEmbedded(t *testing.T) {
	in := startAll(t, revocationFlags...)
	revocation(t, in, strings.TrimPrefix(in.url, "http://"))
}

// revocationFlags make the caches keep a revoked key for a minute, and a
// live link's answer cacheable for 5 minutes, unless revocation and
// expiry cut them short.
var revocationFlags = []string{"-gateway.key-cache-ttl=1m", "-render.signing-key-ttl=1m", "-render.live-link-max-age=5m"}

// revocation signs up through in's public URL, makes a key and a link,
// and revokes them on the account page: the very next requests, through
// in and through the gateway at other (host:port), are refused.
func revocation(t *testing.T, in instance, other string) {
	alice := newBrowserClient(t, in.url)
	csrf := alice.signUp("revoker@example.com")
	p := alice.post("/account/keys", url.Values{"csrf": {csrf}, "name": {"laptop"}})
	key := newKeyRE.FindString(p.body)
	m := revokeKeyRE.FindStringSubmatch(p.body)
	if p.status != http.StatusOK || key == "" || m == nil {
		t.Fatalf("create a key on the account page: %d, key %q, revoke form %v:\n%.800s", p.status, key, m, p.body)
	}
	here, there := newClient(t, in.url, key), newClient(t, "http://"+other, key)

	ch, _ := createChart(t, here, map[string]any{"type": "bar", "data": salesCSV})
	link := createLink(t, here, map[string]any{"id": ch.ID, "format": "svg"}).URL
	web, webThere := newLinkClient(t, ""), newLinkClient(t, other)

	t.Run("a link that expires in 60 s is not cached past its expiry", func(t *testing.T) {
		l := createLink(t, here, map[string]any{"id": ch.ID, "format": "svg", "expires_in": 60})
		exp, err := strconv.ParseInt(paramOf(t, l.URL, "exp"), 10, 64)
		if err != nil {
			t.Fatal(err)
		}
		a := web.open(t, l.URL)
		expectImage(t, "a link expiring in 60 s", a, "svg")
		date, err := http.ParseTime(a.header.Get("Date"))
		if err != nil {
			t.Fatalf("Date %q: %v", a.header.Get("Date"), err)
		}
		if n, _ := maxAge(a); date.Unix()+int64(n) > exp {
			t.Fatalf("Cache-Control %q at %s: cached until %s, past the link's expiry %s",
				a.header.Get("Cache-Control"), date, date.Add(time.Duration(n)*time.Second), time.Unix(exp, 0).UTC())
		}
	})

	// Both gateways, and the render service behind them, have the key and
	// the signing key cached as live.
	for _, c := range []*client{here, there} {
		if a := c.do("GET", "/api/v1/account", nil); a.status != http.StatusOK {
			t.Fatalf("the key at %s before revocation: %d %.300s", c.base, a.status, a.body)
		}
	}
	for _, w := range []linkClient{web, webThere} {
		expectImage(t, "the link via "+fmt.Sprint(w.via)+" before rotation", w.open(t, link), "svg")
	}

	t.Run("a rotated signing key's link is refused at once", func(t *testing.T) {
		if p := alice.post("/account/signing-keys/rotate", url.Values{"csrf": {csrf}}); p.status != http.StatusOK {
			t.Fatalf("rotate on the account page: %d %.300s", p.status, p.body)
		}
		for _, w := range []linkClient{webThere, web} {
			a := w.open(t, link)
			if a.status != http.StatusNotFound {
				t.Fatalf("the link via %q right after rotation: %d, want 404 (not after the 1 min signing-key cache)", w.via, a.status)
			}
			linkRefusal(t, "the link after rotation", a)
		}
	})

	t.Run("a revoked key is refused by the next request through the other gateway", func(t *testing.T) {
		if p := alice.post("/account/keys/"+m[1]+"/revoke", url.Values{"csrf": {csrf}}); p.status != http.StatusOK {
			t.Fatalf("revoke on the account page: %d %.300s", p.status, p.body)
		}
		for _, c := range []*client{there, here} {
			if a := c.do("GET", "/api/v1/account", nil); a.status != http.StatusUnauthorized || a.errCode(t) != "unauthorized" {
				t.Fatalf("the revoked key at %s right after revocation: %d %.300s, want 401 unauthorized (not after the 1 min key cache)", c.base, a.status, a.body)
			}
		}
	})
}
