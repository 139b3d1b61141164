package people

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"chartd.dev/libs/quota"
	"chartd.dev/libs/store"
	"chartd.dev/libs/store/sqlite"
)

func TestNormalizeEmail(t *testing.T) {
	tests := []struct {
		in, want string
		ok       bool
	}{
		{"Ada@Example.COM", "ada@example.com", true},
		{"  bob@example.org ", "bob@example.org", true},
		{"no-at-sign", "", false},
		{"Ada <ada@example.com>", "", false},
		{"ada@localhost", "", false},
		{"", "", false},
		{strings.Repeat("a", 250) + "@x.io", "", false},
	}
	for _, tt := range tests {
		got, err := NormalizeEmail(tt.in)
		if tt.ok != (err == nil) || got != tt.want {
			t.Errorf("NormalizeEmail(%q) = %q, %v; want %q ok=%v", tt.in, got, err, tt.want, tt.ok)
		}
	}
}

func TestPasswordHash(t *testing.T) {
	h, err := HashPassword("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	h2, _ := HashPassword("correct horse battery")
	if !strings.HasPrefix(h, "$argon2id$v=19$m=19456,t=2,p=1$") || h == h2 {
		t.Fatalf("hash %q (and %q): want argon2id with a fresh salt each time", h, h2)
	}
	tests := []struct {
		name, encoded, pw string
		want              bool
	}{
		{"right", h, "correct horse battery", true},
		{"wrong", h, "correct horse battery!", false},
		{"empty hash", "", "correct horse battery", false},
		{"dummy", dummyHash, "anything at all", false},
		{"other algorithm", strings.Replace(h, "argon2id", "argon2i", 1), "correct horse battery", false},
		{"huge memory", strings.Replace(h, "m=19456", "m=9999999", 1), "correct horse battery", false},
		{"bad salt", strings.Replace(h, "$argon2id$v=19$m=19456,t=2,p=1$", "$argon2id$v=19$m=19456,t=2,p=1$!!", 1), "correct horse battery", false},
	}
	for _, tt := range tests {
		if got := CheckPassword(tt.encoded, tt.pw); got != tt.want {
			t.Errorf("%s: CheckPassword = %v, want %v", tt.name, got, tt.want)
		}
	}
	for _, pw := range []string{"short", strings.Repeat("x", MaxPasswordLen+1)} {
		if _, err := HashPassword(pw); !errors.Is(err, ErrBadPassword) {
			t.Errorf("HashPassword(%d chars) = %v, want ErrBadPassword", len(pw), err)
		}
	}
}

func TestTokens(t *testing.T) {
	a, ha := NewToken()
	b, _ := NewToken()
	if a == b || len(a) != 43 || string(ha) != string(HashToken(a)) {
		t.Fatalf("tokens %q %q", a, b)
	}
	tests := []struct {
		name, session, got string
		want               bool
	}{
		{"own token", a, CSRFToken(a), true},
		{"another session's", a, CSRFToken(b), false},
		{"missing", a, "", false},
		{"no session", "", CSRFToken(""), false},
		{"session token itself", a, a, false},
	}
	for _, tt := range tests {
		if got := CheckCSRF(tt.session, tt.got); got != tt.want {
			t.Errorf("%s: CheckCSRF = %v, want %v", tt.name, got, tt.want)
		}
	}
}

type clock struct{ t time.Time }

func (c *clock) now() time.Time { return c.t }

func newPeople(t *testing.T, cfg Config) (*People, store.Store, *clock) {
	t.Helper()
	st, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "p.db"))
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { st.Close() })
	c := &clock{t: time.Now()}
	return New(cfg, st, quota.NewMemory(nil), c.now), st, c
}

func TestSignUpSignInSignOut(t *testing.T) {
	ctx := context.Background()
	p, st, c := newPeople(t, Config{})
	tok, se := signUp(t, p, "10.0.0.1", " Ada@Example.com", "correct horse battery")
	acct, err := st.GetAccount(ctx, se.AccountID)
	if err != nil || acct.Plan != store.PlanFree {
		t.Fatalf("signed-up account %+v, %v", acct, err)
	}
	again, err := p.BeginSignUp(ctx, "10.0.0.1", "ada@example.com", "another password")
	if err != nil || again.ConfirmToken != "" || again.SignInToken == "" {
		t.Fatalf("second sign-up = %+v, %v; want a sign-in link and no confirmation", again, err)
	}
	tests := []struct {
		name, email, pw string
		want            error
	}{
		{"right", "ADA@example.com", "correct horse battery", nil},
		{"wrong password", "ada@example.com", "wrong horse battery", ErrBadCredentials},
		{"unknown email", "eve@example.com", "correct horse battery", ErrBadCredentials},
		{"not an email", "eve", "correct horse battery", ErrBadCredentials},
	}
	for _, tt := range tests {
		_, got, err := p.SignIn(ctx, "10.0.0.2", tt.email, tt.pw)
		if !errors.Is(err, tt.want) {
			t.Fatalf("%s: SignIn = %v, want %v", tt.name, err, tt.want)
		}
		if err == nil && got.AccountID != se.AccountID {
			t.Fatalf("%s: session of account %s, want %s", tt.name, got.AccountID, se.AccountID)
		}
	}
	if _, _, err := p.Resolve(ctx, tok); err != nil {
		t.Fatalf("resolve: %v", err)
	}
	if err := p.End(ctx, se); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.Resolve(ctx, tok); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("resolve after sign-out = %v, want not found", err)
	}
	tok2, _, err := p.SignIn(ctx, "10.0.0.3", "ada@example.com", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	c.t = c.t.Add(DefaultSessionTTL)
	if _, _, err := p.Resolve(ctx, tok2); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("resolve after expiry = %v, want not found", err)
	}
}

// TestThrottle checks both allowances and that the per-email one answers
// alike for an email with an account and one without, and holds per
// address: guesses from one address do not lock the person out from
// another.
func TestThrottle(t *testing.T) {
	ctx := context.Background()
	p, _, _ := newPeople(t, Config{PerAddress: 4, PerAccount: 2})
	signUp(t, p, "10.0.0.9", "ada@example.com", "correct horse battery")
	for _, email := range []string{"ada@example.com", "nobody@example.com"} {
		for i, want := range []error{ErrBadCredentials, ErrBadCredentials, ErrThrottled} {
			_, _, err := p.SignIn(ctx, "10.1.0.1/"+email, email, "guess guess guess")
			if !errors.Is(err, want) {
				t.Fatalf("%s: attempt %d from one address = %v, want %v", email, i, err, want)
			}
		}
	}
	// Ada signs in from her own address all the same.
	if _, _, err := p.SignIn(ctx, "10.3.0.1", "ada@example.com", "correct horse battery"); err != nil {
		t.Fatalf("sign-in from another address after guesses elsewhere: %v", err)
	}
	// Per address: the fifth attempt from one address is refused, whatever
	// the email.
	for i, want := range []error{ErrBadCredentials, ErrBadCredentials, ErrBadCredentials, ErrBadCredentials, ErrThrottled} {
		_, _, err := p.SignIn(ctx, "10.2.0.1", "nobody"+string(rune('a'+i))+"@example.com", "guess guess guess")
		if !errors.Is(err, want) {
			t.Fatalf("address attempt %d = %v, want %v", i, err, want)
		}
	}
}

// TestSignInTimeAlike checks that a wrong password costs the same hashing
// for an account without a password (it signs in by link) as for one with
// one, so the answer's time does not tell them apart. The hash takes tens
// of milliseconds, a lookup well under one, so a bound of a third holds
// under load.
func TestSignInTimeAlike(t *testing.T) {
	ctx := context.Background()
	p, st, _ := newPeople(t, Config{PerAddress: 1000, PerAccount: 1000})
	signUp(t, p, "10.0.0.1", "pw@example.com", "correct horse battery")
	acct, err := st.CreateAccount(ctx, store.PlanFree)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := st.CreateUser(ctx, acct.ID, "link@example.com", ""); err != nil {
		t.Fatal(err)
	}
	// Round-robin, so a burst of load on the machine falls on all three;
	// the fastest try of each is its cost with the least noise.
	emails := []string{"pw@example.com", "link@example.com", "nobody@example.com"}
	fastest := make([]time.Duration, len(emails))
	for range 7 {
		for i, email := range emails {
			start := time.Now()
			if _, _, err := p.SignIn(ctx, "10.0.0.2", email, "wrong horse battery"); !errors.Is(err, ErrBadCredentials) {
				t.Fatalf("%s: %v", email, err)
			}
			if d := time.Since(start); fastest[i] == 0 || d < fastest[i] {
				fastest[i] = d
			}
		}
	}
	withPassword, without, unknown := fastest[0], fastest[1], fastest[2]
	t.Logf("fastest wrong sign-in: with a password %v, without %v, unknown email %v", withPassword, without, unknown)
	if without < withPassword/3 || unknown < withPassword/3 {
		t.Fatalf("an account without a password answers in %v and an unknown email in %v, against %v with one: the hash is skipped", without, unknown, withPassword)
	}
}

func TestSignInLinkAndPassword(t *testing.T) {
	ctx := context.Background()
	p, st, c := newPeople(t, Config{})
	acct, err := st.CreateAccount(ctx, store.PlanPro)
	if err != nil {
		t.Fatal(err)
	}
	u, err := st.CreateUser(ctx, acct.ID, "local@example.com", "")
	if err != nil {
		t.Fatal(err)
	}
	// No password yet: password sign-in is refused.
	if _, _, err := p.SignIn(ctx, "a", "local@example.com", ""); !errors.Is(err, ErrBadCredentials) {
		t.Fatalf("sign in without a password = %v", err)
	}
	link, exp, err := p.SignInLink(ctx, u)
	if err != nil || exp.Sub(c.t) > DefaultSignInLinkTTL || exp.Sub(c.t) < DefaultSignInLinkTTL-time.Second {
		t.Fatalf("link expires %v, %v", exp, err)
	}
	tok, se, err := p.UseLink(ctx, "a", link)
	if err != nil || se.AccountID != acct.ID {
		t.Fatalf("use link: %+v %v", se, err)
	}
	if _, _, err := p.UseLink(ctx, "a", link); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second use = %v, want not found", err)
	}
	late, _, _ := p.SignInLink(ctx, u)
	c.t = c.t.Add(DefaultSignInLinkTTL)
	if _, _, err := p.UseLink(ctx, "a", late); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("expired link = %v, want not found", err)
	}
	if err := p.SetPassword(ctx, u, "a brand new password"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.Resolve(ctx, tok); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("session after password change = %v, want ended", err)
	}
	if _, _, err := p.SignIn(ctx, "b", "local@example.com", "a brand new password"); err != nil {
		t.Fatal(err)
	}
}
