package chartspec

import (
	"encoding/json"
	"fmt"
	"slices"

	"chartd.dev/charts"
	"chartd.dev/libs/dataset"
)

// AutoMapping picks columns for each role of ct from t, the way a person
// would: roles are filled in the catalog's order; each takes the first
// unused column whose kind the role accepts, preferring the kinds in the
// catalog's order; a multi role (bar values) takes every remaining column of
// its best kind. Optional roles are filled only when they add meaning
// without guessing: a text `group` when a text column is left that really
// groups the rows (at most maxAutoGroups values, repeated); never `size`.
// Required roles that find nothing stay out, and lint says so.
func AutoMapping(ct charts.ChartType, t *dataset.Table) Mapping {
	m := Mapping{}
	used := map[string]bool{}
	for _, role := range ct.Roles {
		if !role.Required && (role.Numeric || len(role.Kinds) == 0 || role.Kinds[0] != string(dataset.Text)) {
			continue
		}
		if role.Multi {
			for _, kind := range role.Kinds {
				var ids []string
				for _, c := range t.Columns {
					if !used[c.ID] && string(c.Kind) == kind {
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
		kinds := role.Kinds
		if !role.Required {
			kinds = kinds[:1]
		}
		id := firstOfKinds(t, kinds, used)
		if !role.Required && id != "" && !groups(t, id) {
			id = ""
		}
		if id != "" {
			used[id] = true
			m[role.Role] = One(id)
		}
	}
	return m
}

// maxAutoGroups is the most groups an optional group role is filled with
// automatically; more would be a legend nobody can read.
const maxAutoGroups = 12

// groups tells whether column id splits the rows into a few repeated groups
// (not one label per row).
func groups(t *dataset.Table, id string) bool {
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
		if len(seen) > maxAutoGroups {
			return false
		}
	}
	return len(seen) > 0 && len(seen) < t.Rows
}

func firstOfKinds(t *dataset.Table, kinds []string, used map[string]bool) string {
	for _, kind := range kinds {
		for _, c := range t.Columns {
			if !used[c.ID] && string(c.Kind) == kind {
				return c.ID
			}
		}
	}
	return ""
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
			if id := ref.IDs[i]; c != nil && slices.Contains(role.Kinds, string(c.Kind)) && !used[id] {
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
	for role, ref := range auto {
		if _, ok := out[role]; !ok {
			out[role] = ref
		}
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
