package store

import (
	"context"
	"time"
)

// User is a person who signs in to the site. Email is stored normalised
// (lower case, trimmed) and is unique across accounts. PasswordHash is the
// encoded argon2id hash (libs/people); "" means no password is set, so the
// person can sign in only with a one-time link.
type User struct {
	ID           string
	AccountID    string
	Email        string
	PasswordHash string
	CreatedAt    time.Time
}

// Session is a signed-in browser. Only the SHA-256 hash of the cookie's
// token is kept, so a dump of the table signs no one in.
type Session struct {
	Hash      []byte
	AccountID string
	UserID    string
	CreatedAt time.Time
	ExpiresAt time.Time
}

// People keeps the site's people: users, their sessions, one-time sign-in
// tokens, and when each API key was last used. Every write is scoped by
// account; the lookups that start a visit (by email, by token hash) are
// the only ones that name no account.
type People interface {
	PendingSignUps

	// SignUp makes an account on plan and its first user in one
	// transaction; an email already used is ErrConflict and leaves no
	// account behind.
	SignUp(ctx context.Context, plan, email, passwordHash string) (Account, User, error)
	// CreateUser adds a user to an existing account; a used email is
	// ErrConflict, an unknown account ErrNotFound.
	CreateUser(ctx context.Context, accountID, email, passwordHash string) (User, error)
	// FindUserByEmail finds the user signing in; ErrNotFound when none.
	FindUserByEmail(ctx context.Context, email string) (User, error)
	// GetUser loads one of the account's users.
	GetUser(ctx context.Context, accountID, userID string) (User, error)
	// ListUsers lists the account's users, oldest first.
	ListUsers(ctx context.Context, accountID string) ([]User, error)
	// SetPassword replaces one of the account's users' password hash.
	SetPassword(ctx context.Context, accountID, userID, passwordHash string) error

	// CreateSession stores a session by its hash; a duplicate hash is
	// ErrConflict, an unknown user of the account ErrNotFound.
	CreateSession(ctx context.Context, s Session) error
	// LookupSession finds the live session with this hash and its
	// account. Missing or expired at now is ErrNotFound.
	LookupSession(ctx context.Context, hash []byte, now time.Time) (Session, Account, error)
	// DeleteSession ends one of the account's sessions (sign-out); ending
	// one that is gone is not an error.
	DeleteSession(ctx context.Context, accountID string, hash []byte) error
	// DeleteUserSessions ends every session of one of the account's users
	// (after a password change).
	DeleteUserSessions(ctx context.Context, accountID, userID string) error

	// CreateSignInToken stores a one-time sign-in token by its hash for
	// one of the account's users, valid until expires.
	CreateSignInToken(ctx context.Context, accountID, userID string, hash []byte, expires time.Time) error
	// UseSignInToken spends the token with this hash, atomically: the
	// first use before its expiry answers its user, every other use
	// ErrNotFound.
	UseSignInToken(ctx context.Context, hash []byte, now time.Time) (User, error)

	// TouchAPIKey records that one of the account's API keys was used at
	// at; a time older than the one recorded is ignored.
	TouchAPIKey(ctx context.Context, accountID, keyID string, at time.Time) error
	// APIKeysLastUsed answers, by key id, when the account's keys were
	// last used; keys never used are absent.
	APIKeysLastUsed(ctx context.Context, accountID string) (map[string]time.Time, error)
}
