package main

import (
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"strconv"
	"strings"
	"testing"

	"chartd.dev/libs/brand/brandtest"
)

const brandCorpus = "../../libs/brand/testdata/sites"

// brandSites are the loopback websites the brand tests look up; the
// server under test reaches them through -brand.fetch-allow.
type brandSites struct {
	corpus map[string]*httptest.Server // corpus fixtures by name
	errs   *httptest.Server            // /404, /json, /slow, /plain
	extra  []*httptest.Server          // 20 one-colour sites for the allowance
}

func startBrandSites(t *testing.T) brandSites {
	t.Helper()
	s := brandSites{corpus: map[string]*httptest.Server{}}
	for _, name := range []string{"stripe-like", "tailwind-utility", "greys-only", "manifest-only"} {
		srv := brandtest.ServeSite(brandCorpus, name)
		t.Cleanup(srv.Close)
		s.corpus[name] = srv
	}
	s.errs = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		switch r.URL.Path {
		case "/json":
			w.Header().Set("Content-Type", "application/json")
			io.WriteString(w, `{"theme_color":"#123456"}`)
		case "/slow":
			// Never answers: the fetch budget ends the wait.
			<-r.Context().Done()
		case "/plain":
			w.Header().Set("Content-Type", "text/html")
			io.WriteString(w, `<html><body><p>No colour here.</p></body></html>`)
		default:
			http.NotFound(w, r)
		}
	}))
	t.Cleanup(s.errs.Close)
	for i := range 20 {
		srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			w.Header().Set("Content-Type", "text/html")
			fmt.Fprintf(w, `<meta name="theme-color" content="#%02X4080">`, 40+i*8)
		}))
		t.Cleanup(srv.Close)
		s.extra = append(s.extra, srv)
	}
	return s
}

// allowFlag is the -brand.fetch-allow flag naming every site.
func (s brandSites) allowFlag() string {
	var hosts []string
	add := func(srv *httptest.Server) { hosts = append(hosts, strings.TrimPrefix(srv.URL, "http://")) }
	for _, srv := range s.corpus {
		add(srv)
	}
	add(s.errs)
	for _, srv := range s.extra {
		add(srv)
	}
	return "-brand.fetch-allow=" + strings.Join(hosts, ",")
}

type brandPalette struct {
	Colors []string `json:"colors"`
}

type extracted struct {
	Colors  []string `json:"colors"`
	Added   int      `json:"added"`
	Sources []struct {
		Color  string `json:"color"`
		Source string `json:"source"`
	} `json:"sources"`
}

// wantRefusal checks an error answer's status, code and that its message
// says what happened.
func wantRefusal(t *testing.T, a answer, status int, code string, says ...string) {
	t.Helper()
	if a.status != status || a.errCode(t) != code {
		t.Fatalf("got %d %s, want %d %s", a.status, a.body, status, code)
	}
	for _, s := range says {
		if !strings.Contains(string(a.body), s) {
			t.Errorf("message %s does not say %q", a.body, s)
		}
	}
}

func brandScenario(t *testing.T, in instance, sites brandSites) {
	pro := newClient(t, in.url, in.newAccount(t, "pro"))
	free := newClient(t, in.url, in.newAccount(t, "free"))

	t.Run("get set clear", func(t *testing.T) {
		for _, c := range []*client{pro, free} {
			a := c.do("GET", "/api/v1/brand-palette", nil)
			if a.status != 200 || strings.TrimSpace(string(a.body)) != `{"colors":null}` {
				t.Fatalf("no palette: %d %s", a.status, a.body)
			}
		}
		var got brandPalette
		a := pro.do("PUT", "/api/v1/brand-palette", map[string]any{"colors": []string{"#0af", "#FF8800"}})
		a.json(t, &got)
		if a.status != 200 || strings.Join(got.Colors, ",") != "#00AAFF,#FF8800" {
			t.Fatalf("set: %d %s", a.status, a.body)
		}
		pro.do("GET", "/api/v1/brand-palette", nil).json(t, &got)
		if strings.Join(got.Colors, ",") != "#00AAFF,#FF8800" {
			t.Fatalf("get after set: %v", got.Colors)
		}
		// Another account's palette is its own.
		if a := free.do("GET", "/api/v1/brand-palette", nil); strings.TrimSpace(string(a.body)) != `{"colors":null}` {
			t.Fatalf("free account sees %s", a.body)
		}
		a = pro.do("PUT", "/api/v1/brand-palette", map[string]any{"colors": nil})
		if a.status != 200 || strings.TrimSpace(string(a.body)) != `{"colors":null}` {
			t.Fatalf("clear: %d %s", a.status, a.body)
		}
		if a := pro.do("GET", "/api/v1/brand-palette", nil); strings.TrimSpace(string(a.body)) != `{"colors":null}` {
			t.Fatalf("get after clear: %s", a.body)
		}
	})

	t.Run("set refusals", func(t *testing.T) {
		thirteen := make([]string, 13)
		for i := range thirteen {
			thirteen[i] = fmt.Sprintf("#%06X", i*100000)
		}
		for _, tt := range []struct {
			body any
			says string
		}{
			{map[string]any{"colors": []string{}}, "colors is empty"},
			{map[string]any{"colors": thirteen}, "13 colours; a brand palette holds 1 to 12"},
			{map[string]any{"colors": []string{"#0af", "red"}}, `colors[1] is \"red\"`},
			{map[string]any{"colors": []any{"#0af", 7}}, "colors[1] is 7"},
			{map[string]any{"colors": "#0af"}, "colors must be a list"},
			{map[string]any{}, "colors is required"},
			{map[string]any{"colors": []string{"#0af"}, "name": "x"}, "name"},
		} {
			wantRefusal(t, pro.do("PUT", "/api/v1/brand-palette", tt.body), 400, "invalid_request", tt.says)
		}
		wantRefusal(t, free.do("PUT", "/api/v1/brand-palette", map[string]any{"colors": []string{"#0af"}}), 403, "forbidden_plan", "Pro plan")
		wantRefusal(t, free.do("POST", "/api/v1/brand-palette/extract", map[string]any{"url": "stripe.com"}), 403, "forbidden_plan", "Pro plan")
		if a := pro.do("GET", "/api/v1/brand-palette", nil); strings.TrimSpace(string(a.body)) != `{"colors":null}` {
			t.Fatalf("a refused set saved something: %s", a.body)
		}
	})

	t.Run("setPalette brand draws the saved colours", func(t *testing.T) {
		pro.do("PUT", "/api/v1/brand-palette", map[string]any{"colors": []string{"#D1495B", "#00798C"}})
		ch, _ := createChart(t, pro, map[string]any{"type": "bar", "data": salesCSV, "ops": []any{
			map[string]any{"op": "setPalette", "palette": "brand"},
		}})
		a := pro.do("GET", "/api/v1/charts/"+ch.ID+"/render.svg", nil)
		if a.status != 200 || !strings.Contains(string(a.body), "#D1495B") {
			t.Fatalf("render does not use the brand colour: %d %.300s", a.status, a.body)
		}
		pro.do("PUT", "/api/v1/brand-palette", map[string]any{"colors": nil})
	})

	t.Run("extract", func(t *testing.T) {
		stripe := sites.corpus["stripe-like"].URL
		var got extracted
		a := pro.do("POST", "/api/v1/brand-palette/extract", map[string]any{"url": stripe})
		a.json(t, &got)
		want, err := brandtest.Expect(brandCorpus, "stripe-like")
		if err != nil {
			t.Fatal(err)
		}
		if a.status != 200 || want.Check(got.Colors) != "" || got.Added != len(got.Colors) {
			t.Fatalf("extract: %d %s (%s)", a.status, a.body, want.Check(got.Colors))
		}
		// Each colour says why it was picked, in the order of colors.
		if len(got.Sources) != len(got.Colors) {
			t.Fatalf("extract: %d sources for %d colours: %s", len(got.Sources), len(got.Colors), a.body)
		}
		for i, s := range got.Sources {
			if s.Color != got.Colors[i] || s.Source == "" {
				t.Errorf("extract: sources[%d] is %+v for colour %s", i, s, got.Colors[i])
			}
		}
		// Extraction saves nothing; added counts what the palette lacks.
		if a := pro.do("GET", "/api/v1/brand-palette", nil); strings.TrimSpace(string(a.body)) != `{"colors":null}` {
			t.Fatalf("extract saved %s", a.body)
		}
		pro.do("PUT", "/api/v1/brand-palette", map[string]any{"colors": []string{got.Colors[0], "#123456"}})
		var again extracted
		pro.do("POST", "/api/v1/brand-palette/extract", map[string]any{"url": stripe}).json(t, &again)
		if again.Added != len(again.Colors)-1 {
			t.Fatalf("added %d of %v with %s saved", again.Added, again.Colors, got.Colors[0])
		}
		pro.do("PUT", "/api/v1/brand-palette", map[string]any{"colors": nil})

		for _, name := range []string{"tailwind-utility", "greys-only", "manifest-only"} {
			want, err := brandtest.Expect(brandCorpus, name)
			if err != nil {
				t.Fatal(err)
			}
			var got extracted
			a := pro.do("POST", "/api/v1/brand-palette/extract", map[string]any{"url": sites.corpus[name].URL + "/"})
			a.json(t, &got)
			if a.status != 200 || want.Check(got.Colors) != "" {
				t.Errorf("%s: %d %s: %s", name, a.status, a.body, want.Check(got.Colors))
			}
		}
	})

	t.Run("extract refusals", func(t *testing.T) {
		errs := sites.errs.URL
		for _, tt := range []struct {
			url  any
			says []string
		}{
			{"http://127.0.0.1/", []string{"private network"}},
			{"localhost", []string{"localhost", "private network"}},
			{"http://169.254.169.254/latest/meta-data/", []string{"private network"}},
			{"http://0x7f000001/", []string{"private network"}},
			{"http://[::ffff:127.0.0.1]/", []string{"private network"}},
			{"http://example.com:8080/", []string{"ports 80 and 443"}},
			{"ftp://example.com/", []string{"only http and https"}},
			{errs + "/missing", []string{"404"}},
			{errs + "/json", []string{"not an HTML page", "application/json"}},
			{errs + "/plain", []string{"no brand colours found"}},
			{errs + "/slow", []string{"no answer", "within 2 s"}},
			{"", []string{"give a website address"}},
			{7, []string{"url"}},
		} {
			a := pro.do("POST", "/api/v1/brand-palette/extract", map[string]any{"url": tt.url})
			wantRefusal(t, a, 400, "invalid_request", tt.says...)
		}
		wantRefusal(t, pro.do("POST", "/api/v1/brand-palette/extract", map[string]any{}), 400, "invalid_request", "url is required")
	})

	t.Run("twenty websites a day", func(t *testing.T) {
		c := newClient(t, in.url, in.newAccount(t, "pro"))
		for i, srv := range sites.extra {
			a := c.do("POST", "/api/v1/brand-palette/extract", map[string]any{"url": srv.URL})
			if a.status != 200 {
				t.Fatalf("site %d: %d %s", i+1, a.status, a.body)
			}
		}
		// The same site again is free, also written another way.
		again := strings.Replace(sites.extra[3].URL, "http://", "HTTP://", 1) + "/index.html#top"
		if a := c.do("POST", "/api/v1/brand-palette/extract", map[string]any{"url": again}); a.status != 200 {
			t.Fatalf("site 4 again: %d %s", a.status, a.body)
		}
		if a := c.do("POST", "/api/v1/brand-palette/extract", map[string]any{"url": sites.extra[0].URL}); a.status != 200 {
			t.Fatalf("site 1 again: %d %s", a.status, a.body)
		}
		a := c.do("POST", "/api/v1/brand-palette/extract", map[string]any{"url": sites.corpus["stripe-like"].URL})
		wantRefusal(t, a, 429, "rate_limited", "20 different websites today", "00:00 UTC")
		if ra, err := strconv.Atoi(a.header.Get("Retry-After")); err != nil || ra < 1 || ra > 86400 {
			t.Fatalf("Retry-After %q", a.header.Get("Retry-After"))
		}
		// Another account has its own allowance.
		if a := pro.do("POST", "/api/v1/brand-palette/extract", map[string]any{"url": sites.extra[19].URL}); a.status != 200 {
			t.Fatalf("other account: %d %s", a.status, a.body)
		}
	})
}

func TestBrandEmbedded(t *testing.T) {
	sites := startBrandSites(t)
	brandScenario(t, startAll(t, sites.allowFlag(), "-brand.fetch-timeout=2s"), sites)
}

// TestBrandSplit runs the brand target as its own process, with its own
// fetcher, behind the gateway, on PostgreSQL and Redis.
func TestBrandSplit(t *testing.T) {
	sites := startBrandSites(t)
	in := startSplit(t, append(clusterFlags(t), sites.allowFlag(), "-brand.fetch-timeout=2s")...)
	brandScenario(t, in, sites)
}
