package brand

import (
	"encoding/json"
	"errors"
	"mime"
	"net/url"
	"os"
	"path"
	"path/filepath"
	"strings"
	"testing"

	colorful "github.com/lucasb-eyer/go-colorful"
)

// expectation is a fixture's expect.json.
type expectation struct {
	About   string   `json:"about"`
	Leading []string `json:"leading"` // the first colours, in order, each within ΔE2000 5
	Absent  []string `json:"absent"`  // colours that must not be returned at all
	Error   string   `json:"error"`   // "no-colors" when extraction must fail
}

const corpusDir = "testdata/sites"

func siteURL(name string) string { return "https://" + name + ".example/" }

// loadSite builds a synthetic corpus site (see fixtureSite).
func loadSite(t testing.TB, name string) (Site, Wanted) {
	t.Helper()
	s, w, _ := fixtureSite(t, filepath.Join(corpusDir, name), siteURL(name))
	return s, w
}

// fixtureSite builds a Site the way the fetcher will from a fixture
// directory: Links on its index.html, then each wanted URL read from dir —
// the page's own origin at its path, other origins' files under
// _ext/<host>/<path> (a missing file is a failed fetch and is skipped). It
// answers the reader too, for the logos the stylesheets draw.
func fixtureSite(t testing.TB, dir, base string) (Site, Wanted, func(string) ([]byte, bool)) {
	t.Helper()
	page, err := os.ReadFile(filepath.Join(dir, "index.html"))
	if err != nil {
		t.Fatal(err)
	}
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
	return s, w, read
}

func deltaE(a, b string) float64 {
	ca, err1 := colorful.Hex(a)
	cb, err2 := colorful.Hex(b)
	if err1 != nil || err2 != nil {
		return 1e9
	}
	return ca.DistanceCIEDE2000(cb) * 100
}

func corpusNames(t testing.TB) []string {
	entries, err := os.ReadDir(corpusDir)
	if err != nil {
		t.Fatal(err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	return names
}

func TestCorpus(t *testing.T) {
	names := corpusNames(t)
	if len(names) < 15 {
		t.Errorf("corpus has %d sites, want at least 15", len(names))
	}
	for _, name := range names {
		t.Run(name, func(t *testing.T) {
			raw, err := os.ReadFile(filepath.Join(corpusDir, name, "expect.json"))
			if err != nil {
				t.Fatal(err)
			}
			var want expectation
			if err := json.Unmarshal(raw, &want); err != nil {
				t.Fatal(err)
			}
			site, _ := loadSite(t, name)
			res, groups, err := extractDetailed(site)
			if want.Error != "" {
				if !errors.Is(err, ErrNoColors) {
					t.Fatalf("want ErrNoColors, got %v (colours %v)", err, res.Colors)
				}
				return
			}
			if err != nil {
				t.Fatalf("Extract: %v", err)
			}
			defer func() {
				if t.Failed() || os.Getenv("BRAND_DEBUG") != "" {
					for i, g := range groups {
						if i < 16 {
							t.Logf("  group %s score %.2f tone %d kept %v", g.hex, g.score, g.tone, g.kept)
						}
					}
					logSignals(t, res)
				}
			}()
			t.Logf("colours: %v", res.Colors)
			if len(res.Colors) < len(want.Leading) {
				t.Fatalf("got %v, want leading %v", res.Colors, want.Leading)
			}
			for i, w := range want.Leading {
				if d := deltaE(res.Colors[i], w); d >= 5 {
					t.Errorf("colour %d: got %s, want %s (ΔE2000 %.1f); all: %v", i, res.Colors[i], w, d, res.Colors)
				}
			}
			for _, a := range want.Absent {
				for _, c := range res.Colors {
					if deltaE(c, a) < 5 {
						t.Errorf("%s should be absent, got %v", a, res.Colors)
					}
				}
			}
			checkResult(t, res)
		})
	}
}

func logSignals(t *testing.T, res Result) {
	for i, s := range res.Signals {
		if i == 40 {
			break
		}
		t.Logf("  %s %-22s %5.2f → %-7s %s", s.Color, s.Kind, s.Weight, s.Into, s.Where)
	}
}

// checkResult asserts the invariants every result has.
func checkResult(t testing.TB, res Result) {
	t.Helper()
	if len(res.Colors) == 0 || len(res.Colors) > MaxColors {
		t.Fatalf("got %d colours", len(res.Colors))
	}
	if len(res.Sources) != len(res.Colors) {
		t.Fatalf("%d sources for %d colours", len(res.Sources), len(res.Colors))
	}
	for i, src := range res.Sources {
		if src == "" || len(src) > 40 {
			t.Fatalf("source of %s is %q: want a few words", res.Colors[i], src)
		}
	}
	seen := map[string]bool{}
	for _, c := range res.Colors {
		if !validHex(c) {
			t.Fatalf("invalid colour %q", c)
		}
		if seen[c] {
			t.Fatalf("duplicate colour %s in %v", c, res.Colors)
		}
		seen[c] = true
	}
	for i := range res.Colors {
		for j := i + 1; j < len(res.Colors); j++ {
			if d := deltaE(res.Colors[i], res.Colors[j]); d < mergeDeltaE {
				t.Fatalf("%s and %s are ΔE2000 %.1f apart but both returned", res.Colors[i], res.Colors[j], d)
			}
		}
	}
	for _, s := range res.Signals {
		if !validHex(s.Color) || (s.Into != "" && !seen[s.Into]) {
			t.Fatalf("bad signal %+v", s)
		}
	}
}

func validHex(s string) bool {
	if len(s) != 7 || s[0] != '#' {
		return false
	}
	for _, c := range s[1:] {
		if !(c >= '0' && c <= '9' || c >= 'A' && c <= 'F') {
			return false
		}
	}
	return true
}

// TestCorpusIconsReproducible keeps the committed icons in line with the
// generator. It compares what the images decode to (their dominant
// colours), not their bytes, which change with the Go version's encoders.
func TestCorpusIconsReproducible(t *testing.T) {
	for name, want := range fixtureImages(t) {
		got, err := os.ReadFile(filepath.Join(corpusDir, filepath.FromSlash(name)))
		if err != nil {
			t.Fatalf("%s: %v (run go test -run TestGenerateFixtures -update-fixtures)", name, err)
		}
		if len(got) > 10<<10 {
			t.Errorf("%s is %d bytes, want ≤ 10 KB", name, len(got))
		}
		gi, ok1 := decodeRaster(got)
		wi, ok2 := decodeRaster(want)
		if !ok1 || !ok2 {
			t.Fatalf("%s: cannot decode (%v, %v)", name, ok1, ok2)
		}
		gc, wc := dominant(gi), dominant(wi)
		if len(gc) != len(wc) {
			t.Fatalf("%s: %d clusters, generator makes %d; regenerate", name, len(gc), len(wc))
		}
		for i := range gc {
			if deltaE(gc[i].c.hex(), wc[i].c.hex()) > 2 || abs(gc[i].share-wc[i].share) > 0.02 {
				t.Errorf("%s: cluster %d is %s %.2f, generator makes %s %.2f; regenerate",
					name, i, gc[i].c.hex(), gc[i].share, wc[i].c.hex(), wc[i].share)
			}
		}
	}
}
