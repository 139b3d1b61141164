package brand

import (
	"bytes"
	"net/url"
	"slices"
	"sort"
	"strconv"
	"strings"

	"golang.org/x/net/html"
)

// Fetch budgets of the brand service, which Links applies so the fetcher
// never asks for more.
const (
	MaxStylesheets = 10
	MaxImages      = 4
)

// Wanted lists the documents Extract can use, as absolute http(s) URLs in
// the order they should be fetched.
type Wanted struct {
	Stylesheets []string      // at most MaxStylesheets, in document order
	Manifest    string        // "" when the page links none
	Images      []WantedImage // at most MaxImages, most useful first
	// Refresh is where a <meta http-equiv="refresh"> sends the browser
	// within MaxRefreshDelay seconds: a page that only redirects this way
	// has its brand on the page it names. "" when there is none.
	Refresh string
}

// MaxRefreshDelay is the longest meta-refresh delay, in seconds, that Links
// treats as a redirect rather than a page that reloads itself later.
const MaxRefreshDelay = 10

// WantedImage is an icon or logo to fetch; Role goes back into Image.Role.
type WantedImage struct {
	URL  string
	Role Role
}

type iconCand struct {
	url   string
	size  int
	order int
}

type logoCand struct {
	url   string
	score int
	order int
	// site: its alt, file or class names the site; other: they name
	// something, but not the site
	site, other bool
}

// Links reads a page and says which stylesheets, manifest and images the
// fetcher should get for Extract: stylesheets in order (print-only ones are
// skipped unless swapped in by onload; preloaded styles count), the
// manifest, the largest apple-touch-icon, the largest icons, and <img>
// logos (named logo in class, id, alt or src, or inside the home link). An
// og:image is a social card, not a logo, and is never chosen. It honours
// <base href> and adds /favicon.ico when the page declares no icon, as
// browsers do.
func Links(pageURL string, doc []byte) Wanted {
	var w Wanted
	base, err := url.Parse(pageURL)
	if err != nil || !base.IsAbs() {
		base = nil
	}
	page := base
	resolve := func(ref []byte) string {
		ref = trimSpace(ref)
		if len(ref) == 0 || hasPrefixFold(ref, "data:") || hasPrefixFold(ref, "javascript:") {
			return ""
		}
		u, err := url.Parse(string(ref))
		if err != nil {
			return ""
		}
		if base != nil {
			u = base.ResolveReference(u)
		}
		if (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" {
			return ""
		}
		u.Fragment = ""
		return u.String()
	}
	seen := map[string]bool{}
	var icons, touch []iconCand
	var logos []logoCand
	var heroes []string // SVG illustrations in the header or hero, in page order
	sawIcon, sawBase := false, false

	type elem struct {
		name         uint32
		home, header bool
		logo, wall   bool
		hero         bool
	}
	stack := make([]elem, 0, 64)
	var a tagAttrs
	z := html.NewTokenizer(bytes.NewReader(doc))
	order := 0
	for {
		tt := z.Next()
		if tt == html.ErrorToken {
			break
		}
		if tt == html.EndTagToken {
			name, _ := z.TagName()
			h := nameHash(name)
			for i := len(stack) - 1; i >= 0 && i >= len(stack)-maxEndTagSearch; i-- {
				if stack[i].name == h {
					stack = stack[:i]
					break
				}
			}
			continue
		}
		if tt != html.StartTagToken && tt != html.SelfClosingTagToken {
			continue
		}
		order++
		name, more := z.TagName()
		readAttrs(z, more, &a)
		var parent elem
		if len(stack) > 0 {
			parent = stack[len(stack)-1]
		}
		el := elem{name: nameHash(name), home: parent.home, header: parent.header, logo: parent.logo, wall: parent.wall,
			hero: parent.hero}
		switch string(name) {
		case "base":
			if !sawBase && len(a.href) > 0 && page != nil {
				if u, err := url.Parse(string(trimSpace(a.href))); err == nil {
					base = page.ResolveReference(u)
				}
				sawBase = true
			}
		case "a":
			if isHome(a.href, page) {
				el.home = true
			}
		case "header", "nav":
			el.header = true
		case "meta":
			if w.Refresh == "" && equalFold(trimSpace(a.httpEquiv), "refresh") {
				if ref, ok := refreshURL(a.content); ok {
					w.Refresh = resolve(ref)
				}
			}
		case "link":
			rels := strings.Fields(strings.ToLower(string(a.rel)))
			has := func(s string) bool {
				for _, r := range rels {
					if r == s {
						return true
					}
				}
				return false
			}
			switch {
			case has("stylesheet") && !has("alternate") && !a.disabled:
				if containsFold(a.media, "print") && !containsFold(a.media, "screen") && len(a.onload) == 0 {
					break
				}
				if u := resolve(a.href); u != "" && !seen[u] && len(w.Stylesheets) < MaxStylesheets {
					seen[u] = true
					w.Stylesheets = append(w.Stylesheets, u)
				}
			case has("preload") && equalFold(a.as, "style"):
				if u := resolve(a.href); u != "" && !seen[u] && len(w.Stylesheets) < MaxStylesheets {
					seen[u] = true
					w.Stylesheets = append(w.Stylesheets, u)
				}
			case has("manifest"):
				if w.Manifest == "" {
					w.Manifest = resolve(a.href)
				}
			case has("apple-touch-icon"), has("apple-touch-icon-precomposed"):
				sawIcon = true
				if u := resolve(a.href); u != "" {
					touch = append(touch, iconCand{u, iconSize(a.sizes, a.typ, a.href, 180), order})
				}
			case has("icon"):
				sawIcon = true
				if u := resolve(a.href); u != "" {
					icons = append(icons, iconCand{u, iconSize(a.sizes, a.typ, a.href, 16), order})
				}
			}
		case "img":
			src := a.src
			if len(src) == 0 || hasPrefixFold(src, "data:") {
				src = a.dataSrc
			}
			if len(src) == 0 && len(a.srcset) > 0 {
				if f := bytes.Fields(bytes.Split(a.srcset, []byte(","))[0]); len(f) > 0 {
					src = f[0]
				}
			}
			score := 0
			if a.saysLogo() || saysLogo(lastPathSegment(src)) {
				score += 2
			}
			if parent.home {
				score += 2
			}
			if parent.logo {
				score += 2
			}
			if parent.header && score > 0 {
				score++
			}
			if parent.wall || notOwnLogo(src, a.alt, a.class) {
				score -= 5
			}
			if namesOther(a.alt, page) {
				score -= 3
			}
			if score >= 2 {
				if u := resolve(src); u != "" {
					named, site := naming(string(a.alt)+" "+string(lastPathSegment(src))+" "+string(a.class), page)
					if site {
						score++ // "the logo — header position and the site's name"
					}
					logos = append(logos, logoCand{u, score, order, site, named && !site})
				}
			} else if (parent.header || parent.hero) && !parent.wall && !notOwnLogo(src, a.alt, a.class) &&
				heroArt(src) && len(heroes) < 8 {
				if u := resolve(src); u != "" {
					heroes = append(heroes, u)
				}
			}
		}
		if saysLogo(a.class) || saysLogo(a.id) || saysLogo(a.aria) {
			el.logo = true
		}
		for _, v := range [...][]byte{a.class, a.id} {
			if containsFold(v, "hero") || containsFold(v, "jumbotron") || containsFold(v, "masthead") ||
				containsFold(v, "banner") || containsFold(v, "splash") {
				el.hero = true
			}
		}
		for _, v := range [...][]byte{a.class, a.id, a.aria} {
			if containsFold(v, "logos") || containsFold(v, "customer") || containsFold(v, "partner") ||
				containsFold(v, "client") || containsFold(v, "sponsor") || containsFold(v, "press") {
				el.wall = true
			}
		}
		if tt == html.StartTagToken && !isVoid(name) && len(stack) < maxHTMLStack {
			stack = append(stack, el)
		}
	}
	if !sawIcon && page != nil {
		icons = append(icons, iconCand{page.ResolveReference(&url.URL{Path: "/favicon.ico"}).String(), 16, 0})
	}
	sort.SliceStable(touch, func(i, j int) bool { return touch[i].size > touch[j].size })
	sort.SliceStable(icons, func(i, j int) bool { return icons[i].size > icons[j].size })
	sort.SliceStable(logos, func(i, j int) bool { return logos[i].score > logos[j].score })
	// When a logo names the site, a candidate naming something else is
	// another organisation's mark (a foundation's, a partner's).
	if slices.ContainsFunc(logos, func(c logoCand) bool { return c.site }) {
		logos = slices.DeleteFunc(logos, func(c logoCand) bool { return c.other })
	}

	var picks []WantedImage
	// A page whose HTML names no logo image often draws it from its
	// stylesheet: one fetch is kept for CSSLogos.
	limit := MaxImages
	if len(logos) == 0 {
		limit--
	}
	pick := func(u string, r Role) {
		if len(picks) >= limit || seen[u] {
			return
		}
		seen[u] = true
		picks = append(picks, WantedImage{u, r})
	}
	if len(touch) > 0 {
		pick(touch[0].url, RoleAppleTouchIcon)
	}
	if len(icons) > 0 {
		pick(icons[0].url, RoleFavicon)
	}
	if len(logos) > 0 {
		pick(logos[0].url, RoleLogo)
	}
	if len(heroes) > 0 {
		pick(heroes[0], RoleHero)
	}
	// A 16-pixel icon beside a larger one is the same mark, mostly
	// anti-aliased edges: its colour clusters are blends.
	lowRes := func(ic iconCand) bool { return ic.size <= 16 && len(icons) > 0 && icons[0].size > 16 }
	if len(icons) > 1 && !lowRes(icons[1]) {
		pick(icons[1].url, RoleFavicon)
	}
	if len(logos) > 1 {
		pick(logos[1].url, RoleLogo)
	}
	for _, ic := range icons[min(2, len(icons)):] {
		if !lowRes(ic) {
			pick(ic.url, RoleFavicon)
		}
	}
	w.Images = picks
	return w
}

// heroArt reports an SVG that can be a header or hero illustration: not a
// mark (the site's own marks are logo candidates already; other marks,
// such as a foundation's or a platform's, are not its brand) and not a
// control glyph such as a menu or search icon.
func heroArt(src []byte) bool {
	p := pathOnly(src)
	if !hasSuffixFold(p, ".svg") {
		return false
	}
	for _, w := range [...]string{"logo", "icon", "badge", "hamburger", "burger", "menu", "close", "search",
		"flag", "avatar"} {
		if containsFold(p, w) {
			return false
		}
	}
	return true
}

// namesOther reports alt text that names something and says logo, but
// whose name is not the site's: "Cloud Native Computing Foundation logo"
// on cri-o.io is a foundation's mark. A name matches when one of its
// words is part of the host's name or the other way round, ignoring
// case and punctuation ("Harbor logo" on goharbor.io, "CRI-O" on
// cri-o.io).
func namesOther(alt []byte, page *url.URL) bool {
	if page == nil || !saysLogo(alt) {
		return false
	}
	named, site := naming(string(alt), page)
	return named && !site
}

// naming reports whether text (alt text, a file or class name) names
// something (a word that is not generic: logo, header, white, 2x…) and
// whether one of those words names the site (part of its host's name or
// the other way round).
func naming(text string, page *url.URL) (named, site bool) {
	if page == nil {
		return false, false
	}
	var labels []string
	for _, l := range strings.Split(strings.ToLower(page.Hostname()), ".") {
		if l = alnum(l); l != "" && l != "www" {
			labels = append(labels, l)
		}
	}
	if len(labels) > 1 {
		labels = labels[:len(labels)-1] // the top-level domain names nothing
	}
	for _, w := range strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return r == ' ' || r == ',' || r == '|' || r == '/' || r == ':' || r == '-' || r == '_' || r == '.' || r == '@'
	}) {
		w = alnum(w)
		switch w {
		case "", "logo", "logos", "logotype", "image", "img", "icon", "the", "of", "and", "a", "site", "home",
			"homepage", "header", "navbar", "nav", "footer", "hero", "main", "small", "large", "white", "black",
			"color", "colour", "dark", "light", "mark", "wordmark", "brand", "official", "project",
			"horizontal", "vertical", "stacked", "inverse", "reverse", "full", "default", "primary", "alt",
			"text", "retina", "png", "svg", "jpg", "jpeg", "gif", "webp", "ico", "is", "has":
			continue
		}
		if len(w) < 3 || strings.ContainsAny(w, "0123456789") {
			continue
		}
		named = true
		for _, l := range labels {
			if strings.Contains(l, w) || strings.Contains(w, l) {
				site = true
			}
		}
	}
	return named, site
}

// alnum keeps a string's ASCII letters and digits.
func alnum(s string) string {
	b := make([]byte, 0, len(s))
	for i := 0; i < len(s); i++ {
		if c := s[i]; c >= 'a' && c <= 'z' || c >= '0' && c <= '9' {
			b = append(b, c)
		}
	}
	return string(b)
}

// notOwnLogo reports images that say "logo" but are not the site's own:
// customer and partner walls (by folder), other companies' sign-in and
// social marks, and arrows such as a scroll-to-top chevron.
func notOwnLogo(src, alt, class []byte) bool {
	p := pathOnly(src)
	for _, w := range [...]string{"/companies/", "/company/", "/customers/", "/users", "/adopters/", "/partners/",
		"/sponsors/", "/clients/", "/integrations/", "chevron", "arrow", "caret", "scroll", "to-top", "totop",
		"back-top", "backtotop"} {
		if containsFold(p, w) {
			return true
		}
	}
	for _, v := range [...][]byte{alt, class} {
		if socialName(v) || containsFold(v, "sign in") || containsFold(v, "sign-in") || containsFold(v, "log in") ||
			containsFold(v, "login") || containsFold(v, "google") || containsFold(v, "forum") ||
			containsFold(v, "slack") || containsFold(v, "powered by") || containsFold(v, "user logo") ||
			containsFold(v, "customer") || containsFold(v, "partner") {
			return true
		}
	}
	return false
}

// refreshURL reads a meta refresh's content, "5; url=https://x/" (the
// "url=" and quotes are optional), and answers the address when the delay
// is at most MaxRefreshDelay seconds.
func refreshURL(content []byte) ([]byte, bool) {
	c := trimSpace(content)
	i := 0
	for i < len(c) && (c[i] >= '0' && c[i] <= '9' || c[i] == '.') {
		i++
	}
	if i == 0 {
		return nil, false
	}
	delay, err := strconv.ParseFloat(string(c[:i]), 64)
	if err != nil || delay > MaxRefreshDelay {
		return nil, false
	}
	rest := trimSpace(c[i:])
	if len(rest) == 0 || (rest[0] != ';' && rest[0] != ',') {
		return nil, false
	}
	rest = trimSpace(rest[1:])
	if hasPrefixFold(rest, "url") {
		if r := trimSpace(rest[3:]); len(r) > 0 && r[0] == '=' {
			rest = trimSpace(r[1:])
		}
	}
	if len(rest) > 0 && (rest[0] == '\'' || rest[0] == '"') {
		q := rest[0]
		rest = rest[1:]
		if j := bytes.IndexByte(rest, q); j >= 0 {
			rest = rest[:j]
		}
	}
	return rest, len(rest) > 0
}

// iconSize reads sizes="32x32 16x16" (largest wins; "any" is a vector
// icon and beats every bitmap) with fallbacks on type and extension.
func iconSize(sizes, typ, href []byte, def int) int {
	best := 0
	for _, f := range bytes.Fields(sizes) {
		if equalFold(f, "any") {
			return 4096
		}
		if i := bytes.IndexAny(f, "xX"); i > 0 {
			if n, err := strconv.Atoi(string(f[:i])); err == nil && n > best {
				best = n
			}
		}
	}
	if best > 0 {
		return best
	}
	if containsFold(typ, "svg") || bytes.HasSuffix(bytes.ToLower(pathOnly(href)), []byte(".svg")) {
		return 4096
	}
	if bytes.HasSuffix(bytes.ToLower(pathOnly(href)), []byte(".ico")) {
		return 32
	}
	return def
}

func pathOnly(href []byte) []byte {
	if i := bytes.IndexAny(href, "?#"); i >= 0 {
		return href[:i]
	}
	return href
}

func lastPathSegment(src []byte) []byte {
	p := pathOnly(src)
	if i := bytes.LastIndexByte(p, '/'); i >= 0 {
		return p[i+1:]
	}
	return p
}
