package charts

import (
	"fmt"
	"io/fs"
	"path"
	"strings"
	"unicode"
)

// overviewSlug is the page listed first.
const overviewSlug = "overview"

// Page is one reference page, served at {docs_url}/<Slug>/ and searched by lookup_docs.
type Page struct {
	// Slug is the file name without ".md", for example "limits".
	Slug string
	// Title is the text of the page's "# " heading.
	Title string
	// Markdown is the whole page, title line included.
	Markdown string
}

// Section is the part of a page under one "## " heading, the unit that links
// (#Anchor) and documentation search point at.
type Section struct {
	// Anchor is the heading's link fragment, see Anchor; empty for the page's introduction.
	Anchor string
	// Title is the heading text.
	Title string
	// Markdown is the section's body without its heading, trimmed.
	Markdown string
}

// Sections splits the page on its "## " headings (headings inside fenced code
// blocks do not count). When the page has text between its title and the
// first "## " heading, that introduction comes first, with an empty Anchor and
// the page's title.
func (p Page) Sections() []Section {
	return splitSections(p.Markdown, p.Title)
}

// splitSections does the work of Page.Sections on raw Markdown.
func splitSections(md, pageTitle string) []Section {
	var (
		out     []Section
		cur     = Section{Title: pageTitle}
		body    strings.Builder
		fence   string
		started bool // past the first non-blank line, where the title is
	)
	flush := func() {
		cur.Markdown = strings.TrimSpace(body.String())
		if cur.Anchor != "" || cur.Markdown != "" {
			out = append(out, cur)
		}
		body.Reset()
	}
	for line := range strings.Lines(md) {
		text := strings.TrimRight(line, "\r\n")
		if !started {
			if strings.TrimSpace(text) == "" {
				continue
			}
			started = true
			if strings.HasPrefix(text, "# ") {
				continue // the page title, already known
			}
		}
		if f := fenceMarker(text); f != "" {
			rest := strings.TrimLeft(text, " ")[len(f):]
			switch {
			case fence == "":
				fence = f
			case f[0] == fence[0] && len(f) >= len(fence) && strings.TrimSpace(rest) == "":
				fence = ""
			}
		}
		if fence == "" && strings.HasPrefix(text, "## ") {
			flush()
			title := headingText(text[3:])
			cur = Section{Anchor: Anchor(title), Title: title}
			continue
		}
		body.WriteString(line)
	}
	flush()
	return out
}

// fenceMarker returns the run of ``` or ~~~ that opens or closes a code fence on this line, or "".
func fenceMarker(line string) string {
	t := strings.TrimLeft(line, " ")
	if len(line)-len(t) > 3 {
		return "" // indented four or more: code, not a fence
	}
	for _, ch := range []string{"`", "~"} {
		n := 0
		for n < len(t) && t[n:n+1] == ch {
			n++
		}
		if n >= 3 {
			return t[:n]
		}
	}
	return ""
}

// headingText trims a heading's text and its optional closing #s.
func headingText(s string) string {
	s = strings.TrimSpace(s)
	if t := strings.TrimRight(s, "#"); t != s && (t == "" || strings.HasSuffix(t, " ")) {
		s = strings.TrimSpace(t)
	}
	return s
}

// Anchor turns a heading into its link fragment: lower-case, spaces become
// '-', and punctuation is dropped except '_' and '-'. So "## invalid_request"
// links as #invalid_request and "## Plans and limits" as #plans-and-limits.
func Anchor(title string) string {
	var b strings.Builder
	for _, r := range strings.ToLower(strings.TrimSpace(title)) {
		switch {
		case r == ' ':
			b.WriteByte('-')
		case r == '_' || r == '-' || unicode.IsLetter(r) || unicode.IsDigit(r):
			b.WriteRune(r)
		}
	}
	return b.String()
}

// loadPages reads docs/*.md; every page needs a "# " title first and unique section anchors.
func loadPages(fsys fs.FS) ([]Page, error) {
	names, err := fs.Glob(fsys, "docs/*.md")
	if err != nil {
		return nil, fmt.Errorf("list docs: %w", err)
	}
	if len(names) == 0 {
		return nil, fmt.Errorf("docs: no pages")
	}
	pages := make([]Page, 0, len(names))
	for _, name := range names {
		b, err := fs.ReadFile(fsys, name)
		if err != nil {
			return nil, fmt.Errorf("read %s: %w", name, err)
		}
		p, err := parsePage(strings.TrimSuffix(path.Base(name), ".md"), string(b))
		if err != nil {
			return nil, fmt.Errorf("%s: %w", name, err)
		}
		pages = append(pages, p)
	}
	sortPages(pages)
	return pages, nil
}

// parsePage reads a page's title and checks its sections.
func parsePage(slug, md string) (Page, error) {
	first, _, _ := strings.Cut(strings.TrimLeft(md, "\n"), "\n")
	first = strings.TrimRight(first, "\r")
	title, ok := strings.CutPrefix(first, "# ")
	title = headingText(title)
	if !ok || title == "" {
		return Page{}, fmt.Errorf("the first line must be a \"# \" title")
	}
	p := Page{Slug: slug, Title: title, Markdown: md}
	seen := map[string]bool{}
	for _, s := range p.Sections() {
		if s.Anchor == "" && s.Title != title {
			return Page{}, fmt.Errorf("heading %q gives an empty anchor", s.Title)
		}
		if seen[s.Anchor] {
			return Page{}, fmt.Errorf("two sections have the anchor %q", s.Anchor)
		}
		seen[s.Anchor] = true
	}
	return p, nil
}
