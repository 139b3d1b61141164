package draw

import (
	"strings"
	"unicode"
	"unicode/utf8"

	"chartd.dev/libs/chartspec"
)

// The footer is the publication furniture under a chart, laid out as
// Datawrapper and the FT do: the notes on the data first (wrapped to at
// most three lines), then one credit line, "Source: … · Chart: …",
// left-aligned in the subtitle's grey at the size of data labels. The
// plot area above shrinks to make room, and on free-plan pictures the
// lines stop short of the service mark in the bottom-right corner.

// Footer layout limits.
const (
	footerNotesLines  = 3 // notes wrap to at most this many lines
	footerCreditLines = 2 // a long source and byline wrap to two
	// footerShare is the most of the area below the titles the footer
	// may take; past it the notes, then the credits, give up lines.
	footerShare = 0.4
)

// footerText is what the footer says, with whitespace runs made single
// spaces: the notes and the credit line; both empty without a footer.
func footerText(f *chartspec.Footer) (notes, credit string) {
	if f == nil {
		return "", ""
	}
	notes = oneLine(f.Notes)
	source, byline := oneLine(f.Source), oneLine(f.Byline)
	if source != "" && !labelled(source) {
		source = "Source: " + source
	}
	if byline != "" && !labelled(byline) {
		byline = "Chart: " + byline
	}
	switch {
	case source != "" && byline != "":
		credit = source + " · " + byline
	default:
		credit = source + byline
	}
	return notes, credit
}

// oneLine folds line breaks, tabs and repeated spaces into single spaces.
func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// labelled reports text that names itself already ("Sources: …",
// "Quelle: …", "Graphic: …", "By Ada Lovelace", "来源：…", "स्रोत: …",
// "Fuente de datos: …"), which would read twice with our label in front,
// and text in a script other than Latin ("国家统计局"), where an English
// label would be out of place: both are left as written.
func labelled(s string) bool {
	if len(s) > 3 && strings.EqualFold(s[:3], "by ") {
		return true
	}
	for _, r := range s {
		if unicode.IsLetter(r) {
			if !unicode.Is(unicode.Latin, r) {
				return true
			}
			break
		}
	}
	i := strings.IndexAny(s, ":：")
	if i <= 0 {
		return false
	}
	word, rest := s[:i], s[i:]
	// an ASCII colon is followed by a space; a full-width one needs none
	if strings.HasPrefix(rest, ":") && !strings.HasPrefix(rest, ": ") {
		return false
	}
	if utf8.RuneCountInString(word) > 20 || strings.Count(word, " ") > 2 || strings.HasPrefix(word, " ") || strings.HasSuffix(word, " ") {
		return false
	}
	for _, r := range word {
		// letters with their vowel signs and viramas (Devanagari, Tamil, …)
		if !unicode.IsLetter(r) && !unicode.IsMark(r) && r != ' ' {
			return false
		}
	}
	return true
}

// footerDesc is the description desc with what it adds for screen
// readers: the footer's text as the picture shows it, each part a clause.
func (c *canvas) footerDesc(desc string) string {
	notes, credit := footerText(c.style.Footer)
	return clause(clause(desc, notes), credit)
}

// footer draws the footer at the bottom of area and answers the area above
// it. Without a footer it draws nothing and answers area as it is, so such
// pictures stay byte for byte what they were.
func (c *canvas) footer(area rect, watermark bool) rect {
	notes, credit := footerText(c.style.Footer)
	notes = strings.TrimSpace(notes + " " + c.layoutNote)
	if notes == "" && credit == "" {
		return area
	}
	size := c.fsLabel
	lineH := size * 1.35
	between := size * 0.4 // extra space between the notes and the credit line
	above := 14 * c.k     // space between the chart and the footer, as under the titles
	maxW := area.w
	if watermark {
		// keep clear of the service mark drawn at the bottom right
		markLeft := c.width - c.pad*0.5 - c.measure("chartd", c.fsWatermark, true)
		maxW = min(maxW, markLeft-c.pad*0.75-area.x)
	}
	maxW = max(maxW, area.w/2)

	noteMax, creditMax := footerNotesLines, footerCreditLines
	var noteLines, creditLines []string
fit:
	for {
		noteLines = c.wrap(notes, size, false, maxW, noteMax)
		creditLines = c.wrap(credit, size, false, maxW, creditMax)
		n := len(noteLines) + len(creditLines)
		height := above + c.fonts.CapHeight(size) + float64(n-1)*lineH
		if len(noteLines) > 0 && len(creditLines) > 0 {
			height += between
		}
		if height <= area.h*footerShare {
			break
		}
		switch {
		case noteMax > 1 && len(noteLines) > 1:
			noteMax--
		case creditMax > 1 && len(creditLines) > 1:
			creditMax--
		default:
			// a tiny canvas: one line of each, however much it takes
			break fit
		}
	}
	w := &c.w
	w.s(`<g class="footer">`)
	y := area.bottom() - float64(len(noteLines)+len(creditLines)-1)*lineH
	if len(noteLines) > 0 && len(creditLines) > 0 {
		y -= between
	}
	top := y - c.fonts.CapHeight(size)
	st := textStyle{size: size, fill: c.inkSubtitle}
	x := area.x
	if c.rtl {
		// anchored right, as the title is, and clear of the service mark
		x, st.rtl = area.x+maxW, true // direction rtl: its start is its right end
	}
	for _, line := range noteLines {
		c.text(x, y, line, st)
		y += lineH
	}
	if len(noteLines) > 0 {
		y += between
	}
	for _, line := range creditLines {
		c.text(x, y, line, st)
		y += lineH
	}
	w.s(`</g>`)
	bottom := max(area.y, top-above)
	return rect{area.x, area.y, area.w, bottom - area.y}
}
