// Package fontstack finds the font stack every chart is measured and drawn
// with: Roboto and DejaVu Sans (embedded in the binary, charts.Fonts), then
// the Noto faces for CJK, Arabic, Hebrew, Devanagari and Thai, then Noto
// Color Emoji, all taken from Debian packages by path and never committed.
//
// libs/draw measures text with the faces of a Stack and the render service
// hands the same files to Chromium through the fontconfig file
// WriteFontconfig writes, with the SVG naming every family explicitly
// (CSSFamily), so Chromium falls back per character through the same faces
// in the same order as the measurement.
//
// The CJK family is Noto Sans CJK SC, picked by name from the Pan-CJK
// collection (face 2 of NotoSansCJK-*.ttc): every regional face has the
// same characters and advances, and Simplified Chinese is the most common
// CJK text (see packaged for the reasoning).
package fontstack

import (
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"chartd.dev/charts"
	"golang.org/x/image/font/sfnt"
)

// Face is one font file (or one face of a font collection) of the stack.
type Face struct {
	// Family is the family name the face declares in its name table.
	Family string
	// Bold is set for the bold face of a family.
	Bold bool
	// Path is the installed file; empty for the faces embedded in the
	// binary (Roboto, DejaVu Sans), whose bytes Data returns.
	Path string
	// File is the base name the face has in a fontconfig directory.
	File string
	// Index is the face's index in a font collection (.ttc), 0 otherwise.
	Index int
	// embedded holds the bytes of a face built into the binary.
	embedded []byte
}

// Data reads the face's font file (the whole collection for a .ttc: select
// the face with Index). Each call reads or copies the bytes afresh, so load
// them once at start.
func (f Face) Data() ([]byte, error) {
	if f.Path == "" {
		return slices.Clone(f.embedded), nil
	}
	b, err := os.ReadFile(f.Path)
	if err != nil {
		return nil, fmt.Errorf("fontstack: %w", err)
	}
	return b, nil
}

// Family is one font family of the stack.
type Family struct {
	// Name is the family name, as the SVG and fontconfig spell it.
	Name string
	// Package is the Debian package that installs the family; empty for
	// the embedded families (Roboto, DejaVu Sans).
	Package string
	// Color marks a colour (bitmap) emoji family: text asking for emoji
	// presentation (U+FE0F) is drawn with it before any other family.
	Color bool
	// Regular is the family's regular face.
	Regular Face
	// Bold is the family's bold face; nil when the package ships none, in
	// which case Chromium emboldens Regular itself (same advances).
	Bold *Face
}

// Stack is the ordered list of font families. Build it with Find; it is
// read-only and safe for concurrent use.
type Stack struct {
	families []Family
}

// Families returns the stack's families in order, first choice first.
// The result is a copy: changing it does not change the stack.
func (s *Stack) Families() []Family {
	out := make([]Family, len(s.families))
	for i, f := range s.families {
		out[i] = f
		if f.Bold != nil {
			b := *f.Bold
			out[i].Bold = &b
		}
	}
	return out
}

// Faces returns every font file of the stack in order (each family's
// regular face, then its bold face when it has one).
func (s *Stack) Faces() []Face {
	var out []Face
	for _, f := range s.families {
		out = append(out, f.Regular)
		if f.Bold != nil {
			out = append(out, *f.Bold)
		}
	}
	return out
}

// CSSFamily is the font-family list for the SVG: every family of the stack
// named explicitly, in stack order, each in single quotes so the list sits
// in a double-quoted XML attribute unescaped. There is deliberately no
// generic family at the end: Chromium draws a bare sans-serif as
// Liberation Sans whatever fontconfig says (DESIGN §4), and a character no
// family has is left to Chromium's own fallback either way.
func (s *Stack) CSSFamily() string {
	var b strings.Builder
	for i, f := range s.families {
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteByte('\'')
		b.WriteString(f.Name)
		b.WriteByte('\'')
	}
	return b.String()
}

// DefaultDirs are the directories Find looks in: where Debian's
// fonts-noto-cjk (OpenType collections) and fonts-noto-core and
// fonts-noto-color-emoji (TrueType) install their files.
func DefaultDirs() []string {
	return []string{"/usr/share/fonts/opentype/noto", "/usr/share/fonts/truetype/noto"}
}

// want is one family Find looks for.
type want struct {
	family  string
	pkg     string
	regular string
	bold    string // "" when the package ships no bold face
	color   bool
}

// packaged lists the families taken from Debian packages, in stack order
// after the embedded Roboto and DejaVu Sans.
//
// The CJK collection holds one face per region (JP, KR, SC, TC, HK, and
// monospaced ones); all share one glyph set and the same advances and
// differ only in which regional form a unified ideograph maps to. Chromium
// cannot switch faces by language inside an explicit family list, so the
// stack names one: Noto Sans CJK SC, because Simplified Chinese is by far
// the most common CJK text. Japanese, Korean and Traditional Chinese labels
// are drawn completely (kana, hangul and every ideograph are in the face),
// with the simplified-Chinese form for the few ideographs whose regional
// forms differ; measurement is the same for every region.
func packaged() []want {
	return []want{
		{family: "Noto Sans CJK SC", pkg: "fonts-noto-cjk", regular: "NotoSansCJK-Regular.ttc", bold: "NotoSansCJK-Bold.ttc"},
		{family: "Noto Sans Arabic", pkg: "fonts-noto-core", regular: "NotoSansArabic-Regular.ttf", bold: "NotoSansArabic-Bold.ttf"},
		{family: "Noto Sans Hebrew", pkg: "fonts-noto-core", regular: "NotoSansHebrew-Regular.ttf", bold: "NotoSansHebrew-Bold.ttf"},
		{family: "Noto Sans Devanagari", pkg: "fonts-noto-core", regular: "NotoSansDevanagari-Regular.ttf", bold: "NotoSansDevanagari-Bold.ttf"},
		{family: "Noto Sans Thai", pkg: "fonts-noto-core", regular: "NotoSansThai-Regular.ttf", bold: "NotoSansThai-Bold.ttf"},
		{family: "Noto Color Emoji", pkg: "fonts-noto-color-emoji", regular: "NotoColorEmoji.ttf", color: true},
	}
}

// Find builds the stack from the embedded Roboto and DejaVu Sans and the
// Noto files in DefaultDirs. A missing or unexpected file is an error that names the
// Debian packages to install.
func Find() (*Stack, error) { return FindIn(DefaultDirs()) }

// FindIn is Find looking for the Noto files in dirs (first match wins).
// Every face's family and style are checked in its name table, not
// guessed from the file name; in a collection the face is picked by name.
func FindIn(dirs []string) (*Stack, error) {
	st := &Stack{}
	for _, set := range charts.Fonts() {
		fam := Family{Name: set.Family,
			Regular: Face{Family: set.Family, File: set.RegularFile, embedded: set.Regular},
			Bold:    &Face{Family: set.Family, Bold: true, File: set.BoldFile, embedded: set.Bold},
		}
		for _, f := range []*Face{&fam.Regular, fam.Bold} {
			if err := checkEmbedded(f); err != nil {
				return nil, err
			}
		}
		st.families = append(st.families, fam)
	}

	var missing []string
	var pkgs []string
	var errs []error
	for _, w := range packaged() {
		fam := Family{Name: w.family, Package: w.pkg, Color: w.color}
		files := []string{w.regular}
		if w.bold != "" {
			files = append(files, w.bold)
		}
		var absent []string
		for i, file := range files {
			path := locate(dirs, file)
			if path == "" {
				absent = append(absent, file)
				continue
			}
			bold := i == 1
			face, err := openFace(path, w.family, bold, w.color)
			if err != nil {
				errs = append(errs, fmt.Errorf("%w (reinstall with: apt-get install --reinstall %s)", err, w.pkg))
				continue
			}
			if bold {
				fam.Bold = &face
			} else {
				fam.Regular = face
			}
		}
		if len(absent) > 0 {
			missing = append(missing, fmt.Sprintf("%s (%s)", w.family, strings.Join(absent, ", ")))
			if !slices.Contains(pkgs, w.pkg) {
				pkgs = append(pkgs, w.pkg)
			}
			continue
		}
		st.families = append(st.families, fam)
	}
	if len(missing) > 0 {
		errs = append([]error{fmt.Errorf("fontstack: fonts not found in %s: %s; install them with: apt-get install %s",
			strings.Join(dirs, ", "), strings.Join(missing, "; "), strings.Join(pkgs, " "))}, errs...)
	}
	if len(errs) > 0 {
		return nil, errors.Join(errs...)
	}
	return st, nil
}

// locate is the first dirs/file that is a regular file (or a link to one).
func locate(dirs []string, file string) string {
	for _, d := range dirs {
		p := filepath.Join(d, file)
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			if abs, err := filepath.Abs(p); err == nil {
				return abs
			}
			return p
		}
	}
	return ""
}

// checkEmbedded verifies an embedded face's name table.
func checkEmbedded(f *Face) error {
	col, err := sfnt.ParseCollection(f.embedded)
	if err != nil {
		return fmt.Errorf("fontstack: embedded %s: %w", f.File, err)
	}
	fam, style, err := faceName(col, 0)
	if err != nil {
		return fmt.Errorf("fontstack: embedded %s: %w", f.File, err)
	}
	if fam != f.Family || isBold(style) != f.Bold {
		return fmt.Errorf("fontstack: embedded %s declares %q %q, want %q bold=%v", f.File, fam, style, f.Family, f.Bold)
	}
	return nil
}

// openFace finds the face of family (bold or regular) in the font file at
// path, reading only the tables it needs, and checks it has colour glyphs
// exactly when color is set.
func openFace(path, family string, bold, color bool) (Face, error) {
	fh, err := os.Open(path)
	if err != nil {
		return Face{}, fmt.Errorf("fontstack: %w", err)
	}
	defer fh.Close()
	col, err := sfnt.ParseCollectionReaderAt(fh)
	if err != nil {
		return Face{}, fmt.Errorf("fontstack: %s: %w", path, err)
	}
	var found []string
	for i := range col.NumFonts() {
		fam, style, err := faceName(col, i)
		if err != nil {
			return Face{}, fmt.Errorf("fontstack: %s face %d: %w", path, i, err)
		}
		if fam == family && isBold(style) == bold {
			tags, err := tables(fh, i)
			if err != nil {
				return Face{}, fmt.Errorf("fontstack: %s face %d: table directory: %w", path, i, err)
			}
			if isColor(tags) != color {
				return Face{}, fmt.Errorf("fontstack: %s: %q colour glyphs %v, want %v", path, family, isColor(tags), color)
			}
			return Face{Family: family, Bold: bold, Path: path, File: filepath.Base(path), Index: i}, nil
		}
		found = append(found, fmt.Sprintf("%q %s", fam, style))
	}
	style := "Regular"
	if bold {
		style = "Bold"
	}
	return Face{}, fmt.Errorf("fontstack: %s has no %q %s face (it has %s)", path, family, style, strings.Join(found, ", "))
}

// faceName reads a face's family (the typographic family when set) and
// subfamily from its name table.
func faceName(col *sfnt.Collection, i int) (family, style string, err error) {
	f, err := col.Font(i)
	if err != nil {
		return "", "", err
	}
	var buf sfnt.Buffer
	family, err = f.Name(&buf, sfnt.NameIDTypographicFamily)
	if err != nil || family == "" {
		if family, err = f.Name(&buf, sfnt.NameIDFamily); err != nil {
			return "", "", fmt.Errorf("name table: %w", err)
		}
	}
	style, err = f.Name(&buf, sfnt.NameIDTypographicSubfamily)
	if err != nil || style == "" {
		if style, err = f.Name(&buf, sfnt.NameIDSubfamily); err != nil {
			return "", "", fmt.Errorf("name table: %w", err)
		}
	}
	return family, style, nil
}

// isBold reports a bold subfamily name ("Bold"; DejaVu's regular is "Book").
func isBold(style string) bool { return strings.EqualFold(style, "Bold") }

// tables lists the table tags of face i of the font file r (a single font
// or a collection).
func tables(r io.ReaderAt, i int) ([]string, error) {
	var hdr [12]byte
	if _, err := r.ReadAt(hdr[:], 0); err != nil {
		return nil, err
	}
	off := int64(0)
	if string(hdr[:4]) == "ttcf" {
		var o [4]byte
		if _, err := r.ReadAt(o[:], 12+4*int64(i)); err != nil {
			return nil, err
		}
		off = int64(binary.BigEndian.Uint32(o[:]))
		if _, err := r.ReadAt(hdr[:], off); err != nil {
			return nil, err
		}
	}
	n := int(binary.BigEndian.Uint16(hdr[4:]))
	dir := make([]byte, 16*n)
	if _, err := r.ReadAt(dir, off+12); err != nil {
		return nil, err
	}
	tags := make([]string, n)
	for k := range tags {
		tags[k] = string(dir[16*k : 16*k+4])
	}
	return tags, nil
}

// isColor reports a face with colour glyphs (bitmap, layered or SVG).
func isColor(tags []string) bool {
	for _, t := range tags {
		switch t {
		case "CBDT", "COLR", "sbix", "SVG ":
			return true
		}
	}
	return false
}
