package dataset

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// SortStep orders rows by one column, asc (the default) or desc; ties keep
// their order and blanks go last.
type SortStep struct {
	Type      string `json:"type"`
	Column    string `json:"column"`
	Direction string `json:"direction,omitempty"`
}

// StepType is "sort".
func (s *SortStep) StepType() string { return "sort" }

// MarshalJSON writes the step with its type set.
func (s SortStep) MarshalJSON() ([]byte, error) {
	type plain SortStep
	s.Type = "sort"
	return json.Marshal(plain(s))
}

// Validate checks the column exists and the direction is asc or desc.
func (s *SortStep) Validate(t *Table) error {
	if _, err := needColumn(t, "column", s.Column); err != nil {
		return err
	}
	if s.Direction != "" && s.Direction != "asc" && s.Direction != "desc" {
		return fieldErrorf("direction", "must be asc or desc; got %q", s.Direction)
	}
	return nil
}

// Apply sorts a copy of t.
func (s *SortStep) Apply(t *Table, _ Defaults) (*Table, error) {
	if err := s.Validate(t); err != nil {
		return nil, err
	}
	c, _ := t.Column(s.Column)
	return gather(t, sortedOrder(c, t.Rows, s.Direction == "desc")), nil
}

// TopNStep keeps the n rows with the largest values of a number column (in
// descending order) and sums the rest into one "Other" row: text columns
// read "Other", number columns hold the sums, date columns are blank.
type TopNStep struct {
	Type string `json:"type"`
	N    int    `json:"n"`
	// Column is the value column to rank by; empty means Defaults.ValueColumn.
	Column string `json:"column,omitempty"`
}

// OtherLabel is the text of the row topN sums the rest into.
const OtherLabel = "Other"

// StepType is "topN".
func (s *TopNStep) StepType() string { return "topN" }

// MarshalJSON writes the step with its type set.
func (s TopNStep) MarshalJSON() ([]byte, error) {
	type plain TopNStep
	s.Type = "topN"
	return json.Marshal(plain(s))
}

// Validate checks n and, when given, the column.
func (s *TopNStep) Validate(t *Table) error {
	if s.N < 1 || s.N > maxStepN {
		return fieldErrorf("n", "must be a whole number from 1 to %d; got %d", maxStepN, s.N)
	}
	if s.Column != "" {
		if _, err := needKind(t, "column", s.Column, "topN", Number); err != nil {
			return err
		}
	}
	return nil
}

// Apply ranks by the step's column or d.ValueColumn.
func (s *TopNStep) Apply(t *Table, d Defaults) (*Table, error) {
	if err := s.Validate(t); err != nil {
		return nil, err
	}
	id := s.Column
	if id == "" {
		id = d.ValueColumn
	}
	if id == "" {
		return nil, fieldErrorf("column", "required here: name the number column to rank by, one of %s", columnsOfKind(t, Number))
	}
	vc, err := needKind(t, "column", id, "topN", Number)
	if err != nil {
		return nil, err
	}
	if t.Rows <= s.N {
		return gather(t, sortedOrder(vc, t.Rows, true)), nil
	}
	order := sortedOrder(vc, t.Rows, true)
	keep, rest := order[:s.N], order[s.N:]
	out := gather(t, keep)
	out.Rows++
	for j, c := range out.Columns {
		src := t.Columns[j]
		switch c.Kind {
		case Text:
			c.Text = append(c.Text, OtherLabel)
		case Number:
			sum, any := 0.0, false
			for _, i := range rest {
				if v := src.Num[i]; v == v {
					sum, any = sum+v, true
				}
			}
			if !any {
				sum = math.NaN()
			}
			c.Num = append(c.Num, sum)
		default:
			c.Num = append(c.Num, math.NaN())
		}
	}
	return out, nil
}

// filterOperators lists the allowed values of filter's operator.
func filterOperators() []string {
	return []string{"eq", "ne", "gt", "gte", "lt", "lte", "contains", "in"}
}

// FilterStep keeps the rows whose cell in Column compares true with Value.
// Value null with eq/ne (or inside an in list) matches blank cells; ne
// keeps blanks; gt/gte/lt/lte never match blanks; contains is
// case-insensitive and only for text.
type FilterStep struct {
	Type     string `json:"type"`
	Column   string `json:"column"`
	Operator string `json:"operator"`
	Value    any    `json:"value"`
}

// StepType is "filter".
func (s *FilterStep) StepType() string { return "filter" }

// MarshalJSON writes the step with its type set.
func (s FilterStep) MarshalJSON() ([]byte, error) {
	type plain FilterStep
	s.Type = "filter"
	return json.Marshal(plain(s))
}

// filterValue is one comparison value in the column's terms.
type filterValue struct {
	blank bool
	num   float64
	text  string
}

// Validate checks the column, the operator and that the value fits the column's kind.
func (s *FilterStep) Validate(t *Table) error {
	_, _, err := s.prepare(t)
	return err
}

// prepare validates and converts the value(s) to the column's kind.
func (s *FilterStep) prepare(t *Table) (*Column, []filterValue, error) {
	c, err := needColumn(t, "column", s.Column)
	if err != nil {
		return nil, nil, err
	}
	if !slices.Contains(filterOperators(), s.Operator) {
		return nil, nil, fieldErrorf("operator", "must be one of %s; got %q", strings.Join(filterOperators(), ", "), s.Operator)
	}
	if s.Operator == "contains" && c.Kind != Text {
		return nil, nil, fieldErrorf("operator", "contains works on text columns; %s is a %s column (use eq, ne, gt, gte, lt, lte or in)", label(c), c.Kind)
	}
	var raw []any
	if s.Operator == "in" {
		list, ok := s.Value.([]any)
		if !ok || len(list) == 0 {
			return nil, nil, fieldErrorf("value", "must be a non-empty array of values for in, such as [\"France\", \"Spain\"]")
		}
		raw = list
	} else {
		if _, ok := s.Value.([]any); ok {
			return nil, nil, fieldErrorf("value", "must be a single value for %s; only in takes an array", s.Operator)
		}
		if s.Value == nil && s.Operator != "eq" && s.Operator != "ne" {
			return nil, nil, fieldErrorf("value", "null (a blank cell) works only with eq, ne and in; give a value for %s", s.Operator)
		}
		raw = []any{s.Value}
	}
	vals := make([]filterValue, len(raw))
	for i, v := range raw {
		field := "value"
		if s.Operator == "in" {
			field = fmt.Sprintf("value[%d]", i)
		}
		fv, err := toFilterValue(c, field, v)
		if err != nil {
			return nil, nil, err
		}
		vals[i] = fv
	}
	return c, vals, nil
}

// toFilterValue converts a JSON value to the column's kind.
func toFilterValue(c *Column, field string, v any) (filterValue, error) {
	if v == nil {
		return filterValue{blank: true}, nil
	}
	var text string
	switch x := v.(type) {
	case string:
		text = x
	case json.Number:
		text = x.String()
	case float64:
		text = formatNumber(x)
	case int:
		text = strconv.Itoa(x)
	case bool:
		text = strconv.FormatBool(x)
	default:
		return filterValue{}, fieldErrorf(field, "must be a string, number, boolean or null")
	}
	switch c.Kind {
	case Number:
		if f, ok := filterNumber(text); ok {
			return filterValue{num: f}, nil
		}
		return filterValue{}, fieldErrorf(field, "%s holds numbers; give a number, got %q", label(c), text)
	case Date:
		if ms, ok := filterDate(text); ok {
			return filterValue{num: float64(ms)}, nil
		}
		return filterValue{}, fieldErrorf(field, "%s holds dates; give an ISO date such as \"2024-03-01\", \"2024-03\" or \"2024\", got %q", label(c), text)
	}
	return filterValue{text: text}, nil
}

func filterNumber(s string) (float64, bool) {
	sh, ok := parseNumShape(strings.TrimSpace(s))
	if !ok {
		return 0, false
	}
	v, ok, _ := interpret(sh.body, false)
	if sh.neg {
		v = -v
	}
	return v, ok
}

func filterDate(s string) (int64, bool) {
	s = strings.TrimSpace(s)
	if y, ok := digitsAt(s, 0, 4); ok && len(s) == 4 {
		return daysFromCivil(y, 1, 1) * msPerDay, true
	}
	ms, _, ok := parseDateDefinite(s)
	return ms, ok
}

// Apply keeps the matching rows.
func (s *FilterStep) Apply(t *Table, _ Defaults) (*Table, error) {
	c, vals, err := s.prepare(t)
	if err != nil {
		return nil, err
	}
	var match func(i int) bool
	if c.Kind == Text {
		match = textMatcher(c, s.Operator, vals)
	} else {
		match = numMatcher(c, s.Operator, vals)
	}
	idx := make([]int32, 0, t.Rows)
	for i := 0; i < t.Rows; i++ {
		if match(i) {
			idx = append(idx, int32(i))
		}
	}
	return gather(t, idx), nil
}

func numMatcher(c *Column, op string, vals []filterValue) func(int) bool {
	v := vals[0]
	if v.blank {
		return func(i int) bool { return (c.Num[i] != c.Num[i]) == (op == "eq") }
	}
	x := v.num
	switch op {
	case "eq":
		return func(i int) bool { return c.Num[i] == x }
	case "ne":
		return func(i int) bool { return c.Num[i] != x }
	case "gt":
		return func(i int) bool { return c.Num[i] > x }
	case "gte":
		return func(i int) bool { return c.Num[i] >= x }
	case "lt":
		return func(i int) bool { return c.Num[i] < x }
	case "lte":
		return func(i int) bool { return c.Num[i] <= x }
	}
	return func(i int) bool {
		cell := c.Num[i]
		for _, v := range vals {
			if (v.blank && cell != cell) || (!v.blank && cell == v.num) {
				return true
			}
		}
		return false
	}
}

func textMatcher(c *Column, op string, vals []filterValue) func(int) bool {
	v := vals[0]
	if v.blank {
		return func(i int) bool { return (c.Text[i] == "") == (op == "eq") }
	}
	x := v.text
	switch op {
	case "eq":
		return func(i int) bool { return c.Text[i] == x }
	case "ne":
		return func(i int) bool { return c.Text[i] != x }
	case "gt":
		return func(i int) bool { return c.Text[i] != "" && compareText(c.Text[i], x) > 0 }
	case "gte":
		return func(i int) bool { return c.Text[i] != "" && compareText(c.Text[i], x) >= 0 }
	case "lt":
		return func(i int) bool { return c.Text[i] != "" && compareText(c.Text[i], x) < 0 }
	case "lte":
		return func(i int) bool { return c.Text[i] != "" && compareText(c.Text[i], x) <= 0 }
	case "contains":
		needle := strings.ToLower(x)
		memo := map[string]bool{}
		return func(i int) bool {
			cell := c.Text[i]
			m, ok := memo[cell]
			if !ok {
				m = strings.Contains(strings.ToLower(cell), needle)
				if len(memo) < 100_000 {
					memo[cell] = m
				}
			}
			return m
		}
	}
	set := map[string]bool{}
	for _, v := range vals {
		if v.blank {
			set[""] = true
		} else {
			set[v.text] = true
		}
	}
	return func(i int) bool { return set[c.Text[i]] }
}

// aggregateFns lists the allowed values of a measure's fn.
func aggregateFns() []string { return []string{"sum", "mean", "median", "count", "min", "max"} }

// Measure is one computed column of an aggregate: fn over column. count
// without a column counts rows; with one, its non-blank cells.
type Measure struct {
	Column string `json:"column,omitempty"`
	Fn     string `json:"fn"`
}

// AggregateStep groups rows by the groupBy columns (in order of first
// appearance; none means one row for the whole table) and computes the
// measures per group, ignoring blanks. Group columns keep their ids;
// measure columns get fresh ids and names like "Sales (sum)".
type AggregateStep struct {
	Type     string    `json:"type"`
	GroupBy  []string  `json:"groupBy,omitempty"`
	Measures []Measure `json:"measures"`
}

// StepType is "aggregate".
func (s *AggregateStep) StepType() string { return "aggregate" }

// MarshalJSON writes the step with its type set.
func (s AggregateStep) MarshalJSON() ([]byte, error) {
	type plain AggregateStep
	s.Type = "aggregate"
	return json.Marshal(plain(s))
}

// Validate checks group columns and that every measure suits its column's kind.
func (s *AggregateStep) Validate(t *Table) error {
	seen := map[string]bool{}
	for i, id := range s.GroupBy {
		field := fmt.Sprintf("groupBy[%d]", i)
		if _, err := needColumn(t, field, id); err != nil {
			return err
		}
		if seen[id] {
			return fieldErrorf(field, "%s is listed twice", id)
		}
		seen[id] = true
	}
	if len(s.Measures) == 0 {
		return fieldErrorf("measures", `must list at least one measure like {"column":"c2","fn":"sum"}`)
	}
	for i, m := range s.Measures {
		field := fmt.Sprintf("measures[%d]", i)
		if !slices.Contains(aggregateFns(), m.Fn) {
			return fieldErrorf(field+".fn", "must be one of %s; got %q", strings.Join(aggregateFns(), ", "), m.Fn)
		}
		if m.Fn == "count" && m.Column == "" {
			continue
		}
		c, err := needColumn(t, field+".column", m.Column)
		if err != nil {
			return err
		}
		switch {
		case m.Fn == "count":
		case (m.Fn == "min" || m.Fn == "max") && c.Kind == Date:
		case c.Kind != Number:
			return fieldErrorf(field+".column", "%s is a %s column; %s needs a number column (%s); use count for any column",
				label(c), c.Kind, m.Fn, columnsOfKind(t, Number))
		}
	}
	return nil
}

// Apply groups and computes.
func (s *AggregateStep) Apply(t *Table, _ Defaults) (*Table, error) {
	if err := s.Validate(t); err != nil {
		return nil, err
	}
	groupOf, first := groupRows(t, s.GroupBy)
	groups := len(first)
	out := derive(t, groups)
	for _, id := range s.GroupBy {
		c, _ := t.Column(id)
		out.Columns = append(out.Columns, gatherColumn(c, first))
	}
	taken, next := takenNames(out), map[string]int{}
	for _, m := range s.Measures {
		var src *Column
		name := "Count"
		if m.Column != "" {
			src, _ = t.Column(m.Column)
			name = src.Name + " (" + m.Fn + ")"
		}
		kind := Number
		if src != nil && src.Kind == Date && (m.Fn == "min" || m.Fn == "max") {
			kind = Date
		}
		name = freeName(name, taken, next)
		col := freshColumn(out, name, kind)
		if kind == Date {
			col.DateUnit = src.DateUnit
		}
		if src != nil && kind == Number && m.Fn != "count" {
			col.Percent, col.Currency = src.Percent, src.Currency
		}
		col.Num = measure(m.Fn, src, t.Rows, groupOf, groups)
	}
	return out, nil
}

// takenNames lists the names already in out, so new names stay unique.
func takenNames(out *Table) map[string]bool {
	taken := map[string]bool{}
	for _, c := range out.Columns {
		taken[c.Name] = true
	}
	return taken
}

// groupRows gives each row its group number (in order of first appearance)
// and the first row of each group.
func groupRows(t *Table, by []string) (groupOf []int32, first []int32) {
	groupOf = make([]int32, t.Rows)
	if len(by) == 0 {
		return groupOf, []int32{0}
	}
	codes := make([][]uint32, len(by))
	for k, id := range by {
		c, _ := t.Column(id)
		codes[k] = valueCodes(c, t.Rows)
	}
	if len(by) == 1 {
		seen := map[uint32]int32{}
		for i, code := range codes[0] {
			g, ok := seen[code]
			if !ok {
				g = int32(len(first))
				seen[code] = g
				first = append(first, int32(i))
			}
			groupOf[i] = g
		}
		return groupOf, first
	}
	// combine column by column: group so far × next code
	partial := make([]uint32, t.Rows)
	copy(partial, codes[0])
	for k := 1; k < len(by); k++ {
		seen := map[uint64]uint32{}
		for i := range partial {
			key := uint64(partial[i])<<32 | uint64(codes[k][i])
			g, ok := seen[key]
			if !ok {
				g = uint32(len(seen))
				seen[key] = g
			}
			partial[i] = g
		}
	}
	seen := map[uint32]int32{}
	for i, code := range partial {
		g, ok := seen[code]
		if !ok {
			g = int32(len(first))
			seen[code] = g
			first = append(first, int32(i))
		}
		groupOf[i] = g
	}
	return groupOf, first
}

// valueCodes numbers the distinct values of a column (blanks are one value).
func valueCodes(c *Column, rows int) []uint32 {
	codes := make([]uint32, rows)
	if c.Kind == Text {
		ids := map[string]uint32{}
		last, lastID, have := "", uint32(0), false
		for i, v := range c.Text[:rows] {
			if have && v == last {
				codes[i] = lastID
				continue
			}
			id, ok := ids[v]
			if !ok {
				id = uint32(len(ids))
				ids[v] = id
			}
			codes[i], last, lastID, have = id, v, id, true
		}
		return codes
	}
	ids := map[uint64]uint32{}
	for i, v := range c.Num[:rows] {
		key := floatKey(v)
		if v != v {
			key = 0
		}
		id, ok := ids[key]
		if !ok {
			id = uint32(len(ids))
			ids[key] = id
		}
		codes[i] = id
	}
	return codes
}

// measure computes fn of src per group; blanks are ignored and a group
// without values gets a blank (count gets 0).
func measure(fn string, src *Column, rows int, groupOf []int32, groups int) []float64 {
	out := make([]float64, groups)
	if fn == "count" {
		for i, g := range groupOf[:rows] {
			if src == nil || !src.IsBlank(i) {
				out[g]++
			}
		}
		return out
	}
	vals := src.Num[:rows]
	if fn == "median" {
		return medians(vals, groupOf, groups)
	}
	n := make([]int, groups)
	for g := range out {
		switch fn {
		case "min":
			out[g] = math.Inf(1)
		case "max":
			out[g] = math.Inf(-1)
		}
	}
	for i, v := range vals {
		if v != v {
			continue
		}
		g := groupOf[i]
		n[g]++
		switch fn {
		case "sum", "mean":
			out[g] += v
		case "min":
			if v < out[g] {
				out[g] = v
			}
		case "max":
			if v > out[g] {
				out[g] = v
			}
		}
	}
	for g := range out {
		switch {
		case n[g] == 0:
			out[g] = math.NaN()
		case fn == "mean":
			out[g] /= float64(n[g])
		}
	}
	return out
}

// medians buckets values by group, then sorts each bucket.
func medians(vals []float64, groupOf []int32, groups int) []float64 {
	start := make([]int, groups+1)
	for i, v := range vals {
		if v == v {
			start[groupOf[i]+1]++
		}
	}
	for g := 0; g < groups; g++ {
		start[g+1] += start[g]
	}
	pos := slices.Clone(start[:groups])
	buf := make([]float64, start[groups])
	for i, v := range vals {
		if v == v {
			g := groupOf[i]
			buf[pos[g]] = v
			pos[g]++
		}
	}
	out := make([]float64, groups)
	for g := 0; g < groups; g++ {
		b := buf[start[g]:start[g+1]]
		switch len(b) {
		case 0:
			out[g] = math.NaN()
			continue
		}
		out[g] = median(b)
	}
	return out
}

// median of b (reordered in place) by selection, O(len(b)) on average.
func median(b []float64) float64 {
	k := len(b) / 2
	hi := selectKth(b, k)
	if len(b)%2 == 1 {
		return hi
	}
	// the lower middle is the largest value left of k
	lo := b[0]
	for _, v := range b[1:k] {
		lo = max(lo, v)
	}
	return (lo + hi) / 2
}

// selectKth reorders b so b[k] is the k-th smallest, smaller values before
// it and larger after, and returns b[k]. Small or stubborn ranges are sorted.
func selectKth(b []float64, k int) float64 {
	lo, hi := 0, len(b)-1
	for rounds := 0; hi-lo > 16; rounds++ {
		if rounds > 64 {
			slices.Sort(b[lo : hi+1])
			return b[k]
		}
		mid := lo + (hi-lo)/2
		// median of three as the pivot
		if b[mid] < b[lo] {
			b[mid], b[lo] = b[lo], b[mid]
		}
		if b[hi] < b[lo] {
			b[hi], b[lo] = b[lo], b[hi]
		}
		if b[hi] < b[mid] {
			b[hi], b[mid] = b[mid], b[hi]
		}
		p := b[mid]
		i, j := lo, hi
		for i <= j {
			for b[i] < p {
				i++
			}
			for b[j] > p {
				j--
			}
			if i <= j {
				b[i], b[j] = b[j], b[i]
				i++
				j--
			}
		}
		switch {
		case k <= j:
			hi = j
		case k >= i:
			lo = i
		default:
			return b[k]
		}
	}
	slices.Sort(b[lo : hi+1])
	return b[k]
}

// LimitStep keeps the first n rows.
type LimitStep struct {
	Type string `json:"type"`
	N    int    `json:"n"`
}

// StepType is "limit".
func (s *LimitStep) StepType() string { return "limit" }

// MarshalJSON writes the step with its type set.
func (s LimitStep) MarshalJSON() ([]byte, error) {
	type plain LimitStep
	s.Type = "limit"
	return json.Marshal(plain(s))
}

// Validate checks n.
func (s *LimitStep) Validate(*Table) error {
	if s.N < 1 || s.N > maxStepN {
		return fieldErrorf("n", "must be a whole number from 1 to %d; got %d", maxStepN, s.N)
	}
	return nil
}

// Apply cuts the table after n rows (sharing the input's storage).
func (s *LimitStep) Apply(t *Table, _ Defaults) (*Table, error) {
	if err := s.Validate(t); err != nil {
		return nil, err
	}
	n := min(s.N, t.Rows)
	out := derive(t, n)
	out.Columns = make([]*Column, len(t.Columns))
	for j, c := range t.Columns {
		cc := *c
		if c.Num != nil {
			cc.Num = c.Num[:n:n]
		}
		if c.Text != nil {
			cc.Text = c.Text[:n:n]
		}
		out.Columns[j] = &cc
	}
	return out, nil
}

// UnpivotStep turns wide data long: each row becomes one row per listed
// column, holding the other columns, the listed column's name (in a new
// text column NameColumn, default "Series") and its value (in a new column
// ValueColumn, default "Value"). The listed columns must share a kind.
type UnpivotStep struct {
	Type        string   `json:"type"`
	Columns     []string `json:"columns"`
	NameColumn  string   `json:"nameColumn,omitempty"`
	ValueColumn string   `json:"valueColumn,omitempty"`
}

// StepType is "unpivot".
func (s *UnpivotStep) StepType() string { return "unpivot" }

// MarshalJSON writes the step with its type set.
func (s UnpivotStep) MarshalJSON() ([]byte, error) {
	type plain UnpivotStep
	s.Type = "unpivot"
	return json.Marshal(plain(s))
}

// Validate checks the columns exist, are distinct and share a kind, and
// that given names do not clash with the columns kept.
func (s *UnpivotStep) Validate(t *Table) error {
	_, _, err := s.plan(t)
	return err
}

// plan resolves the columns to turn and the columns kept.
func (s *UnpivotStep) plan(t *Table) (turned, kept []*Column, err error) {
	if len(s.Columns) == 0 {
		return nil, nil, fieldErrorf("columns", "must list at least one column id; the columns are %s", columnList(t.Columns))
	}
	seen := map[string]bool{}
	for i, id := range s.Columns {
		field := fmt.Sprintf("columns[%d]", i)
		c, err := needColumn(t, field, id)
		if err != nil {
			return nil, nil, err
		}
		if seen[id] {
			return nil, nil, fieldErrorf(field, "%s is listed twice", id)
		}
		if len(turned) > 0 && c.Kind != turned[0].Kind {
			return nil, nil, fieldErrorf(field, "%s is a %s column but %s is %s; unpivot columns of one kind",
				label(c), c.Kind, label(turned[0]), turned[0].Kind)
		}
		seen[id] = true
		turned = append(turned, c)
	}
	keptNames := map[string]bool{}
	for _, c := range t.Columns {
		if !seen[c.ID] {
			kept = append(kept, c)
			keptNames[c.Name] = true
		}
	}
	for _, f := range []struct{ field, name string }{{"nameColumn", s.NameColumn}, {"valueColumn", s.ValueColumn}} {
		if f.name != "" && keptNames[f.name] {
			return nil, nil, fieldErrorf(f.field, "%q is already a column name; choose another", f.name)
		}
	}
	if s.NameColumn != "" && s.NameColumn == s.ValueColumn {
		return nil, nil, fieldErrorf("valueColumn", "must differ from nameColumn %q", s.NameColumn)
	}
	return turned, kept, nil
}

// Apply builds the long table.
func (s *UnpivotStep) Apply(t *Table, _ Defaults) (*Table, error) {
	turned, kept, err := s.plan(t)
	if err != nil {
		return nil, err
	}
	k := len(turned)
	rows := t.Rows * k
	idx := make([]int32, rows)
	for i := range idx {
		idx[i] = int32(i / k)
	}
	out := derive(t, rows)
	taken := map[string]bool{}
	for _, c := range kept {
		out.Columns = append(out.Columns, gatherColumn(c, idx))
		taken[c.Name] = true
	}
	nameName, valueName := s.NameColumn, s.ValueColumn
	if nameName == "" {
		nameName = freeName("Series", taken, map[string]int{})
	}
	taken[nameName] = true
	if valueName == "" {
		valueName = freeName("Value", taken, map[string]int{})
	}
	names := freshColumn(out, nameName, Text)
	values := freshColumn(out, valueName, turned[0].Kind)
	names.Text = make([]string, rows)
	if values.Kind == Text {
		values.Text = make([]string, rows)
	} else {
		values.Num = make([]float64, rows)
	}
	values.Percent, values.Currency = turned[0].Percent, turned[0].Currency
	for _, c := range turned {
		if unitRank(c.DateUnit) > unitRank(values.DateUnit) {
			values.DateUnit = c.DateUnit
		}
		values.Percent = values.Percent && c.Percent
		if c.Currency != values.Currency {
			values.Currency = ""
		}
	}
	for i := 0; i < t.Rows; i++ {
		for j, c := range turned {
			r := i*k + j
			names.Text[r] = c.Name
			if c.Kind == Text {
				values.Text[r] = c.Text[i]
			} else {
				values.Num[r] = c.Num[i]
			}
		}
	}
	return out, nil
}

// bucketUnits lists the allowed values of dateBucket's unit.
func bucketUnits() []string { return []string{"day", "week", "month", "quarter", "year"} }

// DateBucketStep rounds a date column down to the start of its day, week
// (Monday), month, quarter or year; the column keeps its id. It does not
// merge rows: follow it with aggregate to sum per bucket.
type DateBucketStep struct {
	Type   string `json:"type"`
	Column string `json:"column"`
	Unit   string `json:"unit"`
}

// StepType is "dateBucket".
func (s *DateBucketStep) StepType() string { return "dateBucket" }

// MarshalJSON writes the step with its type set.
func (s DateBucketStep) MarshalJSON() ([]byte, error) {
	type plain DateBucketStep
	s.Type = "dateBucket"
	return json.Marshal(plain(s))
}

// Validate checks the column is a date column and the unit is known.
func (s *DateBucketStep) Validate(t *Table) error {
	if _, err := needKind(t, "column", s.Column, "dateBucket", Date); err != nil {
		return err
	}
	if !slices.Contains(bucketUnits(), s.Unit) {
		return fieldErrorf("unit", "must be one of %s; got %q", strings.Join(bucketUnits(), ", "), s.Unit)
	}
	return nil
}

// Apply replaces the column with the bucketed one.
func (s *DateBucketStep) Apply(t *Table, _ Defaults) (*Table, error) {
	if err := s.Validate(t); err != nil {
		return nil, err
	}
	out := derive(t, t.Rows)
	out.Columns = slices.Clone(t.Columns)
	for j, c := range t.Columns {
		if c.ID != s.Column {
			continue
		}
		nc := *c
		nc.Num = make([]float64, t.Rows)
		for i, v := range c.Num[:t.Rows] {
			nc.Num[i] = bucketDate(v, s.Unit)
		}
		unit := bucketDateUnit(s.Unit)
		if unitRank(c.DateUnit) < unitRank(unit) && s.Unit != "week" {
			unit = c.DateUnit
		}
		nc.DateUnit = unit
		out.Columns[j] = &nc
	}
	return out, nil
}

// bucketDateUnit is the DateUnit of a column bucketed by unit; weeks show
// their Monday as a day.
func bucketDateUnit(unit string) string {
	switch unit {
	case "month":
		return UnitMonth
	case "quarter":
		return UnitQuarter
	case "year":
		return UnitYear
	}
	return UnitDay
}

// bucketDate rounds Unix milliseconds down to the start of the unit (UTC).
func bucketDate(ms float64, unit string) float64 {
	if ms != ms {
		return ms
	}
	days := int64(math.Floor(ms / msPerDay))
	switch unit {
	case "week":
		wd := (days + 3) % 7 // 0 = Monday; 1970-01-01 was a Thursday
		if wd < 0 {
			wd += 7
		}
		days -= wd
	case "month", "quarter", "year":
		y, m, _ := civilFromDays(days)
		switch unit {
		case "quarter":
			m = 3*((m-1)/3) + 1
		case "year":
			m = 1
		}
		days = daysFromCivil(y, m, 1)
	}
	return float64(days * msPerDay)
}

// ParseDate reads a date as a filter or a chart note writes it ("2024",
// "2024-03", "2024-03-05") into the milliseconds a Date column holds.
func ParseDate(s string) (float64, bool) {
	ms, ok := filterDate(s)
	return float64(ms), ok
}
