package brandtest

import (
	"bytes"
	"encoding/json"
	"fmt"
	"mime"
	"net/http"
	"net/http/httptest"
	"os"
	"path"
	"path/filepath"
	"sort"
	"strings"

	colorful "github.com/lucasb-eyer/go-colorful"
)

// Expectation is a corpus site's expect.json (see testdata/sites/README.md).
type Expectation struct {
	About   string   `json:"about"`
	Leading []string `json:"leading"` // the first colours, in order, each within ΔE2000 5
	Absent  []string `json:"absent"`  // colours that must not be returned at all
	Error   string   `json:"error"`   // "no-colors" when extraction must fail
}

// Corpus lists the site directories under dir (libs/brand/testdata/sites).
func Corpus(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if err != nil {
		return nil, fmt.Errorf("read corpus: %w", err)
	}
	var names []string
	for _, e := range entries {
		if e.IsDir() {
			names = append(names, e.Name())
		}
	}
	sort.Strings(names)
	return names, nil
}

// Expect reads the expect.json of the site dir/name.
func Expect(dir, name string) (Expectation, error) {
	var e Expectation
	raw, err := os.ReadFile(filepath.Join(dir, name, "expect.json"))
	if err != nil {
		return e, fmt.Errorf("read expectation of %s: %w", name, err)
	}
	if err := json.Unmarshal(raw, &e); err != nil {
		return e, fmt.Errorf("expectation of %s: %w", name, err)
	}
	return e, nil
}

// Check compares extracted colours with e: each leading colour in order
// within ΔE2000 5, no absent colour within ΔE2000 5. It answers "" when
// they agree, else what differs.
func (e Expectation) Check(colors []string) string {
	if len(colors) < len(e.Leading) {
		return fmt.Sprintf("got %v, want leading %v", colors, e.Leading)
	}
	for i, want := range e.Leading {
		if d := DeltaE(colors[i], want); d > 5 {
			return fmt.Sprintf("colour %d is %s, want %s (ΔE2000 %.1f); got %v", i, colors[i], want, d, colors)
		}
	}
	for _, bad := range e.Absent {
		for _, c := range colors {
			if DeltaE(c, bad) <= 5 {
				return fmt.Sprintf("got %s, which should be absent (%s); got %v", c, bad, colors)
			}
		}
	}
	return ""
}

// DeltaE is the CIEDE2000 difference of two #RRGGBB colours on the 0–100
// scale; unreadable colours are infinitely far.
func DeltaE(a, b string) float64 {
	ca, err1 := colorful.Hex(a)
	cb, err2 := colorful.Hex(b)
	if err1 != nil || err2 != nil {
		return 1e9
	}
	return ca.DistanceCIEDE2000(cb) * 100
}

// ServeSite serves the corpus site dir/name on a loopback port, as its
// website: index.html at /, every other file at its path, a missing file
// 404. The fixtures name their own origin as https://<name>.example; text
// documents are served with it replaced by the server's URL, so absolute
// links lead back to the server. Close the server when done.
func ServeSite(dir, name string) *httptest.Server {
	root := filepath.Join(dir, name)
	origin := "https://" + name + ".example"
	srv := httptest.NewUnstartedServer(nil)
	srv.Config.Handler = http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		p := path.Clean("/" + r.URL.Path)
		if p == "/" {
			p = "/index.html"
		}
		body, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(p)))
		if err != nil || p == "/expect.json" {
			http.NotFound(w, r)
			return
		}
		ctype := mime.TypeByExtension(path.Ext(p))
		switch path.Ext(p) {
		case ".webmanifest":
			ctype = "application/manifest+json"
		case ".ico":
			ctype = "image/x-icon"
		}
		if ctype == "" || strings.HasPrefix(ctype, "text/") || strings.Contains(ctype, "json") || strings.Contains(ctype, "svg") {
			body = bytes.ReplaceAll(body, []byte(origin), []byte(srv.URL))
		}
		if ctype != "" {
			w.Header().Set("Content-Type", ctype)
		}
		w.Write(body)
	})
	srv.Start()
	return srv
}
