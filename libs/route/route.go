// Package route describes a service's endpoints as data. Each service
// exports one table; the service's own router, the gateway's routing, the
// OpenAPI route check and the split-mode wiring are all built from those
// tables, so adding an endpoint touches its owner and the OpenAPI document
// only. Most endpoints are typed (JSON, Stream): they declare their request
// and answer as Go types and leave the preamble every handler shared (query
// check, authentication, strict decoding, the answer, the error mapping) to
// one adapter, and Mismatches holds those types to the OpenAPI document.
package route

import (
	"log/slog"
	"net/http"
	"net/url"
	"strings"

	"github.com/gorilla/mux"
	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/attribute"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/httpx"
)

// Access says who may call an endpoint.
type Access uint8

const (
	// Key endpoints need an API key: the gateway authenticates the caller
	// and applies the account's rate limit.
	Key Access = iota
	// Public endpoints need no key; the gateway limits them per client
	// address.
	Public
	// Internal endpoints are for other services only; the gateway never
	// routes to them.
	Internal
	// Direct endpoints are public and guard themselves (public image
	// links): the gateway passes them through untouched, an ingress may
	// send them straight to the service, and the service serves them
	// without the internal token, applying its own limits.
	Direct
	// Probe endpoints are health probes: public and never refused for
	// load, since a load balancer that shares an address with a noisy
	// client would otherwise take the process for dead. They carry the
	// address's rate-limit headers without spending its allowance.
	Probe
)

// APIBase is where the public API lives under the site URL.
const APIBase = "/api/v1"

// Route is one endpoint: its operation name (the spec's, and the OpenAPI
// operationId), method, path template from the site root (gorilla/mux
// syntax, as in the OpenAPI document) and who may call it.
type Route struct {
	Op     string
	Method string
	Path   string
	Access Access
}

// APIPath is the route's path relative to APIBase, as the OpenAPI document
// writes it; "" for a route outside the API.
func (r Route) APIPath() string {
	if p, ok := strings.CutPrefix(r.Path, APIBase); ok && strings.HasPrefix(p, "/") {
		return p
	}
	return ""
}

// Endpoint is a route with its handler: a method expression of the
// service type S, so the table is written once, without a service value,
// and still names the code that answers. JSON and Stream build the
// endpoints of typed handlers, with their Shape.
type Endpoint[S any] struct {
	Route
	Handle func(S, http.ResponseWriter, *http.Request) error
	Shape  Shape
}

// Routes answers the routes of a table.
func Routes[S any](table []Endpoint[S]) []Route {
	out := make([]Route, len(table))
	for i, e := range table {
		out[i] = e.Route
	}
	return out
}

// Mux builds a service's router from its table, every handler bound to s
// and its refusals written by errs. An unknown path is not_found naming the
// service; a known path under another method is invalid_request with an
// Allow header, as at the gateway.
func Mux[S any](service string, s S, table []Endpoint[S], errs httpx.Errors) *mux.Router {
	r := mux.NewRouter()
	for _, e := range table {
		h := e.Handle
		r.Methods(e.Method).Path(e.Path).Handler(Marked(e.Path, errs.Wrap(func(w http.ResponseWriter, req *http.Request) error {
			return h(s, w, req)
		})))
	}
	r.NotFoundHandler = errs.Wrap(func(w http.ResponseWriter, req *http.Request) error {
		return apierr.New(apierr.NotFound, "no endpoint %s %s in the %s service", req.Method, req.URL.Path, service)
	})
	r.MethodNotAllowedHandler = errs.Wrap(func(w http.ResponseWriter, req *http.Request) error {
		return apierr.New(apierr.InvalidRequest, "method %s is not allowed on %s", req.Method, req.URL.Path)
	})
	return r
}

// Marked serves h after putting the route template path (as matched by the
// caller's router) on the request's server span and on otelhttp's request
// metrics, so traces and latency group by endpoint and not by path, whose
// ids never repeat. The services' routers and the gateway's both use it.
func Marked(path string, h http.Handler) http.Handler {
	// Made once, so marking a request allocates nothing of its own.
	at := []attribute.KeyValue{semconv.HTTPRoute(path)}
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		markRoute(r, at)
		h.ServeHTTP(w, r)
	})
}

// markRoute puts at on the request's server span and metric labels.
func markRoute(r *http.Request, at []attribute.KeyValue) {
	if s := trace.SpanFromContext(r.Context()); s.IsRecording() {
		s.SetAttributes(at...)
	}
	if l, ok := otelhttp.LabelerFromContext(r.Context()); ok {
		l.Add(at...)
	}
}

// Site is what every service is told about where it runs: the public URL
// its links are built on and the token that internal calls carry.
type Site struct {
	// PublicURL is {site_url}, e.g. http://127.0.0.1:8080.
	PublicURL string
	// InternalToken authenticates the gateway and services to each other.
	InternalToken string
}

// DocsURL is {docs_url}, where error bodies link to.
func (s Site) DocsURL() string { return strings.TrimRight(s.PublicURL, "/") + "/docs" }

// Origin is the site's web origin, scheme://host[:port], which browsers
// send in the Origin header of its own pages' requests.
func (s Site) Origin() string {
	u, err := url.Parse(s.PublicURL)
	if err != nil {
		return strings.TrimRight(s.PublicURL, "/")
	}
	return u.Scheme + "://" + u.Host
}

// Errors is the error writer of a service of this site: refusals link to
// its docs, internal causes go to log.
func (s Site) Errors(log *slog.Logger) httpx.Errors {
	return httpx.Errors{DocsURL: s.DocsURL(), Log: log}
}

// Handler is a service's whole handler: its table bound to svc, behind the
// internal-token check every service has.
func Handler[S any](site Site, service string, svc S, table []Endpoint[S], log *slog.Logger) http.Handler {
	var guarded, direct []Endpoint[S]
	for _, e := range table {
		if e.Access == Direct {
			direct = append(direct, e)
		} else {
			guarded = append(guarded, e)
		}
	}
	inner := auth.Internal(site.InternalToken, site.DocsURL(), Mux(service, svc, guarded, site.Errors(log)))
	if len(direct) == 0 {
		return inner
	}
	// Direct routes first, everything else behind the internal token.
	r := Mux(service, svc, direct, site.Errors(log))
	r.NotFoundHandler = inner
	r.MethodNotAllowedHandler = inner
	return r
}
