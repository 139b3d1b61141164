package draw

import (
	"cmp"
	"maps"
	"math"
	"slices"
	"strings"

	"chartd.dev/libs/dataset"
)

// NoticePieNegative is the code of the notice saying a pie left out
// negative values.
const NoticePieNegative = "pie_negative_values"

// NoticeAggregated is the code of the notice saying a picture shows fewer
// marks than its data has rows, because the pixels could not show more.
const NoticeAggregated = "points_aggregated"

// Result is a drawing and what it had to simplify to fit its pixels.
type Result struct {
	SVG []byte
	// Notices say what the picture shows differently from the data (rows
	// aggregated or left out), for the caller to pass on.
	Notices []dataset.Notice
	// Width and Height are the size drawn: the canvas asked for, or taller
	// when a chart with no height given grew to name every row.
	Width, Height int
	// Marks are the marks the picture lists (Input.Marks), thinned as in
	// its <metadata>; nil when not asked for.
	Marks []Mark
}

// Mark budgets: beyond these a chart draws more marks than its pixels can
// tell apart, and the document grows with the data (a 500,000-row bar chart
// was a 27 MB SVG) while the picture does not change.
const (
	// pieNamed is the most pie slices named one by one; the smallest
	// beyond it become "Other".
	pieNamed = 8
	// pieSliver is the share of the whole under which a pie slice is too
	// thin to see, and goes to "Other" too, unless it is one of the
	// pieAlways largest.
	pieSliver = 0.01
	pieAlways = 3
	// maxSpokes is the most radar axes.
	maxSpokes = 360
	// maxFlows is the most sankey flows; the smallest beyond it are left out.
	maxFlows = 1000
	// minScatterRows is where scatter points start to share pixels worth merging.
	minScatterRows = 5000
)

// reduce cuts a table with more rows than the canvas can show to the rows
// it can, and says so. The rows kept are rows of the data (never made-up
// values, except the "Other" slice of a pie, which also sums the slices
// too many or too thin to tell apart): each pixel column of a bar,
// dot or line chart keeps the rows holding the smallest and largest value
// of the first series, which is what overlapping sub-pixel marks would show;
// a scatter keeps one point per pixel and group; a heatmap the first rows and
// columns that get two pixels each; sankey its largest flows.
func reduce(typ string, t *dataset.Table, r roleColumns, w, h int, horizontal bool) (*dataset.Table, roleColumns, []dataset.Notice) {
	long := w
	if horizontal {
		long = h
	}
	switch typ {
	case "bar", "dotplot":
		return envelope(t, r, r["values"], long/4, "category")
	case "line":
		return envelope(t, r, r["values"], w/2, "x value")
	case "radar":
		return envelope(t, r, r["values"], maxSpokes/4, "axis")
	case "scatter":
		return scatterPixels(t, r, w, h)
	case "pie":
		return otherSlice(t, r)
	case "heatmap":
		return firstCells(t, r, w/2, h/2)
	case "sankey":
		return largestFlows(t, r)
	}
	return t, r, nil
}

// envelope keeps, out of each run of consecutive rows sharing one of
// buckets slots, its first and last rows and the rows with the smallest and
// the largest value of the first series (the M4 rule: the pixels drawn from
// them are the pixels all rows would draw): at most 4·buckets rows.
func envelope(t *dataset.Table, r roleColumns, series []*dataset.Column, buckets int, what string) (*dataset.Table, roleColumns, []dataset.Notice) {
	buckets = max(buckets, 1)
	if t.Rows <= 4*buckets || len(series) == 0 {
		return t, r, nil
	}
	vals := series[0].Num
	per := (t.Rows + buckets - 1) / buckets
	keep := make([]int, 0, 4*buckets)
	for start := 0; start < t.Rows; start += per {
		end := min(start+per, t.Rows)
		lo, hi := -1, -1
		for i := start; i < end; i++ {
			v := vals[i]
			if isBlank(v) {
				continue
			}
			if lo < 0 || v < vals[lo] {
				lo = i
			}
			if hi < 0 || v > vals[hi] {
				hi = i
			}
		}
		four := [4]int{start, lo, hi, end - 1}
		slices.Sort(four[:])
		for k, i := range four {
			if i >= 0 && (k == 0 || i != four[k-1]) {
				keep = append(keep, i)
			}
		}
	}
	msg := "the data has " + counted(t.Rows, "row", "rows") + ", more than the picture's pixels can show apart: each " + what +
		" slot of " + counted(per, "neighbouring row", "neighbouring rows") + " is drawn from its first and last rows and those holding its smallest and largest " +
		series[0].Name + ", " + counted(len(keep), "row", "rows") + " in all; narrow the data with a filter or topN step to see every row"
	st, sr := subset(t, r, keep)
	return st, sr, []dataset.Notice{{Code: NoticeAggregated, Message: msg}}
}

// maxScatterGroups bounds the pixel maps of scatterPixels (w·h bits each).
const maxScatterGroups = 32

// scatterPixels keeps the first point of each pixel (per group), since
// later points on the same pixel draw over it unseen.
func scatterPixels(t *dataset.Table, r roleColumns, w, h int) (*dataset.Table, roleColumns, []dataset.Notice) {
	x, y, g := r.one("x"), r.one("y"), r.one("group")
	if t.Rows < minScatterRows || x == nil || y == nil || r.one("size") != nil {
		return t, r, nil
	}
	x0, x1 := extent(x.Num)
	y0, y1 := extent(y.Num)
	groups := map[string][]uint64{}
	keep := make([]int, 0, min(t.Rows, w*h))
	for i := 0; i < t.Rows; i++ {
		xv, yv := x.Num[i], y.Num[i]
		if isBlank(xv) || isBlank(yv) {
			continue
		}
		key := ""
		if g != nil {
			key = g.Text[i]
		}
		seen, ok := groups[key]
		if !ok {
			if len(groups) == maxScatterGroups {
				return t, r, nil
			}
			seen = make([]uint64, (w*h+63)/64)
			groups[key] = seen
		}
		p := pixel(yv, y0, y1, h)*w + pixel(xv, x0, x1, w)
		if seen[p/64]&(1<<(p%64)) != 0 {
			continue
		}
		seen[p/64] |= 1 << (p % 64)
		keep = append(keep, i)
	}
	if len(keep)*10 > t.Rows*9 {
		return t, r, nil
	}
	msg := "the data has " + counted(t.Rows, "point", "points") + "; points on the same pixel are drawn once, " + counted(len(keep), "point", "points") + " in all"
	st, sr := subset(t, r, keep)
	return st, sr, []dataset.Notice{{Code: NoticeAggregated, Message: msg}}
}

// extent is the smallest and largest drawable value.
func extent(v []float64) (lo, hi float64) {
	lo, hi = math.Inf(1), math.Inf(-1)
	for _, x := range v {
		if !isBlank(x) {
			lo, hi = math.Min(lo, x), math.Max(hi, x)
		}
	}
	return lo, hi
}

// pixel is v's slot among n over [lo, hi].
func pixel(v, lo, hi float64, n int) int {
	span := hi - lo
	if math.IsInf(span, 0) {
		return pixel(v/2, lo/2, hi/2, n)
	}
	if !(span > 0) {
		return 0
	}
	return max(0, min(int((v-lo)/span*float64(n)), n-1))
}

// otherSlice keeps the pie slices a reader can tell apart and sums the
// rest into one "Other" slice, so every share stays the share of the
// whole: with more than pieNamed slices, or any sliver under pieSliver of
// the total, the slices are sorted largest first and all beyond the
// pieNamed largest (and every sliver past the pieAlways largest) become
// Other, when that is two or more. Fewer, visible slices keep the data's
// order.
func otherSlice(t *dataset.Table, r roleColumns) (*dataset.Table, roleColumns, []dataset.Notice) {
	label, value := r.one("label"), r.one("value")
	if label == nil || value == nil {
		return t, r, nil
	}
	var rows, negative []int
	total := 0.0
	for i, v := range value.Num[:t.Rows] {
		switch {
		case isBlank(v) || v == 0:
		case v < 0:
			negative = append(negative, i)
		default:
			rows = append(rows, i)
			total += v
		}
	}
	var notices []dataset.Notice
	names := columnLabels(label)
	if len(negative) > 0 {
		list := make([]string, 0, 3)
		for _, i := range negative[:min(3, len(negative))] {
			list = append(list, names[i])
		}
		more := ""
		if len(negative) > 3 {
			more = " and " + grouped(len(negative)-3) + " more"
		}
		notices = append(notices, dataset.Notice{Code: NoticePieNegative, Message: counted(len(negative), "negative value is", "negative values are") +
			" left out (" + strings.Join(list, ", ") + more + "): a pie shows shares of a positive whole; a bar chart shows them"})
	}
	slices.SortStableFunc(rows, func(a, b int) int { return cmp.Compare(value.Num[b], value.Num[a]) })
	keep := 0
	for keep < len(rows) && keep < pieNamed && (keep < pieAlways || value.Num[rows[keep]] >= total*pieSliver) {
		keep++
	}
	if len(rows)-keep < 2 {
		return t, r, notices
	}
	rest := rows[keep:]
	rows = rows[:keep]
	other := 0.0
	for _, i := range rest {
		other += value.Num[i]
	}
	lc := &dataset.Column{ID: label.ID, Name: label.Name, Kind: dataset.Text, Text: make([]string, 0, keep+1)}
	vc := &dataset.Column{ID: value.ID, Name: value.Name, Kind: dataset.Number, Num: make([]float64, 0, keep+1),
		Percent: value.Percent, Currency: value.Currency}
	for _, i := range rows {
		lc.Text = append(lc.Text, names[i])
		vc.Num = append(vc.Num, value.Num[i])
	}
	lc.Text = append(lc.Text, "Other ("+counted(len(rest), "slice", "slices")+")")
	vc.Num = append(vc.Num, other)
	out := &dataset.Table{Columns: []*dataset.Column{lc, vc}, Rows: len(lc.Text)}
	pct := appendTrimmed(nil, other/total*100, 1, "", "%", nil)
	msg := "the data has " + counted(len(rows)+len(rest), "slice", "slices") + ", more than a pie can tell apart; the smallest " +
		grouped(len(rest)) + " are drawn as one grey slice, Other (" + string(pct) + " of the total); a bar chart shows every one"
	return out, roleColumns{"label": {lc}, "value": {vc}}, append([]dataset.Notice{{Code: NoticeAggregated, Message: msg}}, notices...)
}

// firstCells keeps the rows of the first nx x values and ny y values (in
// data order): cells narrower than two pixels could not be told apart.
func firstCells(t *dataset.Table, r roleColumns, nx, ny int) (*dataset.Table, roleColumns, []dataset.Notice) {
	x, y := r.one("x"), r.one("y")
	if x == nil && y != nil {
		return firstWideCells(t, r, nx, ny)
	}
	if x == nil || y == nil || t.Rows <= max(nx, 1)*max(ny, 1) {
		return t, r, nil
	}
	xs, ys := columnLabels(x), columnLabels(y)
	seenX, seenY := map[string]bool{}, map[string]bool{}
	var keep []int
	for i := 0; i < t.Rows; i++ {
		if !seenX[xs[i]] && len(seenX) < nx {
			seenX[xs[i]] = true
		}
		if !seenY[ys[i]] && len(seenY) < ny {
			seenY[ys[i]] = true
		}
		if seenX[xs[i]] && seenY[ys[i]] {
			keep = append(keep, i)
		}
	}
	if len(keep) == t.Rows {
		return t, r, nil
	}
	msg := "the data has " + counted(t.Rows, "cell", "cells") + ", more than the picture's pixels can show: the first " +
		grouped(len(seenX)) + " " + x.Name + " and " + grouped(len(seenY)) + " " + y.Name + " values are drawn, " +
		counted(len(keep), "row", "rows") + " in all; narrow the data with a filter step to choose others"
	st, sr := subset(t, r, keep)
	return st, sr, []dataset.Notice{{Code: NoticeAggregated, Message: msg}}
}

// firstWideCells is firstCells for a heatmap of rows × columns (no x):
// the rows of the first ny row names and the first nx value columns.
func firstWideCells(t *dataset.Table, r roleColumns, nx, ny int) (*dataset.Table, roleColumns, []dataset.Notice) {
	y, vals := r.one("y"), r["value"]
	nx, ny = max(nx, 1), max(ny, 1)
	ys := columnLabels(y)
	seen := map[string]bool{}
	var keep []int
	for i := 0; i < t.Rows; i++ {
		if !seen[ys[i]] && len(seen) < ny {
			seen[ys[i]] = true
		}
		if seen[ys[i]] {
			keep = append(keep, i)
		}
	}
	if len(keep) == t.Rows && len(vals) <= nx {
		return t, r, nil
	}
	if len(vals) > nx {
		r = maps.Clone(r)
		r["value"] = vals[:nx]
	}
	msg := "the data has " + counted(t.Rows, "row", "rows") + " of " + counted(len(vals), "value column", "value columns") +
		", more than the picture's pixels can show: the first " +
		grouped(len(seen)) + " " + y.Name + " values and " + grouped(len(r["value"])) + " value columns are drawn; " +
		"narrow the data with a filter step or map fewer value columns to choose others"
	st, sr := subset(t, r, keep)
	return st, sr, []dataset.Notice{{Code: NoticeAggregated, Message: msg}}
}

// largestFlows keeps the largest sankey flows.
func largestFlows(t *dataset.Table, r roleColumns) (*dataset.Table, roleColumns, []dataset.Notice) {
	value := r.one("value")
	if value == nil || t.Rows <= maxFlows {
		return t, r, nil
	}
	rows := make([]int, t.Rows)
	for i := range rows {
		rows[i] = i
	}
	size := func(i int) float64 {
		if v := value.Num[i]; !isBlank(v) {
			return math.Abs(v)
		}
		return -1
	}
	slices.SortStableFunc(rows, func(a, b int) int { return cmp.Compare(size(b), size(a)) })
	keep := rows[:maxFlows]
	slices.Sort(keep)
	msg := "the data has " + counted(t.Rows, "flow", "flows") + "; the largest " + grouped(maxFlows) +
		" are drawn and the " + grouped(t.Rows-maxFlows) + " smaller ones left out"
	st, sr := subset(t, r, keep)
	return st, sr, []dataset.Notice{{Code: NoticeAggregated, Message: msg}}
}

// subset is t restricted to rows (in that order), with the roles pointing
// at the new columns.
func subset(t *dataset.Table, r roleColumns, rows []int) (*dataset.Table, roleColumns) {
	out := &dataset.Table{Columns: make([]*dataset.Column, len(t.Columns)), Rows: len(rows)}
	moved := make(map[*dataset.Column]*dataset.Column, len(t.Columns))
	for j, c := range t.Columns {
		nc := *c
		if c.Kind == dataset.Text {
			nc.Text = make([]string, len(rows))
			for k, i := range rows {
				nc.Text[k] = c.Text[i]
			}
		} else {
			nc.Num = make([]float64, len(rows))
			for k, i := range rows {
				nc.Num[k] = c.Num[i]
			}
		}
		out.Columns[j] = &nc
		moved[c] = &nc
	}
	nr := make(roleColumns, len(r))
	for role, cols := range r {
		for _, c := range cols {
			nr[role] = append(nr[role], moved[c])
		}
	}
	return out, nr
}

// counted is "1 row" or "1,234 rows": a count in a notice, with thousands
// separators as the picture's numbers have them.
func counted(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return grouped(n) + " " + many
}

// grouped writes n with thousands separators.
func grouped(n int) string { return string(appendNumber(nil, float64(n), 0, "", "", nil)) }
