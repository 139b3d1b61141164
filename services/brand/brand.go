// Package brand is the brand service. Its public endpoints arrive with their own
// issues; today it is a target of its own that answers its health and
// refuses everything else with the API error body.
package brand

import (
	"log/slog"
	"net/http"
	"strings"

	"github.com/gorilla/mux"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/httpx"
)

// Config is the brand service's settings.
type Config struct {
	PublicURL     string
	InternalToken string
}

// Deps are the parts the service is built from.
type Deps struct {
	Log *slog.Logger
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
func (s *Service) Routes(r *mux.Router) {}

// Handler is the service behind the internal-token check.
func (s *Service) Handler() http.Handler {
	r := mux.NewRouter()
	s.Routes(r)
	r.NotFoundHandler = s.errs.Wrap(func(w http.ResponseWriter, r *http.Request) error {
		return apierr.New(apierr.NotFound, "no endpoint %s %s in the brand service", r.Method, r.URL.Path)
	})
	return auth.Internal(s.cfg.InternalToken, s.docsURL, r)
}
