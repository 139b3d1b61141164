// Package chart is the chart service: it owns the charts table and answers
// the chart endpoints and the reference lists (chart types, examples,
// palettes) from the catalog.
package chart

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"chartd.dev/charts"
	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/docsite"
	"chartd.dev/libs/httpx"
	"chartd.dev/libs/store"
)

// Config is the chart service's settings.
type Config struct {
	// PublicURL is {site_url}; chart urls and error docs links are built on it.
	PublicURL string
	// InternalToken is the token the gateway sends (see auth.Internal).
	InternalToken string
}

// Deps are the parts the service is built from.
type Deps struct {
	Charts  store.Charts
	Catalog *charts.Catalog
	// Data is the data service, owner of each chart's data.
	Data clients.Data
	// Ops validates and applies ops (built once from the catalog).
	Ops *chartspec.Ops
	// Docs answers lookup_docs.
	Docs *docsite.Site
	// Brand answers the account's brand palette (nil when none is saved).
	Brand func(ctx context.Context, p auth.Principal) ([]string, error)
	Log   *slog.Logger
}

// Service is the chart service.
type Service struct {
	cfg     Config
	deps    Deps
	siteURL string
	docsURL string
	tables  *dataset.Cache
	errs    httpx.Errors
}

// New builds the service.
func New(cfg Config, deps Deps) (*Service, error) {
	if deps.Charts == nil || deps.Catalog == nil || deps.Log == nil || deps.Ops == nil {
		return nil, fmt.Errorf("chart service: Charts, Catalog, Ops and Log are required")
	}
	site := strings.TrimRight(cfg.PublicURL, "/")
	docs := site + "/docs"
	tables, err := dataset.NewCache(tableCacheSize, maxCachedCells)
	if err != nil {
		return nil, fmt.Errorf("table cache: %w", err)
	}
	return &Service{cfg: cfg, deps: deps, siteURL: site, docsURL: docs, errs: httpx.Errors{DocsURL: docs}, tables: tables}, nil
}

// Routes registers the service's public routes (under /api/v1) and its
// internal API (under /internal/v1) on r.
func (s *Service) Routes(r *mux.Router) {
	r.Methods(http.MethodGet).Path("/api/v1/chart-types").Handler(s.errs.Wrap(s.listChartTypes))
	r.Methods(http.MethodGet).Path("/api/v1/examples").Handler(s.errs.Wrap(s.listExamples))
	r.Methods(http.MethodGet).Path("/api/v1/palettes").Handler(s.errs.Wrap(s.listPalettes))
	r.Methods(http.MethodPost).Path("/api/v1/charts").Handler(s.errs.Wrap(s.create))
	r.Methods(http.MethodGet).Path("/api/v1/charts").Handler(s.errs.Wrap(s.list))
	r.Methods(http.MethodGet).Path("/api/v1/charts/{id}").Handler(s.errs.Wrap(s.get))
	r.Methods(http.MethodPatch).Path("/api/v1/charts/{id}").Handler(s.errs.Wrap(s.rename))
	r.Methods(http.MethodDelete).Path("/api/v1/charts/{id}").Handler(s.errs.Wrap(s.delete))
	r.Methods(http.MethodPost).Path("/api/v1/charts/{id}/duplicate").Handler(s.errs.Wrap(s.duplicate))
	r.Methods(http.MethodPut).Path("/api/v1/charts/{id}/data").Handler(s.errs.Wrap(s.setData))
	r.Methods(http.MethodPost).Path("/api/v1/charts/{id}/ops").Handler(s.errs.Wrap(s.applyOpsHandler))
	r.Methods(http.MethodGet).Path("/api/v1/charts/{id}/lint").Handler(s.errs.Wrap(s.lintHandler))
	r.Methods(http.MethodGet).Path("/api/v1/ops").Handler(s.errs.Wrap(s.opCatalog))
	r.Methods(http.MethodGet).Path("/api/v1/docs/search").Handler(s.errs.Wrap(s.lookupDocs))
	r.Methods(http.MethodGet).Path("/internal/v1/charts/count").Handler(s.errs.Wrap(s.countCharts))
	r.Methods(http.MethodGet).Path("/internal/v1/charts/{id}/spec").Handler(s.errs.Wrap(s.getSpec))
}

// Handler is the service behind the internal-token check.
func (s *Service) Handler() http.Handler {
	r := mux.NewRouter()
	s.Routes(r)
	r.NotFoundHandler = s.errs.Wrap(func(w http.ResponseWriter, r *http.Request) error {
		return apierr.New(apierr.NotFound, "no endpoint %s %s in the chart service", r.Method, r.URL.Path)
	})
	return auth.Internal(s.cfg.InternalToken, s.docsURL, r)
}

func (s *Service) countCharts(w http.ResponseWriter, r *http.Request) error {
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	n, err := s.deps.Charts.CountCharts(r.Context(), p.AccountID)
	if err != nil {
		return fmt.Errorf("count charts of %s: %w", p.AccountID, err)
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]int{"used": n})
	return nil
}
