package docsite

import (
	"bytes"
	"strconv"
	"strings"

	"chartd.dev/charts"
	"github.com/yuin/goldmark"
	"github.com/yuin/goldmark/ast"
	"github.com/yuin/goldmark/extension"
	"github.com/yuin/goldmark/text"
)

// markdown renders the catalog's CommonMark (with GitHub tables) to HTML.
// Raw HTML in the source is left out, which goldmark does by default.
type markdown struct {
	md goldmark.Markdown
}

func newMarkdown() markdown {
	return markdown{md: goldmark.New(goldmark.WithExtensions(extension.Table, extension.Strikethrough))}
}

// render converts one page, giving every heading an id: "## " headings
// get exactly the catalog's anchor (charts.Anchor of the heading), which is
// what docs links and search results point at; other headings get the
// same form, made unique.
func (m markdown) render(src []byte) ([]byte, error) {
	doc := m.md.Parser().Parse(text.NewReader(src))
	used := map[string]bool{}
	var others []*ast.Heading
	// Level-2 headings first, so their anchors are never taken by another.
	err := ast.Walk(doc, func(n ast.Node, entering bool) (ast.WalkStatus, error) {
		h, ok := n.(*ast.Heading)
		if !entering || !ok {
			return ast.WalkContinue, nil
		}
		if h.Level != 2 {
			others = append(others, h)
			return ast.WalkSkipChildren, nil
		}
		id := charts.Anchor(headingText(h, src))
		used[id] = true
		h.SetAttributeString("id", []byte(id))
		return ast.WalkSkipChildren, nil
	})
	if err != nil {
		return nil, err
	}
	for _, h := range others {
		base := charts.Anchor(headingText(h, src))
		if base == "" {
			base = "section"
		}
		id := base
		for n := 1; used[id]; n++ {
			id = base + "-" + strconv.Itoa(n)
		}
		used[id] = true
		h.SetAttributeString("id", []byte(id))
	}
	var b bytes.Buffer
	if err := m.md.Renderer().Render(&b, src, doc); err != nil {
		return nil, err
	}
	// A code block wider than the page scrolls; keyboard users reach it
	// with Tab to scroll it (raw HTML is left out, so every <pre> is one).
	return bytes.ReplaceAll(b.Bytes(), []byte("<pre>"), []byte(`<pre tabindex="0">`)), nil
}

// headingText is the heading's source text without closing #s, the text
// charts.Page.Sections reads its titles from.
func headingText(h *ast.Heading, src []byte) string {
	lines := h.Lines()
	if lines.Len() == 0 {
		return ""
	}
	seg := lines.At(lines.Len() - 1)
	s := strings.TrimSpace(string(seg.Value(src)))
	if t := strings.TrimRight(s, "#"); t != s && (t == "" || strings.HasSuffix(t, " ")) {
		s = strings.TrimSpace(t)
	}
	return s
}
