package charts

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math"
	"slices"
	"strconv"
	"strings"
)

// ChartType is one chart type's reference entry. Its JSON form is exactly the
// contract's "chart type entry" (type, label, use_for, roles, guide); options
// and the sample are for the services and stay out of that answer.
type ChartType struct {
	Type   string `json:"type"`
	Label  string `json:"label"`
	UseFor string `json:"use_for"`
	Roles  []Role `json:"roles"`
	Guide  string `json:"guide"`
	// Options are the type's settings (the state's "options"), with allowed values and defaults.
	Options []Option `json:"-"`
	sample  string
}

// Role is a slot of the chart that columns are mapped to (bar: category, values).
type Role struct {
	Role     string `json:"role"`
	Label    string `json:"label"`
	Numeric  bool   `json:"numeric"`
	Required bool   `json:"required"`
	// Multi says the role takes a list of column ids rather than one id.
	Multi bool `json:"-"`
	// Kinds are the column kinds (text, number, date) that fit the role, best first,
	// for picking columns automatically.
	Kinds []string `json:"-"`
}

// OptionKind is the type of value an option takes.
type OptionKind string

// Option kinds.
const (
	KindEnum    OptionKind = "enum"
	KindBool    OptionKind = "bool"
	KindNumber  OptionKind = "number"
	KindInteger OptionKind = "integer"
)

// Option is one chart-type setting, described as data so ops can validate
// values and documentation can list them.
type Option struct {
	Name string     `json:"name"`
	Kind OptionKind `json:"kind"`
	// Values are the allowed strings of an enum option.
	Values []string `json:"values,omitempty"`
	// Min and Max bound number and integer options (inclusive).
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
	// Also lists values allowed outside Min..Max (histogram bins: 0 means automatic).
	Also []float64 `json:"also,omitempty"`
	// Default is the value a new chart gets, as encoding/json decodes it: string, bool or float64.
	Default     any    `json:"default"`
	Description string `json:"description"`
}

// typeFile is a chart type as written in types.json.
type typeFile struct {
	Type    string     `json:"type"`
	Label   string     `json:"label"`
	UseFor  string     `json:"use_for"`
	Guide   string     `json:"guide"`
	Sample  string     `json:"sample"`
	Roles   []roleFile `json:"roles"`
	Options []Option   `json:"options"`
}

// roleFile is a role as written in types.json.
type roleFile struct {
	Role     string   `json:"role"`
	Label    string   `json:"label"`
	Numeric  bool     `json:"numeric"`
	Required bool     `json:"required"`
	Multi    bool     `json:"multi"`
	Kinds    []string `json:"kinds"`
}

// Role finds one of the type's roles by name.
func (t ChartType) Role(name string) (Role, bool) {
	for _, r := range t.Roles {
		if r.Role == name {
			return r.clone(), true
		}
	}
	return Role{}, false
}

// Option finds one of the type's options by name.
func (t ChartType) Option(name string) (Option, bool) {
	for _, o := range t.Options {
		if o.Name == name {
			return o.clone(), true
		}
	}
	return Option{}, false
}

// DefaultOptions is the options object a new chart of this type starts with.
func (t ChartType) DefaultOptions() map[string]any {
	m := make(map[string]any, len(t.Options))
	for _, o := range t.Options {
		m[o.Name] = o.Default
	}
	return m
}

// ValidateOptions checks an options object (or part of one) against the
// type: every name must be an option of the type and every value allowed.
func (t ChartType) ValidateOptions(opts map[string]any) error {
	names := make([]string, 0, len(opts))
	for name := range opts {
		names = append(names, name)
	}
	slices.Sort(names) // report the same error every time
	for _, name := range names {
		o, ok := t.Option(name)
		if !ok {
			return fmt.Errorf("%s chart has no option %q; its options are %s", t.Type, name, t.optionNames())
		}
		if err := o.Validate(opts[name]); err != nil {
			return err
		}
	}
	return nil
}

// optionNames lists the type's option names for error messages.
func (t ChartType) optionNames() string {
	if len(t.Options) == 0 {
		return "none"
	}
	names := make([]string, len(t.Options))
	for i, o := range t.Options {
		names[i] = o.Name
	}
	return strings.Join(names, ", ")
}

// RequiredRoles counts the roles a chart cannot be drawn without, which is
// also the fewest columns its data needs.
func (t ChartType) RequiredRoles() int {
	n := 0
	for _, r := range t.Roles {
		if r.Required {
			n++
		}
	}
	return n
}

// Describe is the role as a person reads it in the chart state's "roles" list,
// for example "values: Values (one or more number columns), required".
func (r Role) Describe() string {
	need := "optional"
	if r.Required {
		need = "required"
	}
	return r.Role + ": " + r.Label + ", " + need
}

// Validate checks one option value as encoding/json decodes it (string,
// bool, float64 or json.Number; Go integers are accepted too). The error
// names the option and says what is allowed.
func (o Option) Validate(v any) error {
	switch o.Kind {
	case KindEnum:
		s, ok := v.(string)
		if ok && slices.Contains(o.Values, s) {
			return nil
		}
	case KindBool:
		if _, ok := v.(bool); ok {
			return nil
		}
	case KindNumber, KindInteger:
		f, ok := toFloat(v)
		if ok && o.numberAllowed(f) {
			return nil
		}
	default:
		return fmt.Errorf("option %q has unknown kind %q", o.Name, o.Kind)
	}
	return fmt.Errorf("option %q: %s is not allowed; use %s", o.Name, showValue(v), o.Allowed())
}

// numberAllowed applies the range, the integer rule and the extra values.
func (o Option) numberAllowed(f float64) bool {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return false
	}
	if o.Kind == KindInteger && f != math.Trunc(f) {
		return false
	}
	if slices.Contains(o.Also, f) {
		return true
	}
	return (o.Min == nil || f >= *o.Min) && (o.Max == nil || f <= *o.Max)
}

// Allowed says in words which values the option takes, for error messages and docs.
func (o Option) Allowed() string {
	switch o.Kind {
	case KindEnum:
		return "one of " + strings.Join(o.Values, ", ")
	case KindBool:
		return "true or false"
	case KindNumber, KindInteger:
		noun := "a number"
		if o.Kind == KindInteger {
			noun = "an integer"
		}
		s := noun
		switch {
		case o.Min != nil && o.Max != nil:
			s += " from " + formatFloat(*o.Min) + " to " + formatFloat(*o.Max)
		case o.Min != nil:
			s += " of at least " + formatFloat(*o.Min)
		case o.Max != nil:
			s += " of at most " + formatFloat(*o.Max)
		}
		for _, a := range o.Also {
			s += ", or " + formatFloat(a)
		}
		return s
	}
	return "nothing (unknown option kind)"
}

// toFloat reads the numeric forms a decoded JSON value can take.
func toFloat(v any) (float64, bool) {
	switch n := v.(type) {
	case float64:
		return n, true
	case float32:
		return float64(n), true
	case int:
		return float64(n), true
	case int64:
		return float64(n), true
	case json.Number:
		f, err := n.Float64()
		return f, err == nil
	}
	return 0, false
}

// showValue writes a value the way the person sent it, for error messages.
func showValue(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprintf("%v", v)
	}
	return string(b)
}

// formatFloat writes a bound without trailing zeros.
func formatFloat(f float64) string {
	return strconv.FormatFloat(f, 'f', -1, 64)
}

// clone copies the slices so callers cannot change the catalog.
func (t ChartType) clone() ChartType {
	out := t
	out.Roles = make([]Role, len(t.Roles))
	for i, r := range t.Roles {
		out.Roles[i] = r.clone()
	}
	out.Options = make([]Option, len(t.Options))
	for i, o := range t.Options {
		out.Options[i] = o.clone()
	}
	return out
}

func (r Role) clone() Role {
	r.Kinds = slices.Clone(r.Kinds)
	return r
}

func (o Option) clone() Option {
	o.Values = slices.Clone(o.Values)
	o.Also = slices.Clone(o.Also)
	if o.Min != nil {
		m := *o.Min
		o.Min = &m
	}
	if o.Max != nil {
		m := *o.Max
		o.Max = &m
	}
	return o
}

// loadTypes reads types.json and checks it describes exactly the contract's types.
func loadTypes(fsys fs.FS) ([]ChartType, error) {
	var raw []typeFile
	if err := decodeStrict(fsys, "types.json", &raw); err != nil {
		return nil, err
	}
	want := SpecTypes()
	if len(raw) != len(want) {
		return nil, fmt.Errorf("types.json: %d chart types, want %d (%s)", len(raw), len(want), strings.Join(want, ", "))
	}
	types := make([]ChartType, len(raw))
	for i, tf := range raw {
		if tf.Type != want[i] {
			return nil, fmt.Errorf("types.json: entry %d is %q, want %q (the contract's order)", i, tf.Type, want[i])
		}
		t, err := tf.build()
		if err != nil {
			return nil, fmt.Errorf("types.json: type %s: %w", tf.Type, err)
		}
		types[i] = t
	}
	return types, nil
}

// build checks one type entry and turns it into a ChartType.
func (tf typeFile) build() (ChartType, error) {
	if tf.Label == "" || tf.UseFor == "" || tf.Guide == "" || tf.Sample == "" {
		return ChartType{}, fmt.Errorf("label, use_for, guide and sample are all required")
	}
	if len(tf.Roles) == 0 {
		return ChartType{}, fmt.Errorf("no roles")
	}
	t := ChartType{Type: tf.Type, Label: tf.Label, UseFor: tf.UseFor, Guide: tf.Guide, sample: tf.Sample}
	seen := map[string]bool{}
	for _, rf := range tf.Roles {
		if rf.Role == "" || rf.Label == "" {
			return ChartType{}, fmt.Errorf("a role needs a name and a label")
		}
		if seen[rf.Role] {
			return ChartType{}, fmt.Errorf("role %q listed twice", rf.Role)
		}
		seen[rf.Role] = true
		if len(rf.Kinds) == 0 {
			return ChartType{}, fmt.Errorf("role %q: no column kinds", rf.Role)
		}
		for _, k := range rf.Kinds {
			if k != "text" && k != "number" && k != "date" {
				return ChartType{}, fmt.Errorf("role %q: unknown column kind %q", rf.Role, k)
			}
		}
		if rf.Numeric && (len(rf.Kinds) != 1 || rf.Kinds[0] != "number") {
			return ChartType{}, fmt.Errorf("role %q: a numeric role takes number columns only", rf.Role)
		}
		t.Roles = append(t.Roles, Role(rf))
	}
	names := map[string]bool{}
	for _, o := range tf.Options {
		if err := o.check(); err != nil {
			return ChartType{}, err
		}
		if names[o.Name] {
			return ChartType{}, fmt.Errorf("option %q listed twice", o.Name)
		}
		names[o.Name] = true
		t.Options = append(t.Options, o)
	}
	return t, nil
}

// check makes sure an option's description is usable: known kind, sane bounds, valid default.
func (o Option) check() error {
	if o.Name == "" || o.Description == "" {
		return fmt.Errorf("an option needs a name and a description")
	}
	switch o.Kind {
	case KindEnum:
		if len(o.Values) < 2 || o.Min != nil || o.Max != nil || len(o.Also) > 0 {
			return fmt.Errorf("option %q: an enum needs two or more values and no bounds", o.Name)
		}
	case KindBool:
		if len(o.Values) > 0 || o.Min != nil || o.Max != nil || len(o.Also) > 0 {
			return fmt.Errorf("option %q: a bool takes no values or bounds", o.Name)
		}
	case KindNumber, KindInteger:
		if len(o.Values) > 0 || o.Min == nil || o.Max == nil || *o.Min > *o.Max {
			return fmt.Errorf("option %q: a number needs min <= max and no values", o.Name)
		}
	default:
		return fmt.Errorf("option %q: unknown kind %q", o.Name, o.Kind)
	}
	if err := o.Validate(o.Default); err != nil {
		return fmt.Errorf("default: %w", err)
	}
	return nil
}

// decodeStrict reads a JSON file and refuses unknown fields, so a typo in the
// catalog fails loudly instead of silently losing data.
func decodeStrict(fsys fs.FS, name string, v any) error {
	b, err := fs.ReadFile(fsys, name)
	if err != nil {
		return fmt.Errorf("read %s: %w", name, err)
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		return fmt.Errorf("decode %s: %w", name, err)
	}
	if dec.More() {
		return fmt.Errorf("decode %s: extra data after the JSON value", name)
	}
	return nil
}
