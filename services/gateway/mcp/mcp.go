// Package mcp is chartd's MCP server (Streamable HTTP at {site_url}/mcp,
// served by the gateway). Its tools are generated from the services'
// route tables (the registry every router is built from) and the OpenAPI
// document that describes them: every API route that needs credentials
// becomes the tool of its operation name, with the documented parameters
// and body as the input schema and the spec's summary as the
// description. A tool call is dispatched as that
// operation's REST request through the gateway's own router with the
// caller's credentials, so authentication, scopes, rate limits and every
// answer are the API's: there is no second implementation of anything.
package mcp

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"log/slog"
	"maps"
	"net/http"
	"net/url"
	"regexp"
	"slices"
	"strings"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"chartd.dev/libs/oauth"
	"chartd.dev/libs/route"
)

// Path is where the MCP endpoint lives.
const Path = "/mcp"

// Op is the MCP endpoint's operation name in route tables and logs.
const Op = "mcp"

// Routes is the MCP endpoint's route table: it needs credentials (an
// assistant's access token, or an API key) like any operation.
func Routes() []route.Route {
	return []route.Route{
		{Op: Op, Method: http.MethodPost, Path: Path},
		{Op: Op, Method: http.MethodGet, Path: Path},
		{Op: Op, Method: http.MethodDelete, Path: Path},
	}
}

// Tool is one generated tool: an operation and how to call its route.
type Tool struct {
	Op     string
	Method string
	// Path is the route's path template from the site root.
	Path        string
	PathParams  []string
	QueryParams []string
	// Body says the operation takes a JSON body: the arguments that are
	// not path or query parameters.
	Body        bool
	Description string
	// InputSchema is a self-contained JSON Schema (its references in
	// $defs).
	InputSchema map[string]any
	// OutputSchema, for a read tool answering JSON, is the answer's top
	// level shape; its calls carry structuredContent.
	OutputSchema map[string]any
	// Title and Annotations are the hints assistants decide from whether
	// to ask the person before a call.
	Title       string
	Annotations *sdk.ToolAnnotations
}

// hints are a tool's behaviour, for its annotations.
type hints struct {
	readOnly, destructive, idempotent, openWorld bool
}

// toolHints says what each operation does to the account: reads change
// nothing; delete_chart and set_data (which replaces the chart's data)
// destroy; repeating an idempotent call with the same arguments changes
// nothing more. Only extract_brand_palette reaches outside chartd.
func toolHints(op string) hints {
	switch op {
	case "list_charts", "get_chart", "lint_chart", "describe_data", "query_data", "get_account",
		"list_chart_types", "list_examples", "list_palettes", "get_op_catalog", "lookup_docs",
		"render_chart", "render_image", "render_template", "get_brand_palette":
		return hints{readOnly: true, idempotent: true}
	case "extract_brand_palette":
		return hints{readOnly: true, idempotent: true, openWorld: true}
	case "delete_chart", "set_data":
		return hints{destructive: true, idempotent: true}
	case "rename_chart", "set_brand_palette":
		return hints{idempotent: true}
	}
	// create_chart, apply_ops, duplicate_chart, create_image_url: each
	// call makes or changes something anew.
	return hints{}
}

// annotations spells a tool's hints for MCP.
func annotations(title string, h hints) *sdk.ToolAnnotations {
	return &sdk.ToolAnnotations{Title: title, ReadOnlyHint: h.readOnly, DestructiveHint: &h.destructive, IdempotentHint: h.idempotent, OpenWorldHint: &h.openWorld}
}

// titleOf makes a tool's title from its operation name: "list_charts" is
// "List charts".
func titleOf(op string) string {
	t := strings.ReplaceAll(op, "_", " ")
	return strings.ToUpper(t[:1]) + t[1:]
}

// Tools builds the tool table from the route registry and the OpenAPI
// document: a tool for every API route (Key or Public) the document does
// not mark as needing no credentials, sorted by name. A route the
// document lacks, or a documented operation no route serves, is an error:
// the tools are the routes, as the routers serve them.
func Tools(openapi []byte, routes []route.Route) ([]Tool, error) {
	var doc struct {
		Paths      map[string]map[string]json.RawMessage `json:"paths"`
		Components struct {
			Schemas map[string]any `json:"schemas"`
		} `json:"components"`
	}
	if err := json.Unmarshal(openapi, &doc); err != nil {
		return nil, fmt.Errorf("openapi: %w", err)
	}
	defs := compactDefs(doc.Components.Schemas)
	served := map[string]bool{}
	var tools []Tool
	for _, rt := range routes {
		path := rt.APIPath()
		if path == "" || rt.Access != route.Key && rt.Access != route.Public {
			continue
		}
		method := strings.ToLower(rt.Method)
		raw, ok := doc.Paths[path][method]
		if !ok {
			return nil, fmt.Errorf("openapi: the route %s %s (%s) is not documented", rt.Method, path, rt.Op)
		}
		served[method+" "+path] = true
		var op route.Operation
		if err := json.Unmarshal(raw, &op); err != nil {
			return nil, fmt.Errorf("openapi %s %s: %w", method, path, err)
		}
		if op.OperationID != rt.Op {
			return nil, fmt.Errorf("openapi %s %s: operationId %q, the route's operation is %s", method, path, op.OperationID, rt.Op)
		}
		if op.Security != nil && len(*op.Security) == 0 {
			continue
		}
		var shared []route.Parameter
		if raw, ok := doc.Paths[path]["parameters"]; ok {
			if err := json.Unmarshal(raw, &shared); err != nil {
				return nil, fmt.Errorf("openapi %s parameters: %w", path, err)
			}
		}
		t, err := buildTool(rt.Method, path, append(slices.Clone(shared), op.Parameters...), op, defs)
		if err != nil {
			return nil, err
		}
		tools = append(tools, t)
	}
	// An operation documented as needing credentials is one no route serves.
	for path, item := range doc.Paths {
		for method, raw := range item {
			var op route.Operation
			if method == "parameters" || served[method+" "+path] || json.Unmarshal(raw, &op) != nil {
				continue
			}
			if op.Security == nil || len(*op.Security) > 0 {
				return nil, fmt.Errorf("openapi: %s %s (%s) is documented but no route serves it", method, path, op.OperationID)
			}
		}
	}
	slices.SortFunc(tools, func(a, b Tool) int { return strings.Compare(a.Op, b.Op) })
	return tools, nil
}

func buildTool(method, path string, params []route.Parameter, op route.Operation, defs map[string]any) (Tool, error) {
	t := Tool{Op: op.OperationID, Method: method, Path: route.APIBase + path}
	props := map[string]any{}
	var required []string
	for _, p := range params {
		s := maps.Clone(p.Schema)
		if s == nil {
			s = map[string]any{}
		}
		if p.Description != "" {
			s["description"] = p.Description
		}
		props[p.Name] = s
		switch p.In {
		case "path":
			t.PathParams = append(t.PathParams, p.Name)
			required = append(required, p.Name)
		case "query":
			t.QueryParams = append(t.QueryParams, p.Name)
			if p.Required {
				required = append(required, p.Name)
			}
		}
	}
	schema := map[string]any{"type": "object"}
	if op.RequestBody != nil {
		body, ok := op.RequestBody.Content["application/json"]
		if !ok {
			return Tool{}, fmt.Errorf("tool %s: the body is not JSON", t.Op)
		}
		t.Body = true
		bs := body.Schema
		if ref, ok := bs["$ref"].(string); ok {
			bs, _ = defs[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
		}
		bp, _ := bs["properties"].(map[string]any)
		for name, s := range bp {
			if _, dup := props[name]; dup {
				return Tool{}, fmt.Errorf("tool %s: %q is both a parameter and a body field", t.Op, name)
			}
			props[name] = s
		}
		if req, ok := bs["required"].([]any); ok {
			for _, r := range req {
				required = append(required, fmt.Sprint(r))
			}
		}
		if ap, ok := bs["additionalProperties"]; ok {
			schema["additionalProperties"] = ap
		}
	}
	schema["properties"] = props
	if len(required) > 0 {
		schema["required"] = required
	}
	// Inline the component schemas the tool refers to, as $defs.
	used := map[string]bool{}
	collectRefs(props, defs, used)
	if len(used) > 0 {
		d := map[string]any{}
		for name := range used {
			d[name] = defs[name]
		}
		schema["$defs"] = d
	}
	out, err := rewriteRefs(schema)
	if err != nil {
		return Tool{}, fmt.Errorf("tool %s: %w", t.Op, err)
	}
	t.InputSchema = strict(out).(map[string]any)
	h := toolHints(t.Op)
	t.Title = titleOf(t.Op)
	t.Annotations = annotations(t.Title, h)
	if h.readOnly {
		t.OutputSchema = outputSchema(op, defs)
	}
	t.Description = strings.TrimSpace(op.Summary + " " + op.Description)
	if sc := oauth.ScopeOf(t.Op); sc != "" {
		t.Description += " (Needs the scope " + sc + ".)"
	}
	return t, nil
}

// compactDefs answers the component schemas with the op and step unions
// cut to their names and one-line forms: inlined whole, they made
// tools/list 95 KB, paid by every assistant session. The API checks each
// op and step in full, and get_op_catalog has their schemas.
func compactDefs(defs map[string]any) map[string]any {
	out := maps.Clone(defs)
	for _, u := range []struct{ name, key, what string }{
		{"Op", "op", "An edit op: {\"op\": name, ...its fields}; get_op_catalog has each op's full schema. The ops (? marks an optional field):"},
		{"Step", "type", "A data step: {\"type\": name, ...its fields}; get_op_catalog and lookup_docs explain each. The steps (? marks an optional field):"},
	} {
		union, _ := defs[u.name].(map[string]any)
		if union == nil {
			continue
		}
		var names, forms []string
		for _, alt := range asList(union["oneOf"]) {
			m, _ := alt.(map[string]any)
			ref, _ := m["$ref"].(string)
			variant, _ := defs[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
			props, _ := variant["properties"].(map[string]any)
			tag, _ := props[u.key].(map[string]any)
			name, _ := tag["const"].(string)
			if name == "" {
				continue
			}
			names = append(names, name)
			forms = append(forms, name+" {"+strings.Join(fieldList(variant, u.key), ", ")+"}")
		}
		slices.Sort(names)
		slices.Sort(forms)
		out[u.name] = map[string]any{
			"type":        "object",
			"description": u.what + " " + strings.Join(forms, "; ") + ".",
			"required":    []any{u.key},
			"properties":  map[string]any{u.key: map[string]any{"type": "string", "enum": toAny(names)}},
		}
	}
	return out
}

// fieldList names a variant's fields but its tag, required ones first,
// optional ones marked with "?".
func fieldList(variant map[string]any, tag string) []string {
	props, _ := variant["properties"].(map[string]any)
	req := map[string]bool{}
	for _, r := range asList(variant["required"]) {
		req[fmt.Sprint(r)] = true
	}
	var must, may []string
	for _, name := range slices.Sorted(maps.Keys(props)) {
		switch {
		case name == tag:
		case req[name]:
			must = append(must, name)
		default:
			may = append(may, name+"?")
		}
	}
	return append(must, may...)
}

func asList(v any) []any {
	l, _ := v.([]any)
	return l
}

func toAny(ss []string) []any {
	out := make([]any, len(ss))
	for i, s := range ss {
		out[i] = s
	}
	return out
}

// strict rewrites a schema for strict validators (ajv strict mode, the
// MCP Inspector): OpenAPI's discriminator, which JSON Schema does not
// know, is dropped, and a union type such as ["string","null"] becomes an
// anyOf of one type each.
func strict(v any) any {
	switch x := v.(type) {
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			if k == "discriminator" {
				continue
			}
			out[k] = strict(e)
		}
		if types, ok := out["type"].([]any); ok {
			delete(out, "type")
			alts := make([]any, len(types))
			for i, ty := range types {
				alts[i] = map[string]any{"type": ty}
			}
			if prev, ok := out["anyOf"]; ok {
				// Both must hold: keep the schema's own anyOf beside.
				out["allOf"] = []any{map[string]any{"anyOf": alts}, map[string]any{"anyOf": prev}}
				delete(out, "anyOf")
			} else {
				out["anyOf"] = alts
			}
		}
		return out
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			out[i] = strict(e)
		}
		return out
	}
	return v
}

// outputSchema is the top-level shape of an operation's JSON answer: its
// fields and their types, no deeper, which keeps tools/list small and
// still tells an assistant what comes back. nil when the answer is not
// a JSON object (a picture).
func outputSchema(op route.Operation, defs map[string]any) map[string]any {
	for _, code := range []string{"200", "201"} {
		resp, ok := op.Responses[code]
		if !ok {
			continue
		}
		if len(resp.Content) != 1 {
			return nil
		}
		body, ok := resp.Content["application/json"]
		if !ok {
			return nil
		}
		sch := deref(body.Schema, defs)
		props, _ := sch["properties"].(map[string]any)
		if sch["type"] != "object" || len(props) == 0 {
			return nil
		}
		shallow := map[string]any{}
		for name, p := range props {
			ps, _ := p.(map[string]any)
			ps = deref(ps, defs)
			f := map[string]any{}
			if ty, ok := ps["type"]; ok {
				f["type"] = ty
			}
			shallow[name] = f
		}
		out := map[string]any{"type": "object", "properties": shallow}
		if req, ok := sch["required"]; ok {
			out["required"] = req
		}
		return strict(out).(map[string]any)
	}
	return nil
}

// deref follows a component reference.
func deref(s map[string]any, defs map[string]any) map[string]any {
	if ref, ok := s["$ref"].(string); ok {
		d, _ := defs[strings.TrimPrefix(ref, "#/components/schemas/")].(map[string]any)
		return d
	}
	return s
}

// collectRefs finds every component schema v refers to, transitively.
func collectRefs(v any, defs map[string]any, used map[string]bool) {
	switch x := v.(type) {
	case map[string]any:
		if ref, ok := x["$ref"].(string); ok {
			name := strings.TrimPrefix(ref, "#/components/schemas/")
			if !used[name] {
				used[name] = true
				collectRefs(defs[name], defs, used)
			}
		}
		for _, e := range x {
			collectRefs(e, defs, used)
		}
	case []any:
		for _, e := range x {
			collectRefs(e, defs, used)
		}
	}
}

// rewriteRefs copies schema with its references pointing into $defs.
func rewriteRefs(schema map[string]any) (map[string]any, error) {
	raw, err := json.Marshal(schema)
	if err != nil {
		return nil, err
	}
	raw = bytes.ReplaceAll(raw, []byte(`"#/components/schemas/`), []byte(`"#/$defs/`))
	var out map[string]any
	return out, json.Unmarshal(raw, &out)
}

// Server is the MCP server.
type Server struct {
	tools    []Tool
	origin   string
	server   *sdk.Server
	dispatch func() http.Handler
	log      *slog.Logger
	handler  http.Handler
}

// New builds the MCP server from the route registry and the OpenAPI
// document (see Tools). dispatch answers
// the gateway's core router (known only once the gateway is built, which
// routes to this server). origin is the site's (scheme://host[:port]):
// a request whose Origin header names another is refused.
func New(openapi []byte, routes []route.Route, dispatch func() http.Handler, origin string, log *slog.Logger) (*Server, error) {
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	tools, err := Tools(openapi, routes)
	if err != nil {
		return nil, err
	}
	s := &Server{tools: tools, origin: origin, dispatch: dispatch, log: log}
	s.server = sdk.NewServer(&sdk.Implementation{Name: "chartd", Title: "chartd charts", Version: "1"}, &sdk.ServerOptions{
		Instructions: "Make and edit charts from tabular data for the person. Start with get_op_catalog and lookup_docs to learn the ops; " +
			"create_chart makes a chart, apply_ops edits it, render_chart draws it. Every chart answer has a url the person can open.",
		Logger: log,
	})
	for _, t := range tools {
		st := &sdk.Tool{Name: t.Op, Title: t.Title, Description: t.Description, InputSchema: t.InputSchema, Annotations: t.Annotations}
		if t.OutputSchema != nil {
			st.OutputSchema = t.OutputSchema
		}
		s.server.AddTool(st, s.call(t))
	}
	s.handler = checkOrigin(origin, sdk.NewStreamableHTTPHandler(func(*http.Request) *sdk.Server { return s.server },
		&sdk.StreamableHTTPOptions{Stateless: true, JSONResponse: true, Logger: log}))
	return s, nil
}

// checkOrigin refuses, with 403, a request from a web page of another
// origin (the MCP transport's MUST, against DNS rebinding and pages that
// reach a person's local or signed-in endpoint). A request without an
// Origin header is no browser page's and passes.
func checkOrigin(origin string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if o := r.Header.Get("Origin"); o != "" && o != origin {
			w.Header().Set("Content-Type", "application/json")
			w.WriteHeader(http.StatusForbidden)
			raw, _ := json.Marshal(map[string]any{"jsonrpc": "2.0", "id": nil, "error": map[string]any{"code": -32600,
				"message": "requests from the web origin " + o + " are refused; only " + origin + " and clients that are not web pages may call this endpoint"}})
			w.Write(raw)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// Handler serves the MCP endpoint.
func (s *Server) Handler() http.Handler { return s.handler }

// ToolTable answers the generated tools.
func (s *Server) ToolTable() []Tool { return slices.Clone(s.tools) }

// call is a tool's handler: the operation's REST request, dispatched.
func (s *Server) call(t Tool) sdk.ToolHandler {
	return func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		args := map[string]any{}
		if len(req.Params.Arguments) > 0 {
			d := json.NewDecoder(bytes.NewReader(req.Params.Arguments))
			d.UseNumber()
			if err := d.Decode(&args); err != nil {
				return toolError("invalid_request", "the arguments must be a JSON object"), nil
			}
		}
		hr, err := t.request(ctx, args)
		if err != nil {
			return toolError("invalid_request", err.Error()), nil
		}
		if req.Extra != nil {
			// The caller's credentials, so the operation acts for the same
			// account and scopes.
			for _, h := range []string{"Authorization", "Cookie", "X-Csrf-Token"} {
				if v := req.Extra.Header.Get(h); v != "" {
					hr.Header.Set(h, v)
				}
			}
		}
		rec := &recorder{header: http.Header{}}
		s.dispatch().ServeHTTP(rec, hr)
		res := result(rec)
		if res.IsError {
			for _, c := range res.Content {
				if tc, ok := c.(*sdk.TextContent); ok {
					tc.Text = s.namingTools(tc.Text)
				}
			}
		}
		if t.Op == "render_chart" && !res.IsError && strings.HasPrefix(rec.header.Get("Content-Type"), "image/svg") {
			// SVG text is nothing an assistant can show: point to the
			// chart's page, where the person sees the picture.
			if id, ok := args0(req, "id"); ok {
				res.Content = append(res.Content, &sdk.ResourceLink{URI: s.origin + "/charts/" + url.PathEscape(id), Name: "chart " + id,
					Title: "The chart's page", Description: "Open to see the picture", MIMEType: "text/html"})
			}
		}
		if t.OutputSchema != nil && !res.IsError {
			// The JSON answer again as structured content, for clients
			// that read the output schema.
			var v map[string]any
			if err := json.Unmarshal(rec.body.Bytes(), &v); err == nil {
				res.StructuredContent = v
			}
		}
		return res, nil
	}
}

// args0 reads one string argument of a tool call.
func args0(req *sdk.CallToolRequest, name string) (string, bool) {
	var args map[string]any
	if err := json.Unmarshal(req.Params.Arguments, &args); err != nil {
		return "", false
	}
	v, ok := args[name].(string)
	return v, ok && v != ""
}

// restCall finds a REST call spelled in an API message: "GET /charts".
var restCall = regexp.MustCompile(`\b(GET|POST|PUT|PATCH|DELETE) (/[A-Za-z0-9_{}<>%.:/-]*[A-Za-z0-9_}>-])`)

// namingTools rewrites the REST calls an API message points to ("list
// your charts with GET /charts") as the tools that make them
// (list_charts): an assistant calls tools, not REST. A call no tool makes
// stays as it is.
func (s *Server) namingTools(text string) string {
	return restCall.ReplaceAllStringFunc(text, func(call string) string {
		m := restCall.FindStringSubmatch(call)
		for _, t := range s.tools {
			if t.Method == m[1] && pathMatches(strings.TrimPrefix(t.Path, route.APIBase), strings.TrimPrefix(m[2], route.APIBase)) {
				return "the tool " + t.Op
			}
		}
		return call
	})
}

// pathMatches tells whether path fits a route template, each {param}
// standing for one segment (or the same segment of a route like
// /charts/{id}/render.{format}).
func pathMatches(template, path string) bool {
	ts, ps := strings.Split(template, "/"), strings.Split(path, "/")
	if len(ts) != len(ps) {
		return false
	}
	for i, seg := range ts {
		if strings.Contains(seg, "{") {
			prefix, _, _ := strings.Cut(seg, "{")
			if !strings.HasPrefix(ps[i], prefix) || ps[i] == prefix {
				return false
			}
			continue
		}
		if seg != ps[i] {
			return false
		}
	}
	return true
}

// request builds the operation's HTTP request from tool arguments.
func (t Tool) request(ctx context.Context, args map[string]any) (*http.Request, error) {
	path := t.Path
	for _, p := range t.PathParams {
		v, ok := args[p]
		if !ok {
			return nil, fmt.Errorf("%s is required", p)
		}
		path = strings.Replace(path, "{"+p+"}", url.PathEscape(fmt.Sprint(v)), 1)
		delete(args, p)
	}
	q := url.Values{}
	for _, p := range t.QueryParams {
		if v, ok := args[p]; ok {
			q.Set(p, fmt.Sprint(v))
			delete(args, p)
		}
	}
	var body io.Reader = http.NoBody
	if t.Body {
		raw, err := json.Marshal(args)
		if err != nil {
			return nil, err
		}
		body = bytes.NewReader(raw)
	} else if len(args) > 0 {
		return nil, fmt.Errorf("unknown argument %s", slices.Sorted(maps.Keys(args))[0])
	}
	u := path
	if len(q) > 0 {
		u += "?" + q.Encode()
	}
	r, err := http.NewRequestWithContext(ctx, t.Method, u, body)
	if err != nil {
		return nil, err
	}
	// The call comes from inside the gateway, not over a connection. It
	// carries no X-Forwarded-For (only the credentials are copied), so
	// whatever -gateway.trusted-proxies says, its client address is this
	// one: a caller cannot pick an address through a tool call. It is
	// read only when the call is refused for its credentials or their
	// scope; the MCP request that carried it was authenticated and
	// limited per account already.
	r.RemoteAddr = "127.0.0.1:0"
	if t.Body {
		r.Header.Set("Content-Type", "application/json")
	}
	return r, nil
}

// result turns the operation's answer into the tool's: a picture as
// image content, JSON as text, a refusal as a tool error carrying the
// API's error body (its code and message).
func result(rec *recorder) *sdk.CallToolResult {
	status := rec.status
	if status == 0 {
		status = http.StatusOK
	}
	ct := rec.header.Get("Content-Type")
	body := rec.body.Bytes()
	if status >= 300 {
		return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: string(body)}}}
	}
	if strings.HasPrefix(ct, "image/png") {
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.ImageContent{Data: body, MIMEType: "image/png"}}}
	}
	return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(body)}}}
}

func toolError(code, msg string) *sdk.CallToolResult {
	raw, _ := json.Marshal(map[string]any{"error": map[string]string{"code": code, "message": msg}})
	return &sdk.CallToolResult{IsError: true, Content: []sdk.Content{&sdk.TextContent{Text: string(raw)}}}
}

// recorder keeps a dispatched answer in memory.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}
func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}
