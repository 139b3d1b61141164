package chartspec

import (
	"fmt"
	"math/big"
	"slices"
	"strings"

	"github.com/santhosh-tekuri/jsonschema/v6"
	"github.com/santhosh-tekuri/jsonschema/v6/kind"
)

// explainValidation turns the schema library's error into one field path
// and a message that says what the field takes, in the words of the op's
// own schema. Of several problems it reports the one nearest the top of
// the op (a missing or unknown field before a wrong value deep inside).
func explainValidation(d opDef, inst any, e *jsonschema.ValidationError) (string, string) {
	for {
		loc := e.InstanceLocation
		node := d.schema.at(loc)
		if node != nil && node.explain != nil && len(loc) > 0 {
			if msg := node.explain(valueAt(inst, loc)); msg != "" {
				return fieldPath(loc), msg
			}
		}
		switch k := e.ErrorKind.(type) {
		case *kind.OneOf, *kind.AnyOf:
			return fieldPath(loc), alternatives(d, node, loc, valueAt(inst, loc))
		case *kind.Schema, *kind.Group, *kind.Reference, *kind.AllOf:
			if len(e.Causes) == 0 {
				return fieldPath(loc), fmt.Sprintf("is not a valid %s op", d.name)
			}
			e = firstCause(e.Causes)
			continue
		default:
			return leafMessage(d, node, loc, valueAt(inst, loc), k)
		}
	}
}

// firstCause picks the problem to report: the shallowest, then the first
// by path, so the answer is the same every time.
func firstCause(causes []*jsonschema.ValidationError) *jsonschema.ValidationError {
	sorted := slices.Clone(causes)
	slices.SortStableFunc(sorted, func(a, b *jsonschema.ValidationError) int {
		if len(a.InstanceLocation) != len(b.InstanceLocation) {
			return len(a.InstanceLocation) - len(b.InstanceLocation)
		}
		return strings.Compare(strings.Join(a.InstanceLocation, "/"), strings.Join(b.InstanceLocation, "/"))
	})
	return sorted[0]
}

// alternatives words a oneOf/anyOf failure: "give exactly one of palette,
// colors" for alternative required fields, else what the value must be.
func alternatives(d opDef, node *schema, loc []string, got any) string {
	if node != nil && len(node.oneOf) > 0 {
		var names []string
		for _, alt := range node.oneOf {
			if len(alt.required) == 1 && alt.types == nil && alt.props == nil {
				names = append(names, alt.required[0])
			}
		}
		if len(names) == len(node.oneOf) {
			return "give exactly one of " + strings.Join(names, ", ")
		}
	}
	return mustBe(node, got)
}

// mustBe is "must be <what the node takes>; got <value>".
func mustBe(node *schema, got any) string {
	what := "something else"
	if node != nil {
		what = node.signature()
		if node.desc != "" {
			what = node.desc + " (" + what + ")"
		}
	}
	return fmt.Sprintf("must be %s; got %s", what, showGot(got))
}

// leafMessage words one keyword failure.
func leafMessage(d opDef, node *schema, loc []string, got any, k jsonschema.ErrorKind) (string, string) {
	field := fieldPath(loc)
	switch k := k.(type) {
	case *kind.Required:
		name := k.Missing[0]
		what := "a value"
		if node != nil {
			if c := node.child(name); c != nil {
				what = c.desc
				if what == "" {
					what = c.signature()
				}
			}
		}
		return fieldPath(join(loc, name)), "required: " + what
	case *kind.AdditionalProperties:
		name := k.Properties[0]
		if node != nil && node.unknownKey != "" {
			return fieldPath(join(loc, name)), fmt.Sprintf(node.unknownKey, name)
		}
		owner := d.name
		if len(loc) > 0 {
			owner = field
		}
		var names []string
		if node != nil {
			names = node.propNames()
			if len(loc) == 0 {
				names = slices.DeleteFunc(names, func(n string) bool { return n == "op" })
			}
		}
		return fieldPath(join(loc, name)), fmt.Sprintf("unknown field; %s takes %s", owner, listOrNone(names))
	case *kind.MinProperties:
		var names []string
		if node != nil {
			for _, n := range node.propNames() {
				if n != "op" && !slices.Contains(node.required, n) {
					names = append(names, n)
				}
			}
		}
		if len(loc) == 0 {
			return "", fmt.Sprintf("changes nothing; give at least one of %s", listOrNone(names))
		}
		if len(names) == 0 {
			return field, "must not be empty"
		}
		return field, fmt.Sprintf("must not be empty; give at least one of %s", strings.Join(names, ", "))
	case *kind.Minimum, *kind.Maximum, *kind.ExclusiveMinimum, *kind.ExclusiveMaximum:
		if node != nil && node.min != nil && node.max != nil {
			return field, fmt.Sprintf("must be from %s to %s; got %s", formatNum(*node.min), formatNum(*node.max), showGot(got))
		}
		return field, mustBe(node, got)
	case *kind.MinLength:
		if k.Want == 1 {
			return field, "must not be empty"
		}
		return field, fmt.Sprintf("must be at least %d characters", k.Want)
	case *kind.MaxLength:
		return field, fmt.Sprintf("must be at most %d characters; got %d", k.Want, k.Got)
	case *kind.MinItems:
		return field, fmt.Sprintf("must list at least %d", k.Want)
	case *kind.MaxItems:
		return field, fmt.Sprintf("must list at most %d; got %d", k.Want, k.Got)
	case *kind.Enum:
		parts := make([]string, len(k.Want))
		for i, v := range k.Want {
			parts[i] = jsonText(v)
		}
		return field, fmt.Sprintf("must be one of %s; got %s", strings.Join(parts, ", "), showGot(got))
	}
	return field, mustBe(node, got)
}

// listOrNone joins names, or says there are none.
func listOrNone(names []string) string {
	if len(names) == 0 {
		return "no other fields"
	}
	return strings.Join(names, ", ")
}

// showGot writes the value sent, shortened, for messages.
func showGot(v any) string {
	switch v.(type) {
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	s := jsonText(v)
	if r, ok := v.(*big.Rat); ok {
		s = r.FloatString(6)
	}
	if len(s) > 60 {
		s = s[:57] + "…"
	}
	return s
}

// valueAt finds the instance value at a JSON Pointer path.
func valueAt(inst any, path []string) any {
	cur := inst
	for _, tok := range path {
		switch c := cur.(type) {
		case map[string]any:
			cur = c[tok]
		case []any:
			i := 0
			for _, r := range tok {
				i = i*10 + int(r-'0')
			}
			if i < 0 || i >= len(c) {
				return nil
			}
			cur = c[i]
		default:
			return nil
		}
	}
	return cur
}
