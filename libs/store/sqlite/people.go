package sqlite

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"

	"chartd.dev/libs/store"
)

var _ store.People = (*Store)(nil)

const userColumns = `id, account_id, email, password_hash, created_at`

func scanUser(r scanner) (store.User, error) {
	var u store.User
	var created int64
	if err := r.Scan(&u.ID, &u.AccountID, &u.Email, &u.PasswordHash, &created); err != nil {
		return store.User{}, err
	}
	u.CreatedAt = fromMicros(created)
	return u, nil
}

// SignUp makes an account and its first user in one transaction.
func (s *Store) SignUp(ctx context.Context, plan, email, passwordHash string) (store.Account, store.User, error) {
	if err := s.writable(); err != nil {
		return store.Account{}, store.User{}, fmt.Errorf("sign up: %w", err)
	}
	if !store.ValidPlan(plan) {
		return store.Account{}, store.User{}, fmt.Errorf("sign up: %w: %q", store.ErrInvalidPlan, plan)
	}
	now := store.Micro(time.Now())
	a := store.Account{ID: uuid.NewString(), Plan: plan, CreatedAt: now}
	u := store.User{ID: uuid.NewString(), AccountID: a.ID, Email: email, PasswordHash: passwordHash, CreatedAt: now}
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return store.Account{}, store.User{}, fmt.Errorf("sign up: %w", s.check(err))
	}
	defer tx.Rollback()
	if _, err := tx.ExecContext(ctx, `INSERT INTO accounts (id, plan, created_at) VALUES (?, ?, ?)`, a.ID, a.Plan, micros(now)); err != nil {
		return store.Account{}, store.User{}, fmt.Errorf("sign up: %w", s.check(err))
	}
	if _, err := tx.ExecContext(ctx, `INSERT INTO users (`+userColumns+`) VALUES (?, ?, ?, ?, ?)`,
		u.ID, u.AccountID, u.Email, u.PasswordHash, micros(now)); err != nil {
		if isUnique(err) {
			err = store.ErrConflict
		}
		return store.Account{}, store.User{}, fmt.Errorf("sign up %s: %w", email, s.check(err))
	}
	if err := tx.Commit(); err != nil {
		return store.Account{}, store.User{}, fmt.Errorf("sign up: %w", s.check(err))
	}
	return a, u, nil
}

// CreateUser adds a user to an existing account.
func (s *Store) CreateUser(ctx context.Context, accountID, email, passwordHash string) (store.User, error) {
	if err := s.writable(); err != nil {
		return store.User{}, fmt.Errorf("create user: %w", err)
	}
	u := store.User{ID: uuid.NewString(), AccountID: accountID, Email: email, PasswordHash: passwordHash, CreatedAt: store.Micro(time.Now())}
	if _, err := s.write.ExecContext(ctx, `INSERT INTO users (`+userColumns+`) VALUES (?, ?, ?, ?, ?)`,
		u.ID, u.AccountID, u.Email, u.PasswordHash, micros(u.CreatedAt)); err != nil {
		switch {
		case isUnique(err):
			err = store.ErrConflict
		case isForeignKey(err):
			err = store.ErrNotFound
		}
		return store.User{}, fmt.Errorf("create user %s: %w", email, s.check(err))
	}
	return u, nil
}

// FindUserByEmail finds the user signing in.
func (s *Store) FindUserByEmail(ctx context.Context, email string) (store.User, error) {
	u, err := scanUser(s.read.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE email = ?`, email))
	if err != nil {
		return store.User{}, fmt.Errorf("find user by email: %w", notFound(err))
	}
	return u, nil
}

// GetUser loads one of the account's users.
func (s *Store) GetUser(ctx context.Context, accountID, userID string) (store.User, error) {
	u, err := scanUser(s.read.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE account_id = ? AND id = ?`, accountID, userID))
	if err != nil {
		return store.User{}, fmt.Errorf("get user %s: %w", userID, notFound(err))
	}
	return u, nil
}

// ListUsers lists the account's users, oldest first.
func (s *Store) ListUsers(ctx context.Context, accountID string) ([]store.User, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+userColumns+` FROM users WHERE account_id = ? ORDER BY created_at, id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	defer rows.Close()
	var out []store.User
	for rows.Next() {
		u, err := scanUser(rows)
		if err != nil {
			return nil, fmt.Errorf("list users: %w", err)
		}
		out = append(out, u)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return out, nil
}

// SetPassword replaces a user's password hash.
func (s *Store) SetPassword(ctx context.Context, accountID, userID, passwordHash string) error {
	res, err := s.write.ExecContext(ctx, `UPDATE users SET password_hash = ? WHERE account_id = ? AND id = ?`, passwordHash, accountID, userID)
	if err == nil {
		err = mustAffect(res)
	}
	if err != nil {
		return fmt.Errorf("set password of user %s: %w", userID, s.check(err))
	}
	return nil
}

// CreateSession stores a session by its hash.
func (s *Store) CreateSession(ctx context.Context, se store.Session) error {
	if _, err := s.write.ExecContext(ctx,
		`INSERT INTO sessions (hash, account_id, user_id, created_at, expires_at) VALUES (?, ?, ?, ?, ?)`,
		nonNil(se.Hash), se.AccountID, se.UserID, micros(se.CreatedAt), micros(se.ExpiresAt)); err != nil {
		switch {
		case isUnique(err):
			err = store.ErrConflict
		case isForeignKey(err):
			err = store.ErrNotFound
		}
		return fmt.Errorf("create session: %w", s.check(err))
	}
	return nil
}

// LookupSession finds a live session and its account.
func (s *Store) LookupSession(ctx context.Context, hash []byte, now time.Time) (store.Session, store.Account, error) {
	var se store.Session
	var a store.Account
	var created, expires, acctCreated int64
	err := s.read.QueryRowContext(ctx,
		`SELECT s.hash, s.account_id, s.user_id, s.created_at, s.expires_at, a.id, a.plan, a.created_at
		   FROM sessions s JOIN accounts a ON a.id = s.account_id
		  WHERE s.hash = ? AND s.expires_at > ?`, nonNil(hash), micros(now)).
		Scan(&se.Hash, &se.AccountID, &se.UserID, &created, &expires, &a.ID, &a.Plan, &acctCreated)
	if err != nil {
		return store.Session{}, store.Account{}, fmt.Errorf("look up session: %w", notFound(err))
	}
	se.CreatedAt, se.ExpiresAt, a.CreatedAt = fromMicros(created), fromMicros(expires), fromMicros(acctCreated)
	return se, a, nil
}

// DeleteSession ends one of the account's sessions.
func (s *Store) DeleteSession(ctx context.Context, accountID string, hash []byte) error {
	if _, err := s.write.ExecContext(ctx, `DELETE FROM sessions WHERE account_id = ? AND hash = ?`, accountID, nonNil(hash)); err != nil {
		return fmt.Errorf("delete session: %w", s.check(err))
	}
	return nil
}

// DeleteUserSessions ends every session of a user.
func (s *Store) DeleteUserSessions(ctx context.Context, accountID, userID string) error {
	if _, err := s.write.ExecContext(ctx, `DELETE FROM sessions WHERE account_id = ? AND user_id = ?`, accountID, userID); err != nil {
		return fmt.Errorf("delete sessions of user %s: %w", userID, s.check(err))
	}
	return nil
}

// CreateSignInToken stores a one-time sign-in token by its hash.
func (s *Store) CreateSignInToken(ctx context.Context, accountID, userID string, hash []byte, expires time.Time) error {
	if _, err := s.write.ExecContext(ctx,
		`INSERT INTO signin_tokens (hash, account_id, user_id, expires_at) VALUES (?, ?, ?, ?)`,
		nonNil(hash), accountID, userID, micros(expires)); err != nil {
		switch {
		case isUnique(err):
			err = store.ErrConflict
		case isForeignKey(err):
			err = store.ErrNotFound
		}
		return fmt.Errorf("create sign-in token: %w", s.check(err))
	}
	return nil
}

// UseSignInToken spends a token: one UPDATE marks it used only when it is
// unused and unexpired, so two uses racing see one winner.
func (s *Store) UseSignInToken(ctx context.Context, hash []byte, now time.Time) (store.User, error) {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return store.User{}, fmt.Errorf("use sign-in token: %w", s.check(err))
	}
	defer tx.Rollback()
	var accountID, userID string
	err = tx.QueryRowContext(ctx,
		`UPDATE signin_tokens SET used_at = ? WHERE hash = ? AND used_at IS NULL AND expires_at > ? RETURNING account_id, user_id`,
		micros(now), nonNil(hash), micros(now)).Scan(&accountID, &userID)
	if err != nil {
		return store.User{}, fmt.Errorf("use sign-in token: %w", s.check(notFound(err)))
	}
	u, err := scanUser(tx.QueryRowContext(ctx, `SELECT `+userColumns+` FROM users WHERE account_id = ? AND id = ?`, accountID, userID))
	if err != nil {
		return store.User{}, fmt.Errorf("use sign-in token: %w", s.check(notFound(err)))
	}
	if err := tx.Commit(); err != nil {
		return store.User{}, fmt.Errorf("use sign-in token: %w", s.check(err))
	}
	return u, nil
}

// TouchAPIKey records a key's latest use; the key must be the account's.
func (s *Store) TouchAPIKey(ctx context.Context, accountID, keyID string, at time.Time) error {
	res, err := s.write.ExecContext(ctx,
		`INSERT INTO api_key_uses (key_id, account_id, last_used_at)
		 SELECT id, account_id, ? FROM api_keys WHERE id = ? AND account_id = ?
		 ON CONFLICT (key_id) DO UPDATE SET last_used_at = max(last_used_at, excluded.last_used_at)`,
		micros(at), keyID, accountID)
	if err == nil {
		err = mustAffect(res)
	}
	if err != nil {
		return fmt.Errorf("touch api key %s: %w", keyID, s.check(err))
	}
	return nil
}

// APIKeysLastUsed answers when the account's keys were last used.
func (s *Store) APIKeysLastUsed(ctx context.Context, accountID string) (map[string]time.Time, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT key_id, last_used_at FROM api_key_uses WHERE account_id = ?`, accountID)
	if err != nil {
		return nil, fmt.Errorf("api keys last used: %w", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var id string
		var at int64
		if err := rows.Scan(&id, &at); err != nil {
			return nil, fmt.Errorf("api keys last used: %w", err)
		}
		out[id] = fromMicros(at)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("api keys last used: %w", err)
	}
	return out, nil
}
