package draw

import (
	"bytes"
	"errors"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"chartd.dev/libs/fontstack"
	gotext "github.com/go-text/typesetting/font"
	ot "github.com/go-text/typesetting/font/opentype"
	"github.com/go-text/typesetting/harfbuzz"
	"github.com/go-text/typesetting/language"
	"github.com/go-text/typesetting/segmenter"
	"golang.org/x/image/font"
	"golang.org/x/image/font/sfnt"
	"golang.org/x/image/math/fixed"
	"golang.org/x/text/unicode/bidi"
)

// Fonts holds the measured metrics of the font stack (libs/fontstack:
// Roboto, DejaVu Sans, then every Noto face Debian ships for a script,
// Noto Color Emoji and the Noto symbol faces). Layout measures every
// string with it, every SVG names the families its text uses in stack
// order, and the rasterizer draws with the same files, so measured text is
// drawn text, in any script the stack covers.
//
// A string is measured the way Chromium lays it out with an explicit
// font-family list: each character (grapheme cluster) takes the advance of
// the first face, in stack order, that has it. Plain text costs a table
// lookup per rune. Text that needs shaping to be measured right — every
// script but Latin, Greek, Cyrillic, CJK, Hebrew and Thai (joining forms,
// conjuncts, reordered vowel signs, stacked consonants), emoji sequences
// (ZWJ, flags, skin tones, keycaps), combining marks — is shaped with
// HarfBuzz (github.com/go-text/typesetting), one run per face.
//
// Load it once with LoadFonts; it is read-only afterwards and safe for
// concurrent use.
type Fonts struct {
	// Family is the font-family list of the whole stack: every family
	// named explicitly, in stack order. An SVG names only the families
	// its text is drawn with (see families), which Chromium resolves to
	// the same faces.
	Family string
	stack  *fontstack.Stack
	// names are the families' names, quoted for the font-family list;
	// the first embedded of them are built into the binary.
	names    []string
	embedded int
	// plain marks the characters below U+10000 that the embedded
	// families draw in both weights without the cluster path: text of
	// them names no other family.
	plain   [0x10000 / 64]uint64
	regular *metrics
	bold    *metrics
}

// metrics is one weight of the stack (regular or bold) reduced to what
// layout needs.
type metrics struct {
	// faces are the stack's faces in order, one per family; a family
	// without a bold face uses its regular face in bold too (Chromium
	// emboldens it, keeping the advances).
	faces []*face
	// em holds, for every rune below U+10000, the advance in em of the
	// first face that has it, or missingEm (no face has it) or slowEm
	// (the rune needs the cluster and shaping path).
	em []float32
	// first holds, for every rune below U+10000, the index of the first
	// face that has it, noFace when none has.
	first []uint16
	// astral is em and first for the runes above U+FFFF that some face
	// has.
	astral map[rune]astralRune
	// kern is the first face's kerning in em for printable ASCII pairs.
	kern [asciiSpan * asciiSpan]float32
	// lig marks the printable ASCII pairs the first face joins into a
	// ligature ("fi", "fl" in Roboto): text holding one is shaped.
	lig [asciiSpan * asciiSpan]bool
	// capHeight is the first face's capital height in em.
	capHeight float64
	// shapers hands out per-goroutine shaping state (HarfBuzz buffers and
	// fonts are not safe for concurrent use).
	shapers sync.Pool
}

// astralRune is what metrics knows of a rune above U+FFFF.
type astralRune struct {
	em    float32
	first uint16
}

// face is one font face reduced to what layout needs.
type face struct {
	name  string
	color bool
	upem  float64
	// pages holds advance widths in font units for runes below U+10000,
	// 256 runes a page: nil for a page the face has no rune of, noGlyph
	// for a rune it does not have. Most faces cover a script block or
	// two, so a face costs a few kilobytes, not 128.
	pages [0x100]*[0x100]uint16
	// astral holds the glyphs the face has above U+FFFF.
	astral map[rune]uint16
	// layout is the face's layout tables (cmap, metrics, GSUB, GPOS,
	// GDEF, kern; no outlines or bitmaps) as a font file, parsed for
	// HarfBuzz on first use (shaping): most faces of the stack never
	// draw a chart's text, and parsed they would take three times the
	// memory.
	layout     []byte
	parseOnce  sync.Once
	shapeFont  *gotext.Font
	metricFont *gotext.Font
	// first is what layout takes from the stack's first face only; nil
	// for the others.
	first *firstMetrics
}

// firstMetrics is what layout reads from the stack's first face: kerning
// in font units for printable ASCII pairs, the pairs drawn as one
// ligature glyph, and ascent, descent and capHeight in em (descent
// positive).
type firstMetrics struct {
	kern                       [asciiSpan * asciiSpan]int16
	lig                        [asciiSpan * asciiSpan]bool
	ascent, descent, capHeight float64
}

const (
	noGlyph   = 0xFFFF
	noFace    = 0xFFFF
	asciiLo   = 0x20
	asciiSpan = 0x7F - asciiLo
	// missingEm and slowEm are the sentinels of metrics.em.
	missingEm = -1
	slowEm    = -2
)

// LoadFonts reads the stack's font files — only their character maps,
// advance widths and layout tables, not outlines or bitmaps — and caches
// advance widths for every rune they cover, so measuring plain text costs
// a table lookup per rune. It takes a few hundred milliseconds of CPU
// for the whole Noto stack: call it once at start and share the result.
func LoadFonts(stack *fontstack.Stack) (*Fonts, error) {
	if stack == nil {
		return nil, errors.New("draw: no font stack given; find it once with fontstack.Find")
	}
	fams := stack.Families()
	if len(fams) == 0 {
		return nil, errors.New("draw: the font stack is empty")
	}
	if len(fams) >= noFace {
		return nil, fmt.Errorf("draw: %d font families, at most %d", len(fams), noFace-1)
	}
	type job struct {
		src   fontstack.Face
		dst   **face
		name  string
		first bool
	}
	regs := make([]*face, len(fams))
	bolds := make([]*face, len(fams))
	var jobs []job
	for i, fam := range fams {
		jobs = append(jobs, job{fam.Regular, &regs[i], fam.Name, i == 0})
		if fam.Bold != nil {
			jobs = append(jobs, job{*fam.Bold, &bolds[i], fam.Name, i == 0})
		}
	}
	// The faces are independent: load them in parallel, a worker a core.
	errs := make([]error, len(jobs))
	next := make(chan int)
	var wg sync.WaitGroup
	for range min(runtime.GOMAXPROCS(0), len(jobs)) {
		wg.Go(func() {
			for k := range next {
				j := jobs[k]
				fc, err := loadFace(j.src, j.first)
				if err != nil {
					errs[k] = fmt.Errorf("draw: load font %s (%s): %w", j.src.File, j.name, err)
					continue
				}
				fc.name = j.name
				*j.dst = fc
			}
		})
	}
	for k := range jobs {
		next <- k
	}
	close(next)
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	names := make([]string, len(fams))
	embedded := 0
	for i, fam := range fams {
		names[i] = "'" + fam.Name + "'"
		if fam.Package == "" && embedded == i {
			embedded++
		}
		regs[i].color = fam.Color
		if bolds[i] == nil {
			bolds[i] = regs[i]
		} else {
			bolds[i].color = fam.Color
		}
	}
	f := &Fonts{Family: stack.CSSFamily(), stack: stack, names: names, embedded: embedded, regular: newMetrics(regs), bold: newMetrics(bolds)}
	for r := range rune(0x10000) {
		if f.regular.first[r] < uint16(embedded) && f.bold.first[r] < uint16(embedded) &&
			f.regular.em[r] != slowEm && f.bold.em[r] != slowEm {
			f.plain[r/64] |= 1 << (r % 64)
		}
	}
	return f, nil
}

// Stack is the font stack the metrics were loaded from: the render service
// writes its fontconfig file for Chromium (Stack().WriteFontconfig).
func (f *Fonts) Stack() *fontstack.Stack { return f.stack }

// loadFace measures one face; first is set for the stack's first face,
// whose kerning and vertical metrics layout uses.
func loadFace(src fontstack.Face, first bool) (*face, error) {
	file, err := src.Open()
	if err != nil {
		return nil, err
	}
	defer file.Close()
	lds, err := ot.NewLoaders(file)
	if err != nil {
		return nil, fmt.Errorf("parse: %w", err)
	}
	if src.Index >= len(lds) {
		return nil, fmt.Errorf("no face %d", src.Index)
	}
	fc := &face{astral: map[rune]uint16{}}
	if fc.metricFont, fc.layout, err = layoutFont(lds[src.Index]); err != nil {
		return nil, fmt.Errorf("layout tables: %w", err)
	}
	fc.upem = float64(fc.metricFont.Upem())
	// Every character the face maps, with its advance in font units (as
	// Chromium lays text out: unhinted, from hmtx).
	adv := gotext.NewFace(fc.metricFont)
	for it := fc.metricFont.Cmap.Iter(); it.Next(); {
		r, gid := it.Char()
		if gid == 0 || r < 0 || r > unicode.MaxRune {
			continue
		}
		a := adv.HorizontalAdvance(gid)
		if a < 0 || a >= noGlyph {
			continue
		}
		fc.set(r, uint16(a))
	}
	if first {
		if err := fc.firstFace(src); err != nil {
			return nil, err
		}
	}
	return fc, nil
}

// set records the advance of r.
func (fc *face) set(r rune, adv uint16) {
	if r >= 0x10000 {
		fc.astral[r] = adv
		return
	}
	p := fc.pages[r>>8]
	if p == nil {
		p = new([0x100]uint16)
		for i := range p {
			p[i] = noGlyph
		}
		fc.pages[r>>8] = p
	}
	p[r&0xFF] = adv
}

// bmp is the advance of r (below U+10000) in font units, noGlyph when the
// face does not have it.
func (fc *face) bmp(r rune) uint16 {
	if p := fc.pages[r>>8]; p != nil {
		return p[r&0xFF]
	}
	return noGlyph
}

// firstFace reads what layout takes from the stack's first face only: its
// ASCII kerning, ligatures and vertical metrics.
func (fc *face) firstFace(src fontstack.Face) error {
	fc.first = &firstMetrics{}
	first := fc.first
	data, err := src.Data()
	if err != nil {
		return err
	}
	col, err := sfnt.ParseCollection(data)
	if err != nil {
		return fmt.Errorf("parse: %w", err)
	}
	f, err := col.Font(src.Index)
	if err != nil {
		return fmt.Errorf("parse face %d: %w", src.Index, err)
	}
	var buf sfnt.Buffer
	// With ppem equal to units per em, the 26.6 results are font units.
	upem := fixed.Int26_6(f.UnitsPerEm())
	var ascii [asciiSpan]sfnt.GlyphIndex
	for r := rune(asciiLo); r < asciiLo+asciiSpan; r++ {
		if gi, err := f.GlyphIndex(&buf, r); err == nil && fc.bmp(r) != noGlyph {
			ascii[r-asciiLo] = gi
		}
	}
	for a := range ascii {
		for b := range ascii {
			if ascii[a] == 0 || ascii[b] == 0 {
				continue
			}
			k, err := f.Kern(&buf, ascii[a], ascii[b], upem, font.HintingNone)
			if err == nil {
				first.kern[a*asciiSpan+b] = int16(k)
			}
		}
	}
	m, err := f.Metrics(&buf, upem, font.HintingNone)
	if err != nil {
		return fmt.Errorf("metrics: %w", err)
	}
	first.ascent = float64(m.Ascent) / fc.upem
	first.descent = float64(m.Descent) / fc.upem
	// x/image reads the OS/2 cap height (positive) when the table has
	// one and otherwise measures the "H" glyph in its y-down
	// coordinates (negative): either way its size is the cap height.
	first.capHeight = math.Abs(float64(m.CapHeight)) / fc.upem
	if first.capHeight == 0 {
		first.capHeight = 0.7 // a font with neither: a typical sans cap height
	}
	fc.ligatures(&ascii)
	return nil
}

// ligatures finds the printable ASCII pairs the face draws as one glyph.
// Chromium applies the common ligatures (OpenType liga, clig) by default,
// and a ligature's advance is not the sum of its letters' (Roboto's "fi"
// is 0.037 em narrower, "ffi" 0.085 em), so text holding such a pair is
// measured by shaping it. Each first letter is shaped once against every
// second letter, the pairs apart from each other by a space.
func (fc *face) ligatures(ascii *[asciiSpan]sfnt.GlyphIndex) {
	hf := harfbuzz.NewFont(gotext.NewFace(fc.shaping()))
	b := harfbuzz.NewBuffer()
	var text []rune
	for a := range ascii {
		if ascii[a] == 0 || a == 0 {
			continue
		}
		text = text[:0]
		for c := range ascii {
			if ascii[c] != 0 && c != 0 {
				text = append(text, rune(asciiLo+a), rune(asciiLo+c), ' ')
			}
		}
		b.Clear()
		b.AddRunes(text, 0, len(text))
		b.Props.Script = language.Latin
		b.Props.Language = "en"
		b.Props.Direction = harfbuzz.LeftToRight
		b.Shape(hf, nil)
		// Pair k is runes 3k and 3k+1; drawn as one glyph, it leaves a
		// single glyph for clusters 3k and 3k+1.
		glyphs := map[int]int{}
		for _, g := range b.Info {
			if g.Cluster%3 < 2 {
				glyphs[g.Cluster-g.Cluster%3]++
			}
		}
		for i := 0; i < len(text); i += 3 {
			if glyphs[i] == 1 {
				fc.first.lig[a*asciiSpan+int(text[i+1]-asciiLo)] = true
			}
		}
	}
}

// layoutFont is one face of a font file reduced to the tables measuring
// and shaping read, so a 20 MB CJK collection or a 10 MB bitmap emoji font
// costs well under a megabyte once loaded, and only those tables are read
// from the file: layout holds them all as a font file, metrics is parsed
// from the character map and metrics tables alone (what loadFace reads).
func layoutFont(ld *ot.Loader) (metrics *gotext.Font, layout []byte, err error) {
	var all, small []ot.Table
	for i, tag := range []string{"cmap", "OS/2", "head", "maxp", "hhea", "hmtx", "GDEF", "GSUB", "GPOS", "kern"} {
		if raw, err := ld.RawTable(ot.MustNewTag(tag)); err == nil {
			t := ot.Table{Tag: ot.MustNewTag(tag), Content: raw}
			all = append(all, t)
			if i < 6 {
				small = append(small, t)
			}
		}
	}
	lds, err := ot.NewLoader(bytes.NewReader(ot.WriteTTF(small)))
	if err != nil {
		return nil, nil, err
	}
	if metrics, err = gotext.NewFont(lds); err != nil {
		return nil, nil, err
	}
	return metrics, ot.WriteTTF(all), nil
}

// shaping is the face with its layout tables for HarfBuzz, parsed on
// first use. The character map and metrics it is parsed from loaded
// without error (go-text's parser requires no other table), so this
// parse succeeds too; were it to fail, the face shapes with no layout
// tables rather than not at all.
func (fc *face) shaping() *gotext.Font {
	fc.parseOnce.Do(func() {
		fc.shapeFont = fc.metricFont
		if ld, err := ot.NewLoader(bytes.NewReader(fc.layout)); err == nil {
			if f, err := gotext.NewFont(ld); err == nil {
				fc.shapeFont = f
			}
		}
	})
	return fc.shapeFont
}

// newMetrics merges faces (in stack order) into per-rune advance tables.
func newMetrics(faces []*face) *metrics {
	m := &metrics{faces: faces, em: make([]float32, 0x10000), first: make([]uint16, 0x10000),
		astral: map[rune]astralRune{}, capHeight: faces[0].first.capHeight}
	for r := range m.em {
		m.em[r], m.first[r] = missingEm, noFace
	}
	// The first face that has a rune wins: later faces are written first.
	for i := len(faces) - 1; i >= 0; i-- {
		fc := faces[i]
		for p, page := range fc.pages {
			if page == nil {
				continue
			}
			for k, adv := range page {
				if adv != noGlyph {
					r := p<<8 | k
					m.em[r] = float32(float64(adv) / fc.upem)
					m.first[r] = uint16(i)
				}
			}
		}
		for r, adv := range fc.astral {
			m.astral[r] = astralRune{em: float32(float64(adv) / fc.upem), first: uint16(i)}
		}
	}
	// An emoji drawn in colour by default is drawn with the colour face,
	// even where an earlier face has an outline of it (DejaVu Sans has
	// 😀): the SVG asks for its colour form (asksEmojiSelector).
	for i, fc := range faces {
		if !fc.color {
			continue
		}
		for _, rg := range emojiPresentation.R16 {
			for r := rune(rg.Lo); r <= rune(rg.Hi); r++ {
				if fc.has(r) && m.first[r] < uint16(i) {
					m.em[r], m.first[r] = float32(float64(fc.bmp(r))/fc.upem), uint16(i)
				}
			}
		}
		for _, rg := range emojiPresentation.R32 {
			for r := rune(rg.Lo); r <= rune(rg.Hi); r++ {
				if a, ok := m.astral[r]; ok && fc.has(r) && a.first < uint16(i) {
					m.astral[r] = astralRune{em: float32(float64(fc.astral[r]) / fc.upem), first: uint16(i)}
				}
			}
		}
		break
	}
	for r := range rune(0x10000) {
		if needsCluster(r) {
			m.em[r] = slowEm
		}
	}
	for r, a := range m.astral {
		if needsCluster(r) {
			a.em = slowEm
			m.astral[r] = a
		}
	}
	for i, k := range faces[0].first.kern {
		m.kern[i] = float32(float64(k) / faces[0].upem)
	}
	m.lig = faces[0].first.lig
	return m
}

// needsCluster reports runes whose width depends on their neighbours:
// combining marks and joiners (which go with the face of the character
// they attach to), variation selectors (U+FE0F asks for the colour emoji
// face), the parts of emoji sequences, and the scripts that are shaped.
func needsCluster(r rune) bool {
	switch {
	case r < 0x300:
		return false
	case r == 0x200C || r == 0x200D, // ZWNJ, ZWJ
		r >= 0xFE00 && r <= 0xFE0F, r >= 0xE0100 && r <= 0xE01EF, // variation selectors
		r >= 0x1F1E6 && r <= 0x1F1FF, // regional indicators (flags)
		r >= 0x1F3FB && r <= 0x1F3FF, // skin tones
		r >= 0xE0020 && r <= 0xE007F: // emoji tags
		return true
	case unicode.In(r, unicode.Mn, unicode.Me, unicode.Mc):
		return true
	}
	return shapedScript(language.LookupScript(r))
}

// shapedScript reports scripts whose advances change with shaping (joining
// forms, conjuncts, reordering, stacked consonants, contextual forms):
// measuring them glyph by glyph is off by up to 40 % against what Chromium
// draws. That is every script but the ones Roboto, DejaVu Sans and the
// CJK face draw letter by letter, and Hebrew and Thai, whose marks take
// the cluster path anyway; a script missing from the short list is shaped,
// which is slower but never wrong.
func shapedScript(s language.Script) bool {
	switch s {
	case language.Latin, language.Greek, language.Cyrillic, language.Han, language.Hiragana,
		language.Katakana, language.Hangul, language.Bopomofo, language.Hebrew, language.Thai,
		language.Common, language.Inherited, language.Unknown:
		return false
	}
	return true
}

// face picks the regular or bold metrics.
func (f *Fonts) face(bold bool) *metrics {
	if bold {
		return f.bold
	}
	return f.regular
}

// Width is the advance width of s in pixels at the given font size, as
// Chromium lays it out with the stack (ASCII kerning applied). Runes no
// face of the stack has count 1em when East Asian wide or emoji, 0 when
// invisible, 0.6em otherwise.
func (f *Fonts) Width(s string, size float64, bold bool) float64 {
	return f.face(bold).widthEm(s) * size
}

// CapHeight is the height of capital letters at size, for centring text on a
// line: the baseline sits at centre + CapHeight/2.
func (f *Fonts) CapHeight(size float64) float64 { return f.regular.capHeight * size }

// Truncate shortens s with a trailing ellipsis so it is at most max pixels
// wide; s is returned unchanged when it fits, "" when not even "…" does.
// It cuts between grapheme clusters, never inside one.
func (f *Fonts) Truncate(s string, size float64, bold bool, max float64) string {
	m := f.face(bold)
	if m.widthEm(s)*size <= max {
		return s
	}
	room := max/size - m.widthEm("…")
	if room < 0 {
		return ""
	}
	end := 0
	if _, fast := m.fastEm(s); fast {
		used := 0.0
		k := newKerning()
		for i, r := range s {
			w, _ := m.runeEm(r, &k)
			if used+w > room {
				break
			}
			used += w
			end = i + utf8.RuneLen(r)
		}
	} else {
		end = m.cut(s, room)
	}
	for end > 0 && s[end-1] == ' ' {
		end--
	}
	return s[:end] + "…"
}

// TruncateMiddle shortens s to at most max pixels by cutting out its
// middle, so both ends stay: "Customer service… region 12", where
// Truncate would keep only the start that many labels share. The end
// kept is whole words, at most half the room; when not even the last
// word fits there (or s has no spaces, as Chinese and Japanese), it
// truncates at the end as Truncate does. s is returned unchanged when it fits.
func (f *Fonts) TruncateMiddle(s string, size float64, bold bool, max float64) string {
	m := f.face(bold)
	if m.widthEm(s)*size <= max {
		return s
	}
	tail := m.tailWords(s, (max/size-m.widthEm("…"))/2)
	if tail < 0 {
		return f.Truncate(s, size, bold, max)
	}
	head := f.Truncate(strings.TrimRight(s[:tail], " "), size, bold, max-m.widthEm(s[tail:])*size)
	if !strings.HasSuffix(head, "…") {
		return f.Truncate(s, size, bold, max)
	}
	return head + s[tail:]
}

// tailWords is the byte offset of the longest end of s made of whole
// words (it starts at a space) that is at most room em wide; -1 when not
// even the last word fits.
func (m *metrics) tailWords(s string, room float64) int {
	tail := -1
	for i := len(s) - 1; i > 0; i-- {
		if s[i] != ' ' {
			continue
		}
		if m.widthEm(s[i:]) > room {
			break
		}
		tail = i
	}
	return tail
}

// Wrap breaks s into at most maxLines lines, each at most max pixels
// wide, the way a browser breaks text: at spaces (dropped), after hyphens,
// dashes and slashes, and between East Asian characters, which take no
// spaces; a word wider than a line is cut between grapheme clusters. When
// text is left over after maxLines, the last line ends in "…" (see
// Truncate). A string that fits is one line; "" is no lines.
func (f *Fonts) Wrap(s string, size float64, bold bool, max float64, maxLines int) []string {
	s = strings.TrimSpace(s)
	if s == "" {
		return nil
	}
	m := f.face(bold)
	if maxLines <= 1 || m.widthEm(s)*size <= max {
		return []string{f.Truncate(s, size, bold, max)}
	}
	lines := make([]string, 0, maxLines)
	rest := s
	for len(lines) < maxLines-1 && m.widthEm(rest)*size > max {
		end, next := lineBreak(m, rest, max/size)
		lines = append(lines, strings.TrimRight(rest[:end], " "))
		rest = strings.TrimLeft(rest[next:], " ")
	}
	if rest != "" {
		lines = append(lines, f.Truncate(rest, size, bold, max))
	}
	return lines
}

// lineBreak finds where the first line of s ends when a line holds room
// em: the last break opportunity that fits (end is the line's byte length,
// next where the following line starts), else a cut between grapheme
// clusters (at least one rune, so wrapping always advances).
func lineBreak(m *metrics, s string, room float64) (end, next int) {
	prev := rune(-1)
	for i, r := range s {
		brk, skip := false, 0
		switch {
		case i == 0:
		case r == ' ':
			brk, skip = true, 1
		case prev == '-' || prev == '/' || prev == '–' || prev == '—':
			brk = true
		case (breaksAround(r) || breaksAround(prev)) && !closing(r):
			brk = true
		}
		if brk {
			if m.widthEm(strings.TrimRight(s[:i], " ")) > room {
				break
			}
			end, next = i, i+skip
		}
		prev = r
	}
	if end > 0 {
		return end, next
	}
	end = m.cut(s, room)
	if end == 0 {
		_, end = utf8.DecodeRuneInString(s)
	}
	return end, end
}

// breaksAround reports East Asian characters, between which lines may
// break without a space (emoji excepted).
func breaksAround(r rune) bool {
	return isWide(r) && r < 0x1F000 && !(r >= 0x2600 && r <= 0x27BF)
}

// closing reports punctuation that must not start a line ("、", "。", "）").
func closing(r rune) bool {
	return strings.ContainsRune("、。，．：；！？）」』】〉》〕]｝,.:;!?)", r)
}

// widthEm is the width of s in em.
func (m *metrics) widthEm(s string) float64 {
	if w, ok := m.fastEm(s); ok {
		return w
	}
	return m.clusterEm(s)
}

// fastEm is the width of s in em from the rune tables, and false when s
// holds a rune that needs the cluster path.
func (m *metrics) fastEm(s string) (float64, bool) {
	total := 0.0
	k := newKerning()
	for i := 0; i < len(s); {
		r := rune(s[i])
		if r < utf8.RuneSelf {
			i++
		} else {
			var n int
			r, n = utf8.DecodeRuneInString(s[i:])
			i += n
		}
		w, ok := m.runeEm(r, &k)
		if !ok {
			return 0, false
		}
		total += w
	}
	return total, true
}

// widthBytesEm is widthEm for text held in a scratch buffer (formatted numbers).
func (m *metrics) widthBytesEm(s []byte) float64 {
	total := 0.0
	k := newKerning()
	for i := 0; i < len(s); {
		r := rune(s[i])
		if r < utf8.RuneSelf {
			i++
		} else {
			var n int
			r, n = utf8.DecodeRune(s[i:])
			i += n
		}
		w, ok := m.runeEm(r, &k)
		if !ok {
			return m.clusterEm(string(s))
		}
		total += w
	}
	return total
}

// kerning is what runeEm carries from one rune to the next.
type kerning struct {
	// prev is the previous rune's index in the kerning table when it is
	// printable ASCII, -1 otherwise.
	prev int
	// script is the last strong script seen (Common before any). Chromium
	// shapes each script run apart, and spaces, digits and punctuation
	// belong to the run before them: after "東京 " or "Москва " a Latin
	// letter starts a new run, and is not kerned against the space.
	script language.Script
}

func newKerning() kerning { return kerning{prev: -1, script: language.Common} }

// runeEm is one rune's advance in em including kerning against the
// previous printable ASCII rune of the same script run. ok is false for a
// rune that needs the cluster path, and for one that makes a ligature with
// the rune before it.
func (m *metrics) runeEm(r rune, k *kerning) (w float64, ok bool) {
	var em float32 = missingEm
	if r < 0x10000 {
		em = m.em[r]
	} else if a, found := m.astral[r]; found {
		em = a.em
	}
	if em == slowEm {
		return 0, false
	}
	if r >= utf8.RuneSelf {
		if sc := language.LookupScript(r); sc.Strong() && sc != language.Unknown {
			k.script = sc
		}
		k.prev = -1
		if em == missingEm {
			return fallbackEm(r), true
		}
		return float64(em), true
	}
	if em == missingEm {
		k.prev = -1
		return fallbackEm(r), true
	}
	w = float64(em)
	if r < asciiLo || r >= asciiLo+asciiSpan {
		k.prev = -1
		return w, true
	}
	if r|0x20 >= 'a' && r|0x20 <= 'z' {
		if k.script != language.Latin && k.script != language.Common {
			k.prev = -1 // a new script run
		}
		k.script = language.Latin
	}
	next := int(r - asciiLo)
	if k.prev >= 0 {
		if m.lig[k.prev*asciiSpan+next] {
			return 0, false
		}
		w += float64(m.kern[k.prev*asciiSpan+next])
	}
	k.prev = next
	return w, true
}

// shaper is one goroutine's shaping state.
type shaper struct {
	runes    []rune
	seg      segmenter.Segmenter
	clusters []cluster
	buf      *harfbuzz.Buffer
	fonts    []*harfbuzz.Font // by face index, made on first use
}

// cluster is one grapheme cluster: runes[start:end], drawn with face.
type cluster struct {
	start, end int
	face       int // -1: no face has it
	// shaped is set when HarfBuzz must measure it: a shaped script or
	// more than one character (marks, emoji sequences).
	shaped bool
	// script is the cluster's script; characters common to all scripts
	// (spaces, digits, punctuation, emoji) take the one before them.
	script language.Script
}

func (m *metrics) getShaper() *shaper {
	if sh, ok := m.shapers.Get().(*shaper); ok {
		return sh
	}
	return &shaper{buf: harfbuzz.NewBuffer(), fonts: make([]*harfbuzz.Font, len(m.faces))}
}

// clusterEm measures s the way Chromium lays out an explicit font-family
// list: each grapheme cluster goes to the first face that has all of its
// characters (to the colour emoji face first when it asks for emoji
// presentation with U+FE0F; away from it with U+FE0E), and runs of
// clusters in one face are shaped with HarfBuzz where shaping changes the
// advances; the rest is summed from the rune tables.
func (m *metrics) clusterEm(s string) float64 {
	sh := m.getShaper()
	defer m.shapers.Put(sh)
	sh.split(m, s)
	return m.runsEm(sh, len(sh.clusters))
}

// cut is the byte length of the longest prefix of s, ending between
// grapheme clusters, that is at most room em wide.
func (m *metrics) cut(s string, room float64) int {
	sh := m.getShaper()
	defer m.shapers.Put(sh)
	sh.split(m, s)
	// Widths grow with the number of clusters kept: binary search.
	lo, hi := 0, len(sh.clusters)
	for lo < hi {
		mid := (lo + hi + 1) / 2
		if m.runsEm(sh, mid) <= room {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	if lo == 0 {
		return 0
	}
	n := 0
	for _, r := range sh.runes[:sh.clusters[lo-1].end] {
		n += utf8.RuneLen(r)
	}
	return n
}

// split fills sh.runes and sh.clusters for s.
func (sh *shaper) split(m *metrics, s string) {
	sh.runes = sh.runes[:0]
	for _, r := range s {
		sh.runes = append(sh.runes, r)
	}
	sh.clusters = sh.clusters[:0]
	sh.seg.Init(sh.runes)
	it := sh.seg.GraphemeIterator()
	prevScript := language.Common
	for it.Next() {
		g := it.Grapheme()
		// go-text v0.3.5 ends an emoji ZWJ sequence that directly follows
		// another one after its first ZWJ (its rule GB11 state is not
		// restarted by the next pictograph): join the pieces back.
		if n := len(sh.clusters); n > 0 && sh.runes[g.Offset-1] == 0x200D && pictographic(g.Text[0]) &&
			pictographic(sh.runes[sh.clusters[n-1].start]) {
			g.Text = sh.runes[sh.clusters[n-1].start : g.Offset+len(g.Text)]
			g.Offset = sh.clusters[n-1].start
			sh.clusters = sh.clusters[:n-1]
		}
		c := cluster{start: g.Offset, end: g.Offset + len(g.Text)}
		c.face = m.clusterFace(g.Text)
		c.script = prevScript
		for _, r := range g.Text {
			if sc := language.LookupScript(r); sc.Strong() && sc != language.Unknown {
				c.script = sc
				break
			}
		}
		prevScript = c.script
		c.shaped = c.face >= 0 && (len(g.Text) > 1 || shapedScript(c.script))
		sh.clusters = append(sh.clusters, c)
	}
	// Spaces, digits and punctuation before the first letter belong to
	// the script run that letter starts (as in Chromium's runs).
	for i, c := range sh.clusters {
		if c.script == language.Common {
			continue
		}
		for j := range sh.clusters[:i] {
			lead := &sh.clusters[j]
			lead.script = c.script
			lead.shaped = lead.face >= 0 && (lead.end-lead.start > 1 || shapedScript(lead.script))
		}
		break
	}
}

// pictographic approximates Unicode's Extended_Pictographic property
// (the emoji a ZWJ sequence joins).
func pictographic(r rune) bool {
	switch {
	case r >= 0x1F000 && r <= 0x1FAFF, r >= 0x1FC00 && r <= 0x1FFFD,
		r >= 0x2600 && r <= 0x27BF, r >= 0x2300 && r <= 0x23FF, r >= 0x2B00 && r <= 0x2BFF,
		r >= 0x2190 && r <= 0x21FF, r >= 0x25A0 && r <= 0x25FF,
		r == 0x00A9, r == 0x00AE, r == 0x203C, r == 0x2049, r == 0x2122, r == 0x2139,
		r == 0x3030, r == 0x303D, r == 0x3297, r == 0x3299:
		return true
	}
	return false
}

// clusterFace is the index of the face that draws a grapheme cluster, -1
// when no face has its base character.
func (m *metrics) clusterFace(text []rune) int {
	// an emoji drawn in colour by default is written with U+FE0F after
	// it (asksEmojiSelector), and is measured so
	emoji, notEmoji := false, false
	for _, r := range text {
		emoji = emoji || r == 0xFE0F
		notEmoji = notEmoji || r == 0xFE0E
	}
	emoji = emoji || (!notEmoji && text[0] >= 0x231A && unicode.Is(emojiPresentation, text[0]))
	if emoji {
		for i, fc := range m.faces {
			if fc.color && fc.hasAll(text) {
				return i
			}
		}
	}
	// No face before the first that has the base character has the whole
	// cluster (unless the base is a character the shaper may hide).
	base := m.firstFace(text[0])
	from := base
	if from < 0 || ignorable(text[0]) {
		from = 0
	}
	first := -1
	for i, fc := range m.faces[from:] {
		if fc.hasAll(text) {
			if notEmoji && fc.color {
				if first < 0 {
					first = from + i
				}
				continue
			}
			return from + i
		}
	}
	if first >= 0 {
		return first
	}
	// No face has the whole cluster: the face of its base character.
	return base
}

// firstFace is the index of the first face that has r, -1 when none has.
func (m *metrics) firstFace(r rune) int {
	i := uint16(noFace)
	if r < 0x10000 {
		i = m.first[r]
	} else if a, ok := m.astral[r]; ok {
		i = a.first
	}
	if i == noFace {
		return -1
	}
	return int(i)
}

// has reports whether the face has a glyph for r.
func (fc *face) has(r rune) bool {
	if r < 0x10000 {
		return fc.bmp(r) != noGlyph
	}
	_, ok := fc.astral[r]
	return ok
}

// hasAll reports whether the face has every character of a cluster that
// needs a glyph (default-ignorable characters such as joiners and
// variation selectors are hidden by the shaper when the face lacks them).
func (fc *face) hasAll(text []rune) bool {
	for _, r := range text {
		if !fc.has(r) && !ignorable(r) {
			return false
		}
	}
	return true
}

// ignorable reports default-ignorable format characters.
func ignorable(r rune) bool {
	switch {
	case r == 0x00AD, r == 0x034F, r == 0x061C, r == 0x180E,
		r >= 0x200B && r <= 0x200F, r >= 0x202A && r <= 0x202E, r >= 0x2060 && r <= 0x206F,
		r >= 0xFE00 && r <= 0xFE0F, r == 0xFEFF, r >= 0xE0100 && r <= 0xE01EF:
		return true
	}
	return false
}

// runsEm is the width in em of the first n clusters of sh, shaped as if
// the text ended there.
func (m *metrics) runsEm(sh *shaper, n int) float64 {
	total := 0.0
	if n == 0 {
		return 0
	}
	text := sh.runes[:sh.clusters[n-1].end]
	for i := 0; i < n; {
		// A run is the clusters of one face and script; it is shaped
		// when any of them needs it.
		c := sh.clusters[i]
		shaped := c.shaped
		j := i + 1
		for j < n && sh.clusters[j].face == c.face && sh.clusters[j].script == c.script {
			shaped = shaped || sh.clusters[j].shaped
			j++
		}
		start, end := c.start, sh.clusters[j-1].end
		if !shaped && c.face == 0 {
			shaped = m.ligature(text[start:end])
		}
		switch {
		case c.face < 0:
			for _, r := range text[start:end] {
				total += fallbackEm(r)
			}
		case shaped:
			total += m.shapeEm(sh, text, c.face, c.script, start, end)
		default:
			fc := m.faces[c.face]
			prev := -1
			for _, r := range text[start:end] {
				var adv uint16 = noGlyph
				if r < 0x10000 {
					adv = fc.bmp(r)
				} else if a, ok := fc.astral[r]; ok {
					adv = a
				}
				if adv == noGlyph {
					prev = -1
					continue // an ignorable character the face lacks
				}
				total += float64(float32(float64(adv) / fc.upem)) // as in the rune table
				next := -1
				if c.face == 0 && r >= asciiLo && r < asciiLo+asciiSpan {
					next = int(r - asciiLo)
					if prev >= 0 {
						total += float64(m.kern[prev*asciiSpan+next])
					}
				}
				prev = next
			}
		}
		i = j
	}
	return total
}

// ligature reports text holding a pair of printable ASCII characters the
// first face draws as one glyph.
func (m *metrics) ligature(text []rune) bool {
	for i := 1; i < len(text); i++ {
		a, b := text[i-1]-asciiLo, text[i]-asciiLo
		if a >= 0 && a < asciiSpan && b >= 0 && b < asciiSpan && m.lig[a*asciiSpan+b] {
			return true
		}
	}
	return false
}

// shapeEm shapes text[start:end] in one face, with the rest of text as
// context (as Chromium does: Arabic letters join across a change of face),
// and returns the advance in em.
func (m *metrics) shapeEm(sh *shaper, text []rune, fi int, script language.Script, start, end int) float64 {
	hf := sh.fonts[fi]
	if hf == nil {
		hf = harfbuzz.NewFont(gotext.NewFace(m.faces[fi].shaping()))
		sh.fonts[fi] = hf
	}
	b := sh.buf
	b.Clear()
	b.AddRunes(text, start, end-start)
	b.Props.Script = script
	b.Props.Language = "en"
	b.GuessSegmentProperties()
	b.Shape(hf, nil)
	adv := 0
	for _, p := range b.Pos {
		adv += int(p.XAdvance)
	}
	return float64(adv) / float64(hf.XScale)
}

// appendFamilies appends the font-family list of an SVG to b, escaped for
// a double-quoted attribute: the families embedded in the binary (Roboto,
// DejaVu Sans: named in every SVG, so a viewer that has them draws with
// them) and every family that draws a character of the text in doc's
// spans, regular or bold, in stack order. Chromium takes each character
// from the first family of the list that has it, and the families left
// out have none that an earlier named family lacks, so the picture is the
// one the whole list gives; a Latin chart names two families instead of
// the stack's 150.
func (f *Fonts) appendFamilies(b, doc []byte, spans [][2]int) []byte {
	var used []bool
	if len(spans) > 0 {
		used = make([]bool, len(f.names))
		for _, sp := range spans {
			f.regular.markFaces(doc[sp[0]:sp[1]], used)
			f.bold.markFaces(doc[sp[0]:sp[1]], used)
		}
	}
	n := 0
	for i, name := range f.names {
		if i >= f.embedded && (used == nil || !used[i]) {
			continue
		}
		if n > 0 {
			b = append(b, ", "...)
		}
		n++
		b = appendFamily(b, name)
	}
	return b
}

// markFaces sets used for every face that draws a character of text:
// the first face that has each character, and for text that takes the
// cluster path, the face of each cluster.
func (m *metrics) markFaces(text []byte, used []bool) {
	slow := false
	for i := 0; i < len(text); {
		r, n := utf8.DecodeRune(text[i:])
		i += n
		var em float32 = missingEm
		first := uint16(noFace)
		if r < 0x10000 {
			em, first = m.em[r], m.first[r]
		} else if a, ok := m.astral[r]; ok {
			em, first = a.em, a.first
		}
		slow = slow || em == slowEm
		if first != noFace {
			used[first] = true
		}
	}
	if !slow {
		return
	}
	sh := m.getShaper()
	defer m.shapers.Put(sh)
	sh.split(m, string(text))
	for _, c := range sh.clusters {
		if c.face >= 0 {
			used[c.face] = true
		}
	}
}

// appendFamily appends a font-family list (or one quoted name) for a
// double-quoted XML attribute: escaped like any text, but with the single
// quotes around the family names kept as they are.
func appendFamily(b []byte, family string) []byte {
	for {
		i := strings.IndexByte(family, '\'')
		if i < 0 {
			return appendEscaped(b, family)
		}
		b = appendEscaped(b, family[:i])
		b = append(b, '\'')
		family = family[i+1:]
	}
}

// isRTL reports text whose first strong character (a letter) is written
// right to left: Arabic, Hebrew, Syriac, Thaana, N'Ko, Adlam and the
// other right-to-left scripts (Unicode bidi class R or AL). Titles and
// legends of such text align right.
func isRTL(s string) bool {
	rtl, _ := direction(s)
	return rtl
}

// direction reports whether s runs right to left, and strong whether it
// has a letter that decides (text of digits and punctuation has none).
func direction(s string) (rtl, strong bool) {
	for _, r := range s {
		if r < utf8.RuneSelf {
			if r|0x20 >= 'a' && r|0x20 <= 'z' {
				return false, true
			}
			continue
		}
		p, _ := bidi.LookupRune(r)
		switch p.Class() {
		case bidi.L:
			return false, true
		case bidi.R, bidi.AL:
			return true, true
		}
	}
	return false, false
}

// fallbackEm estimates the width of a rune no face has; the browser draws
// it with some fallback font, so layout leaves room for a typical glyph.
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
