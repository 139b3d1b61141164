package gateway

// Route is one public endpoint: its operation name (the spec's, also the
// OpenAPI operationId), method, path template and the service that owns it.
type Route struct {
	Op      string
	Method  string
	Path    string
	Service string
	// Public routes need no API key.
	Public bool
}

// The services a route can belong to.
const (
	ServiceGateway = "gateway"
	ServiceChart   = "chart"
	ServiceData    = "data"
	ServiceBrand   = "brand"
	ServiceRender  = "render"
)

// Routes is the table of every endpoint the API serves under {base_url}
// (paths here are relative to it). The OpenAPI document must list exactly
// these; a test holds the two together.
func Routes() []Route {
	return []Route{
		{Op: "get_account", Method: "GET", Path: "/account", Service: ServiceGateway},
		{Op: "get_openapi", Method: "GET", Path: "/openapi.json", Service: ServiceGateway, Public: true},
		{Op: "list_chart_types", Method: "GET", Path: "/chart-types", Service: ServiceChart},
		{Op: "list_examples", Method: "GET", Path: "/examples", Service: ServiceChart},
		{Op: "list_palettes", Method: "GET", Path: "/palettes", Service: ServiceChart},
		{Op: "list_charts", Method: "GET", Path: "/charts", Service: ServiceChart},
		{Op: "create_chart", Method: "POST", Path: "/charts", Service: ServiceChart},
		{Op: "get_chart", Method: "GET", Path: "/charts/{id}", Service: ServiceChart},
		{Op: "rename_chart", Method: "PATCH", Path: "/charts/{id}", Service: ServiceChart},
		{Op: "delete_chart", Method: "DELETE", Path: "/charts/{id}", Service: ServiceChart},
		{Op: "duplicate_chart", Method: "POST", Path: "/charts/{id}/duplicate", Service: ServiceChart},
		{Op: "set_data", Method: "PUT", Path: "/charts/{id}/data", Service: ServiceChart},
		{Op: "apply_ops", Method: "POST", Path: "/charts/{id}/ops", Service: ServiceChart},
		{Op: "lint_chart", Method: "GET", Path: "/charts/{id}/lint", Service: ServiceChart},
		{Op: "lookup_docs", Method: "GET", Path: "/docs/search", Service: ServiceChart},
		{Op: "get_op_catalog", Method: "GET", Path: "/ops", Service: ServiceChart},
		{Op: "render_chart", Method: "GET", Path: "/charts/{id}/render.{format}", Service: ServiceRender},
		{Op: "render_image", Method: "POST", Path: "/render", Service: ServiceRender},
		{Op: "render_template", Method: "POST", Path: "/charts/{id}/render", Service: ServiceRender},
		{Op: "describe_data", Method: "GET", Path: "/charts/{id}/data/summary", Service: ServiceData},
		{Op: "query_data", Method: "POST", Path: "/charts/{id}/data/query", Service: ServiceData},
	}
}
