package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"sync/atomic"
	"time"

	"github.com/gorilla/mux"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"

	"chartd.dev/charts"
	"chartd.dev/libs/apierr"
	"chartd.dev/libs/blob"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/docsite"
	"chartd.dev/libs/draw"
	"chartd.dev/libs/fetch"
	"chartd.dev/libs/fontstack"
	"chartd.dev/libs/gallery"
	"chartd.dev/libs/httpx"
	"chartd.dev/libs/lifecycle"
	"chartd.dev/libs/mail"
	"chartd.dev/libs/oauth"
	"chartd.dev/libs/people"
	"chartd.dev/libs/quota"
	"chartd.dev/libs/raster"
	"chartd.dev/libs/revoke"
	"chartd.dev/libs/route"
	"chartd.dev/libs/secrets"
	"chartd.dev/libs/store"
	"chartd.dev/libs/store/postgres"
	"chartd.dev/libs/store/sqlite"
	"chartd.dev/libs/telemetry"
	"chartd.dev/services/brand"
	"chartd.dev/services/chart"
	"chartd.dev/services/data"
	"chartd.dev/services/gateway"
	"chartd.dev/services/gateway/mcp"
	oauthhttp "chartd.dev/services/gateway/oauth"
	"chartd.dev/services/gateway/site"
	"chartd.dev/services/render"
)

// TargetAll runs every service in one process.
const TargetAll = "all"

// Modules: the backends and shared parts services are built on.
const (
	modStore   = "store"
	modRedis   = "redis"
	modLimiter = "limiter"
	modCounter = "counter"
	modCatalog = "catalog"
	modOps     = "ops"
	modFonts   = "fonts"
	modDocs    = "docs"
	modRaster  = "raster"
	modImages  = "images"
	modSecrets = "secrets"
	modRevoke  = "revoke"
)

// service is one of chartd's services. This list is the one place the
// services are written down: the targets, each service's flags and its
// -<name>-url, the clients, the gateway's routing and the dependency map
// are all derived from it.
type service struct {
	name string
	// routes is the service's route table (its package's Routes()).
	routes []route.Route
	// needs are the modules the service is built on.
	needs []string
	// calls are the services it calls; in split mode each needs a URL.
	// None is part of its readiness: a process is ready when its own
	// modules are, and a service away fails only the answers that need
	// it, with a 503 error body (docs/decisions/operations.md,
	// "Readiness does not cascade").
	calls []string
	// degradedWithout are services it calls for a part of its answers it
	// gives without them while they are away (the chart service's lint
	// asks the render service for layout problems): in split mode each
	// needs a URL too.
	degradedWithout []string
	// flags registers the service's own prefixed flags on the config.
	flags func(c *Config, fs *flag.FlagSet)
	// init builds the service's handler.
	init func(a *App, ctx context.Context) (http.Handler, error)
}

// services lists chartd's services; the gateway comes last, as it routes
// to all the others.
func services() []service {
	return []service{
		{name: chart.Name, routes: chart.Routes(), needs: []string{modStore, modCatalog, modOps, modDocs}, calls: []string{brand.Name}, degradedWithout: []string{render.Name},
			flags: func(c *Config, fs *flag.FlagSet) { c.Chart.RegisterFlags(chart.Name, fs) }, init: (*App).initChart},
		{name: data.Name, routes: data.Routes(), calls: []string{chart.Name},
			flags: func(c *Config, fs *flag.FlagSet) { c.Data.RegisterFlags(data.Name, fs) }, init: (*App).initData},
		{name: brand.Name, routes: brand.Routes(), needs: []string{modStore, modCounter},
			flags: func(c *Config, fs *flag.FlagSet) { c.Brand.RegisterFlags(fs) }, init: (*App).initBrand},
		{name: render.Name, routes: render.Routes(), needs: []string{modStore, modLimiter, modSecrets, modCounter, modCatalog, modOps, modFonts, modRaster, modImages, modRevoke}, calls: []string{chart.Name, brand.Name},
			flags: func(c *Config, fs *flag.FlagSet) { c.Render.RegisterFlags(render.Name, fs) }, init: (*App).initRender},
		{name: gateway.Name, routes: gateway.Routes(), needs: []string{modStore, modLimiter, modDocs, modRevoke}, calls: []string{chart.Name, data.Name, brand.Name, render.Name},
			flags: func(c *Config, fs *flag.FlagSet) { c.Gateway.RegisterFlags(fs) }, init: (*App).initGateway},
	}
}

// serviceNamed answers the service called name.
func serviceNamed(name string) (service, bool) {
	i := slices.IndexFunc(services(), func(s service) bool { return s.name == name })
	if i < 0 {
		return service{}, false
	}
	return services()[i], true
}

// targetNames lists the targets a process can run: all, or one service.
func targetNames() []string {
	out := []string{TargetAll}
	for _, s := range services() {
		out = append(out, s.name)
	}
	return out
}

// urlsNeeded lists the services whose URL a target needs when it runs
// alone: those it calls, needed or not.
func urlsNeeded(target string) []string {
	s, _ := serviceNamed(target)
	return append(slices.Clone(s.calls), s.degradedWithout...)
}

// moduleDeps declares, for every module and target, what must be built
// before it: the backends' own table, then each service's needs.
func moduleDeps() map[string][]string {
	deps := map[string][]string{
		modStore:   nil,
		modRedis:   nil,
		modLimiter: {modRedis},
		modCounter: {modRedis},
		modCatalog: nil,
		modOps:     {modCatalog},
		modFonts:   nil,
		modDocs:    {modCatalog},
		modRaster:  {modFonts},
		modImages:  nil,
		modSecrets: nil,
		modRevoke:  {modRedis},
	}
	var all []string
	for _, s := range services() {
		deps[s.name] = s.needs
		all = append(all, s.name)
	}
	deps[TargetAll] = all
	return deps
}

// backends are the shared backends a target needs when it runs apart.
type backends struct{ postgres, redis, keyFile bool }

// sharedBackends answers which shared backends target is built on: the
// store (PostgreSQL), the limiter or counters (Redis) and the server key
// file (-secrets-key-file), from its modules.
func sharedBackends(target string) backends {
	var b backends
	order, err := initOrder(target)
	if err != nil {
		return b
	}
	for _, m := range order {
		switch m {
		case modStore:
			b.postgres = true
		case modRedis:
			b.redis = true
		case modSecrets:
			b.keyFile = true
		}
	}
	return b
}

// initFuncs maps each module to the function that builds it: a backend
// answers its lifecycle (readiness, stop), a service its handler.
func (a *App) initFuncs() map[string]func(context.Context) (lifecycle.Module, error) {
	fns := map[string]func(context.Context) (lifecycle.Module, error){
		modStore:   a.initStore,
		modRedis:   a.initRedis,
		modLimiter: a.initLimiter,
		modCounter: a.initCounter,
		modCatalog: a.initCatalog,
		modOps:     a.initOps,
		modFonts:   a.initFonts,
		modDocs:    a.initDocs,
		modRaster:  a.initRaster,
		modImages:  a.initImages,
		modSecrets: a.initSecrets,
		modRevoke:  a.initRevoke,
		TargetAll:  func(context.Context) (lifecycle.Module, error) { return lifecycle.Module{}, nil },
	}
	for _, s := range services() {
		fns[s.name] = func(ctx context.Context) (lifecycle.Module, error) {
			h, err := s.init(a, ctx)
			if err != nil {
				return lifecycle.Module{}, err
			}
			a.handlers[s.name] = h
			return lifecycle.Module{Run: a.serviceRuns[s.name], Stop: a.serviceStops[s.name]}, nil
		}
	}
	return fns
}

// initOrder answers the modules target needs, dependencies first.
func initOrder(target string) ([]string, error) {
	deps := moduleDeps()
	var order []string
	state := map[string]int{} // 1 visiting, 2 done
	var visit func(m string) error
	visit = func(m string) error {
		switch state[m] {
		case 1:
			return fmt.Errorf("module dependency cycle at %s", m)
		case 2:
			return nil
		}
		d, ok := deps[m]
		if !ok {
			return fmt.Errorf("unknown module %q", m)
		}
		state[m] = 1
		for _, dep := range d {
			if err := visit(dep); err != nil {
				return err
			}
		}
		state[m] = 2
		order = append(order, m)
		return nil
	}
	return order, visit(target)
}

// App is one chartd process: the modules its target needs, built in order
// and run under one lifecycle group.
type App struct {
	cfg     Config
	tel     *telemetry.Providers
	store   store.Store
	redis   *redis.Client
	limiter quota.Limiter
	counter quota.Counter
	catalog *charts.Catalog
	ops     *chartspec.Ops
	fonts   *draw.Fonts
	docs    *docsite.Site
	raster  *raster.Pool
	images  blob.Store
	box     *secrets.Box
	revoke  revoke.Notifier

	// handlers are the service handlers built in this process, by name;
	// serviceStops what a service must finish when the process stops.
	handlers     map[string]http.Handler
	serviceStops map[string]func(context.Context) error
	// serviceRuns are what a service does in the background while the
	// process runs (drawing the gateway's pictures at start).
	serviceRuns map[string]func(context.Context) error
	// pictures are the gateway's docs and home-page pictures.
	pictures *gallery.Source
	handler  http.Handler
	modules  lifecycle.Group
	stopped  bool
	// draining is set on SIGTERM: /readyz answers 503 while the process
	// keeps serving for -shutdown.delay (main.go).
	draining atomic.Bool
}

// NewApp builds every module of cfg.Target on tel, the process's one set
// of telemetry providers.
func NewApp(ctx context.Context, cfg Config, tel *telemetry.Providers) (*App, error) {
	if tel == nil {
		return nil, errors.New("new app: telemetry is required")
	}
	a := &App{cfg: cfg, tel: tel, handlers: map[string]http.Handler{}, serviceStops: map[string]func(context.Context) error{},
		serviceRuns: map[string]func(context.Context) error{}}
	if cfg.Target == TargetAll && cfg.InternalToken == "" {
		var b [24]byte
		rand.Read(b[:])
		a.cfg.InternalToken = hex.EncodeToString(b[:])
	}
	order, err := initOrder(cfg.Target)
	if err != nil {
		return nil, err
	}
	fns := a.initFuncs()
	for _, m := range order {
		mod, err := fns[m](ctx)
		if err != nil {
			a.Close()
			return nil, fmt.Errorf("init %s: %w", m, err)
		}
		mod.Name = m
		a.modules.Add(mod)
	}
	a.handler = a.buildHandler()
	return a, nil
}

// Handler is the process's HTTP surface.
func (a *App) Handler() http.Handler { return a.handler }

// Ready asks every module of the process whether it can serve; a process
// draining for its stop is not ready, whatever its modules say.
func (a *App) Ready(ctx context.Context) error {
	if a.draining.Load() {
		return &lifecycle.NotReadyError{Modules: []string{"process (draining for shutdown)"}, Err: errors.New("draining: SIGTERM received")}
	}
	return a.modules.Ready(ctx)
}

// Live asks the modules that can fail beyond repair (the render pool).
func (a *App) Live(ctx context.Context) error { return a.modules.Live(ctx) }

// Run runs the modules until ctx ends, then stops them in reverse order.
func (a *App) Run(ctx context.Context) error {
	if a.stopped {
		return errors.New("app already stopped")
	}
	a.stopped = true
	return a.modules.Run(ctx)
}

// Close stops the modules of an app that never ran (or releases nothing
// when Run has stopped them already).
func (a *App) Close() error {
	if a.stopped {
		return nil
	}
	a.stopped = true
	return a.modules.Stop(context.Background())
}

func (a *App) initStore(ctx context.Context) (lifecycle.Module, error) {
	var s store.Store
	var err error
	if a.cfg.PostgresURL != "" {
		s, err = postgres.Open(ctx, a.cfg.PostgresURL)
	} else {
		if err := os.MkdirAll(a.cfg.DataDir, 0o700); err != nil {
			return lifecycle.Module{}, fmt.Errorf("data dir: %w", err)
		}
		reserve := int64(a.cfg.SQLiteReserveMiB) << 20
		if reserve == 0 {
			reserve = -1 // none
		}
		s, err = sqlite.OpenWith(ctx, filepath.Join(a.cfg.DataDir, "chartd.db"), sqlite.Options{ReserveBytes: reserve})
	}
	if err != nil {
		return lifecycle.Module{}, err
	}
	a.store = s
	return lifecycle.Module{Ready: s.Ping, Stop: func(context.Context) error { return s.Close() }}, nil
}

func (a *App) initRedis(ctx context.Context) (lifecycle.Module, error) {
	if a.cfg.RedisURL == "" {
		return lifecycle.Module{}, nil
	}
	opts, err := redis.ParseURL(a.cfg.RedisURL)
	if err != nil {
		return lifecycle.Module{}, fmt.Errorf("redis url: %w", err)
	}
	// Let a request's deadline bound each Redis call, so an outage costs the
	// limiter's short timeout and not go-redis' retries.
	opts.ContextTimeoutEnabled = true
	rc := redis.NewClient(opts)
	a.redis = rc
	// Redis is not part of readiness: the limiter and the usage counters
	// work in process while it is away (libs/quota), so a replica
	// serves through an outage. Were it a readiness check, every replica
	// would leave the load balancer at once and the degradation would buy
	// nothing.
	return lifecycle.Module{Stop: func(context.Context) error { return rc.Close() }}, nil
}

func (a *App) redisOptions() quota.RedisOptions {
	return quota.RedisOptions{Logger: a.tel.Log, Meter: a.tel.Meter.Meter("chartd/quota"), Replicas: a.cfg.RedisReplicas}
}

func (a *App) initLimiter(ctx context.Context) (lifecycle.Module, error) {
	if a.redis == nil {
		a.limiter = quota.NewMemory(nil)
		return lifecycle.Module{}, nil
	}
	l, err := quota.NewRedis(a.redis, a.redisOptions())
	if err != nil {
		return lifecycle.Module{}, err
	}
	a.limiter = l
	return lifecycle.Module{}, nil
}

func (a *App) initCounter(ctx context.Context) (lifecycle.Module, error) {
	if a.redis == nil {
		a.counter = quota.NewMemoryCounter(nil)
		return lifecycle.Module{}, nil
	}
	a.counter = quota.NewRedisCounter(a.redis, a.redisOptions())
	return lifecycle.Module{}, nil
}

// initRevoke builds what carries revocations to the key caches: Redis
// pub/sub between processes, plain calls in one process without Redis.
func (a *App) initRevoke(ctx context.Context) (lifecycle.Module, error) {
	if a.redis == nil {
		a.revoke = revoke.NewMemory()
		return lifecycle.Module{}, nil
	}
	n := revoke.NewRedis(ctx, a.redis, revoke.RedisOptions{Log: a.tel.Log})
	a.revoke = n
	return lifecycle.Module{Run: n.Run, Stop: func(context.Context) error { return n.Close() }}, nil
}

func (a *App) initCatalog(ctx context.Context) (lifecycle.Module, error) {
	c, err := charts.Load()
	if err != nil {
		return lifecycle.Module{}, err
	}
	a.catalog = c
	return lifecycle.Module{}, nil
}

func (a *App) initOps(ctx context.Context) (lifecycle.Module, error) {
	ops, err := chartspec.NewOps(a.catalog)
	if err != nil {
		return lifecycle.Module{}, err
	}
	a.ops = ops
	return lifecycle.Module{}, nil
}

func (a *App) initDocs(ctx context.Context) (lifecycle.Module, error) {
	d, err := docsite.New(a.catalog, a.cfg.PublicURL+"/docs", a.cfg.PublicURL+route.APIBase, a.cfg.PublicURL)
	if err != nil {
		return lifecycle.Module{}, err
	}
	a.docs = d
	return lifecycle.Module{}, nil
}

func (a *App) initFonts(ctx context.Context) (lifecycle.Module, error) {
	st, err := fontstack.Find()
	if err != nil {
		return lifecycle.Module{}, err
	}
	f, err := draw.LoadFonts(st)
	if err != nil {
		return lifecycle.Module{}, err
	}
	a.fonts = f
	return lifecycle.Module{}, nil
}

// initRaster builds the Chromium pool. A machine without Chromium fails
// here, at start, with what to install; the browsers themselves start in
// Run, and the render target is ready once their tabs are warm.
func (a *App) initRaster(ctx context.Context) (lifecycle.Module, error) {
	cfg := a.cfg.Render.Raster
	// Chromium draws with the font stack layout measured with. The
	// folders a killed chartd left behind go first.
	raster.SweepStale(os.TempDir(), "chartd-fonts-")
	dir, err := raster.MakeTempDir("chartd-fonts-")
	if err != nil {
		return lifecycle.Module{}, fmt.Errorf("fontconfig dir: %w", err)
	}
	if cfg.FontConfig, err = a.fonts.Stack().WriteFontconfig(dir); err != nil {
		os.RemoveAll(dir)
		return lifecycle.Module{}, err
	}
	cfg.Tracer = a.tel.Tracer
	pool, err := raster.New(cfg, a.tel.Log)
	if err != nil {
		os.RemoveAll(dir)
		return lifecycle.Module{}, err
	}
	a.raster = pool
	live := deadPool{after: a.cfg.Render.DeadPoolAfter, ready: pool.Ready, seen: new(atomic.Int64)}
	live.seen.Store(time.Now().UnixNano())
	return lifecycle.Module{
		Live: live.check,
		Run: func(ctx context.Context) error {
			if err := pool.Start(ctx); err != nil {
				return err
			}
			<-ctx.Done()
			return nil
		},
		Ready: func(context.Context) error { return pool.Ready() },
		Stop: func(context.Context) error {
			defer os.RemoveAll(dir)
			return pool.Close()
		},
	}, nil
}

// deadPool is the render pool's liveness: it fails once the pool has had
// no live browser for longer than after (every relaunch failing), so the
// kubelet restarts a pod that would otherwise stay unready forever.
type deadPool struct {
	after time.Duration
	ready func() error
	// seen is when the pool was last seen with a live browser (or the
	// process started), in Unix nanoseconds.
	seen *atomic.Int64
}

func (d deadPool) check(context.Context) error {
	now := time.Now()
	if d.ready() == nil {
		d.seen.Store(now.UnixNano())
		return nil
	}
	since := now.Sub(time.Unix(0, d.seen.Load()))
	if d.after > 0 && since > d.after {
		return fmt.Errorf("no live Chromium for %s (over -render.dead-pool-after %s): a restart is needed", since.Round(time.Second), d.after)
	}
	return nil
}

// initSecrets loads the server key that seals signing-key secrets: named
// by -secrets-key-file, or for -target=all <data-dir>/secrets.key, made on
// first start.
func (a *App) initSecrets(ctx context.Context) (lifecycle.Module, error) {
	dir := ""
	if a.cfg.Target == TargetAll {
		dir = a.cfg.DataDir
	}
	box, err := secrets.Load(a.cfg.SecretsKeyFile, dir)
	if err != nil {
		return lifecycle.Module{}, err
	}
	a.box = box
	return lifecycle.Module{}, nil
}

// initImages opens the image store: a bucket in the cluster, a bounded
// directory under -data-dir otherwise.
func (a *App) initImages(ctx context.Context) (lifecycle.Module, error) {
	if a.cfg.S3.Endpoint != "" {
		s, err := blob.NewS3(ctx, a.cfg.S3)
		if err != nil {
			return lifecycle.Module{}, err
		}
		a.images = s
		return lifecycle.Module{}, nil
	}
	d, err := blob.NewDir(filepath.Join(a.cfg.DataDir, "images"), int64(a.cfg.Render.ImageCacheMiB)<<20, int64(a.cfg.Render.ImageCacheMinFreeMiB)<<20)
	if err != nil {
		return lifecycle.Module{}, err
	}
	a.images = d
	return lifecycle.Module{}, nil
}

func (a *App) initChart(ctx context.Context) (http.Handler, error) {
	cfg := a.cfg.Chart
	cfg.Site = a.site()
	s, err := chart.New(cfg, chart.Deps{Charts: a.store, Catalog: a.catalog, Log: a.tel.Log, Ops: a.ops, Docs: a.docs,
		Brand: clients.Brand{Base: a.client(brand.Name)}, Layouts: clients.Render{Base: a.client(render.Name)}})
	if err != nil {
		return nil, err
	}
	return a.instrument(chart.Name, s.Handler()), nil
}

func (a *App) initData(ctx context.Context) (http.Handler, error) {
	cfg := a.cfg.Data
	cfg.Site = a.site()
	s, err := data.New(cfg, data.Deps{Charts: clients.Chart{Base: a.client(chart.Name)}, Log: a.tel.Log})
	if err != nil {
		return nil, err
	}
	return a.instrument(data.Name, s.Handler()), nil
}

func (a *App) initBrand(ctx context.Context) (http.Handler, error) {
	cfg := a.cfg.Brand
	cfg.Site = a.site()
	fc, err := cfg.FetchConfig()
	if err != nil {
		return nil, err
	}
	f, err := fetch.New(fc)
	if err != nil {
		return nil, fmt.Errorf("brand website fetcher: %w", err)
	}
	s, err := brand.New(cfg, brand.Deps{Accounts: a.store, Counter: a.counter, Fetcher: f, Meter: a.tel.Meter, Log: a.tel.Log})
	if err != nil {
		return nil, err
	}
	return a.instrument(brand.Name, s.Handler()), nil
}

func (a *App) initRender(ctx context.Context) (http.Handler, error) {
	cfg := a.cfg.Render
	cfg.Site = a.site()
	s, err := render.New(cfg, render.Deps{Counter: a.counter, Catalog: a.catalog, Ops: a.ops, Fonts: a.fonts, Log: a.tel.Log,
		Raster: a.raster, Images: a.images, Meter: a.tel.Meter, Accounts: a.store, Box: a.box, Limiter: a.limiter, Revocations: a.revoke,
		Charts: clients.Chart{Base: a.client(chart.Name)}, Brand: clients.Brand{Base: a.client(brand.Name)}})
	if err != nil {
		return nil, err
	}
	// Pending image cache writes finish before the pool and store go.
	a.serviceStops[render.Name] = func(context.Context) error { s.Flush(); return nil }
	return a.instrument(render.Name, s.Handler()), nil
}

func (a *App) initGateway(ctx context.Context) (http.Handler, error) {
	upstreams := map[string]gateway.Upstream{}
	for _, s := range services() {
		if s.name == gateway.Name {
			continue
		}
		h, err := a.upstream(s.name)
		if err != nil {
			return nil, err
		}
		upstreams[s.name] = gateway.Upstream{Routes: s.routes, Handler: h}
	}
	cfg := a.cfg.Gateway
	cfg.Site = a.site()
	ppl := people.New(people.Config{}, a.store, a.limiter, nil)
	// The docs' and home page's pictures are drawn where the font stack
	// is, by the render service, and fetched once (docs/decisions/site.md,
	// "Who draws").
	pictures := &gallery.Source{Fetch: clients.Render{Base: a.client(render.Name)}.Gallery}
	a.pictures = pictures
	// Drawn at start, not at the first visitor's page.
	a.serviceRuns[gateway.Name] = func(ctx context.Context) error {
		pictures.Warm(ctx, time.Second)
		<-ctx.Done()
		return nil
	}
	// Tokens are for this server, named by any of its identifiers, and
	// work at every endpoint (RFC 8707; spec § authentication).
	pub := strings.TrimRight(cfg.Site.PublicURL, "/")
	az := oauth.New(a.store, oauth.Config{AccessTTL: cfg.OAuthAccessTTL, Resources: []string{pub, pub + oauthhttp.MCPPath, pub + route.APIBase}}, nil, a.tel.Log)
	sender, err := mail.New(cfg.Mail, cfg.Site.PublicURL, a.tel.Log)
	if err != nil {
		return nil, err
	}
	if mail.IsOff(sender) {
		// The mails hold sign-in links: outside a local trial they are
		// never logged, so sign-up waits for a mail server.
		a.tel.Log.Warn("sign-up is off: no SMTP server is set and the public URL is not loopback; set -gateway.mail.smtp-url (Helm: secrets.smtpURL) so the site can mail its sign-up links",
			"public_url", cfg.Site.PublicURL)
	}
	pages, err := site.New(a.site(), site.Deps{People: ppl, Store: a.store, Limiter: a.limiter, Box: a.box, Log: a.tel.Log, Mail: sender,
		Charts: clients.Chart{Base: a.client(chart.Name)}, Renders: clients.Render{Base: a.client(render.Name)}, OAuth: az,
		Proxies: cfg.TrustedProxies, Gallery: pictures, Revocations: a.revoke})
	if err != nil {
		return nil, err
	}
	assistants, core, err := a.assistants(az)
	if err != nil {
		return nil, err
	}
	g, err := gateway.New(cfg, gateway.Deps{
		People:     ppl,
		KeyUses:    a.store,
		Site:       &gateway.Upstream{Routes: site.Routes(), Handler: pages.Handler()},
		OAuth:      az,
		Assistants: assistants,
		Accounts:   a.store,
		Limiter:    a.limiter,
		Services:   upstreams,
		Charts:     clients.Chart{Base: a.client(chart.Name)},
		Renders:    clients.Render{Base: a.client(render.Name)},
		Tel:        a.tel,
		Ready:      a.Ready,
		Live:       a.Live,
		Docs:       a.docs,
		Gallery:    pictures,

		Revocations: a.revoke,
	})
	if err != nil {
		return nil, err
	}
	*core = g.Core()
	return g.Handler(), nil
}

// assistants builds the OAuth endpoints and the MCP server. The MCP
// server dispatches tool calls to the gateway's core, which is built
// after it: core is filled in once the gateway exists.
func (a *App) assistants(az *oauth.Server) (*gateway.Upstream, *http.Handler, error) {
	doc, err := gateway.OpenAPI(strings.TrimRight(a.cfg.PublicURL, "/") + route.APIBase)
	if err != nil {
		return nil, nil, err
	}
	var routes []route.Route
	for _, s := range services() {
		routes = append(routes, s.routes...)
	}
	core := new(http.Handler)
	m, err := mcp.New(doc, routes, func() http.Handler { return *core }, a.site().Origin(), a.tel.Log)
	if err != nil {
		return nil, nil, fmt.Errorf("mcp server: %w", err)
	}
	mux := http.NewServeMux()
	mux.Handle(mcp.Path, m.Handler())
	mux.Handle("/", oauthhttp.New(a.site(), az, a.tel.Log).Handler())
	return &gateway.Upstream{Routes: append(oauthhttp.Routes(), mcp.Routes()...), Handler: mux}, core, nil
}

// site is what every service is told about where it runs.
func (a *App) site() route.Site {
	return route.Site{PublicURL: a.cfg.PublicURL, InternalToken: a.cfg.InternalToken}
}

// upstream answers what serves service name for the gateway: its handler
// when it runs in this process, else a reverse proxy to its URL
// (newProxy).
func (a *App) upstream(name string) (http.Handler, error) {
	if h, ok := a.handlers[name]; ok {
		return h, nil
	}
	u, err := url.Parse(a.cfg.URLs[name])
	if err != nil {
		return nil, fmt.Errorf("%s service url: %w", name, err)
	}
	transport := otelhttp.NewTransport(http.DefaultTransport,
		otelhttp.WithTracerProvider(a.tel.Tracer), otelhttp.WithMeterProvider(a.tel.Meter), otelhttp.WithPropagators(a.tel.Propagator))
	return newProxy(name, u, transport, a.cfg.PublicURL+"/docs", a.tel.Log), nil
}

// upstreamRetry is the Retry-After of an answer whose service is away:
// about a pod's restart or an endpoint update.
const upstreamRetry = clients.UnavailableRetry

// newProxy is the gateway's reverse proxy to a service run apart. An
// upstream it cannot reach answers the contract's error body (503,
// internal, Retry-After) rather than an empty 502, a client that hangs up
// is a debug line (the 499 of the request log), and what the proxy says
// by itself goes to the structured log. The service's X-Request-Id is
// dropped from its answer: the gateway sends the same id once.
func newProxy(name string, u *url.URL, transport http.RoundTripper, docsURL string, log *slog.Logger) *httputil.ReverseProxy {
	proxy := httputil.NewSingleHostReverseProxy(u)
	proxy.Transport = transport
	proxy.ErrorLog = slog.NewLogLogger(log.Handler(), slog.LevelWarn)
	proxy.ModifyResponse = func(resp *http.Response) error {
		resp.Header.Del(httpx.HeaderRequestID)
		return nil
	}
	errs := httpx.Errors{DocsURL: docsURL, Log: log}
	proxy.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
		if r.Context().Err() != nil {
			log.DebugContext(r.Context(), "request cancelled", slog.String("service", name), slog.String("path", r.URL.Path), slog.String("err", err.Error()))
			w.WriteHeader(httpx.StatusClientClosed)
			return
		}
		errs.Write(w, r, apierr.Unavailable(fmt.Errorf("proxy to the %s service: %w", name, err), upstreamRetry,
			"the %s service is not answering for a moment; try again in a few seconds", name))
	}
	return proxy
}

// instrument wraps a service's handler in otelhttp, so each service has its
// own server span, a child of the caller's through the trace headers, in
// both the one-process and the split mode.
func (a *App) instrument(name string, h http.Handler) http.Handler {
	return otelhttp.NewHandler(h, name,
		otelhttp.WithTracerProvider(a.tel.Tracer), otelhttp.WithMeterProvider(a.tel.Meter), otelhttp.WithPropagators(a.tel.Propagator),
		otelhttp.WithSpanNameFormatter(gateway.SpanNames(name)))
}

func (a *App) clientTelemetry() clients.Telemetry {
	return clients.Telemetry{Tracer: a.tel.Tracer, Meter: a.tel.Meter, Propagator: a.tel.Propagator}
}

// client answers the typed-client base for a service: in-process when the
// service runs here (looked up at call time, so services may call each
// other whatever their build order), else over HTTP at its URL.
func (a *App) client(name string) clients.Base {
	if a.cfg.Target == TargetAll {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { a.handlers[name].ServeHTTP(w, r) })
		return clients.NewBase("", h, a.cfg.InternalToken, a.clientTelemetry())
	}
	return clients.NewBase(a.cfg.URLs[name], nil, a.cfg.InternalToken, a.clientTelemetry())
}

// buildHandler answers the process's HTTP surface: the gateway when it runs
// here (it routes to in-process services), otherwise the one service with
// its own health endpoints.
func (a *App) buildHandler() http.Handler {
	if h, ok := a.handlers[gateway.Name]; ok {
		return h
	}
	svc := a.handlers[a.cfg.Target]
	docs := a.cfg.PublicURL + "/docs"
	r := mux.NewRouter()
	r.Methods(http.MethodGet).Path("/healthz").HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lifecycle.ServeLive(w, r, a.Live, docs, a.tel.Log)
	})
	r.Methods(http.MethodGet).Path("/readyz").HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		lifecycle.ServeReady(w, r, a.Ready, docs, a.tel.Log)
	})
	r.PathPrefix("/").Handler(svc)
	return httpx.Guard(a.tel.Log, docs, r)
}
