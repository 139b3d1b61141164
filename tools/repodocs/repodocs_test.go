// Package repodocs holds the tests of the repository's own documents:
// ARCHITECTURE.md names files that exist and hold what it says, and the
// documents point at nothing outside the repository.
package repodocs

import (
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
)

// root is the repository, seen from tools/repodocs.
const root = "../.."

func read(t *testing.T, path string) string {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(root, path))
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	return string(b)
}

var (
	// codeSpan is a name in backticks.
	codeSpan = regexp.MustCompile("`([^`\n]+)`")
	// namedSymbol is "`path` (`Symbol`)": a file and what it holds.
	namedSymbol = regexp.MustCompile("`([^`\n]+)` \\(`([A-Za-z_][A-Za-z0-9_]*)`")
	// mdLink is a Markdown link's target.
	mdLink = regexp.MustCompile(`\]\(([^)\s]+)\)`)
	// repoPath is a path inside the repository: segments of file-name
	// characters, optionally ending in a slash.
	repoPath = regexp.MustCompile(`^[A-Za-z0-9_.-]+(/[A-Za-z0-9_.-]+)*/?$`)
)

// topLevel lists the repository's top-level entries: a code span is taken
// for a path only when its first segment is one of them, so package
// paths like html/template are not.
func topLevel(t *testing.T) map[string]bool {
	t.Helper()
	entries, err := os.ReadDir(root)
	if err != nil {
		t.Fatalf("read the repository: %v", err)
	}
	top := make(map[string]bool)
	for _, e := range entries {
		if !strings.HasPrefix(e.Name(), ".") {
			top[e.Name()] = true
		}
	}
	return top
}

// pathsIn answers the repository paths a document names in code spans.
func pathsIn(doc string, top map[string]bool) []string {
	var paths []string
	for _, m := range codeSpan.FindAllStringSubmatch(doc, -1) {
		p := m[1]
		first, _, _ := strings.Cut(p, "/")
		if repoPath.MatchString(p) && top[first] {
			paths = append(paths, p)
		}
	}
	return paths
}

// declares reports whether a source file declares name: a Go func, method,
// type, var or const, or a JavaScript function.
func declares(src, name string) bool {
	q := regexp.QuoteMeta(name)
	return regexp.MustCompile(`(?m)^(func (\([^)]*\) )?` + q + `\b|type ` + q + `\b|\s*(var |const )?` + q + `\s+=|function ` + q + `\b)`).MatchString(src)
}

// TestArchitecturePaths checks that every path ARCHITECTURE.md names
// exists, that every "`file` (`Symbol`)" names a symbol the file
// declares, and that its links resolve, so the map cannot rot.
func TestArchitecturePaths(t *testing.T) {
	doc := read(t, "ARCHITECTURE.md")
	paths := pathsIn(doc, topLevel(t))
	if len(paths) < 40 {
		t.Fatalf("ARCHITECTURE.md names %d paths; the map names far more, so the reading is broken", len(paths))
	}
	for _, p := range paths {
		if _, err := os.Stat(filepath.Join(root, p)); err != nil {
			t.Errorf("ARCHITECTURE.md names %s, which does not exist", p)
		}
	}
	for _, m := range namedSymbol.FindAllStringSubmatch(doc, -1) {
		file, sym := m[1], m[2]
		src, err := os.ReadFile(filepath.Join(root, file))
		if err != nil {
			continue // a path that does not exist is reported above
		}
		if filepath.Ext(file) != "" && !declares(string(src), sym) {
			t.Errorf("ARCHITECTURE.md says %s holds %s; it declares no such name", file, sym)
		}
	}
	checkLinks(t, "ARCHITECTURE.md", doc)
	if n := strings.Count(doc, "\n"); n > 300 {
		t.Errorf("ARCHITECTURE.md has %d lines; keep it under 300", n)
	}
}

// TestNewcomerHunts holds the "Where to look" table to the seven things a
// newcomer hunts for first: the row names the one file, and the file
// holds the code that does it.
func TestNewcomerHunts(t *testing.T) {
	doc := read(t, "ARCHITECTURE.md")
	_, table, ok := strings.Cut(doc, "## Where to look")
	if !ok {
		t.Fatal("ARCHITECTURE.md has no \"Where to look\" section")
	}
	table, _, _ = strings.Cut(table, "\n## ")
	for _, h := range []struct {
		hunt, file, symbol, holds string
	}{
		{"how a PNG is drawn", "services/render/png.go", "rasterize", "s.deps.Raster.Render("},
		{"the image quota", "services/render/pipeline.go", "count", "AddUniqueWithin("},
		{"`/img` link verification", "services/render/links.go", "image", ".Verify(secret)"},
		{"brand colour ranking", "libs/brand/rank.go", "rankDetailed", "anchorMark("},
		{"adding an op", "libs/chartspec/ops.go", "opDefs", "defSetTitle()"},
		{"the MCP tool list", "services/gateway/mcp/mcp.go", "Tools", "buildTool("},
		{"readiness", "libs/lifecycle/lifecycle.go", "Ready", "NotReadyError"},
	} {
		t.Run(h.hunt, func(t *testing.T) {
			var row string
			for _, l := range strings.Split(table, "\n") {
				if strings.HasPrefix(l, "| "+h.hunt) {
					row = l
				}
			}
			if row == "" {
				t.Fatalf("no row for %q in \"Where to look\"", h.hunt)
			}
			if !strings.Contains(row, "`"+h.file+"` (`"+h.symbol+"`)") {
				t.Errorf("row %q does not name `%s` (`%s`)", row, h.file, h.symbol)
			}
			src := read(t, h.file)
			if !declares(src, h.symbol) || !strings.Contains(src, h.holds) {
				t.Errorf("%s does not hold %s (declaring it and calling %s)", h.file, h.symbol, h.holds)
			}
		})
	}
}

// TestDecisionsLinks checks the links of the decisions, the design, the
// spec and the README.
func TestDecisionsLinks(t *testing.T) {
	docs, err := filepath.Glob(filepath.Join(root, "docs", "decisions", "*.md"))
	if err != nil || len(docs) < 9 {
		t.Fatalf("docs/decisions holds %d files (%v); want the README and the topics", len(docs), err)
	}
	for _, d := range append(docs, filepath.Join(root, "README.md"), filepath.Join(root, "docs", "design.md")) {
		rel, err := filepath.Rel(root, d)
		if err != nil {
			t.Fatal(err)
		}
		checkLinks(t, rel, read(t, rel))
	}
}

// checkLinks fails for a relative Markdown link of doc (a path in the
// repository) whose target does not exist.
func checkLinks(t *testing.T, doc, text string) {
	t.Helper()
	for _, m := range mdLink.FindAllStringSubmatch(text, -1) {
		target, _, _ := strings.Cut(m[1], "#")
		if target == "" || strings.Contains(target, "://") || strings.HasPrefix(target, "mailto:") {
			continue
		}
		if _, err := os.Stat(filepath.Join(root, filepath.Dir(doc), target)); err != nil {
			t.Errorf("%s links to %s, which does not exist", doc, m[1])
		}
	}
}

// TestNothingPointsOutside: a clone of the repository has everything its
// documents and comments point at. The design and the contract live in
// docs/; the decisions are docs/decisions/<topic>.md.
func TestNothingPointsOutside(t *testing.T) {
	outside := []string{"../" + "shared/", "DESIGN" + ".md", "docs/decisions" + ".md"}
	text := map[string]bool{".go": true, ".md": true, ".txt": true, ".yaml": true, ".yml": true, ".json": true, ".sh": true, ".js": true, ".tpl": true}
	err := filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		name := d.Name()
		if d.IsDir() {
			if path != root && (strings.HasPrefix(name, ".") || name == "node_modules" || name == "bin" || name == "data") {
				return filepath.SkipDir
			}
			return nil
		}
		if !text[filepath.Ext(name)] && name != "Makefile" && name != "Dockerfile" {
			return nil
		}
		b, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		for _, o := range outside {
			if strings.Contains(string(b), o) {
				t.Errorf("%s points at %s, which a clone of the repository does not have", path, o)
			}
		}
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
}
