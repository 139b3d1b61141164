// Package brand finds a company's brand colours in its already-fetched
// website: the HTML page, its stylesheets, its web manifest and its icon or
// logo images. It does no I/O: the fetcher (libs/fetch) asks Links which
// documents to get, fetches them under its own budgets, and hands them to
// Extract. Keeping extraction a pure function makes it testable on a corpus
// of fixtures and safe to run on hostile input.
//
// Extract collects weighted signals, merges colours closer than ΔE2000 10,
// scores each merged colour and returns the chromatic ones, most salient
// first. Greys, near-white and near-black are returned only when nothing
// else was found.
//
// # Signal weights
//
// A signal's weight is its base weight times any modifiers below. Signals of
// one kind that fall on the same merged colour add up with diminishing
// returns (w1 + w2/2 + w3/3 …, at most 2·w1), so a hundred buttons count
// for at most twice one button; different kinds add up fully, so that
// independent kinds of evidence that agree win.
//
//	meta theme-color                        10  (5 under a dark media query)
//	manifest theme_color                     9
//	manifest background_color                4
//	CSS custom property named …brand…        8
//	                          …primary…      7
//	                          …accent…       5
//	                          …color/colour… 1.5
//	  ×0.5 hover/active/light/dark/text/bg/subtle/… variants, ×0.4 shades
//	  other than 500/600, ×0.6 secondary, ×0.5 when defined only for a dark
//	  scheme, ×0.3 for Bootstrap's stock --bs-* values; Tailwind internals
//	  (--tw-*) and WordPress core presets count 0
//	inline SVG logo fill                     8 × √(area / largest fill's area)
//	logo image colour                        8 ┐ the main chromatic colour
//	apple-touch-icon, favicon colour         5 ┘ full, others × √(share /
//	                                             its share) (markWeights)
//	  (a raster's shares count the pixels of each cluster's one most
//	  common value, so a gradient's spread counts less than a flat fill;
//	  an SVG's fills within 4 per channel are one colour)
//	  (8 so that a logo's colour outweighs one link rule and its frequency,
//	  4.8 + 3; logos drawn by CSS backgrounds are found by CSSLogos)
//	header or hero SVG illustration          3 × √(share of painted area)
//	  (SVG images weigh each fill by the area it paints; white and
//	  transparent fills never count)
//	Safari mask-icon colour                  5  (favicon-generator defaults 0)
//	msapplication-TileColor                  3  (favicon-generator defaults 0)
//	button background / border / text        4 / 2 / 1
//	link text / background / border          3 / 2 / 1
//	header or nav background / text          3 / 1.5
//	CSS rule naming a logo: fill / colour    5 / 4
//	  ×1.5 primary/brand/cta/accent variants, ×0.3 secondary/outline/
//	  danger/… variants, ×0.5 :hover/:focus/:active/:visited states,
//	  ×0.5 in a dark scheme, ×0.3 under a footer; share-button classes 0
//	frequency across stylesheets and markup  3 × √(count / top chromatic count)
//	                                           × √min(1, count)
//
// Button, link and header signals come both from selectors that name those
// elements (.btn-primary, nav a, header) and from utility classes
// (bg-indigo-600) used on <a>, <button>, <header> and <nav> in the page; a
// link with a background is a button. A later declaration of the same
// property under the same selector replaces an earlier one, as in the
// cascade.
//
// After scoring, the chromatic colour the logo and the icon vote for most
// goes first (anchorMark): a person naming a brand's colour looks at its
// logo before its buttons. Each mark votes once per colour; votes within
// 10% of the top are a tie, which the scores break.
//
// A merged colour is represented by the shade with the most evidence,
// unless another of its shades covers more of the page (mostPainted: the
// text and the 20 per element inside each element a rule matches, for a
// background its whole box, for text 0.4 of it, a gradient's stops
// sharing it, states such as :hover painting nothing); a logo's exact
// colour represents its group before either (trustLogo).
//
// After merging, a colour scoring under 8% of the leading colour is noise
// and is dropped. When no chromatic colour is left, the neutrals are
// returned instead, near-white last.
package brand

import (
	"errors"
	"fmt"
	"net/url"
)

// Role says why an image was fetched, which sets how much its colours count.
type Role string

// Image roles, in the order Links prefers them.
const (
	RoleAppleTouchIcon Role = "apple-touch-icon"
	RoleFavicon        Role = "favicon"
	RoleLogo           Role = "logo"
	// RoleHero is an SVG illustration in the page's header or hero: it
	// paints the first screen in the brand's colours, but is not the mark.
	RoleHero Role = "hero"
)

// Doc is a fetched text document; URL is kept for the signal's provenance.
type Doc struct {
	URL  string
	Body []byte
}

// Image is a fetched icon or logo. ContentType is a hint only: the format is
// sniffed from the bytes, since servers often label icons wrongly.
type Image struct {
	URL         string
	ContentType string
	Body        []byte
	Role        Role
}

// Site is everything the fetcher got for one website. Extract reads it and
// never modifies it, so one Site may be shared between goroutines.
type Site struct {
	URL         string
	HTML        []byte
	Stylesheets []Doc
	Manifest    []byte
	Images      []Image
}

// Kind names the source of a signal, for debugging and tests.
type Kind string

// Signal kinds.
const (
	KindThemeColor         Kind = "theme-color"
	KindManifestTheme      Kind = "manifest-theme-color"
	KindManifestBackground Kind = "manifest-background-color"
	KindMaskIcon           Kind = "mask-icon"
	KindTileColor          Kind = "tile-color"
	KindCSSVariable        Kind = "css-variable"
	KindButton             Kind = "button"
	KindLink               Kind = "link"
	KindHeader             Kind = "header-nav"
	KindSVGLogo            Kind = "svg-logo"
	KindLogoImage          Kind = "logo-image"
	KindAppleTouchIcon     Kind = "apple-touch-icon"
	KindFavicon            Kind = "favicon"
	KindHeroImage          Kind = "hero-image"
	KindFrequency          Kind = "frequency"
)

// Signal is one piece of evidence for a colour. Signals explain a result;
// callers should not depend on their exact weights.
type Signal struct {
	Color  string  // "#RRGGBB"
	Kind   Kind    // where it came from
	Where  string  // detail: property name, selector, URL, count
	Weight float64 // contribution before merging
	Into   string  // the result colour it was merged into, "" if dropped
}

// Result is the extracted palette.
type Result struct {
	// Colors holds at most MaxColors "#RRGGBB" values, most salient first.
	Colors []string
	// Sources[i] says in a few words why Colors[i] was picked ("logo SVG
	// fill", "CSS --brand-red", "painted area 31 %"), so a person can
	// check the answer against the page.
	Sources []string
	// Signals lists the evidence, heaviest first.
	Signals []Signal
}

// MaxColors is the palette size limit of the brand-palette API.
const MaxColors = 12

// ErrNoColors is returned when the site names no colour at all; the API
// turns it into an invalid_request with this message.
var ErrNoColors = errors.New("no brand colours found: the page, its stylesheets, web manifest and icons name no colour")

// Extract finds the brand colours of a fetched site. It is deterministic and
// never fails on malformed input: unreadable parts are skipped. The only
// error is ErrNoColors.
func Extract(s Site) (Result, error) {
	res, _, err := extractDetailed(s)
	return res, err
}

// extractDetailed is Extract with the scored groups, for tests.
func extractDetailed(s Site) (Result, []scored, error) {
	return extractAblated(s, ablation{})
}

// ablation turns signals off, so a test can measure what each one is
// worth on the corpus; the zero value turns nothing off.
type ablation struct {
	kinds   map[Kind]bool // signals of these kinds are dropped
	noArea  bool          // no colour paints any area (mostPainted, painted-area sources)
	noStock bool          // stock-framework colours are not discounted
}

// extractAblated is Extract with some signals turned off.
func extractAblated(s Site, ab ablation) (Result, []scored, error) {
	e := newExtractor(s.URL)
	e.ablate = ab
	e.dom = newDOM(s.HTML)
	e.scanHTML(s.HTML)
	for _, d := range s.Stylesheets {
		e.scanCSS(d.Body, d.URL, nil)
	}
	e.scanManifest(s.Manifest)
	for _, img := range s.Images {
		e.scanImage(img.Body, img.ContentType, img.URL, img.Role)
	}
	e.finishCSS()
	if e.ablate.noArea {
		clear(e.area)
	}
	return e.rankDetailed()
}

// extractor accumulates signals for one Extract call; it is never shared.
type extractor struct {
	page *url.URL

	signals []signal
	freq    map[rgb]float64

	dom     *dom    // the parsed page, for weighing rules by what they paint
	srcMult float64 // weight of the stylesheet being read (sheetMult)

	vars     map[string]varDef
	varOrder []string
	pending  []pendingDecl

	classPaints map[string]int // class → index in paintLists
	paintLists  []paintList
	classUse    map[string]*int
	roleUse     [roleLogo + 1]map[string]*int
	roleOrder   []roleClass

	toks  []tok // reused statement buffer
	arena []tok // reused selector storage for open rules

	decl      int                   // declarations read so far, to tell them apart
	roleDecls map[roleKey]*roleDecl // role colours by selector and property
	roleKeys  []roleKey             // in first-seen order, for determinism
	areaDecls map[roleKey]*areaDecl // background and text colours by rule
	areaKeys  []roleKey             // in first-seen order, for determinism
	area      map[rgb]float64       // the area each colour paints (flushAreas)
	capped    map[kindColor][]int   // signal indices per kind and colour
	rasters   []rasterMemo          // images decoded so far
	ablate    ablation              // signals turned off, in tests only
}

// roleKey identifies a declaration in the cascade: selector and property.
type roleKey struct {
	sel, prop string
}

// roleDecl holds the colours of the latest declaration for a roleKey.
type roleDecl struct {
	decl int
	n    int
	sigs [4]signal
}

type kindColor struct {
	k Kind
	c rgb
}

type signal struct {
	c     rgb
	kind  Kind
	where string
	w     float64
	exact bool // a vector mark's own fill or a raster's flat fill, not a spread of pixels
	// mark names the image (or inline SVG) of a mark's colour, so that
	// rank can count each mark once per colour; "" for other evidence.
	mark string
}

func newExtractor(pageURL string) *extractor {
	e := &extractor{
		freq:        make(map[rgb]float64, 64),
		srcMult:     1,
		vars:        make(map[string]varDef, 64),
		classPaints: make(map[string]int),
		classUse:    make(map[string]*int),
		toks:        make([]tok, 0, 256),
		roleDecls:   make(map[roleKey]*roleDecl),
		areaDecls:   make(map[roleKey]*areaDecl),
		area:        make(map[rgb]float64),
		capped:      make(map[kindColor][]int),
	}
	if u, err := url.Parse(pageURL); err == nil {
		e.page = u
	}
	return e
}

func (e *extractor) add(c rgb, k Kind, where string, w float64) {
	if w <= 0 {
		return
	}
	e.signals = append(e.signals, signal{c: c, kind: k, where: where, w: w})
}

// addMark adds a signal for a colour a mark (logo or icon) paints; exact
// when it is a vector fill or a raster's flat fill.
func (e *extractor) addMark(c rgb, k Kind, mark, where string, w float64, exact bool) {
	if w > 0 {
		e.signals = append(e.signals, signal{c: c, kind: k, where: where, w: w, exact: exact, mark: mark})
	}
}

// maxPerKindColor bounds the signals of one kind for one colour. Scoring
// gives a kind at most twice its heaviest signal, which four equal signals
// already reach, so keeping the heaviest four barely changes a score and
// stops a stylesheet with a thousand button rules from making a thousand
// signals.
const maxPerKindColor = 4

// wouldKeep reports whether addCapped would keep a signal, so callers can
// skip formatting its description.
func (e *extractor) wouldKeep(c rgb, k Kind, w float64) bool {
	idx := e.capped[kindColor{k, c}]
	if len(idx) < maxPerKindColor {
		return true
	}
	for _, i := range idx {
		if e.signals[i].w < w {
			return true
		}
	}
	return false
}

// addCapped adds a signal of a kind that can repeat without bound.
func (e *extractor) addCapped(c rgb, k Kind, where string, w float64) {
	if w <= 0 {
		return
	}
	key := kindColor{k, c}
	idx := e.capped[key]
	if len(idx) < maxPerKindColor {
		e.capped[key] = append(idx, len(e.signals))
		e.signals = append(e.signals, signal{c: c, kind: k, where: where, w: w})
		return
	}
	low := idx[0]
	for _, i := range idx[1:] {
		if e.signals[i].w < e.signals[low].w {
			low = i
		}
	}
	if w > e.signals[low].w {
		e.signals[low] = signal{c: c, kind: k, where: where, w: w}
	}
}

// Explain says why each returned colour ranks where it does: its heaviest
// signals (logo, theme-color, brand variable, button on N elements…), for
// the debug log. It reads only res.Signals, so it never changes an answer.
func Explain(res Result) map[string]string {
	const perColor = 4
	out := make(map[string]string, len(res.Colors))
	n := make(map[string]int, len(res.Colors))
	for _, s := range res.Signals { // heaviest first
		if s.Into == "" || n[s.Into] >= perColor {
			continue
		}
		if n[s.Into] > 0 {
			out[s.Into] += "; "
		}
		out[s.Into] += fmt.Sprintf("%s %s %s (%.2f)", s.Kind, s.Color, s.Where, s.Weight)
		n[s.Into]++
	}
	return out
}
