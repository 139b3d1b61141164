package chartspec

import (
	"bytes"
	"encoding/json"
	"fmt"
	"maps"
	"slices"
	"strings"

	"chartd.dev/charts"
	"chartd.dev/libs/dataset"
)

// SetType changes the chart type. Roles are carried over by meaning
// (bar category → pie label, values → value) where the columns fit; the
// old type's options are kept in Variants and come back on switching back.
type SetType struct {
	Op   string `json:"op"`
	Type string `json:"type"`
}

// Name is "setType".
func (SetType) Name() string { return "setType" }

func (o *SetType) apply(st *applyState) *OpError {
	ct, ok := st.o.cat.Type(o.Type)
	if !ok {
		return opErr("type", "no chart type %q; the types are %s", o.Type, strings.Join(charts.SpecTypes(), ", "))
	}
	if o.Type == st.spec.Type {
		return nil
	}
	spec := st.spec
	if spec.Variants == nil {
		spec.Variants = map[string]map[string]any{}
	}
	spec.Variants[spec.Type] = maps.Clone(spec.Options)
	opts := ct.DefaultOptions()
	for name, v := range spec.Variants[o.Type] {
		if opt, ok := ct.Option(name); ok && opt.Validate(v) == nil {
			opts[name] = v
		}
	}
	delete(spec.Variants, o.Type)
	spec.Options = opts
	spec.Mapping = Remap(spec.Mapping, st.ct, ct, st.table())
	spec.Type = o.Type
	st.ct = ct
	return nil
}

func defSetType() opDef {
	types := charts.SpecTypes()
	return opDef{
		name:  "setType",
		about: "change the chart type; roles are carried over where the columns fit, options per type are remembered",
		schema: object("Changes the chart type.", []string{"op", "type"},
			p("op", opConst("setType")),
			p("type", enumOf("the chart type", types...)),
		),
		example: `{"op":"setType","type":"line"}`,
		newOp:   func() Op { return &SetType{} },
	}
}

// Remap carries a mapping from one chart type to another by meaning: a
// role of the same name keeps its columns; otherwise a number role takes
// the old number roles' columns in order and another role the old
// non-number roles' columns (bar category → pie label, bar values →
// scatter x and y). What does not fit t is dropped and empty roles are
// picked automatically (KeepMapping).
func Remap(m Mapping, from, to charts.ChartType, t *dataset.Table) Mapping {
	var keys, values []string
	for _, r := range from.Roles {
		for _, id := range m.Cols(r.Role) {
			if r.Numeric {
				values = append(values, id)
			} else {
				keys = append(keys, id)
			}
		}
	}
	used := map[string]bool{}
	take := func(pool []string, n int) []string {
		var out []string
		for _, id := range pool {
			if len(out) == n {
				break
			}
			if !used[id] {
				used[id] = true
				out = append(out, id)
			}
		}
		return out
	}
	cand := Mapping{}
	for _, r := range to.Roles {
		if ids := m.Cols(r.Role); len(ids) > 0 {
			if !r.Multi {
				ids = ids[:1]
			}
			for _, id := range ids {
				used[id] = true
			}
			cand[r.Role] = Ref{IDs: slices.Clone(ids), Multi: r.Multi}
		}
	}
	for _, r := range to.Roles {
		if _, done := cand[r.Role]; done || (!r.Required && r.Role != "group") || (to.Type == "line" && r.Role == "x") {
			continue // a line's x is picked by meaning (PickLineX), not carried over
		}
		n := 1
		if r.Multi {
			n = len(values) + len(keys)
		}
		pool := keys
		if r.Numeric {
			pool = values
		}
		if ids := take(pool, n); len(ids) > 0 {
			cand[r.Role] = Ref{IDs: ids, Multi: r.Multi}
		}
	}
	return KeepMapping(cand, to, t)
}

// SetVariants sets type options, keyed by chart type, so options for a
// type the chart may switch to later can be set now.
type SetVariants struct {
	Op       string                    `json:"op"`
	Variants map[string]map[string]any `json:"variants"`
}

// Name is "setVariants".
func (SetVariants) Name() string { return "setVariants" }

func (o *SetVariants) apply(st *applyState) *OpError {
	spec := st.spec
	for _, typ := range slices.Sorted(maps.Keys(o.Variants)) {
		opts := o.Variants[typ]
		ct, ok := st.o.cat.Type(typ)
		if !ok {
			return opErr("variants."+typ, "no chart type %q; the types are %s", typ, strings.Join(charts.SpecTypes(), ", "))
		}
		for _, name := range slices.Sorted(maps.Keys(opts)) {
			opt, ok := ct.Option(name)
			if !ok {
				return opErr("variants."+typ+"."+name, "%s", unknownOption(ct, name))
			}
			if err := opt.Validate(opts[name]); err != nil {
				return opErr("variants."+typ+"."+name, "%s", err)
			}
		}
		target := spec.Options
		if typ != spec.Type {
			if spec.Variants == nil {
				spec.Variants = map[string]map[string]any{}
			}
			if spec.Variants[typ] == nil {
				spec.Variants[typ] = map[string]any{}
			}
			target = spec.Variants[typ]
		}
		maps.Copy(target, opts)
	}
	return nil
}

// unknownOption words an option the type lacks.
func unknownOption(ct charts.ChartType, name string) string {
	names := make([]string, len(ct.Options))
	for i, o := range ct.Options {
		names[i] = o.Name
	}
	return fmt.Sprintf("a %s chart has no option %q; its options are %s", ct.Type, name, listOrNone(names))
}

func defSetVariants(cat *charts.Catalog) opDef {
	var props []prop
	for _, ct := range cat.Types() {
		var opts []prop
		for _, o := range ct.Options {
			opts = append(opts, p(o.Name, optionSchema(o)))
		}
		node := object(ct.Label+" options", nil, opts...)
		node.minProps = 1
		node.unknownKey = strings.ReplaceAll(unknownOption(ct, "\x00"), `"\x00"`, "%q")
		props = append(props, p(ct.Type, node))
	}
	variants := object("options keyed by chart type; a type other than the chart's own is remembered for a later setType", nil, props...)
	variants.minProps = 1
	variants.sig = "{<type>:{<option>:value}}"
	variants.unknownKey = "no chart type %q; the types are " + strings.Join(charts.SpecTypes(), ", ")
	return opDef{
		name:  "setVariants",
		about: "type options (see the options list below), keyed by chart type",
		schema: object("Sets chart type options, keyed by chart type.", []string{"op", "variants"},
			p("op", opConst("setVariants")),
			p("variants", variants),
		),
		example: `{"op":"setVariants","variants":{"bar":{"orientation":"horizontal","stack":"stacked"}}}`,
		newOp:   func() Op { return &SetVariants{} },
	}
}

// optionSchema is one catalog option as a schema node; its failures are
// worded by the catalog's own check.
func optionSchema(o charts.Option) *schema {
	var s *schema
	switch o.Kind {
	case charts.KindEnum:
		s = enumOf(o.Description, o.Values...)
	case charts.KindBool:
		s = boolean(o.Description)
	default:
		typ := "number"
		if o.Kind == charts.KindInteger {
			typ = "integer"
		}
		s = &schema{types: []string{typ}, desc: o.Description}
		if len(o.Also) == 0 {
			s.min, s.max = o.Min, o.Max
		} else {
			rng := &schema{min: o.Min, max: o.Max}
			s.anyOf = []*schema{rng}
			for _, a := range o.Also {
				s.anyOf = append(s.anyOf, &schema{constVal: a})
			}
		}
		s.sig = strings.NewReplacer("an integer from ", "int ", "a number from ", "number ", " to ", "..", ", or ", "|").Replace(o.Allowed())
	}
	s.explain = func(got any) string {
		if err := o.Validate(got); err != nil {
			return err.Error()
		}
		return ""
	}
	return s
}

// SetMapping assigns columns to roles; roles left out keep their columns.
type SetMapping struct {
	Op      string                     `json:"op"`
	Mapping map[string]json.RawMessage `json:"mapping"`
}

// Name is "setMapping".
func (SetMapping) Name() string { return "setMapping" }

func (o *SetMapping) apply(st *applyState) *OpError {
	t := st.table()
	ct := st.ct
	for _, name := range slices.Sorted(maps.Keys(o.Mapping)) {
		field := "mapping." + name
		role, ok := ct.Role(name)
		if !ok {
			return opErr(field, "a %s chart has no role %q; its roles are %s", ct.Type, name, roleList(ct))
		}
		var ref Ref
		if err := ref.UnmarshalJSON(o.Mapping[name]); err != nil {
			return opErr(field, "%s", err)
		}
		if len(ref.IDs) == 0 {
			if role.Required {
				return opErr(field, "%s is required for a %s chart; map %s from %s", name, ct.Type, roleTakes(role), columnList(columnsFor(t, role)))
			}
			delete(st.spec.Mapping, name)
			continue
		}
		if !role.Multi && len(ref.IDs) > 1 {
			return opErr(field, "%s takes one column; got %d (%s)", name, len(ref.IDs), idText(ref.IDs))
		}
		seen := make(map[string]bool, len(ref.IDs))
		cols := t.ColumnsByID(ref.IDs)
		for i, id := range ref.IDs {
			if seen[id] {
				return opErr(field, "lists %s twice", id)
			}
			seen[id] = true
			c := cols[i]
			if c == nil {
				return opErr(field, "no column %s; the columns are %s", id, columnList(t.Columns))
			}
			if !Fits(role, c) {
				return opErr(field, "%s is a %s column; %s takes %s: %s", colLabel(c), c.Kind, name, roleTakes(role), columnList(columnsFor(t, role)))
			}
		}
		st.spec.Mapping[name] = Ref{IDs: ref.IDs, Multi: role.Multi}
	}
	return nil
}

// roleList names a type's roles, marking multi-column ones: "category, values[]".
func roleList(ct charts.ChartType) string {
	names := make([]string, len(ct.Roles))
	for i, r := range ct.Roles {
		names[i] = r.Role
		if r.Multi {
			names[i] += "[]"
		}
		if !r.Required {
			names[i] += "?"
		}
	}
	return strings.Join(names, ", ")
}

// roleTakes says what columns a role takes: "one or more number columns".
func roleTakes(r charts.Role) string {
	count := "a"
	noun := "column"
	if r.Multi {
		count, noun = "one or more", "columns"
	}
	return count + " " + strings.Join(r.Kinds, " or ") + " " + noun
}

func defSetMapping(cat *charts.Catalog) opDef {
	var roles []string
	for _, ct := range cat.Types() {
		roles = append(roles, ct.Type+": "+roleList(ct))
	}
	ref := &schema{
		types:    []string{"string", "array", "null"},
		desc:     `a column id such as "c1", a list of ids for a multi-column role such as ["c2","c3"], or null to clear an optional role`,
		items:    &schema{types: []string{"string"}, minLen: 1},
		minLen:   1,
		minItems: 1,
		sig:      "id|[ids]|null",
	}
	mapping := &schema{
		types:    []string{"object"},
		desc:     "role → column; roles by type (" + strings.Join(roles, "; ") + "; [] takes a list, ? is optional)",
		values:   ref,
		minProps: 1,
		sig:      "{<role>:id|[ids]|null}",
	}
	return opDef{
		name:  "setMapping",
		about: "which columns feed which roles (roles per type below); roles left out are kept",
		schema: object("Assigns columns to the chart type's roles.", []string{"op", "mapping"},
			p("op", opConst("setMapping")),
			p("mapping", mapping),
		),
		example: `{"op":"setMapping","mapping":{"category":"c1","values":["c2","c3"]}}`,
		newOp:   func() Op { return &SetMapping{} },
	}
}

// stepTypes are the data step types (libs/dataset), for the schemas.
func stepTypes() []string {
	return []string{"sort", "topN", "filter", "aggregate", "limit", "unpivot", "dateBucket", "kind"}
}

// transformSchema is a step object; its own fields are checked by the
// step decoder, which knows each type's fields.
func transformSchema() *schema {
	s := &schema{
		types: []string{"object"},
		desc: `a data step object, e.g. {"type":"sort","column":"c2","direction":"desc"} or {"type":"topN","n":5}; ` +
			`the steps page of the docs lists each type's fields`,
		props:    []prop{p("type", enumOf("the step type", stepTypes()...))},
		required: []string{"type"},
		sig:      "{type, …step fields}",
	}
	return s
}

// decodeTransform reads a step strictly and answers it compacted, as stored.
func decodeTransform(raw json.RawMessage) (json.RawMessage, *OpError) {
	if _, err := dataset.DecodeStep(raw); err != nil {
		return nil, stepFieldError("transform", err)
	}
	var b bytes.Buffer
	if err := json.Compact(&b, raw); err != nil {
		return nil, opErr("transform", "must be a JSON object: %v", err)
	}
	return json.RawMessage(b.Bytes()), nil
}

// AddTransform appends a data step.
type AddTransform struct {
	Op        string          `json:"op"`
	Transform json.RawMessage `json:"transform"`
}

// Name is "addTransform".
func (AddTransform) Name() string { return "addTransform" }

func (o *AddTransform) apply(st *applyState) *OpError {
	raw, oe := decodeTransform(o.Transform)
	if oe != nil {
		return oe
	}
	if len(st.spec.Steps) >= MaxSteps {
		return opErr("", "the chart already has %d steps, the most it can have; combine or remove steps with updateTransform or removeTransform", MaxSteps)
	}
	st.runSteps()
	i := len(st.spec.Steps)
	st.spec.Steps = append(st.spec.Steps, raw)
	if oe := st.checkSteps(i, i, func(int) bool { return false }, "this step"); oe != nil {
		return oe
	}
	st.repairMapping()
	return nil
}

func defAddTransform() opDef {
	return opDef{
		name:  "addTransform",
		about: "append a data step: " + strings.Join(stepTypes(), ", "),
		schema: object("Appends a data step to the chart's steps.", []string{"op", "transform"},
			p("op", opConst("addTransform")),
			p("transform", transformSchema()),
		),
		example: `{"op":"addTransform","transform":{"type":"sort","column":"c2","direction":"desc"}}`,
		newOp:   func() Op { return &AddTransform{} },
	}
}

// stepIndex checks a step position.
func (st *applyState) stepIndex(i int) *OpError {
	n := len(st.spec.Steps)
	switch {
	case n == 0:
		return opErr("index", "the chart has no steps; add one with addTransform")
	case i < 0 || i >= n:
		return opErr("index", "no step %d; the chart has %d step%s, numbered 0 to %d", i, n, plural(n), n-1)
	}
	return nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

// UpdateTransform replaces the step at a position.
type UpdateTransform struct {
	Op        string          `json:"op"`
	Index     int             `json:"index"`
	Transform json.RawMessage `json:"transform"`
}

// Name is "updateTransform".
func (UpdateTransform) Name() string { return "updateTransform" }

func (o *UpdateTransform) apply(st *applyState) *OpError {
	if oe := st.stepIndex(o.Index); oe != nil {
		return oe
	}
	raw, oe := decodeTransform(o.Transform)
	if oe != nil {
		return oe
	}
	before := st.failures()
	st.spec.Steps[o.Index] = raw
	if oe := st.checkSteps(o.Index, o.Index, func(j int) bool { return before[j] }, "this change"); oe != nil {
		return oe
	}
	st.repairMapping()
	return nil
}

func defUpdateTransform() opDef {
	return opDef{
		name:  "updateTransform",
		about: "replace the step at index (0 = first)",
		schema: object("Replaces one of the chart's steps, chosen by position.", []string{"op", "index", "transform"},
			p("op", opConst("updateTransform")),
			p("index", integer("the step's position in the steps list, 0 for the first", 0, MaxSteps-1)),
			p("transform", transformSchema()),
		),
		example: `{"op":"updateTransform","index":0,"transform":{"type":"topN","n":5}}`,
		newOp:   func() Op { return &UpdateTransform{} },
	}
}

// RemoveTransform removes the step at a position.
type RemoveTransform struct {
	Op    string `json:"op"`
	Index int    `json:"index"`
}

// Name is "removeTransform".
func (RemoveTransform) Name() string { return "removeTransform" }

func (o *RemoveTransform) apply(st *applyState) *OpError {
	if oe := st.stepIndex(o.Index); oe != nil {
		return oe
	}
	before := st.failures()
	st.spec.Steps = slices.Delete(st.spec.Steps, o.Index, o.Index+1)
	if oe := st.checkSteps(o.Index, -1, func(j int) bool { return before[j+1] }, "removing it"); oe != nil {
		return oe
	}
	st.repairMapping()
	return nil
}

func defRemoveTransform() opDef {
	return opDef{
		name:  "removeTransform",
		about: "remove the step at index (0 = first)",
		schema: object("Removes one of the chart's steps, chosen by position.", []string{"op", "index"},
			p("op", opConst("removeTransform")),
			p("index", integer("the step's position in the steps list, 0 for the first", 0, MaxSteps-1)),
		),
		example: `{"op":"removeTransform","index":0}`,
		newOp:   func() Op { return &RemoveTransform{} },
	}
}

// ClearTransforms removes every step, so the chart draws its data as sent.
type ClearTransforms struct {
	Op string `json:"op"`
}

// Name is "clearTransforms".
func (ClearTransforms) Name() string { return "clearTransforms" }

func (o *ClearTransforms) apply(st *applyState) *OpError {
	st.spec.Steps = []json.RawMessage{}
	st.invalidate(0)
	st.repairMapping()
	return nil
}

func defClearTransforms() opDef {
	return opDef{
		name:  "clearTransforms",
		about: "remove all steps; the chart draws its data as sent",
		schema: object("Removes all of the chart's steps.", []string{"op"},
			p("op", opConst("clearTransforms")),
		),
		example: `{"op":"clearTransforms"}`,
		newOp:   func() Op { return &ClearTransforms{} },
	}
}
