package dataset

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"sort"
	"strconv"
	"strings"
)

// Defaults are values a chart supplies for fields a step leaves out.
type Defaults struct {
	// ValueColumn is the column topN ranks by when the step names none.
	ValueColumn string
}

// Step is one pure table → table transform (sort, topN, filter, aggregate,
// limit, unpivot, dateBucket, kind). Steps never change their input; the output
// may share unchanged column storage with it, so treat tables as values and
// Clone one before changing its cells.
type Step interface {
	// StepType is the step's "type" value.
	StepType() string
	// Validate checks the step against a table's columns. Errors are
	// *FieldError: "column: no column c9; the columns are …".
	Validate(t *Table) error
	// Apply runs the step; it fails with the same errors as Validate (and
	// for topN without a column, when d names none either).
	Apply(t *Table, d Defaults) (*Table, error)
}

// stepTypeList is the allowed values of "type", for messages.
const stepTypeList = "sort, topN, filter, aggregate, limit, unpivot, dateBucket, kind"

// maxStepN bounds n of topN and limit.
const maxStepN = 100_000_000

// DecodeStep reads one step object strictly: unknown fields, wrong JSON
// types, missing required fields and unknown enum values are refused with
// a *FieldError naming the field and what it accepts.
func DecodeStep(raw []byte) (Step, error) {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 || raw[0] != '{' {
		kind := "nothing"
		if len(raw) > 0 {
			kind = jsonKindName(raw[0])
		}
		return nil, &FieldError{Problem: fmt.Sprintf(`a step must be a JSON object like {"type":"sort","column":"c2","direction":"desc"}; got %s`, kind)}
	}
	var fields map[string]json.RawMessage
	dec := json.NewDecoder(bytes.NewReader(raw))
	if err := dec.Decode(&fields); err != nil {
		return nil, &FieldError{Problem: "a step must be a valid JSON object: " + strings.TrimPrefix(err.Error(), "json: ")}
	}
	if dec.More() {
		return nil, &FieldError{Problem: "a step must be one JSON object; text follows it"}
	}
	s, err := decodeFields(&fieldReader{fields: fields})
	if err != nil {
		return nil, err
	}
	return s, nil
}

// decodeFields builds the step its "type" names from the object's fields.
func decodeFields(r *fieldReader) (Step, error) {
	typ, err := r.str("type", true, "one of "+stepTypeList)
	if err != nil {
		return nil, err
	}
	switch typ {
	case "sort":
		s := &SortStep{Type: typ}
		err = r.check(typ, []string{"type", "column", "direction"}, func() (err error) {
			if s.Column, err = r.str("column", true, "a column id such as c1"); err != nil {
				return err
			}
			s.Direction, err = r.enum("direction", false, "asc", "desc")
			return err
		})
		return s, err
	case "topN":
		s := &TopNStep{Type: typ}
		err = r.check(typ, []string{"type", "n", "column"}, func() (err error) {
			if s.N, err = r.integer("n", true, 1, maxStepN); err != nil {
				return err
			}
			s.Column, err = r.str("column", false, "a column id such as c2")
			return err
		})
		return s, err
	case "filter":
		s := &FilterStep{Type: typ}
		err = r.check(typ, []string{"type", "column", "operator", "value"}, func() (err error) {
			if s.Column, err = r.str("column", true, "a column id such as c1"); err != nil {
				return err
			}
			if s.Operator, err = r.enum("operator", true, filterOperators()...); err != nil {
				return err
			}
			s.Value, err = r.filterValue(s.Operator)
			return err
		})
		return s, err
	case "aggregate":
		s := &AggregateStep{Type: typ}
		err = r.check(typ, []string{"type", "groupBy", "measures"}, func() (err error) {
			if s.GroupBy, err = r.strList("groupBy", false, false); err != nil {
				return err
			}
			s.Measures, err = r.measures()
			return err
		})
		return s, err
	case "limit":
		s := &LimitStep{Type: typ}
		err = r.check(typ, []string{"type", "n"}, func() (err error) {
			s.N, err = r.integer("n", true, 1, maxStepN)
			return err
		})
		return s, err
	case "unpivot":
		s := &UnpivotStep{Type: typ}
		err = r.check(typ, []string{"type", "columns", "nameColumn", "valueColumn"}, func() (err error) {
			if s.Columns, err = r.strList("columns", true, true); err != nil {
				return err
			}
			if s.NameColumn, err = r.str("nameColumn", false, "a name for the new column of names"); err != nil {
				return err
			}
			s.ValueColumn, err = r.str("valueColumn", false, "a name for the new column of values")
			return err
		})
		return s, err
	case "dateBucket":
		s := &DateBucketStep{Type: typ}
		err = r.check(typ, []string{"type", "column", "unit"}, func() (err error) {
			if s.Column, err = r.str("column", true, "a date column id such as c1"); err != nil {
				return err
			}
			s.Unit, err = r.enum("unit", true, bucketUnits()...)
			return err
		})
		return s, err
	case "kind":
		s := &KindStep{Type: typ}
		err = r.check(typ, []string{"type", "column", "kind"}, func() (err error) {
			if s.Column, err = r.str("column", true, "a column id such as c1"); err != nil {
				return err
			}
			var k string
			k, err = r.enum("kind", true, kindNames()...)
			s.Kind = Kind(k)
			return err
		})
		return s, err
	}
	return nil, fieldErrorf("type", "unknown step %q; one of %s", typ, stepTypeList)
}

// DecodeSteps reads a JSON array of steps; an error is a *StepError.
func DecodeSteps(raw []byte) ([]Step, error) {
	var items []json.RawMessage
	if err := json.Unmarshal(raw, &items); err != nil {
		return nil, &FieldError{Problem: "steps must be a JSON array of step objects"}
	}
	steps := make([]Step, len(items))
	for i, it := range items {
		s, err := DecodeStep(it)
		if err != nil {
			return nil, newStepError(i, err)
		}
		steps[i] = s
	}
	return steps, nil
}

// fieldReader reads the fields of one step object with precise messages.
type fieldReader struct {
	fields map[string]json.RawMessage
}

// check refuses unknown fields, then runs read.
func (r *fieldReader) check(typ string, allowed []string, read func() error) error {
	var unknown []string
	for k := range r.fields {
		ok := false
		for _, a := range allowed {
			ok = ok || k == a
		}
		if !ok {
			unknown = append(unknown, k)
		}
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return fieldErrorf(unknown[0], "unknown field; %s takes %s", typ, strings.Join(allowed, ", "))
	}
	return read()
}

// get returns a field's raw value; null counts as absent.
func (r *fieldReader) get(name string) (json.RawMessage, bool) {
	v, ok := r.fields[name]
	if !ok || string(bytes.TrimSpace(v)) == "null" {
		return nil, false
	}
	return v, true
}

func rawKind(v json.RawMessage) string {
	v = bytes.TrimSpace(v)
	if len(v) == 0 {
		return "nothing"
	}
	return jsonKindName(v[0])
}

// str reads a string field; want says what it should hold.
func (r *fieldReader) str(name string, required bool, want string) (string, error) {
	v, ok := r.get(name)
	if !ok {
		if required {
			return "", fieldErrorf(name, "required: %s", want)
		}
		return "", nil
	}
	var s string
	if err := json.Unmarshal(v, &s); err != nil {
		return "", fieldErrorf(name, "must be a string, %s; got %s", want, rawKind(v))
	}
	if required && s == "" {
		return "", fieldErrorf(name, "must not be empty: %s", want)
	}
	return s, nil
}

// enum reads a string field limited to the allowed values.
func (r *fieldReader) enum(name string, required bool, allowed ...string) (string, error) {
	want := "one of " + strings.Join(allowed, ", ")
	s, err := r.str(name, required, want)
	if err != nil || s == "" {
		return s, err
	}
	for _, a := range allowed {
		if s == a {
			return s, nil
		}
	}
	return "", fieldErrorf(name, "must be %s; got %q", want, s)
}

// integer reads a whole number in [lo, hi].
func (r *fieldReader) integer(name string, required bool, lo, hi int) (int, error) {
	v, ok := r.get(name)
	if !ok {
		if required {
			return 0, fieldErrorf(name, "required: a whole number from %d to %d", lo, hi)
		}
		return 0, nil
	}
	var num json.Number
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	if k := rawKind(v); k != "a number" {
		return 0, fieldErrorf(name, "must be a whole number from %d to %d; got %s", lo, hi, k)
	}
	if err := d.Decode(&num); err != nil {
		return 0, fieldErrorf(name, "must be a whole number from %d to %d; got %s", lo, hi, rawKind(v))
	}
	n, err := strconv.ParseInt(num.String(), 10, 64)
	if err != nil || n < int64(lo) || n > int64(hi) {
		return 0, fieldErrorf(name, "must be a whole number from %d to %d; got %s", lo, hi, num.String())
	}
	return int(n), nil
}

// strList reads an array of column ids.
func (r *fieldReader) strList(name string, required, nonEmpty bool) ([]string, error) {
	v, ok := r.get(name)
	if !ok {
		if required {
			return nil, fieldErrorf(name, "required: an array of column ids such as [\"c2\", \"c3\"]")
		}
		return nil, nil
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		return nil, fieldErrorf(name, "must be an array of column ids such as [\"c2\", \"c3\"]; got %s", rawKind(v))
	}
	if nonEmpty && len(items) == 0 {
		return nil, fieldErrorf(name, "must list at least one column id")
	}
	out := make([]string, len(items))
	for i, it := range items {
		if err := json.Unmarshal(it, &out[i]); err != nil || out[i] == "" {
			return nil, fieldErrorf(fmt.Sprintf("%s[%d]", name, i), "must be a column id such as c1; got %s", rawKind(it))
		}
	}
	return out, nil
}

// measures reads aggregate's measures strictly.
func (r *fieldReader) measures() ([]Measure, error) {
	v, ok := r.get("measures")
	if !ok {
		return nil, fieldErrorf("measures", `required: an array like [{"column":"c2","fn":"sum"}]`)
	}
	var items []json.RawMessage
	if err := json.Unmarshal(v, &items); err != nil {
		return nil, fieldErrorf("measures", `must be an array like [{"column":"c2","fn":"sum"}]; got %s`, rawKind(v))
	}
	if len(items) == 0 {
		return nil, fieldErrorf("measures", `must list at least one measure like {"column":"c2","fn":"sum"}`)
	}
	out := make([]Measure, len(items))
	for i, it := range items {
		path := fmt.Sprintf("measures[%d]", i)
		var fields map[string]json.RawMessage
		if err := json.Unmarshal(it, &fields); err != nil || fields == nil {
			return nil, fieldErrorf(path, `must be an object like {"column":"c2","fn":"sum"}; got %s`, rawKind(it))
		}
		mr := &fieldReader{fields: fields}
		err := mr.check("a measure", []string{"column", "fn"}, func() (err error) {
			if out[i].Fn, err = mr.enum("fn", true, aggregateFns()...); err != nil {
				return err
			}
			out[i].Column, err = mr.str("column", out[i].Fn != "count", "a column id such as c2")
			return err
		})
		if err != nil {
			var fe *FieldError
			if errors.As(err, &fe) {
				fe.Field = path + "." + fe.Field
			}
			return nil, err
		}
	}
	return out, nil
}

// filterValue reads filter's value: a scalar, or an array for "in".
func (r *fieldReader) filterValue(op string) (any, error) {
	v, present := r.fields["value"]
	if !present {
		return nil, fieldErrorf("value", "required: the value to compare with (null matches blank cells with eq and ne)")
	}
	d := json.NewDecoder(bytes.NewReader(v))
	d.UseNumber()
	var val any
	if err := d.Decode(&val); err != nil {
		return nil, fieldErrorf("value", "must be valid JSON")
	}
	switch x := val.(type) {
	case map[string]any:
		return nil, fieldErrorf("value", "must be a string, number, boolean or null; got an object")
	case []any:
		if op != "in" {
			return nil, fieldErrorf("value", "must be a single value for %s; only in takes an array", op)
		}
		if len(x) == 0 {
			return nil, fieldErrorf("value", "must list at least one value for in")
		}
		for i, e := range x {
			switch e.(type) {
			case map[string]any, []any:
				return nil, fieldErrorf(fmt.Sprintf("value[%d]", i), "must be a string, number, boolean or null")
			}
		}
		return x, nil
	case nil:
		if op != "eq" && op != "ne" && op != "in" {
			return nil, fieldErrorf("value", "null (a blank cell) works only with eq, ne and in; give a value for %s", op)
		}
	}
	if op == "in" {
		if _, ok := val.([]any); !ok {
			return nil, fieldErrorf("value", "must be an array of values for in, such as [\"France\", \"Spain\"]")
		}
	}
	return val, nil
}

// newStepError wraps a step's error with its position.
func newStepError(i int, err error) *StepError {
	var fe *FieldError
	if errors.As(err, &fe) && fe.Field != "" {
		return &StepError{Index: i, Field: fe.Field, Message: fe.Error()}
	}
	return &StepError{Index: i, Message: err.Error()}
}

// TryRaw decodes and runs raw step objects in order, skipping each one that
// cannot be decoded or fails on the table so far; the errors carry the
// step's position in raws.
func TryRaw(t *Table, raws []json.RawMessage, d Defaults) (*Table, []StepError) {
	var errs []StepError
	for i, raw := range raws {
		st, err := DecodeStep(raw)
		if err == nil {
			var out *Table
			if out, err = st.Apply(t, d); err == nil {
				t = out
				continue
			}
		}
		errs = append(errs, *newStepError(i, err))
	}
	return t, errs
}

// ApplyAll runs steps in order and stops at the first failure, which is a
// *StepError ("steps[1].column: no column c9; …").
func ApplyAll(t *Table, steps []Step, d Defaults) (*Table, error) {
	for i, s := range steps {
		out, err := s.Apply(t, d)
		if err != nil {
			return nil, newStepError(i, err)
		}
		t = out
	}
	return t, nil
}

// TryAll runs every step it can: a failing step is skipped (the table goes
// on unchanged) and reported, as query_data needs.
func TryAll(t *Table, steps []Step, d Defaults) (*Table, []StepError) {
	var errs []StepError
	for i, s := range steps {
		out, err := s.Apply(t, d)
		if err != nil {
			errs = append(errs, *newStepError(i, err))
			continue
		}
		t = out
	}
	return t, errs
}

// columnList renders the table's columns for messages: "c1 (Country), c2 (Sales)".
func columnList(cols []*Column) string {
	if len(cols) == 0 {
		return "none"
	}
	var b strings.Builder
	for i, c := range cols {
		if i == 20 {
			fmt.Fprintf(&b, ", … (%d in all)", len(cols))
			break
		}
		if i > 0 {
			b.WriteString(", ")
		}
		b.WriteString(c.ID + " (" + c.Name + ")")
	}
	return b.String()
}

// label renders one column for messages: "c2 (Sales)".
func label(c *Column) string { return c.ID + " (" + c.Name + ")" }

// needColumn finds a column or says which exist.
func needColumn(t *Table, field, id string) (*Column, error) {
	if id == "" {
		return nil, fieldErrorf(field, "required: a column id; the columns are %s", columnList(t.Columns))
	}
	c, ok := t.Column(id)
	if !ok {
		return nil, fieldErrorf(field, "no column %s; the columns are %s", id, columnList(t.Columns))
	}
	return c, nil
}

// columnsOfKind lists the table's columns of some kinds, for messages.
func columnsOfKind(t *Table, kinds ...Kind) string {
	var cs []*Column
	for _, c := range t.Columns {
		for _, k := range kinds {
			if c.Kind == k {
				cs = append(cs, c)
			}
		}
	}
	return columnList(cs)
}

// needKind finds a column and checks its kind; why says what needs it.
func needKind(t *Table, field, id, why string, kinds ...Kind) (*Column, error) {
	c, err := needColumn(t, field, id)
	if err != nil {
		return nil, err
	}
	for _, k := range kinds {
		if c.Kind == k {
			return c, nil
		}
	}
	names := make([]string, len(kinds))
	for i, k := range kinds {
		names[i] = string(k)
	}
	return nil, fieldErrorf(field, "%s is a %s column; %s needs a %s column: %s", label(c), c.Kind, why,
		strings.Join(names, " or "), columnsOfKind(t, kinds...))
}

// nextID returns the first id number free in t and in anything t came from.
func nextID(t *Table) int {
	n := t.idSeq
	for _, c := range t.Columns {
		if len(c.ID) > 1 && c.ID[0] == 'c' {
			if k, err := strconv.Atoi(c.ID[1:]); err == nil && k > n {
				n = k
			}
		}
	}
	return n + 1
}

// derive starts an output table that remembers the ids handed out so far.
func derive(t *Table, rows int) *Table {
	n := t.idSeq
	if k := nextID(t) - 1; k > n {
		n = k
	}
	return &Table{Rows: rows, idSeq: n}
}

// freshColumn adds a new column with the next free id to out.
func freshColumn(out *Table, name string, kind Kind) *Column {
	out.idSeq++
	c := &Column{ID: columnID(out.idSeq), Name: name, Kind: kind}
	out.Columns = append(out.Columns, c)
	return c
}
