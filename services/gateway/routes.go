package gateway

import (
	"net/http"

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
		return route.Endpoint[*Gateway]{Route: route.Route{Op: "docs_page", Method: http.MethodGet, Path: path, Access: route.Public}, Handle: (*Gateway).docsPage}
	}
	return []route.Endpoint[*Gateway]{
		{Route: route.Route{Op: "get_account", Method: http.MethodGet, Path: api + "/account"}, Handle: (*Gateway).getAccount},
		{Route: route.Route{Op: "get_openapi", Method: http.MethodGet, Path: api + "/openapi.json", Access: route.Public}, Handle: (*Gateway).getOpenAPI},
		docs("/docs"), docs("/docs/"), docs("/docs/{slug}"), docs("/docs/{slug}/"),
		{Route: route.Route{Op: "healthz", Method: http.MethodGet, Path: "/healthz", Access: route.Probe}, Handle: (*Gateway).healthz},
		{Route: route.Route{Op: "readyz", Method: http.MethodGet, Path: "/readyz", Access: route.Probe}, Handle: (*Gateway).readyz},
	}
}

// Routes is the gateway's own route table without handlers.
func Routes() []route.Route { return route.Routes(Endpoints()) }
