package draw

import (
	"strings"
	"unicode"
	"unicode/utf8"

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

// myriadUnits are the compact units of the languages that count in ten
// thousands, as CLDR's short decimal formats write them (1.2万, 3.4亿).
// golang.org/x/text carries CLDR's marks and digits but not its compact
// patterns, so these four rows are the only number data kept here
// (docs/decisions/rendering.md, "Locale").
var myriadUnits = map[string][]compactDef{
	"zh":      {{1e4, "万"}, {1e8, "亿"}, {1e12, "万亿"}},
	"zh-Hant": {{1e4, "萬"}, {1e8, "億"}, {1e12, "兆"}},
	"ja":      {{1e4, "万"}, {1e8, "億"}, {1e12, "兆"}},
	"ko":      {{1e4, "만"}, {1e8, "억"}, {1e12, "조"}},
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
	l.units = englishUnits
	base, _ := t.Base()
	key := base.String()
	if key == "zh" {
		if s, _ := t.Script(); s.String() == "Hant" {
			key = "zh-Hant"
		}
	}
	if u, ok := myriadUnits[key]; ok {
		l.units = u
	}
	if l.group == "," && l.decimal == "." && l.primary == 3 && l.secondary == 3 && l.zero == 0 && key != "zh" && key != "zh-Hant" && key != "ja" && key != "ko" {
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

// ungrouped is the locale without group marks (nil stays English marks).
func (l *numLocale) ungrouped() *numLocale {
	u := numLocale{decimal: ".", units: englishUnits}
	if l != nil {
		u = *l
	}
	u.group = ""
	return &u
}
