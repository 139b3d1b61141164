// Package gateway is chartd's edge: it authenticates API keys, applies the
// per-account rate limit, refuses oversized bodies, answers every refusal
// with the API error body, and routes each endpoint to the service that owns
// it. It also owns accounts and keys and answers get_account.
package gateway

import (
	"context"
	"crypto/sha256"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"maps"
	"net/http"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/clientip"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/docsite"
	"chartd.dev/libs/gallery"
	"chartd.dev/libs/httpx"
	"chartd.dev/libs/lifecycle"
	"chartd.dev/libs/mail"
	"chartd.dev/libs/oauth"
	"chartd.dev/libs/people"
	"chartd.dev/libs/plan"
	"chartd.dev/libs/quota"
	"chartd.dev/libs/revoke"
	"chartd.dev/libs/route"
	"chartd.dev/libs/store"
	"chartd.dev/libs/telemetry"
	oauthhttp "chartd.dev/services/gateway/oauth"
)

// BasePath is where the API lives under the public URL.
const BasePath = route.APIBase

// DefaultMaxHeaderBytes is the default of Config.MaxHeaderBytes.
const DefaultMaxHeaderBytes = 64 << 10

// Config is the gateway's own settings.
type Config struct {
	route.Site
	// MaxBodyBytes refuses larger request bodies with too_large.
	MaxBodyBytes int64
	// MaxHeaderBytes refuses requests whose request line and headers are
	// larger with invalid_request. It must stay below the HTTP server's
	// own cap (which answers in plain text), so that every refusal the
	// gateway can see is the error body with rate-limit headers.
	MaxHeaderBytes int
	// KeyCacheTTL is how long a verified API key is trusted without asking
	// the store again. A revocation drops the account's keys at once
	// (Deps.Revocations); the TTL bounds a revocation whose event was lost.
	KeyCacheTTL time.Duration
	// OAuthAccessTTL is how long an assistant's access token lives.
	OAuthAccessTTL time.Duration
	// TrustedProxies are the proxies in front of the gateway (the ingress
	// controller's pods): behind one of them the client address of the
	// per-address limits is read from X-Forwarded-For (libs/clientip).
	// Empty, it is the connection's address and the header is ignored.
	TrustedProxies clientip.Proxies
	// Mail is where the site's sign-up mails go (-gateway.mail.smtp-url);
	// no SMTP server writes them to the log.
	Mail mail.Config
}

// RegisterFlags declares the gateway's own flags, prefixed "gateway.".
func (c *Config) RegisterFlags(fs *flag.FlagSet) {
	fs.Int64Var(&c.MaxBodyBytes, Name+".max-body-bytes", 5<<20, "largest request body; larger is too_large")
	fs.IntVar(&c.MaxHeaderBytes, Name+".max-header-bytes", DefaultMaxHeaderBytes, "largest request line and headers; larger is invalid_request")
	fs.DurationVar(&c.KeyCacheTTL, Name+".key-cache-ttl", 2*time.Second, "how long a verified API key is cached; revocations drop it at once through Redis, this bounds one whose message is lost")
	fs.DurationVar(&c.OAuthAccessTTL, Name+".oauth-access-ttl", oauth.DefaultAccessTTL, "how long an assistant's OAuth access token lives")
	fs.Var(&c.TrustedProxies, Name+".trusted-proxies", clientip.FlagUsage)
	c.Mail.RegisterFlags(Name+".mail", fs)
}

// Deps are the parts the gateway is built from.
type Deps struct {
	Accounts store.Accounts
	Limiter  quota.Limiter
	// Services are the services the gateway routes to, by name: each
	// one's route table and handler.
	Services map[string]Upstream
	Charts   clients.Chart
	Renders  clients.Render
	Tel      *telemetry.Providers
	// Ready reports whether every backend and module is up, for /readyz.
	Ready func(ctx context.Context) error
	// Live reports whether the process can still recover by itself, for
	// /healthz (nil: always).
	Live func(ctx context.Context) error
	// Docs is the documentation site served at {docs_url}.
	Docs *docsite.Site
	// Gallery, when set, has the pictures of the examples and style ops,
	// drawn by the render service: the docs are served with them once it
	// answers, and without them (logged) while it does not.
	Gallery *gallery.Source
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// People, when set, lets a site session (its cookie, plus the CSRF
	// header on writes) stand in for an API key on /api/v1.
	People *people.People
	// KeyUses, when set, records when each API key was last used (at most
	// once per key-cache period), for the account page.
	KeyUses KeyUses
	// Revocations, when set, tell the key cache which accounts' keys to
	// drop: a revoked key is refused from the next request on, in every
	// process.
	Revocations revoke.Notifier
	// Site, when set, is the website (pages, not API endpoints) served
	// beside the API: limited per client address like public routes.
	Site *Upstream
	// OAuth, when set, lets an assistant's OAuth access token stand in
	// for an API key, limited to the operations its scopes allow; 401
	// answers then point to the protected-resource metadata.
	OAuth *oauth.Server
	// Assistants, when set, are the OAuth endpoints and the MCP server,
	// routed by their own route table like Site.
	Assistants *Upstream
}

// KeyUses records API key use.
type KeyUses interface {
	TouchAPIKey(ctx context.Context, accountID, keyID string, at time.Time) error
}

// Gateway is the edge handler.
type Gateway struct {
	cfg     Config
	deps    Deps
	docsURL string
	log     *slog.Logger
	errs    httpx.Errors
	keys    *keyCache
	openapi []byte
	// pictured is Docs with the gallery's pictures, built once.
	pictured struct {
		mu   sync.Mutex
		site *docsite.Site
	}
	// router is the core (auth, limits, routing) without telemetry.
	router  http.Handler
	handler http.Handler
}

// New builds the gateway; it fails when a route's service has no handler.
func New(cfg Config, deps Deps) (*Gateway, error) {
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if cfg.KeyCacheTTL <= 0 {
		cfg.KeyCacheTTL = 2 * time.Second
	}
	docs := strings.TrimRight(cfg.PublicURL, "/") + "/docs"
	g := &Gateway{
		cfg:     cfg,
		deps:    deps,
		docsURL: docs,
		log:     deps.Tel.Log,
		errs:    httpx.Errors{DocsURL: docs, Log: deps.Tel.Log},
		keys:    newKeyCache(cfg.KeyCacheTTL, deps.Now),
	}
	if deps.Revocations != nil {
		deps.Revocations.Subscribe(g.keys.revoked)
	}
	if cfg.TrustedProxies.Enabled() {
		g.log.Info("gateway: client addresses are read from X-Forwarded-For behind these trusted proxies (-gateway.trusted-proxies)",
			"trusted_proxies", cfg.TrustedProxies.String())
	}
	doc, err := OpenAPI(strings.TrimRight(cfg.PublicURL, "/") + BasePath)
	if err != nil {
		return nil, fmt.Errorf("openapi document: %w", err)
	}
	g.openapi = doc
	r := newRouter(g)
	entries := map[string]*pathEntry{}
	var order []string
	for _, e := range Endpoints() {
		handle := e.Handle
		h := g.errs.Wrap(func(w http.ResponseWriter, r *http.Request) error { return handle(g, w, r) })
		r.handle(entries, &order, e.Method, e.Path, g.endpoint(e.Route, h, true))
	}
	for _, name := range slices.Sorted(maps.Keys(deps.Services)) {
		up := deps.Services[name]
		if up.Handler == nil {
			return nil, fmt.Errorf("gateway: the %s service has no handler", name)
		}
		for _, rt := range up.Routes {
			if rt.Access == route.Internal {
				continue
			}
			r.handle(entries, &order, rt.Method, rt.Path, g.endpoint(rt, up.Handler, false))
		}
	}
	for _, up := range []*Upstream{deps.Site, deps.Assistants} {
		if up == nil {
			continue
		}
		for _, rt := range up.Routes {
			r.handle(entries, &order, rt.Method, rt.Path, g.endpoint(rt, up.Handler, false))
		}
	}
	r.register(entries, order)
	g.router = r
	tel := deps.Tel
	// otelhttp is outermost so the request log inside carries the trace id.
	g.handler = otelhttp.NewHandler(httpx.Guard(g.log, docs, r), "gateway",
		otelhttp.WithTracerProvider(tel.Tracer), otelhttp.WithMeterProvider(tel.Meter), otelhttp.WithPropagators(tel.Propagator),
		otelhttp.WithSpanNameFormatter(SpanNames("gateway")))
	return g, nil
}

// SpanNames names server spans "<service> <method>", so traces show which
// service answered; the names are made once, not per request.
func SpanNames(service string) func(string, *http.Request) string {
	names := map[string]string{}
	for _, m := range []string{http.MethodGet, http.MethodPost, http.MethodPut, http.MethodPatch, http.MethodDelete, http.MethodHead, http.MethodOptions} {
		names[m] = service + " " + m
	}
	return func(_ string, r *http.Request) string {
		if n, ok := names[r.Method]; ok {
			return n
		}
		return service + " " + r.Method
	}
}

// Handler is the gateway's whole HTTP surface.
func (g *Gateway) Handler() http.Handler { return g.handler }

// Core is the gateway without telemetry: authentication, limits and
// routing. The MCP server sends each tool call through it, as the
// operation's REST request with the caller's credentials.
func (g *Gateway) Core() http.Handler { return g.router }

// DocsURL is {docs_url}.
func (g *Gateway) DocsURL() string { return g.docsURL }

// endpoint wraps h, the handler of rt, in the edge's checks: body limit,
// then the key and the account's rate limit, or for public routes the
// client address' rate limit. own says h is the gateway's, which learns
// the caller from the context instead of internal headers.
func (g *Gateway) endpoint(rt route.Route, h http.Handler, own bool) http.Handler {
	if rt.Access == route.Direct {
		// The owning service guards and limits it itself, its query
		// string included.
		// The gateway tells it the client's address, which its own peer
		// (the gateway, in split mode) is not.
		limited := g.bodyLimit(h)
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			stripInternal(r.Header)
			auth.SetClientIP(r.Header, g.cfg.InternalToken, g.cfg.TrustedProxies.ClientIP(r))
			limited.ServeHTTP(w, r)
		})
	}
	limited := g.bodyLimit(g.strictQuery(h))
	switch rt.Access {
	case route.Public:
		return g.anonymous(limited)
	case route.Probe:
		return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			stripInternal(r.Header)
			g.peekAnonymous(w, r)
			limited.ServeHTTP(w, r)
		})
	}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stripInternal(r.Header)
		p, scopes, err := g.authenticate(r)
		scopeErr := false
		if err == nil && scopes != nil {
			err = checkScope(rt.Op, scopes)
			scopeErr = err != nil
		}
		if err != nil && apierr.From(err).Unavailable {
			// The credential could not be checked at all: not the
			// caller's fault, so neither a challenge nor the address'
			// allowance, whose 429 would misname the outage.
			g.peekAnonymous(w, r)
			g.errs.Write(w, r, err)
			return
		}
		if err != nil {
			if g.deps.OAuth != nil {
				w.Header().Set("WWW-Authenticate", g.challenge(r, rt.Op, scopeErr))
			}
			// Past the address' allowance the refusal is rate_limited,
			// written by limit; one answer per request.
			if g.limitAnonymous(w, r) {
				g.errs.Write(w, r, err)
			}
			return
		}
		res, ok := g.limit(w, r, "acct:"+p.AccountID, plan.LimitsOf(p.Plan).RequestsPerMinute)
		if !ok {
			return
		}
		auth.SetInternal(r.Header, g.cfg.InternalToken, p)
		if own {
			r = r.WithContext(context.WithValue(r.Context(), callerKey{}, caller{p: p, limit: res}))
		}
		limited.ServeHTTP(w, r)
	})
}

// stripInternal drops internal headers a client may have forged.
func stripInternal(h http.Header) {
	h.Del(auth.HeaderAccount)
	h.Del(auth.HeaderPlan)
	h.Del(auth.HeaderToken)
	h.Del(auth.HeaderClientIP)
}

// strictQuery refuses a query string that would be read only in part
// (httpx.CheckRawQuery), for every endpoint at once: a reverse proxy to a
// service in split mode would drop the unreadable pairs before the
// service's own check could see them.
func (g *Gateway) strictQuery(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := httpx.CheckRawQuery(r.URL.RawQuery); err != nil {
			g.errs.Write(w, r, err)
			return
		}
		next.ServeHTTP(w, r)
	})
}

// bodyLimit refuses bodies over the limit: at once when Content-Length says
// so, or as soon as reading passes it.
func (g *Gateway) bodyLimit(next http.Handler) http.Handler {
	max := g.cfg.MaxBodyBytes
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if max > 0 {
			if r.ContentLength > max {
				apierr.Write(w, g.docsURL, apierr.New(apierr.TooLarge, "the request body is %d bytes, over the limit of %d bytes; send less data", r.ContentLength, max))
				return
			}
			if r.Body != nil && r.Body != http.NoBody {
				r.Body = http.MaxBytesReader(w, r.Body, max)
			}
		}
		next.ServeHTTP(w, r)
	})
}

// anonymous wraps handlers that need no key: the rate limit then applies
// per client address, with the free plan's allowance.
func (g *Gateway) anonymous(next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		stripInternal(r.Header)
		if !g.limitAnonymous(w, r) {
			return
		}
		next.ServeHTTP(w, r)
	})
}

// limitAnonymous takes one request from the client address' allowance
// (see limit); false means the rate_limited refusal is written.
func (g *Gateway) limitAnonymous(w http.ResponseWriter, r *http.Request) bool {
	_, ok := g.limit(w, r, g.anonymousKey(r), plan.LimitsOf(plan.Free).RequestsPerMinute)
	return ok
}

// peekAnonymous writes the X-RateLimit-* headers of the client address'
// allowance without spending it or refusing anything: the probes' way.
func (g *Gateway) peekAnonymous(w http.ResponseWriter, r *http.Request) {
	perMinute := plan.LimitsOf(plan.Free).RequestsPerMinute
	res, err := g.deps.Limiter.Peek(r.Context(), g.anonymousKey(r), quota.Limit{Rate: perMinute, Period: plan.RequestPeriod})
	if err != nil {
		g.log.ErrorContext(r.Context(), "rate limiter peek", "err", err)
		res = quota.Result{Allowed: true, Limit: perMinute, Remaining: perMinute}
	}
	res.SetHeaders(w.Header())
}

// anonymousKey is the limiter key of a request without a key: its client
// address, read behind the trusted proxies.
func (g *Gateway) anonymousKey(r *http.Request) string {
	return "ip:" + g.cfg.TrustedProxies.ClientIP(r)
}

// The rate-limit headers, spelled as the spec writes them.
const (
	HeaderLimit     = quota.HeaderLimit
	HeaderRemaining = quota.HeaderRemaining
	HeaderReset     = quota.HeaderReset
)

// caller is what the gateway's own handlers learn about the request.
type caller struct {
	p     auth.Principal
	limit quota.Result
}

type callerKey struct{}

// limit takes one request from key's allowance, writes the X-RateLimit-*
// headers and, when the allowance is spent, the rate_limited refusal.
func (g *Gateway) limit(w http.ResponseWriter, r *http.Request, key string, perMinute int) (quota.Result, bool) {
	res, err := g.deps.Limiter.Allow(r.Context(), key, quota.Limit{Rate: perMinute, Period: plan.RequestPeriod})
	if err != nil {
		// The limiter decides in process itself while Redis is out; an
		// error here is a bug, so let the request through and say so in
		// the log.
		g.log.ErrorContext(r.Context(), "rate limiter", "err", err)
		res = quota.Result{Allowed: true, Limit: perMinute, Remaining: perMinute}
	}
	res.SetHeaders(w.Header())
	if !res.Allowed {
		apierr.Write(w, g.docsURL, apierr.New(apierr.RateLimited, "too many requests: the allowance is %d per minute; retry in %d s", res.Limit, res.RetryAfterSeconds()))
		return res, false
	}
	return res, true
}

// authenticate resolves the bearer key to its account, or, on a request
// without an Authorization header, the site's session cookie. scopes is
// non-nil only for an assistant's OAuth access token: what it may call.
func (g *Gateway) authenticate(r *http.Request) (p auth.Principal, scopes []string, err error) {
	if g.deps.People != nil && r.Header.Get("Authorization") == "" {
		if c, err := r.Cookie(people.CookieName); err == nil && c.Value != "" {
			p, err := g.session(r, c.Value)
			return p, nil, err
		}
	}
	key, err := auth.BearerKey(r)
	if err != nil {
		return auth.Principal{}, nil, err
	}
	if g.deps.OAuth != nil && strings.HasPrefix(key, oauth.AccessPrefix) {
		return g.accessToken(r, key)
	}
	p, err = g.apiKey(r, key)
	return p, nil, err
}

// accessToken resolves an assistant's OAuth access token. It is not
// cached: a disconnected app is refused at its very next call.
func (g *Gateway) accessToken(r *http.Request, token string) (auth.Principal, []string, error) {
	grant, acct, err := g.deps.OAuth.Verify(r.Context(), token)
	if errors.Is(err, store.ErrNotFound) {
		return auth.Principal{}, nil, apierr.New(apierr.Unauthorized, "the access token is not valid, has expired or its app was disconnected; refresh it, or connect the app again")
	}
	if err != nil {
		return auth.Principal{}, nil, storeDown(fmt.Errorf("look up access token: %w", err))
	}
	if !g.deps.OAuth.Allows(grant) {
		pub := strings.TrimRight(g.cfg.PublicURL, "/")
		return auth.Principal{}, nil, apierr.New(apierr.Unauthorized, "the access token was issued for the resource %s, not this server; ask for a token with resource=%s", grant.Resource, pub)
	}
	return auth.Principal{AccountID: acct.ID, Plan: acct.Plan}, grant.Scopes, nil
}

// challenge is the WWW-Authenticate of a refused request (RFC 6750 §3,
// RFC 9728 §5.1): where the resource's metadata is, the scope the call
// needs (every scope for the MCP endpoint, whose tools need them all),
// and, when a token was sent, why it was refused.
func (g *Gateway) challenge(r *http.Request, op string, scopeErr bool) string {
	scope := oauth.ScopeOf(op)
	if scope == "" {
		scope = strings.Join(oauth.Scopes(), " ")
	}
	c := `Bearer resource_metadata="` + oauthhttp.ResourceMetadataURL(g.cfg.PublicURL, r.URL.Path) + `", scope="` + scope + `"`
	switch {
	case scopeErr:
		c += `, error="insufficient_scope"`
	case r.Header.Get("Authorization") != "":
		c += `, error="invalid_token"`
	}
	return c
}

// checkScope refuses an operation the token's scopes do not allow.
func checkScope(op string, scopes []string) error {
	need := oauth.ScopeOf(op)
	if need == "" || slices.Contains(scopes, need) {
		return nil
	}
	return apierr.New(apierr.Unauthorized, "this app was not allowed the scope %s, which %s needs; connect the app again and allow %s", need, op, need)
}

// storeRetry is the Retry-After of a request whose credential could not
// be looked up: about how long a database failover or restart takes.
const storeRetry = 5 * time.Second

// storeDown is the answer when the key store fails to look up a
// credential: the spec's internal code, as 503 with Retry-After (the
// service is away for a moment, see apierr.Unavailable), saying it is the
// service's storage and not the key.
func storeDown(err error) error {
	return apierr.Unavailable(err, storeRetry, "the service's storage cannot be reached, so the credential could not be checked; this is not a fault of the request or the key, retry in %d s", int(storeRetry/time.Second))
}

// apiKey resolves an API key to its account, through the key cache.
func (g *Gateway) apiKey(r *http.Request, key string) (auth.Principal, error) {
	// Hash from a stack buffer: the key never escapes to the heap.
	var buf [128]byte
	sum := sha256.Sum256(append(buf[:0], key...))
	p, gen, ok := g.keys.get(sum)
	if ok {
		return p, nil
	}
	k, acct, err := g.deps.Accounts.LookupAPIKey(r.Context(), sum[:])
	if errors.Is(err, store.ErrNotFound) {
		return auth.Principal{}, apierr.New(apierr.Unauthorized, "the API key is not valid or has been revoked; check the key or create a new one")
	}
	if err != nil {
		return auth.Principal{}, storeDown(fmt.Errorf("look up API key: %w", err))
	}
	if g.deps.KeyUses != nil {
		// Once per key-cache period: "last used" is as fine as that.
		if err := g.deps.KeyUses.TouchAPIKey(r.Context(), acct.ID, k.ID, g.deps.Now()); err != nil {
			g.log.WarnContext(r.Context(), "record api key use", "err", err)
		}
	}
	p = auth.Principal{AccountID: acct.ID, Plan: acct.Plan}
	g.keys.put(sum, p, gen)
	return p, nil
}

// session resolves a site session cookie to its account. A write
// (anything but GET, HEAD, OPTIONS) must also carry the session's CSRF
// token in X-CSRF-Token: a cookie alone, which a browser sends on its
// own, never changes anything.
func (g *Gateway) session(r *http.Request, token string) (auth.Principal, error) {
	se, acct, err := g.deps.People.Resolve(r.Context(), token)
	if errors.Is(err, store.ErrNotFound) {
		return auth.Principal{}, apierr.New(apierr.Unauthorized, "the session has ended; sign in again at %s/signin, or send an API key in the header Authorization: Bearer <API_KEY>", strings.TrimRight(g.cfg.PublicURL, "/"))
	}
	if err != nil {
		return auth.Principal{}, storeDown(fmt.Errorf("look up session: %w", err))
	}
	switch r.Method {
	case http.MethodGet, http.MethodHead, http.MethodOptions:
	default:
		if !people.CheckCSRF(token, r.Header.Get(people.CSRFHeader)) {
			return auth.Principal{}, apierr.New(apierr.Unauthorized, "a change made with a site session must carry the page's CSRF token in the %s header", people.CSRFHeader)
		}
	}
	return auth.Principal{AccountID: se.AccountID, Plan: acct.Plan}, nil
}

// keyCache remembers verified keys for a short time, so the hot path does
// not ask the store on every request. Only hashes are kept. A revocation
// event drops the account's keys.
type keyCache struct {
	mu  sync.RWMutex
	m   map[[32]byte]cachedKey
	ttl time.Duration
	now func() time.Time
	// gen is bumped by each revocation: a lookup begun before one may
	// have read the key live, and is not cached.
	gen uint64
}

type cachedKey struct {
	p       auth.Principal
	expires time.Time
}

const keyCacheMax = 10000

func newKeyCache(ttl time.Duration, now func() time.Time) *keyCache {
	return &keyCache{m: make(map[[32]byte]cachedKey), ttl: ttl, now: now}
}

// get answers the cached principal of k, or the generation a lookup of it
// passes to put.
func (c *keyCache) get(k [32]byte) (auth.Principal, uint64, bool) {
	c.mu.RLock()
	e, ok := c.m[k]
	gen := c.gen
	c.mu.RUnlock()
	if !ok || c.now().After(e.expires) {
		return auth.Principal{}, gen, false
	}
	return e.p, gen, true
}

// put caches p for k, unless a revocation came since the lookup began
// (gen from get).
func (c *keyCache) put(k [32]byte, p auth.Principal, gen uint64) {
	c.mu.Lock()
	defer c.mu.Unlock()
	if gen != c.gen {
		return
	}
	if len(c.m) >= keyCacheMax {
		clear(c.m)
	}
	c.m[k] = cachedKey{p: p, expires: c.now().Add(c.ttl)}
}

// revoked drops what a revocation event makes stale: the account's keys,
// or every key after a reset.
func (c *keyCache) revoked(e revoke.Event) {
	if e.Kind != revoke.APIKeys && e.Kind != revoke.Reset {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.gen++
	if e.Kind == revoke.Reset {
		clear(c.m)
		return
	}
	maps.DeleteFunc(c.m, func(_ [32]byte, k cachedKey) bool { return k.p.AccountID == e.ID })
}

func (g *Gateway) healthz(w http.ResponseWriter, r *http.Request, _ auth.Principal, _ route.None) error {
	lifecycle.ServeLive(w, r, g.deps.Live, g.docsURL, g.log)
	return nil
}

// readyz answers 503 naming the modules not ready, their causes only in
// the log (lifecycle.ServeReady).
func (g *Gateway) readyz(w http.ResponseWriter, r *http.Request, _ auth.Principal, _ route.None) error {
	lifecycle.ServeReady(w, r, g.deps.Ready, g.docsURL, g.log)
	return nil
}

// docsPage serves the documentation site: the index at {docs_url}/ and
// each page at {docs_url}/<slug>/. The path of a page that exists, without
// the slash, is sent there (so the pages' relative links work); anything
// else is not_found, so a redirect only ever names a page of the site.
func (g *Gateway) docsPage(w http.ResponseWriter, r *http.Request, _ auth.Principal, _ route.None) error {
	if g.deps.Docs == nil {
		return apierr.New(apierr.NotFound, "no documentation is served here")
	}
	slug := r.PathValue("slug")
	docs := g.docs(r.Context())
	page := docs.Index()
	if slug != "" {
		var ok bool
		if page, ok = docs.Page(slug); !ok {
			return apierr.New(apierr.NotFound, "no documentation page %q; the index is at %s/", slug, g.docsURL)
		}
	}
	if !strings.HasSuffix(r.URL.Path, "/") {
		// The slug is a known page's, so the target is one of ours and
		// needs no escaping.
		to := "/docs/"
		if slug != "" {
			to += slug + "/"
		}
		http.Redirect(w, r, to, http.StatusMovedPermanently)
		return nil
	}
	h := w.Header()
	h.Set("Content-Type", "text/html; charset=utf-8")
	h.Set("Content-Length", strconv.Itoa(len(page)))
	h.Set("Cache-Control", "public, max-age=300")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; font-src data:")
	h.Set("X-Content-Type-Options", "nosniff")
	w.Write(page)
	return nil
}

// docs answers the docs site with the gallery's pictures, built on the
// first ask the gallery answers, or the plain site until then.
func (g *Gateway) docs(ctx context.Context) *docsite.Site {
	if g.deps.Gallery == nil {
		return g.deps.Docs
	}
	g.pictured.mu.Lock()
	defer g.pictured.mu.Unlock()
	if g.pictured.site != nil {
		return g.pictured.site
	}
	gal, err := g.deps.Gallery.Get(ctx)
	if err != nil {
		g.log.WarnContext(ctx, "gateway: the docs are served without pictures", "err", err)
		return g.deps.Docs
	}
	site, err := g.deps.Docs.WithPictures(gal)
	if err != nil {
		g.log.ErrorContext(ctx, "gateway: the docs are served without pictures", "err", err)
		return g.deps.Docs
	}
	g.pictured.site = site
	return site
}

func (g *Gateway) getOpenAPI(w http.ResponseWriter, r *http.Request, _ auth.Principal, _ route.None) error {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Content-Length", strconv.Itoa(len(g.openapi)))
	w.Write(g.openapi)
	return nil
}
