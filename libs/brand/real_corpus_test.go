package brand

import (
	"encoding/json"
	"mime"
	"os"
	"path"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"chartd.dev/libs/testserver"
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
	s, w, read := fixtureSite(t, filepath.Join(realDir, name), siteURL(name))
	// Then, as the brand service does, the logos the stylesheets draw.
	for _, im := range CSSLogos(s, MaxImages-len(w.Images)) {
		b, ok := read(im.URL)
		if !ok {
			t.Logf("%s: CSS logo %s not in the corpus", name, im.URL)
			continue
		}
		s.Images = append(s.Images, Image{URL: im.URL, Body: b, Role: im.Role,
			ContentType: mime.TypeByExtension(path.Ext(im.URL))})
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

// TestRealCorpus runs extraction on real landing pages and holds where the
// brands' own logo colours (testdata/real/manifest.json cites each) rank.
// It asserts what holds today, as floors, so a change that loses a page
// fails: primary first on 12 of 12, in the top three on 12 of 12, a
// documented secondary (another returned colour than the primary's) in
// the top six on 9 of the 11 sites that document one. The issue's
// secondary target (all 11) is not met; docs/decisions/brand.md says why for
// each page that misses. The why of every colour is logged for the pages
// whose primary is not first. Extraction stays within 50 ms at the
// median page (the best of three runs per page, as the machine is shared).
func TestRealCorpus(t *testing.T) {
	pace := testserver.MeasurePace()
	sites := realSites(t)
	first, top3, sec6, withSec := 0, 0, 0, 0
	var times []time.Duration
	for _, rs := range sites {
		s := loadRealSite(t, rs.Name)
		var res Result
		best := time.Duration(1 << 62)
		for range 3 {
			start := time.Now()
			r, err := Extract(s)
			if d := time.Since(start); d < best {
				best = d
			}
			if err != nil {
				t.Fatalf("%s: %v", rs.Name, err)
			}
			res = r
		}
		times = append(times, best)
		checkResult(t, res)
		p := rankOf(res.Colors, rs.Primary)
		sec := -1 // the first colour, other than the primary's, near a secondary
		for i, c := range res.Colors {
			if i != p && rankOf([]string{c}, rs.Secondary...) == 0 {
				sec = i
				break
			}
		}
		t.Logf("%-10s %5.1f ms  primary %s at %d, secondary at %d: %v", rs.Name,
			float64(best.Microseconds())/1000, rs.Primary, p, sec, res.Colors)
		if p == 0 {
			first++
		} else {
			logWhy(t, res)
		}
		if p >= 0 && p <= 2 {
			top3++
		}
		if len(rs.Secondary) > 0 {
			withSec++
			if sec >= 0 && sec <= 5 {
				sec6++
			}
		}
	}
	t.Logf("primary first on %d of %d, in the top three on %d of %d, a secondary in the top six on %d of %d",
		first, len(sites), top3, len(sites), sec6, withSec)
	if len(sites) < 12 {
		t.Errorf("the corpus has %d sites, want at least 12", len(sites))
	}
	if first < 12 || top3 < 12 || sec6 < 9 {
		t.Errorf("standing fell: first %d (want ≥ 12), top three %d (want ≥ 12), secondary in the top six %d (want ≥ 9)",
			first, top3, sec6)
	}
	slices.Sort(times)
	if med := times[len(times)/2]; pace.Over(med, 50*time.Millisecond) {
		t.Errorf("median extraction %v, want ≤ 50 ms at %v", med, pace)
	}
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
