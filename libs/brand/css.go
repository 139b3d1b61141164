package brand

import (
	"bytes"
	"net/url"
	"strings"
	"unicode/utf8"

	"github.com/tdewolff/parse/v2"
	"github.com/tdewolff/parse/v2/css"
)

// maxStmtTokens bounds one selector or declaration; longer ones are cut,
// which only loses evidence.
const maxStmtTokens = 2048

// maxNesting bounds the block stack; deeper blocks are read as if flat.
const maxNesting = 64

// newInput wraps b for the tdewolff lexer. The lexer writes a NUL past
// len(b) when there is spare capacity; capping the capacity makes it copy
// instead, so the caller's Site is never written to.
func newInput(b []byte) *parse.Input {
	return parse.NewInputBytes(b[:len(b):len(b)])
}

// role is what a selector or element is: the parts of a page that carry
// brand colour.
type role uint8

const (
	roleNone role = iota
	roleButton
	roleLink
	roleHeader
	roleLogo
)

// paint is which part of an element a declaration colours.
type paint uint8

const (
	paintNone paint = iota
	paintBG
	paintText
	paintBorder
	paintFill
)

// roleWeight is the base weight of a colour painted on an element of a
// role; see the package documentation.
func roleWeight(r role, p paint) (Kind, float64) {
	switch r {
	case roleButton:
		switch p {
		case paintBG:
			return KindButton, 4
		case paintBorder:
			return KindButton, 2
		case paintText, paintFill:
			return KindButton, 1
		}
	case roleLink:
		switch p {
		case paintText:
			return KindLink, 3
		case paintBG:
			return KindLink, 2
		case paintBorder:
			return KindLink, 1
		case paintFill:
			return KindLink, 1.5
		}
	case roleHeader:
		switch p {
		case paintBG:
			return KindHeader, 3
		case paintText, paintFill:
			return KindHeader, 1.5
		case paintBorder:
			return KindHeader, 1
		}
	case roleLogo:
		switch p {
		case paintFill:
			return KindSVGLogo, 5
		case paintText:
			return KindSVGLogo, 4
		case paintBG, paintBorder:
			return KindSVGLogo, 2
		}
	}
	return "", 0
}

// selInfo is what a rule's selector says about the elements it styles.
type selInfo struct {
	role  role
	mult  float64 // variant and state multiplier
	where string  // selector text, kept only when role != roleNone
}

type frameKind uint8

const (
	frameGroup     frameKind = iota // top level, @media, @supports: holds rules
	frameRule                       // a style rule: holds declarations
	frameOther                      // @font-face, keyframe blocks: ignored for roles
	frameKeyframes                  // @keyframes: holds keyframe blocks
)

// frame is an open block. A rule's selector is only classified when one
// of its declarations paints a colour (resolveFrame), since most rules set
// layout and type and classifying every selector would dominate the cost.
type frame struct {
	kind       frameKind
	parent     int   // index of the enclosing frame
	pre        []tok // a rule's selector, until resolved
	resolved   bool
	sel        selInfo
	dark       bool   // inside a dark colour scheme
	class      []byte // the class of a single-class rule (.bg-indigo-600), as written
	classState bool   // that rule is a :hover/:focus variant
	// fac weighs the rule by the page elements it paints (dom.ruleFactor)
	// and by whose stylesheet it is in (extractor.srcMult).
	fac float64
	// area is what the rule's elements cover on the page (dom.rule),
	// and full its selector, kept only when area > 0.
	area float64
	full string
}

type varDef struct {
	toks  []tok
	dark  bool
	where string
	mult  float64 // other-host stylesheet or a rule that paints nothing
}

// pendingDecl is a declaration whose colour depends on a custom property
// that may be defined later or in another stylesheet.
type pendingDecl struct {
	sel        selInfo
	p          paint
	class      []byte
	classState bool
	identsOK   bool
	toks       []tok
	prop       string
	decl       int
}

// classPaint records what a utility class paints, to be joined with the
// page's elements that use it.
type classPaint struct {
	c     rgb
	p     paint
	state bool
	// roleSel is set when the rule's selector already named a role
	// (.btn-primary), so its uses count for frequency only.
	roleSel bool
}

// maxClassPaints bounds the colours kept per class.
const maxClassPaints = 4

// scanCSS reads a stylesheet, a <style> element or (with inline set) a style
// attribute. It counts every colour for frequency, records custom
// properties, and emits role signals for rules whose selectors name
// buttons, links, headers, navs and logos.
func (e *extractor) scanCSS(body []byte, src string, inline *selInfo) {
	if len(body) == 0 {
		return
	}
	l := css.NewLexer(newInput(body))
	var stackBuf [16]frame
	stack := stackBuf[:0]
	if inline != nil {
		stack = append(stack, frame{kind: frameRule, sel: *inline, resolved: true, fac: 1})
	} else {
		stack = append(stack, frame{kind: frameGroup, resolved: true, fac: 1})
	}
	prevMult := e.srcMult
	e.srcMult = e.sheetMult(src, inline != nil)
	defer func() { e.srcMult = prevMult }()
	arena := e.arena[:0]
	defer func() { e.arena = arena[:0] }()
	overflow := 0
	stmt := e.toks[:0]
	defer func() { e.toks = stmt[:0] }()
	for {
		tt, data := l.Next()
		switch tt {
		case css.ErrorToken:
			e.statement(stmt, stack, src)
			return
		case css.CommentToken:
			continue
		case css.LeftBraceToken:
			if inline != nil {
				stmt = stmt[:0]
				continue
			}
			if len(stack) >= maxNesting {
				overflow++
			} else {
				f := e.open(stmt, &stack[len(stack)-1])
				f.parent = len(stack) - 1
				if f.kind == frameRule {
					start := len(arena)
					arena = append(arena, trimWS(stmt)...)
					f.pre = arena[start:len(arena):len(arena)]
				}
				stack = append(stack, f)
			}
			stmt = stmt[:0]
		case css.SemicolonToken:
			e.statement(stmt, stack, src)
			stmt = stmt[:0]
		case css.RightBraceToken:
			e.statement(stmt, stack, src)
			stmt = stmt[:0]
			if overflow > 0 {
				overflow--
			} else if len(stack) > 1 {
				stack = stack[:len(stack)-1]
				if len(stack) == 1 {
					arena = arena[:0] // no open rule refers to it any more
				}
			}
		case css.WhitespaceToken:
			if len(stmt) == 0 || stmt[len(stmt)-1].tt == css.WhitespaceToken || len(stmt) >= maxStmtTokens {
				continue
			}
			stmt = append(stmt, tok{tt, data})
		default:
			if len(stmt) < maxStmtTokens {
				stmt = append(stmt, tok{tt, data})
			}
		}
	}
}

func trimWS(t []tok) []tok {
	for len(t) > 0 && t[0].tt == css.WhitespaceToken {
		t = t[1:]
	}
	for len(t) > 0 && t[len(t)-1].tt == css.WhitespaceToken {
		t = t[:len(t)-1]
	}
	return t
}

// open starts a block whose prelude is p. Rules are classified later, by
// resolveFrame.
func (e *extractor) open(p []tok, parent *frame) frame {
	p = trimWS(p)
	if len(p) > 0 && p[0].tt == css.AtKeywordToken {
		name := p[0].data[1:]
		if len(name) > 1 && name[0] == '-' {
			if i := bytes.IndexByte(name[1:], '-'); i >= 0 {
				name = name[i+2:]
			}
		}
		switch {
		case equalFold(name, "media"), equalFold(name, "supports"), equalFold(name, "layer"),
			equalFold(name, "container"), equalFold(name, "document"), equalFold(name, "scope"),
			equalFold(name, "starting-style"):
			return frame{kind: frameGroup, resolved: true, dark: parent.dark || mentionsDark(p), fac: 1}
		case equalFold(name, "keyframes"):
			return frame{kind: frameKeyframes, resolved: true, fac: 1}
		}
		return frame{kind: frameOther, resolved: true, fac: 1}
	}
	if parent.kind == frameKeyframes || parent.kind == frameOther {
		return frame{kind: frameOther, resolved: true, fac: 1}
	}
	return frame{kind: frameRule}
}

// resolveFrame classifies the selector of stack[i] (and its ancestors, for
// nesting) the first time one of its declarations needs it, and weighs it by
// the elements it paints.
func (e *extractor) resolveFrame(stack []frame, i int) *frame {
	f := &stack[i]
	if f.resolved {
		return f
	}
	f.resolved = true
	parent := e.resolveFrame(stack, f.parent)
	p := f.pre
	sel := classifySelector(p)
	full := selectorFull(p)
	fac := e.srcMult
	switch {
	case parent.kind == frameRule || strings.Contains(full, "&"):
		fac = parent.fac
	case e.dom != nil:
		m := e.dom.rule(full)
		fac *= m.fac
		if m.area > 0 && e.srcMult == 1 {
			f.area, f.full = m.area, full
		}
	case highlightSelector(full):
		fac *= 0.05
	}
	f.fac = fac
	sel.mult *= fac
	if parent.kind == frameRule { // CSS nesting: & inherits its parent's role
		if sel.role == roleNone {
			sel.role = parent.sel.role
			sel.where = parent.sel.where
		}
		sel.mult *= parent.sel.mult
	}
	f.dark = parent.dark || mentionsDark(p)
	if f.dark {
		sel.mult *= 0.5 // a dark scheme's colours are a variant of the brand's
	}
	f.sel = sel
	if parent.kind == frameGroup {
		f.class, f.classState = simpleClass(p)
	}
	f.pre = nil
	return f
}

// statement handles one declaration (or stray at-statement) in frame f.
func (e *extractor) statement(stmt []tok, stack []frame, src string) {
	s := trimWS(stmt)
	f := &stack[len(stack)-1]
	if len(s) < 3 || f.kind == frameGroup || f.kind == frameKeyframes {
		return
	}
	colon := -1
	for i, t := range s {
		if t.tt == css.ColonToken {
			colon = i
			break
		}
	}
	if colon < 1 {
		return
	}
	name := s[0]
	val := trimImportant(trimWS(s[colon+1:]))
	if len(val) == 0 {
		return
	}
	if name.tt == css.CustomPropertyNameToken {
		if hasPrefixFold(name.data, "--tw-") {
			// Tailwind's internal opacity, ring and shadow variables:
			// never a colour of their own, redefined by every utility.
			valueScan(val, false, nil, 0, false, func(c rgb, _ bool) { e.freq[c] += e.srcMult })
			return
		}
		e.customProp(name.data, val, e.resolveFrame(stack, len(stack)-1), src)
		return
	}
	if name.tt != css.IdentToken {
		return
	}
	p, identsOK := propPaint(name.data)
	if p != paintNone {
		f = e.resolveFrame(stack, len(stack)-1)
	}
	roleSig := f.kind == frameRule && f.sel.role != roleNone && p != paintNone
	classSig := f.kind == frameRule && f.class != nil && p != paintNone
	e.decl++
	decl := e.decl
	areaSig := f.kind == frameRule && f.area > 0 && (p == paintBG || p == paintText)
	sawVar := valueScan(val, identsOK, nil, 0, false, func(c rgb, _ bool) {
		if !f.resolved {
			f = e.resolveFrame(stack, len(stack)-1)
		}
		e.freq[c] += f.fac
		if areaSig {
			e.areaSignal(f, p, c, decl)
		}
		if roleSig {
			e.roleSignal(f.sel, p, c, name.data, decl)
		}
		if classSig {
			e.addClassPaint(f.class, classPaint{c, p, f.classState, roleSig})
		}
	})
	if sawVar && (roleSig || classSig) {
		e.pending = append(e.pending, pendingDecl{
			sel: f.sel, p: p, class: f.class, classState: f.classState,
			identsOK: identsOK, toks: append([]tok(nil), val...), prop: string(name.data), decl: decl,
		})
	}
}

func trimImportant(v []tok) []tok {
	n := len(v)
	if n >= 2 && v[n-1].tt == css.IdentToken && equalFold(v[n-1].data, "important") &&
		v[n-2].tt == css.DelimToken && v[n-2].data[0] == '!' {
		return trimWS(v[:n-2])
	}
	return v
}

// roleSignal records a colour painted by a rule that names a role. A later
// declaration of the same property under the same selector replaces the
// earlier one, as in the cascade: a theme stylesheet overriding
// Bootstrap's .btn-primary { --bs-btn-bg } leaves only the theme's colour.
// Several colours in one declaration (a gradient) are all kept. The
// signals are made by flushRoles once every stylesheet is read.
func (e *extractor) roleSignal(sel selInfo, p paint, c rgb, prop []byte, decl int) {
	k, w := roleWeight(sel.role, p)
	if w == 0 {
		return
	}
	key := roleKey{sel.where, internProp(prop)}
	rd := e.roleDecls[key]
	if rd == nil {
		rd = &roleDecl{decl: decl}
		e.roleDecls[key] = rd
		e.roleKeys = append(e.roleKeys, key)
	}
	if rd.decl != decl {
		rd.decl, rd.n = decl, 0
	}
	if rd.n < len(rd.sigs) {
		rd.sigs[rd.n] = signal{c: c, kind: k, w: w * sel.mult}
		rd.n++
	}
}

// areaDecl holds the colours of the latest declaration that paints a
// rule's background or text, and the area of the elements it paints.
type areaDecl struct {
	decl int
	n    int
	area float64
	cs   [4]rgb
}

// areaSignal records a colour a rule paints over its elements' area; a
// later declaration of the same paint in the same rule replaces it.
func (e *extractor) areaSignal(f *frame, p paint, c rgb, decl int) {
	key := roleKey{f.full, "bg"}
	if p == paintText {
		key.prop = "text"
	}
	ad := e.areaDecls[key]
	if ad == nil {
		ad = &areaDecl{decl: decl, area: f.area}
		e.areaDecls[key] = ad
		e.areaKeys = append(e.areaKeys, key)
	}
	if ad.decl != decl {
		ad.decl, ad.n = decl, 0
	}
	if ad.n < len(ad.cs) {
		ad.cs[ad.n] = c
		ad.n++
	}
}

// glyphCover is the share of a text box its glyphs paint; a background
// paints all of its box.
const glyphCover = 0.4

// flushAreas adds up the area each colour paints; a gradient's stops
// share their rule's area.
func (e *extractor) flushAreas() {
	for _, key := range e.areaKeys {
		ad := e.areaDecls[key]
		a := ad.area / float64(ad.n)
		if key.prop == "text" {
			a *= glyphCover
		}
		for _, c := range ad.cs[:ad.n] {
			e.area[c] += a
		}
	}
}

// internProp returns the property names that paint as constants, so that
// recording a declaration does not allocate.
func internProp(prop []byte) string {
	for _, p := range [...]string{"color", "background-color", "background", "border-color", "border",
		"fill", "stroke", "border-bottom", "border-top", "outline-color", "outline", "background-image"} {
		if equalFold(prop, p) {
			return p
		}
	}
	return string(prop)
}

func (e *extractor) flushRoles() {
	for _, key := range e.roleKeys {
		rd := e.roleDecls[key]
		for _, s := range rd.sigs[:rd.n] {
			if e.wouldKeep(s.c, s.kind, s.w) {
				e.addCapped(s.c, s.kind, key.sel+" { "+key.prop+" }", s.w)
			}
		}
	}
}

// paintList is what one utility class paints, at most maxClassPaints
// colours.
type paintList struct {
	n uint8
	p [maxClassPaints]classPaint
}

// addClassPaint records a colour painted by a single-class rule; raw is
// the class as written in CSS (escapes included).
func (e *extractor) addClassPaint(raw []byte, cp classPaint) {
	var i int
	var ok bool
	if containsByte(raw, '\\') {
		k := unescapeIdent(raw)
		if i, ok = e.classPaints[k]; !ok {
			i = len(e.paintLists)
			e.classPaints[k] = i
			e.paintLists = append(e.paintLists, paintList{})
		}
	} else if i, ok = e.classPaints[string(raw)]; !ok {
		i = len(e.paintLists)
		e.classPaints[string(raw)] = i
		e.paintLists = append(e.paintLists, paintList{})
	}
	if l := &e.paintLists[i]; int(l.n) < maxClassPaints {
		l.p[l.n] = cp
		l.n++
	}
}

func (e *extractor) paintsOf(class string) []classPaint {
	if i, ok := e.classPaints[class]; ok {
		l := &e.paintLists[i]
		return l.p[:l.n]
	}
	return nil
}

// customProp records a custom property definition. Definitions made only
// for a dark colour scheme do not replace the default ones.
func (e *extractor) customProp(name []byte, val []tok, f *frame, src string) {
	if len(val) > 64 {
		val = val[:64]
	}
	old, seen := e.vars[string(name)]
	switch {
	case seen && f.dark && !old.dark:
	case seen && old.dark == f.dark && sameToks(old.toks, val):
	default:
		key := string(name)
		if !seen {
			e.varOrder = append(e.varOrder, key)
		}
		e.vars[key] = varDef{toks: append([]tok(nil), val...), dark: f.dark, where: src, mult: min(1, f.fac)}
	}
	wpPreset := hasPrefixFold(name, "--wp--preset--")
	rolePaint := paintNone
	if f.kind == frameRule && f.sel.role != roleNone {
		rolePaint = paintFromVarName(name)
	}
	e.decl++
	decl := e.decl
	sawVar := valueScan(val, len(val) == 1, nil, 0, false, func(c rgb, _ bool) {
		if !wpPreset {
			e.freq[c] += f.fac
		}
		if rolePaint != paintNone {
			e.roleSignal(f.sel, rolePaint, c, name, decl)
		}
	})
	if sawVar && rolePaint != paintNone {
		e.pending = append(e.pending, pendingDecl{
			sel: f.sel, p: rolePaint, identsOK: true,
			toks: append([]tok(nil), val...), prop: string(name), decl: decl,
		})
	}
}

func sameToks(a, b []tok) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i].tt != b[i].tt || string(a[i].data) != string(b[i].data) {
			return false
		}
	}
	return true
}

// paintFromVarName reads component-scoped custom properties such as
// Bootstrap's .btn-primary { --bs-btn-bg: … }.
func paintFromVarName(name []byte) paint {
	switch {
	case containsFold(name, "shadow"), containsFold(name, "focus"), containsFold(name, "disabled"):
		return paintNone
	case containsFold(name, "hover"), containsFold(name, "active"):
		return paintNone // states: the base colour is enough
	case containsFold(name, "bg"), containsFold(name, "background"):
		return paintBG
	case containsFold(name, "border"):
		return paintBorder
	case containsFold(name, "color"), containsFold(name, "colour"):
		return paintText
	}
	return paintNone
}

// propPaint classifies a property: which part it paints, and whether bare
// keywords in its value are colours (so "font-family: Tan" is not).
func propPaint(prop []byte) (paint, bool) {
	if len(prop) > 40 {
		return paintNone, false
	}
	var buf [40]byte
	for i, c := range prop {
		if c >= 'A' && c <= 'Z' {
			c += 'a' - 'A'
		}
		buf[i] = c
	}
	lp := buf[:len(prop)]
	switch string(lp) {
	case "color", "-webkit-text-fill-color":
		return paintText, true
	case "background", "background-color", "background-image":
		return paintBG, true
	case "fill", "stroke":
		return paintFill, true
	case "border", "border-color", "border-top", "border-right", "border-bottom", "border-left",
		"border-top-color", "border-right-color", "border-bottom-color", "border-left-color",
		"border-block", "border-block-color", "border-block-start", "border-block-end",
		"border-inline", "border-inline-color", "border-inline-start", "border-inline-end",
		"border-block-start-color", "border-block-end-color", "border-inline-start-color",
		"border-inline-end-color", "outline", "outline-color":
		return paintBorder, true
	case "box-shadow", "text-shadow", "text-decoration", "text-decoration-color", "caret-color",
		"accent-color", "column-rule", "column-rule-color", "stop-color", "flood-color",
		"lighting-color", "scrollbar-color", "-webkit-tap-highlight-color", "text-emphasis-color",
		"-webkit-text-stroke", "-webkit-text-stroke-color", "-webkit-box-shadow":
		return paintNone, true
	}
	return paintNone, false
}

func hasSuffixFold(b []byte, suffix string) bool {
	return len(b) >= len(suffix) && equalFold(b[len(b)-len(suffix):], suffix)
}

func hasPrefixFold(b []byte, prefix string) bool {
	return len(b) >= len(prefix) && equalFold(b[:len(prefix)], prefix)
}

// containsFold reports whether lower-case word w occurs in b, ignoring
// ASCII case, without allocating.
func containsFold(b []byte, w string) bool {
	n := len(w)
	if n == 0 {
		return true
	}
	c0 := w[0]
	for i := 0; i+n <= len(b); i++ {
		if c := b[i]; c != c0 && c|0x20 != c0 {
			continue
		}
		if equalFold(b[i:i+n], w) {
			return true
		}
	}
	return false
}

func mentionsDark(p []tok) bool {
	for _, t := range p {
		switch t.tt {
		case css.IdentToken, css.StringToken, css.HashToken:
			if containsFold(t.data, "dark") {
				return true
			}
		}
	}
	return false
}

// classifySelector finds the most brand-bearing compound selector in a
// selector list: a button beats a link beats a header or nav.
func classifySelector(p []tok) selInfo {
	best := selInfo{mult: 1}
	start := 0
	depth := 0
	for i := 0; i <= len(p); i++ {
		if i < len(p) {
			switch p[i].tt {
			case css.FunctionToken, css.LeftParenthesisToken, css.LeftBracketToken:
				depth++
				continue
			case css.RightParenthesisToken, css.RightBracketToken:
				depth--
				continue
			case css.CommaToken:
				if depth > 0 {
					continue
				}
			default:
				continue
			}
		}
		r, m := classifyComplex(trimWS(p[start:i]))
		if r != roleNone && (best.role == roleNone || r < best.role || (r == best.role && m > best.mult)) {
			best.role, best.mult = r, m
		}
		start = i + 1
		depth = 0
	}
	if best.role != roleNone {
		best.where = selectorText(p)
	}
	return best
}

// selectorFull is a rule's whole selector text, for matching.
func selectorFull(p []tok) string {
	var b strings.Builder
	for _, t := range p {
		b.Write(t.data)
	}
	return b.String()
}

// sheetMult is the weight of a stylesheet's colours: a stylesheet from
// another host (a search widget, a vendor's CDN) is seldom the brand's.
// Inline styles and <style> elements are the page's own.
func (e *extractor) sheetMult(src string, inline bool) float64 {
	if inline || e.page == nil || !strings.Contains(src, "://") {
		return 1
	}
	u, err := url.Parse(src)
	if err != nil {
		return 1
	}
	if sameSite(u.Hostname(), e.page.Hostname()) {
		return 1
	}
	return 0.25
}

// sameSite compares hosts ignoring www. and allowing a subdomain of the
// page's registrable part (static.example.com serves example.com).
func sameSite(a, b string) bool {
	a = strings.TrimPrefix(strings.ToLower(a), "www.")
	b = strings.TrimPrefix(strings.ToLower(b), "www.")
	if a == b {
		return true
	}
	return strings.HasSuffix(a, "."+b) || strings.HasSuffix(b, "."+a)
}

func selectorText(p []tok) string {
	var b strings.Builder
	for _, t := range p {
		if b.Len()+len(t.data) > 100 {
			b.WriteString("…")
			break
		}
		b.Write(t.data)
	}
	return b.String()
}

// classifyComplex looks at the subject (last compound) of one complex
// selector such as ".navbar .nav-link:hover". It runs for every rule, so it
// first looks for a role and only then reads variants and states.
func classifyComplex(p []tok) (role, float64) {
	if len(p) == 0 {
		return roleNone, 1
	}
	subj := 0
	depth := 0
	for i, t := range p {
		switch t.tt {
		case css.FunctionToken, css.LeftParenthesisToken, css.LeftBracketToken:
			depth++
		case css.RightParenthesisToken, css.RightBracketToken:
			depth--
		case css.WhitespaceToken:
			if depth == 0 {
				subj = i + 1
			}
		case css.DelimToken:
			if depth == 0 && (t.data[0] == '>' || t.data[0] == '+' || t.data[0] == '~') {
				subj = i + 1
			}
		}
	}
	c := p[subj:]
	if len(c) == 0 {
		return roleNone, 1
	}
	var typ []byte
	if c[0].tt == css.IdentToken {
		typ = c[0].data
	}
	var nameBuf [8][]byte
	names := nameBuf[:0]
	var isButton, isLink, state bool
	for i := 0; i < len(c); i++ {
		t := c[i]
		switch t.tt {
		case css.DelimToken:
			if t.data[0] == '.' && i+1 < len(c) && c[i+1].tt == css.IdentToken {
				if len(names) < cap(names) {
					names = append(names, c[i+1].data)
				}
				i++
			}
		case css.HashToken:
			if len(names) < cap(names) {
				names = append(names, t.data[1:])
			}
		case css.LeftBracketToken:
			j := i + 1
			for j < len(c) && c[j].tt != css.RightBracketToken {
				j++
			}
			for _, a := range c[i+1 : j] {
				if (a.tt == css.IdentToken || a.tt == css.StringToken) &&
					(containsFold(a.data, "submit") || equalFold(trimQuotes(a.data), "button")) {
					isButton = true
				}
			}
			i = j
		case css.ColonToken:
			if i+1 < len(c) && (c[i+1].tt == css.IdentToken || c[i+1].tt == css.FunctionToken) {
				n := c[i+1].data
				switch {
				case equalFold(n, "hover"), equalFold(n, "focus"), equalFold(n, "active"),
					equalFold(n, "focus-visible"), equalFold(n, "focus-within"), equalFold(n, "disabled"),
					equalFold(n, "visited"):
					state = true
				case equalFold(n, "link"), equalFold(n, "any-link"):
					isLink = true
				}
			}
		}
	}
	var isHeader, isLogo bool
	switch {
	case typ == nil:
	case equalFold(typ, "button"):
		isButton = true
	case equalFold(typ, "a"):
		isLink = true
	case equalFold(typ, "header"), equalFold(typ, "nav"):
		isHeader = true
	}
	for _, n := range names {
		if containsFold(n, "btn") || containsFold(n, "button") || containsFold(n, "cta") {
			isButton = true
		}
		if containsFold(n, "link") {
			isLink = true
		}
		if containsFold(n, "header") || containsFold(n, "nav") || containsFold(n, "topbar") ||
			containsFold(n, "masthead") || containsFold(n, "appbar") {
			isHeader = true
		}
		if saysLogo(n) && !containsFold(n, "brands") {
			isLogo = true
		}
	}
	r := roleNone
	switch {
	case isButton:
		r = roleButton
	case isLink:
		r = roleLink
	case isHeader:
		r = roleHeader
	case isLogo:
		r = roleLogo
	}
	if r == roleNone {
		return roleNone, 1
	}
	variant := 0 // +1 primary, -1 secondary
	for _, n := range names {
		if socialName(n) {
			return roleNone, 1 // share buttons wear other companies' colours
		}
		if containsFold(n, "hover") || containsFold(n, "active") || containsFold(n, "disabled") {
			state = true
		}
		switch {
		case containsFold(n, "primary"), containsFold(n, "brand"), containsFold(n, "cta"), containsFold(n, "accent"):
			variant = 1
		case variant == 0 && secondaryName(n):
			variant = -1
		}
	}
	mult := 1.0
	switch variant {
	case 1:
		mult = 1.5
	case -1:
		mult = 0.3
	}
	if state {
		mult *= 0.5
	}
	for _, t := range p[:subj] {
		if t.tt == css.IdentToken && containsFold(t.data, "footer") {
			mult *= 0.3 // footers are often inverted
			break
		}
	}
	return r, mult
}

// secondaryName reports variant names that are not the brand's main
// colour: secondary, outline, status colours, neutrals.
func secondaryName(n []byte) bool {
	for _, w := range [...]string{"secondary", "tertiary", "outline", "ghost", "light", "dark", "close",
		"danger", "warning", "success", "info", "error", "muted", "white", "black", "gray", "grey",
		"neutral", "subtle", "plain"} {
		if containsFold(n, w) {
			return true
		}
	}
	return false
}

// socialName reports class names of share and follow buttons, which are
// painted in the colours of the networks they link to.
func socialName(n []byte) bool {
	for _, w := range [...]string{"social", "share", "facebook", "twitter", "instagram", "youtube",
		"linkedin", "pinterest", "tiktok", "whatsapp", "github", "mastodon", "reddit", "discord", "slack",
		"stack-overflow", "stackoverflow", "gitter", "telegram", "bluesky", "twitch", "meetup"} {
		if containsFold(n, w) {
			return true
		}
	}
	return false
}

func trimQuotes(b []byte) []byte {
	if len(b) >= 2 && (b[0] == '"' || b[0] == '\'') && b[len(b)-1] == b[0] {
		return b[1 : len(b)-1]
	}
	return b
}

// simpleClass returns the class of a rule like ".bg-indigo-600" or
// ".hover\:bg-indigo-700:hover" (Tailwind) as written, and whether it is a
// state variant.
func simpleClass(p []tok) ([]byte, bool) {
	if len(p) < 2 || p[0].tt != css.DelimToken || p[0].data[0] != '.' || p[1].tt != css.IdentToken {
		return nil, false
	}
	state := false
	for i := 2; i < len(p); i++ {
		if p[i].tt != css.ColonToken || i+1 >= len(p) || p[i+1].tt != css.IdentToken {
			return nil, false
		}
		state = true
		i++
	}
	return p[1].data, state
}

// unescapeIdent undoes CSS escapes (\: \[ \# \31 ) in an identifier.
func unescapeIdent(b []byte) string {
	if !containsByte(b, '\\') {
		return string(b)
	}
	out := make([]byte, 0, len(b))
	for i := 0; i < len(b); i++ {
		if b[i] != '\\' || i+1 >= len(b) {
			out = append(out, b[i])
			continue
		}
		i++
		n, j := 0, i
		for j < len(b) && j-i < 6 && isHex(b[j]) {
			n = n*16 + hexVal(b[j])
			j++
		}
		if j > i {
			if j < len(b) && isSpace(b[j]) {
				j++
			}
			if n == 0 || n > utf8.MaxRune {
				n = utf8.RuneError
			}
			out = utf8.AppendRune(out, rune(n))
			i = j - 1
			continue
		}
		out = append(out, b[i])
	}
	return string(out)
}

func containsByte(b []byte, c byte) bool {
	for _, x := range b {
		if x == c {
			return true
		}
	}
	return false
}

func isHex(c byte) bool {
	return (c >= '0' && c <= '9') || (c >= 'a' && c <= 'f') || (c >= 'A' && c <= 'F')
}

func hexVal(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	default:
		return int(c-'A') + 10
	}
}

// lookup resolves a custom property for var().
func (e *extractor) lookup(name []byte) ([]tok, bool) {
	d, ok := e.vars[string(name)]
	return d.toks, ok
}

// varColor evaluates a custom property's value as a colour.
func (e *extractor) varColor(toks []tok) (rgb, bool) {
	var found rgb
	ok := false
	valueScan(toks, true, e.lookup, 1, false, func(c rgb, _ bool) {
		if !ok {
			found, ok = c, true
		}
	})
	if ok {
		return found, true
	}
	return bareTriplet(toks)
}

// finishCSS runs once every stylesheet is read: it resolves var()
// references, scores brand-named custom properties and joins utility
// classes with the page elements that use them.
func (e *extractor) finishCSS() {
	for _, pd := range e.pending {
		valueScan(pd.toks, pd.identsOK, e.lookup, 0, false, func(c rgb, fromVar bool) {
			if !fromVar {
				return // counted in the first pass
			}
			if pd.sel.role != roleNone {
				e.roleSignal(pd.sel, pd.p, c, []byte(pd.prop), pd.decl)
			}
			if pd.class != nil {
				e.addClassPaint(pd.class, classPaint{c, pd.p, pd.classState, pd.sel.role != roleNone})
			}
		})
	}
	e.flushRoles()
	e.flushAreas()
	for _, name := range e.varOrder {
		d := e.vars[name]
		w := varWeight(name, d.dark)
		if w == 0 {
			continue
		}
		if c, ok := e.varColor(d.toks); ok {
			e.add(c, KindCSSVariable, name+" in "+d.where, w*d.mult)
		}
	}
	e.joinClasses()
}

// varWeight scores a custom property by its name; see the package
// documentation for the table.
func varWeight(name string, dark bool) float64 {
	n := strings.ToLower(name)
	if strings.HasPrefix(n, "--tw-") {
		return 0 // Tailwind internals: ring and shadow defaults on every Tailwind site
	}
	if rest, ok := strings.CutPrefix(n, "--wp--preset--"); ok {
		c, ok := strings.CutPrefix(rest, "color--")
		if !ok || wpCorePalette(c) {
			return 0 // gradients, duotones and the default palette of every WordPress site
		}
		n = "--" + c + "-color"
	}
	var w float64
	vendor := vendorPrefixed(n)
	switch {
	case strings.Contains(n, "brand"):
		w = 8
	case strings.Contains(n, "primary"):
		w = 7
	case strings.Contains(n, "accent"):
		w = 5
	case strings.Contains(n, "color"), strings.Contains(n, "colour"), strings.Contains(n, "clr"):
		w = 1.5
	default:
		return 0
	}
	for _, m := range [...]string{"hover", "active", "focus", "pressed", "disabled", "light", "dark",
		"subtle", "muted", "soft", "faint", "contrast", "foreground", "-fg", "text", "-on-", "inverse",
		"emphasis", "shadow", "border", "bg", "background", "highlight", "tint", "alpha", "rgb"} {
		if strings.Contains(n, m) {
			w *= 0.5
			break
		}
	}
	if strings.Contains(n, "secondary") {
		w *= 0.6
	} else if strings.Contains(n, "tertiary") {
		w *= 0.4
	}
	if shade := trailingNumber(n); shade >= 0 && shade != 500 && shade != 600 {
		w *= 0.4
	}
	if dark {
		w *= 0.5
	}
	if vendor {
		w *= 0.15 // a widget's own theme (--docsearch-primary-color), not the site's
	}
	return w
}

// vendorPrefixes name the custom properties of widgets and frameworks a
// site embeds; their "primary" is the vendor's default, not the brand.
var vendorPrefixes = [...]string{"--docsearch-", "--swiper-", "--plyr-", "--fa-", "--toastify-",
	"--rdp-", "--mdc-", "--mat-", "--ion-", "--sl-", "--shiki-", "--giscus-", "--cc-", "--klaro-", "--tippy-",
	"--select2-", "--choices-", "--flatpickr-", "--pico-", "--md-", "--vp-c-", "--ifm-", "--pagefind-", "--algolia-",
	"--hljs-", "--prism-", "--cookie-", "--osano-", "--onetrust-", "--intercom-", "--hs-", "--mantine-", "--chakra-",
	"--joy-", "--mui-", "--el-", "--van-", "--ant-", "--daisy", "--tblr-", "--vs-", "--nprogress-"}

func vendorPrefixed(n string) bool {
	for _, p := range vendorPrefixes {
		if strings.HasPrefix(n, p) {
			return true
		}
	}
	return false
}

// trailingNumber returns a numeric suffix such as the 700 of
// --color-primary-700, or -1.
func trailingNumber(n string) int {
	i := len(n)
	for i > 0 && n[i-1] >= '0' && n[i-1] <= '9' {
		i--
	}
	if i == len(n) || len(n)-i > 4 || i == 0 || n[i-1] != '-' {
		return -1
	}
	v := 0
	for _, c := range n[i:] {
		v = v*10 + int(c-'0')
	}
	return v
}

// wpCorePalette reports the colours WordPress core defines on every site.
func wpCorePalette(slug string) bool {
	switch slug {
	case "black", "white", "cyan-bluish-gray", "pale-pink", "vivid-red", "luminous-vivid-orange",
		"luminous-vivid-amber", "light-green-cyan", "vivid-green-cyan", "pale-cyan-blue",
		"vivid-cyan-blue", "vivid-purple":
		return true
	}
	return false
}
