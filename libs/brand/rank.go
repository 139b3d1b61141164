package brand

import (
	"fmt"
	"math"
	"slices"
	"sort"
)

const (
	// maxFrequencySignals is how many of the most used colours become
	// frequency signals; the tail of a big stylesheet is noise.
	maxFrequencySignals = 48
	// frequencyWeight is the weight of the most used chromatic colour.
	frequencyWeight = 3.0
	// maxNodes bounds the distinct colours clustered, so the ΔE2000
	// comparisons stay cheap on design systems with hundreds of tokens.
	maxNodes = 96
)

// frequencySignals turns colour counts (stylesheets, inline styles, and
// uses of utility classes in the page) into signals.
func (e *extractor) frequencySignals() {
	type fc struct {
		c rgb
		n float64
	}
	list := make([]fc, 0, len(e.freq))
	for c, n := range e.freq {
		list = append(list, fc{c, n})
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].n != list[j].n {
			return list[i].n > list[j].n
		}
		return lessRGB(list[i].c, list[j].c)
	})
	if len(list) > 2*maxFrequencySignals {
		list = list[:2*maxFrequencySignals]
	}
	ref := 0.0
	for _, x := range list {
		if toneOf(x.c.lab()) == chromatic {
			ref = x.n
			break
		}
	}
	if ref == 0 && len(list) > 0 {
		ref = list[0].n
	}
	if len(list) > maxFrequencySignals {
		list = list[:maxFrequencySignals]
	}
	for _, x := range list {
		// Relative to the most used chromatic colour, and a colour used
		// less than once (after the discounts of rules that paint
		// nothing, code highlighting, other hosts) is not frequent
		// however rare the others are.
		w := frequencyWeight * math.Min(1, math.Sqrt(x.n/ref)) * math.Sqrt(math.Min(1, x.n))
		e.add(x.c, KindFrequency, fmt.Sprintf("used %.1f weighted time(s) in CSS and markup", x.n), w)
	}
}

func lessRGB(a, b rgb) bool {
	if a.R != b.R {
		return a.R < b.R
	}
	if a.G != b.G {
		return a.G < b.G
	}
	return a.B < b.B
}

// node is one exact colour and the signals naming it.
type node struct {
	c       rgb
	l, a, b float64
	sum     float64
	sigs    []int
	cluster int
}

// group is a set of colours within ΔE2000 10 of its representative, the
// colour with the most evidence.
type group struct {
	rep   int // node index
	nodes []int
	score float64
	tone  tone
}

// minRelativeScore drops merged colours with less than this share of the
// leading colour's score: a colour seen once in a stylesheet is noise, not
// part of the brand.
const minRelativeScore = 0.08

// scored is one merged colour after scoring, for rank and its tests.
type scored struct {
	hex   string
	score float64
	tone  tone
	kept  bool
}

// rankDetailed merges near-duplicates, scores the merged colours and
// orders them; the scored groups are returned for tests.
func (e *extractor) rankDetailed() (Result, []scored, error) {
	e.frequencySignals()
	live := e.signals[:0]
	for _, s := range e.signals {
		if e.ablate.kinds[s.kind] {
			continue
		}
		if cssKind(s.kind) && stockColor(s.c) && !e.ablate.noStock {
			s.w *= stockDiscount
			s.where += " (stock framework colour)"
		}
		if s.kind == KindThemeColor && stockThemeColor(s.c) {
			s.w *= stockDiscount
			s.where += " (a site template's default)"
		}
		if s.w > 0 { // overridden declarations carry no weight
			live = append(live, s)
		}
	}
	e.signals = live
	if len(e.signals) == 0 {
		return Result{}, nil, ErrNoColors
	}
	byColor := make(map[rgb]int, len(e.signals))
	nodes := make([]node, 0, len(e.signals))
	for i, s := range e.signals {
		j, ok := byColor[s.c]
		if !ok {
			j = len(nodes)
			byColor[s.c] = j
			nodes = append(nodes, node{c: s.c, cluster: -1})
		}
		nodes[j].sum += s.w
		nodes[j].sigs = append(nodes[j].sigs, i)
	}
	sort.SliceStable(nodes, func(i, j int) bool {
		if nodes[i].sum != nodes[j].sum {
			return nodes[i].sum > nodes[j].sum
		}
		return lessRGB(nodes[i].c, nodes[j].c)
	})
	if len(nodes) > maxNodes {
		nodes = nodes[:maxNodes]
	}
	var groups []group
	for i := range nodes {
		n := &nodes[i]
		n.l, n.a, n.b = n.c.lab()
		best, bestD := -1, mergeDeltaE
		for gi, g := range groups {
			r := &nodes[g.rep]
			d76 := math.Sqrt((n.l-r.l)*(n.l-r.l) + (n.a-r.a)*(n.a-r.a) + (n.b-r.b)*(n.b-r.b))
			if d76 > prefilterDelta {
				continue
			}
			if d := n.c.colorful().DistanceCIEDE2000(r.c.colorful()) * 100; d < bestD {
				best, bestD = gi, d
			}
		}
		if best < 0 {
			groups = append(groups, group{rep: i, tone: toneOf(n.l, n.a, n.b)})
			best = len(groups) - 1
		}
		groups[best].nodes = append(groups[best].nodes, i)
		n.cluster = best
	}
	for gi := range groups {
		e.mostPainted(nodes, groups, gi)
	}
	for gi := range groups {
		gj := e.trustLogo(nodes, groups, gi)
		if gj < 0 || len(groups[gi].nodes) == 0 {
			continue
		}
		// The logo's colour sits near another group's colour: both are
		// shades of the logo's, so they become one group, which the
		// logo's colour represents.
		for _, ni := range groups[gi].nodes {
			nodes[ni].cluster = gj
		}
		groups[gj].nodes = append(groups[gj].nodes, groups[gi].nodes...)
		groups[gi].nodes = nil
		e.trustLogo(nodes, groups, gj)
	}
	for gi := range groups {
		groups[gi].score = e.score(nodes, groups[gi].nodes)
	}
	order := make([]int, len(groups))
	for i := range order {
		order[i] = i
	}
	sort.SliceStable(order, func(i, j int) bool {
		return groups[order[i]].score > groups[order[j]].score
	})
	order = e.anchorMark(nodes, groups, order)
	// Greys, near-white and near-black stay only if nothing else is left;
	// then white comes last, as it is the one useless colour on a chart.
	keep := filterGroups(groups, order, func(g group) bool { return g.tone == chromatic && len(g.nodes) > 0 })
	if len(keep) == 0 {
		keep = filterGroups(groups, order, func(g group) bool {
			return len(g.nodes) > 0 && !nearWhite(nodes[g.rep].l, nodes[g.rep].a, nodes[g.rep].b)
		})
		for _, gi := range order {
			if len(groups[gi].nodes) > 0 && nearWhite(nodes[groups[gi].rep].l, nodes[groups[gi].rep].a, nodes[groups[gi].rep].b) {
				keep = append(keep, gi)
			}
		}
	}
	if len(keep) > 0 {
		top := groups[keep[0]].score
		n := 1
		for n < len(keep) && groups[keep[n]].score >= minRelativeScore*top {
			n++
		}
		keep = keep[:n]
	}
	if len(keep) > MaxColors {
		keep = keep[:MaxColors]
	}
	res := Result{Colors: make([]string, 0, len(keep)), Sources: make([]string, 0, len(keep))}
	into := make(map[int]string, len(keep))
	chromaArea := e.chromaticArea()
	for _, gi := range keep {
		h := nodes[groups[gi].rep].c.hex()
		res.Colors = append(res.Colors, h)
		res.Sources = append(res.Sources, e.source(nodes, groups[gi], chromaArea))
		into[gi] = h
	}
	sigInto := make([]string, len(e.signals))
	for _, n := range nodes {
		for _, si := range n.sigs {
			sigInto[si] = into[n.cluster]
		}
	}
	res.Signals = make([]Signal, len(e.signals))
	for i, s := range e.signals {
		res.Signals[i] = Signal{Color: s.c.hex(), Kind: s.kind, Where: s.where, Weight: round2(s.w), Into: sigInto[i]}
	}
	sort.SliceStable(res.Signals, func(i, j int) bool { return res.Signals[i].Weight > res.Signals[j].Weight })
	detail := make([]scored, len(order))
	for i, gi := range order {
		h := nodes[groups[gi].rep].c.hex()
		_, kept := into[gi]
		detail[i] = scored{h, groups[gi].score, groups[gi].tone, kept}
	}
	return res, detail, nil
}

// logoKind reports evidence from the brand's own marks: logos and icons.
func logoKind(k Kind) bool {
	switch k {
	case KindSVGLogo, KindLogoImage, KindAppleTouchIcon, KindFavicon, KindMaskIcon:
		return true
	}
	return false
}

// trustLogo makes a group's representative the colour its logo or icon
// paints exactly, when there is one: a nearby CSS shade with more evidence
// joins the logo's colour rather than replacing it. When that colour sits
// within the merge radius of another group's representative, it answers
// that group (to merge into), else -1.
func (e *extractor) trustLogo(nodes []node, groups []group, gi int) int {
	g := &groups[gi]
	// A vector mark's exact fill, or a raster's flat fill, is preferred to
	// a raster's spread of shades (a gradient, noise), whose most common
	// pixel is one shade among many, not the brand's colour.
	best, bestW, bestExact := -1, 0.0, false
	for _, ni := range g.nodes {
		n := &nodes[ni]
		if toneOf(n.l, n.a, n.b) != chromatic {
			continue
		}
		w, exact := 0.0, false
		for _, si := range n.sigs {
			if logoKind(e.signals[si].kind) {
				w += e.signals[si].w
				exact = exact || e.signals[si].exact
			}
		}
		if exact && !bestExact && w >= 1 || exact == bestExact && w > bestW {
			best, bestW, bestExact = ni, w, exact
		}
	}
	if best < 0 || bestW < 1 {
		return -1
	}
	if !bestExact {
		// A raster's spread of shades names no one value: a colour the
		// stylesheets name in the same group (a value someone chose)
		// represents it, else the node with the most evidence.
		// Of those, the one painting the most area (mostPainted), then
		// the one with the most evidence.
		css, cssA, cssW := -1, 0.0, 0.0
		for _, ni := range g.nodes {
			a := e.area[nodes[ni].c]
			if (a > cssA || a == cssA && nodes[ni].sum > cssW) &&
				slices.ContainsFunc(nodes[ni].sigs, func(si int) bool { return cssKind(e.signals[si].kind) }) {
				css, cssA, cssW = ni, a, nodes[ni].sum
			}
		}
		switch {
		case css >= 0:
			best = css
		case nodes[g.rep].sum > nodes[best].sum:
			return -1
		}
	}
	if best == g.rep {
		return -1
	}
	// Returned colours stay ΔE2000 10 apart.
	for gj := range groups {
		if gj != gi && len(groups[gj].nodes) > 0 &&
			nodes[groups[gj].rep].c.colorful().DistanceCIEDE2000(nodes[best].c.colorful())*100 < mergeDeltaE {
			return gj
		}
	}
	g.rep = best
	g.tone = chromatic
	return -1
}

// mostPainted makes a group's representative the chromatic colour that
// covers the most of the page (extractor.area: the elements its rules
// paint, backgrounds over their whole box, text over its glyphs), when
// that is not the colour with the most evidence: of two near shades, the
// one a person sees is the one the page is painted with, a full-width
// band's background rather than the links in a footer. A logo's exact
// colour still comes first (trustLogo, after this). Returned colours stay
// ΔE 10 apart: a group whose representative sits that close to the new
// one joins it when it paints less, else the representative is kept.
func (e *extractor) mostPainted(nodes []node, groups []group, gi int) {
	g := &groups[gi]
	if len(g.nodes) == 0 {
		return
	}
	best, bestA := g.rep, e.area[nodes[g.rep].c]
	for _, ni := range g.nodes {
		n := &nodes[ni]
		if a := e.area[n.c]; a > bestA && toneOf(n.l, n.a, n.b) == chromatic {
			best, bestA = ni, a
		}
	}
	if best == g.rep {
		return
	}
	var near []int
	for gj := range groups {
		if gj == gi || len(groups[gj].nodes) == 0 ||
			nodes[groups[gj].rep].c.colorful().DistanceCIEDE2000(nodes[best].c.colorful())*100 >= mergeDeltaE {
			continue
		}
		for _, ni := range groups[gj].nodes {
			if e.area[nodes[ni].c] >= bestA {
				return
			}
		}
		near = append(near, gj)
	}
	for _, gj := range near {
		for _, ni := range groups[gj].nodes {
			nodes[ni].cluster = gi
		}
		g.nodes = append(g.nodes, groups[gj].nodes...)
		groups[gj].nodes = nil
	}
	g.rep = best
	g.tone = chromatic
}

// minAnchor is the mark evidence a colour needs to anchor the ranking:
// one icon's main colour at full weight.
const minAnchor = 5

// markTie is how close two colours' mark votes must be to be a tie,
// which the page's own use of them breaks.
const markTie = 0.9

// anchorMark puts first the chromatic colour the site's marks paint most.
// The logo (an inline SVG or logo image) and the icon (favicon,
// apple-touch-icon, mask-icon) each vote once per colour, by their
// heaviest signal there (three sizes of one icon are one icon), and the
// votes add up. A person naming a brand's colour looks at its logo first:
// a button or link colour on many elements does not outrank the colour
// the logo and the icon agree on. When the marks do not tell (a logo of
// four equal colours), the colours within markTie of the top vote keep
// their scored order, which is what the page paints most. Without a
// chromatic mark colour the order is left as scored.
func (e *extractor) anchorMark(nodes []node, groups []group, order []int) []int {
	votes := make([]float64, len(order))
	bestV := 0.0
	for pos, gi := range order {
		g := groups[gi]
		if g.tone != chromatic || len(g.nodes) == 0 {
			continue
		}
		var logo, icon float64
		for _, ni := range g.nodes {
			for _, si := range nodes[ni].sigs {
				s := e.signals[si]
				switch {
				case s.mark == "":
				case s.kind == KindSVGLogo || s.kind == KindLogoImage:
					logo = math.Max(logo, s.w)
				case logoKind(s.kind):
					icon = math.Max(icon, s.w)
				}
			}
		}
		votes[pos] = logo + icon
		bestV = math.Max(bestV, votes[pos])
	}
	if bestV < minAnchor {
		return order
	}
	best := slices.IndexFunc(votes, func(v float64) bool { return v >= markTie*bestV })
	if best <= 0 {
		return order
	}
	out := make([]int, 0, len(order))
	out = append(out, order[best])
	out = append(out, order[:best]...)
	return append(out, order[best+1:]...)
}

func filterGroups(groups []group, order []int, ok func(group) bool) []int {
	var out []int
	for _, gi := range order {
		if ok(groups[gi]) {
			out = append(out, gi)
		}
	}
	return out
}

func nearWhite(l, a, b float64) bool {
	return l > nearWhiteL && math.Hypot(a, b) < nearWhiteMaxC
}

// score adds a group's signals: within one kind with diminishing returns
// (w1 + w2/2 + w3/3 …, capped at 2·w1), across kinds fully, so that
// independent kinds of evidence agree rather than one kind repeating.
func (e *extractor) score(nodes []node, members []int) float64 {
	type kw struct {
		k Kind
		w float64
	}
	var buf [32]kw
	list := buf[:0]
	for _, ni := range members {
		for _, si := range nodes[ni].sigs {
			s := e.signals[si]
			list = append(list, kw{s.kind, s.w})
		}
	}
	sort.Slice(list, func(i, j int) bool {
		if list[i].k != list[j].k {
			return list[i].k < list[j].k
		}
		return list[i].w > list[j].w
	})
	total := 0.0
	for i := 0; i < len(list); {
		j, sum := i, 0.0
		for ; j < len(list) && list[j].k == list[i].k; j++ {
			sum += list[j].w / float64(j-i+1)
		}
		total += math.Min(sum, 2*list[i].w)
		i = j
	}
	return total
}

func round2(v float64) float64 { return math.Round(v*100) / 100 }
