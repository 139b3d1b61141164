// Package render is the render service: it draws charts into images,
// counts renders against the plan's allowances (it owns the render
// counters) and will serve public image links.
package render

import (
	"context"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"chartd.dev/charts"
	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/draw"
	"chartd.dev/libs/httpx"
	"chartd.dev/libs/quota"
)

// Config is the render service's settings.
type Config struct {
	PublicURL     string
	InternalToken string
}

// Deps are the parts the service is built from.
type Deps struct {
	// Counter holds the daily render and monthly image-render counts.
	Counter quota.Counter
	Catalog *charts.Catalog
	Ops     *chartspec.Ops
	Fonts   *draw.Fonts
	// Charts and Data read saved charts from their owners.
	Charts clients.Chart
	Data   clients.Data
	// Brand answers the account's brand palette (nil when none is saved).
	Brand func(ctx context.Context, p auth.Principal) ([]string, error)
	Log   *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Service is the render service.
type Service struct {
	cfg     Config
	deps    Deps
	docsURL string
	errs    httpx.Errors
	tables  *dataset.Cache
}

// The counter keys of an account.
func rendersKey(account string) string { return "renders:" + account }
func imagesKey(account string) string  { return "images:" + account }

// New builds the service.
func New(cfg Config, deps Deps) (*Service, error) {
	if deps.Counter == nil || deps.Log == nil || deps.Catalog == nil || deps.Ops == nil || deps.Fonts == nil {
		return nil, fmt.Errorf("render service: Counter, Catalog, Ops, Fonts and Log are required")
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	// 64 tables of at most 100,000 cells: ~100 MB at worst.
	tables, err := dataset.NewCache(64, 100_000)
	if err != nil {
		return nil, err
	}
	docs := strings.TrimRight(cfg.PublicURL, "/") + "/docs"
	return &Service{cfg: cfg, deps: deps, docsURL: docs, errs: httpx.Errors{DocsURL: docs}, tables: tables}, nil
}

// Routes registers the service's routes on r.
func (s *Service) Routes(r *mux.Router) {
	r.Methods(http.MethodGet).Path("/api/v1/charts/{id}/render.{format}").Handler(s.errs.Wrap(s.renderChart))
	r.Methods(http.MethodPost).Path("/api/v1/render").Handler(s.errs.Wrap(s.renderImage))
	r.Methods(http.MethodPost).Path("/api/v1/charts/{id}/render").Handler(s.errs.Wrap(s.renderTemplate))
	r.Methods(http.MethodGet).Path("/internal/v1/usage").Handler(s.errs.Wrap(s.usage))
}

// Handler is the service behind the internal-token check.
func (s *Service) Handler() http.Handler {
	r := mux.NewRouter()
	s.Routes(r)
	r.NotFoundHandler = s.errs.Wrap(func(w http.ResponseWriter, r *http.Request) error {
		return apierr.New(apierr.NotFound, "no endpoint %s %s in the render service", r.Method, r.URL.Path)
	})
	return auth.Internal(s.cfg.InternalToken, s.docsURL, r)
}

func (s *Service) usage(w http.ResponseWriter, r *http.Request) error {
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	renders, err := s.deps.Counter.Get(r.Context(), rendersKey(p.AccountID), quota.Day)
	if err != nil {
		return fmt.Errorf("read render count: %w", err)
	}
	images, err := s.deps.Counter.CountUnique(r.Context(), imagesKey(p.AccountID), quota.Month)
	if err != nil {
		return fmt.Errorf("read image count: %w", err)
	}
	httpx.WriteJSON(w, http.StatusOK, clients.Usage{Renders: renders, ImageRenders: images})
	return nil
}
