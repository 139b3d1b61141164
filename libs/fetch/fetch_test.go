package fetch

import (
	"bytes"
	"compress/gzip"
	"context"
	"errors"
	"fmt"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"chartd.dev/libs/testserver"
)

// testSite serves the budget and behaviour fixtures.
type testSite struct {
	*site
	hits       atomic.Int64 // requests to /loop and /chain
	bigBytes   atomic.Int64 // bytes /big managed to write
	bigDone    chan struct{}
	mu         sync.Mutex
	lastUA     string
	lastCookie []string
}

func newTestSite(t *testing.T) *testSite {
	ts := &testSite{bigDone: make(chan struct{}, 1)}
	var bombOnce sync.Once
	var bomb []byte
	mux := http.NewServeMux()
	html := func(w http.ResponseWriter, body string) {
		w.Header().Set("Content-Type", "text/html; charset=utf-8")
		fmt.Fprint(w, body)
	}
	mux.HandleFunc("/page", func(w http.ResponseWriter, r *http.Request) { html(w, "<html>ok</html>") })
	mux.HandleFunc("/css", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/css")
		fmt.Fprint(w, ":root{--brand:#635bff}")
	})
	mux.HandleFunc("/png", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "image/png")
		w.Write([]byte("\x89PNG\r\n\x1a\n"))
	})
	mux.HandleFunc("/noctype", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil
		fmt.Fprint(w, "<!DOCTYPE html><html><head><title>x</title></head></html>")
	})
	mux.HandleFunc("/noctype-png", func(w http.ResponseWriter, r *http.Request) {
		w.Header()["Content-Type"] = nil
		w.Write([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\x0dIHDR"))
	})
	mux.HandleFunc("/missing", func(w http.ResponseWriter, r *http.Request) { http.NotFound(w, r) })
	mux.HandleFunc("/gone", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusGone) })
	mux.HandleFunc("/error", func(w http.ResponseWriter, r *http.Request) { w.WriteHeader(http.StatusInternalServerError) })
	mux.HandleFunc("/exact", func(w http.ResponseWriter, r *http.Request) {
		n, _ := strconv.Atoi(r.URL.Query().Get("n"))
		w.Header().Set("Content-Type", "text/html")
		w.Write(bytes.Repeat([]byte("a"), n))
	})
	mux.HandleFunc("/loop", func(w http.ResponseWriter, r *http.Request) {
		ts.hits.Add(1)
		http.Redirect(w, r, "/loop", http.StatusFound)
	})
	mux.HandleFunc("/chain/{n}", func(w http.ResponseWriter, r *http.Request) {
		ts.hits.Add(1)
		n, _ := strconv.Atoi(r.PathValue("n"))
		if n > 0 {
			http.Redirect(w, r, "/chain/"+strconv.Itoa(n-1), http.StatusMovedPermanently)
			return
		}
		html(w, "<html>end of chain</html>")
	})
	// /big is a 50 MiB page, written in chunks until the client goes away.
	mux.HandleFunc("/big", func(w http.ResponseWriter, r *http.Request) {
		defer func() { ts.bigDone <- struct{}{} }()
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Length", strconv.Itoa(50<<20))
		chunk := bytes.Repeat([]byte("<p>spam</p>"), 3000)
		for ts.bigBytes.Load() < 50<<20 {
			n, err := w.Write(chunk[:min(len(chunk), int(50<<20-ts.bigBytes.Load()))])
			ts.bigBytes.Add(int64(n))
			if err != nil {
				return
			}
		}
	})
	// /gzipbomb is 16 MiB of HTML compressed to about 70 KiB.
	mux.HandleFunc("/gzipbomb", func(w http.ResponseWriter, r *http.Request) {
		bombOnce.Do(func() {
			var b bytes.Buffer
			zw, _ := gzip.NewWriterLevel(&b, gzip.BestSpeed)
			zw.Write([]byte("<html>"))
			zw.Write(make([]byte, 16<<20))
			zw.Close()
			bomb = b.Bytes()
		})
		w.Header().Set("Content-Type", "text/html")
		w.Header().Set("Content-Encoding", "gzip")
		w.Write(bomb)
	})
	// /drip answers at once, then sends a byte every 20 ms for ever.
	mux.HandleFunc("/drip", func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		rc := http.NewResponseController(w)
		for {
			if _, err := w.Write([]byte("<")); err != nil {
				return
			}
			rc.Flush()
			select {
			case <-r.Context().Done():
				return
			case <-time.After(20 * time.Millisecond):
			}
		}
	})
	// /hang never sends headers.
	mux.HandleFunc("/hang", func(w http.ResponseWriter, r *http.Request) { <-r.Context().Done() })
	mux.HandleFunc("/sleep", func(w http.ResponseWriter, r *http.Request) {
		d, _ := time.ParseDuration(r.URL.Query().Get("d"))
		select {
		case <-r.Context().Done():
			return
		case <-time.After(d):
		}
		html(w, "<html>slept</html>")
	})
	mux.HandleFunc("/setcookie", func(w http.ResponseWriter, r *http.Request) {
		http.SetCookie(w, &http.Cookie{Name: "session", Value: "tracking", Path: "/"})
		http.Redirect(w, r, "/echo", http.StatusFound)
	})
	mux.HandleFunc("/echo", func(w http.ResponseWriter, r *http.Request) {
		ts.mu.Lock()
		ts.lastUA = r.Header.Get("User-Agent")
		ts.lastCookie = r.Header.Values("Cookie")
		ts.mu.Unlock()
		http.SetCookie(w, &http.Cookie{Name: "again", Value: "1", Path: "/"})
		html(w, "<html>echo</html>")
	})
	ts.site = newSite(t, mux)
	return ts
}

func (ts *testSite) fetcher(t *testing.T, cfg Config) *Fetcher {
	cfg.Allow = append(cfg.Allow, ts.addr)
	return newFetcher(t, cfg, 0)
}

func TestBudgets(t *testing.T) {
	ts := newTestSite(t)
	f := ts.fetcher(t, Config{})

	t.Run("50 MiB page stops at 2 MiB", func(t *testing.T) {
		start := time.Now()
		resp, err := f.Get(context.Background(), ts.URL+"/big", HTML)
		took := time.Since(start)
		if !errors.Is(err, ErrTooLarge) {
			t.Fatalf("err = %v; want ErrTooLarge", err)
		}
		if resp == nil || len(resp.Body) != 2<<20 || !resp.Truncated {
			t.Fatalf("resp = %+v; want the first 2 MiB, truncated", resp)
		}
		if !strings.Contains(err.Error(), "larger than 2 MiB") {
			t.Fatalf("message %q does not say the budget", err)
		}
		select {
		case <-ts.bigDone:
		case <-time.After(5 * time.Second):
			t.Fatal("server still writing 5 s after the fetch stopped")
		}
		if w := ts.bigBytes.Load(); w >= 50<<20 {
			t.Fatalf("server wrote all %d bytes", w)
		}
		t.Logf("50 MiB page: stopped after %v; read 2 MiB, server got %.1f MiB out before the connection closed",
			took.Round(time.Millisecond), float64(ts.bigBytes.Load())/(1<<20))
	})

	t.Run("gzip bomb stops at 2 MiB decompressed", func(t *testing.T) {
		resp, err := f.Get(context.Background(), ts.URL+"/gzipbomb", HTML)
		if !errors.Is(err, ErrTooLarge) || resp == nil || len(resp.Body) != 2<<20 {
			t.Fatalf("err = %v, resp = %v", err, resp != nil)
		}
	})

	for _, c := range []struct {
		kind  Kind
		limit int
	}{{HTML, 2 << 20}, {Stylesheet, 1 << 20}, {Manifest, 1 << 20}, {Image, 1 << 20}} {
		t.Run(c.kind.String()+" budget is exact", func(t *testing.T) {
			resp, err := f.Get(context.Background(), fmt.Sprintf("%s/exact?n=%d", ts.URL, c.limit), c.kind)
			if err != nil || len(resp.Body) != c.limit || resp.Truncated {
				t.Fatalf("at the budget: err = %v", err)
			}
			resp, err = f.Get(context.Background(), fmt.Sprintf("%s/exact?n=%d", ts.URL, c.limit+1), c.kind)
			if !errors.Is(err, ErrTooLarge) || len(resp.Body) != c.limit {
				t.Fatalf("one byte over: err = %v", err)
			}
		})
	}

	t.Run("redirects", func(t *testing.T) {
		for _, c := range []struct {
			path string
			hits int64
			want error
		}{
			{"/chain/5", 6, nil},
			{"/chain/6", 6, ErrTooManyRedirects},
			{"/loop", 6, ErrTooManyRedirects},
		} {
			ts.hits.Store(0)
			resp, err := f.Get(context.Background(), ts.URL+c.path, HTML)
			if !errors.Is(err, c.want) || (c.want == nil) != (err == nil) {
				t.Fatalf("%s: err = %v; want %v", c.path, err, c.want)
			}
			if c.want == nil && !strings.HasSuffix(resp.FinalURL, "/chain/0") {
				t.Fatalf("%s: FinalURL = %s", c.path, resp.FinalURL)
			}
			if h := ts.hits.Load(); h != c.hits {
				t.Fatalf("%s: %d requests; want %d", c.path, h, c.hits)
			}
		}
	})
}

func TestTimeout(t *testing.T) {
	pace := testserver.MeasurePace()
	ts := newTestSite(t)
	const budget = 300 * time.Millisecond
	f := ts.fetcher(t, Config{Timeout: budget})
	for _, path := range []string{"/drip", "/hang"} {
		t.Run(path, func(t *testing.T) {
			start := time.Now()
			_, err := f.Get(context.Background(), ts.URL+path, HTML)
			took := time.Since(start)
			if !errors.Is(err, ErrTimeout) {
				t.Fatalf("err = %v; want ErrTimeout", err)
			}
			if took < budget || pace.Over(took-budget, 700*time.Millisecond) {
				t.Fatalf("stopped after %v; want about %v (%v)", took, budget, pace)
			}
			if want := "within 0.3 s"; !strings.Contains(err.Error(), want) {
				t.Fatalf("message %q does not say %q", err, want)
			}
			t.Logf("%s: stopped after %v (budget %v)", path, took.Round(time.Millisecond), budget)
		})
	}

	t.Run("the caller's cancel is not a timeout", func(t *testing.T) {
		ctx, cancel := context.WithCancel(context.Background())
		time.AfterFunc(50*time.Millisecond, cancel)
		_, err := f.Get(ctx, ts.URL+"/hang", HTML)
		if errors.Is(err, ErrTimeout) || !errors.Is(err, context.Canceled) {
			t.Fatalf("err = %v; want context.Canceled", err)
		}
	})

	// two quick fetches leave most of the budget to the third, even on a
	// loaded machine (two 150 ms fetches in 400 ms flaked at load 16)
	t.Run("a Site shares one budget", func(t *testing.T) {
		f := ts.fetcher(t, Config{Timeout: 800 * time.Millisecond})
		s := f.Site()
		start := time.Now()
		for i := 0; i < 2; i++ {
			if _, err := s.Get(context.Background(), ts.URL+"/sleep?d=100ms", Stylesheet); err != nil {
				t.Fatal(err)
			}
		}
		_, err := s.Get(context.Background(), ts.URL+"/drip", HTML)
		took := time.Since(start)
		if !errors.Is(err, ErrTimeout) {
			t.Fatalf("err = %v; want ErrTimeout", err)
		}
		if took < 800*time.Millisecond || pace.Over(took-800*time.Millisecond, 700*time.Millisecond) {
			t.Fatalf("site fetch took %v; want about 800ms (%v)", took, pace)
		}
		if !strings.Contains(err.Error(), "within 0.8 s") {
			t.Fatalf("message %q", err)
		}
		t.Logf("site budget 800ms: three fetches stopped after %v", took.Round(time.Millisecond))
	})
}

func TestHeaders(t *testing.T) {
	ts := newTestSite(t)
	ua := UserAgent("https://chartd.example/")
	if ua != "chartd-brand/1 (+https://chartd.example/docs)" {
		t.Fatalf("UserAgent = %q", ua)
	}
	f := ts.fetcher(t, Config{UserAgent: ua})
	for i := 0; i < 2; i++ {
		// The first request sets a cookie and redirects; neither the
		// redirect nor the next request may carry it back.
		path := "/setcookie"
		if i == 1 {
			path = "/echo"
		}
		resp, err := f.Get(context.Background(), ts.URL+path, HTML)
		if err != nil {
			t.Fatal(err)
		}
		if !strings.HasSuffix(resp.FinalURL, "/echo") {
			t.Fatalf("FinalURL %s", resp.FinalURL)
		}
		ts.mu.Lock()
		gotUA, gotCookie := ts.lastUA, ts.lastCookie
		ts.mu.Unlock()
		if gotUA != ua {
			t.Fatalf("User-Agent = %q; want %q", gotUA, ua)
		}
		if len(gotCookie) != 0 {
			t.Fatalf("Cookie header sent: %q", gotCookie)
		}
	}
	f = ts.fetcher(t, Config{})
	if _, err := f.Get(context.Background(), ts.URL+"/echo", HTML); err != nil {
		t.Fatal(err)
	}
	if ts.lastUA != "chartd-brand/1" {
		t.Fatalf("default User-Agent = %q", ts.lastUA)
	}
}

func TestStatusAndContentType(t *testing.T) {
	ts := newTestSite(t)
	f := ts.fetcher(t, Config{})
	for _, c := range []struct {
		path string
		kind Kind
		want error
		ct   string
		msg  string
	}{
		{"/page", HTML, nil, "text/html", ""},
		{"/noctype", HTML, nil, "text/html", ""},
		{"/css", Stylesheet, nil, "text/css", ""},
		{"/png", Image, nil, "image/png", ""},
		{"/page", Stylesheet, nil, "text/html", ""}, // only HTML insists on its type
		{"/png", HTML, ErrNotHTML, "", "is not an HTML page (it is image/png)"},
		{"/css", HTML, ErrNotHTML, "", "is not an HTML page (it is text/css)"},
		{"/noctype-png", HTML, ErrNotHTML, "", "(it is image/png)"},
		{"/missing", HTML, ErrNotFound, "", "answered HTTP 404 (not found)"},
		{"/gone", Image, ErrNotFound, "", "answered HTTP 410"},
		{"/error", HTML, ErrStatus, "", "answered HTTP 500 Internal Server Error"},
	} {
		t.Run(c.kind.String()+c.path, func(t *testing.T) {
			resp, err := f.Get(context.Background(), ts.URL+c.path, c.kind)
			if c.want == nil {
				if err != nil {
					t.Fatal(err)
				}
				if resp.ContentType != c.ct || resp.Status != 200 {
					t.Fatalf("resp = %+v", resp)
				}
				return
			}
			if !errors.Is(err, c.want) {
				t.Fatalf("err = %v; want %v", err, c.want)
			}
			if !strings.Contains(err.Error(), c.msg) {
				t.Fatalf("message %q does not contain %q", err, c.msg)
			}
		})
	}
}

func TestSiteLimits(t *testing.T) {
	ts := newTestSite(t)
	f := ts.fetcher(t, Config{})
	s := f.Site()
	get := func(k Kind, n int) (ok int, err error) {
		for i := 0; i < n; i++ {
			if _, err = s.Get(context.Background(), ts.URL+"/css", k); err != nil {
				return ok, err
			}
			ok++
		}
		return ok, nil
	}
	for _, c := range []struct {
		kind Kind
		max  int
	}{{Stylesheet, 10}, {Image, 4}, {Manifest, 1}} {
		n, err := get(c.kind, c.max+1)
		if n != c.max || !errors.Is(err, ErrLimit) {
			t.Fatalf("%s: %d fetched, err = %v; want %d then ErrLimit", c.kind, n, err, c.max)
		}
	}
	var wg sync.WaitGroup
	var ok atomic.Int64
	s = f.Site()
	for i := 0; i < 20; i++ {
		wg.Go(func() {
			if _, err := s.Get(context.Background(), ts.URL+"/css", Stylesheet); err == nil {
				ok.Add(1)
			}
		})
	}
	wg.Wait()
	if ok.Load() != 10 {
		t.Fatalf("concurrent: %d stylesheets fetched; want 10", ok.Load())
	}
}

func TestNormalizeURL(t *testing.T) {
	for _, c := range []struct {
		in, want string
		err      error
	}{
		{"stripe.com", "https://stripe.com/", nil},
		{"  Stripe.COM/pricing ", "https://stripe.com/pricing", nil},
		{"HTTPS://Stripe.com", "https://stripe.com/", nil},
		{"http://stripe.com", "http://stripe.com/", nil},
		{"//stripe.com/x#top", "https://stripe.com/x", nil},
		{"localhost:8080", "https://localhost:8080/", nil},
		{"stripe.com:443/a?b=c", "https://stripe.com:443/a?b=c", nil},
		{"münchen.de", "https://xn--mnchen-3ya.de/", nil},
		{"Bücher.example:8443/x", "https://xn--bcher-kva.example:8443/x", nil},
		{"", "", ErrInvalidURL},
		{"   ", "", ErrInvalidURL},
		{"https://", "", ErrInvalidURL},
		{"https://user:pw@stripe.com", "", ErrInvalidURL},
		{"ftp://stripe.com", "", ErrScheme},
		{"javascript:alert(1)", "", ErrScheme},
		{"mailto:a@b.c", "", ErrScheme},
		{"file:///etc/passwd", "", ErrScheme},
	} {
		got, err := NormalizeURL(c.in)
		if got != c.want || !errors.Is(err, c.err) || (c.err == nil) != (err == nil) {
			t.Errorf("NormalizeURL(%q) = %q, %v; want %q, %v", c.in, got, err, c.want, c.err)
		}
	}
}

func TestParseIPv4Loose(t *testing.T) {
	for _, c := range []struct {
		in   string
		want string // "" = not an address
	}{
		{"127.0.0.1", "127.0.0.1"},
		{"127.1", "127.0.0.1"},
		{"127.0.1", "127.0.0.1"},
		{"2130706433", "127.0.0.1"},
		{"0x7f000001", "127.0.0.1"},
		{"0x7f.1", "127.0.0.1"},
		{"0177.0.0.1", "127.0.0.1"},
		{"017700000001", "127.0.0.1"},
		{"0", "0.0.0.0"},
		{"0x", "0.0.0.0"},
		{"10.0x10.1", "10.16.0.1"},
		{"4294967295", "255.255.255.255"},
		{"4294967296", ""},
		{"256.0.0.1", ""},
		{"1.2.3.4.5", ""},
		{"08.0.0.1", ""},
		{"0x1g", ""},
		{"1.-2.3.4", ""},
	} {
		ip, ok := parseIPv4Loose(c.in)
		got := ""
		if ok {
			got = ip.String()
		}
		if got != c.want {
			t.Errorf("parseIPv4Loose(%q) = %q; want %q", c.in, got, c.want)
		}
	}
	for _, c := range []struct {
		in   string
		want bool
	}{{"stripe.com", false}, {"1.2.3.4", true}, {"a.0x1", true}, {"host.123", true}, {"123.example", false}, {"x.", false}, {"127.0.0.1.", true}} {
		if got := endsInNumber(c.in); got != c.want {
			t.Errorf("endsInNumber(%q) = %v", c.in, got)
		}
	}
}

func TestPublicAddr(t *testing.T) {
	f := newFetcher(t, Config{}, 0)
	for _, c := range []struct {
		ip     string
		public bool
	}{
		{"8.8.8.8", true}, {"1.1.1.1", true}, {"2606:4700::1111", true}, {"::ffff:8.8.8.8", true},
		{"127.0.0.1", false}, {"10.1.1.1", false}, {"172.16.0.1", false}, {"192.168.0.1", false},
		{"169.254.169.254", false}, {"100.64.0.1", false}, {"0.0.0.0", false}, {"255.255.255.255", false},
		{"224.0.0.251", false}, {"192.0.2.1", false}, {"::1", false}, {"::", false}, {"fc00::1", false},
		{"fe80::1", false}, {"ff02::1", false}, {"::ffff:10.0.0.1", false}, {"::7f00:1", false},
		{"64:ff9b::a00:1", false}, {"2002:a00:1::", false}, {"2001::1", false}, {"2001:db8::1", false},
	} {
		if got := publicAddr(f.guard, netip.MustParseAddr(c.ip)); got != c.public {
			t.Errorf("publicAddr(%s) = %v", c.ip, got)
		}
	}
}

func TestNewRejectsBadConfig(t *testing.T) {
	ftp, _ := url.Parse("ftp://proxy:21")
	for _, cfg := range []Config{
		{Allow: []string{"localhost"}},
		{Allow: []string{"localhost:0"}},
		{Allow: []string{":8080"}},
		{Allow: []string{"localhost:http"}},
		{Proxy: ftp},
		{Proxy: &url.URL{Scheme: "http"}},
		{Timeout: -time.Second},
	} {
		if _, err := New(cfg); err == nil {
			t.Errorf("New(%+v) accepted", cfg)
		}
	}
}

func TestErrorWording(t *testing.T) {
	f := newFetcher(t, Config{Resolver: newResolver(corpusAnswers())}, 0)
	for _, c := range []struct{ url, want string }{
		{"http://internal.corp/", "internal.corp resolves to a private network address; only public websites can be fetched"},
		{"http://127.0.0.1/", "127.0.0.1 is a private network address"},
		{"http://2130706433/", "2130706433 is another spelling of 127.0.0.1, a private network address"},
		{"http://134744072/", "unusual spelling of the IP address 8.8.8.8"},
		{"gopher://x/", "only http and https addresses can be fetched, not gopher:"},
		{"http://public.example:8080/", "only ports 80 and 443 can be fetched, not 8080"},
		{"http://nowhere.example/", "nowhere.example does not exist"},
	} {
		_, err := f.Get(context.Background(), c.url, HTML)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%s: %v; want %q", c.url, err, c.want)
		}
		// A resolved address is never told back.
		if err != nil && strings.Contains(err.Error(), "10.1.2.3") {
			t.Errorf("%s: %v names the resolved address", c.url, err)
		}
	}
}
