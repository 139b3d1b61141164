package store

import (
	"context"
	"time"
)

// PendingSignUp is a sign-up waiting for the confirmation of its email:
// the account is made only when the emailed link is used. Only the
// SHA-256 of the link's token is kept.
type PendingSignUp struct {
	Hash         []byte
	Email        string
	PasswordHash string
	CreatedAt    time.Time
	ExpiresAt    time.Time
}

// PendingSignUps keeps the sign-ups awaiting confirmation, one per email.
type PendingSignUps interface {
	// PutPendingSignUp stores p, replacing the pending sign-up of the
	// same email (whose link then stops working), and drops those expired
	// at p.CreatedAt. A hash already stored is ErrConflict.
	PutPendingSignUp(ctx context.Context, p PendingSignUp) error
	// ConfirmSignUp spends the pending sign-up with this hash and, in the
	// same transaction, makes its account on plan and first user with the
	// stored password hash. Unknown, spent or expired at now is
	// ErrNotFound; an email that meanwhile has an account is ErrConflict.
	// Either way the pending sign-up is spent: a link works once.
	ConfirmSignUp(ctx context.Context, hash []byte, plan string, now time.Time) (Account, User, error)
}
