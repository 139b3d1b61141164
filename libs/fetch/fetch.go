// Package fetch is the brand service's HTTP client for other people's
// websites. A user names any URL, so every fetch is a request we make on
// their behalf from inside our network: the package only lets through http
// and https on ports 80 and 443 to public addresses, checks the address it
// actually dials (so DNS rebinding cannot slip past), re-checks every
// redirect, and bounds time and bytes so a hostile site costs little.
package fetch

import (
	"context"
	"errors"
	"fmt"
	"io"
	"mime"
	"net"
	"net/http"
	"net/netip"
	"net/url"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"time"

	"code.dny.dev/ssrf"
	"golang.org/x/net/idna"
)

// Config sets the budgets of a Fetcher. Zero fields take the defaults
// named in their comments, which are the brand service's.
type Config struct {
	// Timeout bounds one Get, or all the Gets of one Site together (10 s).
	Timeout time.Duration
	// MaxHTML is the byte budget of a page (2 MiB).
	MaxHTML int64
	// MaxStylesheets is how many stylesheets one Site fetches (10).
	MaxStylesheets int
	// MaxStylesheet is the byte budget of one stylesheet (1 MiB).
	MaxStylesheet int64
	// MaxManifest is the byte budget of the web manifest (1 MiB).
	MaxManifest int64
	// MaxImages is how many icon or logo images one Site fetches (4).
	MaxImages int
	// MaxImage is the byte budget of one image (1 MiB).
	MaxImage int64
	// MaxRedirects is how many redirects one Get follows (5).
	MaxRedirects int
	// UserAgent names the service to the sites it fetches, so their
	// operators can find out who we are ("chartd-brand/1"; see UserAgent).
	UserAgent string
	// Allow lists "host:port" destinations let through even when private
	// or on another port, for tests and local development. An entry
	// matches the URL's host and port exactly ("localhost:8080" does not
	// let "127.0.0.1:8080" through); a name entry lets that name through
	// whatever it resolves to. Empty in production; the service logs it at
	// start when set.
	Allow []string
	// Proxy, when set, sends every request through this egress proxy
	// (http, https or socks5). The proxy resolves names itself, so with a
	// proxy the target's addresses are checked before the request, and the
	// proxy's own egress rules are the last line.
	Proxy *url.URL
	// Resolver answers name lookups; nil uses net.DefaultResolver. Tests
	// inject one to simulate DNS, including rebinding.
	Resolver Resolver
}

// Resolver is the part of *net.Resolver the fetcher uses; it exists so
// tests can answer lookups without DNS.
type Resolver interface {
	LookupIPAddr(ctx context.Context, host string) ([]net.IPAddr, error)
}

// UserAgent is the User-Agent the brand service sends, naming its docs
// page so a site operator can see why we fetched them.
func UserAgent(site string) string {
	return "chartd-brand/1 (+" + strings.TrimRight(site, "/") + "/docs)"
}

// Kind says what a document is for, which selects its byte budget, its
// Accept header, and which per-Site count it uses.
type Kind int

// The kinds of document the brand service fetches.
const (
	// HTML is the site's page; its content type must be HTML.
	HTML Kind = iota
	// Stylesheet is a CSS file linked from the page.
	Stylesheet
	// Manifest is the web app manifest (JSON).
	Manifest
	// Image is an icon or logo image.
	Image
	numKinds
)

// String names the kind in messages.
func (k Kind) String() string {
	switch k {
	case HTML:
		return "page"
	case Stylesheet:
		return "stylesheet"
	case Manifest:
		return "web manifest"
	case Image:
		return "image"
	}
	return "Kind(" + strconv.Itoa(int(k)) + ")"
}

func (k Kind) accept() string {
	switch k {
	case Stylesheet:
		return "text/css,*/*;q=0.1"
	case Manifest:
		return "application/manifest+json,application/json;q=0.9,*/*;q=0.1"
	case Image:
		return "image/*,*/*;q=0.1"
	}
	return "text/html,application/xhtml+xml;q=0.9,*/*;q=0.1"
}

// Response is one fetched document.
type Response struct {
	// FinalURL is the address after redirects; relative links in the
	// document resolve against it.
	FinalURL string
	// Status is the HTTP status code (2xx unless an error says otherwise).
	Status int
	// ContentType is the media type without parameters, lower case, from
	// the header or sniffed when the header is missing.
	ContentType string
	// Body holds at most the Kind's byte budget.
	Body []byte
	// Truncated says Body stops at the budget (Get also returns ErrTooLarge).
	Truncated bool
}

// Fetcher is an SSRF-safe HTTP client. It is safe for concurrent use and
// keeps connections alive between Gets; make one per process.
type Fetcher struct {
	cfg      Config
	guard    *ssrf.Guardian
	allow    map[string]bool
	resolver Resolver
	client   *http.Client

	// ports are the destination ports allowed without an Allow entry.
	// Tests widen it so the address check, not the port check, is what
	// refuses their loopback listener.
	ports map[int]bool
	// connect dials an address that passed the checks; nil dials it with a
	// net.Dialer whose Control hook checks the address once more. Tests
	// replace it to stand in for public hosts.
	connect func(ctx context.Context, ap netip.AddrPort) (net.Conn, error)
}

// New checks cfg, fills in defaults and builds a Fetcher.
func New(cfg Config) (*Fetcher, error) {
	if cfg.Timeout == 0 {
		cfg.Timeout = 10 * time.Second
	}
	if cfg.MaxHTML == 0 {
		cfg.MaxHTML = 2 << 20
	}
	if cfg.MaxStylesheets == 0 {
		cfg.MaxStylesheets = 10
	}
	if cfg.MaxStylesheet == 0 {
		cfg.MaxStylesheet = 1 << 20
	}
	if cfg.MaxManifest == 0 {
		cfg.MaxManifest = 1 << 20
	}
	if cfg.MaxImages == 0 {
		cfg.MaxImages = 4
	}
	if cfg.MaxImage == 0 {
		cfg.MaxImage = 1 << 20
	}
	if cfg.MaxRedirects == 0 {
		cfg.MaxRedirects = 5
	}
	if cfg.UserAgent == "" {
		cfg.UserAgent = "chartd-brand/1"
	}
	if cfg.Timeout < 0 || cfg.MaxHTML < 0 || cfg.MaxStylesheets < 0 || cfg.MaxStylesheet < 0 ||
		cfg.MaxManifest < 0 || cfg.MaxImages < 0 || cfg.MaxImage < 0 || cfg.MaxRedirects < 0 {
		return nil, errors.New("fetch: budgets must not be negative")
	}
	f := &Fetcher{
		cfg:      cfg,
		guard:    ssrf.New(ssrf.WithAnyPort()),
		allow:    map[string]bool{},
		resolver: cfg.Resolver,
		ports:    map[int]bool{80: true, 443: true},
	}
	if f.resolver == nil {
		f.resolver = net.DefaultResolver
	}
	for _, a := range cfg.Allow {
		hp, ok := normalizeHostPort(a)
		if !ok {
			return nil, fmt.Errorf("fetch: allow entry %q is not host:port", a)
		}
		f.allow[hp] = true
	}
	t := &http.Transport{
		// Proxy stays nil unless configured: HTTP_PROXY from the
		// environment must not route around the checks.
		DialContext:            f.dial,
		ForceAttemptHTTP2:      true,
		MaxIdleConns:           32,
		MaxIdleConnsPerHost:    4,
		IdleConnTimeout:        30 * time.Second,
		TLSHandshakeTimeout:    5 * time.Second,
		ExpectContinueTimeout:  time.Second,
		MaxResponseHeaderBytes: 64 << 10,
	}
	if cfg.Proxy != nil {
		switch cfg.Proxy.Scheme {
		case "http", "https", "socks5", "socks5h":
		default:
			return nil, fmt.Errorf("fetch: proxy %q: scheme must be http, https or socks5", cfg.Proxy.Redacted())
		}
		if cfg.Proxy.Host == "" {
			return nil, fmt.Errorf("fetch: proxy %q has no host", cfg.Proxy.Redacted())
		}
		// The proxy is the operator's own egress, so dialling it is not
		// checked; the targets are, in checkURL.
		t.Proxy = http.ProxyURL(cfg.Proxy)
		t.DialContext = (&net.Dialer{}).DialContext
	}
	f.client = &http.Client{
		Transport:     t,
		CheckRedirect: f.checkRedirect,
		// No Jar: a site cannot set cookies that later requests carry.
	}
	return f, nil
}

// Get fetches one document within Timeout and the byte budget of kind.
// rawURL must be absolute (see NormalizeURL). When the body is larger than
// the budget, Get returns the first budget bytes with Truncated set and an
// ErrTooLarge error, so a caller may still use the part it has.
func (f *Fetcher) Get(ctx context.Context, rawURL string, kind Kind) (*Response, error) {
	ctx, cancel := context.WithTimeoutCause(ctx, f.cfg.Timeout, errBudgetTime)
	defer cancel()
	return f.get(ctx, rawURL, kind)
}

// errBudgetTime is the cancellation cause of the fetcher's own deadline,
// which tells our timeout from the caller's.
var errBudgetTime = errors.New("fetch: time budget spent")

// Site fetches the documents of one website under one budget: Timeout for
// all of them together, at most MaxStylesheets stylesheets, MaxImages
// images and one manifest. It is safe for concurrent use.
type Site struct {
	f        *Fetcher
	deadline time.Time
	mu       sync.Mutex
	used     [numKinds]int
}

// Site starts the budget of one website fetch; its clock starts now.
func (f *Fetcher) Site() *Site {
	return &Site{f: f, deadline: time.Now().Add(f.cfg.Timeout)}
}

// Get fetches one document of the site, counting it against the site's
// limits (a refused or failed fetch counts too: it spent the budget). Past a
// limit it returns ErrLimit without a request.
func (s *Site) Get(ctx context.Context, rawURL string, kind Kind) (*Response, error) {
	limit := -1
	switch kind {
	case Stylesheet:
		limit = s.f.cfg.MaxStylesheets
	case Image:
		limit = s.f.cfg.MaxImages
	case Manifest:
		limit = 1
	}
	if kind >= 0 && kind < numKinds {
		s.mu.Lock()
		over := limit >= 0 && s.used[kind] >= limit
		if !over {
			s.used[kind]++
		}
		s.mu.Unlock()
		if over {
			return nil, newError(ErrLimit, rawURL,
				fmt.Sprintf("only %d %s(s) are fetched per site", limit, kind), nil)
		}
	}
	ctx, cancel := context.WithDeadlineCause(ctx, s.deadline, errBudgetTime)
	defer cancel()
	return s.f.get(ctx, rawURL, kind)
}

func (f *Fetcher) budget(k Kind) int64 {
	switch k {
	case Stylesheet:
		return f.cfg.MaxStylesheet
	case Manifest:
		return f.cfg.MaxManifest
	case Image:
		return f.cfg.MaxImage
	}
	return f.cfg.MaxHTML
}

func (f *Fetcher) get(ctx context.Context, rawURL string, kind Kind) (*Response, error) {
	if kind < 0 || kind >= numKinds {
		return nil, fmt.Errorf("fetch: unknown kind %d", kind)
	}
	u, err := url.Parse(rawURL)
	if err != nil {
		return nil, newError(ErrInvalidURL, rawURL, fmt.Sprintf("%q is not a valid website address", rawURL), err)
	}
	if !u.IsAbs() {
		return nil, newError(ErrInvalidURL, rawURL, fmt.Sprintf("%q is not a full website address (https://…)", rawURL), nil)
	}
	if err := f.checkURL(ctx, u); err != nil {
		return nil, err
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, u.String(), nil)
	if err != nil {
		return nil, newError(ErrInvalidURL, rawURL, fmt.Sprintf("%q is not a valid website address", rawURL), err)
	}
	req.Header.Set("User-Agent", f.cfg.UserAgent)
	req.Header.Set("Accept", kind.accept())
	resp, err := f.client.Do(req)
	if err != nil {
		return nil, f.failure(ctx, err, u)
	}
	defer resp.Body.Close()
	final := resp.Request.URL.String()

	switch {
	case resp.StatusCode == http.StatusNotFound || resp.StatusCode == http.StatusGone:
		return nil, newError(ErrNotFound, final,
			fmt.Sprintf("%s answered HTTP %d (not found) for %s", resp.Request.URL.Host, resp.StatusCode, final), nil)
	case resp.StatusCode < 200 || resp.StatusCode > 299:
		return nil, newError(ErrStatus, final,
			fmt.Sprintf("%s answered HTTP %d %s for %s", resp.Request.URL.Host, resp.StatusCode,
				http.StatusText(resp.StatusCode), final), nil)
	}

	ct := mediaType(resp.Header.Get("Content-Type"))
	if kind == HTML && ct != "" && !isHTML(ct) {
		return nil, notHTML(final, ct)
	}
	limit := f.budget(kind)
	body, err := io.ReadAll(io.LimitReader(resp.Body, limit+1))
	if err != nil {
		return nil, f.failure(ctx, err, resp.Request.URL)
	}
	if ct == "" {
		ct = mediaType(http.DetectContentType(body))
		if kind == HTML && !isHTML(ct) {
			return nil, notHTML(final, ct)
		}
	}
	r := &Response{FinalURL: final, Status: resp.StatusCode, ContentType: ct, Body: body}
	if int64(len(body)) > limit {
		r.Body, r.Truncated = body[:limit], true
		return r, newError(ErrTooLarge, final,
			fmt.Sprintf("the %s %s is larger than %s; only the first %s were read", kind, final, size(limit), size(limit)), nil)
	}
	return r, nil
}

func notHTML(u, ct string) *Error {
	return newError(ErrNotHTML, u, fmt.Sprintf("%s is not an HTML page (it is %s)", u, ct), nil)
}

func mediaType(v string) string {
	if v == "" {
		return ""
	}
	mt, _, err := mime.ParseMediaType(v)
	if err != nil {
		mt, _, _ = strings.Cut(v, ";")
	}
	return strings.ToLower(strings.TrimSpace(mt))
}

func isHTML(ct string) bool { return ct == "text/html" || ct == "application/xhtml+xml" }

// failure turns a transport error into an *Error saying what happened.
func (f *Fetcher) failure(ctx context.Context, err error, u *url.URL) error {
	var fe *Error
	if errors.As(err, &fe) {
		if !strings.Contains(fe.URL, "://") {
			fe.URL = u.String() // raised in dial, which sees host:port only
		}
		return fe
	}
	switch {
	case errors.Is(context.Cause(ctx), errBudgetTime):
		// For a Site this is the whole site's budget, which is what a
		// user can act on ("the site is too slow"), not this Get's share.
		return newError(ErrTimeout, u.String(), fmt.Sprintf("no answer from %s within %s", u.Host, seconds(f.cfg.Timeout)), err)
	case errors.Is(ctx.Err(), context.DeadlineExceeded):
		return newError(ErrTimeout, u.String(), fmt.Sprintf("no answer from %s in time", u.Host), err)
	case ctx.Err() != nil:
		return fmt.Errorf("fetch %s: %w", u.Redacted(), ctx.Err())
	}
	var ne net.Error
	if errors.As(err, &ne) && ne.Timeout() {
		return newError(ErrTimeout, u.String(), fmt.Sprintf("no answer from %s in time", u.Host), err)
	}
	return newError(ErrUnreachable, u.String(), fmt.Sprintf("%s could not be reached (%s)", u.Host, rootCause(err)), err)
}

// rootCause is the innermost message of err, without the "Get URL:" and
// "dial tcp" prefixes the standard library adds.
func rootCause(err error) string {
	for {
		var next error
		switch e := err.(type) {
		case *url.Error:
			next = e.Err
		case *net.OpError:
			next = e.Err
		default:
			return err.Error()
		}
		if next == nil {
			return err.Error()
		}
		err = next
	}
}

func (f *Fetcher) checkRedirect(req *http.Request, via []*http.Request) error {
	if len(via) > f.cfg.MaxRedirects {
		return newError(ErrTooManyRedirects, via[0].URL.String(),
			fmt.Sprintf("%s redirects more than %d times", via[0].URL.String(), f.cfg.MaxRedirects), nil)
	}
	if err := f.checkURL(req.Context(), req.URL); err != nil {
		err.msg = via[len(via)-1].URL.Host + " redirects to " + req.URL.Redacted() + ": " + err.msg
		return err
	}
	return nil
}

// checkURL is the check made before each request and each redirect:
// scheme, userinfo, port, host spelling and, for IP literals, the address.
// Names are resolved and checked when dialled (see dial), except with a
// proxy, which dials for us: then they are resolved and checked here.
func (f *Fetcher) checkURL(ctx context.Context, u *url.URL) *Error {
	raw := u.Redacted()
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return newError(ErrScheme, raw,
			fmt.Sprintf("only http and https addresses can be fetched, not %s:", u.Scheme), nil)
	}
	if u.User != nil {
		return newError(ErrInvalidURL, raw,
			"website addresses with a user name or password are not fetched; give the site's address alone", nil)
	}
	if u.Opaque != "" || u.Host == "" {
		return newError(ErrInvalidURL, raw, fmt.Sprintf("%q is not a valid website address", raw), nil)
	}
	h, err := parseHost(f.guard, u.Hostname())
	if err != nil {
		err.URL = raw
		return err
	}
	port := 80
	if scheme == "https" {
		port = 443
	}
	if p := u.Port(); p != "" {
		n, perr := strconv.Atoi(p)
		if perr != nil || n < 1 || n > 65535 {
			return newError(ErrInvalidURL, raw, fmt.Sprintf("%q has an invalid port", raw), nil)
		}
		port = n
	}
	byName := f.allow[h.hostport(port)]
	if !byName && !f.ports[port] {
		return newError(ErrPort, raw, fmt.Sprintf("only ports 80 and 443 can be fetched, not %d", port), nil)
	}
	if !isASCII(u.Hostname()) && !h.ip.IsValid() {
		// Send the name the checks saw (the transport would map it the
		// same way; this keeps the two from ever differing).
		u.Host = net.JoinHostPort(h.name, strconv.Itoa(port))
	}
	if byName {
		return nil
	}
	if h.ip.IsValid() {
		return f.checkAddr(h, h.ip, port, raw)
	}
	if f.cfg.Proxy != nil {
		_, err := f.resolve(ctx, h, port, raw)
		return err
	}
	return nil
}

// checkAddr refuses ip unless it is public or listed in Allow.
func (f *Fetcher) checkAddr(h host, ip netip.Addr, port int, raw string) *Error {
	if f.allow[netip.AddrPortFrom(ip.Unmap(), uint16(port)).String()] || f.allow[netip.AddrPortFrom(ip, uint16(port)).String()] {
		return nil
	}
	if publicAddr(f.guard, ip) {
		return nil
	}
	if h.ip.IsValid() {
		return newError(ErrPrivateAddress, raw,
			fmt.Sprintf("%s is a private network address; only public websites can be fetched", h.name), nil)
	}
	// The resolved address stays out of the message: it would map the
	// service's internal network for whoever asks.
	return newError(ErrPrivateAddress, raw,
		fmt.Sprintf("%s resolves to a private network address; only public websites can be fetched", h.name), nil)
}

// resolve looks h up once and checks every answer: one private answer
// refuses the name, since a public site never needs one and a mixed answer
// is how rebinding attacks hedge.
func (f *Fetcher) resolve(ctx context.Context, h host, port int, raw string) ([]netip.Addr, *Error) {
	answers, err := f.resolver.LookupIPAddr(ctx, h.name)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil
		}
		var de *net.DNSError
		if errors.As(err, &de) && de.IsNotFound {
			return nil, newError(ErrUnreachable, raw, fmt.Sprintf("%s does not exist (no such host name)", h.name), err)
		}
		return nil, newError(ErrUnreachable, raw, fmt.Sprintf("%s could not be looked up (%s)", h.name, rootCause(err)), err)
	}
	ips := make([]netip.Addr, 0, len(answers))
	for _, a := range answers {
		ip, ok := netip.AddrFromSlice(a.IP)
		if !ok {
			continue
		}
		ip = ip.Unmap().WithZone(a.Zone)
		if err := f.checkAddr(h, ip, port, raw); err != nil {
			return nil, err
		}
		ips = append(ips, ip)
	}
	if len(ips) == 0 {
		return nil, newError(ErrUnreachable, raw, fmt.Sprintf("%s has no IP address", h.name), nil)
	}
	return ips, nil
}

// dial is the transport's DialContext without a proxy. It re-parses the
// host the transport is about to dial, resolves it once, checks every
// answer, and dials only a checked IP, whose address the net.Dialer's
// Control hook checks once more on the socket itself.
func (f *Fetcher) dial(ctx context.Context, network, addr string) (net.Conn, error) {
	hs, ps, err := net.SplitHostPort(addr)
	if err != nil {
		return nil, newError(ErrInvalidURL, addr, fmt.Sprintf("%q is not a valid address", addr), err)
	}
	port, err := strconv.Atoi(ps)
	if err != nil {
		return nil, newError(ErrInvalidURL, addr, fmt.Sprintf("%q is not a valid address", addr), err)
	}
	h, herr := parseHost(f.guard, hs)
	if herr != nil {
		return nil, herr
	}
	byName := f.allow[h.hostport(port)]
	if !byName && !f.ports[port] {
		return nil, newError(ErrPort, addr, fmt.Sprintf("only ports 80 and 443 can be fetched, not %d", port), nil)
	}
	var ips []netip.Addr
	switch {
	case h.ip.IsValid() && !byName:
		if err := f.checkAddr(h, h.ip, port, addr); err != nil {
			return nil, err
		}
		ips = []netip.Addr{h.ip}
	case h.ip.IsValid():
		ips = []netip.Addr{h.ip}
	default:
		var rerr *Error
		if byName {
			ips, rerr = f.resolveAllowed(ctx, h)
		} else {
			ips, rerr = f.resolve(ctx, h, port, addr)
		}
		if rerr != nil {
			return nil, rerr
		}
		if ips == nil {
			return nil, ctx.Err()
		}
	}
	var first error
	for _, ip := range ips {
		c, err := f.dialChecked(ctx, netip.AddrPortFrom(ip, uint16(port)), byName)
		if err == nil {
			return c, nil
		}
		if first == nil {
			first = err
		}
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
	}
	var fe *Error
	if errors.As(first, &fe) {
		return nil, fe
	}
	return nil, newError(ErrUnreachable, addr, fmt.Sprintf("%s could not be reached (%s)", h.name, rootCause(first)), first)
}

// resolveAllowed resolves a name listed in Allow without judging the answers.
func (f *Fetcher) resolveAllowed(ctx context.Context, h host) ([]netip.Addr, *Error) {
	answers, err := f.resolver.LookupIPAddr(ctx, h.name)
	if err != nil {
		if ctx.Err() != nil {
			return nil, nil
		}
		return nil, newError(ErrUnreachable, h.name, fmt.Sprintf("%s could not be looked up (%s)", h.name, rootCause(err)), err)
	}
	var ips []netip.Addr
	for _, a := range answers {
		if ip, ok := netip.AddrFromSlice(a.IP); ok {
			ips = append(ips, ip.Unmap().WithZone(a.Zone))
		}
	}
	if len(ips) == 0 {
		return nil, newError(ErrUnreachable, h.name, fmt.Sprintf("%s has no IP address", h.name), nil)
	}
	return ips, nil
}

// dialChecked connects to an address that passed the checks.
func (f *Fetcher) dialChecked(ctx context.Context, ap netip.AddrPort, byName bool) (net.Conn, error) {
	if err := f.checkDialled(ap, byName); err != nil {
		return nil, err
	}
	if f.connect != nil {
		return f.connect(ctx, ap)
	}
	d := net.Dialer{Control: f.control(byName)}
	return d.DialContext(ctx, "tcp", ap.String())
}

// control is the net.Dialer.Control hook: it sees the address the socket
// is about to connect to, after every layer above has had its say.
func (f *Fetcher) control(byName bool) func(network, address string, c syscall.RawConn) error {
	return func(_, address string, _ syscall.RawConn) error {
		ap, err := netip.ParseAddrPort(address)
		if err != nil {
			return newError(ErrPrivateAddress, address, address+" is not an address that can be checked", err)
		}
		if err := f.checkDialled(ap, byName); err != nil {
			return err
		}
		return nil
	}
}

// checkDialled is the last check, on the address the socket connects to.
func (f *Fetcher) checkDialled(ap netip.AddrPort, byName bool) *Error {
	if byName {
		return nil
	}
	port := int(ap.Port())
	h := host{name: ap.Addr().String(), ip: ap.Addr()}
	if !f.allow[ap.String()] && !f.ports[port] {
		return newError(ErrPort, ap.String(), fmt.Sprintf("only ports 80 and 443 can be fetched, not %d", port), nil)
	}
	return f.checkAddr(h, ap.Addr(), port, ap.String())
}

// NormalizeURL turns what a user typed ("stripe.com", "//stripe.com/x",
// "http://Stripe.com") into an absolute URL for Get: https:// is added when
// no scheme is given, the host is lower-cased (and punycoded), the fragment
// dropped, so the result also serves as the site's identity. It
// checks the form only; Get checks the destination.
func NormalizeURL(s string) (string, error) {
	s = strings.TrimSpace(s)
	if s == "" {
		return "", newError(ErrInvalidURL, s, "give a website address, such as stripe.com", nil)
	}
	switch {
	case strings.HasPrefix(s, "//"):
		s = "https:" + s
	case !hasScheme(s):
		s = "https://" + s
	}
	u, err := url.Parse(s)
	if err != nil {
		return "", newError(ErrInvalidURL, s, fmt.Sprintf("%q is not a valid website address", s), err)
	}
	u.Scheme = strings.ToLower(u.Scheme)
	if u.Scheme != "http" && u.Scheme != "https" {
		return "", newError(ErrScheme, s, fmt.Sprintf("only http and https addresses can be fetched, not %s:", u.Scheme), nil)
	}
	if u.Host == "" {
		return "", newError(ErrInvalidURL, s, fmt.Sprintf("%q has no host name", s), nil)
	}
	if u.User != nil {
		return "", newError(ErrInvalidURL, s,
			"website addresses with a user name or password are not fetched; give the site's address alone", nil)
	}
	u.Host = strings.ToLower(u.Host)
	if !isASCII(u.Host) {
		// Punycode, as it goes on the wire, so one site has one spelling.
		a, err := idna.Lookup.ToASCII(u.Hostname())
		if err != nil {
			return "", newError(ErrInvalidURL, s, fmt.Sprintf("%q is not a valid host name", u.Hostname()), err)
		}
		if p := u.Port(); p != "" {
			a = net.JoinHostPort(a, p)
		}
		u.Host = a
	}
	u.Fragment, u.RawFragment = "", ""
	if u.Path == "" && u.RawPath == "" {
		u.Path = "/"
	}
	return u.String(), nil
}

// hasScheme reports whether s starts with "scheme:" — but not "host:port",
// so "localhost:8080" gets https:// added while "ftp:x" keeps its scheme.
func hasScheme(s string) bool {
	i := strings.IndexByte(s, ':')
	if i <= 0 {
		return false
	}
	for j := 0; j < i; j++ {
		c := s[j]
		letter := c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
		if !letter && (j == 0 || !(c >= '0' && c <= '9' || c == '+' || c == '-' || c == '.')) {
			return false
		}
	}
	rest := s[i+1:]
	return !(rest != "" && rest[0] >= '0' && rest[0] <= '9')
}
