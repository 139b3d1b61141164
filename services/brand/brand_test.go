package brand

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net"
	"net/http"
	"net/http/httptest"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/go-json-experiment/json/jsontext"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/brand"
	"chartd.dev/libs/brand/brandtest"
	"chartd.dev/libs/fetch"
)

const corpusDir = "../../libs/brand/testdata/sites"

func TestParseColors(t *testing.T) {
	for _, tt := range []struct {
		raw     string
		want    []string
		errWith string // "" for no error
	}{
		{`["#0af", "#FF8800"]`, []string{"#00AAFF", "#FF8800"}, ""},
		{`["#635bff"]`, []string{"#635BFF"}, ""},
		{`null`, nil, ""},
		{``, nil, "colors is required"},
		{`[]`, nil, "colors is empty"},
		{`["#000","#111","#222","#333","#444","#555","#666","#777","#888","#999","#AAA","#BBB","#CCC"]`, nil, "has 13 colours; a brand palette holds 1 to 12"},
		{`["#0af", "red"]`, nil, `colors[1] is "red"`},
		{`["#0af", 5]`, nil, "colors[1] is 5, not a string"},
		{`["#12345"]`, nil, `colors[0] is "#12345"`},
		{`["#GGGGGG"]`, nil, `colors[0] is "#GGGGGG"`},
		{`[" #0af"]`, nil, `colors[0] is " #0af"`},
		{`["#0af", null]`, nil, "colors[1] is null, not a string"},
		{`"#0af"`, nil, "colors must be a list"},
		{`{"a":1}`, nil, "colors must be a list"},
	} {
		got, err := ParseColors(jsontext.Value(tt.raw))
		if tt.errWith == "" {
			if err != nil || fmt.Sprint(got) != fmt.Sprint(tt.want) || (got == nil) != (tt.want == nil) {
				t.Errorf("%s: got %v, %v; want %v", tt.raw, got, err, tt.want)
			}
			continue
		}
		var ae *apierr.Error
		if !errors.As(err, &ae) || ae.Code != apierr.InvalidRequest || !strings.Contains(ae.Message, tt.errWith) {
			t.Errorf("%s: got %v, %v; want invalid_request containing %q", tt.raw, got, err, tt.errWith)
		}
	}
}

func TestSiteOf(t *testing.T) {
	for in, want := range map[string]string{
		"https://stripe.com/":             "stripe.com",
		"https://www.stripe.com/pricing":  "stripe.com",
		"http://stripe.com:80/":           "stripe.com",
		"https://shop.stripe.com/":        "shop.stripe.com",
		"http://127.0.0.1:8080/":          "127.0.0.1:8080",
		"http://[::1]:8080/x":             "[::1]:8080",
		"https://xn--bcher-kva.example/":  "xn--bcher-kva.example",
		"https://www.example.org:443/a?b": "example.org",
	} {
		if got := SiteOf(in); got != want {
			t.Errorf("SiteOf(%s) = %q, want %q", in, got, want)
		}
	}
}

// noDNS answers every lookup with "no such host", so a test never asks
// the machine's resolver about the fixtures' made-up names.
type noDNS struct{}

func (noDNS) LookupIPAddr(_ context.Context, host string) ([]net.IPAddr, error) {
	return nil, &net.DNSError{Err: "no such host", Name: host, IsNotFound: true}
}

// fetcherFor builds the service's fetcher, letting through the given
// loopback servers only.
func fetcherFor(t testing.TB, timeout time.Duration, servers ...*httptest.Server) *fetch.Fetcher {
	t.Helper()
	var allow []string
	for _, s := range servers {
		allow = append(allow, strings.TrimPrefix(s.URL, "http://"))
	}
	cfg := Config{FetchAllow: allow}
	fc, err := cfg.FetchConfig()
	if err != nil {
		t.Fatal(err)
	}
	fc.Resolver = noDNS{}
	if timeout > 0 {
		fc.Timeout = timeout
	}
	f, err := fetch.New(fc)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

func quiet() *slog.Logger { return slog.New(slog.NewTextHandler(io.Discard, nil)) }

// TestCorpusOverHTTP looks up every corpus site served from a loopback
// server, the way the API does, and holds the answer to its expect.json.
func TestCorpusOverHTTP(t *testing.T) {
	names, err := brandtest.Corpus(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	if len(names) < 15 {
		t.Fatalf("corpus has %d sites, want at least 15", len(names))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			want, err := brandtest.Expect(corpusDir, name)
			if err != nil {
				t.Fatal(err)
			}
			srv := brandtest.ServeSite(corpusDir, name)
			defer srv.Close()
			site, err := collect(context.Background(), fetcherFor(t, 0, srv), srv.URL+"/", quiet())
			if name == "redirect-only" {
				// The meta refresh is followed, to a site that does not
				// exist here; the error names it.
				var fe *fetch.Error
				if !errors.As(err, &fe) || !errors.Is(err, fetch.ErrUnreachable) || !strings.Contains(err.Error(), "www.redirect-only-new.example") {
					t.Fatalf("got %v, want the refresh target unreachable", err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			res, err := brand.Extract(site)
			if want.Error != "" {
				if !errors.Is(err, brand.ErrNoColors) {
					t.Fatalf("want no colours, got %v %v", res.Colors, err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if msg := want.Check(res.Colors); msg != "" {
				t.Error(msg)
			}
		})
	}
}

// TestMetaRefreshFollowed: a page that only sends the browser on has its
// brand on the page it names.
func TestMetaRefreshFollowed(t *testing.T) {
	target := brandtest.ServeSite(corpusDir, "stripe-like")
	defer target.Close()
	hop := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<html><head><meta http-equiv="refresh" content="0; url=%s/"></head><body>Moved</body></html>`, target.URL)
	}))
	defer hop.Close()
	loop := httptest.NewUnstartedServer(nil)
	loop.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		w.Header().Set("Content-Type", "text/html")
		fmt.Fprintf(w, `<meta http-equiv="refresh" content="0; url=%s/next%s">`, loop.URL, r.URL.Path)
	})
	loop.Start()
	defer loop.Close()
	f := fetcherFor(t, 0, target, hop, loop)

	site, err := collect(context.Background(), f, hop.URL+"/", quiet())
	if err != nil {
		t.Fatal(err)
	}
	res, err := brand.Extract(site)
	if err != nil || res.Colors[0] != "#635BFF" || site.URL != target.URL+"/" {
		t.Errorf("got %v %v from %s", res.Colors, err, site.URL)
	}
	_, err = collect(context.Background(), f, loop.URL+"/", quiet())
	var ae *apierr.Error
	if !errors.As(err, &ae) || ae.Code != apierr.InvalidRequest || !strings.Contains(ae.Message, "more than 5 times") {
		t.Errorf("refresh loop: got %v", err)
	}
}

// TestCollectKeepsWhatItGets: a stylesheet or icon that fails is left out;
// a page over its budget is read up to it; the page's own failure is the
// answer.
func TestCollectKeepsWhatItGets(t *testing.T) {
	big := strings.Repeat("<p>filler</p>", (3<<20)/13)
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<html><head><link rel="stylesheet" href="/ok.css"><link rel="stylesheet" href="/gone.css"><link rel="stylesheet" href="/slow.css"><link rel="icon" href="/missing.png"></head><body></body></html>`)
		case "/ok.css":
			w.Header().Set("Content-Type", "text/css")
			io.WriteString(w, `:root{--brand-primary:#E4002B}`)
		case "/big":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<meta name="theme-color" content="#0A7B83">`+big)
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{}`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	f := fetcherFor(t, 0, srv)
	site, err := collect(context.Background(), f, srv.URL+"/", quiet())
	if err != nil || len(site.Stylesheets) != 1 || len(site.Images) != 0 {
		t.Fatalf("got %d stylesheets, %d images, %v", len(site.Stylesheets), len(site.Images), err)
	}
	if res, err := brand.Extract(site); err != nil || res.Colors[0] != "#E4002B" {
		t.Errorf("got %v %v", res.Colors, err)
	}
	site, err = collect(context.Background(), f, srv.URL+"/big", quiet())
	if err != nil || len(site.HTML) != 2<<20 {
		t.Fatalf("big page: %d bytes, %v", len(site.HTML), err)
	}
	if res, err := brand.Extract(site); err != nil || res.Colors[0] != "#0A7B83" {
		t.Errorf("big page: got %v %v", res.Colors, err)
	}
	for path, sentinel := range map[string]error{"/json": fetch.ErrNotHTML, "/nothing": fetch.ErrNotFound} {
		_, err := collect(context.Background(), f, srv.URL+path, quiet())
		if !errors.Is(err, sentinel) {
			t.Errorf("%s: got %v, want %v", path, err, sentinel)
		}
		if ae := fetchRefusal(err); apierr.From(ae).Code != apierr.InvalidRequest {
			t.Errorf("%s: refusal %v is not invalid_request", path, ae)
		}
	}
}

// BenchmarkLookup is extraction end to end: the typical site (100 KB page,
// three 200 KB stylesheets, a manifest, two icons) fetched from a loopback
// server, then extracted. Target ≤ 150 ms.
func BenchmarkLookup(b *testing.B) {
	site := brandtest.TypicalSite()
	srv := httptest.NewServer(brandtest.Handler(site))
	defer srv.Close()
	f := fetcherFor(b, 0, srv)
	b.ReportAllocs()
	for b.Loop() {
		got, err := collect(context.Background(), f, srv.URL+"/", quiet())
		if err != nil || len(got.Stylesheets) != 3 || len(got.Images) != 2 || got.Manifest == nil {
			b.Fatalf("got %d stylesheets, %d images, %v", len(got.Stylesheets), len(got.Images), err)
		}
		if res, err := brand.Extract(got); err != nil || res.Colors[0] != "#635BFF" {
			b.Fatalf("got %v %v", res.Colors, err)
		}
	}
}

// whyLog is the test-only hook on the debug log: a slog handler that keeps
// the "brand: colour" records.
type whyLog struct {
	mu   *sync.Mutex
	recs *[]map[string]string
}

func (h whyLog) Enabled(context.Context, slog.Level) bool { return true }
func (h whyLog) WithAttrs([]slog.Attr) slog.Handler       { return h }
func (h whyLog) WithGroup(string) slog.Handler            { return h }
func (h whyLog) Handle(_ context.Context, r slog.Record) error {
	if r.Message != "brand: colour" {
		return nil
	}
	m := map[string]string{}
	r.Attrs(func(a slog.Attr) bool { m[a.Key] = a.Value.String(); return true })
	h.mu.Lock()
	*h.recs = append(*h.recs, m)
	h.mu.Unlock()
	return nil
}

// TestLookupLogsWhy: a look-up writes, at debug level, each returned
// colour with its rank and why (here stripe-like's theme-color and brand
// variable), and nothing at info level.
func TestLookupLogsWhy(t *testing.T) {
	srv := brandtest.ServeSite(corpusDir, "stripe-like")
	defer srv.Close()
	var recs []map[string]string
	s := &Service{deps: Deps{Fetcher: fetcherFor(t, 0, srv), Log: slog.New(whyLog{&sync.Mutex{}, &recs})}}
	res, err := s.lookup(context.Background(), srv.URL+"/")
	if err != nil {
		t.Fatal(err)
	}
	if len(recs) != len(res.Colors) || len(recs) == 0 {
		t.Fatalf("%d why records for %d colours: %v", len(recs), len(res.Colors), recs)
	}
	for i, r := range recs {
		if r["color"] != res.Colors[i] || r["rank"] != fmt.Sprint(i+1) || r["site"] != srv.URL+"/" || r["why"] == "" {
			t.Errorf("record %d: %v (colours %v)", i, r, res.Colors)
		}
	}
	if !strings.Contains(recs[0]["why"], "theme-color") && !strings.Contains(recs[0]["why"], "css-variable") {
		t.Errorf("first colour's why names neither theme-color nor a brand variable: %s", recs[0]["why"])
	}
	t.Logf("%s: %s", recs[0]["color"], recs[0]["why"])

	recs = nil
	s.deps.Log = slog.New(slog.NewTextHandler(io.Discard, &slog.HandlerOptions{Level: slog.LevelInfo}))
	if _, err := s.lookup(context.Background(), srv.URL+"/"); err != nil || len(recs) != 0 {
		t.Errorf("info level: %v, %d records", err, len(recs))
	}
}

// TestCollectCSSLogo: a page that draws its logo from its stylesheet
// (background-image on the title) gets that logo fetched after the
// stylesheets, and its colour leads though the page's links are another
// colour.
func TestCollectCSSLogo(t *testing.T) {
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/":
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprint(w, `<html><head><link rel="stylesheet" href="/css/site.css"></head><body>
<header><h1 class="project-name"><span>Acme</span></h1></header><p><a href="/docs">Docs</a></p></body></html>`)
		case "/css/site.css":
			w.Header().Set("Content-Type", "text/css")
			fmt.Fprint(w, `.project-name{background-image:url("../img/acme-logo.svg");height:130px}
.unused-logo{background:url(/img/other-logo.svg)} a{color:#0088CE}`)
		case "/img/acme-logo.svg":
			w.Header().Set("Content-Type", "image/svg+xml")
			fmt.Fprint(w, `<svg viewBox="0 0 10 10"><rect width="10" height="10" fill="#294172"/></svg>`)
		default:
			http.NotFound(w, r)
		}
	}))
	defer srv.Close()
	site, err := collect(context.Background(), fetcherFor(t, 0, srv), srv.URL+"/", quiet())
	if err != nil {
		t.Fatal(err)
	}
	var logos []string
	for _, im := range site.Images {
		if im.Role == brand.RoleLogo {
			logos = append(logos, im.URL)
		}
	}
	if len(logos) != 1 || logos[0] != srv.URL+"/img/acme-logo.svg" {
		t.Fatalf("logos fetched: %v", logos)
	}
	res, err := brand.Extract(site)
	if err != nil || res.Colors[0] != "#294172" {
		t.Fatalf("%v %v", res.Colors, err)
	}
}
