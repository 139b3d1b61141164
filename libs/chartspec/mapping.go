package chartspec

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"strings"
	"unicode"

	"chartd.dev/charts"
	"chartd.dev/libs/dataset"
)

// AutoMapping picks columns for each role of ct from t, the way a person
// would: roles are filled in the catalog's order; each takes the first
// unused column whose kind the role accepts, preferring the kinds in the
// catalog's order and what the columns mean: a line's x axis is a date,
// else a number column in order, else a text column (weekdays), and only
// then any number; a scatter's x and y leave a column named like a size
// ("size", "population") to the size role. A multi role (bar values) takes
// every remaining column of its best kind. Optional roles are filled only
// when they add meaning without guessing: a text `group` when a text
// column is left that really groups the rows (at most maxAutoGroups
// values, repeated; a box plot takes up to maxBoxGroups), `size` only from
// a column named like one. Required roles that find nothing stay out, and
// lint says so. AutoMappingNotices says which choices were doubtful.
func AutoMapping(ct charts.ChartType, t *dataset.Table) Mapping {
	m, _ := autoMapping(ct, t)
	return m
}

// AutoMappingNotices says, for a person to check, which of AutoMapping's
// choices for ct and t were doubtful: a line drawn along a number column
// that is not in order, a scatter that had more number columns than axes,
// a box plot of very many groups.
func AutoMappingNotices(ct charts.ChartType, t *dataset.Table) []dataset.Notice {
	_, notes := autoMapping(ct, t)
	return notes
}

// NoticeRolesGuessed is the code of a notice saying an automatic role
// choice was doubtful.
const NoticeRolesGuessed = "roles_guessed"

// maxBoxGroups is the most groups a box plot's group role is filled with
// automatically: a box plot of 50 plants still reads, one row each.
const maxBoxGroups = 100

func autoMapping(ct charts.ChartType, t *dataset.Table) (Mapping, []dataset.Notice) {
	if ct.Type == "heatmap" {
		return HeatmapMapping(t), nil
	}
	m := Mapping{}
	var notes []dataset.Notice
	note := func(format string, args ...any) {
		notes = append(notes, dataset.Notice{Code: NoticeRolesGuessed, Message: fmt.Sprintf(format, args...)})
	}
	used := map[string]bool{}
	numbers := 0
	for _, c := range t.Columns {
		if c.Kind == dataset.Number {
			numbers++
		}
	}
	sizeCol := ""
	if _, ok := ct.Role("size"); ok {
		for _, c := range t.Columns {
			if c.Kind == dataset.Number && SizeLike(c.Name) && numbers >= 3 {
				sizeCol = c.ID
				break
			}
		}
	}
	for _, role := range ct.Roles {
		if role.Role == "size" && !role.Required {
			if sizeCol != "" && !used[sizeCol] {
				used[sizeCol] = true
				m[role.Role] = One(sizeCol)
			}
			continue
		}
		if !role.Required && (role.Numeric || len(role.Kinds) == 0 || role.Kinds[0] != string(dataset.Text)) {
			continue
		}
		if role.Multi {
			for _, class := range roleClasses(role) {
				var ids []string
				for _, c := range t.Columns {
					if !used[c.ID] && class(c) {
						ids = append(ids, c.ID)
					}
				}
				if len(ids) > 0 {
					for _, id := range ids {
						used[id] = true
					}
					m[role.Role] = Many(ids...)
					break
				}
			}
			continue
		}
		var id string
		switch {
		case ct.Type == "line" && role.Role == "x":
			c := PickLineX(t, func(c *dataset.Column) bool { return used[c.ID] || !slices.Contains(role.Kinds, string(c.Kind)) })
			if c != nil {
				id = c.ID
				if c.Kind == dataset.Number && !Ordered(c) {
					note("the x axis is %s, a number column that is not in order, since no date or text column was found; map x to the column the line runs along",
						describe(c))
				}
			}
		case ct.Type == "scatter" && role.Role == "x" && YearsAlong(t, sizeCol):
			// Year,Temp: time runs along x, the one measure up y
			for _, c := range t.Columns {
				if !used[c.ID] && c.IsYears() {
					id = c.ID
					break
				}
			}
		default:
			classes := roleClasses(role)
			if !role.Required {
				classes = classes[:1]
			}
			skip := map[string]bool{}
			if sizeCol != "" {
				skip[sizeCol] = true
			}
			id = firstOf(t, classes, orMap(used, skip))
			if id == "" {
				id = firstOf(t, classes, used)
			}
			limit := maxAutoGroups
			if ct.Type == "boxplot" {
				limit = maxBoxGroups
			}
			if !role.Required && id != "" && !groups(t, id, limit) {
				id = ""
			}
			if ct.Type == "boxplot" && role.Role == "group" && id != "" {
				if n := distinct(t, id); n > 30 {
					c, _ := t.Column(id)
					note("the box plot has %d groups from %s, one box each; keep the largest with a topN step if that is too many", n, describe(c))
				}
			}
		}
		if id != "" {
			used[id] = true
			m[role.Role] = One(id)
		}
	}
	if ct.Type == "scatter" && numbers > 2 {
		var rest []string
		for _, c := range t.Columns {
			if c.Kind == dataset.Number && !used[c.ID] && !Identifier(c) {
				rest = append(rest, describe(c))
			}
		}
		if len(rest) > 0 {
			note("x and y are the first number columns; %s could be plotted too: map x and y to choose", strings.Join(rest, ", "))
		}
	}
	return m, notes
}

// describe names a column in notices: c2 ("Visits").
func describe(c *dataset.Column) string {
	return fmt.Sprintf("%s (%q)", c.ID, c.Name)
}

// orMap is the union of two sets of ids.
func orMap(a, b map[string]bool) map[string]bool {
	out := make(map[string]bool, len(a)+len(b))
	for k, v := range a {
		out[k] = v
	}
	for k, v := range b {
		out[k] = out[k] || v
	}
	return out
}

// PickLineX chooses the column a line runs along among those skip leaves:
// a date column, else a number column in ascending order (years, ages,
// distances), else a text column (weekdays, stages), else any number
// column; nil when none is left.
func PickLineX(t *dataset.Table, skip func(*dataset.Column) bool) *dataset.Column {
	for _, ok := range []func(*dataset.Column) bool{
		func(c *dataset.Column) bool { return c.Kind == dataset.Date },
		func(c *dataset.Column) bool { return c.Kind == dataset.Number && Ordered(c) },
		func(c *dataset.Column) bool { return c.Kind == dataset.Text },
		func(c *dataset.Column) bool { return c.Kind == dataset.Number },
	} {
		for _, c := range t.Columns {
			if !skip(c) && ok(c) {
				return c
			}
		}
	}
	return nil
}

// Ordered reports a number column whose values rise strictly from row to
// row (blanks aside), with at least three of them: a scale to run along.
func Ordered(c *dataset.Column) bool {
	n := 0
	prev := math.Inf(-1)
	for _, v := range c.Num {
		if math.IsNaN(v) {
			continue
		}
		if v <= prev {
			return false
		}
		prev = v
		n++
	}
	return n >= 3
}

// sizeWords are column names that mean a bubble's size.
var sizeWords = [...]string{"size", "population", "pop", "volume", "radius", "bubble", "headcount"}

// SizeLike reports a column name that means a size: "size", "Population",
// "Company size".
func SizeLike(name string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool { return !unicode.IsLetter(r) }) {
		if slices.Contains(sizeWords[:], w) {
			return true
		}
	}
	return false
}

// maxAutoGroups is the most groups an optional group role is filled with
// automatically; more would be a legend nobody can read.
const maxAutoGroups = 12

// groups tells whether column id splits the rows into at most limit
// repeated groups (not one label per row).
func groups(t *dataset.Table, id string, limit int) bool {
	c, ok := t.Column(id)
	if !ok || c.Text == nil {
		return false
	}
	seen := map[string]struct{}{}
	for _, v := range c.Text {
		if v == "" {
			continue
		}
		seen[v] = struct{}{}
		if len(seen) > limit {
			return false
		}
	}
	if len(seen) > maxAutoGroups {
		// many groups: each must hold a few values on average
		return len(seen) > 1 && len(seen)*2 <= t.Rows
	}
	return len(seen) > 0 && len(seen) < t.Rows
}

// distinct counts the different non-blank texts of column id.
func distinct(t *dataset.Table, id string) int {
	c, ok := t.Column(id)
	if !ok {
		return 0
	}
	seen := map[string]struct{}{}
	for _, v := range c.Text {
		if v != "" {
			seen[v] = struct{}{}
		}
	}
	return len(seen)
}

// firstOf answers the first column not in used of the first class that
// has one, "" when none.
func firstOf(t *dataset.Table, classes []func(*dataset.Column) bool, used map[string]bool) string {
	for _, class := range classes {
		for _, c := range t.Columns {
			if !used[c.ID] && class(c) {
				return c.ID
			}
		}
	}
	return ""
}

// roleClasses are the kinds of column a role takes, best first, refined
// by meaning: a number role takes measures, then year columns (as
// numbers), then identifier columns; a role that takes numbers as
// categories takes identifiers ("ID", "No.") before measures.
func roleClasses(r charts.Role) []func(*dataset.Column) bool {
	if r.Numeric {
		return []func(*dataset.Column) bool{
			func(c *dataset.Column) bool { return c.Kind == dataset.Number && !Identifier(c) },
			(*dataset.Column).IsYears,
			Identifier,
		}
	}
	var out []func(*dataset.Column) bool
	for _, k := range r.Kinds {
		kind := dataset.Kind(k)
		if kind == dataset.Number {
			out = append(out, Identifier)
		}
		out = append(out, func(c *dataset.Column) bool { return c.Kind == kind })
	}
	return out
}

// YearsAlong reports a table for a scatter plot of a measure against
// years (Year,Temp): a year column and fewer than two measures (number
// columns that are neither identifiers nor the size column sizeCol) to
// plot against each other. The scatter's x is then the years.
func YearsAlong(t *dataset.Table, sizeCol string) bool {
	years, measures := false, 0
	for _, c := range t.Columns {
		switch {
		case c.IsYears():
			years = true
		case c.Kind == dataset.Number && !Identifier(c) && c.ID != sizeCol:
			measures++
		}
	}
	return years && measures < 2
}

// KeepMapping answers the part of m that still fits ct and t: roles ct has,
// columns t has with a kind the role accepts. Roles left empty are filled
// by AutoMapping from the unused columns.
func KeepMapping(m Mapping, ct charts.ChartType, t *dataset.Table) Mapping {
	out := Mapping{}
	used := map[string]bool{}
	for _, role := range ct.Roles {
		ref, ok := m[role.Role]
		if !ok {
			continue
		}
		var ids []string
		for i, c := range t.ColumnsByID(ref.IDs) {
			if id := ref.IDs[i]; c != nil && Fits(role, c) && !used[id] {
				ids = append(ids, id)
			}
		}
		if len(ids) == 0 {
			continue
		}
		if !role.Multi {
			ids = ids[:1]
		}
		for _, id := range ids {
			used[id] = true
		}
		out[role.Role] = Ref{IDs: ids, Multi: role.Multi}
	}
	auto := AutoMapping(ct, withoutColumns(t, used))
	wide := ct.Type == "heatmap" && WideHeatmap(m)
	for role, ref := range auto {
		if _, ok := out[role]; ok {
			continue
		}
		switch {
		case wide && role == "x":
			continue // rows × columns: the value columns are the grid's columns
		case ct.Type == "heatmap" && !wide && role == "value":
			ref = Many(ref.IDs[0]) // long form: one value column beside x and y
		}
		out[role] = ref
	}
	return out
}

// withoutColumns is t's column list minus used (cells are shared, not copied).
func withoutColumns(t *dataset.Table, used map[string]bool) *dataset.Table {
	out := &dataset.Table{Rows: t.Rows}
	for _, c := range t.Columns {
		if !used[c.ID] {
			out.Columns = append(out.Columns, c)
		}
	}
	return out
}

// New is a fresh spec of type ct for table t: default options, roles picked
// automatically, no steps, the default style with palette.
func New(ct charts.ChartType, t *dataset.Table, palette []string) *Spec {
	return &Spec{
		Type:    ct.Type,
		Options: ct.DefaultOptions(),
		Mapping: AutoMapping(ct, t),
		Steps:   nil,
		Style:   DefaultStyle(palette),
	}
}

// ValueColumn is the chart's first value column, the default that a topN
// step ranks by.
func (s *Spec) ValueColumn() string {
	for _, r := range []string{"values", "value", "y"} {
		if id := s.Mapping.Col(r); id != "" {
			return id
		}
	}
	return ""
}

// AfterSteps runs the spec's steps on t (the data as sent), skipping the
// ones that fail; lint and query_data report those.
func (s *Spec) AfterSteps(t *dataset.Table) (*dataset.Table, []dataset.StepError) {
	return dataset.TryRaw(t, s.Steps, dataset.Defaults{ValueColumn: s.ValueColumn()})
}

// FromExample is the spec of a gallery example (or a type's sample) on its
// data t: the type's defaults with the example's palette, options, title,
// subtitle, steps and mapping.
func FromExample(cat *charts.Catalog, ct charts.ChartType, ex charts.Example, t *dataset.Table) *Spec {
	palette := cat.DefaultPalette().Colors
	if p, ok := cat.Palette(ex.Palette); ok && ex.Palette != "" {
		palette = p.Colors
	}
	spec := New(ct, t, palette)
	for k, v := range ex.Options {
		spec.Options[k] = v
	}
	if ex.Title != "" {
		spec.Style.Title = Text{Show: true, Text: ex.Title}
	}
	if ex.Subtitle != "" {
		spec.Style.Subtitle = Text{Show: true, Text: ex.Subtitle}
	}
	spec.Steps = append([]json.RawMessage{}, ex.Steps...)
	if len(ex.Mapping) > 0 {
		m := Mapping{}
		for role, ids := range ex.Mapping {
			r, _ := ct.Role(role)
			m[role] = Ref{IDs: append([]string{}, ids...), Multi: r.Multi}
		}
		spec.Mapping = m
	}
	return spec
}

// ExampleChart is a gallery example made ready to chart: its data as a
// request sends it (a JSON string of CSV), parsed, and the spec built on
// it. create_chart (an example, or a type alone) and render_image (a type
// alone) both start from one.
type ExampleChart struct {
	Spec    *Spec
	Table   *dataset.Table
	Notices []dataset.Notice
	Raw     []byte
	Format  string
}

// Example builds the chart of example ex of type ct.
func Example(cat *charts.Catalog, ct charts.ChartType, ex charts.Example) (ExampleChart, error) {
	raw, err := json.Marshal(ex.Data())
	if err != nil {
		return ExampleChart{}, fmt.Errorf("encode example %s: %w", ex.ID, err)
	}
	t, notices, err := dataset.ParseRequest(raw, "csv")
	if err != nil {
		return ExampleChart{}, fmt.Errorf("parse example %s: %w", ex.ID, err)
	}
	return ExampleChart{Spec: FromExample(cat, ct, ex, t), Table: t, Notices: notices, Raw: raw, Format: "csv"}, nil
}
