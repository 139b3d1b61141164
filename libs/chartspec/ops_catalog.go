package chartspec

import (
	"strings"
)

// CatalogText is the compact op reference get_op_catalog serves as
// "catalog": one line per op with its fields and a one-line example, then
// the options and roles of each chart type and the step types, which is
// what an AI assistant needs to write ops without further lookups.
func (o *Ops) CatalogText() string {
	var b strings.Builder
	b.WriteString("Ops edit a chart; send them as {\"ops\":[…]} to apply_ops (or with create_chart). They apply in order, all or none. " +
		"Columns are named by id (c1, c2, … as in the chart's columns or columnsAfterSteps). In fields, ? marks optional, | separates choices, null clears.\n")
	for _, d := range o.defs {
		b.WriteString(d.name)
		b.WriteByte(' ')
		b.WriteString(d.schema.objectSig(map[string]bool{"op": true}))
		b.WriteString(" — ")
		b.WriteString(d.about)
		b.WriteString(". e.g. ")
		b.WriteString(d.example)
		b.WriteByte('\n')
	}
	b.WriteString("Options by type (setVariants):")
	for _, ct := range o.cat.Types() {
		var opts []string
		for _, opt := range ct.Options {
			opts = append(opts, opt.Name+" "+optionSchema(opt).signature())
		}
		b.WriteString(" " + ct.Type + ": " + listOrNone(opts) + ";")
	}
	b.WriteString("\nRoles by type (setMapping; [] takes a list, ? optional):")
	for _, ct := range o.cat.Types() {
		b.WriteString(" " + ct.Type + ": " + roleList(ct) + ";")
	}
	b.WriteString("\nSteps (addTransform transform): sort {column, direction?:\"asc\"|\"desc\"}; topN {n, column?} keeps the n largest and sums the rest into \"Other\"; " +
		"filter {column, operator:eq|ne|gt|gte|lt|lte|contains|in, value}; aggregate {groupBy?:[ids], measures:[{column, fn:sum|mean|median|count|min|max}]}; limit {n}; " +
		"unpivot {columns:[ids], nameColumn?, valueColumn?}; dateBucket {column, unit:day|week|month|quarter|year}; kind {column, kind:text|number|date} reads a column again as another kind.\n")
	return b.String()
}
