package draw

import (
	"math"
	"slices"
	"strings"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// facetChart draws small multiples: the chart once per distinct value of
// a text column, in data order, each panel titled with its value, one
// legend for all. With shared scales every panel's value axes run over
// the same range (the union of what each panel's own drawing asks, so
// the ticks are the same) and only the panels at the left and bottom of
// the grid write them.
type facetChart struct {
	whole  chart
	col    *dataset.Column
	values []string
	panels []chart
	tables []*dataset.Table
	shared bool
	cols   int
}

// facetState is what a canvas drawing panels needs: whether this pass
// only records the axes' extents, the shared extents, and which of the
// panel's axes are left unlabelled.
type facetState struct {
	record       bool
	bottom, left [2]float64 // lo, hi; lo > hi: none yet
	// leftSig and bottomSig are the first panel's axis labels; a panel
	// labelled otherwise (other categories, other bins) marks the axis
	// as differing, and every panel then writes it.
	leftSig, bottomSig       string
	leftDiffers, bottomDiffs bool
	hideLeft, hideBtm        bool
}

// newFacet answers small multiples of whole when the spec asks for them
// and they can be drawn: a type that takes them and a text column of at
// least one value. The panels are the chart drawn from each value's rows,
// their colours those the whole chart gave, so a series or group has one
// colour in every panel.
func newFacet(c *canvas, roles roleColumns, whole chart) chart {
	fs := c.spec.Facet
	if fs == nil || !slices.Contains(chartspec.FacetTypes(), c.spec.Type) {
		return whole
	}
	col, ok := c.table.Column(fs.Column)
	if !ok || col.Kind != dataset.Text {
		return whole
	}
	values := chartspec.FacetValues(c.table, col.ID)
	if len(values) == 0 {
		return whole
	}
	if len(values) > chartspec.MaxFacetPanels {
		c.notice(NoticeFacetCut, "only the first "+itoa(chartspec.MaxFacetPanels)+" of the "+itoa(len(values))+" values of "+col.Name+" are drawn as panels")
		values = values[:chartspec.MaxFacetPanels]
	}
	c.colors.pinned = c.colors.assignedOrPinned()
	f := &facetChart{whole: whole, col: col, values: values, shared: fs.Scales != chartspec.ScalesFree, cols: fs.Columns}
	rows := make(map[string][]int, len(values))
	for i := 0; i < c.table.Rows; i++ {
		v := col.Format(i)
		rows[v] = append(rows[v], i)
	}
	full := c.table
	known := len(c.notices)
	for _, v := range values {
		sub, subRoles := subTable(full, roles, rows[v])
		c.table = sub
		ch, err := newChart(c, subRoles)
		if err != nil {
			c.table = full
			return whole
		}
		f.panels = append(f.panels, ch)
		f.tables = append(f.tables, sub)
	}
	c.table = full
	c.notices = dedupeNotices(c.notices, known)
	return f
}

// NoticeFacetCut says a facet column had more values than panels drawn.
const NoticeFacetCut = "facet_cut"

// subTable answers the rows idx of t and the roles' columns over them.
func subTable(t *dataset.Table, roles roleColumns, idx []int) (*dataset.Table, roleColumns) {
	gathered := map[*dataset.Column]*dataset.Column{}
	gather := func(col *dataset.Column) *dataset.Column {
		if g, ok := gathered[col]; ok {
			return g
		}
		g := *col
		if col.Kind == dataset.Text {
			g.Text = make([]string, len(idx))
			for k, i := range idx {
				g.Text[k] = col.Text[i]
			}
		} else {
			g.Num = make([]float64, len(idx))
			for k, i := range idx {
				g.Num[k] = col.Num[i]
			}
		}
		gathered[col] = &g
		return &g
	}
	sub := &dataset.Table{Rows: len(idx), Columns: make([]*dataset.Column, len(t.Columns))}
	for i, col := range t.Columns {
		sub.Columns[i] = gather(col)
	}
	out := make(roleColumns, len(roles))
	for role, cols := range roles {
		gs := make([]*dataset.Column, len(cols))
		for i, col := range cols {
			gs[i] = gather(col)
		}
		out[role] = gs
	}
	return sub, out
}

// dedupeNotices drops notices from known on that repeat one before them
// (every panel may say the same).
func dedupeNotices(ns []dataset.Notice, known int) []dataset.Notice {
	out := ns[:known]
	for _, n := range ns[known:] {
		if !slices.Contains(out, n) {
			out = append(out, n)
		}
	}
	return out
}

func (f *facetChart) summary() (string, string) {
	name, desc := f.whole.summary()
	name = "Small multiples: " + name + ", one panel per " + f.col.Name
	return name, desc + "; drawn as " + plural(len(f.values), "panel", "panels") + ", one for each " + f.col.Name + ": " + listSome(f.values, 12)
}

// listSome joins the first n values, saying how many more there are.
func listSome(vs []string, n int) string {
	s := ""
	for i, v := range vs[:min(len(vs), n)] {
		if i > 0 {
			s += ", "
		}
		s += v
	}
	if len(vs) > n {
		s += " and " + itoa(len(vs)-n) + " more"
	}
	return s
}

func (f *facetChart) empty() bool { return f.whole.empty() }

func (f *facetChart) legend(c *canvas, area rect) rect { return f.whole.legend(c, area) }

func (f *facetChart) draw(c *canvas, area rect) {
	n := len(f.panels)
	cols, rows := chartspec.FacetGrid(n, f.cols, area.w, area.h)
	gap := math.Round(c.pad * 1.25)
	pw := (area.w - gap*float64(cols-1)) / float64(cols)
	ph := (area.h - gap*float64(rows-1)) / float64(rows)
	fs := math.Max(minText, round1(c.fsTick*1.05))
	head := fs * 1.6
	st := &facetState{bottom: [2]float64{math.Inf(1), math.Inf(-1)}, left: [2]float64{math.Inf(1), math.Inf(-1)}}
	full, id := c.table, c.id
	defer func() { c.table, c.id, c.facet = full, id, nil }()
	c.facet = st
	if f.shared {
		// a first pass records every panel's extents, then is taken back
		st.record = true
		mark, spans, notes := len(c.w.b), len(c.w.spans), len(c.notices)
		layout, thinned, taller, turned := c.layoutNote, c.thinned, c.wantTaller, c.turnedNames
		for i, p := range f.panels {
			c.table = f.tables[i]
			p.draw(c, f.panelArea(area, i, cols, pw, ph, gap, head))
		}
		c.w.b, c.w.spans, c.notices = c.w.b[:mark], c.w.spans[:spans], c.notices[:notes]
		c.layoutNote, c.thinned, c.wantTaller, c.turnedNames = layout, thinned, taller, turned
		st.record = false
	}
	known := len(c.notices)
	for i, p := range f.panels {
		r := f.panelArea(area, i, cols, pw, ph, gap, head)
		row, col := i/cols, i%cols
		st.hideLeft = f.shared && col > 0 && !st.leftDiffers
		st.hideBtm = f.shared && row < rows-1 && i+cols < n && !st.bottomDiffs
		c.text(r.x, r.y-head+fs, f.values[i], textStyle{size: fs, bold: true, fill: c.inkTitle})
		c.table, c.id = f.tables[i], id+"p"+itoa(i)+"-"
		c.w.s(`<g class="panel">`)
		p.draw(c, r)
		c.w.s(`</g>`)
	}
	c.notices = dedupeNotices(c.notices, known)
}

// panelArea is the plot area of panel i, under its title.
func (f *facetChart) panelArea(area rect, i, cols int, pw, ph, gap, head float64) rect {
	row, col := i/cols, i%cols
	x := area.x + float64(col)*(pw+gap)
	y := area.y + float64(row)*(ph+gap)
	return rect{x, y + head, pw, ph - head}
}

// facetAxes records or applies shared extents, called by layoutFrame
// before the axes are fitted.
func (c *canvas) facetAxes(bottom, left *axis) {
	st := c.facet
	if st == nil {
		return
	}
	for _, a := range [...]struct {
		ax  *axis
		ext *[2]float64
	}{{bottom, &st.bottom}, {left, &st.left}} {
		if a.ax.kind == axisBand || a.ax.exact {
			continue
		}
		if st.record {
			if a.ax.lo <= a.ax.hi {
				a.ext[0], a.ext[1] = math.Min(a.ext[0], a.ax.lo), math.Max(a.ext[1], a.ax.hi)
			}
			continue
		}
		if a.ext[0] <= a.ext[1] {
			a.ax.extend(a.ext[0])
			a.ax.extend(a.ext[1])
		}
	}
}

// facetFrame is the frame a panel labels: inner panels of shared scales
// leave the axes the panel at the row's start or the column's foot names.
func (c *canvas) facetFrame(f *frame) *frame {
	st := c.facet
	if st != nil && st.record {
		same := func(sig *string, a *axis) bool {
			s := axisSig(c, a)
			if *sig == "" {
				*sig = s
			}
			return *sig == s
		}
		st.leftDiffers = !same(&st.leftSig, f.left) || st.leftDiffers
		st.bottomDiffs = !same(&st.bottomSig, f.bottom) || st.bottomDiffs
		return f
	}
	if st == nil || (!st.hideLeft && !st.hideBtm) {
		return f
	}
	out := *f
	bare := func(a *axis) *axis {
		b := *a
		b.ticks, b.shown, b.labels, b.lines, b.title, b.needLength = nil, nil, nil, nil, "", 0
		return &b
	}
	if st.hideLeft {
		out.left = bare(f.left)
	}
	if st.hideBtm {
		out.bottom = bare(f.bottom)
	}
	return &out
}

// axisSig is what an axis writes: its category names, or the ticks of
// an axis shared scales do not make alike (a histogram's bins); a shared
// value axis writes the same in every panel.
func axisSig(c *canvas, a *axis) string {
	if a.kind != axisBand && !a.exact {
		return a.title
	}
	var b strings.Builder
	b.WriteString(a.title)
	for _, s := range a.shown {
		b.WriteString("|" + s)
	}
	for i := range a.ticks {
		b.WriteByte('|')
		b.Write(c.tickLabel(a, i))
	}
	return b.String()
}
