package docsite

import (
	"bytes"
	"flag"
	"net/url"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"chartd.dev/charts"
	"chartd.dev/libs/apierr"
)

var update = flag.Bool("update", false, "rewrite the golden files in testdata/")

const (
	testDocsURL = "https://chartd.example/docs"
	testBaseURL = "https://api.chartd.example/api/v1"
	testSiteURL = "https://chartd.example"
)

func newSite(t testing.TB) *Site {
	t.Helper()
	cat, err := charts.Load()
	if err != nil {
		t.Fatalf("load catalog: %v", err)
	}
	s, err := New(cat, testDocsURL, testBaseURL, testSiteURL)
	if err != nil {
		t.Fatalf("new site: %v", err)
	}
	return s
}

// pageOf follows a docs link the way a browser would: the path names the
// page, the fragment the element id.
func pageOf(t *testing.T, s *Site, link string) ([]byte, string) {
	t.Helper()
	u, err := url.Parse(link)
	if err != nil {
		t.Fatalf("parse %s: %v", link, err)
	}
	rest, ok := strings.CutPrefix(u.Path, "/docs/")
	if !ok {
		t.Fatalf("%s is not under the docs", link)
	}
	page, ok := s.Page(strings.TrimSuffix(rest, "/"))
	if !ok {
		t.Fatalf("%s: no page %q", link, rest)
	}
	return page, u.Fragment
}

func TestEveryErrorCodesDocsLinkLandsOnItsSection(t *testing.T) {
	s := newSite(t)
	for _, code := range apierr.Codes {
		link := testDocsURL + "/limits/#" + string(code)
		page, frag := pageOf(t, s, link)
		h2 := regexp.MustCompile(`<h2 id="` + regexp.QuoteMeta(frag) + `">([^<]*)</h2>`)
		m := h2.FindSubmatch(page)
		if m == nil {
			t.Errorf("%s: no <h2 id=%q>", link, frag)
			continue
		}
		if string(m[1]) != string(code) {
			t.Errorf("%s lands on %q", link, m[1])
		}
	}
}

func TestEverySectionCarriesItsCatalogAnchor(t *testing.T) {
	s := newSite(t)
	cat, _ := charts.Load()
	for _, p := range cat.Pages() {
		html, ok := s.Page(p.Slug)
		if !ok {
			t.Fatalf("no page %s", p.Slug)
		}
		for _, sec := range p.Sections() {
			if sec.Anchor == "" {
				continue
			}
			if !bytes.Contains(html, []byte(`<h2 id="`+sec.Anchor+`">`)) {
				t.Errorf("%s: section %q has no <h2 id=%q>", p.Slug, sec.Title, sec.Anchor)
			}
		}
		ids := regexp.MustCompile(` id="([^"]+)"`).FindAllSubmatch(html, -1)
		seen := map[string]bool{}
		for _, id := range ids {
			if seen[string(id[1])] {
				t.Errorf("%s: id %q used twice", p.Slug, id[1])
			}
			seen[string(id[1])] = true
		}
	}
}

func TestPagesAreSelfContainedAndLinked(t *testing.T) {
	s := newSite(t)
	if len(s.Slugs()) < 8 {
		t.Fatalf("%d pages", len(s.Slugs()))
	}
	for _, slug := range s.Slugs() {
		html, _ := s.Page(slug)
		text := string(html)
		for _, ph := range []string{"{docs_url}", "{base_url}", "{site_url}"} {
			if strings.Contains(text, ph) {
				t.Errorf("%s still holds %s", slug, ph)
			}
		}
		for _, bad := range []string{"<script", "<link", `src="http`, "@import"} {
			if strings.Contains(text, bad) {
				t.Errorf("%s has an external or active asset: %s", slug, bad)
			}
		}
		if !strings.Contains(text, `<a href="/docs/`+slug+`/" aria-current="page">`) {
			t.Errorf("%s: nav does not mark the current page", slug)
		}
		for _, other := range s.Slugs() {
			if !strings.Contains(text, `href="/docs/`+other+`/"`) {
				t.Errorf("%s: nav lacks %s", slug, other)
			}
		}
		if !strings.HasPrefix(text, "<!doctype html>") || !strings.Contains(text, "<main>") {
			t.Errorf("%s is not a whole HTML page", slug)
		}
	}
	auth, _ := s.Page("authentication")
	if !bytes.Contains(auth, []byte(testBaseURL)) {
		t.Error("authentication page lacks the base URL in place of {base_url}")
	}
	limits, _ := s.Page("limits")
	if !bytes.Contains(limits, []byte(testDocsURL+"/limits/#too_large")) {
		t.Error("limits page lacks its substituted docs link")
	}
	index := string(s.Index())
	for _, slug := range s.Slugs() {
		if !strings.Contains(index, `href="/docs/`+slug+`/"`) {
			t.Errorf("index lacks %s", slug)
		}
	}
	if !strings.Contains(index, `href="/docs/limits/#invalid_request"`) {
		t.Error("index does not link the sections")
	}
	if _, ok := s.Page("nope"); ok {
		t.Error("an unknown slug answered a page")
	}
}

func TestMarkdownRendering(t *testing.T) {
	md := newMarkdown()
	got, err := md.render([]byte("# Title\n\n## Plans and limits\n\n<script>alert(1)</script>\n\n### Detail\n\n### Detail\n\n## plans-and-limits-1 #\n\n| a | b |\n| --- | --- |\n| 1 | 2 |\n\n```\ncode <b>\n```\n"))
	if err != nil {
		t.Fatal(err)
	}
	html := string(got)
	for _, want := range []string{`<h1 id="title">Title</h1>`, `<h2 id="plans-and-limits">`, `<h3 id="detail">`, `<h3 id="detail-1">`,
		`<h2 id="plans-and-limits-1">`, "<table>", "<td>1</td>", "code &lt;b&gt;"} {
		if !strings.Contains(html, want) {
			t.Errorf("rendered HTML lacks %s:\n%s", want, html)
		}
	}
	if strings.Contains(html, "<script>") {
		t.Errorf("raw HTML passed through:\n%s", html)
	}
}

func TestNewRefusesBadInput(t *testing.T) {
	cat, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	if _, err := New(nil, testDocsURL, testBaseURL, testSiteURL); err == nil {
		t.Error("nil catalog accepted")
	}
	if _, err := New(cat, "", testBaseURL, testSiteURL); err == nil {
		t.Error("empty docs URL accepted")
	}
	if _, err := New(cat, "http://a b/%zz", testBaseURL, testSiteURL); err == nil {
		t.Error("malformed docs URL accepted")
	}
}

// TestLimitsPageGolden keeps the rendered HTML of one page under review.
func TestLimitsPageGolden(t *testing.T) {
	s := newSite(t)
	got, _ := s.Page("limits")
	path := filepath.Join("testdata", "limits.html")
	if *update {
		if err := os.MkdirAll("testdata", 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(path, got, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	want, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read golden (run with -update to create): %v", err)
	}
	if !bytes.Equal(got, want) {
		t.Error("limits page differs from testdata/limits.html; run go test -run TestLimitsPageGolden -update and review the diff")
	}
}
