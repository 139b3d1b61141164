package charts

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"fmt"
	"io/fs"
	"maps"
	"path"
	"slices"
	"strconv"
	"strings"
)

// Example is a gallery example: sample data plus the settings a chart made
// from it starts with. Its JSON form is exactly the contract's "example entry"
// (id, type, label, description); the settings are for create_chart.
type Example struct {
	ID          string `json:"id"`
	Type        string `json:"type"`
	Label       string `json:"label"`
	Description string `json:"description"`
	// Title and Subtitle are the chart's initial drawn title and subtitle (Subtitle may be empty).
	Title    string `json:"-"`
	Subtitle string `json:"-"`
	// Options are type options as encoding/json decodes them, already validated against the type.
	Options map[string]any `json:"-"`
	// Steps are data steps as compact raw JSON objects, for example {"type":"sort","column":"c2","direction":"desc"}.
	Steps []json.RawMessage `json:"-"`
	// Mapping maps role names to column ids (c1, c2, ...); a role that is not
	// Multi holds exactly one id. Nil means "pick roles from the data".
	Mapping map[string][]string `json:"-"`
	// Palette is a preset palette id, or empty for the default palette.
	Palette string `json:"-"`
	data    string
}

// Data is the example's sample data as CSV with a header row.
func (e Example) Data() string { return e.data }

// exampleFile is an example as written in examples.json; its data lives in examples/<id>.csv.
type exampleFile struct {
	ID          string                     `json:"id"`
	Type        string                     `json:"type"`
	Label       string                     `json:"label"`
	Description string                     `json:"description"`
	Title       string                     `json:"title"`
	Subtitle    string                     `json:"subtitle"`
	Options     map[string]any             `json:"options"`
	Steps       []json.RawMessage          `json:"steps"`
	Mapping     map[string]json.RawMessage `json:"mapping"`
	Palette     string                     `json:"palette"`
}

// sampleTable is an example's parsed CSV, kept only while validating.
type sampleTable struct {
	header []string
	rows   [][]string
}

func (e Example) clone() Example {
	if e.Options != nil {
		e.Options = maps.Clone(e.Options)
	}
	if e.Steps != nil {
		steps := make([]json.RawMessage, len(e.Steps))
		for i, s := range e.Steps {
			steps[i] = slices.Clone(s)
		}
		e.Steps = steps
	}
	if e.Mapping != nil {
		m := make(map[string][]string, len(e.Mapping))
		for k, v := range e.Mapping {
			m[k] = slices.Clone(v)
		}
		e.Mapping = m
	}
	return e
}

// loadExamples reads examples.json and each example's CSV, and checks that
// the data and settings fit the example's chart type.
func loadExamples(fsys fs.FS, typeIndex map[string]int, types []ChartType, paletteIndex map[string]int) ([]Example, error) {
	var raw []exampleFile
	if err := decodeStrict(fsys, "examples.json", &raw); err != nil {
		return nil, err
	}
	out := make([]Example, 0, len(raw))
	seen := map[string]bool{}
	for _, ef := range raw {
		if seen[ef.ID] {
			return nil, fmt.Errorf("examples.json: example id %q used twice", ef.ID)
		}
		seen[ef.ID] = true
		ti, ok := typeIndex[ef.Type]
		if !ok {
			return nil, fmt.Errorf("examples.json: example %q: unknown chart type %q", ef.ID, ef.Type)
		}
		e, err := ef.build(fsys, types[ti], paletteIndex)
		if err != nil {
			return nil, fmt.Errorf("examples.json: example %s: %w", ef.ID, err)
		}
		out = append(out, e)
	}
	csvs, err := fs.Glob(fsys, "examples/*.csv")
	if err != nil {
		return nil, fmt.Errorf("list example data: %w", err)
	}
	for _, name := range csvs {
		if !seen[strings.TrimSuffix(path.Base(name), ".csv")] {
			return nil, fmt.Errorf("%s belongs to no example in examples.json", name)
		}
	}
	return out, nil
}

// build checks one example against its chart type and reads its data.
func (ef exampleFile) build(fsys fs.FS, t ChartType, paletteIndex map[string]int) (Example, error) {
	if !validID(ef.ID) || !strings.HasPrefix(ef.ID, ef.Type+"-") {
		return Example{}, fmt.Errorf("id must be lower-case words joined by '-' and start with %q", ef.Type+"-")
	}
	if ef.Label == "" || ef.Description == "" || ef.Title == "" {
		return Example{}, fmt.Errorf("label, description and title are required")
	}
	name := "examples/" + ef.ID + ".csv"
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return Example{}, fmt.Errorf("read data: %w", err)
	}
	table, err := parseSample(string(b))
	if err != nil {
		return Example{}, fmt.Errorf("%s: %w", name, err)
	}
	if len(table.header) < t.RequiredRoles() {
		return Example{}, fmt.Errorf("%s: %d columns, a %s chart needs at least %d", name, len(table.header), t.Type, t.RequiredRoles())
	}
	if err := t.ValidateOptions(ef.Options); err != nil {
		return Example{}, err
	}
	if ef.Palette != "" {
		if _, ok := paletteIndex[ef.Palette]; !ok {
			return Example{}, fmt.Errorf("unknown palette %q", ef.Palette)
		}
	}
	steps := make([]json.RawMessage, len(ef.Steps))
	for i, s := range ef.Steps {
		if err := checkStep(s, len(table.header)); err != nil {
			return Example{}, fmt.Errorf("step %d: %w", i+1, err)
		}
		var compact bytes.Buffer
		if err := json.Compact(&compact, s); err != nil {
			return Example{}, fmt.Errorf("step %d: %w", i+1, err)
		}
		steps[i] = compact.Bytes()
	}
	if ef.Steps == nil {
		steps = nil
	}
	mapping, err := buildMapping(ef.Mapping, t, table)
	if err != nil {
		return Example{}, err
	}
	return Example{
		ID: ef.ID, Type: ef.Type, Label: ef.Label, Description: ef.Description,
		Title: ef.Title, Subtitle: ef.Subtitle, Options: ef.Options, Steps: steps,
		Mapping: mapping, Palette: ef.Palette, data: string(b),
	}, nil
}

// validID accepts ids like "bar-gdp-by-country".
func validID(id string) bool {
	if id == "" || id[0] == '-' || id[len(id)-1] == '-' || strings.Contains(id, "--") {
		return false
	}
	for _, r := range id {
		if !('a' <= r && r <= 'z' || '0' <= r && r <= '9' || r == '-') {
			return false
		}
	}
	return true
}

// parseSample reads example CSV: a header of unique, non-empty names and at
// least one row, every row as wide as the header.
func parseSample(data string) (sampleTable, error) {
	r := csv.NewReader(strings.NewReader(data))
	records, err := r.ReadAll()
	if err != nil {
		return sampleTable{}, fmt.Errorf("parse CSV: %w", err)
	}
	if len(records) < 2 {
		return sampleTable{}, fmt.Errorf("want a header and at least one row, got %d lines", len(records))
	}
	header := records[0]
	seen := map[string]bool{}
	for i, h := range header {
		h = strings.TrimSpace(h)
		if h == "" {
			return sampleTable{}, fmt.Errorf("column %d has no name", i+1)
		}
		if seen[h] {
			return sampleTable{}, fmt.Errorf("column name %q used twice", h)
		}
		seen[h] = true
	}
	return sampleTable{header: header, rows: records[1:]}, nil
}

// numericColumn reports whether every non-blank cell of column i (0-based) is a number.
func (s sampleTable) numericColumn(i int) bool {
	filled := 0
	for _, row := range s.rows {
		cell := strings.TrimSpace(row[i])
		if cell == "" {
			continue
		}
		if _, err := strconv.ParseFloat(cell, 64); err != nil {
			return false
		}
		filled++
	}
	return filled > 0
}

// columnIndex turns a column id such as "c3" into a 0-based index within n columns.
func columnIndex(id string, n int) (int, error) {
	num, ok := strings.CutPrefix(id, "c")
	if !ok || num == "" || num[0] == '0' {
		return 0, fmt.Errorf("%q is not a column id (c1, c2, ...)", id)
	}
	i, err := strconv.Atoi(num)
	if err != nil || i > n {
		return 0, fmt.Errorf("column %q does not exist; the data has c1 to c%d", id, n)
	}
	return i - 1, nil
}

// buildMapping checks a mapping from examples.json against the type's roles
// and the data, or, when there is none, that the data has enough number columns.
func buildMapping(raw map[string]json.RawMessage, t ChartType, table sampleTable) (map[string][]string, error) {
	n := len(table.header)
	if raw == nil {
		numeric := 0
		for i := range n {
			if table.numericColumn(i) {
				numeric++
			}
		}
		needed := 0
		for _, r := range t.Roles {
			if r.Required && r.Numeric {
				needed++
			}
		}
		if numeric < needed {
			return nil, fmt.Errorf("data has %d number columns, a %s chart needs %d", numeric, t.Type, needed)
		}
		return nil, nil
	}
	out := make(map[string][]string, len(raw))
	for _, name := range slices.Sorted(maps.Keys(raw)) { // same error every time
		v := raw[name]
		role, ok := t.Role(name)
		if !ok {
			return nil, fmt.Errorf("mapping: %s chart has no role %q", t.Type, name)
		}
		var ids []string
		if role.Multi {
			if err := json.Unmarshal(v, &ids); err != nil || len(ids) == 0 {
				return nil, fmt.Errorf("mapping: role %q takes a non-empty list of column ids", name)
			}
		} else {
			var id string
			if err := json.Unmarshal(v, &id); err != nil {
				return nil, fmt.Errorf("mapping: role %q takes one column id", name)
			}
			ids = []string{id}
		}
		for _, id := range ids {
			i, err := columnIndex(id, n)
			if err != nil {
				return nil, fmt.Errorf("mapping: role %q: %w", name, err)
			}
			if role.Numeric && !table.numericColumn(i) {
				return nil, fmt.Errorf("mapping: role %q needs numbers but column %s (%s) is not all numbers", name, id, table.header[i])
			}
		}
		out[name] = ids
	}
	for _, r := range t.Roles {
		if _, ok := out[r.Role]; r.Required && !ok {
			return nil, fmt.Errorf("mapping: required role %q is not mapped", r.Role)
		}
	}
	return out, nil
}

// stepShapes lists, per step type allowed in examples, its required and optional fields.
// Steps that create new columns (aggregate, unpivot) are left out on purpose: an
// example's mapping names the data's own columns, which must still exist after its steps.
func stepShapes() map[string]struct{ required, optional []string } {
	return map[string]struct{ required, optional []string }{
		"sort":       {required: []string{"column", "direction"}},
		"topN":       {required: []string{"n"}, optional: []string{"column"}},
		"filter":     {required: []string{"column", "operator", "value"}},
		"limit":      {required: []string{"n"}},
		"dateBucket": {required: []string{"column", "unit"}},
	}
}

// checkStep validates one example step's shape and column reference against a table of n columns.
func checkStep(raw json.RawMessage, n int) error {
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil || fields == nil {
		return fmt.Errorf("a step must be a JSON object")
	}
	var typ string
	if err := json.Unmarshal(fields["type"], &typ); err != nil {
		return fmt.Errorf("a step needs a string \"type\"")
	}
	shape, ok := stepShapes()[typ]
	if !ok {
		return fmt.Errorf("step type %q is not allowed in examples (sort, topN, filter, limit, dateBucket)", typ)
	}
	for _, f := range shape.required {
		if _, ok := fields[f]; !ok {
			return fmt.Errorf("%s step needs %q", typ, f)
		}
	}
	for f := range fields {
		if f != "type" && !slices.Contains(shape.required, f) && !slices.Contains(shape.optional, f) {
			return fmt.Errorf("%s step has unknown field %q", typ, f)
		}
	}
	if c, ok := fields["column"]; ok {
		var id string
		if err := json.Unmarshal(c, &id); err != nil {
			return fmt.Errorf("%s step: column must be a column id", typ)
		}
		if _, err := columnIndex(id, n); err != nil {
			return fmt.Errorf("%s step: %w", typ, err)
		}
	}
	if nv, ok := fields["n"]; ok {
		var k int
		if err := json.Unmarshal(nv, &k); err != nil || k < 1 {
			return fmt.Errorf("%s step: n must be a positive integer", typ)
		}
	}
	checks := map[string][]string{
		"direction": {"asc", "desc"},
		"operator":  {"eq", "ne", "gt", "gte", "lt", "lte", "contains", "in"},
		"unit":      {"day", "week", "month", "quarter", "year"},
	}
	for field, allowed := range checks {
		v, ok := fields[field]
		if !ok {
			continue
		}
		var s string
		if err := json.Unmarshal(v, &s); err != nil || !slices.Contains(allowed, s) {
			return fmt.Errorf("%s step: %s must be one of %s", typ, field, strings.Join(allowed, ", "))
		}
	}
	return nil
}
