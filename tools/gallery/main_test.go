package main

import (
	"encoding/base64"
	"os"
	"path/filepath"
	"strings"
	"testing"
)

func TestBuild(t *testing.T) {
	dir := t.TempDir()
	a := `<svg xmlns="http://www.w3.org/2000/svg"><title>A</title><desc>Bar chart of <b> &amp; co</desc></svg>`
	files := map[string]string{
		"bar-one.svg": strings.Replace(a, "<b>", "&lt;b&gt;", 1),
		"pie-two.svg": `<svg xmlns="http://www.w3.org/2000/svg"><desc>Pie</desc></svg>`,
		"notes.txt":   "ignored",
	}
	for name, body := range files {
		if err := os.WriteFile(filepath.Join(dir, name), []byte(body), 0o644); err != nil {
			t.Fatal(err)
		}
	}
	page, n, err := build(dir, "")
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	if n != 2 {
		t.Errorf("%d pictures, want 2", n)
	}
	for _, want := range []string{
		"<h2>bar</h2>", "<h2>pie</h2>", "<b>bar-one</b>",
		"data:image/svg+xml;base64," + base64.StdEncoding.EncodeToString([]byte(files["pie-two.svg"])),
		"Bar chart of &lt;b&gt; &amp; co",
	} {
		if !strings.Contains(s, want) {
			t.Errorf("page lacks %q", want)
		}
	}
	if strings.Contains(s, "http") || strings.Contains(s, "src=\"/") {
		t.Error("page references something outside itself")
	}
}

func TestBuildRefusesBrokenOrMissing(t *testing.T) {
	if _, _, err := build(t.TempDir(), ""); err == nil || !strings.Contains(err.Error(), "go test ./draw -update") {
		t.Errorf("empty dir: %v", err)
	}
	dir := t.TempDir()
	if err := os.WriteFile(filepath.Join(dir, "bad.svg"), []byte("<svg><g></svg>"), 0o644); err != nil {
		t.Fatal(err)
	}
	if _, _, err := build(dir, ""); err == nil || !strings.Contains(err.Error(), "not a well-formed SVG") {
		t.Errorf("broken svg: %v", err)
	}
}

// TestRealGoldens builds the sheet from the committed goldens, SVG and PNG.
func TestRealGoldens(t *testing.T) {
	dir := filepath.Join("..", "..", "libs", "draw", "testdata")
	page, n, err := build(dir, filepath.Join("..", "..", "libs", "raster", "testdata", "png"))
	if err != nil {
		t.Fatal(err)
	}
	if n < 60 || strings.Count(string(page), "<figure>") != n || !strings.Contains(string(page), "<h2>png: issue13</h2>") {
		t.Errorf("%d pictures, %d figures", n, strings.Count(string(page), "<figure>"))
	}
}

// TestBuildWithPNGs shows the PNG goldens after the SVGs, a section per
// folder, leaving out a failed comparison's pictures.
func TestBuildWithPNGs(t *testing.T) {
	svgs, pngs := t.TempDir(), t.TempDir()
	os.WriteFile(filepath.Join(svgs, "bar-one.svg"), []byte(`<svg xmlns="http://www.w3.org/2000/svg"><desc>Bar</desc></svg>`), 0o644)
	png := "\x89PNG\r\n\x1a\nrest"
	os.MkdirAll(filepath.Join(pngs, "issue13"), 0o755)
	for _, p := range []string{"bar.png", "bar.got.png", "issue13/pie-long.png"} {
		os.WriteFile(filepath.Join(pngs, p), []byte(png), 0o644)
	}
	page, n, err := build(svgs, pngs)
	if err != nil {
		t.Fatal(err)
	}
	s := string(page)
	if n != 3 || !strings.Contains(s, "<h2>png</h2>") || !strings.Contains(s, "<h2>png: issue13</h2>") || !strings.Contains(s, "<b>pie-long</b>") || strings.Contains(s, "bar.got") {
		t.Errorf("%d pictures; page:\n%s", n, s)
	}
	os.WriteFile(filepath.Join(pngs, "broken.png"), []byte("not a png"), 0o644)
	if _, _, err := build(svgs, pngs); err == nil || !strings.Contains(err.Error(), "not a PNG") {
		t.Errorf("broken png: %v", err)
	}
}
