package brand

import (
	"bytes"
	"regexp"
	"strings"

	"github.com/andybalholm/cascadia"
	"golang.org/x/net/html"
)

// Limits of the parsed page used for selector matching. A page past them
// is still read by the streaming scan; its later elements just count as
// below the fold and unindexed.
const (
	maxDOMElems = 20000
	// foldElems is how many body elements, in document order, stand in for
	// "above the fold": a landing page's header and hero come first.
	foldElems = 150
	// maxSelectors bounds the distinct selectors matched per page.
	maxSelectors = 4000
	// maxCandidates bounds the elements one selector is tried on; the
	// first ones in document order are the ones that weigh most.
	maxCandidates = 200
	// elemSize is the size an element adds to its ancestors, and the least
	// an element paints (an icon glyph, a short word).
	elemSize = 20
)

// domElem is what ruleFactor needs to know about one element.
type domElem struct {
	n      *html.Node
	order  int  // position among body elements
	header bool // inside header, nav or a banner
	hero   bool // inside a hero, jumbotron or masthead
	footer bool
	code   bool // inside pre or code
	// size stands in for the area the element's box covers: the text it
	// holds and 20 per element inside it (a full-width band of headings,
	// text and buttons is large, a link is small).
	size float64
}

// dom is the parsed page indexed for selector matching: cascadia matches
// a rule's selector only against the elements that carry the class, id or
// tag its subject names, so unused framework rules cost a map look-up.
type dom struct {
	elems   []domElem
	byNode  map[*html.Node]int
	byClass map[string][]int
	byID    map[string][]int
	byTag   map[string][]int
	cache   map[string]ruleMatch
	// parts caches what one complex selector of a list matches: framework
	// stylesheets repeat a selector across many rules and lists
	// (.button.is-primary, its :hover form, its [disabled] form).
	parts map[string]partMatch
}

// partMatch is what one complex selector paints: how many elements
// (counted to 64), their summed weights, and whether any is in the header,
// hero or above the fold.
type partMatch struct {
	matched int
	sum     float64
	top     bool
	area    float64 // summed sizes of the matched elements, footers and code discounted
}

// ruleMatch is what a whole selector list paints: its weight and the
// area its elements cover.
type ruleMatch struct {
	fac, area float64
}

func newDOM(doc []byte) *dom {
	if len(doc) == 0 {
		return nil
	}
	root, err := html.Parse(bytes.NewReader(doc))
	if err != nil {
		return nil
	}
	d := &dom{
		byNode:  make(map[*html.Node]int, 256),
		byClass: make(map[string][]int, 256),
		byID:    make(map[string][]int, 64),
		byTag:   make(map[string][]int, 64),
		cache:   make(map[string]ruleMatch, 256),
		parts:   make(map[string]partMatch, 256),
	}
	var walk func(n *html.Node, header, hero, footer, code bool) float64
	walk = func(n *html.Node, header, hero, footer, code bool) float64 {
		if len(d.elems) >= maxDOMElems {
			return 0
		}
		if n.Type == html.TextNode {
			return float64(len(strings.TrimSpace(n.Data)))
		}
		self := -1
		if n.Type == html.ElementNode {
			var class, id, role string
			for _, a := range n.Attr {
				switch a.Key {
				case "class":
					class = a.Val
				case "id":
					id = a.Val
				case "role":
					role = a.Val
				}
			}
			lc := strings.ToLower(class + " " + id)
			switch n.Data {
			case "header", "nav":
				header = true
			case "footer":
				footer = true
			case "pre", "code":
				code = true
			}
			if role == "banner" || role == "navigation" || strings.Contains(lc, "navbar") || strings.Contains(lc, "topbar") {
				header = true
			}
			if strings.Contains(lc, "hero") || strings.Contains(lc, "jumbotron") || strings.Contains(lc, "masthead") ||
				strings.Contains(lc, "splash") || strings.Contains(lc, "banner") {
				hero = true
			}
			if strings.Contains(lc, "footer") {
				footer = true
			}
			i := len(d.elems)
			self = i
			d.elems = append(d.elems, domElem{n: n, order: i, header: header, hero: hero, footer: footer, code: code})
			d.byNode[n] = i
			d.byTag[n.Data] = append(d.byTag[n.Data], i)
			for _, c := range strings.Fields(class) {
				d.byClass[c] = append(d.byClass[c], i)
			}
			if id != "" {
				d.byID[id] = append(d.byID[id], i)
			}
		}
		size := 0.0
		for c := n.FirstChild; c != nil; c = c.NextSibling {
			size += walk(c, header, hero, footer, code)
		}
		if self < 0 {
			return size
		}
		switch n.Data {
		case "script", "style", "template", "noscript", "head", "title":
			size = 0
		}
		d.elems[self].size = size
		return size + elemSize
	}
	walk(root, false, false, false, false)
	if len(d.elems) < 8 {
		return nil // a fragment: too little page to judge rules by
	}
	return d
}

// statePseudo matches the pseudo-classes and pseudo-elements a static page
// cannot be in: the rule is matched as if the state held.
var statePseudo = regexp.MustCompile(`(?i)::?(hover|focus|focus-visible|focus-within|active|visited|link|any-link|target|checked|disabled|enabled|placeholder|placeholder-shown|selection|before|after|first-line|first-letter|marker|backdrop|-webkit-[a-z-]+|-moz-[a-z-]+|-ms-[a-z-]+)\b(\([^)]*\))?`)

// restingState matches the states an element is not in when the page is
// first shown: a rule for them paints no area.
var restingState = regexp.MustCompile(`(?i):(hover|focus|focus-visible|focus-within|active|visited|target|checked|disabled|placeholder-shown)\b|::?(selection|placeholder|backdrop)\b`)

// ruleFactor weighs a rule by the elements its selector paints: ~nothing
// when it matches nothing, more for many elements and for elements in the
// header, nav or hero and above the fold; code-highlighting rules and
// footers count little.
func (d *dom) ruleFactor(sel string) float64 {
	return d.rule(sel).fac
}

// rule is what a rule's selector paints: its weight (ruleFactor) and the
// area (domElem.size) of its elements, states such as :hover excluded.
func (d *dom) rule(sel string) ruleMatch {
	if d == nil {
		return ruleMatch{fac: 1}
	}
	if m, ok := d.cache[sel]; ok {
		return m
	}
	if len(d.cache) >= maxSelectors {
		return ruleMatch{fac: 0.5}
	}
	m := d.computeFactor(sel)
	d.cache[sel] = m
	return m
}

func (d *dom) computeFactor(sel string) ruleMatch {
	if highlightSelector(sel) {
		return ruleMatch{fac: 0.05}
	}
	sum, area := 0.0, 0.0
	matched := 0
	top := false
	for _, part := range splitSelectorList(sel) {
		part = strings.TrimSpace(part)
		state := false
		if strings.IndexByte(part, ':') >= 0 {
			state = restingState.MatchString(part)
			part = strings.TrimSpace(statePseudo.ReplaceAllString(part, ""))
		}
		if part == "" {
			continue
		}
		pm, ok := d.parts[part]
		if !ok {
			pm = d.matchPart(part)
			if len(d.parts) < maxSelectors {
				d.parts[part] = pm
			}
		}
		matched += pm.matched
		sum += pm.sum
		if !state {
			area += pm.area
		}
		top = top || pm.top
	}
	if matched == 0 {
		return ruleMatch{fac: 0.05}
	}
	f := 0.6 + 0.4*min(1, sum/6)
	if top {
		f += 0.6
	}
	return ruleMatch{fac: f, area: area}
}

// matchPart weighs the elements one complex selector matches.
func (d *dom) matchPart(part string) partMatch {
	var pm partMatch
	if !d.namesPresent(part) {
		return pm
	}
	cands, ok := d.candidates(part)
	if !ok || len(cands) == 0 {
		return pm
	}
	s, err := cascadia.Parse(part)
	if err != nil {
		return pm
	}
	if len(cands) > maxCandidates {
		cands = cands[:maxCandidates]
	}
	for _, i := range cands {
		el := &d.elems[i]
		if !s.Match(el.n) {
			continue
		}
		pm.matched++
		w, a := 1.0, el.size+elemSize
		switch {
		case el.code:
			w, a = 0.05, a*0.05
		case el.footer:
			w, a = 0.3, a*0.3
		case el.header || el.hero:
			w, pm.top = 3, true
		case el.order < foldElems:
			w, pm.top = 2, true
		}
		pm.sum += w
		pm.area += a
		if pm.matched >= 64 {
			break
		}
	}
	return pm
}

// namesPresent reports whether every class and id a complex selector
// requires (outside :not() and other functional pseudo-classes, and
// outside attribute selectors) is on some element of the page: a rule
// for .hero.is-danger .navbar-menu matches nothing on a page without
// .is-danger, which a map look-up tells without matching.
func (d *dom) namesPresent(part string) bool {
	depth := 0
	for i := 0; i < len(part); i++ {
		switch c := part[i]; c {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case '\\':
			i++
		case '.', '#':
			if depth != 0 {
				continue
			}
			j := i + 1
			for j < len(part) && (isIdentByte(part[j]) || part[j] == '\\') {
				if part[j] == '\\' {
					j++
				}
				j++
			}
			name := unescapeIdent([]byte(part[i+1 : min(j, len(part))]))
			if name == "" {
				return true // not a name: leave it to cascadia
			}
			if c == '.' && len(d.byClass[name]) == 0 || c == '#' && len(d.byID[name]) == 0 {
				return false
			}
			i = j - 1
		}
	}
	return true
}

// candidates returns the elements that could match a complex selector:
// those carrying the id, a class or the tag of its subject compound.
func (d *dom) candidates(sel string) ([]int, bool) {
	subj := sel
	if i := strings.LastIndexAny(sel, " >+~"); i >= 0 {
		subj = sel[i+1:]
	}
	var best []int
	found := false
	pick := func(l []int) {
		if !found || len(l) < len(best) {
			best, found = l, true
		}
	}
	for i := 0; i < len(subj); i++ {
		c := subj[i]
		if c != '.' && c != '#' {
			continue
		}
		j := i + 1
		for j < len(subj) && (isIdentByte(subj[j]) || subj[j] == '\\') {
			if subj[j] == '\\' {
				j++
			}
			j++
		}
		name := unescapeIdent([]byte(subj[i+1 : min(j, len(subj))]))
		if c == '.' {
			pick(d.byClass[name])
		} else {
			pick(d.byID[name])
		}
		if found && len(best) == 0 {
			return nil, true
		}
		i = j - 1
	}
	if found {
		return best, true
	}
	j := 0
	for j < len(subj) && isIdentByte(subj[j]) {
		j++
	}
	if j > 0 {
		return d.byTag[strings.ToLower(subj[:j])], true
	}
	if subj == "*" || subj == "" || strings.HasPrefix(subj, "[") || strings.HasPrefix(subj, ":") {
		return d.elems2idx(min(len(d.elems), maxCandidates)), true
	}
	return nil, false
}

func (d *dom) elems2idx(n int) []int {
	out := make([]int, n)
	for i := range out {
		out[i] = i
	}
	return out
}

func isIdentByte(c byte) bool {
	return c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_' || c >= 0x80
}

// splitSelectorList splits a selector list at top-level commas.
func splitSelectorList(s string) []string {
	var out []string
	depth, start := 0, 0
	for i := 0; i < len(s); i++ {
		switch s[i] {
		case '(', '[':
			depth++
		case ')', ']':
			depth--
		case ',':
			if depth == 0 {
				out = append(out, s[start:i])
				start = i + 1
			}
		}
	}
	return append(out, s[start:])
}

// pygmentsClasses lists Pygments' and Chroma's token classes (.k, .nf, .s2…),
// space-separated with a space at each end.
const pygmentsClasses = " c ch cm cp cpf c1 cs k kc kd kn kp kr kt m mb mf mh mi mo il s sa sb sc dl sd s2 se sh" +
	" si sx sr s1 ss na nb bp nc no nd ni ne nf fm py nl nn nx nt nv vc vg vi vm o ow p err gd ge gr gh gi go gp gs gu gt" +
	" w hll lineno lnt ln "

// pygmentsClass reports one of pygmentsClasses.
func pygmentsClass(c string) bool {
	for i := 0; i+len(c)+2 <= len(pygmentsClasses); i++ {
		if pygmentsClasses[i] == ' ' && pygmentsClasses[i+len(c)+1] == ' ' && pygmentsClasses[i+1:i+1+len(c)] == c {
			return true
		}
	}
	return false
}

// highlightSelector reports syntax-highlighting rules: their colours paint
// code samples, not the brand.
func highlightSelector(sel string) bool {
	l := strings.ToLower(sel)
	for _, w := range [...]string{".highlight", ".hljs", ".token", ".chroma", ".codehilite", ".prism", ".cm-",
		".language-", ".syntax", ".sourcecode", ".rouge", ".shiki", "pre ", "code ", "pre.", "code."} {
		if strings.Contains(l, w) {
			return true
		}
	}
	for _, part := range splitSelectorList(l) {
		part = strings.TrimSpace(part)
		if i := strings.LastIndexAny(part, " >+~"); i >= 0 {
			part = part[i+1:]
		}
		if len(part) > 1 && len(part) <= 7 && part[0] == '.' && pygmentsClass(part[1:]) {
			return true
		}
	}
	return false
}
