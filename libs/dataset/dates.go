package dataset

import (
	"slices"
	"strings"
)

// UnitQuarter marks a Date column bucketed by quarter; Format shows "2024-Q2".
const UnitQuarter = "quarter"

const msPerDay = 86_400_000

// unitRank orders date units from coarse to fine.
func unitRank(u string) int {
	switch u {
	case UnitYear:
		return 1
	case UnitQuarter:
		return 2
	case UnitMonth:
		return 3
	case UnitDay:
		return 4
	case UnitTime:
		return 5
	}
	return 0
}

// daysFromCivil counts days from 1970-01-01 to y-m-d (proleptic Gregorian).
func daysFromCivil(y, m, d int) int64 {
	if m <= 2 {
		y--
	}
	era := y
	if era < 0 {
		era -= 399
	}
	era /= 400
	yoe := y - era*400
	mp := (m + 9) % 12
	doy := (153*mp+2)/5 + d - 1
	doe := yoe*365 + yoe/4 - yoe/100 + doy
	return int64(era)*146097 + int64(doe) - 719468
}

// civilFromDays is the inverse of daysFromCivil.
func civilFromDays(z int64) (y, m, d int) {
	z += 719468
	era := z
	if era < 0 {
		era -= 146096
	}
	era /= 146097
	doe := z - era*146097
	yoe := (doe - doe/1460 + doe/36524 - doe/146096) / 365
	yy := yoe + era*400
	doy := doe - (365*yoe + yoe/4 - yoe/100)
	mp := (5*doy + 2) / 153
	d = int(doy - (153*mp+2)/5 + 1)
	if mp < 10 {
		m = int(mp + 3)
	} else {
		m = int(mp - 9)
	}
	if m <= 2 {
		yy++
	}
	return int(yy), m, d
}

func daysIn(y, m int) int {
	switch m {
	case 2:
		if y%4 == 0 && (y%100 != 0 || y%400 == 0) {
			return 29
		}
		return 28
	case 4, 6, 9, 11:
		return 30
	}
	return 31
}

func validDate(y, m, d int) bool {
	return m >= 1 && m <= 12 && d >= 1 && d <= daysIn(y, m)
}

// digitsAt reads exactly w digits at s[i:].
func digitsAt(s string, i, w int) (int, bool) {
	if i+w > len(s) {
		return 0, false
	}
	v := 0
	for k := i; k < i+w; k++ {
		if !isDigit(s[k]) {
			return 0, false
		}
		v = v*10 + int(s[k]-'0')
	}
	return v, true
}

// digits12 reads one or two digits at s[i:]; it returns the value and the width.
func digits12(s string, i int) (int, int) {
	if i < len(s) && isDigit(s[i]) {
		if i+1 < len(s) && isDigit(s[i+1]) {
			return int(s[i]-'0')*10 + int(s[i+1]-'0'), 2
		}
		return int(s[i] - '0'), 1
	}
	return 0, 0
}

// parseClock reads "HH:MM[:SS[.fff]]" with an optional AM/PM and zone
// (Z, ±HH:MM, ±HHMM, ±HH); it returns milliseconds after midnight on the
// clock as written. The zone is checked and then set aside: a chart shows
// the calendar date and time its data gives ("2024-01-01T00:00:00+02:00"
// is New Year's midnight, not 22:00 on 31 December), and times are stored
// as that wall clock in milliseconds since the epoch.
func parseClock(s string) (int64, bool) {
	h, w := digits12(s, 0)
	if w == 0 || len(s) < w+3 || s[w] != ':' {
		return 0, false
	}
	i := w + 1
	mi, ok := digitsAt(s, i, 2)
	if !ok {
		return 0, false
	}
	i += 2
	sec, frac := 0, int64(0)
	if i < len(s) && s[i] == ':' {
		if sec, ok = digitsAt(s, i+1, 2); !ok {
			return 0, false
		}
		i += 3
		if i < len(s) && (s[i] == '.' || s[i] == ',') {
			i++
			start, scale := i, int64(100)
			for i < len(s) && isDigit(s[i]) {
				frac += int64(s[i]-'0') * scale
				scale /= 10
				i++
			}
			if i == start {
				return 0, false
			}
		}
	}
	rest := strings.TrimLeft(s[i:], " ")
	switch {
	case strings.EqualFold(rest, "am") || strings.EqualFold(rest, "pm"):
		if h < 1 || h > 12 {
			return 0, false
		}
		h %= 12
		if rest[0] == 'p' || rest[0] == 'P' {
			h += 12
		}
		rest = ""
	}
	switch {
	case rest == "" || rest == "Z" || rest == "z":
	case rest[0] == '+' || rest[0] == '-':
		oh, ok1 := digitsAt(rest, 1, 2)
		om := 0
		ok2 := true
		switch len(rest) {
		case 3:
		case 5:
			om, ok2 = digitsAt(rest, 3, 2)
		case 6:
			if rest[3] != ':' {
				return 0, false
			}
			om, ok2 = digitsAt(rest, 4, 2)
		default:
			return 0, false
		}
		if !ok1 || !ok2 || oh > 23 || om > 59 {
			return 0, false
		}
	default:
		return 0, false
	}
	if h > 24 || mi > 59 || sec > 60 || (h == 24 && (mi > 0 || sec > 0 || frac > 0)) {
		return 0, false
	}
	return int64(((h*60+mi)*60+sec)*1000) + frac, true
}

// monthByName reads an English month name or abbreviation ("Mar", "Sept.",
// "March"); 0 when w is none. The three-letter prefix picks the month first,
// so ordinary words cost one switch.
func monthByName(w string) int {
	w = strings.TrimSuffix(w, ".")
	if len(w) < 3 || len(w) > 9 {
		return 0
	}
	key := string([]byte{w[0] | 0x20, w[1] | 0x20, w[2] | 0x20})
	var m int
	var full string
	switch key {
	case "jan":
		m, full = 1, "january"
	case "feb":
		m, full = 2, "february"
	case "mar":
		m, full = 3, "march"
	case "apr":
		m, full = 4, "april"
	case "may":
		m, full = 5, "may"
	case "jun":
		m, full = 6, "june"
	case "jul":
		m, full = 7, "july"
	case "aug":
		m, full = 8, "august"
	case "sep":
		m, full = 9, "september"
	case "oct":
		m, full = 10, "october"
	case "nov":
		m, full = 11, "november"
	case "dec":
		m, full = 12, "december"
	default:
		return 0
	}
	if len(w) == 3 || strings.EqualFold(w, full) || (m == 9 && strings.EqualFold(w, "sept")) {
		return m
	}
	return 0
}

// parseDateDefinite reads date forms that need no column-wide decision:
// ISO dates and date-times, YYYY-MM, YYYY/MM/DD, quarters, and forms with
// English month names. It returns Unix milliseconds and the unit.
func parseDateDefinite(s string) (int64, string, bool) {
	if len(s) < 6 {
		return 0, "", false
	}
	if y, ok := digitsAt(s, 0, 4); ok {
		if s[4] == 'Q' || s[4] == 'q' || s[4] == ' ' || s[5] == 'Q' || s[5] == 'q' {
			return parseQuarter(s)
		}
		if s[4] == '-' || s[4] == '/' || s[4] == '.' {
			return parseISO(s, y)
		}
		return 0, "", false
	}
	if s[0] == 'Q' || s[0] == 'q' {
		return parseQuarter(s)
	}
	if isDigit(s[0]) || isLetter(s[0]) {
		return parseNamedMonth(s)
	}
	return 0, "", false
}

func isLetter(c byte) bool { return (c|0x20) >= 'a' && (c|0x20) <= 'z' }

// parseISO reads YYYY-MM, YYYY-MM-DD and YYYY-MM-DD[T ]hh:mm[:ss[.fff]][zone].
func parseISO(s string, y int) (int64, string, bool) {
	sep := s[4]
	m, w := digits12(s, 5)
	if w == 0 {
		return 0, "", false
	}
	i := 5 + w
	if i == len(s) {
		if w != 2 || sep != '-' && sep != '/' || m < 1 || m > 12 {
			return 0, "", false
		}
		return daysFromCivil(y, m, 1) * msPerDay, UnitMonth, true
	}
	if s[i] != sep {
		return 0, "", false
	}
	d, w2 := digits12(s, i+1)
	if w2 == 0 || !validDate(y, m, d) {
		return 0, "", false
	}
	i += 1 + w2
	ms := daysFromCivil(y, m, d) * msPerDay
	if i == len(s) {
		return ms, UnitDay, true
	}
	if s[i] != 'T' && s[i] != ' ' && s[i] != 't' {
		return 0, "", false
	}
	clock, ok := parseClock(s[i+1:])
	if !ok {
		return 0, "", false
	}
	return ms + clock, UnitTime, true
}

// parseQuarter reads "2024-Q2", "2024 Q2", "2024Q2", "Q2 2024", "Q2-2024".
func parseQuarter(s string) (int64, string, bool) {
	var y, q int
	var ok bool
	switch {
	case s[0] == 'Q' || s[0] == 'q':
		if len(s) < 7 || s[1] < '1' || s[1] > '4' || (s[2] != ' ' && s[2] != '-' && s[2] != '/') {
			return 0, "", false
		}
		q = int(s[1] - '0')
		if y, ok = digitsAt(s, 3, 4); !ok || len(s) != 7 {
			return 0, "", false
		}
	default:
		y, _ = digitsAt(s, 0, 4)
		rest := s[4:]
		if rest[0] == '-' || rest[0] == ' ' {
			rest = rest[1:]
		}
		if len(rest) != 2 || (rest[0] != 'Q' && rest[0] != 'q') || rest[1] < '1' || rest[1] > '4' {
			return 0, "", false
		}
		q = int(rest[1] - '0')
	}
	return daysFromCivil(y, 3*q-2, 1) * msPerDay, UnitQuarter, true
}

// dateTokens splits s into at most 4 words of letters or digits.
func dateTokens(s string) ([4]string, int, bool) {
	var toks [4]string
	n := 0
	i := 0
	for i < len(s) {
		c := s[i]
		if c == ' ' || c == ',' || c == '-' || c == '/' || c == '.' {
			i++
			continue
		}
		j := i
		if isDigit(c) {
			for j < len(s) && isDigit(s[j]) {
				j++
			}
		} else if isLetter(c) {
			for j < len(s) && (isLetter(s[j]) || s[j] == '.') {
				j++
			}
		} else {
			return toks, 0, false
		}
		if n == 4 {
			return toks, 0, false
		}
		toks[n] = s[i:j]
		n++
		i = j
	}
	return toks, n, true
}

func yearToken(t string) (int, bool) {
	switch len(t) {
	case 4:
		return digitsAt(t, 0, 4)
	case 2:
		y, ok := digitsAt(t, 0, 2)
		return expandYear(y), ok
	}
	return 0, false
}

// expandYear reads a two-digit year the way spreadsheets do: 00-69 → 2000s.
func expandYear(y int) int {
	if y < 70 {
		return 2000 + y
	}
	return 1900 + y
}

func dayToken(t string) (int, bool) {
	if len(t) == 0 || len(t) > 2 {
		return 0, false
	}
	d, w := digits12(t, 0)
	return d, w == len(t)
}

// parseNamedMonth reads "Mar 2024", "March 2024", "1 Mar 2024", "01-Mar-24",
// "Mar 1, 2024" and "March 1 2024".
func parseNamedMonth(s string) (int64, string, bool) {
	toks, n, ok := dateTokens(s)
	if !ok {
		return 0, "", false
	}
	switch n {
	case 2:
		if m := monthByName(toks[0]); m > 0 && len(toks[1]) == 4 {
			if y, ok := yearToken(toks[1]); ok {
				return daysFromCivil(y, m, 1) * msPerDay, UnitMonth, true
			}
		}
	case 3:
		var d, m, y int
		var okD, okY bool
		if m = monthByName(toks[1]); m > 0 {
			d, okD = dayToken(toks[0])
		} else if m = monthByName(toks[0]); m > 0 {
			d, okD = dayToken(toks[1])
		}
		y, okY = yearToken(toks[2])
		if m > 0 && okD && okY && validDate(y, m, d) {
			return daysFromCivil(y, m, d) * msPerDay, UnitDay, true
		}
	}
	return 0, "", false
}

// dmyCell is a numeric date a/b/year whose day-month order the column decides.
type dmyCell struct {
	a, b, y int
	sep     byte
	clock   int64
	timed   bool
}

// parseDMY reads "03/04/2024", "3.4.24", "03-04-2024", optionally followed
// by a time ("03/04/2024 14:30", "3/4/2024 2:30 PM").
func parseDMY(s string) (dmyCell, bool) {
	var c dmyCell
	a, w := digits12(s, 0)
	if w == 0 || w >= len(s) {
		return c, false
	}
	c.sep = s[w]
	if c.sep != '/' && c.sep != '.' && c.sep != '-' {
		return c, false
	}
	b, w2 := digits12(s, w+1)
	i := w + 1 + w2
	if w2 == 0 || i >= len(s) || s[i] != c.sep {
		return c, false
	}
	i++
	j := i
	for j < len(s) && isDigit(s[j]) {
		j++
	}
	switch j - i {
	case 4:
		c.y, _ = digitsAt(s, i, 4)
	case 2:
		y, _ := digitsAt(s, i, 2)
		c.y = expandYear(y)
	default:
		return c, false
	}
	if j < len(s) {
		if s[j] != ' ' && s[j] != 'T' {
			return c, false
		}
		clock, ok := parseClock(strings.TrimLeft(s[j+1:], " "))
		if !ok {
			return c, false
		}
		c.clock, c.timed = clock, true
	}
	c.a, c.b = a, b
	return c, true
}

// dayFirstOK and monthFirstOK say which readings give a real date.
func (c dmyCell) dayFirstOK() bool   { return validDate(c.y, c.b, c.a) }
func (c dmyCell) monthFirstOK() bool { return validDate(c.y, c.a, c.b) }

// value returns Unix milliseconds and the unit under the chosen order.
func (c dmyCell) value(dayFirst bool) (int64, string) {
	d, m := c.a, c.b
	if !dayFirst {
		d, m = c.b, c.a
	}
	ms := daysFromCivil(c.y, m, d) * msPerDay
	if c.timed {
		return ms + c.clock, UnitTime
	}
	return ms, UnitDay
}

// yearishWords are header words that make four-digit integers years.
var yearishWords = [...]string{"year", "years", "yr", "yrs", "jahr", "jahre", "annee", "année",
	"ano", "año", "anno", "jaar", "år", "ar", "rok", "date", "datum", "fecha", "fy", "period", "season",
	"年", "年份", "年度", "연도", "년", "год", "vuosi", "yıl", "năm", "ปี", "سنة", "שנה", "वर्ष"}

// eventWords name the year of an event when they lead a header
// ("Founded", "Built in", "Born"); further back they are more often
// counts ("Accounts opened"), so only the first word counts.
var eventWords = [...]string{"founded", "established", "built", "born", "died", "opened", "inaugurated",
	"incorporated", "gegründet", "erbaut", "fondé", "fondée", "fundado", "fundada", "fondato", "opgericht"}

// yearishSuffixes end compound words for a year ("Baujahr",
// "Geburtsjahr", "bouwjaar").
var yearishSuffixes = [...]string{"jahr", "jaar"}

// yearishHeader reports whether a header names years or dates ("Year",
// "Fiscal year", "Jahr", "Year joined", "Founded", "Baujahr"), so a column
// of 2019, 2020, … is read as dates.
func yearishHeader(name string) bool {
	for i, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z' || r > 0x7f)
	}) {
		if slices.Contains(yearishWords[:], w) || (i == 0 && slices.Contains(eventWords[:], w)) {
			return true
		}
		for _, suf := range yearishSuffixes {
			if strings.HasSuffix(w, suf) {
				return true
			}
		}
	}
	return false
}

// yearValue reads a four-digit year 1000-2999 written as digits.
func yearValue(s string) (int, bool) {
	if len(s) != 4 {
		return 0, false
	}
	y, ok := digitsAt(s, 0, 4)
	return y, ok && y >= 1000 && y <= 2999
}
