package draw

import (
	"fmt"
	"unicode/utf8"

	"chartd.dev/charts"
	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
)

// Fonts holds the measured metrics of the one embedded font family
// (charts.Fonts, DejaVu Sans regular and bold). Layout measures every string
// with it, and the rasterizer draws the same family, so measured text is
// drawn text. Load it once with LoadFonts; it is read-only afterwards and
// safe for concurrent use.
type Fonts struct {
	// Family is the family name written into every SVG (font-family).
	Family  string
	regular *face
	bold    *face
}

// face is one font face reduced to what layout needs: advance widths per
// rune, ASCII kerning pairs and vertical metrics, all in em.
type face struct {
	upem float64
	// bmp holds advance widths in font units for runes below U+10000;
	// noGlyph marks runes the face does not have.
	bmp []uint16
	// astral holds the few glyphs the face has above U+FFFF.
	astral map[rune]uint16
	// kern holds kerning in font units for printable ASCII pairs.
	kern [asciiSpan * asciiSpan]int16
	// ascent, descent and capHeight are in em (descent positive).
	ascent, descent, capHeight float64
}

const (
	noGlyph   = 0xFFFF
	asciiLo   = 0x20
	asciiSpan = 0x7F - asciiLo
)

// LoadFonts parses the embedded font family and caches advance widths for
// every rune it covers, so measuring text costs a table lookup per rune.
// It takes tens of milliseconds: call it once at start and share the result.
func LoadFonts() (*Fonts, error) {
	set := charts.Fonts()
	reg, err := loadFace(set.Regular)
	if err != nil {
		return nil, fmt.Errorf("load font %s: %w", set.RegularFile, err)
	}
	bold, err := loadFace(set.Bold)
	if err != nil {
		return nil, fmt.Errorf("load font %s: %w", set.BoldFile, err)
	}
	return &Fonts{Family: set.Family, regular: reg, bold: bold}, nil
}

// loadFace measures one TrueType face.
func loadFace(src []byte) (*face, error) {
	f, err := sfnt.Parse(src)
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	var buf sfnt.Buffer
	upem := fixed.Int26_6(f.UnitsPerEm())
	fc := &face{upem: float64(upem), bmp: make([]uint16, 0x10000), astral: map[rune]uint16{}}
	// With ppem equal to units per em, the 26.6 results are font units.
	advance := func(r rune) (sfnt.GlyphIndex, uint16, bool) {
		gi, err := f.GlyphIndex(&buf, r)
		if err != nil || gi == 0 {
			return 0, 0, false
		}
		adv, err := f.GlyphAdvance(&buf, gi, upem, font.HintingNone)
		if err != nil || adv < 0 || adv >= noGlyph {
			return 0, 0, false
		}
		return gi, uint16(adv), true
	}
	var ascii [asciiSpan]sfnt.GlyphIndex
	for r := rune(0); r < 0x10000; r++ {
		gi, adv, ok := advance(r)
		if !ok {
			fc.bmp[r] = noGlyph
			continue
		}
		fc.bmp[r] = adv
		if r >= asciiLo && r < asciiLo+asciiSpan {
			ascii[r-asciiLo] = gi
		}
	}
	for r := rune(0x10000); r < 0x20000; r++ {
		if _, adv, ok := advance(r); ok {
			fc.astral[r] = adv
		}
	}
	for a := range ascii {
		for b := range ascii {
			if ascii[a] == 0 || ascii[b] == 0 {
				continue
			}
			k, err := f.Kern(&buf, ascii[a], ascii[b], upem, font.HintingNone)
			if err == nil {
				fc.kern[a*asciiSpan+b] = int16(k)
			}
		}
	}
	m, err := f.Metrics(&buf, upem, font.HintingNone)
	if err != nil {
		return nil, fmt.Errorf("metrics: %w", err)
	}
	fc.ascent = float64(m.Ascent) / fc.upem
	fc.descent = float64(m.Descent) / fc.upem
	fc.capHeight = float64(m.CapHeight) / fc.upem
	if fc.capHeight <= 0 {
		fc.capHeight = 0.73
	}
	return fc, nil
}

// face picks the regular or bold face.
func (f *Fonts) face(bold bool) *face {
	if bold {
		return f.bold
	}
	return f.regular
}

// Width is the advance width of s in pixels at the given font size, with
// ASCII kerning applied. Runes the font lacks count 1em when East Asian wide
// or emoji, 0 when combining or invisible, 0.6em otherwise.
func (f *Fonts) Width(s string, size float64, bold bool) float64 {
	return f.face(bold).widthEm(s) * size
}

// CapHeight is the height of capital letters at size, for centring text on a
// line: the baseline sits at centre + CapHeight/2.
func (f *Fonts) CapHeight(size float64) float64 { return f.regular.capHeight * size }

// Truncate shortens s with a trailing ellipsis so it is at most max pixels
// wide; s is returned unchanged when it fits, "" when not even "…" does.
func (f *Fonts) Truncate(s string, size float64, bold bool, max float64) string {
	fc := f.face(bold)
	if fc.widthEm(s)*size <= max {
		return s
	}
	room := max/size - fc.widthEm("…")
	if room < 0 {
		return ""
	}
	used, end := 0.0, 0
	prev := -1
	for i, r := range s {
		w, next := fc.runeEm(r, prev)
		if used+w > room {
			break
		}
		used += w
		prev = next
		end = i + utf8.RuneLen(r)
	}
	for end > 0 && s[end-1] == ' ' {
		end--
	}
	return s[:end] + "…"
}

// widthEm is the width of s in em.
func (fc *face) widthEm(s string) float64 {
	total := 0.0
	prev := -1
	for i := 0; i < len(s); {
		r := rune(s[i])
		if r < utf8.RuneSelf {
			i++
		} else {
			var n int
			r, n = utf8.DecodeRuneInString(s[i:])
			i += n
		}
		w, next := fc.runeEm(r, prev)
		total += w
		prev = next
	}
	return total
}

// widthBytesEm is widthEm for text held in a scratch buffer (formatted numbers).
func (fc *face) widthBytesEm(s []byte) float64 {
	total := 0.0
	prev := -1
	for i := 0; i < len(s); {
		r := rune(s[i])
		if r < utf8.RuneSelf {
			i++
		} else {
			var n int
			r, n = utf8.DecodeRune(s[i:])
			i += n
		}
		w, next := fc.runeEm(r, prev)
		total += w
		prev = next
	}
	return total
}

// runeEm is one rune's advance in em including kerning against the previous
// printable ASCII rune (prev, -1 for none); next is the kerning index r
// leaves for the following rune.
func (fc *face) runeEm(r rune, prev int) (w float64, next int) {
	var adv uint16 = noGlyph
	if r < 0x10000 {
		adv = fc.bmp[r]
	} else if a, ok := fc.astral[r]; ok {
		adv = a
	}
	if adv == noGlyph {
		return fallbackEm(r), -1
	}
	units := float64(adv)
	next = -1
	if r >= asciiLo && r < asciiLo+asciiSpan {
		next = int(r - asciiLo)
		if prev >= 0 {
			units += float64(fc.kern[prev*asciiSpan+next])
		}
	}
	return units / fc.upem, next
}

// fallbackEm estimates the width of a rune the font lacks; the browser draws
// it with a fallback font, so layout leaves room for a typical glyph.
func fallbackEm(r rune) float64 {
	switch {
	case isZeroWidth(r):
		return 0
	case isWide(r):
		return 1
	}
	return 0.6
}

// isZeroWidth reports joiners, variation selectors and combining marks.
func isZeroWidth(r rune) bool {
	switch {
	case r >= 0x200B && r <= 0x200F, r >= 0x2066 && r <= 0x2069, r == 0x2060, r == 0xFEFF:
		return true
	case r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF:
		return true
	case r >= 0x0300 && r <= 0x036F, r >= 0x1AB0 && r <= 0x1AFF, r >= 0x20D0 && r <= 0x20FF:
		return true
	case r >= 0x1F3FB && r <= 0x1F3FF: // skin-tone modifiers join the emoji before them
		return true
	case r >= 0xE0020 && r <= 0xE007F: // emoji tag characters
		return true
	}
	return false
}

// isWide reports East Asian wide and fullwidth runes and emoji, which take a
// full em in the fonts browsers fall back to.
func isWide(r rune) bool {
	switch {
	case r >= 0x1100 && r <= 0x115F, // Hangul Jamo
		r >= 0x2E80 && r <= 0x303E, // CJK radicals, punctuation
		r >= 0x3041 && r <= 0x33FF, // kana, CJK symbols
		r >= 0x3400 && r <= 0x4DBF, // CJK extension A
		r >= 0x4E00 && r <= 0x9FFF, // CJK unified
		r >= 0xA000 && r <= 0xA4CF, // Yi
		r >= 0xAC00 && r <= 0xD7A3, // Hangul syllables
		r >= 0xF900 && r <= 0xFAFF, // CJK compatibility
		r >= 0xFE30 && r <= 0xFE4F, // CJK compatibility forms
		r >= 0xFF00 && r <= 0xFF60, // fullwidth forms
		r >= 0xFFE0 && r <= 0xFFE6,
		r >= 0x1F000 && r <= 0x1FAFF, // emoji and pictographs
		r >= 0x2600 && r <= 0x27BF,   // symbols and dingbats (when missing)
		r >= 0x20000 && r <= 0x3FFFD: // CJK extensions B+
		return true
	}
	return false
}
