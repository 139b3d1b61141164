package gateway

import (
	"net/http"
	"reflect"

	"chartd.dev/libs/route"
)

// Name is the gateway's service name: its target and its flag prefix.
const Name = "gateway"

// Upstream is a service the gateway routes to: its route table (the
// service's own, see route.Route) and the handler that serves it, in this
// process or a reverse proxy to another.
type Upstream struct {
	Routes  []route.Route
	Handler http.Handler
}

// Endpoints is the gateway's own route table: the account record, the
// OpenAPI document, the docs site and the health probes.
func Endpoints() []route.Endpoint[*Gateway] {
	api := route.APIBase
	docs := func(path string) route.Endpoint[*Gateway] {
		return route.Stream(route.Spec{Route: route.Route{Op: "docs_page", Method: http.MethodGet, Path: path, Access: route.Public}, Need: route.Anyone}, (*Gateway).docsPage)
	}
	// get_account reads its caller as the gateway authenticated it, with
	// the limiter's answer, not a bare principal: it needs no other.
	return []route.Endpoint[*Gateway]{
		route.JSON(route.Spec{Route: route.Route{Op: "get_account", Method: http.MethodGet, Path: api + "/account"}, Need: route.Anyone}, (*Gateway).getAccount),
		route.Stream(route.Spec{Route: route.Route{Op: "get_openapi", Method: http.MethodGet, Path: api + "/openapi.json", Access: route.Public}, Need: route.Anyone, Answers: reflect.TypeFor[map[string]any]()}, (*Gateway).getOpenAPI),
		docs("/docs"), docs("/docs/"), docs("/docs/{slug}"), docs("/docs/{slug}/"),
		route.Stream(route.Spec{Route: route.Route{Op: "healthz", Method: http.MethodGet, Path: "/healthz", Access: route.Probe}, Need: route.Anyone}, (*Gateway).healthz),
		route.Stream(route.Spec{Route: route.Route{Op: "readyz", Method: http.MethodGet, Path: "/readyz", Access: route.Probe}, Need: route.Anyone}, (*Gateway).readyz),
	}
}

// Routes is the gateway's own route table without handlers.
func Routes() []route.Route { return route.Routes(Endpoints()) }
