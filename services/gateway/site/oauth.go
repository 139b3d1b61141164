package site

import (
	"errors"
	"fmt"
	"net/http"
	"net/url"
	"strings"

	"chartd.dev/libs/oauth"
	"chartd.dev/libs/people"
	"chartd.dev/libs/store"
)

// authorizeParams are the authorization request's parameters the consent
// form carries back.
func authorizeParams() []string {
	return []string{"client_id", "redirect_uri", "response_type", "scope", "state", "code_challenge", "code_challenge_method", "resource"}
}

// consentData is the consent page.
type consentData struct {
	App         string
	RedirectURI string
	// Resource is what the tokens will be for (RFC 8707).
	Resource string
	Scopes   []scopeRow
	Fields   []field
}

type scopeRow struct{ Name, Text string }

type field struct{ Name, Value string }

// issuer is the authorization server's issuer: the public URL.
func (s *Site) issuer() string { return strings.TrimRight(s.cfg.PublicURL, "/") }

// checkAuthorize validates an authorization request, answering a refused
// one with an error page. Errors are never sent to the app's redirect URI
// without the person's say (RFC 9700 §4.11.2): every app registers itself
// (RFC 7591), so none is first-party, and a redirect URI anyone
// registered could be a phishing page. The page offers the way back.
func (s *Site) checkAuthorize(w http.ResponseWriter, r *http.Request, q url.Values) (oauth.Request, bool, error) {
	req, err := s.deps.OAuth.CheckAuthorize(r.Context(), q)
	var oe *oauth.Error
	var rd *oauth.Redirectable
	switch {
	case err == nil:
		return req, true, nil
	case errors.As(err, &rd):
		return req, false, &pageError{status: http.StatusBadRequest, msg: "This app's request cannot be accepted: " + rd.Err.Description + ".",
			back: oauth.DenyURL(rd.RedirectURI, rd.State, rd.Err.Code, rd.Err.Description, s.issuer())}
	case errors.As(err, &oe):
		return req, false, &pageError{status: http.StatusBadRequest, msg: "This app's request cannot be accepted: " + oe.Description + "."}
	}
	return req, false, err
}

// consentCSP lets the consent form's answer redirect to the app: browsers
// hold a form's redirects to form-action too.
func consentCSP(redirectURI string) string {
	target := "'self'"
	if u, err := url.Parse(redirectURI); err == nil {
		switch u.Scheme {
		case "http", "https":
			target += " " + u.Scheme + "://" + u.Host
		default:
			target += " " + u.Scheme + ":"
		}
	}
	return strings.Replace(csp, "form-action 'self'", "form-action "+target, 1)
}

// authorize shows the consent page: the app's name and the scopes it
// asks for. Without a session it sends the person to sign in first and
// back here after.
func (s *Site) authorize(w http.ResponseWriter, r *http.Request) error {
	if s.deps.OAuth == nil {
		return notFound()
	}
	v, ok, err := s.visitor(r)
	if err != nil {
		return err
	}
	if !ok {
		http.Redirect(w, r, "/signin?next="+url.QueryEscape(r.URL.RequestURI()), http.StatusSeeOther)
		return nil
	}
	q := r.URL.Query()
	req, ok, err := s.checkAuthorize(w, r, q)
	if err != nil || !ok {
		return err
	}
	d := consentData{App: req.Client.Name, RedirectURI: req.RedirectURI, Resource: req.Resource}
	if d.Resource == "" {
		d.Resource = s.issuer()
	}
	for _, sc := range req.Scopes {
		d.Scopes = append(d.Scopes, scopeRow{Name: sc, Text: oauth.Describe(sc)})
	}
	for _, name := range authorizeParams() {
		if v := q.Get(name); v != "" {
			d.Fields = append(d.Fields, field{Name: name, Value: v})
		}
	}
	w.Header().Set("Content-Security-Policy", consentCSP(req.RedirectURI))
	s.render(w, r, http.StatusOK, "consent", view{Title: "Connect " + req.Client.Name, SignedIn: true, Email: v.user.Email, CSRF: people.CSRFToken(v.token), Data: d})
	return nil
}

// decide records the person's answer on the consent page and sends the
// browser back to the app with a code, or with access_denied.
func (s *Site) decide(w http.ResponseWriter, r *http.Request) error {
	if s.deps.OAuth == nil {
		return notFound()
	}
	v, ok, err := s.writeVisit(w, r)
	if err != nil || !ok {
		return err
	}
	q := url.Values{}
	for _, name := range authorizeParams() {
		if val := r.PostFormValue(name); val != "" {
			q.Set(name, val)
		}
	}
	req, ok, err := s.checkAuthorize(w, r, q)
	if err != nil || !ok {
		return err
	}
	if r.PostFormValue("decision") != "allow" {
		http.Redirect(w, r, oauth.DenyURL(req.RedirectURI, req.State, "access_denied", "the person did not allow the connection", s.issuer()), http.StatusSeeOther)
		return nil
	}
	to, err := s.deps.OAuth.Approve(r.Context(), req, v.account.ID, s.issuer())
	if err != nil {
		return fmt.Errorf("approve %s: %w", req.Client.ID, err)
	}
	s.deps.Log.InfoContext(r.Context(), "app connected", "account", v.account.ID, "client", req.Client.ID, "scopes", strings.Join(req.Scopes, " "))
	http.Redirect(w, r, to, http.StatusSeeOther)
	return nil
}

// disconnectApp revokes a connected app: its next call is refused and its
// refresh token is dead.
func (s *Site) disconnectApp(w http.ResponseWriter, r *http.Request) error {
	v, ok, err := s.writeVisit(w, r)
	if err != nil || !ok {
		return err
	}
	if s.deps.OAuth == nil {
		return notFound()
	}
	err = s.deps.OAuth.Disconnect(r.Context(), v.account.ID, r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) {
		return notFound()
	}
	if err != nil {
		return fmt.Errorf("disconnect app: %w", err)
	}
	http.Redirect(w, r, "/account#apps", http.StatusSeeOther)
	return nil
}

// connectedApps lists the account's connected apps for the account page.
func (s *Site) connectedApps(r *http.Request, accountID string) ([]store.OAuthGrant, error) {
	if s.deps.OAuth == nil {
		return nil, nil
	}
	apps, err := s.deps.OAuth.Connections(r.Context(), accountID)
	if err != nil {
		return nil, fmt.Errorf("connected apps: %w", err)
	}
	return apps, nil
}
