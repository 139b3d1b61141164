// Package render is the render service: it draws charts into images,
// counts renders against the plan's allowances and serves public image
// links. It owns the render counters.
package render

import (
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"github.com/gorilla/mux"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/clients"
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
	Log     *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Service is the render service.
type Service struct {
	cfg     Config
	deps    Deps
	docsURL string
	errs    httpx.Errors
}

// The counter keys of an account.
func rendersKey(account string) string { return "renders:" + account }
func imagesKey(account string) string  { return "images:" + account }

// New builds the service.
func New(cfg Config, deps Deps) (*Service, error) {
	if deps.Counter == nil || deps.Log == nil {
		return nil, fmt.Errorf("render service: Counter and Log are required")
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	docs := strings.TrimRight(cfg.PublicURL, "/") + "/docs"
	return &Service{cfg: cfg, deps: deps, docsURL: docs, errs: httpx.Errors{DocsURL: docs}}, nil
}

// Routes registers the service's routes on r.
func (s *Service) Routes(r *mux.Router) {
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
	p, err := auth.Must(r.Context())
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
