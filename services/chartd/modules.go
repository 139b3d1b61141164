package main

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os"
	"path/filepath"
	"slices"

	"github.com/gorilla/mux"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"

	"chartd.dev/charts"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/docsite"
	"chartd.dev/libs/draw"
	"chartd.dev/libs/httpx"
	"chartd.dev/libs/quota"
	"chartd.dev/libs/store"
	"chartd.dev/libs/store/postgres"
	"chartd.dev/libs/store/sqlite"
	"chartd.dev/libs/telemetry"
	"chartd.dev/services/brand"
	"chartd.dev/services/chart"
	"chartd.dev/services/data"
	"chartd.dev/services/gateway"
	"chartd.dev/services/render"
)

// Targets: what one process runs.
const (
	TargetAll     = "all"
	TargetGateway = "gateway"
	TargetChart   = "chart"
	TargetData    = "data"
	TargetBrand   = "brand"
	TargetRender  = "render"
)

// Modules: the parts a target is made of.
const (
	modTelemetry = "telemetry"
	modStore     = "store"
	modRedis     = "redis"
	modLimiter   = "limiter"
	modCounter   = "counter"
	modCatalog   = "catalog"
	modOps       = "ops"
	modFonts     = "fonts"
	modDocs      = "docs"
)

// moduleDeps declares, for every module and target, what must be built
// before it. This one table is the whole wiring of chartd.
func moduleDeps() map[string][]string {
	return map[string][]string{
		modTelemetry:  nil,
		modStore:      {modTelemetry},
		modRedis:      {modTelemetry},
		modLimiter:    {modRedis},
		modCounter:    {modRedis},
		modCatalog:    nil,
		modOps:        {modCatalog},
		TargetChart:   {modStore, modCatalog, modOps, modDocs},
		TargetData:    {modStore},
		TargetBrand:   {modStore},
		modFonts:      nil,
		modDocs:       {modCatalog},
		TargetRender:  {modCounter, modCatalog, modOps, modFonts},
		TargetGateway: {modStore, modLimiter, modDocs},
		TargetAll:     {TargetChart, TargetData, TargetBrand, TargetRender, TargetGateway},
	}
}

// initFuncs maps each module to the function that builds it.
func (a *App) initFuncs() map[string]func(context.Context) error {
	return map[string]func(context.Context) error{
		modTelemetry:  a.initTelemetry,
		modStore:      a.initStore,
		modRedis:      a.initRedis,
		modLimiter:    a.initLimiter,
		modCounter:    a.initCounter,
		modCatalog:    a.initCatalog,
		modOps:        a.initOps,
		modFonts:      a.initFonts,
		modDocs:       a.initDocs,
		TargetChart:   a.initChart,
		TargetData:    a.initData,
		TargetBrand:   a.initBrand,
		TargetRender:  a.initRender,
		TargetGateway: a.initGateway,
		TargetAll:     func(context.Context) error { return nil },
	}
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

// App is one chartd process: the modules its target needs, built in order.
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

	// services are the service handlers built in this process, by target.
	services map[string]http.Handler
	handler  http.Handler
	closers  []func() error
}

// NewApp builds every module of cfg.Target.
func NewApp(ctx context.Context, cfg Config, tel *telemetry.Providers) (*App, error) {
	a := &App{cfg: cfg, tel: tel, services: map[string]http.Handler{}}
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
		if err := fns[m](ctx); err != nil {
			a.Close()
			return nil, fmt.Errorf("init %s: %w", m, err)
		}
	}
	a.handler = a.buildHandler()
	return a, nil
}

// Handler is the process's HTTP surface.
func (a *App) Handler() http.Handler { return a.handler }

// Close releases the backends.
func (a *App) Close() error {
	var errs []error
	for _, c := range slices.Backward(a.closers) {
		errs = append(errs, c())
	}
	a.closers = nil
	return errors.Join(errs...)
}

func (a *App) initTelemetry(ctx context.Context) error {
	if a.tel == nil {
		t, err := telemetry.New(ctx, telemetry.Config{Service: "chartd-" + a.cfg.Target, LogLevel: a.cfg.logLevel()})
		if err != nil {
			return err
		}
		a.tel = t
		a.closers = append(a.closers, func() error { return t.Shutdown(context.Background()) })
	}
	return nil
}

func (a *App) initStore(ctx context.Context) error {
	var s store.Store
	var err error
	if a.cfg.PostgresURL != "" {
		s, err = postgres.Open(ctx, a.cfg.PostgresURL)
	} else {
		if err := os.MkdirAll(a.cfg.DataDir, 0o700); err != nil {
			return fmt.Errorf("data dir: %w", err)
		}
		s, err = sqlite.Open(ctx, filepath.Join(a.cfg.DataDir, "chartd.db"))
	}
	if err != nil {
		return err
	}
	a.store = s
	a.closers = append(a.closers, s.Close)
	return nil
}

func (a *App) initRedis(ctx context.Context) error {
	if a.cfg.RedisURL == "" {
		return nil
	}
	opts, err := redis.ParseURL(a.cfg.RedisURL)
	if err != nil {
		return fmt.Errorf("redis url: %w", err)
	}
	// Let a request's deadline bound each Redis call, so an outage costs the
	// limiter's short timeout and not go-redis' retries.
	opts.ContextTimeoutEnabled = true
	a.redis = redis.NewClient(opts)
	a.closers = append(a.closers, a.redis.Close)
	return nil
}

func (a *App) redisOptions() quota.RedisOptions {
	return quota.RedisOptions{Logger: a.tel.Log, Meter: a.tel.Meter.Meter("chartd/quota")}
}

func (a *App) initLimiter(ctx context.Context) error {
	if a.redis == nil {
		a.limiter = quota.NewMemory(nil)
		return nil
	}
	l, err := quota.NewRedis(a.redis, a.redisOptions())
	if err != nil {
		return err
	}
	a.limiter = l
	return nil
}

func (a *App) initCounter(ctx context.Context) error {
	if a.redis == nil {
		a.counter = quota.NewMemoryCounter(nil)
		return nil
	}
	a.counter = quota.NewRedisCounter(a.redis, a.redisOptions())
	return nil
}

func (a *App) initCatalog(ctx context.Context) error {
	c, err := charts.Load()
	if err != nil {
		return err
	}
	a.catalog = c
	return nil
}

func (a *App) initOps(ctx context.Context) error {
	ops, err := chartspec.NewOps(a.catalog)
	if err != nil {
		return err
	}
	a.ops = ops
	return nil
}

func (a *App) initDocs(ctx context.Context) error {
	d, err := docsite.New(a.catalog, a.cfg.PublicURL+"/docs", a.cfg.PublicURL+gateway.BasePath, a.cfg.PublicURL)
	if err != nil {
		return err
	}
	a.docs = d
	return nil
}

func (a *App) initFonts(ctx context.Context) error {
	f, err := draw.LoadFonts()
	if err != nil {
		return err
	}
	a.fonts = f
	return nil
}

func (a *App) initChart(ctx context.Context) error {
	s, err := chart.New(chart.Config{PublicURL: a.cfg.PublicURL, InternalToken: a.cfg.InternalToken},
		chart.Deps{Charts: a.store, Catalog: a.catalog, Log: a.tel.Log, Data: clients.Data{Base: a.client(TargetData)},
			Ops: a.ops, Docs: a.docs, Brand: a.brandPalette})
	if err != nil {
		return err
	}
	a.services[TargetChart] = a.instrument("chart", s.Handler())
	return nil
}

func (a *App) initData(ctx context.Context) error {
	s, err := data.New(data.Config{PublicURL: a.cfg.PublicURL, InternalToken: a.cfg.InternalToken},
		data.Deps{Datasets: a.store, Charts: clients.Chart{Base: a.client(TargetChart)}, Log: a.tel.Log})
	if err != nil {
		return err
	}
	a.services[TargetData] = a.instrument("data", s.Handler())
	return nil
}

func (a *App) initBrand(ctx context.Context) error {
	s, err := brand.New(brand.Config{PublicURL: a.cfg.PublicURL, InternalToken: a.cfg.InternalToken}, brand.Deps{Accounts: a.store, Log: a.tel.Log})
	if err != nil {
		return err
	}
	a.services[TargetBrand] = a.instrument("brand", s.Handler())
	return nil
}

func (a *App) initRender(ctx context.Context) error {
	s, err := render.New(render.Config{PublicURL: a.cfg.PublicURL, InternalToken: a.cfg.InternalToken},
		render.Deps{Counter: a.counter, Catalog: a.catalog, Ops: a.ops, Fonts: a.fonts, Log: a.tel.Log, Brand: a.brandPalette,
			Charts: clients.Chart{Base: a.client(TargetChart)}, Data: clients.Data{Base: a.client(TargetData)}})
	if err != nil {
		return err
	}
	a.services[TargetRender] = a.instrument("render", s.Handler())
	return nil
}

// instrument wraps a service's handler in otelhttp, so each service has its
// own server span, a child of the caller's through the trace headers, in
// both the one-process and the split mode.
func (a *App) instrument(name string, h http.Handler) http.Handler {
	return otelhttp.NewHandler(h, name,
		otelhttp.WithTracerProvider(a.tel.Tracer), otelhttp.WithMeterProvider(a.tel.Meter), otelhttp.WithPropagators(a.tel.Propagator),
		otelhttp.WithSpanNameFormatter(gateway.SpanNames(name)))
}

// brandPalette reads the account's brand palette from the brand service.
func (a *App) brandPalette(ctx context.Context, p auth.Principal) ([]string, error) {
	return clients.Brand{Base: a.client(TargetBrand)}.Palette(ctx, p)
}

func (a *App) clientTelemetry() clients.Telemetry {
	return clients.Telemetry{Tracer: a.tel.Tracer, Meter: a.tel.Meter, Propagator: a.tel.Propagator}
}

// serviceURLs are where the gateway finds services that run apart.
func (a *App) serviceURLs() map[string]string {
	return map[string]string{
		TargetChart:  a.cfg.URLs.Chart,
		TargetData:   a.cfg.URLs.Data,
		TargetBrand:  a.cfg.URLs.Brand,
		TargetRender: a.cfg.URLs.Render,
	}
}

// client answers the typed-client base for a service: in-process when the
// service runs here (looked up at call time, so services may call each
// other whatever their build order), else over HTTP at its URL.
func (a *App) client(name string) clients.Base {
	if a.cfg.Target == TargetAll {
		h := http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { a.services[name].ServeHTTP(w, r) })
		return clients.NewBase("", h, a.cfg.InternalToken, a.clientTelemetry())
	}
	return clients.NewBase(a.cfg.URLs.get(name), nil, a.cfg.InternalToken, a.clientTelemetry())
}

func (a *App) initGateway(ctx context.Context) error {
	upstreams := map[string]http.Handler{}
	for name, raw := range a.serviceURLs() {
		if h, ok := a.services[name]; ok {
			upstreams[name] = h
			continue
		}
		u, err := url.Parse(raw)
		if err != nil {
			return fmt.Errorf("%s service url: %w", name, err)
		}
		proxy := httputil.NewSingleHostReverseProxy(u)
		proxy.Transport = otelhttp.NewTransport(http.DefaultTransport,
			otelhttp.WithTracerProvider(a.tel.Tracer), otelhttp.WithMeterProvider(a.tel.Meter), otelhttp.WithPropagators(a.tel.Propagator))
		upstreams[name] = proxy
	}
	g, err := gateway.New(gateway.Config{
		PublicURL:     a.cfg.PublicURL,
		MaxBodyBytes:  a.cfg.Gateway.MaxBodyBytes,
		InternalToken: a.cfg.InternalToken,
		KeyCacheTTL:   a.cfg.Gateway.KeyCacheTTL,
	}, gateway.Deps{
		Accounts: a.store,
		Limiter:  a.limiter,
		Services: upstreams,
		Charts:   clients.Chart{Base: a.client(TargetChart)},
		Renders:  clients.Render{Base: a.client(TargetRender)},
		Tel:      a.tel,
		Ready:    a.ready,
		Docs:     a.docs,
	})
	if err != nil {
		return err
	}
	a.services[TargetGateway] = g.Handler()
	return nil
}

// ready checks every backend this process uses and, for a gateway whose
// services run apart, their /readyz.
func (a *App) ready(ctx context.Context) error {
	var errs []error
	if a.store != nil {
		if err := a.store.Ping(ctx); err != nil {
			errs = append(errs, fmt.Errorf("store: %w", err))
		}
	}
	if a.redis != nil {
		if err := a.redis.Ping(ctx).Err(); err != nil {
			errs = append(errs, fmt.Errorf("redis: %w", err))
		}
	}
	if a.cfg.Target == TargetGateway {
		for name, u := range a.serviceURLs() {
			req, _ := http.NewRequestWithContext(ctx, http.MethodGet, u+"/readyz", nil)
			resp, err := http.DefaultClient.Do(req)
			if err != nil {
				errs = append(errs, fmt.Errorf("%s service: %w", name, err))
				continue
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				errs = append(errs, fmt.Errorf("%s service: status %d", name, resp.StatusCode))
			}
		}
	}
	return errors.Join(errs...)
}

// buildHandler answers the process's HTTP surface: the gateway when it runs
// here (it routes to in-process services), otherwise the one service with
// its own health endpoints.
func (a *App) buildHandler() http.Handler {
	if h, ok := a.services[TargetGateway]; ok {
		return h
	}
	svc := a.services[a.cfg.Target]
	docs := a.cfg.PublicURL + "/docs"
	errs := httpx.Errors{DocsURL: docs}
	r := mux.NewRouter()
	r.Methods(http.MethodGet).Path("/healthz").Handler(errs.Wrap(func(w http.ResponseWriter, r *http.Request) error {
		httpx.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
		return nil
	}))
	r.Methods(http.MethodGet).Path("/readyz").Handler(errs.Wrap(func(w http.ResponseWriter, r *http.Request) error {
		if err := a.ready(r.Context()); err != nil {
			return fmt.Errorf("not ready: %w", err)
		}
		httpx.WriteJSON(w, http.StatusOK, map[string]string{"status": "ready"})
		return nil
	}))
	r.PathPrefix("/").Handler(svc)
	return httpx.Guard(a.tel.Log, docs, r)
}
