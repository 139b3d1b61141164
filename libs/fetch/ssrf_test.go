package fetch

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strings"
	"sync"
	"testing"
	"time"
)

// corpusAnswers is the DNS the corpus sees: names that public DNS (or an
// attacker's zone) would answer with private addresses.
func corpusAnswers() map[string][][]string {
	return map[string][][]string{
		"localtest.me":             {{"127.0.0.1"}},
		"127.0.0.1.nip.io":         {{"127.0.0.1"}},
		"169.254.169.254.nip.io":   {{"169.254.169.254"}},
		"metadata.google.internal": {{"169.254.169.254"}},
		"internal.corp":            {{"10.1.2.3"}},
		"cgnat.example":            {{"100.64.1.1"}},
		"zero.example":             {{"0.0.0.0"}},
		"v6loopback.example":       {{"::1"}},
		"ula.example":              {{"fd00::1"}},
		"linklocal6.example":       {{"fe80::1%lo"}},
		"mapped.example":           {{"::ffff:127.0.0.1"}},
		"nat64.example":            {{"64:ff9b::7f00:1"}},
		"mixed.example":            {{"8.8.8.8", "127.0.0.1"}},
		"mixed6.example":           {{"2606:4700::1", "::1"}},
		"public.example":           {{"8.8.8.8"}},
	}
}

func TestSSRFCorpus(t *testing.T) {
	tg := newTarget(t)
	p := fmt.Sprint(tg.port)
	// The redirector is a named loopback host:port in Allow; every place it
	// redirects to must still be refused.
	redirector := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		http.Redirect(w, r, r.URL.Query().Get("to"), http.StatusFound)
	}))
	via := func(to string) string {
		return redirector.URL + "/redirect?to=" + url.QueryEscape(to)
	}

	corpus := []struct {
		url  string
		want error
	}{
		// Loopback, plainly and in every spelling.
		{"http://127.0.0.1:" + p + "/", ErrPrivateAddress},
		{"http://127.0.0.1/", ErrPrivateAddress},
		{"https://127.0.0.1:" + p + "/", ErrPrivateAddress},
		{"http://127.0.0.1.:" + p + "/", ErrPrivateAddress},
		{"http://127.1:" + p + "/", ErrPrivateAddress},
		{"http://127.0.1:" + p + "/", ErrPrivateAddress},
		{"http://2130706433:" + p + "/", ErrPrivateAddress},
		{"http://017700000001:" + p + "/", ErrPrivateAddress},
		{"http://0177.0.0.1:" + p + "/", ErrPrivateAddress},
		{"http://0177.0000.0000.0001:" + p + "/", ErrPrivateAddress},
		{"http://0x7f.0.0.1:" + p + "/", ErrPrivateAddress},
		{"http://0x7f000001:" + p + "/", ErrPrivateAddress},
		{"http://0X7F.1:" + p + "/", ErrPrivateAddress},
		{"http://127.000.000.001:" + p + "/", ErrPrivateAddress},
		{"http://127。0。0。1:" + p + "/", ErrPrivateAddress},
		{"http://①②⑦.0.0.1:" + p + "/", ErrPrivateAddress},
		{"http://localhost:" + p + "/", ErrPrivateAddress},
		{"http://LOCALHOST:" + p + "/", ErrPrivateAddress},
		{"http://localhost.:" + p + "/", ErrPrivateAddress},
		{"http://ＬＯＣＡＬＨＯＳＴ:" + p + "/", ErrPrivateAddress},
		{"http://localtest.me:" + p + "/", ErrPrivateAddress},
		{"http://127.0.0.1.nip.io:" + p + "/", ErrPrivateAddress},
		// Unspecified: Linux connects 0.0.0.0 to the local host.
		{"http://0.0.0.0:" + p + "/", ErrPrivateAddress},
		{"http://0:" + p + "/", ErrPrivateAddress},
		{"http://zero.example:" + p + "/", ErrPrivateAddress},
		// IPv6 loopback, unspecified, and IPv4 carried in IPv6.
		{"http://[::1]:" + p + "/", ErrPrivateAddress},
		{"http://[0:0:0:0:0:0:0:1]:" + p + "/", ErrPrivateAddress},
		{"http://[::]:" + p + "/", ErrPrivateAddress},
		{"http://[::ffff:127.0.0.1]:" + p + "/", ErrPrivateAddress},
		{"http://[::ffff:7f00:1]:" + p + "/", ErrPrivateAddress},
		{"http://[::127.0.0.1]:" + p + "/", ErrPrivateAddress},                          // IPv4-compatible
		{"http://[64:ff9b::127.0.0.1]:" + p + "/", ErrPrivateAddress},                   // NAT64
		{"http://[64:ff9b:1::7f00:1]:" + p + "/", ErrPrivateAddress},                    // local-use NAT64
		{"http://[2002:7f00:1::1]:" + p + "/", ErrPrivateAddress},                       // 6to4 of 127.0.0.1
		{"http://[2001:0:4136:e378:8000:63bf:80ff:fffe]:" + p + "/", ErrPrivateAddress}, // Teredo, client 127.0.0.1
		{"http://v6loopback.example:" + p + "/", ErrPrivateAddress},
		{"http://mapped.example:" + p + "/", ErrPrivateAddress},
		{"http://nat64.example:" + p + "/", ErrPrivateAddress},
		// Zone ids.
		{"http://[fe80::1%25lo]:" + p + "/", ErrPrivateAddress},
		{"http://[::1%25lo]:" + p + "/", ErrPrivateAddress},
		{"http://linklocal6.example:" + p + "/", ErrPrivateAddress},
		// Cloud metadata.
		{"http://169.254.169.254/latest/meta-data/", ErrPrivateAddress},
		{"http://169.254.169.254:" + p + "/", ErrPrivateAddress},
		{"http://2852039166/", ErrPrivateAddress},
		{"http://0xa9fea9fe/", ErrPrivateAddress},
		{"http://0251.0376.0251.0376/", ErrPrivateAddress},
		{"http://[::ffff:a9fe:a9fe]/", ErrPrivateAddress},
		{"http://[fd00:ec2::254]/", ErrPrivateAddress},
		{"http://169.254.169.254.nip.io/", ErrPrivateAddress},
		{"http://metadata.google.internal/", ErrPrivateAddress},
		// Private, CGNAT, multicast, broadcast, reserved, documentation.
		{"http://10.0.0.1:" + p + "/", ErrPrivateAddress},
		{"http://172.16.0.1:" + p + "/", ErrPrivateAddress},
		{"http://172.31.255.255:" + p + "/", ErrPrivateAddress},
		{"http://192.168.1.1:" + p + "/", ErrPrivateAddress},
		{"http://100.64.0.1:" + p + "/", ErrPrivateAddress},
		{"http://100.127.255.254:" + p + "/", ErrPrivateAddress},
		{"http://224.0.0.1:" + p + "/", ErrPrivateAddress},
		{"http://255.255.255.255:" + p + "/", ErrPrivateAddress},
		{"http://240.0.0.1:" + p + "/", ErrPrivateAddress},
		{"http://192.0.0.8:" + p + "/", ErrPrivateAddress},
		{"http://192.0.2.1:" + p + "/", ErrPrivateAddress},
		{"http://198.51.100.1:" + p + "/", ErrPrivateAddress},
		{"http://203.0.113.1:" + p + "/", ErrPrivateAddress},
		{"http://198.18.0.1:" + p + "/", ErrPrivateAddress},
		{"http://[fc00::1]:" + p + "/", ErrPrivateAddress},
		{"http://[fd12:3456:789a::1]:" + p + "/", ErrPrivateAddress},
		{"http://[fe80::1]:" + p + "/", ErrPrivateAddress},
		{"http://[ff02::1]:" + p + "/", ErrPrivateAddress},
		{"http://[2001:db8::1]:" + p + "/", ErrPrivateAddress},
		{"http://[3fff::1]:" + p + "/", ErrPrivateAddress},
		{"http://[100::1]:" + p + "/", ErrPrivateAddress},
		{"http://internal.corp:" + p + "/", ErrPrivateAddress},
		{"http://cgnat.example:" + p + "/", ErrPrivateAddress},
		{"http://ula.example:" + p + "/", ErrPrivateAddress},
		// One private answer among public ones refuses the name.
		{"http://mixed.example:" + p + "/", ErrPrivateAddress},
		{"http://mixed6.example:" + p + "/", ErrPrivateAddress},
		// Userinfo and parser-confusion tricks.
		{"http://evil@127.0.0.1:" + p + "/", ErrInvalidURL},
		{"http://public.example@127.0.0.1:" + p + "/", ErrInvalidURL},
		{"http://user:pass@localhost:" + p + "/", ErrInvalidURL},
		{"http://public.example\\@127.0.0.1:" + p + "/", ErrInvalidURL},
		{"http://127.0.0.1:" + p + "#@public.example/", ErrPrivateAddress},
		{"http://127.0.0.1:" + p + "?@public.example/", ErrPrivateAddress},
		// Other schemes and ports.
		{"ftp://127.0.0.1:" + p + "/", ErrScheme},
		{"gopher://127.0.0.1:" + p + "/_GET%20/", ErrScheme},
		{"file:///etc/passwd", ErrScheme},
		{"dict://127.0.0.1:" + p + "/", ErrScheme},
		{"http://public.example:22/", ErrPort},
		{"http://public.example:6379/", ErrPort},
		// Redirects from an allowed site to private places.
		{via("http://127.0.0.1:" + p + "/"), ErrPrivateAddress},
		{via("http://localhost:" + p + "/"), ErrPrivateAddress},
		{via("http://[::1]:" + p + "/"), ErrPrivateAddress},
		{via("http://[::ffff:127.0.0.1]:" + p + "/"), ErrPrivateAddress},
		{via("http://2130706433:" + p + "/"), ErrPrivateAddress},
		{via("http://0x7f.1:" + p + "/"), ErrPrivateAddress},
		{via("//127.0.0.1:" + p + "/"), ErrPrivateAddress},
		{via("http://169.254.169.254/latest/meta-data/"), ErrPrivateAddress},
		{via("http://internal.corp:" + p + "/"), ErrPrivateAddress},
		{via("http://127.0.0.1.nip.io:" + p + "/"), ErrPrivateAddress},
		{via("http://evil@127.0.0.1:" + p + "/"), ErrInvalidURL},
		{via("gopher://127.0.0.1:" + p + "/"), ErrScheme},
		{via("file:///etc/passwd"), ErrScheme},
	}

	res := newResolver(corpusAnswers())
	for _, mode := range []struct {
		name string
		open int
	}{{"port-open", tg.port}, {"default-ports", 0}} {
		t.Run(mode.name, func(t *testing.T) {
			f := newFetcher(t, Config{
				Allow:    []string{redirector.addr},
				Resolver: res,
				Timeout:  3 * time.Second,
			}, mode.open)
			for _, c := range corpus {
				t.Run(c.url, func(t *testing.T) {
					resp, err := f.Get(context.Background(), c.url, HTML)
					if err == nil {
						t.Fatalf("fetched %s (%d bytes): want refusal", resp.FinalURL, len(resp.Body))
					}
					want := c.want
					if mode.open == 0 && errors.Is(err, ErrPort) {
						want = ErrPort // with ports closed either refusal is right
					}
					if !errors.Is(err, want) {
						t.Fatalf("err = %v; want %v", err, want)
					}
					var fe *Error
					if !errors.As(err, &fe) {
						t.Fatalf("err %T is not *Error", err)
					}
				})
			}
		})
	}

	t.Run("rebinding", func(t *testing.T) { testRebinding(t, tg) })

	if n := tg.count.Load(); n != 0 {
		t.Fatalf("the private listener accepted %d connections; want 0", n)
	}
	t.Logf("SSRF corpus: %d URLs, each with port %d open and with only 80/443; plus rebinding; "+
		"loopback listener (v4, v6=%v) accepted %d connections", len(corpus), tg.port, tg.v6, tg.count.Load())
}

// testRebinding stages DNS rebinding: the name answers a public address
// first and loopback afterwards. A fetcher that checks one lookup and dials
// another would reach the target; this one dials what it checked.
func testRebinding(t *testing.T, tg *target) {
	p := fmt.Sprint(tg.port)
	public := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html>public site</html>")
	}))
	res := newResolver(map[string][][]string{
		"rebind.example": {{"8.8.8.8"}, {"127.0.0.1"}},
		"flip.example":   {{"8.8.4.4"}, {"::1"}, {"8.8.4.4"}},
	})
	f := newFetcher(t, Config{Resolver: res, Timeout: 3 * time.Second}, tg.port)
	// 8.8.8.8 and 8.8.4.4 stand for public hosts: the hook connects them
	// to the public loopback site. Anything else dials for real.
	var mu sync.Mutex
	var dialled []netip.AddrPort
	f.connect = func(ctx context.Context, ap netip.AddrPort) (net.Conn, error) {
		mu.Lock()
		dialled = append(dialled, ap)
		mu.Unlock()
		var d net.Dialer
		if a := ap.Addr().String(); a == "8.8.8.8" || a == "8.8.4.4" {
			return d.DialContext(ctx, "tcp", public.addr)
		}
		return d.DialContext(ctx, "tcp", ap.String())
	}

	for _, name := range []string{"rebind.example", "flip.example"} {
		u := "http://" + name + ":" + p + "/"
		resp, err := f.Get(context.Background(), u, HTML)
		if err != nil {
			t.Fatalf("%s, first (public) answer: %v", name, err)
		}
		if !strings.Contains(string(resp.Body), "public site") {
			t.Fatalf("%s: got %q; want the public site", name, resp.Body)
		}
		if n := res.callsFor(name); n != 1 {
			t.Fatalf("%s: %d lookups for one connection; want exactly 1", name, n)
		}
		// A new connection looks the name up again and gets loopback.
		f.client.CloseIdleConnections()
		_, err = f.Get(context.Background(), u, HTML)
		if !errors.Is(err, ErrPrivateAddress) {
			t.Fatalf("%s, second (private) answer: err = %v; want ErrPrivateAddress", name, err)
		}
		if n := res.callsFor(name); n != 2 {
			t.Fatalf("%s: %d lookups; want 2", name, n)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	for _, ap := range dialled {
		if !publicAddr(f.guard, ap.Addr()) {
			t.Fatalf("dialled %s", ap)
		}
	}
	if len(dialled) != 2 {
		t.Fatalf("dialled %v; want the two public answers only", dialled)
	}
}

func TestControlHookChecksDialledAddress(t *testing.T) {
	f := newFetcher(t, Config{Allow: []string{"127.0.0.1:8080"}}, 0)
	for _, c := range []struct {
		addr string
		ok   bool
	}{
		{"127.0.0.1:80", false},
		{"[::1]:443", false},
		{"[::ffff:127.0.0.1]:80", false},
		{"169.254.169.254:80", false},
		{"10.0.0.1:443", false},
		{"0.0.0.0:80", false},
		{"8.8.8.8:22", false},
		{"8.8.8.8:80", true},
		{"[2606:4700::1]:443", true},
		{"127.0.0.1:8080", true}, // in Allow by IP
		{"nonsense", false},
	} {
		err := f.control(false)("tcp", c.addr, nil)
		if (err == nil) != c.ok {
			t.Errorf("control(%s) = %v; want ok=%v", c.addr, err, c.ok)
		}
	}
}

func TestAllowList(t *testing.T) {
	tg := newTarget(t)
	p := fmt.Sprint(tg.port)
	res := newResolver(map[string][][]string{"dev.internal": {{"127.0.0.1"}}})
	cases := []struct {
		allow string
		url   string
		ok    bool
		want  error
	}{
		{"127.0.0.1:" + p, "http://127.0.0.1:" + p + "/", true, nil},
		{"localhost:" + p, "http://localhost:" + p + "/", true, nil},
		{"LOCALHOST.:" + p, "http://localhost:" + p + "/", true, nil},
		{"dev.internal:" + p, "http://dev.internal:" + p + "/", true, nil},
		// Entries are exact: another host or port stays refused.
		{"localhost:" + p, "http://127.0.0.1:" + p + "/", false, ErrPort},
		{"127.0.0.1:" + p, "http://[::1]:" + p + "/", false, ErrPort},
		{"127.0.0.1:" + p, "http://127.0.0.1:1/", false, ErrPort},
		{"127.0.0.1:" + p, "http://127.0.0.2/", false, ErrPrivateAddress},
		{"dev.internal:" + p, "http://localhost:" + p + "/", false, ErrPort},
	}
	for _, c := range cases {
		t.Run(c.allow+" "+c.url, func(t *testing.T) {
			f := newFetcher(t, Config{Allow: []string{c.allow}, Resolver: res}, 0)
			before := tg.count.Load()
			resp, err := f.Get(context.Background(), c.url, HTML)
			if c.ok {
				if err != nil {
					t.Fatal(err)
				}
				if !strings.Contains(string(resp.Body), "private target") {
					t.Fatalf("body %q", resp.Body)
				}
				if tg.count.Load() == before {
					t.Fatal("listener saw no connection: the counting harness is blind")
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v; want %v", err, c.want)
			}
			if tg.count.Load() != before {
				t.Fatal("refused URL reached the listener")
			}
		})
	}
}

// An HTTP_PROXY in the environment must not carry requests around the
// checks (http.DefaultTransport would use it).
func TestEnvironmentProxyIgnored(t *testing.T) {
	tg := newTarget(t)
	t.Setenv("HTTP_PROXY", "http://"+tg.addr())
	t.Setenv("http_proxy", "http://"+tg.addr())
	res := newResolver(corpusAnswers())
	f := newFetcher(t, Config{Resolver: res, Timeout: time.Second}, 0)
	_, err := f.Get(context.Background(), "http://127.0.0.1/", HTML)
	if !errors.Is(err, ErrPrivateAddress) {
		t.Fatalf("err = %v", err)
	}
	if n := tg.count.Load(); n != 0 {
		t.Fatalf("proxy listener accepted %d connections", n)
	}
}

func TestProxy(t *testing.T) {
	var mu sync.Mutex
	var seen []string
	proxy := newSite(t, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		mu.Lock()
		seen = append(seen, r.URL.String()+" UA="+r.Header.Get("User-Agent"))
		mu.Unlock()
		if r.URL.Path == "/go-private" {
			http.Redirect(w, r, "http://internal.corp/", http.StatusFound)
			return
		}
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprint(w, "<html>via proxy</html>")
	}))
	pu, _ := url.Parse(proxy.URL)
	f := newFetcher(t, Config{Proxy: pu, Resolver: newResolver(corpusAnswers()), UserAgent: "ua-test"}, 0)

	resp, err := f.Get(context.Background(), "http://public.example/", HTML)
	if err != nil {
		t.Fatal(err)
	}
	if string(resp.Body) != "<html>via proxy</html>" {
		t.Fatalf("body %q", resp.Body)
	}
	for _, u := range []string{"http://127.0.0.1/", "http://internal.corp/", "http://2130706433/",
		"http://mixed.example/", "http://public.example/go-private"} {
		if _, err := f.Get(context.Background(), u, HTML); !errors.Is(err, ErrPrivateAddress) {
			t.Errorf("%s through the proxy: err = %v; want ErrPrivateAddress", u, err)
		}
	}
	mu.Lock()
	defer mu.Unlock()
	want := []string{"http://public.example/ UA=ua-test", "http://public.example/go-private UA=ua-test"}
	if strings.Join(seen, "\n") != strings.Join(want, "\n") {
		t.Fatalf("proxy saw\n%s\nwant\n%s", strings.Join(seen, "\n"), strings.Join(want, "\n"))
	}
}
