package dataset

import (
	"math"
	"strconv"
	"strings"
)

// pow10 holds the powers of ten that float64 represents exactly.
var pow10 = [...]float64{1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10,
	1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18, 1e19, 1e20, 1e21, 1e22}

func isDigit(c byte) bool { return c >= '0' && c <= '9' }

// fastNum parses a plain ASCII decimal ([+-]digits[.digits][e[+-]digits])
// without allocating. lz reports an integer part with a leading zero ("007").
// Values that overflow to infinity are refused.
func fastNum[T string | []byte](s T) (v float64, ok bool, lz bool) {
	i, n := 0, len(s)
	neg := false
	if i < n && (s[i] == '-' || s[i] == '+') {
		neg = s[i] == '-'
		i++
	}
	var mant uint64
	nd, exp10 := 0, 0
	exact := true
	intStart := i
	for i < n && isDigit(s[i]) {
		d := uint64(s[i] - '0')
		switch {
		case nd < 19:
			mant = mant*10 + d
			if mant != 0 {
				nd++
			}
		default:
			exp10++
			exact = false
		}
		i++
	}
	intDigits := i - intStart
	lz = intDigits >= 2 && s[intStart] == '0'
	fracDigits := 0
	if i < n && s[i] == '.' {
		i++
		for i < n && isDigit(s[i]) {
			if nd < 19 {
				mant = mant*10 + uint64(s[i]-'0')
				if mant != 0 {
					nd++
				}
				exp10--
			} else {
				exact = false
			}
			fracDigits++
			i++
		}
	}
	if intDigits+fracDigits == 0 {
		return 0, false, false
	}
	if i < n && (s[i] == 'e' || s[i] == 'E') {
		i++
		eneg := false
		if i < n && (s[i] == '-' || s[i] == '+') {
			eneg = s[i] == '-'
			i++
		}
		es, e := i, 0
		for i < n && isDigit(s[i]) {
			if e < 100000 {
				e = e*10 + int(s[i]-'0')
			}
			i++
		}
		if i == es {
			return 0, false, false
		}
		if eneg {
			e = -e
		}
		exp10 += e
	}
	if i != n {
		return 0, false, false
	}
	switch {
	case mant == 0:
		v = 0
	case exact && mant <= 1<<53 && exp10 == 0:
		v = float64(mant)
	case exact && mant <= 1<<53 && exp10 > 0 && exp10 <= 22:
		v = float64(mant) * pow10[exp10]
	case exact && mant <= 1<<53 && exp10 < 0 && exp10 >= -22:
		v = float64(mant) / pow10[-exp10]
	default:
		f, err := strconv.ParseFloat(string(s[intStart:]), 64)
		if err != nil || math.IsInf(f, 0) {
			return 0, false, false
		}
		v = f
	}
	if neg && v != 0 {
		v = -v
	}
	return v, true, lz
}

// numShape is a cell that looks like a number once its decorations
// (sign, parentheses, currency symbol, percent sign) are taken off.
type numShape struct {
	neg  bool
	pct  bool
	cur  string
	body string // digits with separators and maybe an exponent
}

var currencySymbols = [...]string{"$", "€", "£", "¥"}

func signWidth(s string) (w int, neg bool) {
	switch {
	case strings.HasPrefix(s, "-"):
		return 1, true
	case strings.HasPrefix(s, "+"):
		return 1, false
	case strings.HasPrefix(s, "\u2212"): // minus sign
		return 3, true
	}
	return 0, false
}

func trimNumSpace(s string) string {
	for {
		switch {
		case strings.HasPrefix(s, " "):
			s = s[1:]
		case strings.HasPrefix(s, "\u00a0"):
			s = s[2:]
		case strings.HasSuffix(s, " "):
			s = s[:len(s)-1]
		case strings.HasSuffix(s, "\u00a0"):
			s = s[:len(s)-2]
		default:
			return s
		}
	}
}

// parseNumShape takes the decorations off a trimmed cell; false when what
// remains cannot be a number.
func parseNumShape(s string) (numShape, bool) {
	var sh numShape
	if s == "" {
		return sh, false
	}
	if c := s[0]; !isDigit(c) && c != '-' && c != '+' && c != '(' && c != '.' && c != ',' && c != '$' && c < 0x80 {
		return sh, false
	}
	paren, signed := false, false
	if len(s) >= 2 && s[0] == '(' && s[len(s)-1] == ')' {
		paren, sh.neg = true, true
		s = trimNumSpace(s[1 : len(s)-1])
	}
	if w, neg := signWidth(s); w > 0 && !paren {
		signed, sh.neg = true, neg
		s = s[w:]
	}
	for _, c := range currencySymbols {
		if strings.HasPrefix(s, c) {
			sh.cur = c
			s = trimNumSpace(s[len(c):])
			if w, neg := signWidth(s); w > 0 && !paren && !signed {
				sh.neg = neg
				s = s[w:]
			}
			break
		}
	}
	if strings.HasSuffix(s, "%") {
		sh.pct = true
		s = trimNumSpace(s[:len(s)-1])
	} else if sh.cur == "" {
		for _, c := range currencySymbols {
			if strings.HasSuffix(s, c) {
				sh.cur = c
				s = trimNumSpace(s[:len(s)-len(c)])
				break
			}
		}
	}
	if s == "" {
		return sh, false
	}
	c := s[0]
	if !isDigit(c) && !((c == '.' || c == ',') && len(s) > 1 && isDigit(s[1])) {
		return sh, false
	}
	sh.body = s
	return sh, true
}

// groupSepWidth is the byte width of a thousands separator at the start of
// s: grp (',' or '.'), a space, an apostrophe or a no-break/thin space.
func groupSepWidth(s string, grp byte) int {
	switch {
	case s[0] == grp, s[0] == ' ', s[0] == '\'':
		return 1
	case strings.HasPrefix(s, "\u00a0"):
		return 2
	case strings.HasPrefix(s, "\u202f"), strings.HasPrefix(s, "\u2009"), strings.HasPrefix(s, "\u2019"):
		return 3
	}
	return 0
}

// interpret reads a number body with '.' as the decimal mark and ',' for
// thousands (eu false), or the other way round (eu true). Thousands groups
// must have three digits.
func interpret(body string, eu bool) (v float64, ok bool, lz bool) {
	dec, grp := byte('.'), byte(',')
	if eu {
		dec, grp = ',', '.'
	}
	var buf [64]byte
	out := buf[:0]
	sep := ""
	run, groups, digits := 0, 0, 0
	seenDec, seenExp := false, false
	for i := 0; i < len(body); {
		c := body[i]
		switch {
		case isDigit(c):
			out = append(out, c)
			run++
			digits++
			i++
		case c == dec && !seenDec:
			if groups > 0 && run != 3 {
				return 0, false, false
			}
			seenDec = true
			out = append(out, '.')
			run = 0
			i++
		case c == 'e' || c == 'E':
			if digits == 0 || (groups > 0 && !seenDec && run != 3) {
				return 0, false, false
			}
			rest := body[i+1:]
			if rest == "" {
				return 0, false, false
			}
			out = append(out, 'e')
			out = append(out, rest...)
			seenExp = true
			i = len(body)
		default:
			w := groupSepWidth(body[i:], grp)
			if w == 0 || seenDec {
				return 0, false, false
			}
			g := body[i : i+w]
			if sep != "" && g != sep {
				return 0, false, false
			}
			if (groups == 0 && (run < 1 || run > 3)) || (groups > 0 && run != 3) {
				return 0, false, false
			}
			sep = g
			groups++
			run = 0
			i += w
		}
	}
	if digits == 0 || (groups > 0 && !seenDec && !seenExp && run != 3) {
		return 0, false, false
	}
	return fastNum(out)
}
