// Package docsite turns the catalog's reference pages into the docs site:
// HTML pages served at {docs_url}/<slug>/, whose section ids are the
// catalog's anchors (so an error's docs link {docs_url}/limits/#<code>
// lands on its section), and BM25 search over the sections for lookup_docs.
// A Site is built once at start and is read-only afterwards.
package docsite

import (
	"bytes"
	"fmt"
	"html"
	"net/url"
	"strings"

	"chartd.dev/charts"
)

// Site is the rendered docs and their search index. It is immutable and
// safe for concurrent use.
type Site struct {
	docsPath string // the path of docs_url, without a trailing slash
	pages    []renderedPage
	bySlug   map[string]int
	index    []byte
	search   *searchIndex
	// what it was built from, for WithPictures
	cat                       *charts.Catalog
	docsURL, baseURL, siteURL string
}

// renderedPage is one page, ready to serve.
type renderedPage struct {
	slug, title string
	sections    []charts.Section // with placeholders substituted
	html        []byte
}

// New renders every page of the catalog with the placeholders {docs_url},
// {base_url} and {site_url} replaced, and indexes the sections for search.
func New(cat *charts.Catalog, docsURL, baseURL, siteURL string) (*Site, error) {
	return build(cat, docsURL, baseURL, siteURL, nil, "")
}

// build is New, with each page's HTML body passed through with when set
// (NewPictured adds pictures this way); a page with an inline SVG gets
// fonts, the block of @font-face rules its pictures draw with, once.
func build(cat *charts.Catalog, docsURL, baseURL, siteURL string, with func(slug string, body []byte) ([]byte, error), fonts string) (*Site, error) {
	if cat == nil {
		return nil, fmt.Errorf("docs site: no catalog")
	}
	u, err := url.Parse(docsURL)
	if err != nil || docsURL == "" {
		return nil, fmt.Errorf("docs site: docs URL %q is not a URL", docsURL)
	}
	s := &Site{docsPath: strings.TrimRight(u.Path, "/"), bySlug: map[string]int{}, cat: cat, docsURL: docsURL, baseURL: baseURL, siteURL: siteURL}
	subst := strings.NewReplacer("{docs_url}", strings.TrimRight(docsURL, "/"), "{base_url}", baseURL, "{site_url}", siteURL)
	md := newMarkdown()
	pages := cat.Pages()
	if len(pages) == 0 {
		return nil, fmt.Errorf("docs site: the catalog has no pages")
	}
	for _, p := range pages {
		p.Markdown = subst.Replace(p.Markdown)
		body, err := md.render([]byte(p.Markdown))
		if err != nil {
			return nil, fmt.Errorf("docs site: render %s: %w", p.Slug, err)
		}
		if with != nil {
			if body, err = with(p.Slug, body); err != nil {
				return nil, err
			}
		}
		s.bySlug[p.Slug] = len(s.pages)
		s.pages = append(s.pages, renderedPage{slug: p.Slug, title: p.Title, sections: p.Sections(), html: body})
	}
	for i := range s.pages {
		f := ""
		if bytes.Contains(s.pages[i].html, []byte("<svg")) {
			f = fonts
		}
		s.pages[i].html = s.layout(s.pages[i].title, s.pages[i].slug, s.pages[i].html, f)
	}
	s.index = s.layout("chartd API reference", "", s.contents(), "")
	s.search = buildIndex(s.pages, strings.TrimRight(docsURL, "/"))
	return s, nil
}

// Page answers a page's HTML by slug (for example "limits").
func (s *Site) Page(slug string) ([]byte, bool) {
	i, ok := s.bySlug[slug]
	if !ok {
		return nil, false
	}
	return s.pages[i].html, true
}

// Index answers the HTML of {docs_url}/ itself: every page with its sections.
func (s *Site) Index() []byte { return s.index }

// Slugs lists the page slugs in reading order.
func (s *Site) Slugs() []string {
	out := make([]string, len(s.pages))
	for i, p := range s.pages {
		out[i] = p.slug
	}
	return out
}

// href is the link to a page, and to one of its sections when anchor is set.
func (s *Site) href(slug, anchor string) string {
	h := s.docsPath + "/" + slug + "/"
	if anchor != "" {
		h += "#" + anchor
	}
	return h
}

// contents is the index page body: each page with links to its sections.
func (s *Site) contents() []byte {
	var b bytes.Buffer
	b.WriteString("<h1>chartd API reference</h1>\n<p>How to use the chartd API: its chart types, ops, data steps, errors and limits.</p>\n")
	for _, p := range s.pages {
		fmt.Fprintf(&b, "<h2><a href=\"%s\">%s</a></h2>\n", html.EscapeString(s.href(p.slug, "")), html.EscapeString(p.title))
		var items []string
		for _, sec := range p.sections {
			if sec.Anchor != "" {
				items = append(items, fmt.Sprintf("<li><a href=\"%s\">%s</a></li>", html.EscapeString(s.href(p.slug, sec.Anchor)), html.EscapeString(sec.Title)))
			}
		}
		if len(items) > 0 {
			b.WriteString("<ul class=\"toc\">" + strings.Join(items, "") + "</ul>\n")
		}
	}
	return b.Bytes()
}

// layout wraps a page body in the site's HTML: a nav of all pages (the
// current one with its sections) and inline styles, no external assets.
func (s *Site) layout(title, current string, body []byte, fonts string) []byte {
	var b bytes.Buffer
	b.WriteString("<!doctype html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n")
	b.WriteString("<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n")
	fmt.Fprintf(&b, "<title>%s · chartd docs</title>\n<style>%s</style>\n</head>\n<body>\n", html.EscapeString(title), css)
	fmt.Fprintf(&b, "<nav aria-label=\"Reference pages\">\n<p class=\"home\"><a href=\"%s/\">chartd docs</a></p>\n<ul>\n", html.EscapeString(s.docsPath))
	for _, p := range s.pages {
		cur := ""
		if p.slug == current {
			cur = " aria-current=\"page\""
		}
		fmt.Fprintf(&b, "<li><a href=\"%s\"%s>%s</a>", html.EscapeString(s.href(p.slug, "")), cur, html.EscapeString(p.title))
		if p.slug == current {
			b.WriteString("<ul>")
			for _, sec := range p.sections {
				if sec.Anchor != "" {
					fmt.Fprintf(&b, "<li><a href=\"#%s\">%s</a></li>", html.EscapeString(sec.Anchor), html.EscapeString(sec.Title))
				}
			}
			b.WriteString("</ul>")
		}
		b.WriteString("</li>\n")
	}
	b.WriteString("</ul>\n</nav>\n<main>\n")
	b.WriteString(fonts)
	b.Write(body)
	b.WriteString("</main>\n</body>\n</html>\n")
	return b.Bytes()
}

// css is the whole style sheet: readable type, code and tables, and a
// highlight on the section a link points at.
const css = `
*{box-sizing:border-box}
body{margin:0;display:flex;gap:2rem;font:16px/1.6 system-ui,-apple-system,"Segoe UI",Roboto,sans-serif;color:#1d2329;background:#fff}
nav{flex:0 0 15rem;padding:1.5rem 1rem;border-right:1px solid #e3e6ea;background:#f7f8fa;min-height:100vh;font-size:.92rem}
nav ul{list-style:none;margin:0;padding:0}nav li{margin:.2rem 0}nav li ul{margin:.2rem 0 .6rem .8rem;font-size:.88rem}
nav a{color:#2a4f8f;text-decoration:none}nav a:hover{text-decoration:underline}nav a[aria-current]{font-weight:600;color:#1d2329}
.home{font-weight:700;margin:0 0 1rem}
main{flex:1;max-width:50rem;padding:1.5rem 1rem 4rem;min-width:0}
h1{font-size:1.9rem;margin:.2rem 0 1rem}h2{font-size:1.35rem;margin:2.2rem 0 .6rem;padding-top:.4rem;border-top:1px solid #eef0f2}h3{font-size:1.1rem}
h2:target,h3:target{background:#fff6d5;outline:.4rem solid #fff6d5}
a{color:#2a4f8f}
code{font:.9em ui-monospace,SFMono-Regular,Menlo,Consolas,monospace;background:#f1f3f5;padding:.1em .3em;border-radius:3px}
pre{background:#f1f3f5;padding:.8rem 1rem;border-radius:6px;overflow-x:auto;line-height:1.45}pre code{background:none;padding:0}
table{border-collapse:collapse;margin:1rem 0;display:block;overflow-x:auto}th,td{border:1px solid #d9dde2;padding:.35rem .6rem;text-align:left;vertical-align:top}th{background:#f7f8fa}
ul.toc{columns:2;font-size:.95rem}
figure{margin:.8rem 0 1.2rem}figure svg{display:block;max-width:100%;height:auto;border:1px solid #e3e6ea;border-radius:4px}
figcaption{font-size:.88rem;color:#4a5560;margin-top:.3rem}
.pair-pics{display:flex;flex-wrap:wrap;gap:1rem}.pair-label{margin:0 0 .2rem;font-size:.85rem;font-weight:600;color:#4a5560}
@media (max-width:50rem){body{display:block}nav{min-height:0;border-right:0;border-bottom:1px solid #e3e6ea}ul.toc{columns:1}}
`
