package docsite

import (
	"errors"
	"maps"
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// ErrEmptyQuery is the refusal of a query with nothing to search for;
// lookup_docs answers it as invalid_request.
var ErrEmptyQuery = errors.New("q is empty: give the words to search the docs for, such as q=rate limit")

// CheckQuery answers ErrEmptyQuery for a blank query.
func CheckQuery(q string) error {
	if strings.TrimSpace(q) == "" {
		return ErrEmptyQuery
	}
	return nil
}

// Result is one docs search hit: lookup_docs answers title and text.
type Result struct {
	// Title is "<page> › <section>" (the page title for a page's introduction).
	Title string `json:"title"`
	// Text is a snippet of about SnippetLen characters around the best match.
	Text string `json:"text"`
	// URL links to the section, {docs_url}/<slug>/#<anchor>.
	URL string `json:"-"`
}

// Ranking constants: BM25's usual k1 and b for the body, and the bonus,
// in units of the term's idf, for a query word in the section's title (a
// saturated body match is worth k1+1 = 2.2) or in the page's title.
const (
	bm25K1       = 1.2
	bm25B        = 0.75
	titleBonus   = 2.0
	pageBonus    = 0.3
	maxQueryRune = 500
)

// SnippetLen is the length of a result's text, in bytes, before word
// boundaries and ellipses.
const SnippetLen = 200

// searchIndex is BM25 over sections with weighted title terms.
type searchIndex struct {
	docs     []searchDoc
	postings map[string][]posting
	avgLen   float64
}

type searchDoc struct {
	title, url, text string
	length           float64
	// tokens are the body's terms with their offsets, kept so snippets
	// need no tokenizing at query time.
	tokens []docToken
}

type docToken struct {
	term  string
	start int
}

type posting struct {
	doc   int
	tf    float64 // occurrences in the body
	bonus float64 // titleBonus and/or pageBonus when the title holds the term
}

// buildIndex indexes every section of every page.
func buildIndex(pages []renderedPage, docsURL string) *searchIndex {
	ix := &searchIndex{postings: map[string][]posting{}}
	total := 0.0
	for _, p := range pages {
		for _, sec := range p.sections {
			title, url := p.title, docsURL+"/"+p.slug+"/"
			if sec.Anchor != "" {
				title += " › " + sec.Title
				url += "#" + sec.Anchor
			}
			body := plainText(sec.Markdown)
			tf, bonus := map[string]float64{}, map[string]float64{}
			var tokens []docToken
			tokenize(body, func(term string, start, _ int) {
				tf[term]++
				tokens = append(tokens, docToken{term, start})
			})
			n := len(tokens)
			sectionTitle := sec.Title
			if sec.Anchor == "" {
				sectionTitle = "" // the introduction: the page title is its title
			}
			addBonus := func(text string, b float64) {
				seen := map[string]bool{}
				tokenize(text, func(term string, _, _ int) {
					if !seen[term] {
						seen[term] = true
						bonus[term] += b
					}
				})
			}
			addBonus(sectionTitle, titleBonus)
			addBonus(p.title, pageBonus)
			doc := len(ix.docs)
			ix.docs = append(ix.docs, searchDoc{title: title, url: url, text: body, length: float64(n), tokens: tokens})
			total += float64(n)
			terms := maps.Clone(tf)
			maps.Copy(terms, bonus)
			for _, term := range slices.Sorted(maps.Keys(terms)) {
				ix.postings[term] = append(ix.postings[term], posting{doc: doc, tf: tf[term], bonus: bonus[term]})
			}
		}
	}
	if len(ix.docs) > 0 {
		ix.avgLen = total / float64(len(ix.docs))
	}
	return ix
}

// Search ranks the docs' sections for q with BM25 and answers the best n
// (at most n, none when nothing matches). A blank q answers nothing; use
// CheckQuery to refuse it.
func (s *Site) Search(q string, n int) []Result {
	ix := s.search
	if n <= 0 || len(ix.docs) == 0 {
		return []Result{}
	}
	if utf8.RuneCountInString(q) > maxQueryRune {
		q = string([]rune(q)[:maxQueryRune])
	}
	var terms []string
	tokenize(q, func(term string, _, _ int) {
		if !slices.Contains(terms, term) {
			terms = append(terms, term)
		}
	})
	scores := make([]float64, len(ix.docs))
	nDocs := float64(len(ix.docs))
	idf := map[string]float64{}
	for _, term := range terms {
		ps := ix.postings[term]
		if len(ps) == 0 {
			continue
		}
		df := float64(len(ps))
		w := math.Log(1 + (nDocs-df+0.5)/(df+0.5))
		idf[term] = w
		for _, p := range ps {
			d := ix.docs[p.doc]
			norm := bm25K1 * (1 - bm25B + bm25B*d.length/ix.avgLen)
			scores[p.doc] += w * (p.tf*(bm25K1+1)/(p.tf+norm) + p.bonus)
		}
	}
	order := make([]int, 0, len(ix.docs))
	for i, sc := range scores {
		if sc > 0 {
			order = append(order, i)
		}
	}
	slices.SortStableFunc(order, func(a, b int) int {
		switch {
		case scores[a] > scores[b]:
			return -1
		case scores[a] < scores[b]:
			return 1
		}
		return 0
	})
	if len(order) > n {
		order = order[:n]
	}
	out := make([]Result, len(order))
	for i, d := range order {
		doc := ix.docs[d]
		out[i] = Result{Title: doc.title, Text: snippet(doc.text, doc.tokens, idf), URL: doc.url}
	}
	return out
}

// snippet cuts about SnippetLen characters of text around the place where
// the most (idf-weighted) query terms meet, on word boundaries; tokens are
// text's terms and offsets.
func snippet(text string, tokens []docToken, idf map[string]float64) string {
	var hits []docToken
	for _, tok := range tokens {
		if _, ok := idf[tok.term]; ok {
			hits = append(hits, tok)
		}
	}
	from := 0
	if len(hits) > 0 {
		best := -1.0
		var seen []string
		for i, h := range hits {
			seen = seen[:0]
			score := 0.0
			for _, g := range hits[i:] {
				if g.start-h.start > SnippetLen*3/4 {
					break
				}
				if !slices.Contains(seen, g.term) {
					seen = append(seen, g.term)
					score += idf[g.term]
				}
			}
			if score > best {
				best, from = score, h.start
			}
		}
		from = max(0, from-SnippetLen/5)
	}
	return cutWords(text, from, SnippetLen)
}

// cutWords answers about n bytes of text from byte offset from, moved to
// word boundaries, with "…" where text was cut.
func cutWords(text string, from, n int) string {
	if from > 0 {
		if i := strings.IndexByte(text[from:], ' '); i >= 0 && i < 30 {
			from += i + 1
		}
		for from < len(text) && !utf8.RuneStart(text[from]) {
			from++
		}
	}
	end := len(text)
	if from+n < len(text) {
		end = from + n
		if i := strings.LastIndexByte(text[from:end], ' '); i > n/2 {
			end = from + i
		}
		for end > from && !utf8.RuneStart(text[end]) {
			end--
		}
	}
	out := strings.TrimSpace(text[from:end])
	if from > 0 {
		out = "…" + out
	}
	if end < len(text) {
		out = strings.TrimRight(out, ",;:") + "…"
	}
	return out
}

// tokenize splits s into search terms and calls emit with each term and
// the byte span of the word it came from. Words are runs of letters and
// digits, joined by '_' or '-'. A word like invalid_request, rate-limit or
// setTitle is kept whole (lower-cased) and also split into its parts
// (invalid, request; set, title), each lower-cased and lightly stemmed, so
// "revoke" finds "revoking" and "topN" finds "topn" and "top".
func tokenize(s string, emit func(term string, start, end int)) {
	i := 0
	for i < len(s) {
		r, size := utf8.DecodeRuneInString(s[i:])
		if !isWordRune(r) {
			i += size
			continue
		}
		start := i
		for i < len(s) {
			r, size := utf8.DecodeRuneInString(s[i:])
			if isWordRune(r) {
				i += size
				continue
			}
			if (r == '_' || r == '-') && i+size < len(s) {
				if next, _ := utf8.DecodeRuneInString(s[i+size:]); isWordRune(next) {
					i += size
					continue
				}
			}
			break
		}
		emitWord(s[start:i], start, i, emit)
	}
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// emitWord emits a word's whole form when compound, then its parts.
func emitWord(w string, start, end int, emit func(string, int, int)) {
	if !strings.ContainsAny(w, "_-") {
		emitPart(w, false, start, end, emit)
		return
	}
	emit(strings.ToLower(w), start, end)
	for part := range strings.FieldsFuncSeq(w, func(r rune) bool { return r == '_' || r == '-' }) {
		emitPart(part, true, start, end, emit)
	}
}

// emitPart emits one part of a word: a camelCase part whole and then its
// pieces, each stemmed; a lone common word is skipped.
func emitPart(part string, inCompound bool, start, end int, emit func(string, int, int)) {
	pieces := camelSplit(part)
	if len(pieces) > 1 {
		emit(strings.ToLower(part), start, end)
	}
	for _, piece := range pieces {
		lw := strings.ToLower(piece)
		if !inCompound && len(pieces) == 1 && stopWord(lw) {
			continue
		}
		emit(stem(lw), start, end)
	}
}

// camelSplit splits setTitle into set, Title and HTTPServer into HTTP,
// Server; digits stay with their letters (c2, utf8). The pieces share
// s's memory.
func camelSplit(s string) []string {
	var out []string
	from := 0
	var prev rune = -1
	for i, r := range s {
		if prev >= 0 {
			next, _ := utf8.DecodeRuneInString(s[i+utf8.RuneLen(r):])
			lowerToUpper := unicode.IsLower(prev) && unicode.IsUpper(r)
			acronymEnd := unicode.IsUpper(prev) && unicode.IsUpper(r) && unicode.IsLower(next)
			if lowerToUpper || acronymEnd {
				out = append(out, s[from:i])
				from = i
			}
		}
		prev = r
	}
	return append(out, s[from:])
}

// stopWord reports words too common to search by.
func stopWord(w string) bool {
	switch w {
	case "a", "an", "the", "and", "or", "of", "to", "in", "on", "for", "is", "are", "be", "it", "its",
		"with", "by", "as", "at", "from", "this", "that", "do", "does", "how", "i", "what", "can", "my":
		return true
	}
	return false
}

// stem strips common English endings from a lower-case ASCII word, the
// same way for the docs and the query: keys → key, limited → limit,
// revoking, revoked, revoke → revok.
func stem(w string) string {
	if len(w) < 4 {
		return w
	}
	for i := 0; i < len(w); i++ {
		if w[i] < 'a' || w[i] > 'z' {
			return w
		}
	}
	switch {
	case strings.HasSuffix(w, "ies") && len(w) > 4:
		w = w[:len(w)-3] + "y"
	case strings.HasSuffix(w, "ss"):
	case strings.HasSuffix(w, "s"):
		w = w[:len(w)-1]
	}
	switch {
	case strings.HasSuffix(w, "ing") && len(w) >= 6:
		w = w[:len(w)-3]
	case strings.HasSuffix(w, "ed") && len(w) >= 5:
		w = w[:len(w)-2]
	}
	if strings.HasSuffix(w, "e") && len(w) >= 4 {
		w = w[:len(w)-1]
	}
	return w
}
