package chartspec

import (
	"fmt"
	"math"
	"slices"
	"strings"

	colorful "github.com/lucasb-eyer/go-colorful"

	"chartd.dev/libs/dataset"
)

// The smallest panel small multiples keep legible text in, in CSS pixels:
// a title, three ticks and a few category names.
const (
	MinPanelWidth  = 150
	MinPanelHeight = 110
)

// leadingSeries is the series a highlight fix names: on a line the one
// with the largest most recent value, elsewhere the largest total.
func (c *lintCtx) leadingSeries(ids []string) string {
	best, bestV := ids[0], math.Inf(-1)
	for _, col := range c.t.ColumnsByID(ids) {
		if col == nil || col.Kind != dataset.Number {
			continue
		}
		v := 0.0
		for i := 0; i < c.t.Rows; i++ {
			x := col.Num[i]
			if math.IsNaN(x) {
				continue
			}
			if c.spec.Type == "line" {
				v = x
			} else {
				v += x
			}
		}
		if v > bestV {
			best, bestV = col.ID, v
		}
	}
	return best
}

// highlight checks that a highlight stands something out, and that the
// type draws it.
func (c *lintCtx) highlight() {
	h := c.spec.Highlight
	if h == nil {
		return
	}
	if !slices.Contains(HighlightTypes(), c.spec.Type) {
		c.add(CheckLookNotDrawn, Warn, `A %s chart draws no highlight; the one kept from another type is not drawn. Clear it with {"op":"setHighlight","highlight":null}, or switch to a type that draws it (%s) with setType.`,
			c.spec.Type, typesText(HighlightTypes()))
		return
	}
	if len(h.Categories) == 0 && len(h.Series) == 0 {
		c.add(CheckHighlightAllOrNone, Warn, `The highlight names nothing, so nothing stands out. Name what matters, for example {"op":"setHighlight","highlight":{"series":[%q]}}, or clear it with {"op":"setHighlight","highlight":null}.`,
			c.leadingSeries(append([]string{""}, c.spec.Mapping.Cols("values")...)))
		return
	}
	if len(h.Categories) > 0 {
		if roles := categoryRoles(c.spec.Type); len(roles) > 0 {
			if col := c.col(roles[0]); col != nil {
				all := FacetValues(c.t, col.ID)
				if len(all) > 1 && !slices.ContainsFunc(all, func(v string) bool { return !slices.Contains(h.Categories, v) }) {
					c.add(CheckHighlightAllOrNone, Warn, `The highlight names every category of %s, so nothing stands out and nothing is grey. Keep the one that matters, for example {"op":"setHighlight","highlight":{"categories":[%q]}}, or clear it with {"op":"setHighlight","highlight":null}.`,
						colLabel(col), all[0])
				}
			}
		}
	}
	if ids := c.spec.Mapping.Cols("values"); len(h.Series) > 0 && len(ids) > 1 && !slices.ContainsFunc(ids, func(id string) bool { return !slices.Contains(h.Series, id) }) {
		c.add(CheckHighlightAllOrNone, Warn, `The highlight names every series, so nothing stands out and nothing is grey. Keep the one that matters with {"op":"setHighlight","highlight":{"series":[%q]}}, or clear it with {"op":"setHighlight","highlight":null}.`,
			c.leadingSeries(ids))
	}
}

// facet checks that small multiples are drawn and that their panels
// hold their text at the chart's size.
func (c *lintCtx) facet() {
	f := c.spec.Facet
	if f == nil {
		return
	}
	if !slices.Contains(FacetTypes(), c.spec.Type) {
		c.add(CheckLookNotDrawn, Warn, `A %s chart is not drawn as small multiples; the facet kept from another type is not drawn. Clear it with {"op":"setFacet","facet":null}, or switch to a type that takes it (%s) with setType.`,
			c.spec.Type, typesText(FacetTypes()))
		return
	}
	col, ok := c.t.Column(f.Column)
	if !ok || col.Kind != dataset.Text {
		c.add(CheckLookNotDrawn, Warn, `The small multiples' column %s is not a text column of the data after steps, so one chart is drawn. Choose one of %s with setFacet, or clear it with {"op":"setFacet","facet":null}.`,
			f.Column, columnList(textColumns(c.t)))
		return
	}
	n := len(FacetValues(c.t, col.ID))
	w, h := c.spec.Style.Dimensions()
	// the panels share the canvas less its margins and title (about 100
	// px at 800×600), with a gap of 20 px between them
	aw, ah := float64(w)-32, float64(h)-100
	cols, rows := FacetGrid(n, f.Columns, aw, ah)
	if cols == 0 {
		return
	}
	pw := (aw - 20*float64(cols-1)) / float64(cols)
	ph := (ah - 20*float64(rows-1)) / float64(rows)
	if pw >= MinPanelWidth && ph >= MinPanelHeight {
		return
	}
	needW := int(math.Ceil(float64(cols)*MinPanelWidth + 20*float64(cols-1) + 32))
	needH := int(math.Ceil(float64(rows)*MinPanelHeight + 20*float64(rows-1) + 100))
	c.add(CheckFacetCrowded, Warn, `%d panels of %s in %d×%d make each %d×%d px, too small for a title, ticks and names (%d×%d at least). Make the chart larger with {"op":"setSize","width":%d,"height":%d}, or draw fewer panels with {"op":"addTransform","transform":{"type":"filter","column":%q,"operator":"in","value":["…","…"]}}.`,
		n, colLabel(col), cols, rows, int(pw), int(ph), MinPanelWidth, MinPanelHeight, max(w, needW), max(h, needH), col.ID)
}

// darkColors checks the series colours a dark page draws against it
// (dark and auto themes): the palette's dark variant reaches 3:1, a
// colour pinned to a series may not.
func (c *lintCtx) darkColors() {
	if c.spec.Theme != ThemeDark && c.spec.Theme != ThemeAuto || c.env.Transparent {
		return
	}
	dark := *c.spec
	dark.Theme = ThemeDark
	page, _ := colorful.Hex(DarkBackground)
	var faint []string
	fix := ""
	seen := map[string]bool{}
	for _, s := range ChartSeries(&dark, c.t, maxColorSeries) {
		col, _, ok := ParseColor(s.Color)
		if !ok || seen[s.Color] {
			continue
		}
		seen[s.Color] = true
		if r := Contrast(col, page); r < MinContrast {
			faint = append(faint, fmt.Sprintf("%s (%s, %s)", s.Label, s.Color, formatRatio(r)))
			if fix == "" {
				fix = fmt.Sprintf(`{"op":"setSeriesColor","series":%q,"color":%q}`, s.Key, LiftTo(s.Color, page, MinContrast+0.1))
			}
		}
	}
	if len(faint) == 0 {
		return
	}
	c.add(CheckDarkFaintColor, Warn, "Colour%s too faint against the dark background (%s), below the 3:1 contrast WCAG 1.4.11 asks of chart marks: %s. Give %s a lighter colour, for example %s.",
		pluralS(len(faint)), DarkBackground, strings.Join(faint, "; "), itThem(len(faint)), fix)
}
