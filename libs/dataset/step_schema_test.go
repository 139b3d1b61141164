package dataset

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

// TestStepSchemasMatchDecoder holds the documented step schemas to the
// decoder: every type is one it decodes, every documented field is one it
// accepts, and a field the schema does not list is refused.
func TestStepSchemasMatchDecoder(t *testing.T) {
	var types []string
	for _, s := range StepSchemas() {
		types = append(types, s.Type)
		props := s.Schema["properties"].(map[string]any)
		fields := map[string]any{}
		for name := range props {
			fields[name] = sampleValue(s.Type, name)
		}
		raw, _ := json.Marshal(fields)
		if _, err := DecodeStep(raw); err != nil {
			t.Errorf("%s: every documented field at once %s: %v", s.Type, raw, err)
		}
		fields["undocumented"] = 1
		raw, _ = json.Marshal(fields)
		if _, err := DecodeStep(raw); err == nil || !strings.Contains(err.Error(), "undocumented") {
			t.Errorf("%s: a field the schema lacks was accepted: %v", s.Type, err)
		}
		for _, req := range s.Schema["required"].([]string) {
			delete(fields, "undocumented")
			partial := map[string]any{}
			for k, v := range fields {
				if k != req {
					partial[k] = v
				}
			}
			raw, _ = json.Marshal(partial)
			if _, err := DecodeStep(raw); err == nil {
				t.Errorf("%s: required field %s left out, yet decoded", s.Type, req)
			}
		}
	}
	if want := strings.Split(stepTypeList, ", "); !slices.Equal(types, want) {
		t.Errorf("schemas for %v, the decoder knows %v", types, want)
	}
}

// sampleValue is a valid value of a step field.
func sampleValue(typ, field string) any {
	switch field {
	case "type":
		return typ
	case "n":
		return 3
	case "direction":
		return "desc"
	case "operator":
		return "eq"
	case "value":
		return "x"
	case "unit":
		return "month"
	case "kind":
		return "text"
	case "groupBy", "columns":
		return []string{"c1"}
	case "measures":
		return []map[string]any{{"column": "c2", "fn": "sum"}}
	}
	return "c1"
}
