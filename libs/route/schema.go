package route

import (
	"encoding/json"
	"fmt"
	"reflect"
	"slices"
	"strconv"
	"strings"
	"time"

	"github.com/go-json-experiment/json/jsontext"
)

// Mismatches compares the shapes of typed endpoints with the OpenAPI
// document that describes them, field by field: the names of the query
// and path parameters, body members and answer members, which are
// required, their JSON types (down every nested struct, slice and map)
// and their enums. Each difference is one line naming the operation and
// the field. Routes outside the document (internal, hand-written) are
// passed over.
//
// The Go side says what Go cannot by tags: `api:"required"` on a request
// member the body must carry, `enum:"a,b"` on a field with fixed values
// (`enum:"$name"` for the values of sets[name], a list that lives in data
// such as the chart types of the catalog). An answer member is required
// unless it is omitempty or omitzero, or tagged `api:"optional"` where one
// schema serves requests too and so cannot require it.
func Mismatches(openapi []byte, contracts []Contract, sets map[string][]string) ([]string, error) {
	var doc struct {
		Paths map[string]map[string]json.RawMessage `json:"paths"`
		Comps struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapi, &doc); err != nil {
		return nil, fmt.Errorf("read the openapi document: %w", err)
	}
	c := comparer{schemas: doc.Comps.Schemas, sets: sets}
	for _, ct := range contracts {
		if ct.Req == nil {
			continue
		}
		path := ct.APIPath()
		if ct.Access == Internal || path == "" {
			continue
		}
		item, ok := doc.Paths[path]
		if !ok {
			c.addf(ct.Op, "%s %s is not in the document", ct.Method, path)
			continue
		}
		raw, ok := item[strings.ToLower(ct.Method)]
		if !ok {
			c.addf(ct.Op, "%s %s is not in the document", ct.Method, path)
			continue
		}
		var op Operation
		if err := json.Unmarshal(raw, &op); err != nil {
			return nil, fmt.Errorf("openapi %s %s: %w", ct.Method, path, err)
		}
		if op.OperationID != ct.Op {
			c.addf(ct.Op, "the document names %s %s %q", ct.Method, path, op.OperationID)
		}
		var shared []Parameter
		if raw, ok := item["parameters"]; ok {
			if err := json.Unmarshal(raw, &shared); err != nil {
				return nil, fmt.Errorf("openapi %s parameters: %w", path, err)
			}
		}
		c.op = ct.Op
		c.params(ct.Req, append(shared, op.Parameters...))
		c.body(ct.Req, op.RequestBody)
		c.answer(ct.Resp, ct.Status, op.Responses)
	}
	return c.out, nil
}

// Operation is an OpenAPI operation as chartd reads its own document:
// for the schema check here and for the MCP tools.
type Operation struct {
	OperationID string      `json:"operationId"`
	Summary     string      `json:"summary"`
	Description string      `json:"description"`
	Parameters  []Parameter `json:"parameters"`
	// Security is nil when the document's default applies; an empty list
	// says the operation needs no credentials.
	Security    *[]any             `json:"security"`
	RequestBody *Content           `json:"requestBody"`
	Responses   map[string]Content `json:"responses"`
}

// Parameter is an OpenAPI parameter of a path or an operation.
type Parameter struct {
	Name        string         `json:"name"`
	In          string         `json:"in"`
	Required    bool           `json:"required"`
	Description string         `json:"description"`
	Schema      map[string]any `json:"schema"`
}

// Content is a request body or an answer: its schema by media type.
type Content struct {
	Content map[string]MediaType `json:"content"`
}

// MediaType is the schema of one media type of a Content.
type MediaType struct {
	Schema map[string]any `json:"schema"`
}

// comparer gathers the differences of one document.
type comparer struct {
	schemas map[string]any
	sets    map[string][]string
	op      string
	out     []string
}

func (c *comparer) addf(op, format string, args ...any) {
	c.out = append(c.out, op+": "+fmt.Sprintf(format, args...))
}

// params compares the `query` and `path` fields of req with the document's
// parameters: names, required and enums (their values travel as text, so
// a Go string stands for any scalar type).
func (c *comparer) params(req reflect.Type, doc []Parameter) {
	for _, in := range []string{"query", "path"} {
		goFields := map[string]reflect.StructField{}
		for i := 0; i < req.NumField(); i++ {
			if name, ok := req.Field(i).Tag.Lookup(in); ok {
				goFields[name] = req.Field(i)
			}
		}
		for _, p := range doc {
			if p.In != in {
				continue
			}
			f, ok := goFields[p.Name]
			if !ok {
				c.addf(c.op, "%s parameter %q is in the document, not in %v", in, p.Name, req)
				continue
			}
			delete(goFields, p.Name)
			if want := in == "path" || f.Tag.Get("api") == "required"; p.Required != want {
				c.addf(c.op, "%s parameter %q: required is %v in the document, %v in Go", in, p.Name, p.Required, want)
			}
			if k := c.kind(p.Schema); k == "object" || k == "array" {
				c.addf(c.op, "%s parameter %q is an %s in the document", in, p.Name, k)
			}
			c.enum(in+" parameter "+strconv.Quote(p.Name), f, c.resolve(p.Schema))
		}
		for _, name := range sortedKeys(goFields) {
			c.addf(c.op, "%s parameter %q of %v is not in the document", in, name, req)
		}
	}
}

// body compares req's JSON members with the request body's schema.
func (c *comparer) body(req reflect.Type, rb *Content) {
	members := jsonMembers(req)
	var schema map[string]any
	if rb != nil {
		schema = rb.Content["application/json"].Schema
	}
	switch {
	case len(members) == 0 && schema == nil:
	case len(members) == 0:
		c.addf(c.op, "the document has a request body, %v has no body members", req)
	case schema == nil:
		c.addf(c.op, "%v has body members, the document no JSON request body", req)
	default:
		c.compare("body", req, schema, true)
	}
}

// answer compares resp with the JSON answer of status.
func (c *comparer) answer(resp reflect.Type, status int, responses map[string]Content) {
	r, ok := responses[strconv.Itoa(status)]
	if !ok {
		c.addf(c.op, "the document has no %d answer", status)
		return
	}
	schema := r.Content["application/json"].Schema
	switch {
	case resp == nil && schema == nil:
	case resp == nil:
		c.addf(c.op, "the document answers JSON with %d, the endpoint declares no JSON answer", status)
	case schema == nil:
		c.addf(c.op, "%v is answered with %d, the document has no JSON answer there", resp, status)
	default:
		c.compare("answer", resp, schema, false)
	}
}

// resolve follows $ref to the component schema.
func (c *comparer) resolve(s map[string]any) map[string]any {
	for range 16 {
		ref, ok := s["$ref"].(string)
		if !ok {
			return s
		}
		next, _ := c.schemas[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
		if next == nil {
			return map[string]any{}
		}
		s = next
	}
	return s
}

// kind is the one JSON type a schema allows besides null; "" for any or
// several (oneOf, anyOf, a free schema).
func (c *comparer) kind(s map[string]any) string {
	s = c.resolve(s)
	switch t := s["type"].(type) {
	case string:
		return t
	case []any:
		var kinds []string
		for _, k := range t {
			if k != "null" {
				kinds = append(kinds, fmt.Sprint(k))
			}
		}
		if len(kinds) == 1 {
			return kinds[0]
		}
	}
	return ""
}

// isRaw says whether t holds any JSON as it came (the handler reads it).
func isRaw(t reflect.Type) bool {
	return t == reflect.TypeFor[json.RawMessage]() || t == reflect.TypeFor[jsontext.Value]() || t.Kind() == reflect.Interface
}

// isTime says whether t is a time.Time, which encodes as a string.
func isTime(t reflect.Type) bool { return t == reflect.TypeFor[time.Time]() }

// compare walks Go type t beside schema s at where.
func (c *comparer) compare(where string, t reflect.Type, s map[string]any, request bool) {
	nullable := false
	for t.Kind() == reflect.Pointer {
		t, nullable = t.Elem(), true
	}
	s = c.resolve(s)
	if isRaw(t) {
		return
	}
	want := c.kind(s)
	if want == "null" {
		if !nullable {
			c.addf(c.op, "%s is always null in the document, never in Go (%v)", where, t)
		}
		return
	}
	if want == "" {
		return // oneOf, anyOf or free: no one type to hold Go to
	}
	got := jsonKind(t)
	if got != want && !(got == "integer" && want == "number") {
		c.addf(c.op, "%s is %s in Go (%v), %s in the document", where, got, t, want)
		return
	}
	switch t.Kind() {
	case reflect.Slice, reflect.Array:
		if items, ok := s["items"].(map[string]any); ok {
			c.compare(where+"[]", t.Elem(), items, request)
		}
	case reflect.Map:
		if ap, ok := s["additionalProperties"].(map[string]any); ok {
			c.compare(where+"{}", t.Elem(), ap, request)
		}
	case reflect.Struct:
		if !isTime(t) {
			c.object(where, t, s, request)
		}
	}
}

// object compares a struct's members with an object schema's properties.
func (c *comparer) object(where string, t reflect.Type, s map[string]any, request bool) {
	props, _ := s["properties"].(map[string]any)
	if props == nil {
		return // a free object (additionalProperties): no names to hold Go to
	}
	required := map[string]bool{}
	for _, r := range asSlice(s["required"]) {
		required[fmt.Sprint(r)] = true
	}
	members := jsonMembers(t)
	for _, name := range sortedKeys(props) {
		f, ok := members[name]
		if !ok {
			c.addf(c.op, "%s.%s is in the document, not in %v", where, name, t)
			continue
		}
		ps, _ := props[name].(map[string]any)
		goRequired := f.Tag.Get("api") == "required"
		if !request {
			goRequired = !omits(f) && f.Tag.Get("api") != "optional"
		}
		if required[name] != goRequired {
			c.addf(c.op, "%s.%s: required is %v in the document, %v in Go (%v.%s)", where, name, required[name], goRequired, t, f.Name)
		}
		c.enum(where+"."+name, f, c.resolve(ps))
		c.compare(where+"."+name, f.Type, ps, request)
	}
	for _, name := range sortedKeys(members) {
		if _, ok := props[name]; !ok {
			c.addf(c.op, "%s.%s (%v.%s) is not in the document", where, name, t, members[name].Name)
		}
	}
}

// enum compares a field's `enum` tag with the schema's enum or const.
func (c *comparer) enum(where string, f reflect.StructField, s map[string]any) {
	var doc []string
	if e, ok := s["enum"]; ok {
		for _, v := range asSlice(e) {
			doc = append(doc, fmt.Sprint(v))
		}
	} else if v, ok := s["const"]; ok {
		doc = []string{fmt.Sprint(v)}
	}
	tag, tagged := f.Tag.Lookup("enum")
	var goVals []string
	switch {
	case strings.HasPrefix(tag, "$"):
		set, ok := c.sets[tag[1:]]
		if !ok {
			c.addf(c.op, "%s: enum set %q is not known", where, tag[1:])
		}
		goVals = slices.Clone(set)
	case tagged:
		goVals = strings.Split(tag, ",")
	}
	slices.Sort(doc)
	slices.Sort(goVals)
	if !slices.Equal(doc, goVals) {
		c.addf(c.op, "%s: enum %v in the document, %v in Go (%s)", where, doc, goVals, f.Name)
	}
}

// jsonMembers maps the JSON member names of struct t to their fields, as
// encoding/json sees them: embedded structs without a name are flattened,
// `-` and unexported fields are left out.
func jsonMembers(t reflect.Type) map[string]reflect.StructField {
	out := map[string]reflect.StructField{}
	for t.Kind() == reflect.Pointer {
		t = t.Elem()
	}
	if t.Kind() != reflect.Struct {
		return out
	}
	for i := 0; i < t.NumField(); i++ {
		f := t.Field(i)
		tag := f.Tag.Get("json")
		if tag == "-" {
			continue
		}
		name, _, _ := strings.Cut(tag, ",")
		if f.Anonymous && name == "" {
			for k, v := range jsonMembers(f.Type) {
				if _, hidden := out[k]; !hidden {
					out[k] = v
				}
			}
			continue
		}
		if !f.IsExported() {
			continue
		}
		if name == "" {
			name = f.Name
		}
		out[name] = f
	}
	return out
}

// omits says whether encoding may leave f out of an answer.
func omits(f reflect.StructField) bool {
	_, opts, _ := strings.Cut(f.Tag.Get("json"), ",")
	for _, o := range strings.Split(opts, ",") {
		if o == "omitempty" || o == "omitzero" {
			return true
		}
	}
	return false
}

// jsonKind is the JSON type Go type t is encoded as.
func jsonKind(t reflect.Type) string {
	if isTime(t) {
		return "string"
	}
	switch t.Kind() {
	case reflect.String:
		return "string"
	case reflect.Bool:
		return "boolean"
	case reflect.Int, reflect.Int8, reflect.Int16, reflect.Int32, reflect.Int64,
		reflect.Uint, reflect.Uint8, reflect.Uint16, reflect.Uint32, reflect.Uint64:
		return "integer"
	case reflect.Float32, reflect.Float64:
		return "number"
	case reflect.Slice, reflect.Array:
		if t.Elem().Kind() == reflect.Uint8 {
			return "string"
		}
		return "array"
	case reflect.Map, reflect.Struct:
		return "object"
	}
	return t.Kind().String()
}

func asSlice(v any) []any {
	s, _ := v.([]any)
	return s
}

func sortedKeys[V any](m map[string]V) []string {
	keys := make([]string, 0, len(m))
	for k := range m {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	return keys
}
