package main

import (
	"context"
	"testing"

	"github.com/getkin/kin-openapi/openapi3"

	"chartd.dev/charts"
	"chartd.dev/libs/route"
	"chartd.dev/services/brand"
	"chartd.dev/services/chart"
	"chartd.dev/services/data"
	"chartd.dev/services/gateway"
	"chartd.dev/services/render"
)

// TestOpenAPIDocumentMatchesRoutes holds the services' route tables and
// the OpenAPI document together: every public route is documented under
// its operation name, and the document lists nothing no service serves.
func TestOpenAPIDocumentMatchesRoutes(t *testing.T) {
	raw, err := gateway.OpenAPI("http://example.test" + route.APIBase)
	if err != nil {
		t.Fatal(err)
	}
	doc, err := openapi3.NewLoader().LoadFromData(raw)
	if err != nil {
		t.Fatal(err)
	}
	if err := doc.Validate(context.Background()); err != nil {
		t.Fatalf("openapi document invalid: %v", err)
	}
	inDoc := map[string]string{}
	for path, item := range doc.Paths.Map() {
		for method, op := range item.Operations() {
			inDoc[method+" "+path] = op.OperationID
		}
	}
	ops := map[string]string{}
	for _, s := range services() {
		for _, rt := range s.routes {
			if prev, dup := ops[rt.Op]; dup && rt.Op != "docs_page" {
				t.Errorf("operation %s is served by both %s and %s", rt.Op, prev, s.name)
			}
			ops[rt.Op] = s.name
			path := rt.APIPath()
			if rt.Access == route.Direct {
				// Served at the site root; the document gives the path
				// its own server.
				path = rt.Path
			}
			if rt.Access == route.Internal || path == "" {
				if path != "" {
					t.Errorf("internal route %s %s lies under the public API", rt.Method, rt.Path)
				}
				continue
			}
			k := rt.Method + " " + path
			if inDoc[k] != rt.Op {
				t.Errorf("%s route %s (%s) is not in the document (operationId %q)", s.name, k, rt.Op, inDoc[k])
			}
			delete(inDoc, k)
		}
	}
	for k, op := range inDoc {
		t.Errorf("the document lists %s (%s) but no service serves it", k, op)
	}
}

// TestServiceListDrivesTargetsAndFlags: adding a service to services()
// is enough for it to be a target with its own -<name>-url flag.
func TestServiceListDrivesTargetsAndFlags(t *testing.T) {
	for _, s := range services() {
		if _, ok := moduleDeps()[s.name]; !ok {
			t.Errorf("service %s is not a module", s.name)
		}
		found := false
		for _, n := range targetNames() {
			found = found || n == s.name
		}
		if !found {
			t.Errorf("service %s is not a target", s.name)
		}
		if s.name == gateway.Name {
			continue
		}
		cfg, err := ParseConfig([]string{"-" + s.name + "-url", "http://10.0.0.1:9"}, env(nil))
		if err != nil {
			t.Fatalf("-%s-url: %v", s.name, err)
		}
		if cfg.URLs[s.name] != "http://10.0.0.1:9" {
			t.Errorf("-%s-url not stored: %v", s.name, cfg.URLs)
		}
	}
}

// TestRouteTypesMatchOpenAPI walks every route of every service and holds
// its request and answer Go types to the served OpenAPI document, field by
// field: parameter and member names, required, JSON types and enums
// (route.Mismatches). A renamed struct field, a new member or a dropped
// enum value fails here until the document says the same.
func TestRouteTypesMatchOpenAPI(t *testing.T) {
	raw, err := gateway.OpenAPI("http://example.test" + route.APIBase)
	if err != nil {
		t.Fatal(err)
	}
	var all []route.Contract
	for _, cs := range [][]route.Contract{
		route.Contracts(chart.Endpoints()), route.Contracts(data.Endpoints()), route.Contracts(brand.Endpoints()),
		route.Contracts(render.Endpoints()), route.Contracts(gateway.Endpoints()),
	} {
		all = append(all, cs...)
	}
	typed := map[string]bool{}
	for _, c := range all {
		typed[c.Op] = c.Req != nil
	}
	for _, s := range services() {
		for _, rt := range s.routes {
			if _, ok := typed[rt.Op]; !ok {
				t.Errorf("the %s service's route %s is not walked here; add its Endpoints()", s.name, rt.Op)
			}
		}
	}
	// Every documented operation but get_image and get_embed (public links guard
	// themselves, before any preamble) is typed.
	for op, ok := range typed {
		if !ok && op != "get_image" && op != "get_embed" {
			t.Errorf("%s is not a typed endpoint", op)
		}
	}
	cat, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	var types []string
	for _, ct := range cat.Types() {
		types = append(types, ct.Type)
	}
	bad, err := route.Mismatches(raw, all, map[string][]string{"chart_type": types})
	if err != nil {
		t.Fatal(err)
	}
	for _, m := range bad {
		t.Error(m)
	}
}
