package docsite

import (
	"strings"
)

// plainText turns a section's Markdown into one line of readable text for
// indexing and snippets: code kept without its fences and backticks, links
// as their text, tables as their cells, no list or emphasis markers.
func plainText(md string) string {
	var b strings.Builder
	for line := range strings.Lines(md) {
		t := strings.TrimSpace(line)
		switch {
		case t == "", strings.HasPrefix(t, "```"), strings.HasPrefix(t, "~~~"), tableRule(t):
			continue
		case strings.HasPrefix(t, "#"):
			t = strings.TrimSpace(strings.TrimLeft(t, "#"))
		case strings.HasPrefix(t, "- "), strings.HasPrefix(t, "* "), strings.HasPrefix(t, "+ "):
			t = t[2:]
		case strings.HasPrefix(t, "> "):
			t = t[2:]
		default:
			if i := strings.Index(t, ". "); i > 0 && i <= 3 && allDigits(t[:i]) {
				t = t[i+2:]
			}
		}
		if strings.HasPrefix(t, "|") {
			t = strings.ReplaceAll(strings.Trim(t, "|"), "|", " · ")
		}
		t = inline(t)
		if t == "" {
			continue
		}
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString(t)
	}
	return strings.Join(strings.Fields(b.String()), " ")
}

// tableRule reports a table's header rule, such as | --- | :---: |.
func tableRule(t string) bool {
	if !strings.HasPrefix(t, "|") {
		return false
	}
	return strings.Trim(t, "|-: ") == ""
}

func allDigits(s string) bool {
	for _, r := range s {
		if r < '0' || r > '9' {
			return false
		}
	}
	return s != ""
}

// inline drops backticks and ** / * emphasis and turns [text](url) into text.
func inline(t string) string {
	var b strings.Builder
	for i := 0; i < len(t); i++ {
		c := t[i]
		switch {
		case c == '`':
			continue
		case c == '*':
			continue
		case c == '!' && i+1 < len(t) && t[i+1] == '[':
			continue
		case c == '[':
			if close := strings.Index(t[i:], "]("); close > 0 {
				if end := strings.IndexByte(t[i+close:], ')'); end > 0 {
					b.WriteString(t[i+1 : i+close])
					i += close + end
					continue
				}
			}
			b.WriteByte(c)
		default:
			b.WriteByte(c)
		}
	}
	return strings.TrimSpace(b.String())
}
