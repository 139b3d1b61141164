package gateway

import (
	"bytes"
	"context"
	"encoding/json"
	"flag"
	"net/http/httptest"
	"os"
	"strings"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"
	"github.com/getkin/kin-openapi/openapi3filter"
	"github.com/getkin/kin-openapi/routers/gorillamux"

	"chartd.dev/charts"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

var update = flag.Bool("update", false, "rewrite openapi_types.json from the op catalog and the step schemas")

// typedSchemas builds the document's typed Op and Step schemas: one
// component per op (the very schema GET /ops serves and requests are
// validated with) and per step type, and Op and Step as a oneOf of them
// discriminated by `op` and `type`.
func typedSchemas(t *testing.T) []byte {
	t.Helper()
	cat, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	ops, err := chartspec.NewOps(cat)
	if err != nil {
		t.Fatal(err)
	}
	out := map[string]any{}
	ref := func(name string) map[string]any { return map[string]any{"$ref": "#/components/schemas/" + name} }
	stepRefs, stepMap := []any{}, map[string]any{}
	for _, s := range dataset.StepSchemas() {
		name := "Step_" + s.Type
		out[name] = s.Schema
		stepRefs = append(stepRefs, ref(name))
		stepMap[s.Type] = "#/components/schemas/" + name
	}
	out["Step"] = map[string]any{
		"description":   "A data step, one of the step types; the docs page on steps explains each.",
		"oneOf":         stepRefs,
		"discriminator": map[string]any{"propertyName": "type", "mapping": stepMap},
	}
	opRefs, opMap := []any{}, map[string]any{}
	for _, o := range ops.OpSchemas() {
		name := "Op_" + o.Op
		schema := o.Schema
		if props, ok := schema["properties"].(map[string]any); ok {
			if _, ok := props["transform"]; ok {
				props["transform"] = ref("Step")
			}
		}
		out[name] = splitTypes(schema)
		opRefs = append(opRefs, ref(name))
		opMap[o.Op] = "#/components/schemas/" + name
	}
	out["Op"] = map[string]any{
		"description":   "An edit operation, one of the ops GET /ops lists.",
		"oneOf":         opRefs,
		"discriminator": map[string]any{"propertyName": "op", "mapping": opMap},
	}
	b, err := json.MarshalIndent(out, "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	return append(b, '\n')
}

// typeKeywords are the keywords that apply to one JSON type only.
var typeKeywords = map[string][]string{
	"string":  {"minLength", "maxLength", "pattern", "format"},
	"array":   {"items", "minItems", "maxItems", "uniqueItems"},
	"number":  {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"},
	"integer": {"minimum", "maximum", "exclusiveMinimum", "exclusiveMaximum", "multipleOf"},
	"object":  {"properties", "required", "additionalProperties"},
}

// splitTypes rewrites a schema whose type lists several non-null types
// (["string","array"]) as a oneOf of one schema per type, each with its own
// keywords: the same set of values, in the shape code generators handle.
func splitTypes(v any) any {
	switch x := v.(type) {
	case []any:
		for i := range x {
			x[i] = splitTypes(x[i])
		}
	case map[string]any:
		for k := range x {
			x[k] = splitTypes(x[k])
		}
		types, ok := x["type"].([]string)
		if !ok {
			if raw, isList := x["type"].([]any); isList {
				for _, t := range raw {
					types = append(types, t.(string))
				}
			}
		}
		var kinds []string
		for _, t := range types {
			if t != "null" {
				kinds = append(kinds, t)
			}
		}
		if len(kinds) < 2 {
			return x
		}
		var alts []any
		for _, t := range types {
			alt := map[string]any{"type": t}
			for _, k := range typeKeywords[t] {
				if kv, ok := x[k]; ok {
					alt[k] = kv
				}
			}
			alts = append(alts, alt)
		}
		out := map[string]any{"oneOf": alts}
		if d, ok := x["description"]; ok {
			out["description"] = d
		}
		return out
	}
	return v
}

// TestTypedSchemasMatchCatalog: openapi_types.json is what the op catalog
// and the step decoder define today (go test -run TypedSchemas -update).
func TestTypedSchemasMatchCatalog(t *testing.T) {
	want := typedSchemas(t)
	if *update {
		if err := os.WriteFile("openapi_types.json", want, 0o644); err != nil {
			t.Fatal(err)
		}
	}
	got, err := os.ReadFile("openapi_types.json")
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(got, want) {
		t.Fatal("openapi_types.json is stale; run go test -run TypedSchemas -update in services/gateway")
	}
}

// TestServedDocumentTypesOps: the served document's Op is the oneOf, and
// every response carries the three rate-limit headers.
func TestServedDocumentTypesOps(t *testing.T) {
	raw, err := OpenAPI("http://example.test/api/v1")
	if err != nil {
		t.Fatal(err)
	}
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas   map[string]map[string]any `json:"schemas"`
			Responses map[string]struct {
				Headers map[string]any `json:"headers"`
			} `json:"responses"`
		} `json:"components"`
	}
	if err := json.Unmarshal(raw, &doc); err != nil {
		t.Fatal(err)
	}
	op := doc.Components.Schemas["Op"]
	if oneOf, _ := op["oneOf"].([]any); len(oneOf) < 18 {
		t.Fatalf("Op has %d alternatives", len(oneOf))
	}
	title := doc.Components.Schemas["Op_setTitle"]
	if props, _ := title["properties"].(map[string]any); props["title"] == nil {
		t.Fatalf("Op_setTitle lacks title: %v", title)
	}
	headers := []string{HeaderLimit, HeaderRemaining, HeaderReset}
	for path, item := range doc.Paths {
		for method, rawOp := range item {
			var o struct {
				Responses map[string]struct {
					Ref     string         `json:"$ref"`
					Headers map[string]any `json:"headers"`
				} `json:"responses"`
			}
			if err := json.Unmarshal(rawOp, &o); err != nil {
				continue // not an operation (path-level fields)
			}
			for status, r := range o.Responses {
				if r.Ref != "" {
					continue // shared responses are checked below
				}
				for _, h := range headers {
					if r.Headers[h] == nil {
						t.Errorf("%s %s %s lacks %s", method, path, status, h)
					}
				}
			}
		}
	}
	for name, r := range doc.Components.Responses {
		for _, h := range headers {
			if r.Headers[h] == nil {
				t.Errorf("response %s lacks %s", name, h)
			}
		}
	}
}

// TestDocumentValidatesTypedOps: a validator reading the served document
// accepts a well-typed op and step and refuses a mistyped one.
func TestDocumentValidatesTypedOps(t *testing.T) {
	raw, err := OpenAPI("http://example.test/api/v1")
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatal(err)
	}
	router, err := gorillamux.NewRouter(doc)
	if err != nil {
		t.Fatal(err)
	}
	check := func(path, body string) error {
		req := httptest.NewRequest("POST", "http://example.test/api/v1"+path, strings.NewReader(body))
		req.Header.Set("Content-Type", "application/json")
		route, params, err := router.FindRoute(req)
		if err != nil {
			t.Fatal(err)
		}
		return openapi3filter.ValidateRequest(context.Background(), &openapi3filter.RequestValidationInput{Request: req, PathParams: params, Route: route,
			Options: &openapi3filter.Options{AuthenticationFunc: openapi3filter.NoopAuthenticationFunc}})
	}
	const id = "/charts/0b6f7f0e-6a43-4a7c-9a3f-2f3a0d1c5e11"
	for _, tc := range []struct {
		path, body string
		ok         bool
	}{
		{id + "/ops", `{"ops":[{"op":"setTitle","title":{"text":"Sales"}}]}`, true},
		{id + "/ops", `{"ops":[{"op":"setTitle","title":5}]}`, false},
		{id + "/ops", `{"ops":[{"op":"setTitle","title":{"text":"x"},"colour":"red"}]}`, false},
		{id + "/ops", `{"ops":[{"op":"addTransform","transform":{"type":"sort","column":"c2","direction":"desc"}}]}`, true},
		{id + "/ops", `{"ops":[{"op":"addTransform","transform":{"type":"sort","direction":"sideways","column":"c2"}}]}`, false},
		{id + "/data/query", `{"steps":[{"type":"topN","n":3}]}`, true},
		{id + "/data/query", `{"steps":[{"type":"topN","n":"three"}]}`, false},
	} {
		err := check(tc.path, tc.body)
		if (err == nil) != tc.ok {
			t.Errorf("%s %s: validation error %v, want ok=%v", tc.path, tc.body, err, tc.ok)
		}
	}
}
