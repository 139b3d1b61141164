package deploytest

import (
	"errors"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"net/http/httputil"
	"net/url"
	"strings"
	"sync"

	networkingv1 "k8s.io/api/networking/v1"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
)

// frontRoute is one path rule of the release's Ingress or HTTPRoute.
type frontRoute struct {
	hosts   []string // empty: every host
	path    string
	exact   bool
	service string
	port    int32
}

// ingressRoutes reads an Ingress's rules (and default backend) as routes;
// a backend port given by name is the Service's port of that name.
func ingressRoutes(ing *networkingv1.Ingress, portOf func(svc, name string) (int32, error)) ([]frontRoute, error) {
	backend := func(b networkingv1.IngressBackend) (string, int32, error) {
		if b.Service == nil {
			return "", 0, errors.New("only Service backends are emulated")
		}
		if b.Service.Port.Name != "" {
			n, err := portOf(b.Service.Name, b.Service.Port.Name)
			return b.Service.Name, n, err
		}
		return b.Service.Name, b.Service.Port.Number, nil
	}
	var out []frontRoute
	for _, r := range ing.Spec.Rules {
		if r.HTTP == nil {
			continue
		}
		var hosts []string
		if r.Host != "" {
			hosts = []string{r.Host}
		}
		for _, p := range r.HTTP.Paths {
			if p.PathType == nil || (*p.PathType != networkingv1.PathTypePrefix && *p.PathType != networkingv1.PathTypeExact) {
				return nil, fmt.Errorf("Ingress %s path %s: pathType %v; Prefix and Exact are emulated", ing.Name, p.Path, p.PathType)
			}
			svc, port, err := backend(p.Backend)
			if err != nil {
				return nil, fmt.Errorf("Ingress %s path %s: %w", ing.Name, p.Path, err)
			}
			out = append(out, frontRoute{hosts: hosts, path: p.Path, exact: *p.PathType == networkingv1.PathTypeExact, service: svc, port: port})
		}
	}
	if b := ing.Spec.DefaultBackend; b != nil {
		svc, port, err := backend(*b)
		if err != nil {
			return nil, fmt.Errorf("Ingress %s default backend: %w", ing.Name, err)
		}
		out = append(out, frontRoute{path: "", service: svc, port: port})
	}
	return out, nil
}

// httpRouteRoutes reads an HTTPRoute's path matches as routes. Header,
// query and method matches, filters and split backends are not emulated.
func httpRouteRoutes(hr *gatewayv1.HTTPRoute) ([]frontRoute, error) {
	var hosts []string
	for _, h := range hr.Spec.Hostnames {
		hosts = append(hosts, string(h))
	}
	var out []frontRoute
	for i, r := range hr.Spec.Rules {
		if len(r.Filters) > 0 || len(r.BackendRefs) != 1 {
			return nil, fmt.Errorf("HTTPRoute %s rule %d: one backend and no filters are emulated", hr.Name, i)
		}
		b := r.BackendRefs[0]
		if (b.Kind != nil && *b.Kind != "Service") || (b.Group != nil && *b.Group != "") || b.Port == nil {
			return nil, fmt.Errorf("HTTPRoute %s rule %d: the backend must be a Service with a port", hr.Name, i)
		}
		matches := r.Matches
		if len(matches) == 0 {
			matches = []gatewayv1.HTTPRouteMatch{{}}
		}
		for _, m := range matches {
			if len(m.Headers) > 0 || len(m.QueryParams) > 0 || m.Method != nil {
				return nil, fmt.Errorf("HTTPRoute %s rule %d: only path matches are emulated", hr.Name, i)
			}
			p, exact := "/", false
			if m.Path != nil {
				if m.Path.Value != nil {
					p = *m.Path.Value
				}
				if m.Path.Type != nil {
					switch *m.Path.Type {
					case gatewayv1.PathMatchExact:
						exact = true
					case gatewayv1.PathMatchPathPrefix:
					default:
						return nil, fmt.Errorf("HTTPRoute %s rule %d: path match %s; PathPrefix and Exact are emulated", hr.Name, i, *m.Path.Type)
					}
				}
			}
			out = append(out, frontRoute{hosts: hosts, path: p, exact: exact, service: string(b.Name), port: int32(*b.Port)})
		}
	}
	return out, nil
}

// hostMatches: an exact host, or a wildcard *.example.com for one label.
func hostMatches(hosts []string, host string) bool {
	if len(hosts) == 0 {
		return true
	}
	for _, h := range hosts {
		h = strings.ToLower(h)
		if h == host {
			return true
		}
		if suffix, ok := strings.CutPrefix(h, "*"); ok {
			if label, ok := strings.CutSuffix(host, suffix); ok && label != "" && !strings.Contains(label, ".") {
				return true
			}
		}
	}
	return false
}

// score answers how well a route matches a path, -1 for not at all: a
// Prefix matches whole path elements (/img matches /img and /img/x, not
// /imgx); the longest match wins, an Exact one over a Prefix of the same
// length; the default backend matches last.
func (r frontRoute) score(p string) int {
	switch {
	case r.path == "":
		return 0
	case r.exact:
		if p == r.path {
			return 2*len(r.path) + 2
		}
		return -1
	}
	prefix := strings.TrimSuffix(r.path, "/")
	if prefix == "" || p == prefix || strings.HasPrefix(p, prefix+"/") {
		return 2*len(prefix) + 1
	}
	return -1
}

// frontProxy stands in for the ingress controller or the Gateway: it
// routes each request by the release's rules to the loopback address of
// the Service's port, keeping the Host header and setting X-Forwarded-*,
// and records which Service answered each path.
type frontProxy struct {
	kind      string
	routes    []frontRoute
	endpoints map[endpoint]string
	transport *http.Transport
	srv       *httptest.Server

	mu     sync.Mutex
	served map[string]string // request path → Service
}

func newFrontProxy(kind string, routes []frontRoute, endpoints map[endpoint]string) (*frontProxy, error) {
	for _, r := range routes {
		if _, ok := endpoints[endpoint{r.service, r.port}]; !ok {
			return nil, fmt.Errorf("%s routes %s to Service %s port %d, which no pod serves", kind, r.path, r.service, r.port)
		}
	}
	f := &frontProxy{kind: kind, routes: routes, endpoints: endpoints, transport: &http.Transport{}, served: map[string]string{}}
	f.srv = httptest.NewServer(f)
	return f, nil
}

// Close stops the proxy and its connections to the pods.
func (f *frontProxy) Close() {
	f.srv.Close()
	f.transport.CloseIdleConnections()
}

// addr is where the proxy listens.
func (f *frontProxy) addr() string { return f.srv.Listener.Addr().String() }

func (f *frontProxy) route(host, p string) (frontRoute, bool) {
	if h, _, err := net.SplitHostPort(host); err == nil {
		host = h
	}
	host = strings.ToLower(host)
	best, score := frontRoute{}, -1
	for _, r := range f.routes {
		if !hostMatches(r.hosts, host) {
			continue
		}
		if s := r.score(p); s > score {
			best, score = r, s
		}
	}
	return best, score >= 0
}

func (f *frontProxy) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	rt, ok := f.route(r.Host, r.URL.Path)
	if !ok {
		http.Error(w, f.kind+": no rule for "+r.Host+r.URL.Path, http.StatusNotFound)
		return
	}
	target := &url.URL{Scheme: "http", Host: f.endpoints[endpoint{rt.service, rt.port}]}
	f.mu.Lock()
	f.served[r.URL.Path] = rt.service
	f.mu.Unlock()
	(&httputil.ReverseProxy{
		Transport: f.transport,
		Rewrite: func(pr *httputil.ProxyRequest) {
			pr.SetURL(target)
			pr.Out.Host = pr.In.Host
			pr.SetXForwarded()
		},
	}).ServeHTTP(w, r)
}

// servedBy answers the Service the last request for path went to.
func (f *frontProxy) servedBy(p string) string {
	f.mu.Lock()
	defer f.mu.Unlock()
	return f.served[p]
}
