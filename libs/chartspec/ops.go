package chartspec

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"strings"

	"chartd.dev/charts"
	"chartd.dev/libs/dataset"
	"github.com/santhosh-tekuri/jsonschema/v6"
)

// Env is what applying ops needs besides the spec.
type Env struct {
	// Table is the chart's data before steps. Ops name columns of the data
	// as sent or, after steps that make columns, of the result.
	Table *dataset.Table
	// Brand reads the account's saved brand palette (#RRGGBB or #RGB; nil
	// when none is saved, which makes {"op":"setPalette","palette":"brand"}
	// invalid). It is called only by a setPalette that names the brand
	// palette, so other edits never wait on the brand service.
	Brand func() ([]string, error)
}

// OpError is a refused op: which op (Index in the list), which field
// (a path inside the op, such as "mapping.values" or "transform.column")
// and what to do. Apply answers it for every refusal, so a service can
// turn it into invalid_ops as it is.
type OpError struct {
	Index   int    `json:"index"`
	Field   string `json:"field,omitempty"`
	Message string `json:"message"`
}

// Error reads like "ops[1].column: no column c9; the columns are c1 (Country), c2 (Sales)".
func (e *OpError) Error() string {
	if e.Field == "" {
		return fmt.Sprintf("ops[%d]: %s", e.Index, e.Message)
	}
	return fmt.Sprintf("ops[%d].%s: %s", e.Index, e.Field, e.Message)
}

// opErr builds an OpError for the op being applied (Apply sets Index).
func opErr(field, format string, args ...any) *OpError {
	return &OpError{Field: field, Message: fmt.Sprintf(format, args...)}
}

// OpSchema is one op's JSON Schema as get_op_catalog serves it.
type OpSchema struct {
	Op     string         `json:"op"`
	Schema map[string]any `json:"schema"`
}

// Op is one decoded edit. Each op is its own Go type; the JSON Schema that
// requests are validated against is defined next to it.
type Op interface {
	// Name is the op's "op" value, for example "setTitle".
	Name() string
	apply(st *applyState) *OpError
}

// opDef ties an op's name, schema, catalog line and Go type together.
type opDef struct {
	name    string
	about   string // one line for the text catalog
	schema  *schema
	example string // one JSON op, checked by tests to apply cleanly
	newOp   func() Op
}

// Ops validates and applies ops. Build it once with NewOps: it holds the
// catalog and the compiled schemas and is safe for concurrent use.
type Ops struct {
	cat      *charts.Catalog
	defs     []opDef
	byName   map[string]int
	compiled []*jsonschema.Schema
}

// schemaURL is the id each op's schema is compiled under.
func schemaURL(op string) string { return "https://chartd.dev/schemas/ops/" + op + ".json" }

// NewOps compiles every op's schema; an error means an op definition is
// broken, a bug caught at start.
func NewOps(cat *charts.Catalog) (*Ops, error) {
	if cat == nil {
		return nil, fmt.Errorf("new ops: no catalog")
	}
	o := &Ops{cat: cat, defs: opDefs(cat), byName: map[string]int{}}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	for i, d := range o.defs {
		if _, dup := o.byName[d.name]; dup {
			return nil, fmt.Errorf("new ops: op %s defined twice", d.name)
		}
		o.byName[d.name] = i
		doc, err := jsonDoc(d.schema.doc())
		if err != nil {
			return nil, fmt.Errorf("new ops: schema of %s: %w", d.name, err)
		}
		if err := c.AddResource(schemaURL(d.name), doc); err != nil {
			return nil, fmt.Errorf("new ops: add schema of %s: %w", d.name, err)
		}
	}
	for _, d := range o.defs {
		sch, err := c.Compile(schemaURL(d.name))
		if err != nil {
			return nil, fmt.Errorf("new ops: compile schema of %s: %w", d.name, err)
		}
		o.compiled = append(o.compiled, sch)
	}
	return o, nil
}

// jsonDoc turns a Go value into the form the schema library reads
// (encoding/json with numbers as json.Number).
func jsonDoc(v any) (any, error) {
	b, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return jsonschema.UnmarshalJSON(bytes.NewReader(b))
}

// OpSchemas answers every op's JSON Schema, in catalog order. The maps are
// fresh on each call, so callers may keep or change them.
func (o *Ops) OpSchemas() []OpSchema {
	out := make([]OpSchema, len(o.defs))
	for i, d := range o.defs {
		out[i] = OpSchema{Op: d.name, Schema: d.schema.doc()}
	}
	return out
}

// Names lists the op names in catalog order.
func (o *Ops) Names() []string {
	names := make([]string, len(o.defs))
	for i, d := range o.defs {
		names[i] = d.name
	}
	return names
}

// Example answers the catalog's one-line example of an op.
func (o *Ops) Example(op string) (string, bool) {
	i, ok := o.byName[op]
	if !ok {
		return "", false
	}
	return o.defs[i].example, true
}

// Decode validates one op against its schema and decodes it; the error is
// an *OpError with Index 0.
func (o *Ops) Decode(raw json.RawMessage) (Op, error) {
	op, err := o.decode(raw)
	if err != nil {
		return nil, err
	}
	return op, nil
}

// decode validates raw against its op's schema and decodes it.
func (o *Ops) decode(raw json.RawMessage) (Op, *OpError) {
	inst, err := jsonschema.UnmarshalJSON(bytes.NewReader(raw))
	if err != nil {
		return nil, opErr("", `an op must be one JSON object like {"op":"setTitle","title":{"text":"Sales"}}: %s`, strings.TrimPrefix(err.Error(), "json: "))
	}
	obj, ok := inst.(map[string]any)
	if !ok {
		return nil, opErr("", `an op must be a JSON object like {"op":"setTitle","title":{"text":"Sales"}}; got %s`, jsonKind(inst))
	}
	nameV, present := obj["op"]
	if !present {
		return nil, opErr("op", "required: the op's name, one of %s", strings.Join(o.Names(), ", "))
	}
	name, ok := nameV.(string)
	if !ok {
		return nil, opErr("op", "must be a string naming the op, one of %s; got %s", strings.Join(o.Names(), ", "), jsonKind(nameV))
	}
	i, ok := o.byName[name]
	if !ok {
		hint := ""
		if near := nearest(name, o.Names()); near != "" {
			hint = fmt.Sprintf("did you mean %s? ", near)
		}
		return nil, opErr("op", "unknown op %q; %sthe ops are %s (get_op_catalog describes each)", name, hint, strings.Join(o.Names(), ", "))
	}
	d := o.defs[i]
	if err := o.compiled[i].Validate(inst); err != nil {
		ve, ok := err.(*jsonschema.ValidationError)
		if !ok {
			return nil, opErr("", "%s: %v", d.name, err)
		}
		field, msg := explainValidation(d, inst, ve)
		return nil, opErr(field, "%s; for example %s", msg, d.example)
	}
	op := d.newOp()
	if err := json.Unmarshal(raw, op); err != nil {
		// The schema admitted something the Go type cannot hold, such as
		// a number beyond float64: say so rather than apply half of it.
		var te *json.UnmarshalTypeError
		if errors.As(err, &te) && te.Field != "" {
			return nil, opErr(te.Field, "%s is out of range for %s; for example %s", te.Value, te.Type, d.example)
		}
		return nil, opErr("", "%s could not be read: %v; for example %s", d.name, err, d.example)
	}
	return op, nil
}

// Apply applies ops to a copy of spec, in order, all or none: the first
// refused op stops everything and answers an *OpError; spec itself is
// never changed. env.Table is the chart's data before steps.
func (o *Ops) Apply(spec *Spec, raw []json.RawMessage, env Env) (*Spec, error) {
	ct, ok := o.cat.Type(spec.Type)
	if !ok {
		return nil, fmt.Errorf("apply ops: the chart's type %q is not in the catalog", spec.Type)
	}
	st := newApplyState(o, spec.Clone(), ct, env)
	for i, r := range raw {
		op, oe := o.decode(r)
		if oe == nil {
			oe = op.apply(st)
		}
		if st.err != nil {
			return nil, fmt.Errorf("ops[%d]: %w", i, st.err)
		}
		if oe != nil {
			oe.Index = i
			return nil, oe
		}
	}
	return st.spec, nil
}

// jsonKind names a decoded JSON value's kind for messages.
func jsonKind(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case bool:
		return "a boolean"
	case string:
		return "a string"
	case json.Number, float64:
		return "a number"
	case []any:
		return "an array"
	case map[string]any:
		return "an object"
	}
	return fmt.Sprintf("%T", v)
}

// nearest answers the candidate closest to s when it is close enough to be
// a likely typo (case ignored), or "".
func nearest(s string, candidates []string) string {
	best, bestD := "", 1<<30
	ls := strings.ToLower(s)
	for _, c := range candidates {
		d := editDistance(ls, strings.ToLower(c))
		if d < bestD {
			best, bestD = c, d
		}
	}
	if bestD <= 3 && bestD < len(s) {
		return best
	}
	return ""
}

// editDistance is the Levenshtein distance of a and b in bytes.
func editDistance(a, b string) int {
	prev := make([]int, len(b)+1)
	cur := make([]int, len(b)+1)
	for j := range prev {
		prev[j] = j
	}
	for i := 1; i <= len(a); i++ {
		cur[0] = i
		for j := 1; j <= len(b); j++ {
			cost := 1
			if a[i-1] == b[j-1] {
				cost = 0
			}
			cur[j] = min(prev[j]+1, cur[j-1]+1, prev[j-1]+cost)
		}
		prev, cur = cur, prev
	}
	return prev[len(b)]
}

// fieldPath writes JSON Pointer tokens as a field path: title.text, colors[2].
func fieldPath(tokens []string) string {
	var b strings.Builder
	for _, t := range tokens {
		if isIndex(t) {
			b.WriteString("[" + t + "]")
			continue
		}
		if b.Len() > 0 {
			b.WriteByte('.')
		}
		b.WriteString(t)
	}
	return b.String()
}

func isIndex(t string) bool {
	if t == "" {
		return false
	}
	for _, r := range t {
		if r < '0' || r > '9' {
			return false
		}
	}
	return true
}

// join appends a token to a path.
func join(path []string, tok string) []string {
	return append(slices.Clone(path), tok)
}

// opDefs lists every op in catalog order.
func opDefs(cat *charts.Catalog) []opDef {
	return []opDef{
		defSetTitle(),
		defSetSubtitle(),
		defSetFooter(),
		defSetType(),
		defSetVariants(cat),
		defSetMapping(cat),
		defAddTransform(),
		defUpdateTransform(),
		defRemoveTransform(),
		defClearTransforms(),
		defSetPalette(cat),
		defSetSeriesColor(),
		defSetLegend(),
		defSetLabels(),
		defSetAxisTitle(),
		defSetAxis(),
		defSetNumberFormat(),
		defSetSize(),
		defAddAnnotation(),
		defAddReferenceLine(),
		defAddRange(),
		defRemoveAnnotation(),
		defClearAnnotations(),
		defSetHighlight(),
		defSetFacet(),
		defSetTheme(),
	}
}
