package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"chartd.dev/libs/store"
)

var _ store.PendingSignUps = (*Store)(nil)

// PutPendingSignUp stores a pending sign-up, replacing its email's older
// one, and drops the expired ones.
func (s *Store) PutPendingSignUp(ctx context.Context, p store.PendingSignUp) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("put pending sign-up: %w", err)
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `DELETE FROM pending_signups WHERE expires_at <= ?`, micros(p.CreatedAt)); err != nil {
		return fmt.Errorf("put pending sign-up: %w", err)
	}
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO pending_signups (hash, email, password_hash, created_at, expires_at) VALUES (?, ?, ?, ?, ?)
		 ON CONFLICT (email) DO UPDATE SET hash = excluded.hash, password_hash = excluded.password_hash,
		   created_at = excluded.created_at, expires_at = excluded.expires_at`,
		nonNil(p.Hash), p.Email, p.PasswordHash, micros(p.CreatedAt), micros(p.ExpiresAt)); err != nil {
		if isUnique(err) {
			err = store.ErrConflict
		}
		return fmt.Errorf("put pending sign-up: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return fmt.Errorf("put pending sign-up: %w", err)
	}
	return nil
}

// ConfirmSignUp spends a pending sign-up and makes its account, in one
// write transaction; the spend is committed even when the answer is a
// refusal.
func (s *Store) ConfirmSignUp(ctx context.Context, hash []byte, plan string, now time.Time) (store.Account, store.User, error) {
	if !store.ValidPlan(plan) {
		return store.Account{}, store.User{}, fmt.Errorf("confirm sign-up: %w: %q", store.ErrInvalidPlan, plan)
	}
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return store.Account{}, store.User{}, fmt.Errorf("confirm sign-up: %w", err)
	}
	defer tx.Rollback()
	refuse := func(why error) (store.Account, store.User, error) {
		if err := tx.Commit(); err != nil {
			return store.Account{}, store.User{}, fmt.Errorf("confirm sign-up: %w", err)
		}
		return store.Account{}, store.User{}, fmt.Errorf("confirm sign-up: %w", why)
	}
	var email, pw string
	var expires int64
	err = tx.QueryRowContext(ctx, `DELETE FROM pending_signups WHERE hash = ? RETURNING email, password_hash, expires_at`, nonNil(hash)).
		Scan(&email, &pw, &expires)
	if errors.Is(err, sql.ErrNoRows) || err == nil && expires <= micros(now) {
		return refuse(store.ErrNotFound)
	}
	if err != nil {
		return store.Account{}, store.User{}, fmt.Errorf("confirm sign-up: %w", err)
	}
	var taken bool
	if err := tx.QueryRowContext(ctx, `SELECT EXISTS (SELECT 1 FROM users WHERE email = ?)`, email).Scan(&taken); err != nil {
		return store.Account{}, store.User{}, fmt.Errorf("confirm sign-up: %w", err)
	}
	if taken {
		return refuse(store.ErrConflict)
	}
	at := store.Micro(now)
	a := store.Account{ID: uuid.NewString(), Plan: plan, CreatedAt: at}
	u := store.User{ID: uuid.NewString(), AccountID: a.ID, Email: email, PasswordHash: pw, CreatedAt: at}
	if _, err := tx.ExecContext(ctx, `INSERT INTO accounts (id, plan, created_at) VALUES (?, ?, ?)`, a.ID, a.Plan, micros(at)); err != nil {
		return store.Account{}, store.User{}, fmt.Errorf("confirm sign-up: %w", err)
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO users (`+userColumns+`) VALUES (?, ?, ?, ?, ?)`,
		u.ID, u.AccountID, u.Email, u.PasswordHash, micros(at)); err != nil {
		if isUnique(err) {
			err = store.ErrConflict
		}
		return store.Account{}, store.User{}, fmt.Errorf("confirm sign-up: %w", err)
	}
	if err := tx.Commit(); err != nil {
		return store.Account{}, store.User{}, fmt.Errorf("confirm sign-up: %w", err)
	}
	return a, u, nil
}
