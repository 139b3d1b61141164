package gateway

import (
	"net/http"
	"regexp"
	"slices"
	"strings"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/httpx"
	"chartd.dev/libs/imagelink"
	"chartd.dev/libs/route"
)

// router dispatches on the standard library's ServeMux, which matches in
// place (no request copies), with the method check and the refusals done
// here so every refusal is the API error body: a path served under other
// methods is invalid_request with an Allow header, an unknown path
// not_found.
type router struct {
	mux *http.ServeMux
	g   *Gateway
}

// pathEntry is every method served at one path pattern.
type pathEntry struct {
	methods map[string]http.Handler
	// check, when set, must accept the request's path values (segments
	// such as render.{format} that a ServeMux wildcard cannot spell).
	check func(r *http.Request) bool
}

func newRouter(g *Gateway) *router {
	return &router{mux: http.NewServeMux(), g: g}
}

// stdPattern turns a route path (gorilla-style templates, as in Routes and
// the OpenAPI document) into a ServeMux pattern: whole-segment variables
// stay; a segment such as render.{format} or {id}.{format} becomes a
// wildcard whose prefix check answers.
func stdPattern(path string) (string, func(*http.Request) bool) {
	segs := strings.Split(path, "/")
	var checks []func(*http.Request) bool
	for i, s := range segs {
		open := strings.IndexByte(s, '{')
		if open < 0 || open == 0 && strings.Count(s, "{") == 1 && strings.HasSuffix(s, "}") {
			// No variable, or a whole-segment one a ServeMux spells as is.
			continue
		}
		name := "seg" + string(rune('a'+i))
		segs[i] = "{" + name + "}"
		shape := segmentShape(s)
		checks = append(checks, func(r *http.Request) bool {
			return shape.MatchString(r.PathValue(name))
		})
	}
	p := strings.Join(segs, "/")
	if strings.HasSuffix(p, "/") {
		p += "{$}"
	}
	if len(checks) == 0 {
		return p, nil
	}
	return p, func(r *http.Request) bool {
		for _, c := range checks {
			if !c(r) {
				return false
			}
		}
		return true
	}
}

// segmentShape is what a segment template such as render.{format} or
// {id}.{format} takes: its literal parts as they are, each variable one or
// more characters, so "/img/abc" (no dot) is no image link's address.
func segmentShape(tmpl string) *regexp.Regexp {
	var b strings.Builder
	b.WriteString("^")
	for rest := tmpl; rest != ""; {
		open := strings.IndexByte(rest, '{')
		if open < 0 {
			b.WriteString(regexp.QuoteMeta(rest))
			break
		}
		b.WriteString(regexp.QuoteMeta(rest[:open]))
		end := strings.IndexByte(rest[open:], '}')
		if end < 0 {
			b.WriteString(regexp.QuoteMeta(rest[open:]))
			break
		}
		b.WriteString(".+")
		rest = rest[open+end+1:]
	}
	b.WriteString("$")
	return regexp.MustCompile(b.String())
}

// handle serves h for method at a route path, the path template put on
// the gateway's server span as http.route.
func (rt *router) handle(entries map[string]*pathEntry, order *[]string, method, path string, h http.Handler) {
	pat, check := stdPattern(path)
	e := entries[pat]
	if e == nil {
		e = &pathEntry{methods: map[string]http.Handler{}, check: check}
		entries[pat] = e
		*order = append(*order, pat)
	}
	e.methods[method] = route.Marked(path, h)
}

// register installs the entries on the ServeMux, and the catch-all.
func (rt *router) register(entries map[string]*pathEntry, order []string) {
	for _, pat := range order {
		e := entries[pat]
		rt.mux.Handle(pat, http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if e.check != nil && !e.check(r) {
				rt.refuse(w, r, nil)
				return
			}
			if h, ok := e.methods[r.Method]; ok {
				h.ServeHTTP(w, r)
				return
			}
			if h, ok := e.methods[http.MethodGet]; ok && r.Method == http.MethodHead {
				// HEAD is GET without the body (RFC 9110 §9.3.2): the
				// route answers as for GET and net/http drops the body.
				g := *r
				g.Method = http.MethodGet
				h.ServeHTTP(w, &g)
				return
			}
			allowed := make([]string, 0, len(e.methods)+1)
			for m := range e.methods {
				allowed = append(allowed, m)
			}
			if _, ok := e.methods[http.MethodGet]; ok {
				allowed = append(allowed, http.MethodHead)
			}
			slices.Sort(allowed)
			rt.refuse(w, r, allowed)
		}))
	}
	rt.mux.Handle("/", http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) { rt.refuse(w, r, nil) }))
}

// imageLinks is where public image links live.
const imageLinks = "/img/"

// refuse answers a request no route takes: invalid_request with an Allow
// header when the path is served under other methods, else not_found.
// Both are rate limited per client address like any anonymous request.
func (rt *router) refuse(w http.ResponseWriter, r *http.Request, allowed []string) {
	rt.g.anonymous(rt.g.errs.Wrap(func(w http.ResponseWriter, r *http.Request) error {
		if strings.HasPrefix(r.URL.Path, imageLinks) {
			// Under /img every refusal is the image links' one 404.
			return apierr.New(apierr.NotFound, imagelink.Refused)
		}
		if strings.HasPrefix(r.URL.Path, imagelink.EmbedPrefix) {
			// and under /embed the embeds' one 404
			return apierr.New(apierr.NotFound, imagelink.EmbedRefused)
		}
		if len(allowed) == 0 {
			return apierr.New(apierr.NotFound, "no endpoint %s %s; the endpoints are listed in %s%s/openapi.json", r.Method, r.URL.Path, strings.TrimRight(rt.g.cfg.PublicURL, "/"), BasePath)
		}
		w.Header().Set("Allow", strings.Join(allowed, ", "))
		return apierr.New(apierr.InvalidRequest, "method %s is not allowed on %s; use %s", r.Method, r.URL.Path, strings.Join(allowed, " or "))
	})).ServeHTTP(w, r)
}

// refuseWith answers err, rate limited per client address like any
// anonymous request.
func (rt *router) refuseWith(w http.ResponseWriter, r *http.Request, err error) {
	rt.g.anonymous(rt.g.errs.Wrap(func(http.ResponseWriter, *http.Request) error { return err })).ServeHTTP(w, r)
}

// ServeHTTP refuses what the ServeMux would answer in its own way, then
// dispatches. A path that is not clean ("//", "/./", "/../", or not
// rooted, such as "*" or a CONNECT authority) is not_found: the ServeMux
// would redirect it to its cleaned form, even out of /docs/ and with
// control characters in Location. Oversized headers are invalid_request
// below the HTTP server's own cap, which answers in plain text.
func (rt *router) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	if err := httpx.Refusal(r.Context()); err != nil {
		// net/http refused it before any handler (httpx.ErrorBodyListener).
		rt.refuseWith(w, r, err)
		return
	}
	if max := rt.g.cfg.MaxHeaderBytes; max > 0 {
		if n := headerBytes(r); n > max {
			rt.refuseWith(w, r, apierr.New(apierr.InvalidRequest, "the request line and headers are about %d bytes, over the limit of %d bytes; send fewer or shorter headers", n, max))
			return
		}
	}
	if !cleanPath(r.URL.Path) {
		rt.refuse(w, r, nil)
		return
	}
	rt.mux.ServeHTTP(w, r)
}

// cleanPath says whether p is rooted and already in the form the ServeMux
// cleans paths to (path.Clean, keeping a trailing slash), without
// allocating.
func cleanPath(p string) bool {
	if p == "" || p[0] != '/' {
		return false
	}
	// Every segment after a slash: not empty (but the last), not "." or "..".
	for i := 0; i < len(p); {
		j := strings.IndexByte(p[i+1:], '/')
		end := len(p)
		if j >= 0 {
			end = i + 1 + j
		}
		seg := p[i+1 : end]
		if seg == "." || seg == ".." || seg == "" && end != len(p) {
			return false
		}
		i = end
	}
	return true
}

// headerBytes counts the request line and header lines about as they
// came on the wire (net/http keeps Host apart and joins nothing else).
func headerBytes(r *http.Request) int {
	n := len(r.Method) + 1 + len(r.RequestURI) + 1 + len(r.Proto) + 2
	if r.Host != "" {
		n += len("Host: ") + len(r.Host) + 2
	}
	for k, vs := range r.Header {
		for _, v := range vs {
			n += len(k) + 2 + len(v) + 2
		}
	}
	return n + 2
}
