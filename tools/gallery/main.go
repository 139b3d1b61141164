// Command gallery writes one HTML contact sheet of every golden SVG of
// libs/draw, so a person can review all chart types and edge cases at a
// glance after `go test ./draw -update`; with -png, the PNG goldens of
// libs/raster follow (the catalog samples and issue 13's items, as
// Chromium draws them). It reads files only and needs no network: each
// picture is inlined as a data: image.
//
//	go run ./tools/gallery -dir libs/draw/testdata -png libs/raster/testdata/png -out bin/gallery.html
package main

import (
	"bytes"
	"encoding/base64"
	"encoding/xml"
	"flag"
	"fmt"
	"html"
	"io"
	"os"
	"path/filepath"
	"sort"
	"strings"
)

func main() {
	dir := flag.String("dir", "libs/draw/testdata", "directory holding the golden .svg files")
	pngDir := flag.String("png", "", "directory holding PNG goldens (and one level of subdirectories) to show after the SVGs")
	out := flag.String("out", "bin/gallery.html", "where to write the contact sheet")
	flag.Parse()
	page, n, err := build(*dir, *pngDir)
	if err != nil {
		fmt.Fprintln(os.Stderr, "gallery:", err)
		os.Exit(1)
	}
	if err := os.MkdirAll(filepath.Dir(*out), 0o755); err != nil {
		fmt.Fprintln(os.Stderr, "gallery:", err)
		os.Exit(1)
	}
	if err := os.WriteFile(*out, page, 0o644); err != nil {
		fmt.Fprintln(os.Stderr, "gallery:", err)
		os.Exit(1)
	}
	fmt.Printf("gallery: %d pictures → %s\n", n, *out)
}

// picture is one golden file on the sheet.
type picture struct {
	name string
	desc string
	svg  []byte
}

// build reads every .svg in dir and lays them out on one page, grouped by
// the chart type their name starts with, then every .png in pngDir and its
// subdirectories (none when pngDir is ""), grouped by folder.
func build(dir, pngDir string) ([]byte, int, error) {
	paths, err := filepath.Glob(filepath.Join(dir, "*.svg"))
	if err != nil {
		return nil, 0, fmt.Errorf("list %s: %w", dir, err)
	}
	if len(paths) == 0 {
		return nil, 0, fmt.Errorf("no .svg files in %s (run: cd libs && go test ./draw -update)", dir)
	}
	sort.Strings(paths)
	var pics []picture
	for _, p := range paths {
		b, err := os.ReadFile(p)
		if err != nil {
			return nil, 0, fmt.Errorf("read %s: %w", p, err)
		}
		desc, err := description(b)
		if err != nil {
			return nil, 0, fmt.Errorf("%s is not a well-formed SVG: %w", p, err)
		}
		pics = append(pics, picture{name: strings.TrimSuffix(filepath.Base(p), ".svg"), desc: desc, svg: b})
	}
	var w bytes.Buffer
	w.WriteString(`<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>chartd drawing gallery</title>
<style>
body{font-family:Roboto,"DejaVu Sans",system-ui,sans-serif;margin:24px;background:#F3F4F6;color:#1F2328}
h1{font-size:20px}h2{font-size:16px;margin:28px 0 8px;text-transform:capitalize}
.grid{display:grid;grid-template-columns:repeat(auto-fill,minmax(420px,1fr));gap:16px}
figure{margin:0;background:#fff;border:1px solid #D8DEE4;border-radius:6px;padding:8px}
img{width:100%;height:auto;display:block;background:repeating-conic-gradient(#F6F8FA 0 25%,#fff 0 50%) 0 0/16px 16px}
figcaption{font-size:12px;margin-top:6px}figcaption b{display:block;font-size:13px}
</style></head><body>
`)
	fmt.Fprintf(&w, "<h1>chartd drawing gallery — %d golden SVGs</h1>\n", len(pics))
	if pngDir != "" {
		w.WriteString("<p>The PNG goldens of libs/raster follow the SVGs.</p>\n")
	}
	group := ""
	for _, p := range pics {
		g, _, _ := strings.Cut(p.name, "-")
		if g != group {
			if group != "" {
				w.WriteString("</div>\n")
			}
			fmt.Fprintf(&w, "<h2>%s</h2>\n<div class=\"grid\">\n", html.EscapeString(g))
			group = g
		}
		fmt.Fprintf(&w, "<figure><img alt=\"%s\" src=\"data:image/svg+xml;base64,%s\"><figcaption><b>%s</b>%s · %d bytes</figcaption></figure>\n",
			html.EscapeString(p.desc), base64.StdEncoding.EncodeToString(p.svg), html.EscapeString(p.name), html.EscapeString(p.desc), len(p.svg))
	}
	w.WriteString("</div>\n")
	n, err := writePNGs(&w, pngDir)
	if err != nil {
		return nil, 0, err
	}
	w.WriteString("</body></html>\n")
	return w.Bytes(), len(pics) + n, nil
}

// writePNGs adds the PNG goldens of dir and its subdirectories, one
// section per folder, and answers how many.
func writePNGs(w *bytes.Buffer, dir string) (int, error) {
	if dir == "" {
		return 0, nil
	}
	top, err := filepath.Glob(filepath.Join(dir, "*.png"))
	if err != nil {
		return 0, fmt.Errorf("list %s: %w", dir, err)
	}
	sub, _ := filepath.Glob(filepath.Join(dir, "*", "*.png"))
	paths := append(top, sub...)
	if len(paths) == 0 {
		return 0, fmt.Errorf("no .png files in %s (run: cd libs && go test -run TestGoldenPNG -update ./raster)", dir)
	}
	group, n := "", 0
	for _, p := range paths {
		name := filepath.Base(p)
		if strings.HasSuffix(name, ".got.png") || strings.HasSuffix(name, ".diff.png") {
			continue // a failed comparison's output, not a golden
		}
		b, err := os.ReadFile(p)
		if err != nil {
			return 0, fmt.Errorf("read %s: %w", p, err)
		}
		if !bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")) {
			return 0, fmt.Errorf("%s is not a PNG", p)
		}
		g := "png"
		if rel, _ := filepath.Rel(dir, filepath.Dir(p)); rel != "." {
			g = "png: " + filepath.ToSlash(rel)
		}
		if g != group {
			if group != "" {
				w.WriteString("</div>\n")
			}
			fmt.Fprintf(w, "<h2>%s</h2>\n<div class=\"grid\">\n", html.EscapeString(g))
			group = g
		}
		label := strings.TrimSuffix(name, ".png")
		fmt.Fprintf(w, "<figure><img alt=\"%s\" src=\"data:image/png;base64,%s\"><figcaption><b>%s</b>PNG · %d bytes</figcaption></figure>\n",
			html.EscapeString(label), base64.StdEncoding.EncodeToString(b), html.EscapeString(label), len(b))
		n++
	}
	if group != "" {
		w.WriteString("</div>\n")
	}
	return n, nil
}

// description reads the SVG's <desc>, checking on the way that it parses.
func description(svg []byte) (string, error) {
	dec := xml.NewDecoder(bytes.NewReader(svg))
	desc, in := "", false
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return desc, nil
		}
		if err != nil {
			return "", err
		}
		switch el := tok.(type) {
		case xml.StartElement:
			in = el.Name.Local == "desc" && desc == ""
		case xml.EndElement:
			in = false
		case xml.CharData:
			if in {
				desc += string(el)
			}
		}
	}
}
