// Package people signs people in to the site: argon2id password hashes,
// session and one-time sign-in tokens stored only as hashes, CSRF tokens
// bound to the session, and sign-in throttling per address and per
// account. The store keeps the records (store.People); this package decides
// what is written there and how a visit is checked.
package people

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"net/mail"
	"strings"
	"time"
	"unicode/utf8"

	"golang.org/x/crypto/argon2"

	"chartd.dev/libs/quota"
	"chartd.dev/libs/store"
)

// CookieName is the session cookie. The gateway reads it as a credential
// on /api/v1 (with the CSRF header on writes) and the site on its pages.
const CookieName = "chartd_session"

// CSRFHeader carries the CSRF token on the editor's API calls.
const CSRFHeader = "X-CSRF-Token"

// Password length bounds, in characters: long enough to resist guessing,
// short enough that hashing cannot be used to burn CPU.
const (
	MinPasswordLen = 10
	MaxPasswordLen = 256
)

// argon2id parameters: OWASP's first recommended set (19 MiB, 2 passes,
// 1 lane), about 25 ms here; recorded in each hash so they can change.
const (
	argonTime    = 2
	argonMemory  = 19 * 1024
	argonThreads = 1
	argonKeyLen  = 32
	argonSaltLen = 16
)

// Errors a caller maps to what a person reads.
var (
	// ErrBadEmail means the text is not one plain email address.
	ErrBadEmail = errors.New("not an email address")
	// ErrBadPassword means the password is too short or too long.
	ErrBadPassword = fmt.Errorf("a password has %d to %d characters", MinPasswordLen, MaxPasswordLen)
	// ErrBadCredentials means the email or the password is wrong; which
	// one is never said.
	ErrBadCredentials = errors.New("wrong email or password")
	// ErrThrottled means too many sign-in attempts from the address or
	// for the account.
	ErrThrottled = errors.New("too many sign-in attempts")
)

// NormalizeEmail answers the stored form of an email address: trimmed and
// lower-cased, and only a bare address (no display name).
func NormalizeEmail(s string) (string, error) {
	s = strings.ToLower(strings.TrimSpace(s))
	if len(s) > 254 || s == "" {
		return "", ErrBadEmail
	}
	a, err := mail.ParseAddress(s)
	if err != nil || a.Address != s || a.Name != "" || !strings.Contains(s[strings.LastIndexByte(s, '@')+1:], ".") {
		return "", ErrBadEmail
	}
	return s, nil
}

// CheckPasswordRules refuses a password that is too short or too long.
func CheckPasswordRules(pw string) error {
	n := utf8.RuneCountInString(pw)
	if n < MinPasswordLen || n > MaxPasswordLen {
		return ErrBadPassword
	}
	return nil
}

// HashPassword encodes pw as an argon2id hash in the PHC string format
// ($argon2id$v=19$m=…,t=…,p=…$salt$hash), salt from crypto/rand.
func HashPassword(pw string) (string, error) {
	if err := CheckPasswordRules(pw); err != nil {
		return "", err
	}
	salt := make([]byte, argonSaltLen)
	rand.Read(salt)
	key := argon2.IDKey([]byte(pw), salt, argonTime, argonMemory, argonThreads, argonKeyLen)
	b64 := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, argonMemory, argonTime, argonThreads,
		b64.EncodeToString(salt), b64.EncodeToString(key)), nil
}

// dummyHash is checked when no user has the email, so an unknown email
// costs the same time as a wrong password.
const dummyHash = "$argon2id$v=19$m=19456,t=2,p=1$c2FsdHNhbHRzYWx0c2FsdA$Q0hBUlREX0RVTU1ZX0hBU0hfTk9UX0FfUEFTU1dPUkQ"

// CheckPassword reports whether pw matches encoded, comparing in constant
// time. A malformed hash, or an empty one (no password set: an account
// that signs in by link), never matches, but costs the same hashing as a
// wrong password, so the answer's time does not tell which accounts have
// a password.
func CheckPassword(encoded, pw string) bool {
	h, ok := parseHash(encoded)
	if !ok {
		h, _ = parseHash(dummyHash)
	}
	got := argon2.IDKey([]byte(pw), h.salt, h.t, h.m, h.p, uint32(len(h.key)))
	return subtle.ConstantTimeCompare(got, h.key) == 1 && ok
}

// argonHash is a parsed PHC argon2id string.
type argonHash struct {
	m, t      uint32
	p         uint8
	salt, key []byte
}

// parseHash reads an encoded argon2id hash, refusing other algorithms and
// parameters out of bounds.
func parseHash(encoded string) (argonHash, bool) {
	var h argonHash
	var version int
	parts := strings.Split(encoded, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return h, false
	}
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return h, false
	}
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &h.m, &h.t, &h.p); err != nil || h.m == 0 || h.m > 256*1024 || h.t == 0 || h.t > 10 || h.p == 0 {
		return h, false
	}
	b64 := base64.RawStdEncoding
	var err error
	if h.salt, err = b64.DecodeString(parts[4]); err != nil {
		return h, false
	}
	if h.key, err = b64.DecodeString(parts[5]); err != nil || len(h.key) == 0 {
		return h, false
	}
	return h, true
}

// NewToken makes a random token (256 bits) and the SHA-256 hash that is
// stored instead of it.
func NewToken() (token string, hash []byte) {
	var b [32]byte
	rand.Read(b[:])
	token = base64.RawURLEncoding.EncodeToString(b[:])
	return token, HashToken(token)
}

// HashToken is the stored form of a session or sign-in token.
func HashToken(token string) []byte {
	h := sha256.Sum256([]byte(token))
	return h[:]
}

// CSRFToken derives the CSRF token of a session from its secret token:
// only a page served to the holder of the (HttpOnly) cookie can know it,
// and nothing more needs storing.
func CSRFToken(sessionToken string) string {
	h := sha256.Sum256([]byte("chartd-csrf-v1\n" + sessionToken))
	return base64.RawURLEncoding.EncodeToString(h[:])
}

// CheckCSRF reports, in constant time, whether got is the session's CSRF
// token.
func CheckCSRF(sessionToken, got string) bool {
	if sessionToken == "" || got == "" {
		return false
	}
	want := CSRFToken(sessionToken)
	return subtle.ConstantTimeCompare([]byte(want), []byte(got)) == 1
}

// Defaults of Config.
const (
	DefaultSessionTTL    = 14 * 24 * time.Hour
	DefaultSignInLinkTTL = 15 * time.Minute
	DefaultSignUpTTL     = 24 * time.Hour
)

// Config sets the lifetimes and sign-in allowances.
type Config struct {
	// SessionTTL is how long a session lasts from sign-in.
	SessionTTL time.Duration
	// SignInLinkTTL is how long a one-time sign-in link stays valid.
	SignInLinkTTL time.Duration
	// SignUpTTL is how long a sign-up's confirmation link stays valid.
	SignUpTTL time.Duration
	// PerAddress and PerAccount bound sign-in attempts (and sign-ups, by
	// address) a minute: PerAddress from one address, PerAccount against
	// one email from one address (known or not, so the throttle's answer
	// tells nothing about which emails have accounts).
	PerAddress int
	PerAccount int
}

// People signs people in and out against a store.
type People struct {
	cfg     Config
	st      store.People
	limiter quota.Limiter
	now     func() time.Time
}

// New builds People on st; limiter throttles sign-in attempts, now is the
// clock (time.Now when nil).
func New(cfg Config, st store.People, limiter quota.Limiter, now func() time.Time) *People {
	if cfg.SessionTTL <= 0 {
		cfg.SessionTTL = DefaultSessionTTL
	}
	if cfg.SignInLinkTTL <= 0 {
		cfg.SignInLinkTTL = DefaultSignInLinkTTL
	}
	if cfg.SignUpTTL <= 0 {
		cfg.SignUpTTL = DefaultSignUpTTL
	}
	if cfg.PerAddress <= 0 {
		cfg.PerAddress = 20
	}
	if cfg.PerAccount <= 0 {
		cfg.PerAccount = 10
	}
	if now == nil {
		now = time.Now
	}
	return &People{cfg: cfg, st: st, limiter: limiter, now: now}
}

// SessionTTL is how long a new session lasts (the cookie's Max-Age).
func (p *People) SessionTTL() time.Duration { return p.cfg.SessionTTL }

// throttle takes one attempt from key's allowance of n a minute.
func (p *People) throttle(ctx context.Context, key string, n int) error {
	res, err := p.limiter.Allow(ctx, key, quota.Limit{Rate: n, Period: time.Minute})
	if err != nil {
		return fmt.Errorf("sign-in throttle: %w", err)
	}
	if !res.Allowed {
		return ErrThrottled
	}
	return nil
}

// SignIn checks email and password, throttled per client address and
// per (address, email), and starts a session. Every refusal of the
// credentials is ErrBadCredentials, after the same amount of hashing, and
// the throttle answers alike for known and unknown emails: nothing tells
// whether an email has an account. Keying the second allowance by address
// too means a stranger cannot lock a known person out from elsewhere.
func (p *People) SignIn(ctx context.Context, addr, email, password string) (token string, se store.Session, err error) {
	if err := p.throttle(ctx, "signin-ip:"+addr, p.cfg.PerAddress); err != nil {
		return "", store.Session{}, err
	}
	email, err = NormalizeEmail(email)
	if err != nil || len(password) > 4*MaxPasswordLen {
		CheckPassword(dummyHash, password)
		return "", store.Session{}, ErrBadCredentials
	}
	if err := p.throttle(ctx, "signin-acct:"+addr+"\n"+email, p.cfg.PerAccount); err != nil {
		return "", store.Session{}, err
	}
	u, err := p.st.FindUserByEmail(ctx, email)
	if errors.Is(err, store.ErrNotFound) {
		CheckPassword(dummyHash, password)
		return "", store.Session{}, ErrBadCredentials
	}
	if err != nil {
		return "", store.Session{}, err
	}
	if !CheckPassword(u.PasswordHash, password) {
		return "", store.Session{}, ErrBadCredentials
	}
	return p.Start(ctx, u)
}

// Start opens a session for u and answers the cookie's token.
func (p *People) Start(ctx context.Context, u store.User) (string, store.Session, error) {
	token, hash := NewToken()
	now := store.Micro(p.now())
	se := store.Session{Hash: hash, AccountID: u.AccountID, UserID: u.ID, CreatedAt: now, ExpiresAt: now.Add(p.cfg.SessionTTL)}
	if err := p.st.CreateSession(ctx, se); err != nil {
		return "", store.Session{}, fmt.Errorf("start session: %w", err)
	}
	return token, se, nil
}

// Resolve answers the live session of a cookie's token and its account;
// store.ErrNotFound when it is unknown, ended or expired.
func (p *People) Resolve(ctx context.Context, token string) (store.Session, store.Account, error) {
	if token == "" || len(token) > 128 {
		return store.Session{}, store.Account{}, fmt.Errorf("resolve session: %w", store.ErrNotFound)
	}
	return p.st.LookupSession(ctx, HashToken(token), p.now())
}

// End revokes the session of token (sign-out).
func (p *People) End(ctx context.Context, se store.Session) error {
	return p.st.DeleteSession(ctx, se.AccountID, se.Hash)
}

// SignInLink makes a one-time sign-in token for u, valid for the link
// lifetime (15 minutes by default); the caller builds the URL.
func (p *People) SignInLink(ctx context.Context, u store.User) (token string, expires time.Time, err error) {
	token, hash := NewToken()
	expires = store.Micro(p.now().Add(p.cfg.SignInLinkTTL))
	if err := p.st.CreateSignInToken(ctx, u.AccountID, u.ID, hash, expires); err != nil {
		return "", time.Time{}, fmt.Errorf("sign-in link: %w", err)
	}
	return token, expires, nil
}

// UseLink spends a one-time sign-in token and starts a session; an
// unknown, used or expired token is store.ErrNotFound.
func (p *People) UseLink(ctx context.Context, addr, token string) (string, store.Session, error) {
	if err := p.throttle(ctx, "signin-ip:"+addr, p.cfg.PerAddress); err != nil {
		return "", store.Session{}, err
	}
	if token == "" || len(token) > 128 {
		return "", store.Session{}, fmt.Errorf("use sign-in link: %w", store.ErrNotFound)
	}
	u, err := p.st.UseSignInToken(ctx, HashToken(token), p.now())
	if err != nil {
		return "", store.Session{}, err
	}
	return p.Start(ctx, u)
}

// SetPassword sets u's password and ends every session of u, so a stolen
// session does not outlive a password change.
func (p *People) SetPassword(ctx context.Context, u store.User, password string) error {
	hash, err := HashPassword(password)
	if err != nil {
		return err
	}
	if err := p.st.SetPassword(ctx, u.AccountID, u.ID, hash); err != nil {
		return fmt.Errorf("set password: %w", err)
	}
	if err := p.st.DeleteUserSessions(ctx, u.AccountID, u.ID); err != nil {
		return fmt.Errorf("set password: %w", err)
	}
	return nil
}
