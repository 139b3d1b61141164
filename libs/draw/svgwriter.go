package draw

import (
	"math"
	"strconv"
	"unicode"
	"unicode/utf8"
)

//go:generate node ../../tools/unicode/emojipresentation.js emojipresentation.go

// svgWriter appends SVG markup to one growing buffer without fmt, so a
// chart costs a handful of allocations whatever its size.
type svgWriter struct {
	b []byte
	// spans are the byte ranges of b holding escaped text with a
	// character the families every SVG names do not draw (see
	// Fonts.plain), for naming the families the text is drawn with.
	spans [][2]int
	// plain marks the characters below U+10000 those families draw.
	plain *[0x10000 / 64]uint64
}

// s appends raw markup; never pass user text here.
func (w *svgWriter) s(markup string) { w.b = append(w.b, markup...) }

// f appends a coordinate rounded to two decimals, trailing zeros dropped.
func (w *svgWriter) f(v float64) { w.b = appendCoord(w.b, v) }

// af appends ` name="v"` for a coordinate.
func (w *svgWriter) af(name string, v float64) {
	w.b = append(w.b, ' ')
	w.b = append(w.b, name...)
	w.b = append(w.b, '=', '"')
	w.b = appendCoord(w.b, v)
	w.b = append(w.b, '"')
}

// esc appends user text escaped for XML character data and attributes.
func (w *svgWriter) esc(text string) {
	start := len(w.b)
	w.b = appendEscaped(w.b, text)
	noteText(w, start, text)
}

// escBytes is esc for text in a scratch buffer (formatted numbers).
func (w *svgWriter) escBytes(text []byte) {
	start := len(w.b)
	w.b = appendEscaped(w.b, text)
	noteText(w, start, text)
}

// noteText records w.b[start:] as a span when text has a character that
// is not plain (without a plain table: beyond ASCII).
func noteText[S ~string | ~[]byte](w *svgWriter, start int, text S) {
	for i := 0; i < len(text); {
		if text[i] < utf8.RuneSelf {
			i++
			continue
		}
		r, n := rune(utf8.RuneError), 1
		switch t := any(text).(type) {
		case string:
			r, n = utf8.DecodeRuneInString(t[i:])
		case []byte:
			r, n = utf8.DecodeRune(t[i:])
		}
		i += n
		if w.plain == nil || r >= 0x10000 || w.plain[r/64]&(1<<(r%64)) == 0 {
			w.spans = append(w.spans, [2]int{start, len(w.b)})
			return
		}
	}
}

// pt appends "x y" (for path data).
func (w *svgWriter) pt(x, y float64) {
	w.b = appendCoord(w.b, x)
	w.b = append(w.b, ' ')
	w.b = appendCoord(w.b, y)
}

// appendCoord formats v with at most two decimals.
func appendCoord(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, '0')
	}
	if v > 1e9 || v < -1e9 {
		return strconv.AppendFloat(b, v, 'f', 0, 64)
	}
	n := int64(math.Round(v * 100))
	if n < 0 {
		b = append(b, '-')
		n = -n
	}
	b = appendSmall(b, n/100)
	frac := n % 100
	switch {
	case frac == 0:
	case frac%10 == 0:
		b = append(b, '.', byte('0'+frac/10))
	default:
		b = append(b, '.', byte('0'+frac/10), byte('0'+frac%10))
	}
	return b
}

// appendCoord1 formats v with at most one decimal.
func appendCoord1(b []byte, v float64) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, '0')
	}
	if v > 1e9 || v < -1e9 {
		return strconv.AppendFloat(b, v, 'f', 0, 64)
	}
	n := int64(math.Round(v * 10))
	if n < 0 {
		b = append(b, '-')
		n = -n
	}
	b = appendSmall(b, n/10)
	if frac := n % 10; frac != 0 {
		b = append(b, '.', byte('0'+frac))
	}
	return b
}

// appendSmall writes a non-negative integer; pixel coordinates are small,
// so the common case skips strconv.
func appendSmall(b []byte, n int64) []byte {
	switch {
	case n < 10:
		return append(b, byte('0'+n))
	case n < 100:
		return append(b, byte('0'+n/10), byte('0'+n%10))
	case n < 1000:
		return append(b, byte('0'+n/100), byte('0'+n/10%10), byte('0'+n%10))
	case n < 10000:
		return append(b, byte('0'+n/1000), byte('0'+n/100%10), byte('0'+n/10%10), byte('0'+n%10))
	}
	return strconv.AppendInt(b, n, 10)
}

// appendEscaped writes text safe for XML 1.0 content and quoted attributes:
// markup characters become entities, invalid UTF-8 becomes U+FFFD and
// characters XML forbids (most C0 controls, U+FFFE/U+FFFF) are dropped, so
// no input can produce markup or a document that fails to parse. A lone
// emoji gets the selector that asks for its colour form (asksEmojiSelector).
func appendEscaped[S ~string | ~[]byte](b []byte, s S) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			i++
			switch c {
			case '<':
				b = append(b, "&lt;"...)
			case '>':
				b = append(b, "&gt;"...)
			case '&':
				b = append(b, "&amp;"...)
			case '"':
				b = append(b, "&quot;"...)
			case '\'':
				b = append(b, "&#39;"...)
			case '\t', '\n', '\r':
				b = append(b, ' ')
			default:
				if c >= 0x20 && c != 0x7F {
					b = append(b, c)
				}
			}
			continue
		}
		// At most 4 bytes make a rune; the short conversion stays on the stack.
		r, n := utf8.DecodeRuneInString(string(s[i:min(i+utf8.UTFMax, len(s))]))
		switch {
		case r == utf8.RuneError && n == 1:
			b = append(b, "\uFFFD"...)
		case r == 0xFFFE || r == 0xFFFF, r >= 0x80 && r <= 0x9F:
			// not allowed (or discouraged) in XML 1.0: drop
		default:
			b = append(b, s[i:i+n]...)
			if r >= 0x231A && !(i >= 3 && string(s[i-3:i]) == "\u200d") && asksEmojiSelector(r, s[i+n:]) {
				b = append(b, "\uFE0F"...)
			}
		}
		i += n
	}
	return b
}

// AppendText writes text as this package writes it into an SVG: escaped
// for XML, a lone emoji followed by the selector that asks for its colour
// form. Whatever draws text measured with Fonts next to these SVGs (the
// glyph tests of libs/raster) writes it so, or its widths differ.
func AppendText(b []byte, text string) []byte { return appendEscaped(b, text) }

// asksEmojiSelector reports an emoji that draws in colour by default
// (Emoji_Presentation) standing alone, with nothing after it that picks a
// presentation or joins it to a sequence. Chromium draws such an emoji
// with the first family of the SVG's list that has it, and DejaVu Sans
// has outlines of 😀😐😢😡: a U+FE0F written after it sends Chromium to
// the colour emoji face, as the measurement assumes (clusterFace).
// Modifiers, regional indicators (flags) and ZWJ sequences are left as
// they are: a selector inside them would break the sequence.
func asksEmojiSelector[S ~string | ~[]byte](r rune, rest S) bool {
	if r >= 0x1F1E6 && r <= 0x1F1FF || r >= 0x1F3FB && r <= 0x1F3FF || !unicode.Is(emojiPresentation, r) {
		return false
	}
	if len(rest) == 0 {
		return true
	}
	next, _ := utf8.DecodeRuneInString(string(rest[:min(utf8.UTFMax, len(rest))]))
	switch {
	case next == 0xFE0E, next == 0xFE0F, next == 0x200D, next == 0x20E3,
		next >= 0x1F3FB && next <= 0x1F3FF, next >= 0xE0020 && next <= 0xE007F:
		return false
	}
	return true
}
