package brand

import (
	"encoding/json"
	"mime"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"
)

const realDir = "testdata/real"

// realSite is one entry of testdata/real/manifest.json.
type realSite struct {
	Name      string   `json:"name"`
	Primary   string   `json:"primary"`
	Secondary []string `json:"secondary"`
	Cited     string   `json:"cited"`
}

func realSites(t testing.TB) []realSite {
	raw, err := os.ReadFile(filepath.Join(realDir, "manifest.json"))
	if err != nil {
		t.Fatal(err)
	}
	var m struct {
		Sites []realSite `json:"sites"`
	}
	if err := json.Unmarshal(raw, &m); err != nil {
		t.Fatal(err)
	}
	return m.Sites
}

// loadRealSite builds a Site as the fetcher would: the page's own files from
// the site directory, other origins' files from _ext/<host>/<path>.
func loadRealSite(t testing.TB, name string) Site {
	t.Helper()
	dir := filepath.Join(realDir, name)
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
	base := siteURL(name)
	w := Links(base, page)
	host, _ := url.Parse(base)
	read := func(u string) ([]byte, bool) {
		pu, err := url.Parse(u)
		if err != nil {
			return nil, false
		}
		p := strings.TrimPrefix(path.Clean(pu.Path), "/")
		if pu.Host != host.Host {
			p = path.Join("_ext", pu.Host, p)
		}
		b, err := os.ReadFile(filepath.Join(dir, filepath.FromSlash(p)))
		return b, err == nil
	}
	s := Site{URL: base, HTML: page}
	for _, u := range w.Stylesheets {
		if b, ok := read(u); ok {
			s.Stylesheets = append(s.Stylesheets, Doc{URL: u, Body: b})
		}
	}
	if w.Manifest != "" {
		s.Manifest, _ = read(w.Manifest)
	}
	for _, im := range w.Images {
		if b, ok := read(im.URL); ok {
			s.Images = append(s.Images, Image{URL: im.URL, Body: b, Role: im.Role,
				ContentType: mime.TypeByExtension(path.Ext(im.URL))})
		}
	}
	return s
}

// rankOf is the 0-based position of the first result colour within ΔE2000
// 5 of any of want, or -1.
func rankOf(colors []string, want ...string) int {
	for i, c := range colors {
		for _, w := range want {
			if deltaE(c, w) < 5 {
				return i
			}
		}
	}
	return -1
}

// TestRealCorpus runs extraction on real landing pages and logs where the
// brands' own logo colours (testdata/real/manifest.json cites each) rank,
// with the why of every colour. It asserts the result invariants only: the
// issue's targets (primary first on all pages but one, top three on all, a
// secondary in the top six) are not met yet, see docs/decisions.md.
func TestRealCorpus(t *testing.T) {
	sites := realSites(t)
	first, top3, sec6 := 0, 0, 0
	for _, rs := range sites {
		s := loadRealSite(t, rs.Name)
		res, err := Extract(s)
		if err != nil {
			t.Fatalf("%s: %v", rs.Name, err)
		}
		checkResult(t, res)
		p := rankOf(res.Colors, rs.Primary)
		sec := rankOf(res.Colors, rs.Secondary...)
		t.Logf("%-10s primary %s at %d, secondary at %d: %v", rs.Name, rs.Primary, p, sec, res.Colors)
		if p == 0 {
			first++
		} else {
			logWhy(t, res)
		}
		if p >= 0 && p <= 2 {
			top3++
		}
		if sec >= 0 && sec <= 5 {
			sec6++
		}
	}
	t.Logf("primary first on %d of %d, in the top three on %d, a secondary in the top six on %d",
		first, len(sites), top3, sec6)
}

func logWhy(t *testing.T, res Result) {
	for _, c := range res.Colors {
		t.Logf("  %s: %s", c, Explain(res)[c])
	}
}

func BenchmarkRealCorpus(b *testing.B) {
	for _, rs := range realSites(b) {
		s := loadRealSite(b, rs.Name)
		b.Run(rs.Name, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				if _, err := Extract(s); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
