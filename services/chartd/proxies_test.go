package main

// Black-box tests of the per-address limits behind an ingress
// (-gateway.trusted-proxies, -render.trusted-proxies): clients behind a
// trusted proxy are told apart by X-Forwarded-For, and a client that does
// not come through one cannot choose its address with that header.

import (
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"strconv"
	"strings"
	"testing"
	"time"

	"chartd.dev/libs/plan"
)

// The test's two vantage points on the loopback network: the server trusts
// proxyIP (it stands for the ingress controller) and not directIP (a client
// that reaches the pod some other way). Linux routes all of 127.0.0.0/8 to
// the loopback interface.
const (
	proxyIP  = "127.0.0.1"
	directIP = "127.0.0.2"
)

// fromAddr is an HTTP client whose connections come from the local address
// ip, redirects not followed.
func fromAddr(t *testing.T, ip string) *http.Client {
	t.Helper()
	d := &net.Dialer{LocalAddr: &net.TCPAddr{IP: net.ParseIP(ip)}, Timeout: 10 * time.Second}
	hc := &http.Client{
		Transport:     &http.Transport{DialContext: d.DialContext},
		Timeout:       60 * time.Second,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse },
	}
	t.Cleanup(hc.CloseIdleConnections)
	return hc
}

// get sends GET u from hc with X-Forwarded-For xff (none when empty) and
// answers the status and the X-RateLimit-Remaining header, which every
// answer must carry.
func get(t *testing.T, hc *http.Client, u, xff string) (int, int) {
	t.Helper()
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		t.Fatal(err)
	}
	if xff != "" {
		req.Header.Set("X-Forwarded-For", xff)
	}
	resp, err := hc.Do(req)
	if err != nil {
		t.Fatalf("GET %s (X-Forwarded-For %q): %v", u, xff, err)
	}
	defer resp.Body.Close()
	io.Copy(io.Discard, resp.Body)
	rem, err := strconv.Atoi(resp.Header.Get("X-RateLimit-Remaining"))
	if err != nil {
		t.Fatalf("GET %s: answer %d with X-RateLimit-Remaining %q", u, resp.StatusCode, resp.Header.Get("X-RateLimit-Remaining"))
	}
	return resp.StatusCode, rem
}

// TestTrustedProxies runs chartd behind a stand-in ingress at proxyIP,
// trusted by both flags, with an image link allowance of 3 a minute per
// address, and checks the anonymous allowance (public API routes), the
// image links' and the site's sign-in throttle: two clients behind the
// proxy are two buckets, a forged leftmost entry changes nothing, and a
// client at directIP spends its own one bucket whatever header it sends.
func TestTrustedProxies(t *testing.T) {
	const perAddress = 3
	in := startAll(t, "-gateway.trusted-proxies="+proxyIP+"/32", "-render.trusted-proxies="+proxyIP,
		"-render.link-rate-address="+strconv.Itoa(perAddress))
	proxy, direct := fromAddr(t, proxyIP), fromAddr(t, directIP)
	// The host part of the public URL is proxyIP; connections from
	// directIP reach the same listener.
	if _, err := direct.Get(in.url + "/healthz"); err != nil {
		t.Fatalf("no connection from %s: %v", directIP, err)
	}

	t.Run("anonymous allowance", func(t *testing.T) {
		openapi := in.url + "/api/v1/openapi.json"
		limit := plan.LimitsOf(plan.Free).RequestsPerMinute
		// A fresh bucket answers limit-1 (limit-2 leaves room for a tick of
		// refill rounding); one used ten times is well below.
		fresh := func(what string, rem int) {
			t.Helper()
			if rem < limit-2 {
				t.Errorf("%s: %d of %d left, want a fresh allowance", what, rem, limit)
			}
		}
		spent := func(what string, rem int) {
			t.Helper()
			if rem > limit-6 {
				t.Errorf("%s: %d of %d left, want the allowance the earlier requests spent", what, rem, limit)
			}
		}
		var rem int
		for range 10 {
			_, rem = get(t, proxy, openapi, "198.51.100.1")
		}
		spent("client A behind the proxy after 10 requests", rem)
		_, rem = get(t, proxy, openapi, "198.51.100.2")
		fresh("client B behind the proxy", rem)
		_, rem = get(t, proxy, openapi, "203.0.113.50, 198.51.100.1")
		spent("client A with a forged leftmost address", rem)
		_, rem = get(t, proxy, openapi, "203.0.113.50")
		fresh("the forged address itself", rem)

		// From an untrusted peer the header is ignored: claiming the
		// spent client A gives the peer's own (fresh) bucket, and new
		// addresses in every request do not give fresh ones.
		_, rem = get(t, direct, openapi, "198.51.100.1")
		fresh("the direct client claiming to be A", rem)
		for i := range 10 {
			_, rem = get(t, direct, openapi, fmt.Sprintf("203.0.113.%d", 100+i))
		}
		spent("the direct client after 10 requests, each claiming a new address", rem)
		_, rem = get(t, proxy, openapi, "198.51.100.3")
		fresh("client C behind the proxy", rem)
	})

	t.Run("image links", func(t *testing.T) {
		c := newClient(t, in.url, in.newAccount(t, "pro"))
		ch, _ := createChart(t, c, map[string]any{"type": "bar", "data": salesCSV})
		link := createLink(t, c, map[string]any{"id": ch.ID, "format": "svg"}).URL
		open := func(what string, hc *http.Client, xff string, want int) {
			t.Helper()
			if status, _ := get(t, hc, link, xff); status != want {
				t.Errorf("%s: answer %d, want %d", what, status, want)
			}
		}
		for i := range perAddress {
			open(fmt.Sprintf("client A behind the proxy, open %d", i+1), proxy, "198.51.100.1", http.StatusOK)
		}
		open("client A past its allowance", proxy, "198.51.100.1", http.StatusTooManyRequests)
		open("client A past its allowance, with a forged leftmost address", proxy, "203.0.113.60, 198.51.100.1", http.StatusTooManyRequests)
		open("client B behind the proxy", proxy, "198.51.100.2", http.StatusOK)

		open("the direct client claiming to be A", direct, "198.51.100.1", http.StatusOK)
		for i := 1; i < perAddress; i++ {
			open(fmt.Sprintf("the direct client, open %d", i+1), direct, fmt.Sprintf("203.0.113.%d", 70+i), http.StatusOK)
		}
		open("the direct client past its allowance, claiming a new address", direct, "203.0.113.99", http.StatusTooManyRequests)
		open("client C behind the proxy", proxy, "198.51.100.3", http.StatusOK)
	})

	t.Run("sign-in throttle", func(t *testing.T) {
		// Unknown emails: only the per-address throttle applies.
		attempt := func(hc *http.Client, xff string, n int) int {
			t.Helper()
			c := newBrowserClient(t, in.url)
			c.http.Transport = hc.Transport
			token := csrfOf(t, c.get("/signin"))
			p := c.post("/signin", url.Values{"csrf": {token}, "email": {fmt.Sprintf("nobody-%d@example.com", n)}, "password": {"wrong password here"}},
				"X-Forwarded-For", xff)
			return p.status
		}
		throttle := func(what string, hc *http.Client, xff func(i int) string) {
			t.Helper()
			for i := range 30 {
				switch s := attempt(hc, xff(i), i); s {
				case http.StatusTooManyRequests:
					if i < 10 {
						t.Errorf("%s: throttled after %d attempts", what, i)
					}
					return
				case http.StatusUnauthorized:
				default:
					t.Fatalf("%s: sign-in answer %d", what, s)
				}
			}
			t.Errorf("%s: 30 sign-ins in a row were all tried", what)
		}
		throttle("client A behind the proxy", proxy, func(int) string { return "198.51.100.1" })
		if s := attempt(proxy, "198.51.100.2", 100); s != http.StatusUnauthorized {
			t.Errorf("client B behind the proxy: sign-in answer %d, want 401 (only A is throttled)", s)
		}
		if s := attempt(direct, "198.51.100.1", 101); s != http.StatusUnauthorized {
			t.Errorf("the direct client claiming to be A: sign-in answer %d, want 401", s)
		}
		throttle("the direct client claiming a new address each time", direct, func(i int) string { return fmt.Sprintf("203.0.113.%d", 100+i) })
	})
}

// TestTrustedProxiesOff: without the flags, X-Forwarded-For is ignored even
// from the loopback peer: every client there shares the peer's allowance.
func TestTrustedProxiesOff(t *testing.T) {
	in := startAll(t)
	proxy := fromAddr(t, proxyIP)
	openapi := in.url + "/api/v1/openapi.json"
	limit := plan.LimitsOf(plan.Free).RequestsPerMinute
	var rem int
	for i := range 10 {
		_, rem = get(t, proxy, openapi, fmt.Sprintf("198.51.100.%d", i+1))
	}
	if rem > limit-6 {
		t.Fatalf("10 requests from one peer, each naming another client: %d of %d left, want one spent allowance", rem, limit)
	}
}

// TestTrustedProxiesConfig: the flags and their environment variables read
// comma-separated CIDRs; anything else, or trusting every address, stops
// the start naming the flag.
func TestTrustedProxiesConfig(t *testing.T) {
	c, err := ParseConfig([]string{"-gateway.trusted-proxies=10.244.0.0/16, fd00::/8"}, env(map[string]string{
		"CHARTD_RENDER_TRUSTED_PROXIES": "10.244.0.0/16,192.0.2.7",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if got := c.Gateway.TrustedProxies.String(); got != "10.244.0.0/16,fd00::/8" {
		t.Errorf("-gateway.trusted-proxies: %q", got)
	}
	if got := c.Render.TrustedProxies.String(); got != "10.244.0.0/16,192.0.2.7/32" {
		t.Errorf("CHARTD_RENDER_TRUSTED_PROXIES: %q", got)
	}
	if c, err := ParseConfig(nil, env(nil)); err != nil || c.Gateway.TrustedProxies.Enabled() || c.Render.TrustedProxies.Enabled() {
		t.Errorf("defaults trust proxies: %v %v, %v", c.Gateway.TrustedProxies, c.Render.TrustedProxies, err)
	}
	for _, bad := range []string{"-gateway.trusted-proxies=ingress-nginx", "-render.trusted-proxies=0.0.0.0/0", "-gateway.trusted-proxies=10.0.0.0/33"} {
		name := strings.TrimPrefix(strings.SplitN(bad, "=", 2)[0], "-")
		if _, err := ParseConfig([]string{bad}, env(nil)); err == nil || !strings.Contains(err.Error(), name) {
			t.Errorf("%s: %v, want an error naming %s", bad, err, name)
		}
	}
	if _, err := ParseConfig(nil, env(map[string]string{"CHARTD_GATEWAY_TRUSTED_PROXIES": "::/0"})); err == nil || !strings.Contains(err.Error(), "CHARTD_GATEWAY_TRUSTED_PROXIES") {
		t.Errorf("CHARTD_GATEWAY_TRUSTED_PROXIES=::/0: %v", err)
	}
}
