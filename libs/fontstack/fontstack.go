// Package fontstack finds the font stack every chart is measured and drawn
// with: Roboto and DejaVu Sans (embedded in the binary, charts.Fonts), then
// every Noto face Debian's Noto packages ship for a script or for symbols
// (fonts-noto-cjk, fonts-noto-core, fonts-noto-color-emoji), taken by
// path and never committed. FindIn gives the order.
//
// libs/draw measures text with the faces of a Stack and the render service
// hands the same files to Chromium through the fontconfig file
// WriteFontconfig writes, with the SVG naming the families explicitly
// (CSSFamily), so Chromium falls back per character through the same faces
// in the same order as the measurement. Each family's font files are at
// hand (Family.Regular, Family.Bold: Path, Index, Data) for whatever
// embeds or subsets them.
//
// The CJK family is Noto Sans CJK SC, picked by name from the Pan-CJK
// collection (face 2 of NotoSansCJK-*.ttc): every regional face has the
// same characters and advances, and Simplified Chinese is the most common
// CJK text (see head for the reasoning).
package fontstack

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"

	"chartd.dev/charts"
	gotext "github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
	"github.com/go-text/typesetting/font/opentype/tables"
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

// File is an open font file: what go-text's opentype loader and most
// font parsers read (io.ReaderAt for tables, io.ReadSeeker for headers).
type File interface {
	io.ReadSeeker
	io.ReaderAt
	io.Closer
}

// Open opens the face's font file (the whole collection for a .ttc:
// select the face with Index) for reading its tables without loading the
// whole file: a CJK collection is 20 MB, its layout tables under one.
// Close it after use.
func (f Face) Open() (File, error) {
	if f.Path == "" {
		return embeddedFile{bytes.NewReader(f.embedded)}, nil
	}
	fh, err := os.Open(f.Path)
	if err != nil {
		return nil, fmt.Errorf("fontstack: %w", err)
	}
	return fh, nil
}

// embeddedFile is an embedded face's bytes as a File.
type embeddedFile struct{ *bytes.Reader }

// Close does nothing: the bytes belong to the binary.
func (embeddedFile) Close() error { return nil }

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
	family  string // "": the name the regular file declares (a discovered family)
	pkg     string
	regular string
	bold    string // "" when the package ships no bold face
	// boldOptional takes the bold file when it is there: discovered
	// families have a bold face only where the package ships one.
	boldOptional bool
	color        bool
}

// notoCore is the Debian package that installs every Noto Sans face the
// stack discovers, and the serif, looped and symbol faces it adds
// (fonts-noto-extra adds only other weights and Noto Sans Mono).
const notoCore = "fonts-noto-core"

// head lists the families that come right after the embedded Roboto and
// DejaVu Sans, in this order: the CJK collection and the first scripts
// the stack covered. They keep their place, so a character several faces
// have (the Devanagari danda, Arabic punctuation) is drawn as before.
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
func head() []want {
	return []want{
		{family: "Noto Sans CJK SC", pkg: "fonts-noto-cjk", regular: "NotoSansCJK-Regular.ttc", bold: "NotoSansCJK-Bold.ttc"},
		{family: "Noto Sans Arabic", pkg: notoCore, regular: "NotoSansArabic-Regular.ttf", bold: "NotoSansArabic-Bold.ttf"},
		{family: "Noto Sans Hebrew", pkg: notoCore, regular: "NotoSansHebrew-Regular.ttf", bold: "NotoSansHebrew-Bold.ttf"},
		{family: "Noto Sans Devanagari", pkg: notoCore, regular: "NotoSansDevanagari-Regular.ttf", bold: "NotoSansDevanagari-Bold.ttf"},
		{family: "Noto Sans Thai", pkg: notoCore, regular: "NotoSansThai-Regular.ttf", bold: "NotoSansThai-Bold.ttf"},
	}
}

// required are discovered Noto Sans files (by the name between "NotoSans"
// and "-Regular.ttf") whose absence is an error: Noto Sans itself (it
// alone has ₿ and the newest Latin and Cyrillic letters) and the scripts
// the stack was extended for. Any other discovered family is taken when
// it is installed.
var required = []string{"", "Bengali", "Tamil", "Gujarati", "Gurmukhi", "Telugu", "Kannada", "Malayalam",
	"Sinhala", "Khmer", "Myanmar", "Ethiopic", "Mongolian", "Lao", "Armenian", "Georgian", "Oriya"}

// skipStem reports a discovered Noto Sans file that is not a family of
// its own in the stack: Noto Sans Display and Mono (cuts of Noto Sans),
// the UI variants (fonts-noto-ui-core: the same scripts squeezed to Latin
// line height), unjoined Adlam and the regional Tifinagh styles (other
// forms of a script the stack draws), and the symbol faces, which tail
// places after the colour emoji. TestSkippedFacesAddNothing checks that
// every face left out adds no character to the stack.
func skipStem(stem string) bool {
	switch {
	case stem == "Display", stem == "Mono", stem == "AdlamUnjoined",
		strings.HasSuffix(stem, "UI"),
		strings.HasPrefix(stem, "Tifinagh") && stem != "Tifinagh",
		strings.HasPrefix(stem, "Mono"), strings.HasPrefix(stem, "CJK"):
		return true
	}
	return slices.ContainsFunc(tail(), func(w want) bool { return w.regular == "NotoSans"+stem+"-Regular.ttf" })
}

// notSans lists the faces of scripts that Debian's Noto packages draw
// only in a serif or looped style: Tibetan, Ahom, Dogra, Nyiakeng Puachue
// Hmong, Tangut and Yezidi, and the Pali letters of Noto Looped Lao. They
// come after every Noto Sans face, so they draw only what no sans face has.
func notSans() []want {
	return []want{
		{family: "Noto Serif Tibetan", pkg: notoCore, regular: "NotoSerifTibetan-Regular.ttf", bold: "NotoSerifTibetan-Bold.ttf"},
		{family: "Noto Serif Ahom", pkg: notoCore, regular: "NotoSerifAhom-Regular.ttf"},
		{family: "Noto Serif Dogra", pkg: notoCore, regular: "NotoSerifDogra-Regular.ttf"},
		{family: "Noto Serif Hmong Nyiakeng", pkg: notoCore, regular: "NotoSerifNyiakengPuachueHmong-Regular.ttf", bold: "NotoSerifNyiakengPuachueHmong-Bold.ttf"},
		{family: "Noto Serif Tangut", pkg: notoCore, regular: "NotoSerifTangut-Regular.ttf"},
		{family: "Noto Serif Yezidi", pkg: notoCore, regular: "NotoSerifYezidi-Regular.ttf", bold: "NotoSerifYezidi-Bold.ttf"},
		{family: "Noto Looped Lao", pkg: notoCore, regular: "NotoLoopedLao-Regular.ttf", bold: "NotoLoopedLao-Bold.ttf"},
	}
}

// emoji is the colour emoji family.
func emoji() want {
	return want{family: "Noto Color Emoji", pkg: "fonts-noto-color-emoji", regular: "NotoColorEmoji.ttf", color: true}
}

// tail lists the symbol faces, after the colour emoji: Noto Sans Symbols
// 2 has plain outlines of most emoji (📈, 👍, ⭐), and Chromium takes a
// character from the first family in the list that has it, so before the
// emoji face they would turn emoji grey.
func tail() []want {
	return []want{
		{family: "Noto Sans Symbols", pkg: notoCore, regular: "NotoSansSymbols-Regular.ttf", bold: "NotoSansSymbols-Bold.ttf"},
		{family: "Noto Sans Symbols2", pkg: notoCore, regular: "NotoSansSymbols2-Regular.ttf"},
		{family: "Noto Sans Math", pkg: notoCore, regular: "NotoSansMath-Regular.ttf"},
		{family: "Noto Music", pkg: notoCore, regular: "NotoMusic-Regular.ttf"},
	}
}

// discover lists the Noto Sans families installed in dirs, as
// NotoSans<stem>-Regular.ttf (and -Bold.ttf where shipped), in the order
// of their file names, without the ones skipStem and head name.
func discover(dirs []string) []want {
	seen := map[string]bool{}
	for _, w := range head() {
		seen[w.regular] = true
	}
	var files []string
	for _, d := range dirs {
		found, _ := filepath.Glob(filepath.Join(d, "NotoSans*-Regular.ttf"))
		for _, p := range found {
			if f := filepath.Base(p); !seen[f] {
				seen[f] = true
				files = append(files, f)
			}
		}
	}
	for _, stem := range required {
		if f := "NotoSans" + stem + "-Regular.ttf"; !seen[f] {
			seen[f] = true
			files = append(files, f) // locate reports it missing
		}
	}
	slices.Sort(files)
	var out []want
	for _, f := range files {
		stem := strings.TrimSuffix(strings.TrimPrefix(f, "NotoSans"), "-Regular.ttf")
		if skipStem(stem) {
			continue
		}
		out = append(out, want{pkg: notoCore, regular: f, bold: "NotoSans" + stem + "-Bold.ttf", boldOptional: true})
	}
	return out
}

// Find builds the stack from the embedded Roboto and DejaVu Sans and the
// Noto files in DefaultDirs. A missing or unexpected file is an error that
// names the Debian packages to install.
func Find() (*Stack, error) { return FindIn(DefaultDirs()) }

// FindIn is Find looking for the Noto files in dirs (first match wins).
// The stack is, in order: Roboto and DejaVu Sans; Noto Sans CJK SC,
// Arabic, Hebrew, Devanagari and Thai; every other Noto Sans family
// installed (Noto Sans itself, then one per script: Adlam … Zanabazar
// Square, by file name); the serif and looped faces of the scripts no sans
// face covers; Noto Color Emoji; Noto Sans Symbols, Symbols2, Math and
// Noto Music. Every face's family and style are checked in its name
// table, not guessed from the file name; in a collection the face is
// picked by name.
func FindIn(dirs []string) (*Stack, error) {
	st := &Stack{}
	cover := newCoverage()
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
		lds, err := ot.NewLoaders(bytes.NewReader(set.Regular))
		if err != nil {
			return nil, fmt.Errorf("fontstack: embedded %s: %w", set.RegularFile, err)
		}
		if _, err := cover.add(lds[0]); err != nil {
			return nil, fmt.Errorf("fontstack: embedded %s: %w", set.RegularFile, err)
		}
		st.families = append(st.families, fam)
	}

	wants := append(head(), discover(dirs)...)
	wants = append(append(append(wants, notSans()...), emoji()), tail()...)
	var missing []string
	var pkgs []string
	var errs []error
	for _, w := range wants {
		fam, absent, adds, err := findFamily(dirs, w, cover)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		if len(absent) > 0 {
			entry := strings.Join(absent, ", ")
			if w.family != "" {
				entry = fmt.Sprintf("%s (%s)", w.family, entry)
			}
			missing = append(missing, entry)
			if !slices.Contains(pkgs, w.pkg) {
				pkgs = append(pkgs, w.pkg)
			}
			continue
		}
		if !adds {
			continue // every character it has is drawn by a family before it
		}
		if slices.ContainsFunc(st.families, func(f Family) bool { return f.Name == fam.Name }) {
			errs = append(errs, fmt.Errorf("fontstack: %s: family %q is in the stack twice", fam.Regular.Path, fam.Name))
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

// findFamily locates and checks the files of one wanted family; absent
// lists the files that are not installed, adds is set when its regular
// face has a character cover lacks (and cover then has them).
func findFamily(dirs []string, w want, cover *coverage) (fam Family, absent []string, adds bool, err error) {
	fam = Family{Name: w.family, Package: w.pkg, Color: w.color}
	wrap := func(err error) error {
		return fmt.Errorf("%w (reinstall with: apt-get install --reinstall %s)", err, w.pkg)
	}
	regular := locate(dirs, w.regular)
	if regular == "" {
		absent = append(absent, w.regular)
	} else {
		if fam.Name == "" {
			if fam.Name, err = declaredFamily(regular); err != nil {
				return fam, nil, false, wrap(err)
			}
		}
		if fam.Regular, adds, err = openFace(regular, fam.Name, false, w.color, cover); err != nil {
			return fam, nil, false, wrap(err)
		}
	}
	if w.bold == "" {
		return fam, absent, adds, nil
	}
	bold := locate(dirs, w.bold)
	switch {
	case bold == "" && w.boldOptional:
	case bold == "":
		absent = append(absent, w.bold)
	case fam.Name != "":
		face, _, err := openFace(bold, fam.Name, true, w.color, nil)
		if err != nil {
			return fam, nil, false, wrap(err)
		}
		fam.Bold = &face
	}
	return fam, absent, adds, nil
}

// coverage is a set of characters, one bit each.
type coverage []uint64

func newCoverage() *coverage {
	c := make(coverage, (unicode.MaxRune+1)/64)
	return &c
}

// add puts the characters of a face's character map into c and reports
// whether any was not there yet.
func (c *coverage) add(ld *ot.Loader) (bool, error) {
	raw, err := ld.RawTable(ot.MustNewTag("cmap"))
	if err != nil {
		return false, fmt.Errorf("cmap table: %w", err)
	}
	cmap, _, err := tables.ParseCmap(raw)
	if err != nil {
		return false, fmt.Errorf("cmap table: %w", err)
	}
	chars, _, err := gotext.ProcessCmap(cmap, 0)
	if err != nil {
		return false, fmt.Errorf("cmap table: %w", err)
	}
	added := false
	for it := chars.Iter(); it.Next(); {
		r, gid := it.Char()
		if gid == 0 || r < 0 || r > unicode.MaxRune {
			continue
		}
		if w, bit := &(*c)[r/64], uint64(1)<<(r%64); *w&bit == 0 {
			*w |= bit
			added = true
		}
	}
	return added, nil
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
	lds, err := ot.NewLoaders(bytes.NewReader(f.embedded))
	if err != nil {
		return fmt.Errorf("fontstack: embedded %s: %w", f.File, err)
	}
	fam, style, err := faceName(lds[0])
	if err != nil {
		return fmt.Errorf("fontstack: embedded %s: %w", f.File, err)
	}
	if fam != f.Family || isBold(style) != f.Bold {
		return fmt.Errorf("fontstack: embedded %s declares %q %q, want %q bold=%v", f.File, fam, style, f.Family, f.Bold)
	}
	return nil
}

// declaredFamily is the family the first face of the font file at path
// declares.
func declaredFamily(path string) (string, error) {
	fh, err := os.Open(path)
	if err != nil {
		return "", fmt.Errorf("fontstack: %w", err)
	}
	defer fh.Close()
	lds, err := ot.NewLoaders(fh)
	if err != nil {
		return "", fmt.Errorf("fontstack: %s: %w", path, err)
	}
	fam, _, err := faceName(lds[0])
	if err != nil {
		return "", fmt.Errorf("fontstack: %s: %w", path, err)
	}
	return fam, nil
}

// openFace finds the face of family (bold or regular) in the font file at
// path, reading only its table directory, name table and (with cover)
// character map, and checks it has colour glyphs exactly when color is
// set. With cover, adds reports whether the face has characters cover
// lacks, and puts them in.
func openFace(path, family string, bold, color bool, cover *coverage) (face Face, adds bool, err error) {
	fh, err := os.Open(path)
	if err != nil {
		return Face{}, false, fmt.Errorf("fontstack: %w", err)
	}
	defer fh.Close()
	lds, err := ot.NewLoaders(fh)
	if err != nil {
		return Face{}, false, fmt.Errorf("fontstack: %s: %w", path, err)
	}
	var found []string
	for i, ld := range lds {
		fam, style, err := faceName(ld)
		if err != nil {
			return Face{}, false, fmt.Errorf("fontstack: %s face %d: %w", path, i, err)
		}
		if fam == family && isBold(style) == bold {
			if isColor(ld) != color {
				return Face{}, false, fmt.Errorf("fontstack: %s: %q colour glyphs %v, want %v", path, family, isColor(ld), color)
			}
			if cover != nil {
				if adds, err = cover.add(ld); err != nil {
					return Face{}, false, fmt.Errorf("fontstack: %s face %d: %w", path, i, err)
				}
			}
			return Face{Family: family, Bold: bold, Path: path, File: filepath.Base(path), Index: i}, adds, nil
		}
		found = append(found, fmt.Sprintf("%q %s", fam, style))
	}
	style := "Regular"
	if bold {
		style = "Bold"
	}
	return Face{}, false, fmt.Errorf("fontstack: %s has no %q %s face (it has %s)", path, family, style, strings.Join(found, ", "))
}

// Name table entries (OpenType name IDs).
const (
	nameFamily            = 1
	nameSubfamily         = 2
	nameTypographicFamily = 16
	nameTypographicStyle  = 17
)

// faceName reads a face's family (the typographic family when set) and
// subfamily from its name table.
func faceName(ld *ot.Loader) (family, style string, err error) {
	raw, err := ld.RawTable(ot.MustNewTag("name"))
	if err != nil {
		return "", "", fmt.Errorf("name table: %w", err)
	}
	names, _, err := tables.ParseName(raw)
	if err != nil {
		return "", "", fmt.Errorf("name table: %w", err)
	}
	if family = names.Name(nameTypographicFamily); family == "" {
		family = names.Name(nameFamily)
	}
	if style = names.Name(nameTypographicStyle); style == "" {
		style = names.Name(nameSubfamily)
	}
	if family == "" {
		return "", "", errors.New("name table: no family name")
	}
	return family, style, nil
}

// isBold reports a bold subfamily name ("Bold"; DejaVu's regular is "Book").
func isBold(style string) bool { return strings.EqualFold(style, "Bold") }

// isColor reports a face with colour glyphs (bitmap, layered or SVG).
func isColor(ld *ot.Loader) bool {
	for _, t := range []string{"CBDT", "COLR", "sbix", "SVG "} {
		if ld.HasTable(ot.MustNewTag(t)) {
			return true
		}
	}
	return false
}
