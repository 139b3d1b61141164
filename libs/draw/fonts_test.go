package draw

import (
	"bytes"
	"fmt"
	"math"
	"runtime"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"chartd.dev/libs/chartspec"
)

// facesOf names, for every grapheme cluster of s that is not a space, the
// face that measures it ("-" for none: the fallback estimate).
func facesOf(m *metrics, s string) []string {
	sh := m.getShaper()
	defer m.shapers.Put(sh)
	sh.split(m, s)
	var out []string
	for _, c := range sh.clusters {
		if strings.TrimSpace(string(sh.runes[c.start:c.end])) == "" {
			continue
		}
		name := "-"
		if c.face >= 0 {
			name = m.faces[c.face].name
		}
		out = append(out, name)
	}
	return out
}

// TestScriptsUseRealFaces: each script of the stack is measured with the
// face Chromium draws it with (the first face in stack order that has the
// characters), never with the fallback estimate. Roboto comes first and
// draws Latin, Greek and Cyrillic; DejaVu Sans, second, has Hebrew and the
// basic Arabic letters Roboto lacks, so it draws those; Noto Sans Arabic
// fills in what DejaVu lacks (ے in Urdu), Noto Sans Hebrew only the
// cantillation marks.
func TestScriptsUseRealFaces(t *testing.T) {
	f := fonts(t)
	for _, tc := range []struct {
		script, text string
		faces        []string // of the non-space clusters; one name: all of them
	}{
		{"Latin", "Sales by country", []string{"Roboto"}},
		{"Greek", "Πωλήσεις ανά χώρα", []string{"Roboto"}},
		{"Cyrillic", "Продажи по странам", []string{"Roboto"}},
		{"Chinese", "销售额按国家统计", []string{"Noto Sans CJK SC"}},
		{"Japanese", "東京の売上高とカタカナ", []string{"Noto Sans CJK SC"}},
		{"Korean", "국가별 매출 현황", []string{"Noto Sans CJK SC"}},
		{"Arabic", "المبيعات حسب البلد", []string{"DejaVu Sans"}},
		{"Urdu", "کے", []string{"DejaVu Sans", "Noto Sans Arabic"}},
		{"Arabic extended", "ࢠ", []string{"Noto Sans Arabic"}},
		{"Hebrew", "מכירות לפי מדינה", []string{"DejaVu Sans"}},
		{"Hebrew cantillation", "א֑", []string{"Noto Sans Hebrew"}},
		{"Hindi", "देश के अनुसार बिक्री", []string{"Noto Sans Devanagari"}},
		{"Thai", "ยอดขายตามประเทศที่นี่", []string{"Noto Sans Thai"}},
		{"Emoji", "📈👍🏽🇩🇪👨‍👩‍👧❤️", []string{"Noto Color Emoji"}},
		// DejaVu Sans has outlines of 😀 and ❤: 😀 draws in colour by
		// default (the SVG asks for it, issue 32 item 17), ❤ as text
		{"Emoji DejaVu has", "😀❤", []string{"Noto Color Emoji", "DejaVu Sans"}},
		{"Symbols Roboto lacks", "→▲✓", []string{"DejaVu Sans"}},
		{"Bitcoin sign", "₿", []string{"Noto Sans"}},
		{"Bengali", "বাংলাদেশ", []string{"Noto Sans Bengali"}},
		{"Tamil", "தமிழ்நாடு", []string{"Noto Sans Tamil"}},
		{"Gujarati", "ગુજરાત", []string{"Noto Sans Gujarati"}},
		{"Gurmukhi", "ਪੰਜਾਬ", []string{"Noto Sans Gurmukhi"}},
		{"Telugu", "తెలుగు", []string{"Noto Sans Telugu"}},
		{"Kannada", "ಕನ್ನಡ", []string{"Noto Sans Kannada"}},
		{"Malayalam", "മലയാളം", []string{"Noto Sans Malayalam"}},
		{"Sinhala", "ශ්‍රී ලංකාව", []string{"Noto Sans Sinhala"}},
		{"Khmer", "កម្ពុជា", []string{"Noto Sans Khmer"}},
		{"Myanmar", "မြန်မာ", []string{"Noto Sans Myanmar"}},
		{"Ethiopic", "ኢትዮጵያ", []string{"Noto Sans Ethiopic"}},
		{"Mongolian", "ᠮᠣᠩᠭᠣᠯ", []string{"Noto Sans Mongolian"}},
		{"Tibetan (serif only)", "བོད", []string{"Noto Serif Tibetan"}},
		{"Musical symbols", "𝄞", []string{"Noto Music"}},
		{"Symbols DejaVu lacks", "🜁", []string{"Noto Sans Symbols"}},
	} {
		for _, bold := range []bool{false, true} {
			got := facesOf(f.face(bold), tc.text)
			for i, name := range got {
				want := tc.faces[0]
				if len(tc.faces) > 1 {
					want = tc.faces[i]
				}
				if name != want {
					t.Errorf("%s (bold=%v): cluster %d of %q measured with %s, want %s", tc.script, bold, i, tc.text, name, want)
				}
			}
			if w := f.Width(tc.text, 10, bold); w <= 0 {
				t.Errorf("%s: width %.2f", tc.script, w)
			}
		}
	}
}

// TestStackWidths pins widths to the faces' advances: CJK is n × 1em of
// Noto Sans CJK (bold too), an emoji sequence one emoji glyph, shaped
// scripts what HarfBuzz (and Chromium, see libs/raster's glyph test) lays
// out rather than the sum of their isolated glyphs.
func TestStackWidths(t *testing.T) {
	f := fonts(t)
	const emoji = 2550.0 / 2048 // Noto Color Emoji's advance
	for _, tc := range []struct {
		s    string
		bold bool
		want float64 // em
	}{
		{"销售额按国家统计", false, 8}, {"销售额按国家统计", true, 8},
		{"東京の売上高とカタカナ", false, 11}, {"カタカナ", true, 4},
		{"中", false, 1}, {"𠀀𠀁", false, 2}, // CJK extension B, above U+FFFF
		{"📈", false, emoji}, {"📈", true, emoji},
		{"👍🏽", false, emoji}, {"🇩🇪", false, emoji}, {"👨‍👩‍👧", false, emoji}, {"1️⃣", false, emoji},
		{"❤️", false, emoji}, {"✔️", false, emoji}, // U+FE0F asks for the colour face
		{"👍‍😀", false, 2 * emoji}, // no such ZWJ sequence: two glyphs
		{"🇦", false, emoji},       // a lone regional indicator
		// Shaped, with Roboto's spaces (Chromium draws these, at 48 px:
		// 395, 224, 440 px; libs/raster's glyph test).
		{"المبيعات حسب البلد", false, 8.2212}, {"क्षत्रिय प्रदर्शन", false, 4.6740}, {"ยอดขายตามประเทศที่นี่", false, 9.1720},
	} {
		if got := f.Width(tc.s, 1, tc.bold); math.Abs(got-tc.want) > 0.0005*max(1, tc.want) {
			t.Errorf("Width(%q, bold=%v) = %.4f em, want %.4f", tc.s, tc.bold, got, tc.want)
		}
	}
	// Emoji and CJK widths do not change in bold (no bold emoji face;
	// CJK bold keeps 1 em); Latin, Arabic and Devanagari get wider.
	for _, s := range []string{"Sales", "المبيعات", "देश के अनुसार", "ยอดขาย", "Продажи"} {
		if r, b := f.Width(s, 10, false), f.Width(s, 10, true); b <= r {
			t.Errorf("%q: bold %.2f is not wider than regular %.2f", s, b, r)
		}
	}
	// Shaping matters: Arabic joined is far narrower than its isolated
	// letters, a Devanagari conjunct narrower than its parts.
	iso := 0.0
	for _, r := range "المبيعات" {
		iso += f.Width(string(r), 1, false)
	}
	if joined := f.Width("المبيعات", 1, false); joined > 0.85*iso {
		t.Errorf("Arabic: joined %.3f em vs isolated letters %.3f em: not shaped?", joined, iso)
	}
	if c, parts := f.Width("क्ष", 1, false), f.Width("क", 1, false)+f.Width("ष", 1, false); c >= parts {
		t.Errorf("Devanagari conjunct क्ष %.3f em, not narrower than क + ष %.3f em", c, parts)
	}
	// Text presentation (U+FE0E) keeps the text face; ignorable joiners
	// and selectors add nothing.
	if a, b := f.Width("❤︎", 1, false), f.Width("❤", 1, false); a != b {
		t.Errorf("❤︎ %.3f em, ❤ %.3f em", a, b)
	}
	if a, b := f.Width("x\u200dy", 1, false), f.Width("x", 1, false)+f.Width("y", 1, false); math.Abs(a-b) > 1e-9 {
		t.Errorf("x ZWJ y %.4f em, x + y %.4f em", a, b)
	}
	// A script no face has (Vithkuqi, encoded after the Noto release
	// Debian ships) is estimated: 0.6 em.
	if w := f.Width("\U00010570", 1, false); w != 0.6 {
		t.Errorf("Vithkuqi (not in the stack) %.3f em, want the 0.6 em estimate", w)
	}
}

// TestFastPathAgrees: the per-rune table path and the cluster path give
// the same widths for text both can measure, so a label does not change
// width when one character sends it down the cluster path.
func TestFastPathAgrees(t *testing.T) {
	f := fonts(t)
	for _, s := range []string{"Department of Transportation", "AVATAR Type WAVE", "Москва Πωλήσεις", "東京 Tokyo 2024",
		"국가별 매출", "מכירות לפי מדינה", "📈 Sales ☺ 😀", "₿ 0.5 ▲", "", "€ 1,234.50", "𠀀 x"} {
		for _, bold := range []bool{false, true} {
			m := f.face(bold)
			fast, ok := m.fastEm(s)
			if !ok {
				t.Errorf("%q: not on the fast path", s)
				continue
			}
			if slow := m.clusterEm(s); math.Abs(fast-slow) > 1e-9 {
				t.Errorf("%q bold=%v: fast %.6f em, cluster path %.6f em", s, bold, fast, slow)
			}
			if b := m.widthBytesEm([]byte(s)); b != fast {
				t.Errorf("%q: widthBytesEm %.6f, widthEm %.6f", s, b, fast)
			}
		}
	}
	// Every rune the fast path takes is one whose width does not depend on
	// its neighbours.
	m := f.regular
	for r := rune(0); r < 0x10000; r++ {
		if m.em[r] != slowEm && (r == 0x200D || r == 0xFE0F || unicode.Is(unicode.Mn, r)) {
			t.Fatalf("U+%04X is on the fast path", r)
		}
	}
}

// TestLigatures: Chromium draws Roboto's "fi" and "fl" as one glyph each
// (and "ffi", "ffl"), narrower than their letters, so text holding them is
// shaped, and measures what HarfBuzz lays out; the pair search finds
// exactly those two.
func TestLigatures(t *testing.T) {
	f := fonts(t)
	for _, bold := range []bool{false, true} {
		m := f.face(bold)
		var pairs []string
		for i, l := range m.lig {
			if l {
				pairs = append(pairs, string([]rune{rune(asciiLo + i/asciiSpan), rune(asciiLo + i%asciiSpan)}))
			}
		}
		if fmt.Sprint(pairs) != "[fi fl]" {
			t.Errorf("bold=%v: ligature pairs %v, want [fi fl]", bold, pairs)
		}
		for _, s := range []string{"Traffic", "office fluffy finance", "Profit 2024"} {
			if _, ok := m.fastEm(s); ok {
				t.Errorf("%q: a ligature on the fast path", s)
			}
			sh := m.getShaper()
			sh.split(m, s)
			rs := []rune(s)
			want := m.shapeEm(sh, rs, 0, sh.clusters[0].script, 0, len(rs))
			m.shapers.Put(sh)
			if got := m.widthEm(s); math.Abs(got-want) > 1e-9 {
				t.Errorf("%q bold=%v: %.4f em, HarfBuzz lays out %.4f em", s, bold, got, want)
			}
			if b := m.widthBytesEm([]byte(s)); b != m.widthEm(s) {
				t.Errorf("%q: widthBytesEm %.6f, widthEm %.6f", s, b, m.widthEm(s))
			}
		}
		if lig, apart := m.widthEm("fi"), m.widthEm("f")+m.widthEm("i"); lig >= apart {
			t.Errorf("bold=%v: fi %.4f em is not narrower than f + i %.4f em", bold, lig, apart)
		}
	}
	// Truncating inside a ligature keeps the width within bounds.
	s := "Office of fiscal affairs"
	for _, max := range []float64{20, 40, 60, 80} {
		if got := f.Truncate(s, 12, false, max); f.Width(got, 12, false) > max+1e-9 {
			t.Errorf("Truncate(%q, %.0f) = %q is %.2f px", s, max, got, f.Width(got, 12, false))
		}
	}
}

func TestTruncateClusters(t *testing.T) {
	f := fonts(t)
	for _, s := range []string{"👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧👨‍👩‍👧", "المبيعات حسب البلد", "क्षत्रिय प्रदर्शन", "ที่นี่ที่นี่ที่นี่", "🇩🇪🇫🇷🇮🇹🇪🇸"} {
		full := f.Width(s, 12, false)
		for _, frac := range []float64{0.2, 0.5, 0.8} {
			max := full * frac
			got := f.Truncate(s, 12, false, max)
			if w := f.Width(got, 12, false); w > max+1e-9 {
				t.Errorf("Truncate(%q, %.1f) = %q is %.1f px wide", s, max, got, w)
			}
			kept := strings.TrimSuffix(got, "…")
			if kept != "" && !strings.HasPrefix(s, kept) {
				t.Errorf("Truncate(%q) = %q is not a prefix", s, got)
			}
			// Cut between clusters: the kept part's clusters are the
			// original's first clusters.
			if n := len(facesOf(f.regular, kept)); kept != "" {
				orig := facesOf(f.regular, s)
				if n > len(orig) || fmt.Sprint(orig[:n]) != fmt.Sprint(facesOf(f.regular, kept)) {
					t.Errorf("Truncate(%q) = %q cuts inside a cluster", s, got)
				}
			}
		}
	}
	// Two ZWJ sequences in a row are two clusters (go-text's segmenter
	// splits the second one; split joins it back).
	if got := facesOf(f.regular, "👨‍👩‍👧👨‍👩‍👧👩‍💻"); len(got) != 3 {
		t.Errorf("three ZWJ sequences in a row: %d clusters", len(got))
	}
	if got := f.Truncate("👨‍👩‍👧👨‍👩‍👧", 12, false, 12*2550.0/2048+f.Width("…", 12, false)+0.01); got != "👨‍👩‍👧…" {
		t.Errorf("room for one family emoji: %q", got)
	}
}

// TestMeasureConcurrently runs the shaping path from many goroutines (run
// with -race).
func TestMeasureConcurrently(t *testing.T) {
	f := fonts(t)
	texts := []string{"المبيعات حسب البلد", "देश के अनुसार बिक्री", "👨‍👩‍👧 family", "ที่นี่", "Sales"}
	want := make([]float64, len(texts))
	for i, s := range texts {
		want[i] = f.Width(s, 12, i%2 == 0)
	}
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Go(func() {
			for k := 0; k < 200; k++ {
				i := (g + k) % len(texts)
				if got := f.Width(texts[i], 12, i%2 == 0); got != want[i] {
					t.Errorf("%q: %.4f, want %.4f", texts[i], got, want[i])
					return
				}
			}
		})
	}
	wg.Wait()
}

func TestLoadFontsNeedsStack(t *testing.T) {
	if _, err := LoadFonts(nil); err == nil || !strings.Contains(err.Error(), "fontstack.Find") {
		t.Errorf("LoadFonts(nil): %v", err)
	}
	if f := fonts(t); f.Stack() == nil || f.Stack().CSSFamily() != f.Family {
		t.Error("Stack() is not the stack the fonts came from")
	}
}

func BenchmarkMeasureShaped(b *testing.B) {
	f := fonts(b)
	for _, s := range []string{"المبيعات حسب البلد", "देश के अनुसार बिक्री", "销售额按国家统计", "👨‍👩‍👧 family"} {
		b.Run(s, func(b *testing.B) {
			b.ReportAllocs()
			for b.Loop() {
				_ = f.Width(s, 12, false)
			}
		})
	}
}

// TestSVGFamilies: an SVG names Roboto and DejaVu Sans, then every family
// that draws a character of its text, regular or bold, in stack order,
// and no other: a Latin chart names two families, not the stack's 150.
func TestSVGFamilies(t *testing.T) {
	f := fonts(t)
	for _, text := range []string{"Sales", "বাংলাদেশ ₿ 12", "销售额 📈", "❤️ 1️⃣ ❤", "ශ්\u200dරී ලංකාව", "𞱱 المبلغ", "א֑ ࢠ",
		"Москва · Tokyo → 東京", "ᠮᠣᠩᠭᠣᠯ བོད 𝄞 🜁", "\U00010570", "x\u0301\u20dd"} {
		got := strings.Split(string(f.appendFamilies(nil, []byte(text), [][2]int{{0, len(text)}})), ", ")
		// The faces the clusters are measured with, and the first face
		// of each character.
		want := []string{"'Roboto'", "'DejaVu Sans'"}
		add := func(name string) {
			if !slices.Contains(want, name) {
				want = append(want, name)
			}
		}
		for _, m := range []*metrics{f.regular, f.bold} {
			for _, name := range facesOf(m, text) {
				if name != "-" {
					add("'" + name + "'")
				}
			}
			for _, r := range text {
				if r < 0x10000 && m.first[r] != noFace {
					add(f.names[m.first[r]])
				} else if a, ok := m.astral[r]; ok {
					add(f.names[a.first])
				}
			}
		}
		slices.SortFunc(want, func(a, b string) int { return slices.Index(f.names, a) - slices.Index(f.names, b) })
		for _, w := range want {
			if !slices.Contains(got, w) {
				t.Errorf("%q: families %v lack %s", text, got, w)
			}
		}
		if !slices.IsSortedFunc(got, func(a, b string) int { return slices.Index(f.names, a) - slices.Index(f.names, b) }) {
			t.Errorf("%q: families %v not in stack order", text, got)
		}
		if len(got) != len(want) {
			t.Errorf("%q: families %v, want %v", text, got, want)
		}
	}
	// End to end: a chart in Latin names two families; a Bengali title
	// adds Noto Sans Bengali (bold), a ₿ in a label Noto Sans.
	in := bar30(f)
	svg := mustSVG(t, in)
	if !bytes.Contains(svg, []byte(` font-family="'Roboto', 'DejaVu Sans'" `)) {
		t.Errorf("30-bar chart: %s", rootFamily(svg))
	}
	in.Spec.Style.Title.Text = "বাংলাদেশের জনসংখ্যা"
	in.Spec.Style.Subtitle = chartspec.Text{Show: true, Text: "₿ per capita"}
	if got := rootFamily(mustSVG(t, in)); got != "'Roboto', 'DejaVu Sans', 'Noto Sans', 'Noto Sans Bengali'" {
		t.Errorf("Bengali title and ₿: %s", got)
	}
}

func mustSVG(t *testing.T, in Input) []byte {
	t.Helper()
	svg, err := SVG(in)
	if err != nil {
		t.Fatal(err)
	}
	return svg
}

// rootFamily is the font-family attribute of an SVG's root.
func rootFamily(svg []byte) string {
	_, rest, _ := bytes.Cut(svg, []byte(` font-family="`))
	v, _, _ := bytes.Cut(rest, []byte(`"`))
	return string(v)
}

// TestLoadFontsCost keeps the whole stack cheap to hold: LoadFonts reads
// only character maps, metrics and layout tables (GSUB/GPOS parsed on a
// face's first shaping), so the metrics of 150 families stay well under
// the 28 MB they took with every face parsed (11.8 MB measured).
func TestLoadFontsCost(t *testing.T) {
	st := fonts(t).Stack()
	var before, after runtime.MemStats
	runtime.GC()
	runtime.ReadMemStats(&before)
	start, cpu := time.Now(), cpuTime(t)
	f, err := LoadFonts(st)
	if err != nil {
		t.Fatal(err)
	}
	wall, used := time.Since(start), cpuTime(t)-cpu
	runtime.GC()
	runtime.ReadMemStats(&after)
	held := float64(after.HeapAlloc) - float64(before.HeapAlloc)
	t.Logf("LoadFonts: %d families, %d faces, %s wall, %s CPU, %.1f MB held", len(st.Families()), len(st.Faces()), wall.Round(time.Millisecond), used.Round(time.Millisecond), held/1e6)
	if held > 20e6 {
		t.Errorf("LoadFonts holds %.1f MB, budget 20 MB", held/1e6)
	}
	runtime.KeepAlive(f)
}
