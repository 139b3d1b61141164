// Package auth makes and checks API keys and carries the authenticated
// principal from the gateway to the services it routes to.
package auth

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"errors"
	"net/http"
	"strings"

	"chartd.dev/libs/apierr"
)

// KeyPrefix starts every API key, so a leaked key is easy to recognise
// (secret scanners look for such prefixes).
const KeyPrefix = "chd_"

// visiblePrefixLen is how much of a key is stored in clear for listing.
const visiblePrefixLen = len(KeyPrefix) + 8

// NewKey makes a random API key (256 bits from crypto/rand), its visible prefix and the
// SHA-256 hash that is stored instead of the key.
func NewKey() (key, prefix string, hash []byte) {
	key = KeyPrefix + strings.ToLower(rand.Text()+rand.Text())
	return key, key[:visiblePrefixLen], Hash(key)
}

// Hash is the stored form of a key.
func Hash(key string) []byte {
	h := sha256.Sum256([]byte(key))
	return h[:]
}

// BearerKey reads the key from `Authorization: Bearer <key>`.
func BearerKey(r *http.Request) (string, error) {
	h := r.Header.Get("Authorization")
	if h == "" {
		return "", apierr.New(apierr.Unauthorized, "send your API key in the header Authorization: Bearer <API_KEY>")
	}
	scheme, key, ok := strings.Cut(h, " ")
	if !ok || !strings.EqualFold(scheme, "Bearer") || !b64token(key) {
		return "", apierr.New(apierr.Unauthorized, "the Authorization header must be 'Bearer <API_KEY>', with one space")
	}
	return key, nil
}

// b64token checks RFC 6750's credentials syntax: one run of letters,
// digits and -._~+/ and then any '=', so no second space, tab or other
// byte slips into (or around) a key.
func b64token(s string) bool {
	body := strings.TrimRight(s, "=")
	if body == "" {
		return false
	}
	for i := 0; i < len(body); i++ {
		c := body[i]
		if !(c >= 'A' && c <= 'Z' || c >= 'a' && c <= 'z' || c >= '0' && c <= '9' || strings.IndexByte("-._~+/", c) >= 0) {
			return false
		}
	}
	return true
}

// Principal is who a request acts for.
type Principal struct {
	AccountID string
	Plan      string
}

type ctxKey struct{}

// WithPrincipal stores p in ctx.
func WithPrincipal(ctx context.Context, p Principal) context.Context {
	return context.WithValue(ctx, ctxKey{}, p)
}

// FromContext answers the request's principal.
func FromContext(ctx context.Context) (Principal, bool) {
	p, ok := ctx.Value(ctxKey{}).(Principal)
	return p, ok
}

// The internal headers the gateway sets on routed requests. Services trust
// them only with a valid HeaderToken, which only the cluster knows.
const (
	HeaderAccount = "X-Chartd-Account"
	HeaderPlan    = "X-Chartd-Plan"
	HeaderToken   = "X-Chartd-Internal-Token"
)

// HeaderClientIP carries the client address the gateway read (behind its
// own trusted proxies) to a service that limits per address, beside the
// internal token: in split mode the service's peer is the gateway for
// every viewer, so only the gateway can tell them apart.
const HeaderClientIP = "X-Chartd-Client-Ip"

// SetClientIP writes the client address and the internal token onto a
// request the gateway passes on.
func SetClientIP(h http.Header, token, ip string) {
	h.Set(HeaderToken, token)
	h.Set(HeaderClientIP, ip)
}

// ClientIP answers the client address the gateway passed on, when the
// request carries the internal token (compared in constant time); ok is
// false otherwise, and the service reads the address itself.
func ClientIP(h http.Header, token string) (ip string, ok bool) {
	ip = h.Get(HeaderClientIP)
	if ip == "" || len(token) == 0 || subtle.ConstantTimeCompare([]byte(h.Get(HeaderToken)), []byte(token)) != 1 {
		return "", false
	}
	return ip, true
}

// ErrNoPrincipal is returned when an internal request carries no principal.
var ErrNoPrincipal = errors.New("no principal")

// SetInternal writes p and the internal token onto an outgoing request.
func SetInternal(h http.Header, token string, p Principal) {
	// The names are canonical already; one array backs the three values.
	backing := []string{token, p.AccountID, p.Plan}
	h[HeaderToken] = backing[0:1:1]
	h[HeaderAccount] = backing[1:2:2]
	h[HeaderPlan] = backing[2:3:3]
}

// Internal is middleware for services: it accepts only requests carrying
// the internal token (compared in constant time) and puts the principal
// they name into the context. Anything else is unauthorized.
func Internal(token string, docsURL string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if len(token) == 0 || subtle.ConstantTimeCompare([]byte(r.Header.Get(HeaderToken)), []byte(token)) != 1 {
			apierr.Write(w, docsURL, apierr.New(apierr.Unauthorized, "this address is internal; call the API through the gateway with an API key"))
			return
		}
		p := Principal{AccountID: r.Header.Get(HeaderAccount), Plan: r.Header.Get(HeaderPlan)}
		ctx := r.Context()
		if p.AccountID != "" {
			ctx = WithPrincipal(ctx, p)
		}
		next.ServeHTTP(w, r.WithContext(ctx))
	})
}

// Require answers the request's principal or an unauthorized error.
func Require(ctx context.Context) (Principal, error) {
	p, ok := FromContext(ctx)
	if !ok || p.AccountID == "" {
		return Principal{}, apierr.Wrap(apierr.Unauthorized, ErrNoPrincipal, "send your API key in the header Authorization: Bearer <API_KEY>")
	}
	return p, nil
}
