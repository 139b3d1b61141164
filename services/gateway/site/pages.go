package site

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"github.com/google/uuid"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/mail"
	"chartd.dev/libs/people"
	"chartd.dev/libs/plan"
	"chartd.dev/libs/quota"
	"chartd.dev/libs/revoke"
	"chartd.dev/libs/signing"
	"chartd.dev/libs/store"
)

func (s *Site) signupForm(w http.ResponseWriter, r *http.Request) error {
	if mail.IsOff(s.deps.Mail) {
		s.signupOff(w, r)
		return nil
	}
	s.render(w, r, http.StatusOK, "signup", view{Title: "Sign up", CSRF: s.preToken(w, r)})
	return nil
}

// signupOff answers the sign-up pages of a server that cannot mail the
// links sign-up needs (no SMTP server, not a local trial): saying so, and
// who can change it, rather than a form whose mail never comes.
func (s *Site) signupOff(w http.ResponseWriter, r *http.Request) {
	s.render(w, r, http.StatusServiceUnavailable, "error", view{Title: "Sign-up is off",
		Message: "Sign-up is off on this server: it has no mail server to send the sign-up link. Its operator must set -gateway.mail.smtp-url " +
			"(secrets.smtpURL in the Helm chart). If you already have an account, sign in."})
}

func (s *Site) signinForm(w http.ResponseWriter, r *http.Request) error {
	s.render(w, r, http.StatusOK, "signin", view{Title: "Sign in", CSRF: s.preToken(w, r), Next: safeNext(r.URL.Query().Get("next"))})
	return nil
}

// authFailure turns a sign-in or sign-up refusal into what the form says,
// or answers false when it is a failure of ours.
func authFailure(err error) (string, int, bool) {
	switch {
	case errors.Is(err, people.ErrThrottled):
		return "Too many attempts; wait a minute and try again.", http.StatusTooManyRequests, true
	case errors.Is(err, people.ErrBadCredentials):
		return "Wrong email or password.", http.StatusUnauthorized, true
	case errors.Is(err, people.ErrBadEmail):
		return "Enter one email address, such as ada@example.com.", http.StatusBadRequest, true
	case errors.Is(err, people.ErrBadPassword):
		return fmt.Sprintf("Choose a password of %d to %d characters.", people.MinPasswordLen, people.MaxPasswordLen), http.StatusBadRequest, true
	case errors.Is(err, store.ErrNotFound):
		return "This sign-in link has been used or has expired; ask for a new one.", http.StatusUnauthorized, true
	}
	return "", 0, false
}

// signup starts a sign-up and answers the same page whether or not the
// email has an account: a mail tells its owner which (a confirmation link,
// or a notice with a sign-in link), so only the mailbox learns it.
func (s *Site) signup(w http.ResponseWriter, r *http.Request) error {
	if mail.IsOff(s.deps.Mail) {
		s.signupOff(w, r)
		return nil
	}
	if err := s.checkPre(r); err != nil {
		return err
	}
	email := r.PostFormValue("email")
	started, err := s.deps.People.BeginSignUp(r.Context(), s.clientAddr(r), email, r.PostFormValue("password"))
	if err != nil {
		msg, status, ok := authFailure(err)
		if !ok {
			return err
		}
		s.render(w, r, status, "signup", view{Title: "Sign up", CSRF: s.preToken(w, r), Error: msg, Email: email})
		return nil
	}
	if err := s.deps.Mail.Send(r.Context(), people.SignUpMail(strings.TrimRight(s.cfg.PublicURL, "/"), started)); err != nil {
		return fmt.Errorf("sign-up mail: %w", err)
	}
	s.render(w, r, http.StatusOK, "checkmail", view{Title: "Check your inbox", Email: started.Email})
	return nil
}

// confirmForm shows a button that spends a sign-up's confirmation link:
// a GET never spends it, so a mail scanner's prefetch cannot.
func (s *Site) confirmForm(w http.ResponseWriter, r *http.Request) error {
	s.render(w, r, http.StatusOK, "confirm", view{Title: "Finish signing up", CSRF: s.preToken(w, r), Data: r.URL.Query().Get("token")})
	return nil
}

// confirm makes the account of a confirmed sign-up, signs its person in
// and takes them to New chart, welcomed: making a chart is what they came
// for (the account page's usage bars and keys can wait).
func (s *Site) confirm(w http.ResponseWriter, r *http.Request) error {
	return s.spendToken(w, r, oneTimeLink{
		spend: s.deps.People.ConfirmSignUp,
		page:  "signup",
		view:  view{Title: "Sign up"},
		failure: func(err error, msg string, status int) (string, int) {
			if errors.Is(err, store.ErrNotFound) {
				return "This sign-up link has been used or has expired. Sign up again, or sign in if you have an account.", http.StatusGone
			}
			return msg, status
		},
		next: welcomePath,
	})
}

func (s *Site) signin(w http.ResponseWriter, r *http.Request) error {
	if err := s.checkPre(r); err != nil {
		return err
	}
	email, next := r.PostFormValue("email"), safeNext(r.PostFormValue("next"))
	tok, _, err := s.deps.People.SignIn(r.Context(), s.clientAddr(r), email, r.PostFormValue("password"))
	if err != nil {
		msg, status, ok := authFailure(err)
		if !ok {
			return err
		}
		s.render(w, r, status, "signin", view{Title: "Sign in", CSRF: s.preToken(w, r), Error: msg, Email: email, Next: next})
		return nil
	}
	s.setSession(w, tok)
	http.Redirect(w, r, next, http.StatusSeeOther)
	return nil
}

// linkForm shows a button that spends a one-time sign-in link: a GET
// never spends it, so a link preview or prefetch cannot.
func (s *Site) linkForm(w http.ResponseWriter, r *http.Request) error {
	s.render(w, r, http.StatusOK, "link", view{Title: "Sign in", CSRF: s.preToken(w, r), Data: r.URL.Query().Get("token")})
	return nil
}

// useLink spends a one-time sign-in link and takes its person to their
// account.
func (s *Site) useLink(w http.ResponseWriter, r *http.Request) error {
	return s.spendToken(w, r, oneTimeLink{
		spend: s.deps.People.UseLink,
		page:  "signin",
		view:  view{Title: "Sign in", Next: "/charts"},
		next:  "/account",
	})
}

// oneTimeLink is what tells the site's two one-time-link flows (a
// sign-up's confirmation, a sign-in link) apart; spendToken does the rest.
type oneTimeLink struct {
	// spend spends the link's token and gives the new session's token.
	spend func(ctx context.Context, addr, token string) (string, store.Session, error)
	// page and view are the form shown again, with the reason, when the
	// link cannot be spent.
	page string
	view view
	// failure, when set, rewords the message and status authFailure gives.
	failure func(err error, msg string, status int) (string, int)
	// next is where a spent link takes its person.
	next string
}

// spendToken is the one path of a one-time link's POST: check the form's
// pre-session token, spend the link, set the session and redirect; a
// failure people can act on shows the flow's form again with the reason.
func (s *Site) spendToken(w http.ResponseWriter, r *http.Request, l oneTimeLink) error {
	if err := s.checkPre(r); err != nil {
		return err
	}
	tok, _, err := l.spend(r.Context(), s.clientAddr(r), r.PostFormValue("token"))
	if err != nil {
		msg, status, ok := authFailure(err)
		if !ok {
			return err
		}
		if l.failure != nil {
			msg, status = l.failure(err, msg, status)
		}
		v := l.view
		v.CSRF, v.Error = s.preToken(w, r), msg
		s.render(w, r, status, l.page, v)
		return nil
	}
	s.setSession(w, tok)
	http.Redirect(w, r, l.next, http.StatusSeeOther)
	return nil
}

func (s *Site) signout(w http.ResponseWriter, r *http.Request) error {
	v, ok, err := s.visitor(r)
	if err != nil {
		return err
	}
	if ok {
		if err := s.checkWrite(r, v.token); err != nil {
			return err
		}
		if err := s.deps.People.End(r.Context(), v.session); err != nil {
			return err
		}
	}
	s.clearCookie(w, people.CookieName)
	http.Redirect(w, r, "/", http.StatusSeeOther)
	return nil
}

// usage is one bar of the account page.
type usage struct {
	Label, Unit   string
	Used, Limit   int
	ResetsSeconds int
	Reset         bool
}

// ShowReset says whether the bar says when it resets: only when some of
// it is used and the reset is ahead. A full request bucket has nothing to
// reset ("resets in 0 s" said nothing).
func (u usage) ShowReset() bool { return u.Reset && u.Used > 0 && u.ResetsSeconds > 0 }

// keyRow is an API key as the account page lists it.
type keyRow struct {
	store.APIKey
	LastUsed *time.Time
}

// accountData is the account page.
type accountData struct {
	Plan      string
	Usage     []usage
	Keys      []keyRow
	NewKey    string
	NewName   string
	Signing   []store.SigningKey
	Apps      []store.OAuthGrant
	Notice    string
	Rotatable bool
	// LiveSigning is set when a signing key is live: the button rotates
	// it; else the button creates the first one.
	LiveSigning bool
}

func (s *Site) account(w http.ResponseWriter, r *http.Request) error {
	v, ok, err := s.mustVisit(w, r)
	if err != nil || !ok {
		return err
	}
	f := s.takeFlash(w, r, v.token)
	return s.showAccount(w, r, v, accountData{NewKey: f.Key, NewName: f.Name, Notice: f.Notice})
}

// showAccount renders the account page with the account's current usage
// and keys; d carries what the last action has to say.
func (s *Site) showAccount(w http.ResponseWriter, r *http.Request, v visit, d accountData) error {
	ctx := r.Context()
	p := auth.Principal{AccountID: v.account.ID, Plan: v.account.Plan}
	lim := plan.LimitsOf(p.Plan)
	used, err := s.deps.Charts.CountCharts(ctx, p)
	if err != nil {
		return fmt.Errorf("count charts: %w", err)
	}
	u, err := s.deps.Renders.Usage(ctx, p)
	if err != nil {
		return fmt.Errorf("render usage: %w", err)
	}
	// The gateway's own key for the account's request allowance.
	req, err := s.deps.Limiter.Peek(ctx, "acct:"+p.AccountID, quota.Limit{Rate: lim.RequestsPerMinute, Period: plan.RequestPeriod})
	if err != nil {
		return fmt.Errorf("request allowance: %w", err)
	}
	now := s.deps.Now()
	d.Plan = p.Plan
	d.Usage = []usage{
		{Label: "Saved charts", Unit: "charts", Used: used, Limit: lim.SavedCharts},
		{Label: "Requests this minute", Unit: "requests", Used: max(0, req.Limit-req.Remaining), Limit: req.Limit, ResetsSeconds: quota.CeilSeconds(req.ResetAfter), Reset: true},
		{Label: "Renders today", Unit: "renders", Used: u.Renders, Limit: lim.DailyRenders, ResetsSeconds: quota.CeilSeconds(quota.Day.Reset(now)), Reset: true},
		{Label: "Image renders this month", Unit: "pictures", Used: u.ImageRenders, Limit: lim.MonthlyImages, ResetsSeconds: quota.CeilSeconds(quota.Month.Reset(now)), Reset: true},
	}
	keys, err := s.deps.Store.ListAPIKeys(ctx, p.AccountID)
	if err != nil {
		return err
	}
	uses, err := s.deps.Store.APIKeysLastUsed(ctx, p.AccountID)
	if err != nil {
		return err
	}
	for _, k := range keys {
		if k.RevokedAt != nil {
			continue
		}
		row := keyRow{APIKey: k}
		if t, ok := uses[k.ID]; ok {
			row.LastUsed = &t
		}
		d.Keys = append(d.Keys, row)
	}
	if d.Signing, err = s.deps.Store.ListSigningKeys(ctx, p.AccountID); err != nil {
		return err
	}
	for _, k := range d.Signing {
		d.LiveSigning = d.LiveSigning || k.RevokedAt == nil
	}
	if d.Apps, err = s.connectedApps(r, p.AccountID); err != nil {
		return err
	}
	d.Rotatable = true
	s.render(w, r, http.StatusOK, "account", view{Title: "Account", SignedIn: true, Email: v.user.Email, CSRF: people.CSRFToken(v.token), Data: d})
	return nil
}

// writeVisit answers the signed-in person of a form post whose CSRF
// token checks out; a post without a session goes to sign-in.
func (s *Site) writeVisit(w http.ResponseWriter, r *http.Request) (visit, bool, error) {
	v, ok, err := s.visitor(r)
	if err != nil {
		return visit{}, false, err
	}
	if !ok {
		http.Redirect(w, r, "/signin?next=/account", http.StatusSeeOther)
		return visit{}, false, nil
	}
	return v, true, s.checkWrite(r, v.token)
}

// maxKeyName bounds an API key's name.
const maxKeyName = 100

func (s *Site) createKey(w http.ResponseWriter, r *http.Request) error {
	v, ok, err := s.writeVisit(w, r)
	if err != nil || !ok {
		return err
	}
	name := strings.TrimSpace(r.PostFormValue("name"))
	if name == "" || len([]rune(name)) > maxKeyName {
		if err := s.setFlash(w, v.token, keyFlash{Notice: fmt.Sprintf("Name the key (1 to %d characters), for example after where it is used.", maxKeyName)}); err != nil {
			return err
		}
		http.Redirect(w, r, "/account#api-keys", http.StatusSeeOther)
		return nil
	}
	key, prefix, hash := auth.NewKey()
	if _, err := s.deps.Store.CreateAPIKey(r.Context(), v.account.ID, name, prefix, hash); err != nil {
		return fmt.Errorf("create api key: %w", err)
	}
	if err := s.setFlash(w, v.token, keyFlash{Key: key, Name: name}); err != nil {
		return err
	}
	http.Redirect(w, r, "/account#api-keys", http.StatusSeeOther)
	return nil
}

func (s *Site) revokeKey(w http.ResponseWriter, r *http.Request) error {
	v, ok, err := s.writeVisit(w, r)
	if err != nil || !ok {
		return err
	}
	err = s.deps.Store.RevokeAPIKey(r.Context(), v.account.ID, r.PathValue("id"))
	if errors.Is(err, store.ErrNotFound) {
		return notFound()
	}
	if err != nil {
		return fmt.Errorf("revoke api key: %w", err)
	}
	s.announce(r.Context(), revoke.Event{Kind: revoke.APIKeys, ID: v.account.ID})
	http.Redirect(w, r, "/account#api-keys", http.StatusSeeOther)
	return nil
}

// rotateSigning makes a new signing key (when this process holds the
// server key) and revokes every live one: the links they signed stop.
func (s *Site) rotateSigning(w http.ResponseWriter, r *http.Request) error {
	v, ok, err := s.writeVisit(w, r)
	if err != nil || !ok {
		return err
	}
	_, revoked, err := signing.Rotate(r.Context(), s.deps.Store, s.deps.Box, v.account.ID)
	if err != nil {
		return fmt.Errorf("rotate signing keys: %w", err)
	}
	for _, kid := range revoked {
		s.announce(r.Context(), revoke.Event{Kind: revoke.SigningKey, ID: kid})
	}
	http.Redirect(w, r, "/account#signing-keys", http.StatusSeeOther)
	return nil
}

func (s *Site) revokeSigning(w http.ResponseWriter, r *http.Request) error {
	v, ok, err := s.writeVisit(w, r)
	if err != nil || !ok {
		return err
	}
	err = s.deps.Store.RevokeSigningKey(r.Context(), v.account.ID, r.PathValue("kid"))
	if errors.Is(err, store.ErrNotFound) {
		return notFound()
	}
	if err != nil {
		return fmt.Errorf("revoke signing key: %w", err)
	}
	s.announce(r.Context(), revoke.Event{Kind: revoke.SigningKey, ID: r.PathValue("kid")})
	http.Redirect(w, r, "/account#signing-keys", http.StatusSeeOther)
	return nil
}

// announce tells every process's caches of a revocation made in the
// store. Failing, it is logged: the caches' TTL bounds the delay then.
func (s *Site) announce(ctx context.Context, e revoke.Event) {
	if s.deps.Revocations == nil {
		return
	}
	if err := s.deps.Revocations.Publish(ctx, e); err != nil {
		s.deps.Log.WarnContext(ctx, "revocation not announced; other processes drop the key within their cache TTL", "kind", string(e.Kind), "err", err.Error())
	}
}

// chartsData is the chart list page: the query, one page of charts, and
// the links to the pages before and after it.
type chartsData struct {
	Query  chartQuery
	Charts []store.Chart
	First  int
	Last   int
	Prev   string
	Next   string
	// Types names the chart types on the cards.
	Types []typeName
}

// TypeName is chart type t as the cards name it.
func (d chartsData) TypeName(t string) string { return labelOf(d.Types, t) }

// charts is the chart list (GET /charts?q=&sort=&page=), of the session's
// account only: its charts by title search, in either order, fifty a page.
func (s *Site) charts(w http.ResponseWriter, r *http.Request) error {
	v, ok, err := s.mustVisit(w, r)
	if err != nil || !ok {
		return err
	}
	q, err := parseChartQuery(r.URL.Query())
	if err != nil {
		return &pageError{status: http.StatusBadRequest, msg: err.Error()}
	}
	find := func(ctx context.Context, cq store.ChartSearch) ([]store.Chart, bool, error) {
		return s.deps.Store.FindCharts(ctx, v.account.ID, cq)
	}
	pg, err := listCharts(r.Context(), find, q)
	if err != nil {
		return fmt.Errorf("list charts: %w", err)
	}
	d := chartsData{Query: q, Charts: pg.Charts, First: pg.First, Last: pg.First + len(pg.Charts) - 1, Types: typeNames(s.catalog)}
	if q.Page > 1 {
		d.Prev = q.Link(q.Page - 1)
	}
	if pg.More {
		d.Next = q.Link(q.Page + 1)
	}
	s.render(w, r, http.StatusOK, "charts", view{Title: "Charts", SignedIn: true, Email: v.user.Email, CSRF: people.CSRFToken(v.token),
		Data: d})
	return nil
}

// thumbnail answers a chart of the session's account drawn small, as SVG,
// for the chart list. It is drawn by the render service without counting
// toward the account's renders (opening the list is not drawing charts),
// for this account's charts only: another account's chart, like a missing
// one, is not found. The list names each thumbnail with the chart's
// version (?v=<updated_at>), so the browser keeps it until the chart
// changes.
func (s *Site) thumbnail(w http.ResponseWriter, r *http.Request) error {
	v, ok, err := s.mustVisit(w, r)
	if err != nil || !ok {
		return err
	}
	id := r.PathValue("id")
	if uuid.Validate(id) != nil {
		return notFound()
	}
	p := auth.Principal{AccountID: v.account.ID, Plan: v.account.Plan}
	th, err := s.deps.Renders.Thumbnail(r.Context(), p, id)
	if err != nil {
		var ae *apierr.Error
		if errors.As(err, &ae) {
			if ae.Code == apierr.NotFound {
				return notFound()
			}
			return &pageError{status: ae.Status(), msg: ae.Message}
		}
		return fmt.Errorf("thumbnail of chart %s: %w", id, err)
	}
	h := w.Header()
	h.Set("Content-Type", "image/svg+xml")
	h.Set("Content-Length", strconv.Itoa(len(th.SVG)))
	// Only this browser keeps it, and only for this session's pages.
	h.Set("Cache-Control", "private, max-age=86400")
	h.Set("Vary", "Cookie")
	// A picture is a document of its own: no script, no fetch, ever.
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; font-src data:; sandbox")
	w.WriteHeader(http.StatusOK)
	_, err = io.WriteString(w, th.SVG)
	if err != nil {
		s.deps.Log.DebugContext(r.Context(), "write thumbnail", "err", err)
	}
	return nil
}

// editorData is the editor page: the chart's id and name; the rest comes
// from the API.
type editorData struct {
	ID, Name string
	// Heading is the chart's title, or its name when it shows none.
	Heading string
}

func (s *Site) editor(w http.ResponseWriter, r *http.Request) error {
	v, ok, err := s.mustVisit(w, r)
	if err != nil || !ok {
		return err
	}
	id := r.PathValue("id")
	if uuid.Validate(id) != nil {
		return notFound()
	}
	c, err := s.deps.Store.GetChart(r.Context(), v.account.ID, id)
	if errors.Is(err, store.ErrNotFound) {
		return notFound()
	}
	if err != nil {
		return fmt.Errorf("load chart: %w", err)
	}
	s.render(w, r, http.StatusOK, "editor", view{Title: c.Name, SignedIn: true, Email: v.user.Email, CSRF: people.CSRFToken(v.token),
		Data: editorData{ID: c.ID, Name: c.Name, Heading: chartHeading(c.Spec, c.Name)}})
	return nil
}
