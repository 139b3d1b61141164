package raster_test

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/png"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"
	"unicode"

	"chartd.dev/charts"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/draw"
	"chartd.dev/libs/fontstack"
	"chartd.dev/libs/raster"
	gotext "github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
	"github.com/go-text/typesetting/font/opentype/tables"
)

// scriptWords are two real words or short labels in each script that
// issue 22 found drawn as boxes, and in the other living scripts the
// stack draws with a face of its own.
var scriptWords = []struct{ script, a, b string }{
	{"Bengali", "বাংলাদেশের জনসংখ্যা", "ঢাকা বিভাগ"},
	{"Tamil", "தமிழ்நாடு மாவட்டங்கள்", "சென்னை நகரம்"},
	{"Gujarati", "ગુજરાતની વસ્તી", "અમદાવાદ શહેર"},
	{"Gurmukhi", "ਪੰਜਾਬ ਦੀ ਆਬਾਦੀ", "ਅੰਮ੍ਰਿਤਸਰ ਸ਼ਹਿਰ"},
	{"Telugu", "తెలంగాణ జిల్లాలు", "హైదరాబాద్ నగరం"},
	{"Kannada", "ಕರ್ನಾಟಕದ ಜನಸಂಖ್ಯೆ", "ಬೆಂಗಳೂರು ನಗರ"},
	{"Malayalam", "കേരളത്തിലെ ജില്ലകൾ", "തിരുവനന്തപുരം"},
	{"Sinhala", "ශ්\u200dරී ලංකාවේ ජනගහනය", "කොළඹ නගරය"},
	{"Khmer", "ប្រជាជនកម្ពុជា", "ភ្នំពេញ រាជធានី"},
	{"Myanmar", "မြန်မာနိုင်ငံ လူဦးရေ", "ရန်ကုန်မြို့"},
	{"Ethiopic", "የኢትዮጵያ ሕዝብ ብዛት", "አዲስ አበባ ከተማ"},
	{"Mongolian", "ᠮᠣᠩᠭᠣᠯ ᠤᠯᠤᠰ", "ᠬᠦᠮᠦᠨ ᠠᠮ"},
	{"Oriya", "ଓଡ଼ିଶାର ଜନସଂଖ୍ୟା", "ଭୁବନେଶ୍ୱର ସହର"},
	{"Lao", "ປະຊາກອນລາວ", "ວຽງຈັນ ນະຄອນຫຼວງ"},
	{"Tibetan", "བོད་ཀྱི་མི་འབོར།", "ལྷ་ས་གྲོང་ཁྱེར།"},
	{"Armenian", "Հայաստանի բնակչություն", "Երևան քաղաք"},
	{"Georgian", "საქართველოს მოსახლეობა", "თბილისი ქალაქი"},
	{"Syriac", "ܠܫܢܐ ܣܘܪܝܝܐ", "ܡܕܝܢܬܐ ܪܒܬܐ"},
	{"Thaana", "ދިވެހިރާއްޖެ", "މާލެ ސިޓީ"},
	{"NKo", "ߒߞߏ ߞߊ߲", "ߡߊ߲߬ߘߋ߲"},
	{"Tifinagh", "ⵜⴰⵎⴰⵣⵉⵖⵜ", "ⴰⵎⴰⵣⵉⵖ"},
	{"Cherokee", "ᏣᎳᎩ ᎦᏬᏂᎯᏍᏗ", "ᏓᎶᏂᎨᏍᏛ"},
	{"Canadian syllabics", "ᐃᓄᒃᑎᑐᑦ", "ᓄᓇᕗᑦ"},
	{"Yi", "ꆈꌠꁱꂷ", "ꉢꆍꅉ"},
	{"Javanese", "ꦧꦱꦗꦮ", "ꦪꦺꦴꦒꦾꦏꦂꦠ"},
	{"Balinese", "ᬩᬲᬩᬮᬶ", "ᬤᬾᬦ᭄ᬧᬲᬃ"},
	{"Adlam", "𞤀𞤣𞤤𞤢𞤥", "𞤆𞤵𞤤𞤢𞤪"},
	{"Ol Chiki", "ᱥᱟᱱᱛᱟᱲᱤ", "ᱚᱞ ᱪᱤᱠᱤ"},
	{"Hebrew cantillation", "בְּרֵאשִׁ֖ית בָּרָ֣א", "אֱלֹהִ֑ים"},
	{"Bitcoin", "₿ 0.25", "₿ 1,200"},
	// Siyaq numbers join like Arabic letters and are written in Arabic
	// text; on their own Chromium lays them out backwards.
	{"Indic Siyaq Numbers", "المبلغ 𞱱𞱲𞱳", "الرصيد 𞱴𞱵𞱶"},
	{"Math", "𝑥 ∈ ℝ, 𝔼[𝑋]", "∑ 𝑥ᵢ ≤ 𝜋"},
	{"Music", "𝄞 𝅘𝅥𝅮 𝄢", "𝄆 𝅗𝅥 𝄇"},
	{"Symbols", "🜁 🜂 🜃", "⚳ ⚴ ⚵"},
}

// scriptSample is the label a test draws for one script of the stack.
type scriptSample struct {
	script string
	// a and b are two different words of the script; a is the label.
	a, b string
	// families are the stack's families that draw a character of a or b.
	families []string
	// generated marks words made of a face's letters, not real words.
	generated bool
}

// owners maps every character the stack has to the first family (in
// stack order) whose regular face has it: the family Chromium draws it
// with.
type owners map[rune]string

var loadOwners = sync.OnceValues(func() (owners, error) {
	st, err := fontstack.Find()
	if err != nil {
		return nil, err
	}
	own := owners{}
	for _, fam := range st.Families() {
		file, err := fam.Regular.Open()
		if err != nil {
			return nil, err
		}
		lds, err := ot.NewLoaders(file)
		if err != nil {
			file.Close()
			return nil, fmt.Errorf("%s: %w", fam.Regular.File, err)
		}
		raw, err := lds[fam.Regular.Index].RawTable(ot.MustNewTag("cmap"))
		file.Close()
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fam.Regular.File, err)
		}
		cmap, _, err := tables.ParseCmap(raw)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fam.Regular.File, err)
		}
		chars, _, err := gotext.ProcessCmap(cmap, 0)
		if err != nil {
			return nil, fmt.Errorf("%s: %w", fam.Regular.File, err)
		}
		for it := chars.Iter(); it.Next(); {
			if r, gid := it.Char(); gid != 0 {
				if _, ok := own[r]; !ok {
					own[r] = fam.Name
				}
			}
		}
	}
	return own, nil
})

// familiesOf names the families drawing the non-space characters of texts.
func (own owners) familiesOf(texts ...string) []string {
	var out []string
	for _, s := range texts {
		for _, r := range s {
			if f, ok := own[r]; ok && !unicode.IsSpace(r) && !slices.Contains(out, f) {
				out = append(out, f)
			}
		}
	}
	return out
}

// stackSamples are scriptWords and, for every family of the stack that
// draws none of their characters (nor Latin, Greek, Cyrillic, CJK or
// emoji), two words made of characters only it has: twelve of its letters
// (or, for a face of numbers or symbols, of those) split in two words of
// six, each character one the family draws, not an earlier one. Every
// family of the stack is thus drawn by a sample.
func stackSamples(t *testing.T) []scriptSample {
	t.Helper()
	own, err := loadOwners()
	if err != nil {
		t.Fatal(err)
	}
	st, err := fontstack.Find()
	if err != nil {
		t.Fatal(err)
	}
	covered := map[string]bool{"Roboto": true, "DejaVu Sans": true, "Noto Sans CJK SC": true, "Noto Color Emoji": true}
	var out []scriptSample
	for _, w := range scriptWords {
		s := scriptSample{script: w.script, a: w.a, b: w.b, families: own.familiesOf(w.a, w.b)}
		for _, f := range s.families {
			covered[f] = true
		}
		out = append(out, s)
	}
	byFamily := map[string][]rune{}
	for r, f := range own {
		byFamily[f] = append(byFamily[f], r)
	}
	for _, fam := range st.Families() {
		if covered[fam.Name] {
			continue
		}
		runes := byFamily[fam.Name]
		slices.Sort(runes)
		var letters, others []rune
		for _, r := range runes {
			switch {
			case unicode.IsLetter(r):
				letters = append(letters, r)
			case unicode.In(r, unicode.N, unicode.S, unicode.P):
				others = append(others, r)
			}
		}
		if len(letters) < 4 {
			letters = append(letters, others...)
		}
		if len(letters) < 2 {
			t.Fatalf("%s has %d characters of its own: no two words to draw", fam.Name, len(letters))
		}
		k := min(6, len(letters)/2)
		s := scriptSample{script: strings.TrimPrefix(fam.Name, "Noto Sans "), a: string(letters[:k]), b: string(letters[k : 2*k]), generated: true}
		s.families = own.familiesOf(s.a, s.b)
		out = append(out, s)
	}
	return out
}

// TestSamplesCoverTheStack: every family of the stack draws a character
// of some sample (the glyph test's or a script sample), so the glyph test
// measures every face, regular and bold.
func TestSamplesCoverTheStack(t *testing.T) {
	own, err := loadOwners()
	if err != nil {
		t.Fatal(err)
	}
	st, err := fontstack.Find()
	if err != nil {
		t.Fatal(err)
	}
	drawn := map[string]bool{}
	for _, s := range glyphSamples {
		for _, f := range own.familiesOf(s.text) {
			drawn[f] = true
		}
	}
	for _, s := range stackSamples(t) {
		for _, f := range s.families {
			drawn[f] = true
		}
		if s.a == s.b {
			t.Errorf("%s: the two words are the same", s.script)
		}
	}
	for _, fam := range st.Families() {
		if !drawn[fam.Name] {
			t.Errorf("no sample draws a character of %s", fam.Name)
		}
	}
	for _, w := range scriptWords[:12] { // the scripts issue 22 found as boxes
		if fams := own.familiesOf(w.a); !slices.Contains(fams, "Noto Sans "+w.script) {
			t.Errorf("%s %q is drawn with %v, not Noto Sans %s", w.script, w.a, fams, w.script)
		}
	}
}

// headWords are two words in each script the stack's first faces draw
// (Roboto, DejaVu Sans, Noto Sans CJK, Noto Color Emoji).
var headWords = []struct{ script, a, b string }{
	{"Latin", "Revenue", "Exports"}, {"Greek", "Πωλήσεις", "Εξαγωγές"}, {"Cyrillic", "Продажи", "Экспорт"},
	{"Chinese", "销售额", "出口额"}, {"Japanese", "売上高", "輸出額"}, {"Korean", "매출액", "수출액"},
	{"Arabic", "المبيعات", "الصادرات"}, {"Hebrew", "מכירות", "יצוא"}, {"Hindi", "बिक्री", "निर्यात"},
	{"Thai", "ยอดขาย", "ส่งออก"}, {"Emoji", "📈📉", "🚀⭐"},
}

// Size of the titled charts (type 13.5 px, the title's bold line above
// titleBand, the chart below it).
const (
	labelW, labelH = 640, 200
	titleBand      = 52
)

// TestScriptLabelsDrawn draws, for every script of the stack, a chart
// titled with one word of the script, one titled with another word, and
// one titled with as many characters no font has (Chromium's .notdef
// boxes) as each word has, through libs/draw and Chromium as the
// render service does. The two words give different pixels (boxes would
// be identical), and neither word gives the boxes' pixels; the rest of
// the chart is the same in all, so the title is all that differs.
func TestScriptLabelsDrawn(t *testing.T) {
	st, err := fontstack.Find()
	if err != nil {
		t.Fatal(err)
	}
	fonts, err := draw.LoadFonts(st)
	if err != nil {
		t.Fatal(err)
	}
	conf, err := st.WriteFontconfig(t.TempDir())
	if err != nil {
		t.Fatal(err)
	}
	cat, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	ct, _ := cat.Type("bar")
	ex, err := chartspec.Example(cat, ct, cat.Sample("bar"))
	if err != nil {
		t.Fatal(err)
	}
	table, errs := ex.Spec.AfterSteps(ex.Table)
	if len(errs) > 0 {
		t.Fatal(errs)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 5*time.Minute)
	defer cancel()
	pool := fontsPool(t, ctx, conf)
	defer pool.Close()

	var mu sync.Mutex
	cache := map[string]image.Image{}
	titled := func(t *testing.T, title string) image.Image {
		t.Helper()
		mu.Lock()
		img, ok := cache[title]
		mu.Unlock()
		if ok {
			return img
		}
		spec := *ex.Spec
		spec.Style.Title = chartspec.Text{Show: true, Text: title}
		spec.Style.Subtitle = chartspec.Text{}
		svg, err := draw.SVG(draw.Input{Spec: &spec, Table: table, Fonts: fonts, Width: labelW, Height: labelH})
		if err != nil {
			t.Fatal(err)
		}
		if lines := fonts.Wrap(title, 13.5, true, labelW-24, 2); len(lines) != 1 {
			t.Fatalf("title %q takes %d lines", title, len(lines))
		}
		out, err := pool.Render(ctx, raster.Job{SVG: svg, Width: labelW, Height: labelH, Scale: 1})
		if err != nil {
			t.Fatal(err)
		}
		if img, err = png.Decode(bytes.NewReader(out)); err != nil {
			t.Fatal(err)
		}
		mu.Lock()
		cache[title] = img
		mu.Unlock()
		return img
	}
	// boxes is word with every character but spaces replaced by one no
	// font has (a Vithkuqi letter, encoded after the Noto release Debian
	// ships, and graphic, so the title is drawn): what Chromium draws for
	// a word whose script no font has, a .notdef box per character.
	boxes := func(word string) string {
		return strings.Map(func(r rune) rune {
			if r == ' ' {
				return r
			}
			return '\U00010570'
		}, word)
	}
	// differ counts the pixels that differ clearly in rows y0..y1.
	differ := func(a, b image.Image, y0, y1 int) int {
		n := 0
		for y := y0; y < y1; y++ {
			for x := range labelW {
				r1, g1, b1, _ := a.At(x, y).RGBA()
				r2, g2, b2, _ := b.At(x, y).RGBA()
				if max(absDiff(r1, r2), absDiff(g1, g2), absDiff(b1, b2)) > 0x4000 {
					n++
				}
			}
		}
		return n
	}

	samples := stackSamples(t)
	for _, w := range headWords {
		samples = append(samples, scriptSample{script: w.script, a: w.a, b: w.b})
	}
	for _, s := range samples {
		t.Run(s.script, func(t *testing.T) {
			a, b := titled(t, s.a), titled(t, s.b)
			if n := differ(a, b, 0, titleBand); n < 30 {
				t.Errorf("%q and %q: %d pixels of the title differ", s.a, s.b, n)
			}
			for _, word := range []string{s.a, s.b} {
				img, tofu := titled(t, word), titled(t, boxes(word))
				if n := differ(img, tofu, 0, titleBand); n < 30 {
					t.Errorf("%q is drawn as boxes: %d pixels differ from %q", word, n, boxes(word))
				}
				if n := differ(img, tofu, titleBand, labelH); n != 0 {
					t.Errorf("%q: %d pixels below the title differ from the boxes' chart", word, n)
				}
			}
		})
	}
}

func absDiff(a, b uint32) uint32 {
	if a > b {
		return a - b
	}
	return b - a
}
