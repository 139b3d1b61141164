package people

import (
	"context"
	"errors"
	"fmt"
	"time"

	"chartd.dev/libs/mail"
	"chartd.dev/libs/store"
)

// SignUpStart is what a sign-up request leads to, for the caller to mail:
// exactly one of ConfirmToken (a new email: the link that makes the
// account) and SignInToken (the email has an account: a one-time sign-in
// link for it) is set. The visitor is told the same either way.
type SignUpStart struct {
	Email        string
	ConfirmToken string
	SignInToken  string
	Expires      time.Time
}

// BeginSignUp starts a sign-up without telling whether email has an
// account: it throttles per address and per email, hashes the password
// and writes one row either way (a pending sign-up, or a sign-in token of
// the existing user), so the answer and its time are alike. The account
// is made by ConfirmSignUp, when the emailed link is used.
func (p *People) BeginSignUp(ctx context.Context, addr, email, password string) (SignUpStart, error) {
	email, err := NormalizeEmail(email)
	if err != nil {
		return SignUpStart{}, err
	}
	if err := CheckPasswordRules(password); err != nil {
		return SignUpStart{}, err
	}
	if err := p.throttle(ctx, "signin-ip:"+addr, p.cfg.PerAddress); err != nil {
		return SignUpStart{}, err
	}
	// Bounds the mails one address receives, whoever asks.
	if err := p.throttle(ctx, "signup-email:"+email, p.cfg.PerAccount); err != nil {
		return SignUpStart{}, err
	}
	hash, err := HashPassword(password)
	if err != nil {
		return SignUpStart{}, err
	}
	u, err := p.st.FindUserByEmail(ctx, email)
	switch {
	case err == nil:
		token, expires, err := p.SignInLink(ctx, u)
		if err != nil {
			return SignUpStart{}, err
		}
		return SignUpStart{Email: email, SignInToken: token, Expires: expires}, nil
	case !errors.Is(err, store.ErrNotFound):
		return SignUpStart{}, fmt.Errorf("begin sign-up: %w", err)
	}
	token, th := NewToken()
	now := store.Micro(p.now())
	ps := store.PendingSignUp{Hash: th, Email: email, PasswordHash: hash, CreatedAt: now, ExpiresAt: now.Add(p.cfg.SignUpTTL)}
	if err := p.st.PutPendingSignUp(ctx, ps); err != nil {
		return SignUpStart{}, fmt.Errorf("begin sign-up: %w", err)
	}
	return SignUpStart{Email: email, ConfirmToken: token, Expires: ps.ExpiresAt}, nil
}

// ConfirmSignUp spends a sign-up's confirmation token, makes the free
// account with the password given at sign-up and starts its first
// session. An unknown, used or expired token, and an email that
// meanwhile has an account, are all store.ErrNotFound: the link just no
// longer works.
func (p *People) ConfirmSignUp(ctx context.Context, addr, token string) (string, store.Session, error) {
	if err := p.throttle(ctx, "signin-ip:"+addr, p.cfg.PerAddress); err != nil {
		return "", store.Session{}, err
	}
	if token == "" || len(token) > 128 {
		return "", store.Session{}, fmt.Errorf("confirm sign-up: %w", store.ErrNotFound)
	}
	_, u, err := p.st.ConfirmSignUp(ctx, HashToken(token), store.PlanFree, p.now())
	if errors.Is(err, store.ErrConflict) {
		return "", store.Session{}, fmt.Errorf("confirm sign-up: email taken meanwhile: %w", store.ErrNotFound)
	}
	if err != nil {
		return "", store.Session{}, err
	}
	return p.Start(ctx, u)
}

// SignUpMail is the message of a sign-up: the confirmation link for a new
// email, or, for an email that has an account, a notice with a one-time
// sign-in link. base is the site's public URL.
func SignUpMail(base string, st SignUpStart) mail.Message {
	if st.ConfirmToken != "" {
		link := base + "/signup/confirm?token=" + st.ConfirmToken
		return mail.Message{To: st.Email, Subject: "Finish signing up to chartd",
			Text: "Hello,\n\nTo finish signing up to chartd with this address, open this link and press the button\n" +
				"(it works once, until " + st.Expires.UTC().Format("2006-01-02 15:04 UTC") + "):\n\n" + link + "\n\n" +
				"If you did not sign up, ignore this email: no account is made without it.\n"}
	}
	link := base + "/signin/link?token=" + st.SignInToken
	return mail.Message{To: st.Email, Subject: "You already have a chartd account",
		Text: "Hello,\n\nSomeone, hopefully you, tried to sign up to chartd with this address, which already has an account.\n" +
			"No new account was made. Sign in at " + base + "/signin, or, if you forgot your password, with this one-time link\n" +
			"(it works once, until " + st.Expires.UTC().Format("2006-01-02 15:04 UTC") + "):\n\n" + link + "\n\n" +
			"If it was not you, ignore this email.\n"}
}
