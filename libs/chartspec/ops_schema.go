package chartspec

import (
	"encoding/json"
	"fmt"
	"slices"
	"strconv"
	"strings"
)

// schema is one JSON Schema node, written as Go so that the same value
// gives the served schema (doc), the line of the text catalog (sig) and the
// words of error messages (desc, explain). Only the keywords ops need exist.
type schema struct {
	types    []string // JSON Schema "type"; several when null is allowed
	desc     string   // a noun phrase: reads after "must be" and "required:"
	constVal any
	enum     []any
	props    []prop // properties, in the order the catalog lists them
	required []string
	closed   bool    // additionalProperties: false
	values   *schema // additionalProperties as a schema (maps keyed by role)
	items    *schema
	min, max *float64
	minLen   int
	maxLen   int
	minItems int
	maxItems int
	minProps int
	pattern  string
	oneOf    []*schema
	anyOf    []*schema
	// sig, when set, is the compact form the catalog shows instead of a
	// derived one.
	sig string
	// unknownKey words the refusal of a key a closed object does not have;
	// %q is the key.
	unknownKey string
	// explain, when set, words any failure at this node from the value sent.
	explain func(got any) string
}

// prop is a named property.
type prop struct {
	name string
	s    *schema
}

// doc answers the node as a JSON Schema document (encoding/json values).
func (s *schema) doc() map[string]any {
	m := map[string]any{}
	switch len(s.types) {
	case 0:
	case 1:
		m["type"] = s.types[0]
	default:
		m["type"] = slices.Clone(s.types)
	}
	if s.desc != "" {
		m["description"] = s.desc
	}
	if s.constVal != nil {
		m["const"] = s.constVal
	}
	if s.enum != nil {
		m["enum"] = slices.Clone(s.enum)
	}
	if s.props != nil {
		ps := map[string]any{}
		for _, p := range s.props {
			ps[p.name] = p.s.doc()
		}
		m["properties"] = ps
	}
	if len(s.required) > 0 {
		m["required"] = slices.Clone(s.required)
	}
	if s.closed {
		m["additionalProperties"] = false
	} else if s.values != nil {
		m["additionalProperties"] = s.values.doc()
	}
	if s.items != nil {
		m["items"] = s.items.doc()
	}
	if s.min != nil {
		m["minimum"] = *s.min
	}
	if s.max != nil {
		m["maximum"] = *s.max
	}
	if s.minLen > 0 {
		m["minLength"] = s.minLen
	}
	if s.maxLen > 0 {
		m["maxLength"] = s.maxLen
	}
	if s.minItems > 0 {
		m["minItems"] = s.minItems
	}
	if s.maxItems > 0 {
		m["maxItems"] = s.maxItems
	}
	if s.minProps > 0 {
		m["minProperties"] = s.minProps
	}
	if s.pattern != "" {
		m["pattern"] = s.pattern
	}
	if s.oneOf != nil {
		m["oneOf"] = docs(s.oneOf)
	}
	if s.anyOf != nil {
		m["anyOf"] = docs(s.anyOf)
	}
	return m
}

func docs(ss []*schema) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s.doc()
	}
	return out
}

// at finds the node that describes the value at path (JSON Pointer
// tokens), or nil.
func (s *schema) at(path []string) *schema {
	cur := s
	for _, tok := range path {
		next := cur.child(tok)
		if next == nil {
			return nil
		}
		cur = next
	}
	return cur
}

// child is the node of one property or array item.
func (s *schema) child(tok string) *schema {
	for _, p := range s.props {
		if p.name == tok {
			return p.s
		}
	}
	if s.values != nil {
		return s.values
	}
	if s.items != nil {
		if _, err := strconv.Atoi(tok); err == nil {
			return s.items
		}
	}
	for _, alt := range append(slices.Clone(s.oneOf), s.anyOf...) {
		if c := alt.child(tok); c != nil {
			return c
		}
	}
	return nil
}

// propNames lists the property names, for messages.
func (s *schema) propNames() []string {
	names := make([]string, len(s.props))
	for i, p := range s.props {
		names[i] = p.name
	}
	return names
}

// signature is the node in the catalog's compact notation:
// {text, show?} objects, "a"|"b" enums, string, int 100..4000, [item].
func (s *schema) signature() string {
	if s.sig != "" {
		return s.sig
	}
	switch {
	case s.constVal != nil:
		return jsonText(s.constVal)
	case s.enum != nil:
		parts := make([]string, len(s.enum))
		for i, v := range s.enum {
			parts[i] = jsonText(v)
		}
		return strings.Join(parts, "|")
	case len(s.oneOf) > 0:
		parts := make([]string, len(s.oneOf))
		for i, alt := range s.oneOf {
			parts[i] = alt.signature()
		}
		return strings.Join(parts, "|")
	case s.props != nil:
		return s.objectSig(nil)
	case s.items != nil:
		return "[" + s.items.signature() + "]"
	}
	var parts []string
	for _, t := range s.types {
		parts = append(parts, s.scalarSig(t))
	}
	return strings.Join(parts, "|")
}

// objectSig writes {a, b?, c:…}; skip leaves out properties (the op field).
func (s *schema) objectSig(skip map[string]bool) string {
	var parts []string
	for _, p := range s.props {
		if skip[p.name] {
			continue
		}
		name := p.name
		if !slices.Contains(s.required, p.name) {
			name += "?"
		}
		parts = append(parts, name+":"+p.s.signature())
	}
	return "{" + strings.Join(parts, ", ") + "}"
}

// scalarSig writes one JSON type with its bounds.
func (s *schema) scalarSig(t string) string {
	switch t {
	case "integer", "number":
		word := "number"
		if t == "integer" {
			word = "int"
		}
		if s.min != nil && s.max != nil {
			return word + " " + formatNum(*s.min) + ".." + formatNum(*s.max)
		}
		return word
	case "boolean":
		return "bool"
	}
	return t
}

// jsonText writes a value as JSON for messages and the catalog.
func jsonText(v any) string {
	b, err := json.Marshal(v)
	if err != nil {
		return fmt.Sprint(v)
	}
	return string(b)
}

// formatNum writes a bound without trailing zeros.
func formatNum(f float64) string { return strconv.FormatFloat(f, 'f', -1, 64) }

// Small constructors keep the op definitions readable.

func str(desc string) *schema { return &schema{types: []string{"string"}, desc: desc} }

func boolean(desc string) *schema { return &schema{types: []string{"boolean"}, desc: desc} }

func integer(desc string, lo, hi float64) *schema {
	return &schema{types: []string{"integer"}, desc: desc, min: &lo, max: &hi}
}

func number(desc string) *schema { return &schema{types: []string{"number"}, desc: desc} }

func enumOf(desc string, values ...string) *schema {
	vs := make([]any, len(values))
	for i, v := range values {
		vs[i] = v
	}
	return &schema{types: []string{"string"}, desc: desc, enum: vs}
}

func object(desc string, required []string, props ...prop) *schema {
	return &schema{types: []string{"object"}, desc: desc, props: props, required: required, closed: true}
}

// nullable lets a node also take null (which clears the setting).
func nullable(s *schema) *schema {
	s.types = append(s.types, "null")
	if s.enum != nil {
		s.enum = append(s.enum, nil)
	}
	return s
}

func p(name string, s *schema) prop { return prop{name: name, s: s} }

// colorPattern accepts #RRGGBB and #RGB in either case.
const colorPattern = "^#([0-9A-Fa-f]{6}|[0-9A-Fa-f]{3})$"

func colorString(desc string) *schema {
	s := str(desc)
	s.pattern = colorPattern
	return s
}
