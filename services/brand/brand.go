// Package brand is the brand service: it owns each account's brand palette.
// Its public endpoints (get/set/extract) arrive with their own issue; today it
// answers the internal read that setPalette {"palette":"brand"} needs.
package brand

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/httpx"
	"chartd.dev/libs/store"
)

// Config is the brand service's settings.
type Config struct {
	PublicURL     string
	InternalToken string
}

// Deps are the parts the service is built from.
type Deps struct {
	Accounts store.Accounts
	Log      *slog.Logger
}

// Service is the brand service.
type Service struct {
	cfg     Config
	deps    Deps
	docsURL string
	errs    httpx.Errors
}

// New builds the service.
func New(cfg Config, deps Deps) (*Service, error) {
	docs := strings.TrimRight(cfg.PublicURL, "/") + "/docs"
	return &Service{cfg: cfg, deps: deps, docsURL: docs, errs: httpx.Errors{DocsURL: docs}}, nil
}

// Routes registers the service's routes on r.
func (s *Service) Routes(r *mux.Router) {
	r.Methods(http.MethodGet).Path("/internal/v1/brand-palette").Handler(s.errs.Wrap(s.palette))
}

func (s *Service) palette(w http.ResponseWriter, r *http.Request) error {
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	colors, err := s.deps.Accounts.GetBrandPalette(r.Context(), p.AccountID)
	if err != nil {
		return fmt.Errorf("brand palette of %s: %w", p.AccountID, err)
	}
	httpx.WriteJSON(w, http.StatusOK, clients.BrandPalette{Colors: colors})
	return nil
}

// Handler is the service behind the internal-token check.
func (s *Service) Handler() http.Handler {
	r := mux.NewRouter()
	s.Routes(r)
	r.NotFoundHandler = s.errs.Wrap(func(w http.ResponseWriter, r *http.Request) error {
		return apierr.New(apierr.NotFound, "no endpoint %s %s in the brand service", r.Method, r.URL.Path)
	})
	return auth.Internal(s.cfg.InternalToken, s.docsURL, r)
}
