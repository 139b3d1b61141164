package draw

import (
	"fmt"
	"slices"
	"strings"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// roleRule says which columns fit one role of a chart type, best kind first.
type roleRule struct {
	name     string
	label    string // how the role is named in error messages
	multi    bool
	required bool
	kinds    []dataset.Kind
	// numeric roles take numbers, and a year column as the years themselves
	// (chartspec.Fits): a year on a scatter's x stays a date axis, elsewhere
	// it is drawn as numbers (dataset.Column.AsYearNumbers).
	numeric bool
	// guess picks an optional role automatically only when the column looks
	// right for it (scatter groups, boxplot groups).
	guess func(c *dataset.Column, rows int) bool
}

// roleRules lists a chart type's roles in the order they are filled; the
// catalog (charts/types.json) names the same roles.
func roleRules(chartType string) []roleRule {
	const (
		T = dataset.Text
		N = dataset.Number
		D = dataset.Date
	)
	cat := []dataset.Kind{T, D, N}
	nums := []dataset.Kind{N}
	switch chartType {
	case "bar":
		return []roleRule{{name: "category", label: "category", required: true, kinds: cat},
			{name: "values", label: "values", multi: true, required: true, kinds: nums, numeric: true}}
	case "line":
		return []roleRule{{name: "x", label: "x axis", required: true, kinds: []dataset.Kind{D, T, N}},
			{name: "values", label: "values", multi: true, required: true, kinds: nums, numeric: true}}
	case "pie":
		return []roleRule{{name: "label", label: "slice label", required: true, kinds: cat},
			{name: "value", label: "slice value", required: true, kinds: nums, numeric: true}}
	case "scatter":
		return []roleRule{{name: "x", label: "x", required: true, kinds: nums, numeric: true},
			{name: "y", label: "y", required: true, kinds: nums, numeric: true},
			{name: "size", label: "size", kinds: nums, numeric: true, guess: func(c *dataset.Column, _ int) bool { return chartspec.SizeLike(c.Name) }},
			{name: "group", label: "group", kinds: []dataset.Kind{T}, guess: fewDistinct(12)}}
	case "histogram":
		return []roleRule{{name: "value", label: "value", required: true, kinds: nums, numeric: true}}
	case "boxplot":
		return []roleRule{{name: "group", label: "group", kinds: cat, guess: fewDistinct(100)},
			{name: "value", label: "value", required: true, kinds: nums, numeric: true}}
	case "dotplot":
		return []roleRule{{name: "category", label: "category", required: true, kinds: cat},
			{name: "values", label: "values", multi: true, required: true, kinds: nums, numeric: true}}
	case "sankey":
		return []roleRule{{name: "source", label: "source", required: true, kinds: cat},
			{name: "target", label: "target", required: true, kinds: cat},
			{name: "value", label: "flow value", required: true, kinds: nums, numeric: true}}
	case "radar":
		return []roleRule{{name: "axis", label: "axis", required: true, kinds: cat},
			{name: "values", label: "values", multi: true, required: true, kinds: nums, numeric: true}}
	case "heatmap":
		return []roleRule{{name: "x", label: "x", kinds: cat},
			{name: "y", label: "y", required: true, kinds: cat},
			{name: "value", label: "cell value", multi: true, required: true, kinds: nums, numeric: true}}
	}
	return nil
}

// fewDistinct accepts a text column with 2..n distinct values, fewer than
// the rows (a column of unique names is no grouping).
func fewDistinct(n int) func(c *dataset.Column, rows int) bool {
	return func(c *dataset.Column, rows int) bool {
		seen := map[string]bool{}
		for i := 0; i < rows; i++ {
			v := c.Format(i)
			if v == "" {
				continue
			}
			seen[v] = true
			if len(seen) > n {
				return false
			}
		}
		if len(seen) > 12 {
			return len(seen)*2 <= rows // many groups must each hold a few rows
		}
		return len(seen) >= 2 && len(seen) < rows
	}
}

// AutoMapping completes no mapping at all: it picks a column for every role
// of chartType from the table (first text column as category, the number
// columns as values, …), the same choice SVG makes for roles a spec leaves
// unmapped. Services reuse it to show what a chart without mapping draws.
func AutoMapping(chartType string, t *dataset.Table) chartspec.Mapping {
	roles, _ := resolveRoles(chartType, nil, t)
	return roles.mapping(chartType)
}

// roleColumns is a resolved mapping: role → the columns drawn for it.
type roleColumns map[string][]*dataset.Column

// one answers the single column of a role, or nil.
func (r roleColumns) one(role string) *dataset.Column {
	if cs := r[role]; len(cs) > 0 {
		return cs[0]
	}
	return nil
}

// mapping writes the resolved roles back as a chartspec mapping.
func (r roleColumns) mapping(chartType string) chartspec.Mapping {
	m := chartspec.Mapping{}
	for _, rule := range roleRules(chartType) {
		cols := r[rule.name]
		if len(cols) == 0 {
			continue
		}
		ids := make([]string, len(cols))
		for i, c := range cols {
			ids[i] = c.ID
		}
		if rule.multi {
			m[rule.name] = chartspec.Many(ids...)
		} else {
			m[rule.name] = chartspec.One(ids[0])
		}
	}
	return m
}

// resolveRoles keeps the mapped columns that exist and fit their role and
// fills every role left empty from unused columns. It fails only when a
// required role finds no column at all, saying which kind is missing.
func resolveRoles(chartType string, given chartspec.Mapping, t *dataset.Table) (roleColumns, error) {
	rules := roleRules(chartType)
	if rules == nil {
		return nil, fmt.Errorf("unknown chart type %q; use one of bar, line, pie, scatter, histogram, boxplot, dotplot, sankey, radar, heatmap", chartType)
	}
	if chartType == "heatmap" && given.Col("x") == "" && given.Col("y") == "" && given.Col("value") == "" {
		given = chartspec.HeatmapMapping(t) // rows × columns or long, by the data's shape
	}
	out := roleColumns{}
	used := map[*dataset.Column]bool{}
	fits := func(rule roleRule, c *dataset.Column) bool {
		return slices.Contains(rule.kinds, c.Kind) || (rule.numeric && c.IsYears())
	}
	// mapped columns first, so automatic picks never take them
	for _, rule := range rules {
		for _, id := range given.Cols(rule.name) {
			c, ok := t.Column(id)
			if !ok || !fits(rule, c) || (used[c] && !rule.multi) {
				continue
			}
			out[rule.name] = append(out[rule.name], c)
			used[c] = true
			if !rule.multi {
				break
			}
		}
	}
	// starves reports whether taking c would leave a later required role
	// with no column at all.
	starves := func(later []roleRule, c *dataset.Column) bool {
		for _, r := range later {
			if !r.required || len(out[r.name]) > 0 || !fits(r, c) {
				continue
			}
			left := 0
			for _, o := range t.Columns {
				if o != c && !used[o] && fits(r, o) {
					left++
				}
			}
			if left == 0 {
				return true
			}
		}
		return false
	}
	for ri, rule := range rules {
		if len(out[rule.name]) > 0 {
			continue
		}
		if !rule.required {
			// an optional role the spec names (even as null) is the person's choice
			if _, named := given[rule.name]; named || rule.guess == nil {
				continue
			}
		}
		if chartType == "line" && rule.name == "x" {
			// by meaning: a date, a number in order, a text, then any number
			if x := chartspec.PickLineX(t, func(c *dataset.Column) bool { return used[c] || starves(rules[ri+1:], c) }); x != nil {
				out[rule.name] = []*dataset.Column{x}
				used[x] = true
				continue
			}
		}
		if chartType == "scatter" && rule.name == "x" {
			// Year,Temp: the years run along x, the one measure up y
			size := ""
			if s := out.one("size"); s != nil {
				size = s.ID
			}
			if chartspec.YearsAlong(t, size) {
				for _, c := range t.Columns {
					if !used[c] && c.IsYears() && !starves(rules[ri+1:], c) {
						out[rule.name] = []*dataset.Column{c}
						used[c] = true
						break
					}
				}
				if len(out[rule.name]) > 0 {
					continue
				}
			}
		}
	pick:
		for class := range rule.classes() {
			for _, c := range t.Columns {
				if used[c] || !rule.inClass(class, c) || (rule.guess != nil && !rule.guess(c, t.Rows)) || starves(rules[ri+1:], c) {
					continue
				}
				out[rule.name] = append(out[rule.name], c)
				used[c] = true
				if !rule.multi {
					break pick
				}
			}
			if rule.multi && len(out[rule.name]) > 0 {
				break
			}
		}
		if rule.required && len(out[rule.name]) == 0 {
			return nil, missingRole(chartType, rule, t)
		}
	}
	if chartType == "heatmap" {
		if x := out.one("x"); x != nil && len(given.Cols("value")) == 0 {
			out["value"] = out["value"][:1] // long form: one value beside x and y
		}
		if len(out["value"]) > 1 {
			delete(out, "x") // rows × columns: each value column is a grid column
		}
	}
	return out, nil
}

// classes is how many classes of column the rule takes, best first (see
// inClass), the order chartspec.roleClasses gives the catalog's roles.
func (r roleRule) classes() int {
	if r.numeric {
		return 3
	}
	n := len(r.kinds)
	if slices.Contains(r.kinds, dataset.Number) {
		n++
	}
	return n
}

// inClass reports whether c is of the rule's class k: for a number role
// measures, then year columns, then identifiers; for another role its
// kinds in order, identifiers ("ID", "No.") before other numbers.
func (r roleRule) inClass(k int, c *dataset.Column) bool {
	if r.numeric {
		switch k {
		case 0:
			return c.Kind == dataset.Number && !chartspec.Identifier(c)
		case 1:
			return c.IsYears()
		}
		return chartspec.Identifier(c)
	}
	for _, kind := range r.kinds {
		if kind == dataset.Number {
			if k == 0 {
				return chartspec.Identifier(c)
			}
			k--
		}
		if k == 0 {
			return c.Kind == kind
		}
		k--
	}
	return false
}

// asNumbers turns the year columns of a resolved mapping into numbers
// (1848, 2024) wherever a role takes numbers; a scatter's x keeps its
// years as a date axis, as a line's x does.
func (r roleColumns) asNumbers(chartType string) {
	years := false
	for _, cols := range r {
		years = years || slices.ContainsFunc(cols, (*dataset.Column).IsYears)
	}
	if !years {
		return
	}
	for _, rule := range roleRules(chartType) {
		if !rule.numeric || (chartType == "scatter" && rule.name == "x") {
			continue
		}
		for i, c := range r[rule.name] {
			r[rule.name][i] = c.AsYearNumbers()
		}
	}
}

// missingRole explains which column a chart still needs.
func missingRole(chartType string, rule roleRule, t *dataset.Table) error {
	kinds := make([]string, len(rule.kinds))
	for i, k := range rule.kinds {
		kinds[i] = string(k)
	}
	have := make([]string, 0, len(t.Columns))
	for _, c := range t.Columns {
		have = append(have, fmt.Sprintf("%q (%s)", c.Name, c.Kind))
	}
	data := "the data has no columns"
	if len(have) > 0 {
		data = "the data has " + strings.Join(have, ", ")
	}
	return fmt.Errorf("a %s chart needs a %s column for its %s role (%s); %s: add such a column or change the chart type",
		chartType, strings.Join(kinds, " or "), rule.label, rule.name, data)
}

// NoticeColumnNotDrawn is the code of the notice naming the columns of the
// data the picture leaves out, and why: a column that vanishes without a
// word reads as drawn (an "Index" beside a benchmark, a poll's "No").
const NoticeColumnNotDrawn = "column_not_drawn"

// maxNamed is the most columns one notDrawn notice names one by one.
const maxNamed = 5

// maxNamedPoints is the most scatter points drawLabels names.
const maxNamedPoints = 100

// notDrawn says which columns of t the resolved roles leave out and why,
// one notice per reason: mapped to a role that does not take them, row
// ids (chartspec.Identifier, chartspec.RowCount), left out by the mapping, or no role left.
// A scatter's point names (scatterNames) are drawn when labels are on.
func notDrawn(chartType string, given chartspec.Mapping, st *chartspec.Style, t *dataset.Table, roles roleColumns) []dataset.Notice {
	var named *dataset.Column
	if chartType == "scatter" && st.Labels.Show && t.Rows <= maxNamedPoints {
		named = scatterNames(t, roles.one("group"))
	}
	drawn := func(c *dataset.Column) bool {
		if c == named {
			return true
		}
		for _, cs := range roles {
			if slices.Contains(cs, c) {
				return true
			}
		}
		return false
	}
	var rules []roleRule
	var reasons []string
	var left map[string][]string
	for _, c := range t.Columns {
		if drawn(c) {
			continue
		}
		if left == nil {
			rules, left = roleRules(chartType), map[string][]string{}
		}
		why := ""
		for _, rule := range rules {
			if !slices.Contains(given.Cols(rule.name), c.ID) {
				continue
			}
			if !slices.Contains(rule.kinds, c.Kind) {
				why = fmt.Sprintf("the %s takes %s columns, not %s", rule.label, kindList(rule.kinds), c.Kind)
			} else {
				why = fmt.Sprintf("the %s takes one column", rule.label)
			}
			break
		}
		switch {
		case why != "":
		case chartspec.Identifier(c) || chartspec.RowCount(c):
			why = "ids of the rows, not measures; setMapping maps any column"
		case len(given) > 0:
			why = "not in the mapping; setMapping adds columns"
		default:
			why = fmt.Sprintf("this chart has no role left for another %s column; setMapping chooses the columns", c.Kind)
		}
		if _, ok := left[why]; !ok {
			reasons = append(reasons, why)
		}
		left[why] = append(left[why], fmt.Sprintf("%s (%q)", c.ID, c.Name))
	}
	var out []dataset.Notice
	for _, why := range reasons {
		cols := left[why]
		names := strings.Join(cols[:min(len(cols), maxNamed)], ", ")
		if len(cols) > maxNamed {
			names += fmt.Sprintf(" and %d more", len(cols)-maxNamed)
		}
		verb := "is"
		if len(cols) > 1 {
			verb = "are"
		}
		out = append(out, dataset.Notice{Code: NoticeColumnNotDrawn, Message: fmt.Sprintf("%s %s not drawn: %s", names, verb, why)})
	}
	return out
}

// kindList names column kinds for a sentence: "text, date or number".
func kindList(kinds []dataset.Kind) string {
	s := make([]string, len(kinds))
	for i, k := range kinds {
		s[i] = string(k)
	}
	if len(s) < 2 {
		return strings.Join(s, "")
	}
	return strings.Join(s[:len(s)-1], ", ") + " or " + s[len(s)-1]
}
