package draw

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"

	"golang.org/x/text/language"
	"golang.org/x/text/message"
	"golang.org/x/text/number"
)

// numLocale is how one locale writes numbers: its grouping and decimal
// marks, the sizes of its digit groups (3 and 3; 3 and 2 in India), its
// digits and its compact units. A nil *numLocale is English: "1,234.5",
// k/M/B/T.
type numLocale struct {
	group, decimal     string
	primary, secondary int
	// zero is the locale's digit zero when it writes other digits than
	// ASCII (Arabic-Indic, Bengali, …); 0 for 0-9.
	zero  rune
	units []compactDef
}

// compactDef is one compact unit: the size it stands for and its name.
type compactDef struct {
	size float64
	name string
}

// englishUnits are the compact units of English and of every locale that
// has no myriad units: thousand, million, billion, trillion.
var englishUnits = []compactDef{{1e3, "k"}, {1e6, "M"}, {1e9, "B"}, {1e12, "T"}}

//go:generate node ../../tools/cldr/compact.js compactunits.go

// compactUnitsOf are the compact units CLDR's short decimal formats give a
// locale (cldrCompact, generated from cldr-numbers-full: golang.org/x/text
// carries CLDR's marks and digits but not its compact patterns): the tag
// itself, then its language with its script and region, with its script,
// with its region, and alone; English's k/M/B/T when none is listed.
func compactUnitsOf(t language.Tag) []compactDef {
	base, _ := t.Base()
	script, _ := t.Script()
	region, _ := t.Region()
	b, s, r := base.String(), script.String(), region.String()
	for _, k := range [...]string{t.String(), b + "-" + s + "-" + r, b + "-" + s, b + "-" + r, b} {
		if u, ok := cldrCompact[k]; ok {
			return u
		}
	}
	return englishUnits
}

// newNumLocale reads a locale's number marks from CLDR (through
// golang.org/x/text) by formatting one probe number and taking it apart:
// 1234567890.5 shows the group mark, the group sizes, the decimal mark and
// the digits. "" and English give nil; a tag that does not parse gives nil
// too (chartspec refuses such tags before they are stored).
func newNumLocale(tag string) *numLocale {
	if tag == "" {
		return nil
	}
	t, err := language.Parse(tag)
	if err != nil {
		return nil
	}
	probe := message.NewPrinter(t).Sprint(number.Decimal(1234567890.5, number.MinFractionDigits(1), number.MaxFractionDigits(1)))
	var (
		groups []int // sizes of the integer digit groups, left to right
		marks  []string
		digits []rune
		run    strings.Builder
		size   int
	)
	for _, r := range probe {
		switch {
		case unicode.IsDigit(r):
			if run.Len() > 0 {
				marks = append(marks, run.String())
				groups = append(groups, size)
				run.Reset()
				size = 0
			}
			digits = append(digits, r)
			size++
		case r == '\u200e' || r == '\u200f' || r == '\u061c':
			// bidi marks around the number, not part of it
		default:
			run.WriteRune(r)
		}
	}
	if len(digits) != 11 || len(marks) == 0 {
		return nil
	}
	l := &numLocale{decimal: marks[len(marks)-1]}
	if len(marks) > 1 {
		l.group = marks[0]
		l.primary = groups[len(groups)-1]
		l.secondary = l.primary
		if len(groups) > 2 {
			l.secondary = groups[len(groups)-2]
		}
	}
	if z := digits[9]; z != '0' {
		l.zero = z
	}
	l.units = compactUnitsOf(t)
	if l.group == "," && l.decimal == "." && l.primary == 3 && l.secondary == 3 && l.zero == 0 && &l.units[0] == &englishUnits[0] {
		return nil // written as English
	}
	return l
}

// compactUnits are the locale's compact units, smallest first.
func (l *numLocale) compactUnits() []compactDef {
	if l == nil {
		return englishUnits
	}
	return l.units
}

// compactFrom is the magnitude from which numbers are written compact
// unless told: ten of the locale's smallest compact unit (10k in English,
// 10万 in Chinese, 10 Mio. in German), where the full digits grow long.
func (l *numLocale) compactFrom() float64 {
	return 10 * l.compactUnits()[0].size
}

// appendDigits writes ASCII digits with an optional '.' fraction in the
// locale's marks and digits: grouped integer part, decimal mark, fraction.
func (l *numLocale) appendDigits(b []byte, digits []byte) []byte {
	group, decimal, primary, secondary := ",", ".", 3, 3
	var zero rune
	if l != nil {
		group, decimal, primary, secondary, zero = l.group, l.decimal, l.primary, l.secondary, l.zero
	}
	intLen := len(digits)
	for i, c := range digits {
		if c == '.' {
			intLen = i
			break
		}
	}
	digit := func(b []byte, c byte) []byte {
		if zero == 0 {
			return append(b, c)
		}
		return utf8.AppendRune(b, zero+rune(c-'0'))
	}
	for i := 0; i < intLen; i++ {
		if left := intLen - i; i > 0 && primary > 0 && group != "" && left >= primary &&
			(left == primary || (left-primary)%secondary == 0) {
			b = append(b, group...)
		}
		b = digit(b, digits[i])
	}
	if intLen < len(digits) {
		b = append(b, decimal...)
		for _, c := range digits[intLen+1:] {
			b = digit(b, c)
		}
	}
	return b
}

// localDigits rewrites the ASCII digits of b in place of the locale's
// own (٢٠٢٣ for 2023 in Arabic), for the years and dates an axis writes;
// b itself when the locale writes 0-9.
func (l *numLocale) localDigits(b []byte) []byte {
	if l == nil || l.zero == 0 {
		return b
	}
	out := make([]byte, 0, len(b)*2)
	for _, c := range b {
		if c >= '0' && c <= '9' {
			out = utf8.AppendRune(out, l.zero+rune(c-'0'))
			continue
		}
		out = append(out, c)
	}
	return out
}

// ungrouped is the locale without group marks (nil stays English marks).
func (l *numLocale) ungrouped() *numLocale {
	u := numLocale{decimal: ".", units: englishUnits}
	if l != nil {
		u = *l
	}
	u.group = ""
	return &u
}

// NoticeNumberLocale is the code of the notice saying the numbers are
// written in the locale the chart's text implies (no locale was set).
const NoticeNumberLocale = "number_locale_from_text"

// textLocaleShare is the share of a chart's letters one script must hold
// for its words to imply a locale: a Chinese chart may name "GDP".
const textLocaleShare = 0.8

// textLocaleCells caps the text cells read for the chart's script.
const textLocaleCells = 500

// textLocale is the locale a chart's words imply by their script, for
// its numbers when no locale is set (issue 32 item 10): Han alone → zh,
// with kana → ja, Hangul (with or without Han) → ko, Arabic → ar (fa or
// ur when letters only Persian or Urdu use appear), Hebrew → he. The
// words are the title, subtitle, column names and text cells; "" when
// no script holds textLocaleShare of their letters (n, countScripts), or
// a locale is set.
func textLocale(sp *chartspec.Spec, n *scriptCount) string {
	if nf := sp.Style.NumberFormat; nf != nil && nf.Locale != "" {
		return ""
	}
	return n.locale()
}

// rightToLeft reports a chart read right to left as a whole (issue 32
// item 11): its number locale is written right to left (Arabic, Hebrew,
// Persian, Urdu), or most of its letters are Arabic or Hebrew.
func rightToLeft(sp *chartspec.Spec, n *scriptCount) bool {
	if nf := sp.Style.NumberFormat; nf != nil && nf.Locale != "" {
		if tag, err := language.Parse(nf.Locale); err == nil {
			b, _ := tag.Base()
			switch b.String() {
			case "ar", "he", "fa", "ur", "ps", "yi", "sd", "ug", "ckb":
				return true
			}
		}
	}
	return n.arabic+n.hebrew > 0 && 2*(n.arabic+n.hebrew) > n.letters
}

// countScripts counts the letters of a chart's words by script: its
// title, subtitle, column names and text cells (up to textLocaleCells).
func countScripts(sp *chartspec.Spec, t *dataset.Table) scriptCount {
	var n scriptCount
	if sp.Style.Title.Show {
		n.add(sp.Style.Title.Text)
	}
	if sp.Style.Subtitle.Show {
		n.add(sp.Style.Subtitle.Text)
	}
	cells := 0
	for _, c := range t.Columns {
		n.add(c.Name)
		if c.Kind != dataset.Text {
			continue
		}
		for _, s := range c.Text[:min(len(c.Text), textLocaleCells-cells)] {
			n.add(s)
		}
		cells += min(len(c.Text), textLocaleCells-cells)
	}
	return n
}

// scriptCount counts the letters of a chart's words by script.
type scriptCount struct {
	letters, han, kana, hangul, arabic, hebrew int
	persian, urdu                              bool
}

// add counts the letters of s.
func (n *scriptCount) add(s string) {
	for _, r := range s {
		if r < utf8.RuneSelf {
			if r|0x20 >= 'a' && r|0x20 <= 'z' {
				n.letters++
			}
			continue
		}
		if !unicode.IsLetter(r) {
			continue
		}
		n.letters++
		switch {
		case unicode.Is(unicode.Han, r):
			n.han++
		case unicode.In(r, unicode.Hiragana, unicode.Katakana):
			n.kana++
		case unicode.Is(unicode.Hangul, r):
			n.hangul++
		case unicode.Is(unicode.Arabic, r):
			n.arabic++
			n.persian = n.persian || strings.ContainsRune("پچژگ", r)
			n.urdu = n.urdu || strings.ContainsRune("ٹڈڑںےھ", r)
		case unicode.Is(unicode.Hebrew, r):
			n.hebrew++
		}
	}
}

// locale is the locale the counted letters imply, "" for none.
func (n *scriptCount) locale() string {
	holds := func(k int) bool { return k > 0 && float64(k) >= textLocaleShare*float64(n.letters) }
	switch {
	case n.hangul > 0 && holds(n.hangul+n.han):
		return "ko"
	case n.kana > 0 && holds(n.kana+n.han):
		return "ja"
	case holds(n.han):
		return "zh"
	case holds(n.arabic) && n.urdu:
		return "ur"
	case holds(n.arabic) && n.persian:
		return "fa"
	case holds(n.arabic):
		return "ar"
	case holds(n.hebrew):
		return "he"
	}
	return ""
}

// withTextLocale is the spec with the locale its words imply as its
// number locale, and the notice that says so; the spec itself when they
// imply none or a locale is set.
func withTextLocale(sp *chartspec.Spec, n *scriptCount) (*chartspec.Spec, []dataset.Notice) {
	loc := textLocale(sp, n)
	if loc == "" {
		return sp, nil
	}
	out := *sp
	nf := chartspec.NumberFormat{}
	if sp.Style.NumberFormat != nil {
		nf = *sp.Style.NumberFormat
	}
	nf.Locale = loc
	out.Style.NumberFormat = &nf
	msg := "numbers are written as the chart's language writes them (" + loc + ", from the script of its text): " +
		string(appendValue(nil, 2.5e6, numFormat{decimals: -1, scale: 1, loc: newNumLocale(loc)})) +
		" for 2,500,000; set setNumberFormat's locale to choose another"
	return &out, []dataset.Notice{{Code: NoticeNumberLocale, Message: msg}}
}
