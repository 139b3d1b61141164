// Package brand is the brand service: it owns each account's brand palette
// (get, set, and the internal read behind setPalette {"palette":"brand"})
// and extracts brand colours from a company's website. Extraction fetches
// other people's pages from inside our network, so it goes through
// libs/fetch, which refuses every address that is not public, and it is
// counted against a daily allowance of websites per account.
package brand

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"go.opentelemetry.io/otel/metric"

	"chartd.dev/libs/auth"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/fetch"
	"chartd.dev/libs/quota"
	"chartd.dev/libs/route"
	"chartd.dev/libs/store"
)

// Name is the service's name: its target and its flag prefix.
const Name = "brand"

// Config is the brand service's settings.
type Config struct {
	route.Site
	// FetchAllow lets these "host:port" destinations through the fetcher
	// even when private: for tests and local development, never in
	// production. New logs it when set.
	FetchAllow []string
	// EgressProxy sends website fetches through this proxy (http, https or
	// socks5 URL), for clusters whose outbound traffic goes through one.
	EgressProxy string
	// FetchTimeout bounds one website lookup, every document included.
	FetchTimeout time.Duration
}

// RegisterFlags declares the service's flags, prefixed "brand.".
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.Func(Name+".fetch-allow", "comma-separated host:port destinations the website fetcher may reach although private (tests and local development only; off by default)", func(v string) error {
		for _, hp := range strings.Split(v, ",") {
			if hp = strings.TrimSpace(hp); hp != "" {
				c.FetchAllow = append(c.FetchAllow, hp)
			}
		}
		return nil
	})
	fs.StringVar(&c.EgressProxy, Name+".egress-proxy", "", "send website fetches through this proxy (http://, https:// or socks5:// URL)")
	fs.DurationVar(&c.FetchTimeout, Name+".fetch-timeout", 10*time.Second, "time budget of one website lookup, every document included")
}

// FetchConfig is the fetcher configuration these settings describe.
func (c Config) FetchConfig() (fetch.Config, error) {
	fc := fetch.Config{Timeout: c.FetchTimeout, Allow: c.FetchAllow, UserAgent: fetch.UserAgent(c.PublicURL)}
	if c.EgressProxy != "" {
		u, err := url.Parse(c.EgressProxy)
		if err != nil {
			return fc, fmt.Errorf("-%s.egress-proxy: %w", Name, err)
		}
		fc.Proxy = u
	}
	return fc, nil
}

// Deps are the parts the service is built from.
type Deps struct {
	// Accounts holds the brand palettes, which this service owns.
	Accounts store.Accounts
	// Counter holds the daily count of websites looked up per account.
	Counter quota.Counter
	// Fetcher reads websites; build it from Config.FetchConfig.
	Fetcher *fetch.Fetcher
	Meter   metric.MeterProvider
	Log     *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// Service is the brand service.
type Service struct {
	cfg     Config
	deps    Deps
	metrics metrics
}

// New builds the service.
func New(cfg Config, deps Deps) (*Service, error) {
	if deps.Accounts == nil || deps.Counter == nil || deps.Fetcher == nil || deps.Log == nil {
		return nil, errors.New("brand service: Accounts, Counter, Fetcher and Log are required")
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	m, err := newMetrics(deps.Meter)
	if err != nil {
		return nil, fmt.Errorf("brand service: %w", err)
	}
	if len(cfg.FetchAllow) > 0 {
		deps.Log.Warn("brand: the website fetcher may reach these private destinations (-brand.fetch-allow); never set this in production",
			"allow", strings.Join(cfg.FetchAllow, ","))
	}
	return &Service{cfg: cfg, deps: deps, metrics: m}, nil
}

// Endpoints is the service's route table.
func Endpoints() []route.Endpoint[*Service] {
	const api = route.APIBase
	return []route.Endpoint[*Service]{
		route.JSON(route.Spec{Route: route.Route{Op: "get_brand_palette", Method: http.MethodGet, Path: api + "/brand-palette"}}, (*Service).getPalette),
		route.JSON(route.Spec{Route: route.Route{Op: "set_brand_palette", Method: http.MethodPut, Path: api + "/brand-palette"}, Gate: mayKeepPalette}, (*Service).setPalette),
		route.JSON(route.Spec{Route: route.Route{Op: "extract_brand_palette", Method: http.MethodPost, Path: api + "/brand-palette/extract"}, Gate: mayExtract}, (*Service).extract),
		route.JSON(route.Spec{Route: route.Route{Op: "brand_palette", Method: http.MethodGet, Path: "/internal/v1/brand-palette", Access: route.Internal}}, (*Service).palette),
	}
}

// Routes is the service's route table without handlers, for the gateway.
func Routes() []route.Route { return route.Routes(Endpoints()) }

// Handler is the service behind the internal-token check.
func (s *Service) Handler() http.Handler {
	return route.Handler(s.cfg.Site, Name, s, Endpoints(), s.deps.Log)
}

// palette is the internal read of setPalette {"palette":"brand"}.
func (s *Service) palette(ctx context.Context, p auth.Principal, _ route.None) (clients.BrandPalette, error) {
	colors, err := s.saved(ctx, p)
	if err != nil {
		return clients.BrandPalette{}, err
	}
	return clients.BrandPalette{Colors: colors}, nil
}

// saved answers the account's brand colours, nil when none are saved.
func (s *Service) saved(ctx context.Context, p auth.Principal) ([]string, error) {
	colors, err := s.deps.Accounts.GetBrandPalette(ctx, p.AccountID)
	if err != nil {
		return nil, fmt.Errorf("brand palette of %s: %w", p.AccountID, err)
	}
	return colors, nil
}
