package chartspec

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"chartd.dev/libs/dataset"
)

// histogramOutlier finds a few values so far from the rest that the bins,
// which must reach them, squeeze every other value into a few bars: one
// income of 5,000 beside sixty from 20 to 80.
func (c *lintCtx) histogramOutlier() {
	if c.spec.Type != "histogram" {
		return
	}
	v := c.numCol("value")
	if v == nil {
		return
	}
	var vals []float64
	for _, x := range v.Num[:c.t.Rows] {
		if finite(x) {
			vals = append(vals, x)
		}
	}
	if len(vals) < 10 {
		return
	}
	slices.Sort(vals)
	q1, q3 := sortedQuantile(vals, 0.25), sortedQuantile(vals, 0.75)
	iqr := q3 - q1
	if iqr <= 0 {
		return
	}
	lo, hi := q1-OutlierIQRs*iqr, q3+OutlierIQRs*iqr
	var below, above int
	for _, x := range vals {
		switch {
		case x < lo:
			below++
		case x > hi:
			above++
		}
	}
	far := below + above
	if far == 0 || far > max(1, len(vals)/50) {
		return // none, or too many to be a slip: a long tail is data
	}
	rest := vals[below : len(vals)-above]
	span := vals[len(vals)-1] - vals[0]
	if span <= 0 || (rest[len(rest)-1]-rest[0])/span >= OutlierSquash {
		return
	}
	var outs []string
	for _, x := range append(slices.Clone(vals[:below]), vals[len(vals)-above:]...) {
		if len(outs) == 3 {
			outs = append(outs, "…")
			break
		}
		outs = append(outs, formatNum(x))
	}
	op, bound := "lte", rest[len(rest)-1]
	if above == 0 {
		op, bound = "gte", rest[0]
	}
	fix := fmt.Sprintf(`{"op":"addTransform","transform":{"type":"filter","column":%q,"operator":%q,"value":%s}}`, v.ID, op, formatNum(bound))
	if below > 0 && above > 0 {
		fix = fmt.Sprintf(`{"op":"addTransform","transform":{"type":"filter","column":%q,"operator":"gte","value":%s}} and {"op":"addTransform","transform":{"type":"filter","column":%q,"operator":"lte","value":%s}}`,
			v.ID, formatNum(rest[0]), v.ID, formatNum(rest[len(rest)-1]))
	}
	c.add(CheckHistogramOutlier, Warn, `%d value%s of %s, %s, lie%s far from the other %d (%s to %s), so the bins stretch to reach %s and squeeze the rest into a few bars. Leave %s out with %s and say so in a note (setFooter), or show the spread with outliers marked as a box plot: {"op":"setType","type":"boxplot"}.`,
		far, plural(far), colLabel(v), strings.Join(outs, ", "), singularS(far), len(rest), formatNum(rest[0]), formatNum(rest[len(rest)-1]), itThem(far), itThem(far), fix)
}

// singularS is the verb ending for a count: "lies" for one, "lie" for more.
func singularS(n int) string {
	if n == 1 {
		return "s"
	}
	return ""
}

// sortedQuantile is the p-quantile of sorted values, by linear
// interpolation (type 7, as the box plot draws it).
func sortedQuantile(sorted []float64, p float64) float64 {
	h := p * float64(len(sorted)-1)
	i := int(math.Floor(h))
	if i+1 >= len(sorted) {
		return sorted[len(sorted)-1]
	}
	return sorted[i] + (h-float64(i))*(sorted[i+1]-sorted[i])
}

// percentNegative: bars stacked to 100 % share out each bar's total, and a
// negative value has no share of one; the stack misstates both.
func (c *lintCtx) percentNegative() {
	if c.spec.Type != "bar" {
		return
	}
	if stack, _ := c.spec.Options["stack"].(string); stack != "percent" {
		return
	}
	neg := 0
	var in []string
	for _, col := range c.t.ColumnsByID(c.spec.Mapping.Cols("values")) {
		if col == nil || col.Kind != dataset.Number {
			continue
		}
		n := 0
		for _, x := range col.Num[:c.t.Rows] {
			if x < 0 {
				n++
			}
		}
		if n > 0 {
			neg += n
			in = append(in, colLabel(col))
		}
	}
	if neg == 0 {
		return
	}
	c.add(CheckPercentNegative, Warn, `%d value%s below zero (in %s) %s stacked to 100 %%, but a share of a total cannot be negative, so the bars' parts no longer add up to what they show. Stack the amounts instead with {"op":"setVariants","variants":{"bar":{"stack":"stacked"}}}, or set them side by side: {"op":"setVariants","variants":{"bar":{"stack":"none"}}}.`,
		neg, plural(neg), joinSome(in[:min(len(in), listedAtMost)], len(in)), isAre(neg))
}

// heatmapWide: a wide table (a row name and a number column per grid
// column, a correlation matrix) mapped as long form, one row per cell,
// takes one number column as a row or column name and colours another, so
// most cells are empty and the other columns are left out.
func (c *lintCtx) heatmapWide() {
	if c.spec.Type != "heatmap" || WideHeatmap(c.spec.Mapping) {
		return
	}
	wide := HeatmapMapping(c.t)
	if !WideHeatmap(wide) || len(wide.Cols("value")) < 2 {
		return
	}
	measures := wide.Cols("value")
	misread := false
	for _, role := range []string{"x", "y"} {
		if col := c.col(role); col != nil && slices.Contains(measures, col.ID) {
			misread = true
		}
	}
	if !misread {
		return
	}
	label, _ := c.t.Column(wide.Col("y"))
	names := make([]string, 0, len(measures))
	for _, col := range c.t.ColumnsByID(measures) {
		names = append(names, col.Name)
	}
	c.add(CheckHeatmapWide, Warn, `The data is a wide table, one row per %s and a number column for each column of the grid (%s), but the heatmap reads it as one row per cell, with a number column as x or y: most cells are empty and some columns are left out. Map it as rows × columns with {"op":"setMapping","mapping":{"y":%q,"value":%s,"x":null}}.`,
		colLabel(label), joinSome(names[:min(len(names), listedAtMost)], len(names)), label.ID, idList(measures))
}
