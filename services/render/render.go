// Package render is the render service: it draws charts into images,
// counts renders against the plan's allowances (it owns the render
// counters) and will serve public image links.
package render

import (
	"context"
	"flag"
	"fmt"
	"html/template"
	"log/slog"
	"net/http"
	"reflect"
	"sync"
	"time"

	"go.opentelemetry.io/otel/metric"

	"chartd.dev/charts"
	"chartd.dev/libs/aggregate"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/blob"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/clientip"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/draw"
	"chartd.dev/libs/httpx"
	"chartd.dev/libs/quota"
	"chartd.dev/libs/raster"
	"chartd.dev/libs/revoke"
	"chartd.dev/libs/route"
	"chartd.dev/libs/secrets"
	"chartd.dev/libs/signing"
	"chartd.dev/libs/store"
)

// Name is the service's name: its target and its flag prefix.
const Name = "render"

// Config is the render service's settings: its flags are -render.*.
type Config struct {
	aggregate.ReaderConfig
	// Raster sizes the Chromium pool that draws PNGs.
	Raster raster.Config
	// ImageCacheMiB caps the PNG cache on disk (the embedded image store;
	// a bucket is bounded by its lifecycle rule instead).
	ImageCacheMiB int
	// ImageCacheMinFreeMiB is the free space the PNG cache on disk leaves
	// on its volume: under it the cache writes nothing and still serves,
	// so it never takes the room the SQLite store on the same data volume
	// freed for its deletes.
	ImageCacheMinFreeMiB int
	// Links sets how public image links are served.
	Links LinkConfig
	// DrawBudgetMiB is the memory the drawings in flight may hold together,
	// by their estimate; a render waits for its share up to the raster
	// deadline, then is refused as busy.
	DrawBudgetMiB int
	// FontCacheMiB caps the font subsets kept for SVGs that carry their
	// fonts, by face and character set.
	FontCacheMiB int
	// TrustedProxies are the proxies in front of the service (the ingress
	// controller's pods, which send /img here): behind one of them the
	// client address of the image links' per-address limit is read from
	// X-Forwarded-For (libs/clientip). Empty, it is the connection's
	// address and the header is ignored.
	TrustedProxies clientip.Proxies
	// DeadPoolAfter is how long the Chromium pool may go without a live
	// browser (every relaunch failing) before liveness fails and the pod
	// is restarted; 0 never fails it.
	DeadPoolAfter time.Duration
}

// RegisterFlags declares the service's flags under its name, with the
// defaults of a small machine.
func (c *Config) RegisterFlags(service string, fs *flag.FlagSet) {
	c.ReaderConfig.RegisterFlags(service, fs)
	if c.Raster == (raster.Config{}) {
		c.Raster = raster.DefaultConfig()
	}
	c.Raster.RegisterFlags(service, fs)
	fs.IntVar(&c.ImageCacheMiB, service+".image-cache-mib", 512, "size of the PNG cache on disk, in MiB (embedded image store)")
	fs.IntVar(&c.ImageCacheMinFreeMiB, service+".image-cache-min-free-mib", 64, "free space the PNG cache on disk leaves on its volume, in MiB: under it the cache writes nothing and still serves (embedded image store)")
	c.Links.RegisterFlags(service, fs)
	fs.IntVar(&c.FontCacheMiB, service+".font-cache-mib", 64, "font subsets kept for SVGs that carry their fonts, in MiB")
	fs.IntVar(&c.DrawBudgetMiB, service+".draw-budget-mib", 160, "memory the drawings in flight may hold together, by their estimate, in MiB; larger renders wait their turn")
	fs.Var(&c.TrustedProxies, service+".trusted-proxies", clientip.FlagUsage)
	fs.DurationVar(&c.DeadPoolAfter, service+".dead-pool-after", 3*time.Minute, "how long the Chromium pool may have no live browser (relaunches failing) before /healthz fails and the pod is restarted; 0: never")
}

// Deps are the parts the service is built from.
type Deps struct {
	// Revocations, when set, tell the signing-key cache which kids were
	// revoked or rotated away: their links are refused from the next
	// request on, in every process.
	Revocations revoke.Notifier
	// Counter holds the daily render and monthly image-render counts.
	Counter quota.Counter
	Catalog *charts.Catalog
	Ops     *chartspec.Ops
	Fonts   *draw.Fonts
	// Subsets cuts the faces an SVG carries; nil builds hb-subset and
	// woff2_compress behind a cache of Config.FontCacheMiB.
	Subsets draw.Subsetter
	// Charts reads chart aggregates from their owner, the chart service.
	Charts aggregate.Source
	// Brand reads the account's brand palette when an op names it.
	Brand clients.Brand
	// Raster draws PNGs (the Chromium pool); Images caches them by picture
	// hash, and may be nil for no cache.
	Raster Rasterizer
	Images blob.Store
	// Accounts holds the signing keys of image links, which this service
	// owns, and the plan of a link's owner; Box opens the keys' secrets;
	// Limiter limits links per client address and per link.
	Accounts LinkStore
	Box      *secrets.Box
	Limiter  quota.Limiter
	Meter    metric.MeterProvider
	Log      *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
}

// LinkStore is what image links keep in the store: signing keys (owned
// here), the plan of a link's owner and the designs of data links.
type LinkStore interface {
	store.Accounts
	store.LinkDesigns
}

// Service is the render service.
type Service struct {
	cfg     Config
	deps    Deps
	charts  *aggregate.Loader
	metrics metrics
	keys    *signing.Keys
	// known remembers image link answers, so a repeat is not drawn.
	known known
	errs  httpx.Errors
	// puts bounds the image cache writes in flight; writers waits for them.
	puts    chan struct{}
	writers sync.WaitGroup
	// admit bounds the memory of the drawings in flight.
	admit *admission
	// subsets cuts the faces SVG answers carry, and keeps them.
	subsets draw.Subsetter
	// pictures is the docs' and home page's gallery, drawn once (see
	// gallery.go).
	pictures galleryOnce
	// embedTmpl is an embed's page (embed.go).
	embedTmpl *template.Template
}

// The counter keys of an account.
func rendersKey(account string) string { return "renders:" + account }
func imagesKey(account string) string  { return "images:" + account }

// New builds the service.
func New(cfg Config, deps Deps) (*Service, error) {
	if deps.Counter == nil || deps.Log == nil || deps.Catalog == nil || deps.Ops == nil || deps.Fonts == nil || deps.Charts == nil || deps.Raster == nil {
		return nil, fmt.Errorf("render service: Counter, Catalog, Ops, Fonts, Charts, Raster and Log are required")
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	loader, err := aggregate.NewLoader(deps.Charts, cfg.Tables)
	if err != nil {
		return nil, fmt.Errorf("render service: %w", err)
	}
	m, err := newMetrics(deps.Meter)
	if err != nil {
		return nil, fmt.Errorf("render service: %w", err)
	}
	if cfg.DrawBudgetMiB <= 0 {
		cfg.DrawBudgetMiB = 160
	}
	if cfg.Raster.Deadline <= 0 {
		cfg.Raster.Deadline = raster.DefaultConfig().Deadline
	}
	if cfg.FontCacheMiB <= 0 {
		cfg.FontCacheMiB = 64
	}
	if deps.Subsets == nil {
		c, err := newSubsets(cfg.FontCacheMiB)
		if err != nil {
			return nil, fmt.Errorf("render service: %w", err)
		}
		deps.Subsets = c
	}
	svc := &Service{subsets: deps.Subsets, cfg: cfg, deps: deps, charts: loader, metrics: m, puts: make(chan struct{}, 32), errs: cfg.Site.Errors(deps.Log),
		admit: newAdmission(cfg.DrawBudgetMiB, cfg.Raster.Deadline)}
	if svc.known, err = newKnown(); err != nil {
		return nil, fmt.Errorf("render service: %w", err)
	}
	if svc.embedTmpl, err = parseEmbedPage(); err != nil {
		return nil, fmt.Errorf("render service: %w", err)
	}
	if err := svc.observeFleet(deps.Meter); err != nil {
		return nil, fmt.Errorf("render service: %w", err)
	}
	if cfg.TrustedProxies.Enabled() {
		deps.Log.Info("render: image-link client addresses are read from X-Forwarded-For behind these trusted proxies (-render.trusted-proxies)",
			"trusted_proxies", cfg.TrustedProxies.String())
	}
	if deps.Accounts != nil && deps.Box != nil {
		svc.keys = &signing.Keys{Lookup: deps.Accounts.LookupSigningKey, Box: deps.Box, TTL: cfg.Links.KeyTTL, Now: deps.Now}
		if deps.Revocations != nil {
			deps.Revocations.Subscribe(func(e revoke.Event) {
				switch e.Kind {
				case revoke.SigningKey:
					svc.keys.Forget(e.ID)
				case revoke.Reset:
					svc.keys.ForgetAll()
				}
			})
		}
	}
	return svc, nil
}

// Endpoints is the service's route table.
func Endpoints() []route.Endpoint[*Service] {
	const api = route.APIBase
	return []route.Endpoint[*Service]{
		route.Stream(route.Spec{Route: route.Route{Op: "render_chart", Method: http.MethodGet, Path: api + "/charts/{id}/render.{format}"}}, (*Service).renderChart),
		route.Stream(route.Spec{Route: route.Route{Op: "render_image", Method: http.MethodPost, Path: api + "/render"}, Answers: reflect.TypeFor[ImageJSON]()}, (*Service).renderImage),
		route.Stream(route.Spec{Route: route.Route{Op: "render_template", Method: http.MethodPost, Path: api + "/charts/{id}/render"}, Answers: reflect.TypeFor[ImageJSON]()}, (*Service).renderTemplate),
		route.JSON(route.Spec{Route: route.Route{Op: "create_image_url", Method: http.MethodPost, Path: api + "/image-urls"}}, (*Service).createImageURL),
		route.JSON(route.Spec{Route: route.Route{Op: "fleet_stats", Method: http.MethodGet, Path: "/internal/v1/fleet-stats", Access: route.Internal}, Need: route.Anyone}, (*Service).fleetStats),
		{Route: route.Route{Op: "get_image", Method: http.MethodGet, Path: imageRoute, Access: route.Direct}, Handle: (*Service).image},
		route.JSON(route.Spec{Route: route.Route{Op: "create_embed", Method: http.MethodPost, Path: api + "/charts/{id}/embed"}, Body: route.BodyOptional}, (*Service).createEmbed),
		{Route: route.Route{Op: "get_embed", Method: http.MethodGet, Path: embedRoute, Access: route.Direct}, Handle: (*Service).embed},
		route.Stream(route.Spec{Route: route.Route{Op: "get_oembed", Method: http.MethodGet, Path: oembedRoute, Access: route.Direct}, Need: route.Anyone, Body: route.BodyNone, Answers: reflect.TypeFor[OEmbedAnswer]()}, (*Service).oembed),
		route.JSON(route.Spec{Route: route.Route{Op: "render_usage", Method: http.MethodGet, Path: "/internal/v1/usage", Access: route.Internal}}, (*Service).usage),
		route.JSON(route.Spec{Route: route.Route{Op: "render_thumbnail", Method: http.MethodGet, Path: "/internal/v1/charts/{id}/thumbnail", Access: route.Internal}}, (*Service).thumbnail),
		route.JSON(route.Spec{Route: route.Route{Op: "render_layout", Method: http.MethodGet, Path: "/internal/v1/charts/{id}/layout", Access: route.Internal}}, (*Service).layout),
		route.Stream(route.Spec{Route: route.Route{Op: "render_gallery", Method: http.MethodGet, Path: "/internal/v1/gallery", Access: route.Internal}, Need: route.Anyone}, (*Service).gallery),
		route.JSON(route.Spec{Route: route.Route{Op: "render_try", Method: http.MethodPost, Path: "/internal/v1/try", Access: route.Internal}, Need: route.Anyone}, (*Service).try),
		route.JSON(route.Spec{Route: route.Route{Op: "render_sketch", Method: http.MethodPost, Path: "/internal/v1/sketch", Access: route.Internal}}, (*Service).sketch),
		route.JSON(route.Spec{Route: route.Route{Op: "render_preview", Method: http.MethodPost, Path: "/internal/v1/charts/{id}/preview", Access: route.Internal}}, (*Service).preview),
	}
}

// Routes is the service's route table without handlers, for the gateway.
func Routes() []route.Route { return route.Routes(Endpoints()) }

// Handler is the service behind the internal-token check.
func (s *Service) Handler() http.Handler {
	return route.Handler(s.cfg.Site, Name, s, Endpoints(), s.deps.Log)
}

func (s *Service) usage(ctx context.Context, p auth.Principal, _ route.None) (clients.Usage, error) {
	renders, err := s.deps.Counter.Get(ctx, rendersKey(p.AccountID), quota.Day)
	if err != nil {
		return clients.Usage{}, fmt.Errorf("read render count: %w", err)
	}
	images, err := s.deps.Counter.CountUnique(ctx, imagesKey(p.AccountID), quota.Month)
	if err != nil {
		return clients.Usage{}, fmt.Errorf("read image count: %w", err)
	}
	return clients.Usage{Renders: renders, ImageRenders: images}, nil
}
