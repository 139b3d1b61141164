package brand

import (
	"crypto/sha256"
	"encoding/json"
	"fmt"
	"mime"
	"os"
	"path"
	"path/filepath"
	"runtime"
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

// heldBack reports whether a corpus site is in the held-back third: the
// first byte of sha256(name) mod 3 is 0. The rule was fixed before any
// result of the grown corpus was looked at; ranking rules are tuned only
// on the other sites, and the held-back ones say whether they generalise.
func heldBack(name string) bool {
	h := sha256.Sum256([]byte(name))
	return h[0]%3 == 0
}

// secondaryNear is how close (ΔE2000) a documented secondary may sit to the
// primary and count as found with it: returned colours stay ΔE 10 apart
// (mergeDeltaE), so such a secondary can never be returned beside the
// primary, and a person sees it in the primary's colour.
const secondaryNear = 10

// placing is where a site's cited colours landed in one result.
type placing struct {
	primary   int  // 0-based rank of the primary, -1 if missing
	secondary int  // rank of the first other colour near a secondary, -1 if none
	secFound  bool // a secondary counts as found (in the top six, or near a found primary)
}

// place scores one result against a site's citation. A documented
// secondary is found when a returned colour other than the primary's, in
// the top six, is within ΔE 5 of one; or when the primary is in the top six
// and a documented secondary is within ΔE 10 of the primary (secondaryNear).
func place(rs realSite, colors []string) placing {
	pl := placing{primary: rankOf(colors, rs.Primary), secondary: -1}
	for i, c := range colors {
		if i != pl.primary && rankOf([]string{c}, rs.Secondary...) == 0 {
			pl.secondary = i
			break
		}
	}
	pl.secFound = pl.secondary >= 0 && pl.secondary <= 5
	if pl.primary >= 0 && pl.primary <= 5 {
		for _, s := range rs.Secondary {
			if deltaE(s, rs.Primary) < secondaryNear {
				pl.secFound = true
			}
		}
	}
	return pl
}

// standing counts how a set of sites placed.
type standing struct {
	sites, first, top3, withSec, sec6 int
	misses                            []string
}

func (st *standing) add(rs realSite, pl placing) {
	st.sites++
	if pl.primary == 0 {
		st.first++
	} else {
		st.misses = append(st.misses, fmt.Sprintf("%s: primary at %d", rs.Name, pl.primary))
	}
	if pl.primary >= 0 && pl.primary <= 2 {
		st.top3++
	}
	if len(rs.Secondary) > 0 {
		st.withSec++
		if pl.secFound {
			st.sec6++
		} else {
			st.misses = append(st.misses, fmt.Sprintf("%s: secondary at %d", rs.Name, pl.secondary))
		}
	}
}

func pct(n, of int) float64 {
	if of == 0 {
		return 100
	}
	return 100 * float64(n) / float64(of)
}

func (st standing) String() string {
	return fmt.Sprintf("primary first %d of %d (%.0f %%), top three %d of %d (%.0f %%), a secondary in the top six %d of %d (%.0f %%); misses %v",
		st.first, st.sites, pct(st.first, st.sites), st.top3, st.sites, pct(st.top3, st.sites),
		st.sec6, st.withSec, pct(st.sec6, st.withSec), st.misses)
}

// TestRealCorpus runs extraction on real landing pages and holds where the
// brands' own logo colours (testdata/real/manifest.json cites each) rank,
// on two sets chosen by heldBack. Both are held at their standing as
// floors, so a change that loses a page fails: the held-back third scores
// primary first on ≥ 90 % (the target is 85 %; neovim's logo
// green is second behind its favicon's), in the top three on all, a
// documented secondary found (place) on all. The tuning set: first on
// ≥ 88 % (octant's logo is a near tie that its icon tips; kubevirt's SVG
// logo areas are misjudged), top three on all, a secondary on ≥ 92 %
// (leaflet's is missed). The misses are in docs/decisions/brand.md. The
// why of every colour is logged for the pages whose primary is not first. Extraction stays within 50 ms at the median
// page (the best of three runs per page, as the machine is shared), and
// one extraction allocates at most 8 MB on every page.
func TestRealCorpus(t *testing.T) {
	pace := testserver.MeasurePace()
	sites := realSites(t)
	var held, tuning standing
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
		var before, after runtime.MemStats
		runtime.ReadMemStats(&before)
		if _, err := Extract(s); err != nil {
			t.Fatal(err)
		}
		runtime.ReadMemStats(&after)
		if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 8<<20 {
			t.Errorf("%s: one extraction allocated %.1f MB, want ≤ 8 MB", rs.Name, float64(alloc)/(1<<20))
		}
		checkResult(t, res)
		pl := place(rs, res.Colors)
		set := "tuning"
		if heldBack(rs.Name) {
			set = "held"
			held.add(rs, pl)
		} else {
			tuning.add(rs, pl)
		}
		t.Logf("%-6s %-12s %5.1f ms  primary %s at %d, secondary at %d (found %v): %v %q", set, rs.Name,
			float64(best.Microseconds())/1000, rs.Primary, pl.primary, pl.secondary, pl.secFound, res.Colors, res.Sources)
		if pl.primary != 0 {
			logWhy(t, res)
		}
	}
	t.Logf("held back: %v", held)
	t.Logf("tuning:    %v", tuning)
	if len(sites) < 12 {
		t.Errorf("the corpus has %d sites, want at least 12", len(sites))
	}
	if pct(held.first, held.sites) < 90 || held.top3 < held.sites || held.sec6 < held.withSec {
		t.Errorf("held-back third fell (first ≥ 90 %%, top three on all, secondary on all): %v", held)
	}
	if pct(tuning.first, tuning.sites) < 88 || tuning.top3 < tuning.sites || pct(tuning.sec6, tuning.withSec) < 92 {
		t.Errorf("tuning set fell (first ≥ 88 %%, top three on all, secondary ≥ 92 %%): %v", tuning)
	}
	slices.Sort(times)
	if med := times[len(times)/2]; pace.Over(med, 50*time.Millisecond) {
		t.Errorf("median extraction %v, want ≤ 50 ms at %v", med, pace)
	}
}

// TestPlace holds the corpus scoring rule: a documented secondary within
// ΔE 10 of the primary counts as found when the primary is found.
func TestPlace(t *testing.T) {
	blog := realSite{Name: "x", Primary: "#6610F2", Secondary: []string{"#9013FE"}} // ΔE 6.4 apart
	far := realSite{Name: "y", Primary: "#0891D1", Secondary: []string{"#F64935"}}
	for _, tc := range []struct {
		name   string
		rs     realSite
		colors []string
		want   placing
	}{
		{"near secondary rides on the primary", blog, []string{"#712CF9", "#0D6EFD"}, placing{0, -1, true}},
		{"near secondary needs the primary", blog, []string{"#0D6EFD", "#00FF00"}, placing{-1, -1, false}},
		{"far secondary must be returned", far, []string{"#0891D1", "#26B6DB"}, placing{0, -1, false}},
		{"far secondary in the top six", far, []string{"#0891D1", "#F54A36"}, placing{0, 1, true}},
		{"far secondary seventh is missed", far, []string{"#0891D1", "#111111", "#222222", "#333333", "#444444", "#555555", "#F64935"}, placing{0, 6, false}},
	} {
		if got := place(tc.rs, tc.colors); got != tc.want {
			t.Errorf("%s: place = %+v, want %+v", tc.name, got, tc.want)
		}
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

// TestSignalsOnTuningSet measures what each kind of evidence is worth on
// the tuning set: the standing with it turned off, beside the standing with
// everything on. Only the tuning set is read (heldBack sites are skipped),
// so the figures can guide rules without fitting the held-back third
// (docs/decisions/brand.md has them). It holds the one large effect: the
// logo and icon colours carry the primaries (without them fewer than half
// as many primaries come first).
func TestSignalsOnTuningSet(t *testing.T) {
	var sites []realSite
	var loaded []Site
	for _, rs := range realSites(t) {
		if !heldBack(rs.Name) {
			sites = append(sites, rs)
			loaded = append(loaded, loadRealSite(t, rs.Name))
		}
	}
	var all standing
	marks := map[Kind]bool{KindSVGLogo: true, KindLogoImage: true, KindFavicon: true, KindAppleTouchIcon: true, KindMaskIcon: true}
	for _, tc := range []struct {
		name string
		ab   ablation
	}{
		{"everything", ablation{}},
		{"no logo or icon colours", ablation{kinds: marks}},
		{"no CSS custom properties", ablation{kinds: map[Kind]bool{KindCSSVariable: true}}},
		{"no painted area", ablation{noArea: true}},
		{"no stock-framework discount", ablation{noStock: true}},
		{"no theme-color or manifest", ablation{kinds: map[Kind]bool{KindThemeColor: true, KindManifestTheme: true, KindManifestBackground: true}}},
		{"no button, link or header rules", ablation{kinds: map[Kind]bool{KindButton: true, KindLink: true, KindHeader: true}}},
		{"no frequency", ablation{kinds: map[Kind]bool{KindFrequency: true}}},
		{"no header illustration", ablation{kinds: map[Kind]bool{KindHeroImage: true}}},
	} {
		var st standing
		for i, rs := range sites {
			res, _, err := extractAblated(loaded[i], tc.ab)
			if err != nil {
				st.add(rs, placing{primary: -1, secondary: -1})
				continue
			}
			st.add(rs, place(rs, res.Colors))
		}
		t.Logf("%-32s %v", tc.name, st)
		switch tc.name {
		case "everything":
			all = st
		case "no logo or icon colours":
			if st.first*2 > all.first {
				t.Errorf("without the marks %d of %d primaries still come first, with them %d: the marks should carry the primaries",
					st.first, st.sites, all.first)
			}
		}
	}
}
