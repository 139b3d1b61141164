package fontstack

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"
	"unicode"

	"chartd.dev/charts"
	ot "github.com/go-text/typesetting/font/opentype"
)

// testStack finds the installed stack once for all tests.
var testStack = sync.OnceValues(Find)

func stack(t *testing.T) *Stack {
	t.Helper()
	st, err := testStack()
	if err != nil {
		t.Fatalf("the font stack is not installed (tools/ci/deps.sh installs it): %v", err)
	}
	return st
}

// TestFindOrder: Roboto and DejaVu Sans, the CJK face and the first
// scripts, every other Noto Sans family in file-name order (Noto Sans
// itself first), the serif and looped faces, the colour emoji, then the
// symbol faces; regular and bold where Debian ships a bold face.
func TestFindOrder(t *testing.T) {
	st := stack(t)
	type fam struct {
		name, pkg   string
		bold, color bool
	}
	core := func(name string, bold bool) fam { return fam{name, "fonts-noto-core", bold, false} }
	head := []fam{
		{"Roboto", "", true, false},
		{"DejaVu Sans", "", true, false},
		{"Noto Sans CJK SC", "fonts-noto-cjk", true, false},
		core("Noto Sans Arabic", true), core("Noto Sans Hebrew", true), core("Noto Sans Devanagari", true),
		core("Noto Sans Thai", true), core("Noto Sans", true),
	}
	tail := []fam{
		core("Noto Serif Tibetan", true), core("Noto Serif Ahom", false), core("Noto Serif Dogra", false),
		core("Noto Serif Hmong Nyiakeng", true), core("Noto Serif Tangut", false), core("Noto Serif Yezidi", true),
		core("Noto Looped Lao", true),
		{"Noto Color Emoji", "fonts-noto-color-emoji", false, true},
		core("Noto Sans Symbols", true), core("Noto Sans Symbols2", false), core("Noto Sans Math", false), core("Noto Music", false),
	}
	var got []fam
	faces := 0
	for _, f := range st.Families() {
		got = append(got, fam{f.Name, f.Package, f.Bold != nil, f.Color})
		faces++
		if f.Regular.Family != f.Name || f.Regular.Bold {
			t.Errorf("%s: regular face %+v", f.Name, f.Regular)
		}
		if f.Bold != nil {
			faces++
			if f.Bold.Family != f.Name || !f.Bold.Bold {
				t.Errorf("%s: bold face %+v", f.Name, *f.Bold)
			}
		}
	}
	if len(got) < len(head)+len(tail)+100 {
		t.Fatalf("%d families, want well over 100: %v", len(got), got)
	}
	if h := got[:len(head)]; !slices.Equal(h, head) {
		t.Errorf("first families\n got %v\nwant %v", h, head)
	}
	if tl := got[len(got)-len(tail):]; !slices.Equal(tl, tail) {
		t.Errorf("last families\n got %v\nwant %v", tl, tail)
	}
	// Between them: one Noto Sans family per script, in file-name order,
	// regular and (where shipped) bold.
	mid := st.Families()[len(head) : len(got)-len(tail)]
	if !slices.IsSortedFunc(mid, func(a, b Family) int { return strings.Compare(a.Regular.File, b.Regular.File) }) {
		t.Error("the Noto Sans script families are not in file-name order")
	}
	for _, want := range []fam{
		core("Noto Sans Bengali", true), core("Noto Sans Tamil", true), core("Noto Sans Gujarati", true),
		core("Noto Sans Gurmukhi", true), core("Noto Sans Telugu", true), core("Noto Sans Kannada", true),
		core("Noto Sans Malayalam", true), core("Noto Sans Sinhala", true), core("Noto Sans Khmer", true),
		core("Noto Sans Myanmar", true), core("Noto Sans Ethiopic", true), core("Noto Sans Mongolian", false),
		core("Noto Sans Lao", true), core("Noto Sans Oriya", true), core("Noto Sans Georgian", true),
		core("Noto Sans Armenian", true), core("Noto Sans Syriac", false), core("Noto Sans Thaana", true),
		core("Noto Sans Tifinagh", false), core("Noto Sans Adlam", true), core("Noto Sans Yi", false),
	} {
		if !slices.Contains(got, want) {
			t.Errorf("the stack lacks %v", want)
		}
	}
	for _, f := range mid {
		if !strings.HasPrefix(f.Name, "Noto Sans ") || strings.HasSuffix(f.Name, " UI") ||
			slices.Contains([]string{"Noto Sans Display", "Noto Sans Mono", "Noto Sans Adlam Unjoined"}, f.Name) ||
			strings.HasPrefix(f.Name, "Noto Sans Tifinagh ") {
			t.Errorf("%s (%s) is not a Noto Sans script family the stack takes", f.Name, f.Regular.File)
		}
	}
	if n := len(st.Faces()); n != faces {
		t.Errorf("%d faces, the families have %d", n, faces)
	}
}

// TestFacesAreWhatTheyClaim reads every face's name table back: the file
// and index a Face points at hold that family in that style.
func TestFacesAreWhatTheyClaim(t *testing.T) {
	for _, f := range stack(t).Faces() {
		b, err := f.Data()
		if err != nil {
			t.Fatal(err)
		}
		lds, err := ot.NewLoaders(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", f.File, err)
		}
		fam, style, err := faceName(lds[f.Index])
		if err != nil {
			t.Fatalf("%s: %v", f.File, err)
		}
		if fam != f.Family || isBold(style) != f.Bold {
			t.Errorf("%s face %d is %q %q, the stack says %q bold=%v", f.File, f.Index, fam, style, f.Family, f.Bold)
		}
		if f.Path == "" && f.Family != "Roboto" && f.Family != "DejaVu Sans" {
			t.Errorf("%s: only Roboto and DejaVu Sans are embedded", f.File)
		}
		if f.Path != "" && !filepath.IsAbs(f.Path) {
			t.Errorf("%s: path %q is not absolute", f.File, f.Path)
		}
	}
}

// TestEmbeddedNameTables: every embedded face (Roboto and DejaVu Sans,
// regular and bold) passes the name-table check Find makes, and the check
// refuses a face that is not what it is called (another family, or the
// other weight).
func TestEmbeddedNameTables(t *testing.T) {
	sets := charts.Fonts()
	if len(sets) != 2 || sets[0].Family != "Roboto" || sets[1].Family != "DejaVu Sans" {
		t.Fatalf("embedded families %d, want Roboto then DejaVu Sans", len(sets))
	}
	for i, set := range sets {
		other := sets[1-i]
		for _, c := range []struct {
			face Face
			ok   bool
		}{
			{Face{Family: set.Family, File: set.RegularFile, embedded: set.Regular}, true},
			{Face{Family: set.Family, Bold: true, File: set.BoldFile, embedded: set.Bold}, true},
			{Face{Family: set.Family, Bold: true, File: set.RegularFile, embedded: set.Regular}, false},
			{Face{Family: set.Family, File: set.BoldFile, embedded: set.Bold}, false},
			{Face{Family: set.Family, File: other.RegularFile, embedded: other.Regular}, false},
		} {
			err := checkEmbedded(&c.face)
			if (err == nil) != c.ok {
				t.Errorf("%s as %q bold=%v: error %v, want ok=%v", c.face.File, c.face.Family, c.face.Bold, err, c.ok)
			}
		}
		if !strings.Contains(set.License, set.Family) || set.LicenseFile == "" {
			t.Errorf("%s: licence %q does not name the family", set.Family, set.LicenseFile)
		}
	}
}

func TestFamiliesIsACopy(t *testing.T) {
	st := stack(t)
	fs := st.Families()
	fs[0].Name = "Comic Sans"
	fs[0].Bold.Path = "/x"
	if g := st.Families(); g[0].Name != "Roboto" || g[0].Bold.Path != "" {
		t.Errorf("changing Families() changed the stack: %+v", g[0])
	}
}

func TestCSSFamily(t *testing.T) {
	st := stack(t)
	var names []string
	for _, f := range st.Families() {
		names = append(names, "'"+f.Name+"'")
	}
	got := st.CSSFamily()
	if want := strings.Join(names, ", "); got != want {
		t.Errorf("CSSFamily\n got %s\nwant %s", got, want)
	}
	if !strings.HasPrefix(got, "'Roboto', 'DejaVu Sans', 'Noto Sans CJK SC', 'Noto Sans Arabic', ") ||
		!strings.HasSuffix(got, ", 'Noto Color Emoji', 'Noto Sans Symbols', 'Noto Sans Symbols2', 'Noto Sans Math', 'Noto Music'") {
		t.Errorf("CSSFamily %s", got)
	}
}

// linkDir makes a directory of links to the installed Noto files, without
// the ones named in skip, and with the replacements in swap (file → the
// file it links to instead).
func linkDir(t *testing.T, skip []string, swap map[string]string) string {
	t.Helper()
	dir := t.TempDir()
	for _, f := range stack(t).Faces() {
		if f.Path == "" || slices.Contains(skip, f.File) {
			continue
		}
		target := f.Path
		if s, ok := swap[f.File]; ok {
			target = filepath.Join(filepath.Dir(f.Path), s)
		}
		if err := os.Symlink(target, filepath.Join(dir, f.File)); err != nil && !os.IsExist(err) {
			t.Fatal(err)
		}
	}
	return dir
}

func TestFindMissing(t *testing.T) {
	_, err := FindIn([]string{t.TempDir()})
	if err == nil {
		t.Fatal("no error for an empty directory")
	}
	for _, s := range []string{"Noto Sans CJK SC (NotoSansCJK-Regular.ttc, NotoSansCJK-Bold.ttc)", "Noto Color Emoji (NotoColorEmoji.ttf)",
		"; NotoSans-Regular.ttf; ", "; NotoSansBengali-Regular.ttf; ", "; NotoSansMongolian-Regular.ttf; ",
		"Noto Sans Symbols2 (NotoSansSymbols2-Regular.ttf)", "Noto Serif Tibetan (NotoSerifTibetan-Regular.ttf, NotoSerifTibetan-Bold.ttf)",
		"apt-get install fonts-noto-cjk fonts-noto-core fonts-noto-color-emoji"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
		}
	}

	// A script the stack was extended for is required; other discovered
	// families are taken when installed, their bold face where shipped.
	_, err = FindIn([]string{linkDir(t, []string{"NotoSansKhmer-Regular.ttf"}, nil)})
	if err == nil || !strings.Contains(err.Error(), "NotoSansKhmer-Regular.ttf; install them with: apt-get install fonts-noto-core") {
		t.Errorf("without Khmer: error %v", err)
	}
	st, err := FindIn([]string{linkDir(t, []string{"NotoSansAdlam-Regular.ttf", "NotoSansAdlam-Bold.ttf", "NotoSansBengali-Bold.ttf"}, nil)})
	if err != nil {
		t.Fatalf("without Adlam and Bengali bold: %v", err)
	}
	for _, f := range st.Families() {
		if f.Name == "Noto Sans Adlam" || f.Name == "Noto Sans Bengali" && f.Bold != nil {
			t.Errorf("%s bold=%v is in the stack without its files", f.Name, f.Bold != nil)
		}
	}

	_, err = FindIn([]string{linkDir(t, []string{"NotoSansThai-Bold.ttf"}, nil)})
	if err == nil {
		t.Fatal("no error without Thai bold")
	}
	if msg := err.Error(); !strings.Contains(msg, "Noto Sans Thai (NotoSansThai-Bold.ttf); install them with: apt-get install fonts-noto-core") ||
		strings.Contains(msg, "fonts-noto-cjk") {
		t.Errorf("error %q: want only Thai bold and fonts-noto-core named", msg)
	}
}

func TestFindChecksNameTable(t *testing.T) {
	dir := linkDir(t, nil, map[string]string{"NotoSansThai-Regular.ttf": "NotoSansHebrew-Regular.ttf"})
	_, err := FindIn([]string{dir})
	if err == nil || !strings.Contains(err.Error(), `has no "Noto Sans Thai" Regular face (it has "Noto Sans Hebrew" Regular)`) {
		t.Errorf("a Hebrew file named like the Thai one: error %v", err)
	}
	dir = linkDir(t, nil, map[string]string{"NotoSansArabic-Bold.ttf": "NotoSansArabic-Regular.ttf"})
	if _, err := FindIn([]string{dir}); err == nil || !strings.Contains(err.Error(), `has no "Noto Sans Arabic" Bold face`) {
		t.Errorf("a regular file named bold: error %v", err)
	}
	if _, err := FindIn([]string{linkDir(t, nil, nil)}); err != nil {
		t.Errorf("links to the installed files: %v", err)
	}
}

// fc runs a fontconfig tool with FONTCONFIG_FILE set.
func fc(t *testing.T, conf string, args ...string) string {
	t.Helper()
	bin, err := exec.LookPath(args[0])
	if err != nil {
		t.Fatalf("%s is not installed (apt-get install fontconfig; tools/ci/deps.sh does): %v", args[0], err)
	}
	cmd := exec.Command(bin, args[1:]...)
	cmd.Env = append(os.Environ(), "FONTCONFIG_FILE="+conf)
	out, err := cmd.CombinedOutput()
	if err != nil {
		t.Fatalf("%s: %v\n%s", strings.Join(args, " "), err, out)
	}
	return string(out)
}

func TestWriteFontconfig(t *testing.T) {
	st := stack(t)
	dir := t.TempDir()
	if _, err := st.WriteFontconfig(dir); err != nil {
		t.Fatal(err)
	}
	// Writing again over the same directory is fine.
	conf, err := st.WriteFontconfig(dir)
	if err != nil {
		t.Fatal(err)
	}
	if conf != filepath.Join(dir, "fonts.conf") {
		t.Errorf("path %s", conf)
	}

	// fontconfig sees exactly the stack's faces, all from dir/fonts (no
	// JP/KR/TC/HK or monospaced faces of the CJK collections).
	var want []string
	for _, f := range st.Faces() {
		w := "regular"
		if f.Bold {
			w = "bold"
		}
		want = append(want, f.Family+"|"+w+"|"+f.File)
	}
	var got []string
	for _, line := range strings.Split(strings.TrimSpace(fc(t, conf, "fc-list", "--format", "%{family[0]}|%{weight}|%{file}\n")), "\n") {
		p := strings.Split(line, "|")
		if len(p) != 3 {
			t.Fatalf("fc-list line %q", line)
		}
		if filepath.Dir(p[2]) != filepath.Join(dir, "fonts") {
			t.Errorf("fc-list shows %s, outside %s/fonts", p[2], dir)
		}
		w := "regular"
		if p[1] == "200" { // FC_WEIGHT_BOLD
			w = "bold"
		}
		got = append(got, p[0]+"|"+w+"|"+filepath.Base(p[2]))
	}
	slices.Sort(got)
	slices.Sort(want)
	if !slices.Equal(got, want) {
		t.Errorf("fc-list\n got %q\nwant %q", got, want)
	}

	// sans-serif prefers the stack in order, regular and bold.
	var names []string
	for _, f := range st.Families() {
		names = append(names, f.Name)
	}
	for _, pat := range []string{`sans\-serif`, `sans\-serif:bold`} {
		var order []string
		for _, fam := range strings.Split(strings.TrimSpace(fc(t, conf, "fc-match", "-s", "--format", "%{family[0]}\n", pat)), "\n") {
			if !slices.Contains(order, fam) {
				order = append(order, fam)
			}
		}
		if !slices.Equal(order, names) {
			t.Errorf("fc-match -s %s: %q, want %q", pat, order, names)
		}
	}

	// Named families resolve to their own files and faces, bold included,
	// with slight hinting (linear advances in Chromium).
	for _, c := range []struct{ pat, want string }{
		{"Roboto", "Roboto-Regular.ttf 0 1"},
		{"Roboto:bold", "Roboto-Bold.ttf 0 1"},
		{"DejaVu Sans", "DejaVuSans.ttf 0 1"},
		{"DejaVu Sans:bold", "DejaVuSans-Bold.ttf 0 1"},
		{"Noto Sans CJK SC", "NotoSansCJK-Regular.ttc 2 1"},
		{"Noto Sans CJK SC:bold", "NotoSansCJK-Bold.ttc 2 1"},
		{"Noto Sans Arabic:bold", "NotoSansArabic-Bold.ttf 0 1"},
		{"Noto Sans Thai", "NotoSansThai-Regular.ttf 0 1"},
		{"Noto Color Emoji", "NotoColorEmoji.ttf 0 1"},
	} {
		out := strings.TrimSpace(fc(t, conf, "fc-match", "--format", "%{file} %{index} %{hintstyle}", c.pat))
		if file, rest, _ := strings.Cut(out, " "); filepath.Base(file)+" "+rest != c.want {
			t.Errorf("fc-match %s: %s, want %s", c.pat, out, c.want)
		}
	}
	if ents, _ := os.ReadDir(filepath.Join(dir, "cache")); len(ents) == 0 {
		t.Error("fontconfig wrote no cache into dir/cache")
	}
	for _, name := range []string{"LICENSE-Roboto.txt", "LICENSE-DejaVu.txt"} {
		if _, err := os.Stat(filepath.Join(dir, "fonts", name)); err != nil {
			t.Error(err)
		}
	}
}

// TestSkippedFacesAddNothing: the stack covers every character that
// Debian's Noto packages installed here draw. Each face of every Noto
// file in DefaultDirs that the stack leaves out (other weights, serif and
// UI styles, regional variants, the CJK collections' other faces,
// families whose characters come earlier) has no letter, mark, number,
// punctuation or symbol that a face of the stack lacks.
func TestSkippedFacesAddNothing(t *testing.T) {
	st := stack(t)
	in := newCoverage()
	used := map[string]bool{}
	for _, f := range st.Faces() {
		file, err := f.Open()
		if err != nil {
			t.Fatal(err)
		}
		lds, err := ot.NewLoaders(file)
		if err == nil {
			_, err = in.add(lds[f.Index])
		}
		file.Close()
		if err != nil {
			t.Fatalf("%s: %v", f.File, err)
		}
		used[fmt.Sprintf("%s#%d", f.Path, f.Index)] = true
	}
	files := 0
	for _, dir := range DefaultDirs() {
		paths, _ := filepath.Glob(filepath.Join(dir, "Noto*"))
		for _, p := range paths {
			fh, err := os.Open(p)
			if err != nil {
				t.Fatal(err)
			}
			lds, err := ot.NewLoaders(fh)
			if err != nil {
				fh.Close()
				continue // not a font file
			}
			files++
			for i, ld := range lds {
				if used[fmt.Sprintf("%s#%d", p, i)] {
					continue
				}
				face := *in
				face = slices.Clone(face)
				if _, err := face.add(ld); err != nil {
					t.Fatalf("%s face %d: %v", p, i, err)
				}
				var extra []rune
				for k, w := range face {
					for bit := range 64 {
						r := rune(k*64 + bit)
						if w&^(*in)[k]&(1<<bit) != 0 && unicode.In(r, unicode.L, unicode.M, unicode.N, unicode.P, unicode.S) {
							extra = append(extra, r)
						}
					}
				}
				if len(extra) > 0 {
					t.Errorf("%s face %d has %d characters the stack lacks: %q", filepath.Base(p), i, len(extra), string(extra[:min(len(extra), 20)]))
				}
			}
			fh.Close()
		}
	}
	if files < 200 {
		t.Errorf("only %d Noto font files in %v: are Debian's Noto packages installed?", files, DefaultDirs())
	}
}
