package fontstack

import (
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"testing"

	"chartd.dev/charts"
	"golang.org/x/image/font/sfnt"
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

func TestFindOrder(t *testing.T) {
	st := stack(t)
	type fam struct {
		name, pkg   string
		bold, color bool
	}
	want := []fam{
		{"Roboto", "", true, false},
		{"DejaVu Sans", "", true, false},
		{"Noto Sans CJK SC", "fonts-noto-cjk", true, false},
		{"Noto Sans Arabic", "fonts-noto-core", true, false},
		{"Noto Sans Hebrew", "fonts-noto-core", true, false},
		{"Noto Sans Devanagari", "fonts-noto-core", true, false},
		{"Noto Sans Thai", "fonts-noto-core", true, false},
		{"Noto Color Emoji", "fonts-noto-color-emoji", false, true},
	}
	var got []fam
	for _, f := range st.Families() {
		got = append(got, fam{f.Name, f.Package, f.Bold != nil, f.Color})
		if f.Regular.Family != f.Name || f.Regular.Bold {
			t.Errorf("%s: regular face %+v", f.Name, f.Regular)
		}
		if f.Bold != nil && (f.Bold.Family != f.Name || !f.Bold.Bold) {
			t.Errorf("%s: bold face %+v", f.Name, *f.Bold)
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("families\n got %v\nwant %v", got, want)
	}
	if n := len(st.Faces()); n != 15 {
		t.Errorf("%d faces, want 15", n)
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
		col, err := sfnt.ParseCollection(b)
		if err != nil {
			t.Fatalf("%s: %v", f.File, err)
		}
		fam, style, err := faceName(col, f.Index)
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
	want := `'Roboto', 'DejaVu Sans', 'Noto Sans CJK SC', 'Noto Sans Arabic', 'Noto Sans Hebrew', 'Noto Sans Devanagari', 'Noto Sans Thai', 'Noto Color Emoji'`
	if got := stack(t).CSSFamily(); got != want {
		t.Errorf("CSSFamily\n got %s\nwant %s", got, want)
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
		"apt-get install fonts-noto-cjk fonts-noto-core fonts-noto-color-emoji"} {
		if !strings.Contains(err.Error(), s) {
			t.Errorf("error %q does not say %q", err, s)
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
