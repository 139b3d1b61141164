package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"chartd.dev/libs/store"
)

var _ store.PendingSignUps = (*Store)(nil)

// PutPendingSignUp stores a pending sign-up, replacing its email's older
// one, and drops the expired ones.
func (s *Store) PutPendingSignUp(ctx context.Context, p store.PendingSignUp) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `DELETE FROM pending_signups WHERE expires_at <= $1`, store.Micro(p.CreatedAt)); err != nil {
			return err
		}
		_, err := tx.Exec(ctx,
			`INSERT INTO pending_signups (hash, email, password_hash, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)
			 ON CONFLICT (email) DO UPDATE SET hash = excluded.hash, password_hash = excluded.password_hash,
			   created_at = excluded.created_at, expires_at = excluded.expires_at`,
			nonNil(p.Hash), p.Email, p.PasswordHash, store.Micro(p.CreatedAt), store.Micro(p.ExpiresAt))
		return userErr(err)
	})
	if err != nil {
		return fmt.Errorf("put pending sign-up: %w", err)
	}
	return nil
}

// ConfirmSignUp spends a pending sign-up and makes its account: the
// DELETE … RETURNING takes the row, so two uses racing see one winner,
// and the spend is committed even when the answer is a refusal.
func (s *Store) ConfirmSignUp(ctx context.Context, hash []byte, plan string, now time.Time) (store.Account, store.User, error) {
	if !store.ValidPlan(plan) {
		return store.Account{}, store.User{}, fmt.Errorf("confirm sign-up: %w: %q", store.ErrInvalidPlan, plan)
	}
	var a store.Account
	var u store.User
	var refusal error
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var email, pw string
		var expires time.Time
		err := tx.QueryRow(ctx, `DELETE FROM pending_signups WHERE hash = $1 RETURNING email, password_hash, expires_at`, nonNil(hash)).
			Scan(&email, &pw, &expires)
		if errors.Is(err, pgx.ErrNoRows) || err == nil && !expires.After(now) {
			refusal = store.ErrNotFound
			return nil
		}
		if err != nil {
			return err
		}
		var taken bool
		if err := tx.QueryRow(ctx, `SELECT EXISTS (SELECT 1 FROM users WHERE email = $1)`, email).Scan(&taken); err != nil {
			return err
		}
		if taken {
			refusal = store.ErrConflict
			return nil
		}
		at := store.Micro(now)
		a = store.Account{ID: uuid.NewString(), Plan: plan, CreatedAt: at}
		u = store.User{ID: uuid.NewString(), AccountID: a.ID, Email: email, PasswordHash: pw, CreatedAt: at}
		if _, err := tx.Exec(ctx, `INSERT INTO accounts (id, plan, created_at) VALUES ($1, $2, $3)`, a.ID, a.Plan, at); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `INSERT INTO users (`+userColumns+`) VALUES ($1, $2, $3, $4, $5)`, u.ID, u.AccountID, u.Email, u.PasswordHash, at)
		return userErr(err)
	})
	if err == nil {
		err = refusal
	}
	if err != nil {
		return store.Account{}, store.User{}, fmt.Errorf("confirm sign-up: %w", err)
	}
	return a, u, nil
}
