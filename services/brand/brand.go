// Package brand is the brand service: it owns each account's brand palette.
// Its public endpoints (get/set/extract) arrive with their own issue; today it
// answers the internal read that setPalette {"palette":"brand"} needs.
package brand

import (
	"flag"
	"fmt"
	"log/slog"
	"net/http"

	"chartd.dev/libs/auth"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/httpx"
	"chartd.dev/libs/route"
	"chartd.dev/libs/store"
)

// Name is the service's name: its target and its flag prefix.
const Name = "brand"

// Config is the brand service's settings.
type Config struct {
	route.Site
}

// RegisterFlags declares the service's own flags, prefixed "brand."; it
// has none yet (website extraction will bring its limits).
func (c *Config) RegisterFlags(fs *flag.FlagSet) {}

// Deps are the parts the service is built from.
type Deps struct {
	Accounts store.Accounts
	Log      *slog.Logger
}

// Service is the brand service.
type Service struct {
	cfg  Config
	deps Deps
}

// New builds the service.
func New(cfg Config, deps Deps) (*Service, error) {
	if deps.Accounts == nil || deps.Log == nil {
		return nil, fmt.Errorf("brand service: Accounts and Log are required")
	}
	return &Service{cfg: cfg, deps: deps}, nil
}

// Endpoints is the service's route table.
func Endpoints() []route.Endpoint[*Service] {
	return []route.Endpoint[*Service]{
		{Route: route.Route{Op: "brand_palette", Method: http.MethodGet, Path: "/internal/v1/brand-palette", Access: route.Internal}, Handle: (*Service).palette},
	}
}

// Routes is the service's route table without handlers, for the gateway.
func Routes() []route.Route { return route.Routes(Endpoints()) }

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
	return route.Handler(s.cfg.Site, Name, s, Endpoints(), s.deps.Log)
}
