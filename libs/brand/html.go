package brand

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"fmt"
	"math"
	"net/url"
	"slices"
	"sort"
	"strings"

	"golang.org/x/net/html"
)

// maxHTMLStack bounds the open-element stack; deeper elements are read but
// not tracked, which only blurs their ancestry.
const maxHTMLStack = 512

// maxEndTagSearch bounds how far up the stack an end tag looks for its
// start tag, so a flood of stray end tags stays linear.
const maxEndTagSearch = 64

// htmlElem is one open element and what its ancestry says.
type htmlElem struct {
	name      uint32 // FNV-1a of the lower-case tag name
	home      bool   // inside a link to the home page
	logo      bool   // inside an element whose class/id/label says logo
	inLogoSVG bool   // inside an inline SVG logo
	logoSVG   bool   // this element is that SVG
}

// roleClass is a class used on an element of a role, for the utility-class
// join.
type roleClass struct {
	r     role
	class string
}

// tagAttrs holds the attributes Extract and Links read; slices are valid
// until the tokenizer's next token.
type tagAttrs struct {
	class, id, style, href, rel, name, content, media, aria, alt, src, title,
	typ, fill, stroke, stopColor, color, bgcolor, sizes, srcset, dataSrc,
	as, onload, httpEquiv []byte
	disabled bool
}

func readAttrs(z *html.Tokenizer, more bool, a *tagAttrs) {
	*a = tagAttrs{}
	for more {
		var k, v []byte
		k, v, more = z.TagAttr()
		switch string(k) {
		case "class":
			a.class = v
		case "id":
			a.id = v
		case "style":
			a.style = v
		case "href", "xlink:href":
			a.href = v
		case "rel":
			a.rel = v
		case "name", "property":
			if a.name == nil {
				a.name = v
			}
		case "content":
			a.content = v
		case "media":
			a.media = v
		case "aria-label":
			a.aria = v
		case "alt":
			a.alt = v
		case "src":
			a.src = v
		case "title":
			a.title = v
		case "type":
			a.typ = v
		case "fill":
			a.fill = v
		case "stroke":
			a.stroke = v
		case "stop-color":
			a.stopColor = v
		case "color":
			a.color = v
		case "bgcolor":
			a.bgcolor = v
		case "sizes":
			a.sizes = v
		case "srcset":
			a.srcset = v
		case "data-src":
			a.dataSrc = v
		case "as":
			a.as = v
		case "onload":
			a.onload = v
		case "http-equiv":
			a.httpEquiv = v
		case "disabled":
			a.disabled = true
		}
	}
}

func nameHash(b []byte) uint32 {
	h := uint32(2166136261)
	for _, c := range b {
		h ^= uint32(c)
		h *= 16777619
	}
	return h
}

func isVoid(name []byte) bool {
	switch string(name) {
	case "area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "param",
		"source", "track", "wbr":
		return true
	}
	return false
}

// saysLogo reports whether an attribute names a logo or brand mark, but
// not a wall of customer or partner logos.
func saysLogo(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	if containsFold(b, "logos") || containsFold(b, "customer") || containsFold(b, "partner") ||
		containsFold(b, "client") || containsFold(b, "sponsor") || containsFold(b, "press") {
		return false
	}
	return containsFold(b, "logo") || containsFold(b, "brand")
}

func (a *tagAttrs) saysLogo() bool {
	return saysLogo(a.class) || saysLogo(a.id) || saysLogo(a.aria) || saysLogo(a.alt) || saysLogo(a.title)
}

// isHome reports whether href points to the site's home page, which is
// where a site's logo links.
func isHome(href []byte, page *url.URL) bool {
	h := trimSpace(href)
	switch string(h) {
	case "/", "./", ".", "#", "#top", "index.html", "/index.html", "/index.php":
		return true
	case "":
		return false
	}
	if len(h) > 1 && h[0] == '/' && h[1] != '/' {
		return isLocaleRoot(h)
	}
	if !(hasPrefixFold(h, "http://") || hasPrefixFold(h, "https://") || hasPrefixFold(h, "//")) || page == nil {
		return false
	}
	u, err := url.Parse(string(h))
	if err != nil || u.RawQuery != "" {
		return false
	}
	if strings.TrimPrefix(strings.ToLower(u.Hostname()), "www.") != strings.TrimPrefix(strings.ToLower(page.Hostname()), "www.") {
		return false
	}
	p := u.EscapedPath()
	return p == "" || p == "/" || p == "/index.html" || isLocaleRoot([]byte(p))
}

// isLocaleRoot matches /en, /en/, /en-us/, /de-DE.
func isLocaleRoot(p []byte) bool {
	p = bytes.TrimSuffix(p[1:], []byte("/"))
	if len(p) != 2 && len(p) != 5 {
		return false
	}
	for i, c := range p {
		if i == 2 {
			if c != '-' && c != '_' {
				return false
			}
			continue
		}
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z') {
			return false
		}
	}
	return true
}

// palette sums the area an SVG paints in each colour, and counts uses.
type palette struct {
	c    []rgb
	n    []int
	area []float64
}

func (p *palette) add(c rgb, area float64) {
	for i, x := range p.c {
		if x == c {
			p.n[i]++
			p.area[i] += area
			return
		}
	}
	if len(p.c) < 64 {
		p.c = append(p.c, c)
		p.n = append(p.n, 1)
		p.area = append(p.area, area)
	}
}

// sameFillTolerance is how far (per channel) two fills of one SVG may be
// and still be one colour: a designer's #4194D7 and #4596D8 side by side
// are the same blue, exported twice.
const sameFillTolerance = 4

// mergeNear joins fills within sameFillTolerance of a larger one into it,
// so that one colour exported in several near-identical values counts its
// whole area, as the eye sees it.
func (p *palette) mergeNear() {
	idx := make([]int, len(p.c))
	for i := range idx {
		idx[i] = i
	}
	sort.SliceStable(idx, func(a, b int) bool { return p.area[idx[a]] > p.area[idx[b]] })
	q := palette{}
	for _, i := range idx {
		j := slices.IndexFunc(q.c, func(c rgb) bool { return near(c, p.c[i], sameFillTolerance) })
		if j < 0 {
			q.c, q.n, q.area = append(q.c, p.c[i]), append(q.n, p.n[i]), append(q.area, p.area[i])
			continue
		}
		q.n[j] += p.n[i]
		q.area[j] += p.area[i]
	}
	*p = q
}

// total answers the largest and the summed area.
func (p *palette) total() (max, sum float64) {
	for _, a := range p.area {
		sum += a
		if a > max {
			max = a
		}
	}
	return max, sum
}

// scanHTML reads the page: theme-color and tile-color metas, the Safari
// mask-icon colour, <style> elements, style attributes, classes used on
// buttons, links and headers, inline SVG logos and data: icons.
func (e *extractor) scanHTML(doc []byte) {
	if len(doc) == 0 {
		return
	}
	z := html.NewTokenizer(bytes.NewReader(doc))
	stack := make([]htmlElem, 0, 64)
	var logo []byte // the inline SVG logo's markup so far; nil outside one
	var a tagAttrs
	styleNext, styleInLogo := false, false
	nStyle := 0
	for {
		tt := z.Next()
		if logo != nil && tt != html.ErrorToken && len(logo) < maxInlineSVG {
			logo = append(logo, z.Raw()...)
		}
		switch tt {
		case html.ErrorToken:
			if logo != nil {
				e.emitSVGLogo(logo)
			}
			return
		case html.TextToken:
			if styleNext {
				text := z.Text()
				if !styleInLogo || logo == nil {
					nStyle++
					e.scanCSS(text, e.where(fmt.Sprintf("<style> #%d", nStyle)), nil)
				}
			}
			styleNext = false
		case html.EndTagToken:
			styleNext = false
			name, _ := z.TagName()
			h := nameHash(name)
			for i := len(stack) - 1; i >= 0 && i >= len(stack)-maxEndTagSearch; i-- {
				if stack[i].name != h {
					continue
				}
				for j := len(stack) - 1; j >= i; j-- {
					if stack[j].logoSVG && logo != nil {
						e.emitSVGLogo(logo)
						logo = nil
					}
				}
				stack = stack[:i]
				break
			}
		case html.StartTagToken, html.SelfClosingTagToken:
			styleNext = false
			name, more := z.TagName()
			readAttrs(z, more, &a)
			var parent htmlElem
			if len(stack) > 0 {
				parent = stack[len(stack)-1]
			}
			el := htmlElem{
				name:      nameHash(name),
				home:      parent.home,
				logo:      parent.logo,
				inLogoSVG: parent.inLogoSVG,
			}
			r := e.element(name, &a, &el, parent)
			if string(name) == "svg" && !el.inLogoSVG && (parent.home || parent.logo || a.saysLogo()) {
				el.logoSVG, el.inLogoSVG = true, true
				logo = append(make([]byte, 0, 4096), z.Raw()...)
			}
			if string(name) == "style" && tt == html.StartTagToken {
				styleNext, styleInLogo = true, el.inLogoSVG
			}
			if !el.inLogoSVG {
				e.elementColors(name, &a, r)
			}
			if tt == html.StartTagToken && !isVoid(name) && len(stack) < maxHTMLStack {
				stack = append(stack, el)
			} else if el.logoSVG && logo != nil { // <svg/> with nothing inside
				e.emitSVGLogo(logo)
				logo = nil
			}
		}
	}
}

func (e *extractor) where(s string) string {
	if e.page == nil || e.page.String() == "" {
		return s
	}
	return e.page.String() + " " + s
}

// element reads one element's metadata signals and class usage and returns
// its role.
func (e *extractor) element(name []byte, a *tagAttrs, el *htmlElem, parent htmlElem) role {
	r := roleNone
	switch string(name) {
	case "a":
		r = roleLink
		if isHome(a.href, e.page) {
			el.home = true
		}
		if containsFold(a.class, "btn") || containsFold(a.class, "button") || containsFold(a.class, "cta") {
			r = roleButton
		}
		if socialName(a.class) {
			r = roleNone
		}
	case "button":
		r = roleButton
	case "input":
		if equalFold(a.typ, "submit") || equalFold(a.typ, "button") {
			r = roleButton
		}
	case "header", "nav":
		r = roleHeader
	case "meta":
		e.meta(a)
	case "link":
		e.link(a)
	case "img":
		if bytes.HasPrefix(a.src, []byte("data:")) && (parent.home || parent.logo || a.saysLogo() || saysLogo(a.src)) {
			e.dataImage(a.src, RoleLogo)
		}
	default:
		if containsFold(a.class, "btn") || containsFold(a.class, "button") {
			r = roleButton
		}
	}
	if !el.inLogoSVG && a.saysLogo() {
		el.logo = true
	}
	if len(a.class) > 0 {
		e.useClasses(a.class, r)
	}
	return r
}

// elementColors handles style, bgcolor and color attributes outside SVG
// logos.
func (e *extractor) elementColors(name []byte, a *tagAttrs, r role) {
	if len(a.style) > 0 {
		sel := selInfo{role: r, mult: 1}
		if r != roleNone {
			sel.where = "<" + string(name) + " style>"
		}
		e.scanCSS(a.style, "style attribute", &sel)
	}
	for _, v := range [...][]byte{a.bgcolor, a.color} {
		if len(v) > 0 && string(name) != "link" {
			if c, ok := parseColorValue(v); ok {
				e.freq[c]++
			}
		}
	}
}

func (e *extractor) useClasses(list []byte, r role) {
	for len(list) > 0 {
		var f []byte
		f, list = nextField(list)
		if len(f) == 0 {
			continue
		}
		if n := e.classUse[string(f)]; n != nil {
			*n++
		} else {
			one := 1
			e.classUse[string(f)] = &one
		}
		if r == roleNone {
			continue
		}
		m := e.roleUse[r]
		if m == nil {
			m = make(map[string]*int)
			e.roleUse[r] = m
		}
		if n := m[string(f)]; n != nil {
			*n++
		} else {
			one := 1
			s := string(f)
			m[s] = &one
			e.roleOrder = append(e.roleOrder, roleClass{r, s})
		}
	}
}

// nextField splits off the first whitespace-separated word of b.
func nextField(b []byte) (field, rest []byte) {
	i := 0
	for i < len(b) && isSpace(b[i]) {
		i++
	}
	j := i
	for j < len(b) && !isSpace(b[j]) {
		j++
	}
	return b[i:j], b[j:]
}

// joinClasses credits utility classes (Tailwind's bg-indigo-600) with the
// page elements that use them: every use counts for frequency, and uses on
// buttons, links and headers count as role signals.
func (e *extractor) joinClasses() {
	for cls, n := range e.classUse {
		for _, cp := range e.paintsOf(cls) {
			if !cp.state {
				e.freq[cp.c] += float64(*n)
			}
		}
	}
	for _, rc := range e.roleOrder {
		n := *e.roleUse[rc.r][rc.class]
		for _, cp := range e.paintsOf(rc.class) {
			if cp.roleSel {
				continue
			}
			r := rc.r
			if r == roleLink && cp.p == paintBG {
				r = roleButton // a link with a background is a button
			}
			k, w := roleWeight(r, cp.p)
			if cp.state {
				w *= 0.5
			}
			if e.wouldKeep(cp.c, k, w) {
				e.addCapped(cp.c, k, fmt.Sprintf(".%s on %d %s element(s)", rc.class, n, roleName(r)), w)
			}
		}
	}
}

func roleName(r role) string {
	switch r {
	case roleButton:
		return "button"
	case roleLink:
		return "link"
	case roleHeader:
		return "header/nav"
	case roleLogo:
		return "logo"
	}
	return "other"
}

// Colours that favicon generators write by default say nothing about the
// brand.
func generatorDefault(c rgb) bool {
	switch c {
	case rgb{0x5b, 0xba, 0xd5}, rgb{0xda, 0x53, 0x2c}, rgb{0x2b, 0x57, 0x97}, rgb{0x00, 0xab, 0xa9},
		rgb{0x2d, 0x89, 0xef}, rgb{0x60, 0x3c, 0xba}, rgb{0xff, 0xc4, 0x0d}, rgb{0xb9, 0x1d, 0x47},
		rgb{0x9f, 0x00, 0xa7}, rgb{0x00, 0xa3, 0x00}:
		return true
	}
	return false
}

func (e *extractor) meta(a *tagAttrs) {
	switch {
	case equalFold(a.name, "theme-color"):
		if c, ok := parseColorValue(a.content); ok {
			if containsFold(a.media, "dark") {
				e.add(c, KindThemeColor, "<meta name=theme-color media="+string(a.media)+">", 5)
			} else {
				e.add(c, KindThemeColor, "<meta name=theme-color>", 10)
			}
		}
	case equalFold(a.name, "msapplication-tilecolor"), equalFold(a.name, "msapplication-navbutton-color"):
		if c, ok := parseColorValue(a.content); ok && !generatorDefault(c) {
			e.add(c, KindTileColor, "<meta name="+string(a.name)+">", 3)
		}
	}
}

func (e *extractor) link(a *tagAttrs) {
	rels := bytes.Fields(a.rel)
	has := func(w string) bool {
		for _, r := range rels {
			if equalFold(r, w) {
				return true
			}
		}
		return false
	}
	switch {
	case has("mask-icon"):
		if c, ok := parseColorValue(a.color); ok && !generatorDefault(c) {
			e.addMark(c, KindMaskIcon, "mask-icon", "<link rel=mask-icon color>", 5, true)
		}
	case has("apple-touch-icon"), has("apple-touch-icon-precomposed"):
		e.dataImage(a.href, RoleAppleTouchIcon)
	case has("icon"):
		e.dataImage(a.href, RoleFavicon)
	}
}

// maxDataURL bounds inline images, like the fetcher's 1 MiB image budget.
const maxDataURL = 1 << 20

// dataImage decodes an icon or logo inlined as a data: URL, which the
// fetcher cannot fetch.
func (e *extractor) dataImage(src []byte, r Role) {
	ctype, body, ok := decodeDataURL(src)
	if ok {
		e.scanImage(body, ctype, "data: URL", r)
	}
}

func decodeDataURL(s []byte) (string, []byte, bool) {
	s = trimSpace(s)
	if !hasPrefixFold(s, "data:") || len(s) > 2*maxDataURL {
		return "", nil, false
	}
	comma := bytes.IndexByte(s, ',')
	if comma < 0 {
		return "", nil, false
	}
	meta, payload := s[5:comma], s[comma+1:]
	ctype := string(meta)
	if i := strings.IndexByte(ctype, ';'); i >= 0 {
		ctype = ctype[:i]
	}
	if bytes.HasSuffix(bytes.ToLower(meta), []byte(";base64")) {
		clean := bytes.Map(func(r rune) rune {
			if r == ' ' || r == '\n' || r == '\r' || r == '\t' {
				return -1
			}
			return r
		}, payload)
		clean = bytes.TrimRight(clean, "=")
		out := make([]byte, base64.RawStdEncoding.DecodedLen(len(clean)))
		n, err := base64.RawStdEncoding.Decode(out, clean)
		if err != nil {
			n, err = base64.RawURLEncoding.Decode(out, clean)
			if err != nil {
				return "", nil, false
			}
		}
		return ctype, out[:n], n <= maxDataURL
	}
	dec, err := url.PathUnescape(string(payload))
	if err != nil || len(dec) > maxDataURL {
		return "", nil, false
	}
	return ctype, []byte(dec), true
}

// maxInlineSVG bounds the markup of one inline SVG logo that is read.
const maxInlineSVG = 256 << 10

// emitSVGLogo weighs an inline SVG logo's colours by the area they paint.
func (e *extractor) emitSVGLogo(markup []byte) {
	p := &palette{}
	e.svgPaint(markup, p)
	p.mergeNear()
	max, _ := p.total()
	for i, c := range p.c {
		e.addMark(c, KindSVGLogo, "inline SVG logo", fmt.Sprintf("inline SVG logo fill, %d use(s), %.0f%% of the largest area", p.n[i], 100*p.area[i]/max),
			8*math.Sqrt(p.area[i]/max), true)
	}
}

// scanManifest reads theme_color and background_color from the web app
// manifest.
func (e *extractor) scanManifest(b []byte) {
	b = bytes.TrimPrefix(trimSpace(b), []byte("\xef\xbb\xbf"))
	if len(b) == 0 {
		return
	}
	var m struct {
		ThemeColor      any `json:"theme_color"`
		BackgroundColor any `json:"background_color"`
	}
	if json.Unmarshal(b, &m) != nil {
		return
	}
	if s, ok := m.ThemeColor.(string); ok {
		if c, ok := parseColorValue([]byte(s)); ok {
			e.add(c, KindManifestTheme, "manifest theme_color", 9)
		}
	}
	if s, ok := m.BackgroundColor.(string); ok {
		if c, ok := parseColorValue([]byte(s)); ok {
			e.add(c, KindManifestBackground, "manifest background_color", 4)
		}
	}
}
