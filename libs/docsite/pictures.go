package docsite

import (
	"bytes"
	"fmt"
	"html"
	"regexp"
	"strconv"
	"strings"

	"chartd.dev/charts"
	"chartd.dev/libs/draw"
	"chartd.dev/libs/gallery"
)

// The pages the gallery's pictures go on.
const (
	chartTypesSlug = "chart-types"
	opsSlug        = "ops"
	embeddingSlug  = "embedding"
	// widthsAfter is the embedding page's section the widths picture ends.
	widthsAfter = "What the frame does"
)

// NewPictured is New with the gallery's pictures inline: on the chart
// types page each type under its heading (its sample example) and each
// example in its list item, and on the ops page each style op that has a
// pair, before and after. The pictures name their fonts; the gallery's
// font block, once per page, carries the faces.
func NewPictured(cat *charts.Catalog, docsURL, baseURL, siteURL string, g *gallery.Gallery) (*Site, error) {
	if g == nil {
		return nil, fmt.Errorf("docs site: no gallery")
	}
	return build(cat, docsURL, baseURL, siteURL, func(slug string, body []byte) ([]byte, error) {
		switch slug {
		case chartTypesSlug:
			return pictureTypes(cat, g, body)
		case opsSlug:
			return picturePairs(g, body), nil
		case embeddingSlug:
			return pictureWidths(g, body)
		}
		return body, nil
	}, g.Fonts)
}

// WithPictures answers the site built again with g's pictures (see
// NewPictured).
func (s *Site) WithPictures(g *gallery.Gallery) (*Site, error) {
	return NewPictured(s.cat, s.docsURL, s.baseURL, s.siteURL, g)
}

// pictureTypes puts each type's picture after its heading and each
// example's in its list item; a type or example the page does not show,
// or one without a picture, is an error (the docs must show them all).
func pictureTypes(cat *charts.Catalog, g *gallery.Gallery, body []byte) ([]byte, error) {
	out := string(body)
	for _, ct := range cat.Types() {
		id, svg := g.Types[ct.Type], g.Examples[g.Types[ct.Type]]
		if svg == "" {
			return nil, fmt.Errorf("docs site: chart type %s has no picture", ct.Type)
		}
		head := `<h2 id="` + ct.Type + `">`
		at := strings.Index(out, head)
		if at < 0 {
			return nil, fmt.Errorf("docs site: the chart types page has no section %s", ct.Type)
		}
		end := strings.Index(out[at:], "</h2>")
		if end < 0 {
			return nil, fmt.Errorf("docs site: section %s: heading not closed", ct.Type)
		}
		end += at + len("</h2>")
		fig := figure("type-picture", renameIDs(svg, "t"), "Drawn by chartd from the example "+id+".")
		out = out[:end] + "\n" + fig + out[end:]
		for _, ex := range cat.Examples(ct.Type) {
			svg := g.Examples[ex.ID]
			if svg == "" {
				return nil, fmt.Errorf("docs site: example %s has no picture", ex.ID)
			}
			var ok bool
			if out, ok = intoItem(out, ex.ID, figure("example-picture", svg, "")); !ok {
				return nil, fmt.Errorf("docs site: the chart types page does not list example %s", ex.ID)
			}
		}
	}
	return []byte(out), nil
}

// pictureWidths ends the embedding page's section on what the frame does
// with the one chart as an embed draws it at a phone's, a tablet's and a
// desktop's width, so a reader sees the re-layout, not just reads of it.
func pictureWidths(g *gallery.Gallery, body []byte) ([]byte, error) {
	if len(g.Widths) == 0 {
		return nil, fmt.Errorf("docs site: the gallery has no pictures at embed widths")
	}
	out := string(body)
	at := strings.Index(out, ">"+widthsAfter+"</h2>")
	if at < 0 {
		return nil, fmt.Errorf("docs site: the embedding page has no section %q", widthsAfter)
	}
	end := strings.Index(out[at:], "<h2")
	if end < 0 {
		end = len(out) - at
	}
	end += at
	var b strings.Builder
	b.WriteString(`<figure class="widths">`)
	for _, w := range g.Widths {
		fmt.Fprintf(&b, `<div class="width"><p class="pair-label">In a frame %d px wide</p>%s</div>`, w.Width, renameIDs(w.SVG, "w"+strconv.Itoa(w.Width)))
	}
	fmt.Fprintf(&b, `<figcaption>The example %s as an embed draws it at %s: the same chart laid out again for each width, its type never under %d px.</figcaption></figure>`,
		html.EscapeString(gallery.WidthsExample), widthList(g.Widths), draw.ReadingMinText)
	return []byte(out[:end] + b.String() + "\n" + out[end:]), nil
}

// widthList names the widths: "320, 640 and 1200 px".
func widthList(ws []gallery.Sized) string {
	var names []string
	for _, w := range ws {
		names = append(names, strconv.Itoa(w.Width))
	}
	if len(names) == 1 {
		return names[0] + " px"
	}
	return strings.Join(names[:len(names)-1], ", ") + " and " + names[len(names)-1] + " px"
}

// picturePairs puts each pair into the list item of its op.
func picturePairs(g *gallery.Gallery, body []byte) []byte {
	out := string(body)
	for _, p := range g.Pairs {
		var b strings.Builder
		b.WriteString(`<figure class="pair"><div class="pair-pics"><div><p class="pair-label">Before</p>`)
		b.WriteString(p.Before)
		b.WriteString(`</div><div><p class="pair-label">After</p>`)
		b.WriteString(p.After)
		with := ""
		if p.Setup != "" {
			with = " with <code>" + html.EscapeString(p.Setup) + "</code>,"
		}
		fmt.Fprintf(&b, `</div></div><figcaption>The example %s%s before and after <code>%s</code>.</figcaption></figure>`,
			html.EscapeString(p.Example), with, html.EscapeString(p.JSON))
		out, _ = intoItem(out, p.Op, b.String())
	}
	return []byte(out)
}

// intoItem inserts fig at the end of the list item that starts with
// <code>name</code>.
func intoItem(page, name, fig string) (string, bool) {
	at := strings.Index(page, "<li><code>"+name+"</code>")
	if at < 0 {
		return page, false
	}
	end := strings.Index(page[at:], "</li>")
	if end < 0 {
		return page, false
	}
	end += at
	return page[:end] + fig + page[end:], true
}

// figure wraps an SVG (it has role img and its own title and description)
// in a figure, with a caption when one is given.
func figure(class, svg, caption string) string {
	var b bytes.Buffer
	fmt.Fprintf(&b, `<figure class="%s">%s`, class, svg)
	if caption != "" {
		fmt.Fprintf(&b, `<figcaption>%s</figcaption>`, html.EscapeString(caption))
	}
	b.WriteString(`</figure>`)
	return b.String()
}

// svgIDs matches the ids the drawing gives its title and description.
var svgIDs = regexp.MustCompile(`chartd-([0-9a-z]+)-(title|desc)`)

// renameIDs makes a second copy of a picture on one page keep its ids
// apart from the first's (aria-labelledby points at them).
func renameIDs(svg, suffix string) string {
	return svgIDs.ReplaceAllString(svg, "chartd-${1}"+suffix+"-${2}")
}
