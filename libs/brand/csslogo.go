package brand

import (
	"bytes"
	"net/url"
	"strings"
)

// maxCSSLogoRules bounds the rules CSSLogos looks at per stylesheet.
const maxCSSLogoRules = 20000

// CSSLogos names the logo images a page draws through its stylesheets
// (`.project-name { background-image: url(../logo/acme-logo.svg) }` on
// the page's title), which Links cannot see in the HTML. The fetcher asks
// for them once the stylesheets are in, with the image fetches Links left
// unused (room). An image counts when its file name says logo, it is not
// another company's mark or a control glyph, and the rule's selector
// matches an element of the page. Images the site already holds are
// skipped.
func CSSLogos(s Site, room int) []WantedImage {
	if room <= 0 || len(s.Stylesheets) == 0 {
		return nil
	}
	d := newDOM(s.HTML)
	if d == nil {
		return nil
	}
	seen := map[string]bool{}
	for _, im := range s.Images {
		seen[im.URL] = true
	}
	var out []WantedImage
	for _, sheet := range s.Stylesheets {
		base, err := url.Parse(sheet.URL)
		if err != nil {
			continue
		}
		body := stripComments(sheet.Body)
		rules := 0
		for len(body) > 0 && rules < maxCSSLogoRules && len(out) < room {
			open := bytes.IndexByte(body, '{')
			if open < 0 {
				break
			}
			end := bytes.IndexByte(body[open+1:], '}')
			if end < 0 {
				break
			}
			sel := body[:open]
			if i := bytes.LastIndexAny(sel, "{};"); i >= 0 {
				sel = sel[i+1:]
			}
			block := body[open+1 : open+1+end]
			if i := bytes.LastIndexByte(block, '{'); i >= 0 { // a nested rule: its own selector and block
				sel, block = block[:i], block[i+1:]
			}
			body = body[open+1+end+1:]
			rules++
			ref, ok := backgroundURL(block)
			if !ok || !saysLogo(lastPathSegment(ref)) || notOwnLogo(ref, nil, nil) {
				continue
			}
			u, err := base.Parse(string(ref))
			if err != nil || (u.Scheme != "http" && u.Scheme != "https") || seen[u.String()] {
				continue
			}
			if d.ruleFactor(strings.TrimSpace(string(sel))) < 0.5 { // matches nothing on the page
				continue
			}
			seen[u.String()] = true
			out = append(out, WantedImage{URL: u.String(), Role: RoleLogo})
		}
	}
	return out
}

// backgroundURL finds the url() of a background or background-image
// declaration in a rule's block.
func backgroundURL(block []byte) ([]byte, bool) {
	for _, decl := range bytes.Split(block, []byte(";")) {
		k, v, ok := bytes.Cut(decl, []byte(":"))
		if !ok {
			continue
		}
		k = trimSpace(k)
		if !equalFold(k, "background") && !equalFold(k, "background-image") {
			continue
		}
		i := bytes.Index(bytes.ToLower(v), []byte("url("))
		if i < 0 {
			continue
		}
		rest := v[i+4:]
		j := bytes.IndexByte(rest, ')')
		if j < 0 {
			continue
		}
		ref := trimSpace(bytes.Trim(trimSpace(rest[:j]), `"'`))
		if len(ref) == 0 || hasPrefixFold(ref, "data:") {
			continue
		}
		return ref, true
	}
	return nil, false
}

// stripComments removes /* … */ comments from CSS.
func stripComments(b []byte) []byte {
	if !bytes.Contains(b, []byte("/*")) {
		return b
	}
	out := make([]byte, 0, len(b))
	for {
		i := bytes.Index(b, []byte("/*"))
		if i < 0 {
			return append(out, b...)
		}
		out = append(out, b[:i]...)
		j := bytes.Index(b[i+2:], []byte("*/"))
		if j < 0 {
			return out
		}
		b = b[i+2+j+2:]
	}
}
