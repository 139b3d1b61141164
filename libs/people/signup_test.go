package people

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"chartd.dev/libs/store"
)

// signUp signs up through the confirmation, as the site does.
func signUp(t *testing.T, p *People, addr, email, pw string) (string, store.Session) {
	t.Helper()
	ctx := context.Background()
	st, err := p.BeginSignUp(ctx, addr, email, pw)
	if err != nil || st.ConfirmToken == "" {
		t.Fatalf("begin sign-up %s: %+v, %v", email, st, err)
	}
	tok, se, err := p.ConfirmSignUp(ctx, addr, st.ConfirmToken)
	if err != nil {
		t.Fatalf("confirm sign-up %s: %v", email, err)
	}
	return tok, se
}

// TestConfirmSignUp: no account before the link is used; the link makes
// it once, with the password given at sign-up; it fails after its
// lifetime, and when the email meanwhile got an account, with the same
// error as a used link.
func TestConfirmSignUp(t *testing.T) {
	ctx := context.Background()
	p, st, c := newPeople(t, Config{})
	begun, err := p.BeginSignUp(ctx, "10.0.0.1", " New@Example.com ", "correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if begun.Email != "new@example.com" || begun.SignInToken != "" || begun.Expires.Sub(c.t) < DefaultSignUpTTL-time.Second {
		t.Fatalf("begin: %+v", begun)
	}
	if _, err := st.FindUserByEmail(ctx, "new@example.com"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("a user exists before confirmation: %v", err)
	}
	if _, _, err := p.ConfirmSignUp(ctx, "10.0.0.1", begun.ConfirmToken+"x"); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("wrong token = %v", err)
	}
	if _, _, err := p.ConfirmSignUp(ctx, "10.0.0.1", begun.ConfirmToken); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.ConfirmSignUp(ctx, "10.0.0.1", begun.ConfirmToken); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("second use = %v, want not found", err)
	}
	if _, _, err := p.SignIn(ctx, "10.0.0.1", "new@example.com", "correct horse battery"); err != nil {
		t.Fatalf("sign in with the sign-up's password: %v", err)
	}

	late, _ := p.BeginSignUp(ctx, "10.0.0.1", "late@example.com", "correct horse battery")
	c.t = c.t.Add(DefaultSignUpTTL)
	if _, _, err := p.ConfirmSignUp(ctx, "10.0.0.1", late.ConfirmToken); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("expired link = %v, want not found", err)
	}

	// The email got an account between sign-up and confirmation.
	first, _ := p.BeginSignUp(ctx, "10.0.0.1", "both@example.com", "correct horse battery")
	if _, _, err := st.SignUp(ctx, store.PlanFree, "both@example.com", "x"); err != nil {
		t.Fatal(err)
	}
	if _, _, err := p.ConfirmSignUp(ctx, "10.0.0.1", first.ConfirmToken); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("confirm an email that got an account = %v, want not found", err)
	}
}

// TestBeginSignUpNeutral: a registered email and a new one get no error
// either way, each a mail of its own, and the same cost (the password is
// hashed and one row written in both cases).
func TestBeginSignUpNeutral(t *testing.T) {
	ctx := context.Background()
	p, _, _ := newPeople(t, Config{PerAddress: 1000, PerAccount: 1000})
	signUp(t, p, "10.0.0.1", "ada@example.com", "correct horse battery")
	known, err := p.BeginSignUp(ctx, "10.0.0.1", "ada@example.com", "another password")
	if err != nil || known.SignInToken == "" || known.ConfirmToken != "" {
		t.Fatalf("registered email: %+v, %v", known, err)
	}
	// The notice's link signs Ada in (her way back if she forgot the password).
	if _, _, err := p.UseLink(ctx, "10.0.0.1", known.SignInToken); err != nil {
		t.Fatalf("notice's sign-in link: %v", err)
	}
	m := SignUpMail("http://chartd.test", known)
	if m.To != "ada@example.com" || !strings.Contains(m.Text, "already has an account") || !strings.Contains(m.Text, "http://chartd.test/signin/link?token="+known.SignInToken) {
		t.Fatalf("notice mail: %+v", m)
	}
	fresh, _ := p.BeginSignUp(ctx, "10.0.0.1", "fresh@example.com", "correct horse battery")
	m = SignUpMail("http://chartd.test", fresh)
	if m.To != "fresh@example.com" || !strings.Contains(m.Text, "http://chartd.test/signup/confirm?token="+fresh.ConfirmToken) {
		t.Fatalf("confirmation mail: %+v", m)
	}

	fastest := [2]time.Duration{}
	for i := range 7 {
		for j, email := range []string{"ada@example.com", "fresh" + string(rune('a'+i)) + "@example.com"} {
			start := time.Now()
			if _, err := p.BeginSignUp(ctx, "10.0.0.2", email, "correct horse battery"); err != nil {
				t.Fatal(err)
			}
			if d := time.Since(start); fastest[j] == 0 || d < fastest[j] {
				fastest[j] = d
			}
		}
	}
	t.Logf("fastest sign-up start: registered email %v, new email %v", fastest[0], fastest[1])
	if fastest[0] < fastest[1]/3 || fastest[1] < fastest[0]/3 {
		t.Fatalf("sign-up of a registered email takes %v, of a new one %v: the work differs", fastest[0], fastest[1])
	}
}

// TestSignUpThrottle: the per-address allowance still holds on sign-up,
// and each email's mails are bounded whoever asks.
func TestSignUpThrottle(t *testing.T) {
	ctx := context.Background()
	p, _, _ := newPeople(t, Config{PerAddress: 3, PerAccount: 2})
	for i, want := range []error{nil, nil, nil, ErrThrottled} {
		_, err := p.BeginSignUp(ctx, "10.0.0.1", "a"+string(rune('a'+i))+"@example.com", "correct horse battery")
		if !errors.Is(err, want) {
			t.Fatalf("address attempt %d = %v, want %v", i, err, want)
		}
	}
	for i, want := range []error{nil, nil, ErrThrottled} {
		_, err := p.BeginSignUp(ctx, "10.9.0."+string(rune('1'+i)), "target@example.com", "correct horse battery")
		if !errors.Is(err, want) {
			t.Fatalf("email attempt %d = %v, want %v", i, err, want)
		}
	}
}
