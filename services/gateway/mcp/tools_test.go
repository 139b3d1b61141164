package mcp

import (
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"slices"
	"strings"
	"testing"

	"github.com/santhosh-tekuri/jsonschema/v6"

	"chartd.dev/libs/route"
	"chartd.dev/services/gateway"
)

// toolsListBudget is the most tools/list may weigh: every assistant
// session reads it whole (95 KB, ~24k tokens, before the op schemas were
// cut to their one-line forms).
const toolsListBudget = 28 << 10

// listTools answers tools/list as an assistant receives it, over the
// Streamable HTTP handler: the raw answer and its tools.
func listTools(t *testing.T) ([]byte, []map[string]any) {
	t.Helper()
	doc, err := gateway.OpenAPI("https://chartd.example/api/v1")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(doc, documented(t, doc), func() http.Handler { return http.NotFoundHandler() }, "https://chartd.example", nil)
	if err != nil {
		t.Fatal(err)
	}
	req := httptest.NewRequest(http.MethodPost, Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
	req.Header.Set("Content-Type", "application/json")
	req.Header.Set("Accept", "application/json, text/event-stream")
	rec := httptest.NewRecorder()
	s.Handler().ServeHTTP(rec, req)
	if rec.Code != http.StatusOK {
		t.Fatalf("tools/list: %d %s", rec.Code, rec.Body)
	}
	var answer struct {
		Result struct {
			Tools []map[string]any `json:"tools"`
		} `json:"result"`
	}
	if err := json.Unmarshal(rec.Body.Bytes(), &answer); err != nil || len(answer.Result.Tools) == 0 {
		t.Fatalf("tools/list answer: %v %.300s", err, rec.Body)
	}
	return rec.Body.Bytes(), answer.Result.Tools
}

// TestToolsList lists the tools as an assistant does and checks every
// tool's title and annotations, the byte budget of the whole answer, and
// every input and output schema with a strict validator.
func TestToolsList(t *testing.T) {
	raw, tools := listTools(t)
	t.Logf("tools/list: %d tools, %d bytes", len(tools), len(raw))
	if len(raw) > toolsListBudget {
		t.Errorf("tools/list is %d bytes, over the budget of %d", len(raw), toolsListBudget)
	}
	readPrefixes := []string{"get_", "list_", "describe_", "query_", "lint_", "render_", "lookup_"}
	for _, tool := range tools {
		name, _ := tool["name"].(string)
		t.Run(name, func(t *testing.T) {
			if title, _ := tool["title"].(string); title == "" {
				t.Error("no title")
			}
			ann, _ := tool["annotations"].(map[string]any)
			if ann == nil {
				t.Fatal("no annotations")
			}
			for _, hint := range []string{"readOnlyHint", "destructiveHint", "idempotentHint", "openWorldHint"} {
				if _, ok := ann[hint].(bool); !ok {
					t.Errorf("annotation %s is %v, want true or false", hint, ann[hint])
				}
			}
			read := slices.ContainsFunc(readPrefixes, func(p string) bool { return strings.HasPrefix(name, p) })
			if ann["readOnlyHint"] != read && name != "extract_brand_palette" {
				t.Errorf("readOnlyHint %v, want %v", ann["readOnlyHint"], read)
			}
			destructive := name == "delete_chart" || name == "set_data"
			if ann["destructiveHint"] != destructive {
				t.Errorf("destructiveHint %v, want %v", ann["destructiveHint"], destructive)
			}
			if read && ann["idempotentHint"] != true {
				t.Error("a read tool is not idempotent")
			}
			out, hasOut := tool["outputSchema"]
			if read && !hasOut && !strings.HasPrefix(name, "render_") {
				t.Error("a read tool answering JSON has no outputSchema")
			}
			checkStrict(t, "inputSchema", tool["inputSchema"])
			if hasOut {
				checkStrict(t, "outputSchema", out)
			}
		})
	}
}

// keywords are JSON Schema 2020-12's; a strict validator (ajv's strict
// mode) refuses any other.
func keywords() map[string]bool {
	out := map[string]bool{}
	for _, k := range strings.Fields(`$schema $id $ref $defs $anchor $dynamicRef $dynamicAnchor $comment $vocabulary
		allOf anyOf oneOf not if then else dependentSchemas prefixItems items contains properties patternProperties
		additionalProperties propertyNames unevaluatedItems unevaluatedProperties type enum const multipleOf maximum
		exclusiveMaximum minimum exclusiveMinimum maxLength minLength pattern maxItems minItems uniqueItems maxContains
		minContains maxProperties minProperties required dependentRequired format contentEncoding contentMediaType
		contentSchema title description default deprecated readOnly writeOnly examples`) {
		out[k] = true
	}
	return out
}

// formats are the ones ajv-formats knows; a strict validator refuses an
// unknown format.
var formats = []string{"date-time", "date", "time", "duration", "uri", "uri-reference", "uuid", "email", "hostname", "ipv4", "ipv6", "regex"}

// checkStrict compiles a schema with santhosh-tekuri/jsonschema (draft
// 2020-12, checked against its metaschema) and refuses what strict
// validators refuse: unknown keywords, union types, unknown formats, and
// a root that is not an object schema.
func checkStrict(t *testing.T, what string, schema any) {
	t.Helper()
	m, _ := schema.(map[string]any)
	if m["type"] != "object" {
		t.Errorf("%s: root type %v, want object", what, m["type"])
	}
	c := jsonschema.NewCompiler()
	c.DefaultDraft(jsonschema.Draft2020)
	if err := c.AddResource("tool.json", schema); err != nil {
		t.Fatalf("%s: %v", what, err)
	}
	if _, err := c.Compile("tool.json"); err != nil {
		t.Errorf("%s does not compile: %v", what, err)
	}
	known := keywords()
	var walk func(path string, v any)
	walk = func(path string, v any) {
		s, ok := v.(map[string]any)
		if !ok {
			return
		}
		for k, e := range s {
			p := path + "/" + k
			if !known[k] {
				t.Errorf("%s: unknown keyword %s", what, p)
			}
			switch k {
			case "properties", "$defs", "patternProperties", "dependentSchemas":
				sub, _ := e.(map[string]any)
				for name, child := range sub {
					walk(p+"/"+name, child)
				}
			case "allOf", "anyOf", "oneOf", "prefixItems":
				list, _ := e.([]any)
				for i, child := range list {
					walk(fmt.Sprintf("%s/%d", p, i), child)
				}
			case "type":
				if _, ok := e.(string); !ok {
					t.Errorf("%s: union type %v at %s", what, e, p)
				}
			case "format":
				if !slices.Contains(formats, fmt.Sprint(e)) {
					t.Errorf("%s: unknown format %v at %s", what, e, p)
				}
			case "enum", "const", "required", "default", "examples", "description", "title", "pattern", "$ref":
			default:
				walk(p, e)
			}
		}
	}
	walk("", schema)
}

// TestOriginRefused sends tools/list from a foreign web origin, from the
// site's own and from no origin: only the foreign one is refused.
func TestOriginRefused(t *testing.T) {
	doc, err := gateway.OpenAPI("https://chartd.example/api/v1")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(doc, documented(t, doc), func() http.Handler { return http.NotFoundHandler() }, "https://chartd.example", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct {
		origin string
		want   int
	}{{"http://evil.example", http.StatusForbidden}, {"https://chartd.example.evil.example", http.StatusForbidden}, {"null", http.StatusForbidden},
		{"https://chartd.example", http.StatusOK}, {"", http.StatusOK}} {
		req := httptest.NewRequest(http.MethodPost, Path, strings.NewReader(`{"jsonrpc":"2.0","id":1,"method":"tools/list"}`))
		req.Header.Set("Content-Type", "application/json")
		req.Header.Set("Accept", "application/json, text/event-stream")
		if tt.origin != "" {
			req.Header.Set("Origin", tt.origin)
		}
		rec := httptest.NewRecorder()
		s.Handler().ServeHTTP(rec, req)
		if rec.Code != tt.want {
			t.Errorf("Origin %q: %d, want %d: %.200s", tt.origin, rec.Code, tt.want, rec.Body)
		}
	}
}

// TestNamingTools checks that a refusal's pointers to REST calls name the
// tools that make them: an assistant calls tools.
func TestNamingTools(t *testing.T) {
	doc, err := gateway.OpenAPI("https://chartd.example/api/v1")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New(doc, documented(t, doc), func() http.Handler { return http.NotFoundHandler() }, "https://chartd.example", nil)
	if err != nil {
		t.Fatal(err)
	}
	for _, tt := range []struct{ in, want string }{
		{"no chart x in this account; list your charts with GET /charts", "no chart x in this account; list your charts with the tool list_charts"},
		{"chart 1 changed since expected_updated_at; read it again (GET /charts/0f0e0d0c-0b0a-4000-8000-000000000000) and retry", "chart 1 changed since expected_updated_at; read it again (the tool get_chart) and retry"},
		{`type "x" is not a chart type; GET /chart-types lists them`, `type "x" is not a chart type; the tool list_chart_types lists them`},
		{"render it with GET /api/v1/charts/abc/render.png", "render it with the tool render_chart"},
		{"see GET /docs/limits", "see GET /docs/limits"},
	} {
		if got := s.namingTools(tt.in); got != tt.want {
			t.Errorf("namingTools(%q)\n = %q\nwant %q", tt.in, got, tt.want)
		}
	}
}

// documented answers a route for every operation of the document, as the
// services' tables declare them (services/chartd's
// TestEveryOperationHasOneTool builds the tools from the real tables).
func documented(t *testing.T, doc []byte) []route.Route {
	t.Helper()
	var d struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
	}
	if err := json.Unmarshal(doc, &d); err != nil {
		t.Fatal(err)
	}
	var routes []route.Route
	for path, item := range d.Paths {
		for method, raw := range item {
			var op struct {
				OperationID string `json:"operationId"`
			}
			if json.Unmarshal(raw, &op) != nil || op.OperationID == "" {
				continue
			}
			routes = append(routes, route.Route{Op: op.OperationID, Method: strings.ToUpper(method), Path: route.APIBase + path})
		}
	}
	return routes
}

// TestToolsReadTheRegistry: the tools are the registry's API routes; a
// route the document lacks, or a documented operation no route serves,
// refuses to build the table, and internal routes are never tools.
func TestToolsReadTheRegistry(t *testing.T) {
	doc, err := gateway.OpenAPI("https://chartd.example/api/v1")
	if err != nil {
		t.Fatal(err)
	}
	all := documented(t, doc)
	internal := route.Route{Op: "load_chart", Method: http.MethodGet, Path: "/internal/v1/charts/{id}", Access: route.Internal}
	var withoutLint []route.Route
	for _, rt := range all {
		if rt.Op != "lint_chart" {
			withoutLint = append(withoutLint, rt)
		}
	}
	for _, tt := range []struct {
		name   string
		routes []route.Route
		err    string
	}{
		{"every documented route", append(slices.Clone(all), internal), ""},
		{"a documented operation without a route", withoutLint, "get /charts/{id}/lint (lint_chart) is documented but no route serves it"},
		{"a route the document lacks", append(slices.Clone(all), route.Route{Op: "made_up", Method: http.MethodGet, Path: route.APIBase + "/made-up"}),
			"the route GET /made-up (made_up) is not documented"},
		{"a route under another name", append(slices.Clone(withoutLint), route.Route{Op: "lint", Method: http.MethodGet, Path: route.APIBase + "/charts/{id}/lint"}),
			`operationId "lint_chart", the route's operation is lint`},
	} {
		t.Run(tt.name, func(t *testing.T) {
			tools, err := Tools(doc, tt.routes)
			if tt.err != "" {
				if err == nil || !strings.Contains(err.Error(), tt.err) {
					t.Fatalf("error %v, want one with %q", err, tt.err)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			for _, tool := range tools {
				if tool.Op == internal.Op || tool.Op == "get_image" || tool.Op == "get_embed" || tool.Op == "get_oembed" || tool.Op == "get_openapi" {
					t.Errorf("%s is a tool", tool.Op)
				}
			}
			if len(tools) != len(all)-4 {
				t.Errorf("%d tools of %d documented routes (get_image, get_embed, get_oembed and get_openapi need no credentials)", len(tools), len(all))
			}
		})
	}
}
