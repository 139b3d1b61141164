// Package site is chartd's website: the landing page, sign-up, sign-in
// and sign-out, the account page (usage, API keys, signing keys, connected
// apps), the chart list and the editor at every chart's url. Pages are
// server-rendered with html/template; the little JavaScript they use is
// served as files (no inline script, a strict CSP) and edits charts
// through the public API with the session cookie and the CSRF header, so
// the page and the API never disagree. The gateway mounts the site and
// limits it per client address like its public routes.
package site

import (
	"context"
	"crypto/hmac"
	"crypto/sha256"
	"embed"
	"encoding/base64"
	"errors"
	"fmt"
	"html/template"
	"io/fs"
	"log/slog"
	"net/http"
	"net/url"
	"strings"
	"time"

	"chartd.dev/charts"
	"chartd.dev/libs/clientip"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/gallery"
	"chartd.dev/libs/mail"
	"chartd.dev/libs/oauth"
	"chartd.dev/libs/people"
	"chartd.dev/libs/quota"
	"chartd.dev/libs/revoke"
	"chartd.dev/libs/route"
	"chartd.dev/libs/secrets"
	"chartd.dev/libs/store"
)

//go:embed templates/*.html
var templateFS embed.FS

//go:embed static
var staticFS embed.FS

// Name is the site's name in logs and spans.
const Name = "site"

// Store is what the site reads and writes directly: accounts and their
// keys, the people, and the chart list (read-only: charts change only
// through the API).
type Store interface {
	store.Accounts
	store.People
	GetChart(ctx context.Context, accountID, id string) (store.Chart, error)
	FindCharts(ctx context.Context, accountID string, q store.ChartSearch) ([]store.Chart, bool, error)
}

// Deps are the parts the site is built from.
type Deps struct {
	People  *people.People
	Store   Store
	Limiter quota.Limiter
	Charts  clients.Chart
	Renders clients.Render
	// Box seals new signing keys on rotation; without it (a gateway run
	// apart from the render service) rotation revokes the live keys and
	// the render service makes the next key with the next link.
	Box *secrets.Box
	Log *slog.Logger
	// Now is the clock; time.Now when nil.
	Now func() time.Time
	// OAuth, when set, serves the consent page for assistants and lists
	// connected apps on the account page.
	OAuth *oauth.Server
	// Proxies are the trusted proxies in front of the gateway
	// (-gateway.trusted-proxies): the sign-in throttle's client address
	// is read behind them. None: the connection's address.
	Proxies clientip.Proxies
	// Gallery, when set, has the example pictures the home page shows,
	// drawn by the render service.
	Gallery *gallery.Source
	// Revocations, when set, are told of each API-key and signing-key
	// revocation, so every process's caches drop the key at once.
	Revocations revoke.Notifier
	// Mail sends the sign-up mails (confirmation links and notices).
	Mail mail.Sender
}

// Site serves the pages.
type Site struct {
	cfg    route.Site
	deps   Deps
	secure bool
	origin string
	pages  map[string]*template.Template
	static http.Handler
	mux    *http.ServeMux
	// catalog is the chart types, for the new-chart page's roles.
	catalog *charts.Catalog
}

// New builds the site for the public URL in cfg.
func New(cfg route.Site, deps Deps) (*Site, error) {
	if deps.People == nil || deps.Store == nil || deps.Limiter == nil || deps.Mail == nil {
		return nil, errors.New("site: people, store, limiter and mail are required")
	}
	if deps.Now == nil {
		deps.Now = time.Now
	}
	if deps.Log == nil {
		deps.Log = slog.New(slog.DiscardHandler)
	}
	u, err := url.Parse(cfg.PublicURL)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("site: public url %q: %v", cfg.PublicURL, err)
	}
	s := &Site{cfg: cfg, deps: deps, secure: u.Scheme == "https", origin: u.Scheme + "://" + u.Host, pages: map[string]*template.Template{}}
	for _, name := range []string{"home", "signin", "signup", "link", "account", "charts", "editor", "error", "consent", "new", "checkmail", "confirm"} {
		t, err := template.New("layout.html").Funcs(funcs).ParseFS(templateFS, "templates/layout.html", "templates/"+name+".html")
		if err != nil {
			return nil, fmt.Errorf("site template %s: %w", name, err)
		}
		s.pages[name] = t
	}
	if s.catalog, err = charts.Load(); err != nil {
		return nil, fmt.Errorf("site chart catalog: %w", err)
	}
	sub, err := fs.Sub(staticFS, "static")
	if err != nil {
		return nil, fmt.Errorf("site static files: %w", err)
	}
	s.static = http.StripPrefix("/static/", http.FileServerFS(sub))
	s.mux = http.NewServeMux()
	for _, e := range endpoints() {
		h := e.Handle
		s.mux.Handle(e.Method+" "+muxPattern(e.Path), http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			s.headers(w)
			if err := h(s, w, r); err != nil {
				s.fail(w, r, err)
			}
		}))
	}
	return s, nil
}

// muxPattern spells a route path for the ServeMux (an exact "/").
func muxPattern(p string) string {
	if p == "/" {
		return "/{$}"
	}
	return p
}

var funcs = template.FuncMap{
	"pct": func(used, limit int) int {
		if limit <= 0 {
			return 0
		}
		return min(100, used*100/limit)
	},
	"when": func(t time.Time) string { return t.UTC().Format("2006-01-02 15:04 UTC") },
	"in": func(secs int) string {
		d := time.Duration(secs) * time.Second
		switch {
		case d < time.Minute:
			return fmt.Sprintf("%d s", secs)
		case d < time.Hour:
			return fmt.Sprintf("%d min", int(d.Minutes()))
		case d < 48*time.Hour:
			return fmt.Sprintf("%d h %d min", int(d.Hours()), int(d.Minutes())%60)
		}
		return fmt.Sprintf("%d days", int(d.Hours()/24))
	},
}

// Handler serves every page of the site.
func (s *Site) Handler() http.Handler { return s.mux }

// endpoints is the site's route table; every route is public to the
// gateway, which limits it per client address, and the pages check the
// session themselves.
func endpoints() []route.Endpoint[*Site] {
	get, post := http.MethodGet, http.MethodPost
	e := func(op, method, path string, h func(*Site, http.ResponseWriter, *http.Request) error) route.Endpoint[*Site] {
		return route.Endpoint[*Site]{Route: route.Route{Op: op, Method: method, Path: path, Access: route.Public}, Handle: h}
	}
	return []route.Endpoint[*Site]{
		e("site_home", get, "/", (*Site).home),
		e("site_home_fonts", get, "/home/fonts.css", (*Site).homeFonts),
		e("site_try", post, "/try", (*Site).try),
		e("site_static", get, "/static/{file}", (*Site).serveStatic),
		e("site_favicon", get, "/favicon.svg", (*Site).serveFavicon),
		e("site_embed_js", get, "/embed.js", (*Site).serveEmbedJS),
		e("site_favicon_ico", get, "/favicon.ico", (*Site).serveFavicon),
		e("site_signup_form", get, "/signup", (*Site).signupForm),
		e("site_signup", post, "/signup", (*Site).signup),
		e("site_signup_confirm_form", get, "/signup/confirm", (*Site).confirmForm),
		e("site_signup_confirm", post, "/signup/confirm", (*Site).confirm),
		e("site_signin_form", get, "/signin", (*Site).signinForm),
		e("site_signin", post, "/signin", (*Site).signin),
		e("site_link_form", get, "/signin/link", (*Site).linkForm),
		e("site_link", post, "/signin/link", (*Site).useLink),
		e("site_signout", post, "/signout", (*Site).signout),
		e("site_account", get, "/account", (*Site).account),
		e("site_key_create", post, "/account/keys", (*Site).createKey),
		e("site_keys", get, "/account/keys", (*Site).keysPage),
		e("site_key_revoke", post, "/account/keys/{id}/revoke", (*Site).revokeKey),
		e("site_signing_rotate", post, "/account/signing-keys/rotate", (*Site).rotateSigning),
		e("site_signing_revoke", post, "/account/signing-keys/{kid}/revoke", (*Site).revokeSigning),
		e("site_charts", get, "/charts", (*Site).charts),
		e("site_new_chart", get, "/charts/new", (*Site).newChart),
		e("site_new_read", post, "/charts/new/read", jsonHandler((*Site).readNew)),
		e("site_new_xlsx", post, "/charts/new/xlsx", jsonHandler((*Site).readXLSX)),
		e("site_new_sketches", post, "/charts/new/sketches", jsonHandler((*Site).sketchNew)),
		e("site_preview", post, "/charts/{id}/preview.svg", jsonHandler((*Site).previewChart)),
		e("site_editor", get, "/charts/{id}", (*Site).editor),
		e("site_thumbnail", get, "/charts/{id}/thumbnail.svg", (*Site).thumbnail),
		e("site_oauth_consent", get, "/oauth/authorize", (*Site).authorize),
		e("site_oauth_decide", post, "/oauth/authorize", (*Site).decide),
		e("site_app_disconnect", post, "/account/apps/{id}/disconnect", (*Site).disconnectApp),
	}
}

// Routes is the site's route table, for the gateway.
func Routes() []route.Route { return route.Routes(endpoints()) }

// csp allows only the site's own files: no inline script or style, no
// framing, forms posting only here; previews are blob: images, and the
// editor's preview of a responsive embed is a frame of the site's own.
const csp = "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self' blob: data:; font-src data:; connect-src 'self'; " +
	"frame-src 'self'; form-action 'self'; frame-ancestors 'none'; base-uri 'none'"

// headers sets the security headers of every site answer.
func (s *Site) headers(w http.ResponseWriter) {
	h := w.Header()
	h.Set("Content-Security-Policy", csp)
	h.Set("X-Content-Type-Options", "nosniff")
	h.Set("X-Frame-Options", "DENY")
	h.Set("Referrer-Policy", "same-origin")
	h.Set("Cross-Origin-Opener-Policy", "same-origin")
	if s.secure {
		h.Set("Strict-Transport-Security", "max-age=31536000")
	}
}

// pageError is a refusal shown as a page: its status and what to say.
type pageError struct {
	status int
	msg    string
	// back, when set, is a link the person may follow to leave (an app's
	// redirect URI with the error), never followed without them.
	back string
}

func (e *pageError) Error() string { return e.msg }

func notFound() error {
	return &pageError{status: http.StatusNotFound, msg: "There is no such page here, or it belongs to another account."}
}

// fail renders err as an error page; causes other than a pageError are
// logged and shown as a plain failure.
func (s *Site) fail(w http.ResponseWriter, r *http.Request, err error) {
	var pe *pageError
	if !errors.As(err, &pe) {
		s.deps.Log.ErrorContext(r.Context(), "site page failed", "path", r.URL.Path, "err", err)
		pe = &pageError{status: http.StatusInternalServerError, msg: "Something went wrong on our side; try again in a moment."}
	}
	v := view{Title: http.StatusText(pe.status), Message: pe.msg}
	if pe.back != "" {
		v.Data = pe.back
	}
	s.render(w, r, pe.status, "error", v)
}

// view is what every template gets.
type view struct {
	Title   string
	Message string
	Error   string
	// CSRF is the token forms and fetches carry.
	CSRF     string
	SignedIn bool
	Email    string
	Next     string
	Data     any
}

// render writes a page. Pages carry CSRF tokens, so no cache keeps them.
func (s *Site) render(w http.ResponseWriter, r *http.Request, status int, page string, v view) {
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	if err := s.pages[page].Execute(w, v); err != nil {
		s.deps.Log.ErrorContext(r.Context(), "site template", "page", page, "err", err)
	}
}

func (s *Site) serveStatic(w http.ResponseWriter, r *http.Request) error {
	w.Header().Set("Cache-Control", "public, max-age=300")
	s.static.ServeHTTP(w, r)
	return nil
}

// serveEmbedJS answers {site_url}/embed.js, the script a host page loads
// beside an embed's frame to give the frame its page's height.
func (s *Site) serveEmbedJS(w http.ResponseWriter, r *http.Request) error {
	b, err := staticFS.ReadFile("static/embed.js")
	if err != nil {
		return fmt.Errorf("embed.js: %w", err)
	}
	h := w.Header()
	h.Set("Content-Type", "text/javascript; charset=utf-8")
	h.Set("Cache-Control", "public, max-age=300")
	// host pages of every origin load it
	h.Set("Cross-Origin-Resource-Policy", "cross-origin")
	w.Write(b)
	return nil
}

// clientAddr is the sign-in throttle's key for the request's client
// address, read behind the trusted proxies.
func (s *Site) clientAddr(r *http.Request) string {
	return s.deps.Proxies.ClientIP(r)
}

// visit is the signed-in person of a request.
type visit struct {
	token   string
	session store.Session
	account store.Account
	user    store.User
}

// visitor answers the request's session; ok false when there is none.
func (s *Site) visitor(r *http.Request) (visit, bool, error) {
	c, err := r.Cookie(people.CookieName)
	if err != nil || c.Value == "" {
		return visit{}, false, nil
	}
	se, acct, err := s.deps.People.Resolve(r.Context(), c.Value)
	if errors.Is(err, store.ErrNotFound) {
		return visit{}, false, nil
	}
	if err != nil {
		return visit{}, false, err
	}
	u, err := s.deps.Store.GetUser(r.Context(), se.AccountID, se.UserID)
	if err != nil {
		return visit{}, false, fmt.Errorf("session user: %w", err)
	}
	return visit{token: c.Value, session: se, account: acct, user: u}, true, nil
}

// mustVisit answers the signed-in person, or sends the browser to sign
// in (and back here after) and answers ok false.
func (s *Site) mustVisit(w http.ResponseWriter, r *http.Request) (visit, bool, error) {
	v, ok, err := s.visitor(r)
	if err != nil || ok {
		return v, ok, err
	}
	http.Redirect(w, r, "/signin?next="+url.QueryEscape(r.URL.Path), http.StatusSeeOther)
	return visit{}, false, nil
}

// checkWrite refuses a form post whose CSRF token is not the session's,
// or that comes from another origin.
func (s *Site) checkWrite(r *http.Request, sessionToken string) error {
	if o := r.Header.Get("Origin"); o != "" && o != s.origin {
		return &pageError{status: http.StatusForbidden, msg: "This form was sent from another site; open the page here and try again."}
	}
	if !people.CheckCSRF(sessionToken, r.PostFormValue("csrf")) {
		return &pageError{status: http.StatusForbidden, msg: "This form has expired or was not sent from this site; reload the page and try again."}
	}
	return nil
}

// setSession sends the session cookie: HttpOnly, SameSite=Lax, Secure
// when the site is on https.
func (s *Site) setSession(w http.ResponseWriter, token string) {
	http.SetCookie(w, &http.Cookie{Name: people.CookieName, Value: token, Path: "/", MaxAge: int(s.deps.People.SessionTTL() / time.Second),
		HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode})
}

// clearCookie removes a cookie with the same attributes it was set with.
func (s *Site) clearCookie(w http.ResponseWriter, name string) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: "", Path: "/", MaxAge: -1, HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode})
}

// preCookie guards the forms shown before a session exists (sign-in,
// sign-up, link): a random cookie whose derived token the form carries,
// so another site cannot sign a browser in to its own account.
const preCookie = "chartd_pre"

// preToken answers the form token of the request's pre-session cookie,
// setting a fresh cookie when there is none, or one the site did not
// issue.
func (s *Site) preToken(w http.ResponseWriter, r *http.Request) string {
	if c, err := r.Cookie(preCookie); err == nil && s.preIssued(c.Value) {
		return people.CSRFToken(c.Value)
	}
	nonce, _ := people.NewToken()
	v := nonce + "." + s.preMAC(nonce)
	http.SetCookie(w, &http.Cookie{Name: preCookie, Value: v, Path: "/", MaxAge: 3600, HttpOnly: true, Secure: s.secure, SameSite: http.SameSiteLaxMode})
	return people.CSRFToken(v)
}

// preMAC signs a pre-session cookie's random part with the internal
// token, which every replica shares: a value a client (or a page on a
// sibling domain that can set cookies) chose never passes.
func (s *Site) preMAC(nonce string) string {
	m := hmac.New(sha256.New, []byte("chartd-pre-v1\n"+s.cfg.InternalToken))
	m.Write([]byte(nonce))
	return base64.RawURLEncoding.EncodeToString(m.Sum(nil))
}

// preIssued tells, in constant time, whether a pre-session cookie is one
// the site issued.
func (s *Site) preIssued(v string) bool {
	nonce, mac, ok := strings.Cut(v, ".")
	return ok && len(nonce) == 43 && hmac.Equal([]byte(mac), []byte(s.preMAC(nonce)))
}

// checkPre checks a pre-session form's token against its cookie, which
// must be one the site issued, and that a page of the site sent it
// (fromSite). The cookie alone is not enough: one taken from the site and
// planted in a victim's browser, with its token, would sign the victim in
// to the attacker's account (login CSRF); a browser names the page that
// really sent a form, and no page elsewhere can name this site's.
func (s *Site) checkPre(r *http.Request) error {
	if !fromSite(s.origin, r.Header) {
		return &pageError{status: http.StatusForbidden, msg: "This form was not sent from a page of this site; open the page here and try again."}
	}
	c, err := r.Cookie(preCookie)
	if err != nil || !s.preIssued(c.Value) {
		return s.checkWrite(r, "")
	}
	return s.checkWrite(r, c.Value)
}

// fromSite tells whether a browser's form post came from a page of the
// site at origin: its Origin header is origin, or, when it sent none, its
// Referer is a page of origin (the site's Referrer-Policy same-origin
// keeps the Referer on its own requests). A post with neither, or with
// Origin "null", is not known to come from the site.
func fromSite(origin string, h http.Header) bool {
	if o := h.Get("Origin"); o != "" {
		return o == origin
	}
	ref, err := url.Parse(h.Get("Referer"))
	if err != nil || ref.Host == "" {
		return false
	}
	return ref.Scheme+"://"+ref.Host == origin
}

// safeNext keeps a post-sign-in destination on this site: a path (and
// query) only, with no scheme, no host, no backslash and no control byte.
// Browsers drop TAB, CR and LF inside a URL, so "/\t/evil.example" would
// become the network-path reference "//evil.example"; any byte below 0x20
// (or DEL) is refused rather than stripped.
func safeNext(next string) string {
	const home = "/charts"
	if !strings.HasPrefix(next, "/") || strings.HasPrefix(next, "//") {
		return home
	}
	for i := 0; i < len(next); i++ {
		if c := next[i]; c < 0x20 || c == 0x7f || c == '\\' {
			return home
		}
	}
	u, err := url.Parse(next)
	if err != nil || u.Scheme != "" || u.Host != "" || u.User != nil || u.Opaque != "" || !strings.HasPrefix(u.Path, "/") || strings.HasPrefix(u.Path, "//") {
		return home
	}
	return next
}
