// Package chart is the chart service: it owns each chart aggregate (its
// record, spec and data, written in one store transaction) and answers the
// chart endpoints, the reference lists (chart types, examples, palettes)
// and the docs search.
package chart

import (
	"context"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"chartd.dev/charts"
	"chartd.dev/libs/aggregate"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/docsite"
	"chartd.dev/libs/route"
	"chartd.dev/libs/store"
)

// Name is the service's name: its target and its flag prefix.
const Name = "chart"

// Config is the chart service's settings: its flags are -chart.*.
type Config struct {
	aggregate.ReaderConfig
	// LayoutTimeout bounds the wait for the render service's layout of a
	// chart in lint (Deps.Layouts); past it, or with the render service
	// away, lint answers its other problems without the layout ones.
	LayoutTimeout time.Duration
}

// DefaultLayoutTimeout is LayoutTimeout when none is set: a drawing takes
// milliseconds, so a second means the render service is away or swamped.
const DefaultLayoutTimeout = time.Second

// RegisterFlags declares the service's flags under its name.
func (c *Config) RegisterFlags(service string, fs *flag.FlagSet) {
	c.ReaderConfig.RegisterFlags(service, fs)
	fs.DurationVar(&c.LayoutTimeout, service+".layout-timeout", DefaultLayoutTimeout,
		"how long lint waits for the render service to draw a chart for its layout problems (text cut or shrunk); past it lint answers without them")
}

// Layouts draws saved charts and answers what each drawing cut or shrank:
// the render service's internal API (clients.Render), which alone holds
// the fonts that measure text.
type Layouts interface {
	Layout(ctx context.Context, p auth.Principal, id string) (clients.Layout, error)
}

// Deps are the parts the service is built from.
type Deps struct {
	Charts  store.Charts
	Catalog *charts.Catalog
	// Ops validates and applies ops (built once from the catalog).
	Ops *chartspec.Ops
	// Docs answers lookup_docs.
	Docs *docsite.Site
	// Brand reads the account's brand palette when an op names it.
	Brand clients.Brand
	// Layouts draws a saved chart for lint's layout problems (needs-room);
	// nil leaves them out.
	Layouts Layouts
	Log     *slog.Logger
}

// Service is the chart service.
type Service struct {
	cfg     Config
	deps    Deps
	siteURL string
	charts  *aggregate.Loader
}

// New builds the service.
func New(cfg Config, deps Deps) (*Service, error) {
	if deps.Charts == nil || deps.Catalog == nil || deps.Log == nil || deps.Ops == nil {
		return nil, fmt.Errorf("chart service: Charts, Catalog, Ops and Log are required")
	}
	loader, err := aggregate.NewLoader(aggregate.Store{Charts: deps.Charts}, cfg.Tables)
	if err != nil {
		return nil, fmt.Errorf("chart service: %w", err)
	}
	if cfg.LayoutTimeout <= 0 {
		cfg.LayoutTimeout = DefaultLayoutTimeout
	}
	return &Service{cfg: cfg, deps: deps, siteURL: strings.TrimRight(cfg.PublicURL, "/"), charts: loader}, nil
}

// Endpoints is the service's route table.
func Endpoints() []route.Endpoint[*Service] {
	const api = route.APIBase
	return []route.Endpoint[*Service]{
		route.JSON(route.Spec{Route: route.Route{Op: "list_chart_types", Method: http.MethodGet, Path: api + "/chart-types"}, Need: route.Anyone}, (*Service).listChartTypes),
		route.JSON(route.Spec{Route: route.Route{Op: "list_examples", Method: http.MethodGet, Path: api + "/examples"}, Need: route.Anyone}, (*Service).listExamples),
		route.JSON(route.Spec{Route: route.Route{Op: "list_palettes", Method: http.MethodGet, Path: api + "/palettes"}, Need: route.Anyone}, (*Service).listPalettes),
		route.JSON(route.Spec{Route: route.Route{Op: "list_charts", Method: http.MethodGet, Path: api + "/charts"}}, (*Service).list),
		route.JSON(route.Spec{Route: route.Route{Op: "create_chart", Method: http.MethodPost, Path: api + "/charts"}, Status: http.StatusCreated}, (*Service).create),
		route.JSON(route.Spec{Route: route.Route{Op: "get_chart", Method: http.MethodGet, Path: api + "/charts/{id}"}}, (*Service).get),
		route.JSON(route.Spec{Route: route.Route{Op: "rename_chart", Method: http.MethodPatch, Path: api + "/charts/{id}"}}, (*Service).rename),
		route.JSON(route.Spec{Route: route.Route{Op: "delete_chart", Method: http.MethodDelete, Path: api + "/charts/{id}"}}, (*Service).delete),
		route.JSON(route.Spec{Route: route.Route{Op: "duplicate_chart", Method: http.MethodPost, Path: api + "/charts/{id}/duplicate"}, Body: route.BodyNone, Status: http.StatusCreated}, (*Service).duplicate),
		route.JSON(route.Spec{Route: route.Route{Op: "set_data", Method: http.MethodPut, Path: api + "/charts/{id}/data"}}, (*Service).setData),
		route.JSON(route.Spec{Route: route.Route{Op: "apply_ops", Method: http.MethodPost, Path: api + "/charts/{id}/ops"}}, (*Service).applyOps),
		route.JSON(route.Spec{Route: route.Route{Op: "lint_chart", Method: http.MethodGet, Path: api + "/charts/{id}/lint"}}, (*Service).lintChart),
		route.JSON(route.Spec{Route: route.Route{Op: "lookup_docs", Method: http.MethodGet, Path: api + "/docs/search"}, Need: route.Anyone}, (*Service).lookupDocs),
		route.JSON(route.Spec{Route: route.Route{Op: "get_op_catalog", Method: http.MethodGet, Path: api + "/ops"}, Need: route.Anyone}, (*Service).opCatalog),
		route.JSON(route.Spec{Route: route.Route{Op: "count_charts", Method: http.MethodGet, Path: "/internal/v1/charts/count", Access: route.Internal}}, (*Service).countCharts),
		route.JSON(route.Spec{Route: route.Route{Op: "load_chart", Method: http.MethodGet, Path: "/internal/v1/charts/{id}", Access: route.Internal}}, (*Service).loadChart),
	}
}

// Routes is the service's route table without handlers, for the gateway.
func Routes() []route.Route { return route.Routes(Endpoints()) }

// Handler is the service behind the internal-token check.
func (s *Service) Handler() http.Handler {
	return route.Handler(s.cfg.Site, Name, s, Endpoints(), s.deps.Log)
}

func (s *Service) countCharts(ctx context.Context, p auth.Principal, _ route.None) (clients.ChartCount, error) {
	n, err := s.deps.Charts.CountCharts(ctx, p.AccountID)
	if err != nil {
		return clients.ChartCount{}, fmt.Errorf("count charts of %s: %w", p.AccountID, err)
	}
	return clients.ChartCount{Used: n}, nil
}

// loadChart is the one internal read of a chart aggregate, for the data
// and render services: record, spec and, unless the caller's data version
// (`have`) is current, the data as sent.
// LoadRequest is the load_chart request: the chart and the data version
// the caller has.
type LoadRequest struct {
	ID   string `path:"id" json:"-"`
	Have string `query:"have" json:"-"`
}

func (s *Service) loadChart(ctx context.Context, p auth.Principal, req LoadRequest) (clients.ChartAggregate, error) {
	c, _, err := aggregate.Store{Charts: s.deps.Charts}.LoadChart(ctx, p, req.ID, req.Have)
	if err != nil {
		return clients.ChartAggregate{}, err
	}
	return clients.AggregateOf(c), nil
}
