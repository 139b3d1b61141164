package draw

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"math/bits"
	"slices"
	"strconv"
	"sync"
	"unicode/utf8"

	"chartd.dev/libs/fontstack"
)

// An SVG served to clients carries the fonts it is drawn with (DESIGN §7,
// "SVG fonts"): layout is measured with the stack's faces, so a viewer
// without them (or with other versions of them) would clip labels and
// overrun legends. EmbedFonts adds, as a step after drawing, one
// @font-face rule per face the text is drawn with — the family name the
// SVG names, weight 400 or 700 — holding that face cut down to exactly
// the characters it draws, as a data: URL. The drawing itself is
// unchanged: the system-font form (what SVG answers) is what the render
// fleet rasterizes, with the same faces installed for Chromium.

// Subsetter cuts one face of the stack down to the given characters
// (sorted, without repeats) and answers the font file: WOFF2, WOFF or a
// plain OpenType file, told apart by their signatures. libs/subset's
// Cache (in front of its Tool) is one.
type Subsetter interface {
	Subset(ctx context.Context, face fontstack.Face, runes []rune) ([]byte, error)
}

// FaceText is one face an SVG draws text with and the characters it draws.
type FaceText struct {
	// Family is the family name, as the SVG's font-family list names it.
	Family string
	// Bold is set for the family's bold face (@font-face weight 700).
	// Bold text of a family without a bold face is drawn with its
	// regular face (weight 400), which the browser emboldens, so it is
	// counted there.
	Bold bool
	// Face is the font file the characters come from.
	Face fontstack.Face
	// Runes are the characters, sorted, without repeats.
	Runes []rune
}

// UsedFaces lists the faces the text of an SVG drawn with f is drawn
// with, in stack order (regular before bold), each with the characters
// it draws: every character of every <text> and <tspan>, bold where
// font-weight says so, given to the face that draws it as layout measured
// it (each grapheme cluster to the first face that has it; see Fonts).
// The title and description are not drawn and are not counted.
func (f *Fonts) UsedFaces(svg []byte) []FaceText {
	u := newUsage(f)
	scanText(svg, u.add)
	return u.faces()
}

// usage collects the characters each face draws.
type usage struct {
	f *Fonts
	// sets are the faces drawn with so far (a chart uses a few of the
	// stack's faces), keyed by face index times two, plus one for a
	// family's own bold face.
	sets  []keyedSet
	runes []rune
}

// keyedSet is one face's characters.
type keyedSet struct {
	key int
	set runeSet
}

// runeSet is a set of characters: Latin-1 in a bitmap, the rest in a map.
type runeSet struct {
	latin1 [4]uint64
	more   map[rune]struct{}
}

func (s *runeSet) add(r rune) {
	if r < 256 {
		s.latin1[r>>6] |= 1 << (r & 63)
		return
	}
	if s.more == nil {
		s.more = map[rune]struct{}{}
	}
	s.more[r] = struct{}{}
}

// sorted lists the set in order.
func (s *runeSet) sorted() []rune {
	out := make([]rune, 0, 64+len(s.more))
	for w, word := range s.latin1 {
		for word != 0 {
			b := bits.TrailingZeros64(word)
			out = append(out, rune(w*64+b))
			word &= word - 1
		}
	}
	start := len(out)
	for r := range s.more {
		out = append(out, r)
	}
	slices.Sort(out[start:])
	return out
}

func newUsage(f *Fonts) *usage { return &usage{f: f} }

// set is the characters of face fi in the weight drawn: a family without
// a bold face draws bold text with its regular face.
func (u *usage) set(fi int, bold bool) *runeSet {
	k := 2 * fi
	if bold && u.f.bold.faces[fi] != u.f.regular.faces[fi] {
		k++
	}
	for i := range u.sets {
		if u.sets[i].key == k {
			return &u.sets[i].set
		}
	}
	u.sets = append(u.sets, keyedSet{key: k})
	return &u.sets[len(u.sets)-1].set
}

// add counts one run of drawn text (XML-escaped, as in the SVG).
func (u *usage) add(escaped []byte, bold bool) {
	m := u.f.face(bold)
	// The set of the last face used: consecutive characters mostly share
	// one (it is fetched again, never kept across an append, when the
	// face changes).
	lastFace, last := -1, (*runeSet)(nil)
	set := func(fi int, r rune) {
		if fi != lastFace {
			lastFace, last = fi, u.set(fi, bold)
		}
		last.add(r)
	}
	u.runes = unescapeRunes(u.runes[:0], escaped)
	simple := true
	for _, r := range u.runes {
		if r >= 0x300 {
			simple = false
			break
		}
	}
	if simple {
		// Below U+0300 no character joins a cluster: each takes the
		// first face that has it.
		for _, r := range u.runes {
			for fi, fc := range m.faces {
				if fc.has(r) {
					set(fi, r)
					break
				}
			}
		}
		return
	}
	sh := m.getShaper()
	defer m.shapers.Put(sh)
	sh.split(m, string(u.runes))
	for _, c := range sh.clusters {
		if c.face < 0 {
			continue
		}
		fc := m.faces[c.face]
		for _, r := range sh.runes[c.start:c.end] {
			// A character the face lacks (a joiner or variation
			// selector it hides) is not asked of it.
			if fc.has(r) {
				set(c.face, r)
			}
		}
	}
}

// faces answers the sets as FaceTexts.
func (u *usage) faces() []FaceText {
	if len(u.sets) == 0 {
		return nil
	}
	slices.SortFunc(u.sets, func(a, b keyedSet) int { return a.key - b.key })
	fams := u.f.stack.Families()
	out := make([]FaceText, 0, len(u.sets))
	for _, ks := range u.sets {
		s := &ks.set
		fi, bold := ks.key/2, ks.key%2 == 1
		name := u.f.regular.faces[fi].name
		i := slices.IndexFunc(fams, func(fam fontstack.Family) bool { return fam.Name == name })
		if i < 0 {
			continue // not a family of the stack: cannot happen with LoadFonts' metrics
		}
		ft := FaceText{Family: name, Bold: bold, Face: fams[i].Regular, Runes: s.sorted()}
		if bold {
			ft.Face = *fams[i].Bold
		}
		out = append(out, ft)
	}
	return out
}

// scanText calls fn with the text content of every <text> and <tspan> of
// an SVG as libs/draw writes it (weights on those elements only), still
// XML-escaped, and whether it is bold.
func scanText(svg []byte, fn func(escaped []byte, bold bool)) {
	var weights []bool
	for i := 0; ; {
		j := bytes.Index(svg[i:], []byte("<text"))
		if j < 0 {
			return
		}
		i += j
		end, bold, ok := openTag(svg, i, len("<text"), false)
		if !ok {
			i += len("<text")
			continue
		}
		weights = append(weights[:0], bold)
		i = end
		for i < len(svg) && len(weights) > 0 {
			lt := bytes.IndexByte(svg[i:], '<')
			if lt < 0 {
				return
			}
			if lt > 0 {
				fn(svg[i:i+lt], weights[len(weights)-1])
			}
			i += lt
			switch {
			case bytes.HasPrefix(svg[i:], []byte("</tspan>")):
				weights = weights[:len(weights)-1]
				i += len("</tspan>")
			case bytes.HasPrefix(svg[i:], []byte("</text>")):
				weights = weights[:0]
				i += len("</text>")
			case bytes.HasPrefix(svg[i:], []byte("<tspan")):
				end, bold, ok := openTag(svg, i, len("<tspan"), weights[len(weights)-1])
				if !ok {
					return
				}
				if svg[end-2] != '/' {
					weights = append(weights, bold)
				}
				i = end
			default:
				// Another element inside text: skip its tag.
				gt := bytes.IndexByte(svg[i:], '>')
				if gt < 0 {
					return
				}
				i += gt + 1
			}
		}
	}
}

// openTag reads the start tag at svg[at:] whose name is n bytes long
// (with its "<"): the offset past its ">", and its weight (bold, or
// inherit when it names none). ok is false when the name goes on
// (<textPath>) or the tag has no end.
func openTag(svg []byte, at, n int, inherit bool) (end int, bold, ok bool) {
	if at+n >= len(svg) {
		return 0, false, false
	}
	switch svg[at+n] {
	case ' ', '>', '/', '\t', '\n', '\r':
	default:
		return 0, false, false
	}
	gt := bytes.IndexByte(svg[at:], '>')
	if gt < 0 {
		return 0, false, false
	}
	tag := svg[at : at+gt]
	bold = inherit
	if k := bytes.Index(tag, []byte(` font-weight="`)); k >= 0 {
		v := tag[k+len(` font-weight="`):]
		if q := bytes.IndexByte(v, '"'); q >= 0 {
			v = v[:q]
		}
		bold = isBoldWeight(string(v), inherit)
	}
	return at + gt + 1, bold, true
}

// isBoldWeight reads a font-weight value: bold and bolder, or 600 and
// up, take the bold face (CSS's font matching for a family with 400 and
// 700 faces); inherit keeps the parent's.
func isBoldWeight(v string, inherit bool) bool {
	switch v {
	case "bold", "bolder":
		return true
	case "normal", "lighter":
		return false
	case "inherit", "":
		return inherit
	}
	w, err := strconv.Atoi(v)
	if err != nil {
		return inherit
	}
	return w >= 600
}

// unescapeRunes appends the characters of XML-escaped text.
func unescapeRunes(out []rune, s []byte) []rune {
	for i := 0; i < len(s); {
		c := s[i]
		if c == '&' {
			if semi := bytes.IndexByte(s[i:min(len(s), i+12)], ';'); semi > 0 {
				if r, ok := entity(s[i+1 : i+semi]); ok {
					out = append(out, r)
					i += semi + 1
					continue
				}
			}
		}
		if c < utf8.RuneSelf {
			out = append(out, rune(c))
			i++
			continue
		}
		r, n := utf8.DecodeRune(s[i:])
		out = append(out, r)
		i += n
	}
	return out
}

// entity reads an XML entity's name or character reference.
func entity(name []byte) (rune, bool) {
	switch string(name) {
	case "lt":
		return '<', true
	case "gt":
		return '>', true
	case "amp":
		return '&', true
	case "quot":
		return '"', true
	case "apos":
		return '\'', true
	}
	if len(name) < 2 || name[0] != '#' {
		return 0, false
	}
	base, digits := 10, name[1:]
	if digits[0] == 'x' || digits[0] == 'X' {
		base, digits = 16, digits[1:]
	}
	v, err := strconv.ParseUint(string(digits), base, 32)
	if err != nil || v > utf8.MaxRune {
		return 0, false
	}
	return rune(v), true
}

// EmbedFonts returns svg carrying the faces its text is drawn with: for
// each face UsedFaces lists, an @font-face rule (the family name the SVG
// names, weight 400 or 700) whose source is sub's subset of the face as a
// data: URL, in a <style> after the description, followed by an invisible
// primer text per face (see appendPrimers). A browser then draws the SVG
// with the faces layout was measured with, whatever fonts its machine
// has. An SVG without text comes back as it is. The subsets are asked for
// in parallel.
//
// The rules name no unicode-range: with one, Chromium looks for a system
// fallback font for text that changes face mid-run ("Ab 東京") even
// though the embedded faces cover it, and with no fonts installed it
// aborts (measured with Chromium 156; libs/raster's embed test draws on a
// machine without fonts).
func (f *Fonts) EmbedFonts(ctx context.Context, svg []byte, sub Subsetter) ([]byte, error) {
	used := f.UsedFaces(svg)
	if len(used) == 0 {
		return svg, nil
	}
	files := make([][]byte, len(used))
	errs := make([]error, len(used))
	if len(used) == 1 {
		files[0], errs[0] = sub.Subset(ctx, used[0].Face, used[0].Runes)
	} else {
		var wg sync.WaitGroup
		for i, ft := range used {
			wg.Go(func() { files[i], errs[i] = sub.Subset(ctx, ft.Face, ft.Runes) })
		}
		wg.Wait()
	}
	if err := errors.Join(errs...); err != nil {
		return nil, fmt.Errorf("draw: embed fonts: %w", err)
	}
	at := bytes.Index(svg, []byte("</desc>"))
	if at < 0 {
		if at = bytes.IndexByte(svg, '>'); at < 0 {
			return nil, errors.New("draw: embed fonts: not an SVG document")
		}
		at++
	} else {
		at += len("</desc>")
	}
	size := len(svg) + 32
	for i, ft := range used {
		size += 160 + 2*len(ft.Family) + base64.StdEncoding.EncodedLen(len(files[i]))
	}
	out := make([]byte, 0, size)
	out = append(out, svg[:at]...)
	out = append(out, "<defs><style>"...)
	for i, ft := range used {
		out = appendFontFace(out, ft, files[i])
	}
	out = append(out, "</style></defs>"...)
	out = appendPrimers(out, used)
	out = append(out, svg[at:]...)
	return out, nil
}

// appendPrimers appends one invisible text per embedded face, in that face
// only: Chromium loads, in an SVG drawn as an image, only the faces that
// some text names first (its primary font); a face text falls back to
// (the CJK face after Roboto in "Ab 東京") is never loaded there, and the
// text is drawn without it. Each primer is one character of its face, no
// fill, 1 px, before the background: nothing of it shows.
func appendPrimers(b []byte, used []FaceText) []byte {
	b = append(b, `<g aria-hidden="true" fill="none" font-size="1">`...)
	for _, ft := range used {
		b = append(b, `<text font-family="'`...)
		b = appendEscaped(b, ft.Family)
		b = append(b, `'"`...)
		if ft.Bold {
			b = append(b, ` font-weight="bold"`...)
		}
		b = append(b, '>')
		b = appendEscaped(b, string(ft.Runes[len(ft.Runes)-1]))
		b = append(b, "</text>"...)
	}
	return append(b, "</g>"...)
}

// appendFontFace appends one @font-face rule (text of an XML element:
// nothing in it needs escaping but the family name).
func appendFontFace(b []byte, ft FaceText, file []byte) []byte {
	mime, format := fontFormat(file)
	b = append(b, "@font-face{font-family:'"...)
	for _, c := range []byte(ft.Family) {
		switch c {
		case '\'', '\\':
			b = append(b, '\\', c)
		case '<':
			b = append(b, "&lt;"...)
		case '&':
			b = append(b, "&amp;"...)
		default:
			b = append(b, c)
		}
	}
	b = append(b, "';font-weight:"...)
	if ft.Bold {
		b = append(b, "700"...)
	} else {
		b = append(b, "400"...)
	}
	b = append(b, ";src:url(data:"...)
	b = append(b, mime...)
	b = append(b, ";base64,"...)
	b = base64.StdEncoding.AppendEncode(b, file)
	b = append(b, ") format('"...)
	b = append(b, format...)
	return append(b, "')}"...)
}

// fontFormat is a font file's media type and CSS format name, by its
// signature.
func fontFormat(file []byte) (mime, format string) {
	switch {
	case bytes.HasPrefix(file, []byte("wOF2")):
		return "font/woff2", "woff2"
	case bytes.HasPrefix(file, []byte("wOFF")):
		return "font/woff", "woff"
	case bytes.HasPrefix(file, []byte("OTTO")):
		return "font/otf", "opentype"
	}
	return "font/ttf", "truetype"
}
