package postgres

import (
	"context"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"chartd.dev/libs/store"
)

var _ store.People = (*Store)(nil)

const userColumns = `id, account_id, email, password_hash, created_at`

func scanUser(r pgx.Row) (store.User, error) {
	var u store.User
	if err := r.Scan(&u.ID, &u.AccountID, &u.Email, &u.PasswordHash, &u.CreatedAt); err != nil {
		return store.User{}, err
	}
	u.CreatedAt = store.Micro(u.CreatedAt)
	return u, nil
}

// userErr maps the constraint violations of a user or session insert.
func userErr(err error) error {
	switch pgCode(err) {
	case codeUniqueViolation:
		return store.ErrConflict
	case codeForeignKeyViolation:
		return store.ErrNotFound
	}
	return err
}

// SignUp makes an account and its first user in one transaction.
func (s *Store) SignUp(ctx context.Context, plan, email, passwordHash string) (store.Account, store.User, error) {
	if !store.ValidPlan(plan) {
		return store.Account{}, store.User{}, fmt.Errorf("sign up: %w: %q", store.ErrInvalidPlan, plan)
	}
	now := store.Micro(time.Now())
	a := store.Account{ID: uuid.NewString(), Plan: plan, CreatedAt: now}
	u := store.User{ID: uuid.NewString(), AccountID: a.ID, Email: email, PasswordHash: passwordHash, CreatedAt: now}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if _, err := tx.Exec(ctx, `INSERT INTO accounts (id, plan, created_at) VALUES ($1, $2, $3)`, a.ID, a.Plan, now); err != nil {
			return err
		}
		_, err := tx.Exec(ctx, `INSERT INTO users (`+userColumns+`) VALUES ($1, $2, $3, $4, $5)`, u.ID, u.AccountID, u.Email, u.PasswordHash, now)
		return userErr(err)
	})
	if err != nil {
		return store.Account{}, store.User{}, fmt.Errorf("sign up %s: %w", email, full(err))
	}
	return a, u, nil
}

// CreateUser adds a user to an existing account.
func (s *Store) CreateUser(ctx context.Context, accountID, email, passwordHash string) (store.User, error) {
	u := store.User{ID: uuid.NewString(), AccountID: accountID, Email: email, PasswordHash: passwordHash, CreatedAt: store.Micro(time.Now())}
	if _, err := s.pool.Exec(ctx, `INSERT INTO users (`+userColumns+`) VALUES ($1, $2, $3, $4, $5)`,
		u.ID, u.AccountID, u.Email, u.PasswordHash, u.CreatedAt); err != nil {
		return store.User{}, fmt.Errorf("create user %s: %w", email, userErr(err))
	}
	return u, nil
}

// FindUserByEmail finds the user signing in.
func (s *Store) FindUserByEmail(ctx context.Context, email string) (store.User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE email = $1`, email))
	if err != nil {
		return store.User{}, fmt.Errorf("find user by email: %w", notFound(err))
	}
	return u, nil
}

// GetUser loads one of the account's users.
func (s *Store) GetUser(ctx context.Context, accountID, userID string) (store.User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx, `SELECT `+userColumns+` FROM users WHERE account_id = $1 AND id = $2`, accountID, userID))
	if err != nil {
		return store.User{}, fmt.Errorf("get user %s: %w", userID, notFound(err))
	}
	return u, nil
}

// ListUsers lists the account's users, oldest first.
func (s *Store) ListUsers(ctx context.Context, accountID string) ([]store.User, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+userColumns+` FROM users WHERE account_id = $1 ORDER BY created_at, id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.User, error) { return scanUser(r) })
	if err != nil {
		return nil, fmt.Errorf("list users: %w", err)
	}
	return out, nil
}

// SetPassword replaces a user's password hash.
func (s *Store) SetPassword(ctx context.Context, accountID, userID, passwordHash string) error {
	tag, err := s.pool.Exec(ctx, `UPDATE users SET password_hash = $3 WHERE account_id = $1 AND id = $2`, accountID, userID, passwordHash)
	if err == nil {
		err = mustAffect(tag)
	}
	if err != nil {
		return fmt.Errorf("set password of user %s: %w", userID, full(err))
	}
	return nil
}

// CreateSession stores a session by its hash.
func (s *Store) CreateSession(ctx context.Context, se store.Session) error {
	if _, err := s.pool.Exec(ctx,
		`INSERT INTO sessions (hash, account_id, user_id, created_at, expires_at) VALUES ($1, $2, $3, $4, $5)`,
		nonNil(se.Hash), se.AccountID, se.UserID, store.Micro(se.CreatedAt), store.Micro(se.ExpiresAt)); err != nil {
		return fmt.Errorf("create session: %w", userErr(err))
	}
	return nil
}

// LookupSession finds a live session and its account.
func (s *Store) LookupSession(ctx context.Context, hash []byte, now time.Time) (store.Session, store.Account, error) {
	var se store.Session
	var a store.Account
	err := s.pool.QueryRow(ctx,
		`SELECT s.hash, s.account_id, s.user_id, s.created_at, s.expires_at, a.id, a.plan, a.created_at
		   FROM sessions s JOIN accounts a ON a.id = s.account_id
		  WHERE s.hash = $1 AND s.expires_at > $2`, nonNil(hash), store.Micro(now)).
		Scan(&se.Hash, &se.AccountID, &se.UserID, &se.CreatedAt, &se.ExpiresAt, &a.ID, &a.Plan, &a.CreatedAt)
	if err != nil {
		return store.Session{}, store.Account{}, fmt.Errorf("look up session: %w", notFound(err))
	}
	se.CreatedAt, se.ExpiresAt, a.CreatedAt = store.Micro(se.CreatedAt), store.Micro(se.ExpiresAt), store.Micro(a.CreatedAt)
	return se, a, nil
}

// DeleteSession ends one of the account's sessions.
func (s *Store) DeleteSession(ctx context.Context, accountID string, hash []byte) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE account_id = $1 AND hash = $2`, accountID, nonNil(hash)); err != nil {
		return fmt.Errorf("delete session: %w", full(err))
	}
	return nil
}

// DeleteUserSessions ends every session of a user.
func (s *Store) DeleteUserSessions(ctx context.Context, accountID, userID string) error {
	if _, err := s.pool.Exec(ctx, `DELETE FROM sessions WHERE account_id = $1 AND user_id = $2`, accountID, userID); err != nil {
		return fmt.Errorf("delete sessions of user %s: %w", userID, full(err))
	}
	return nil
}

// CreateSignInToken stores a one-time sign-in token by its hash.
func (s *Store) CreateSignInToken(ctx context.Context, accountID, userID string, hash []byte, expires time.Time) error {
	if _, err := s.pool.Exec(ctx,
		`INSERT INTO signin_tokens (hash, account_id, user_id, expires_at) VALUES ($1, $2, $3, $4)`,
		nonNil(hash), accountID, userID, store.Micro(expires)); err != nil {
		return fmt.Errorf("create sign-in token: %w", userErr(err))
	}
	return nil
}

// UseSignInToken spends a token: one conditional UPDATE marks it used, so
// two uses racing see one winner.
func (s *Store) UseSignInToken(ctx context.Context, hash []byte, now time.Time) (store.User, error) {
	u, err := scanUser(s.pool.QueryRow(ctx,
		`WITH spent AS (
		   UPDATE signin_tokens SET used_at = $2 WHERE hash = $1 AND used_at IS NULL AND expires_at > $2
		   RETURNING account_id, user_id)
		 SELECT u.id, u.account_id, u.email, u.password_hash, u.created_at
		   FROM users u JOIN spent ON u.account_id = spent.account_id AND u.id = spent.user_id`,
		nonNil(hash), store.Micro(now)))
	if err != nil {
		return store.User{}, fmt.Errorf("use sign-in token: %w", full(notFound(err)))
	}
	return u, nil
}

// TouchAPIKey records a key's latest use; the key must be the account's.
func (s *Store) TouchAPIKey(ctx context.Context, accountID, keyID string, at time.Time) error {
	tag, err := s.pool.Exec(ctx,
		`INSERT INTO api_key_uses (key_id, account_id, last_used_at)
		 SELECT id, account_id, $3 FROM api_keys WHERE id = $1 AND account_id = $2
		 ON CONFLICT (key_id) DO UPDATE SET last_used_at = greatest(api_key_uses.last_used_at, excluded.last_used_at)`,
		keyID, accountID, store.Micro(at))
	if err == nil {
		err = mustAffect(tag)
	}
	if err != nil {
		return fmt.Errorf("touch api key %s: %w", keyID, full(err))
	}
	return nil
}

// APIKeysLastUsed answers when the account's keys were last used.
func (s *Store) APIKeysLastUsed(ctx context.Context, accountID string) (map[string]time.Time, error) {
	rows, err := s.pool.Query(ctx, `SELECT key_id, last_used_at FROM api_key_uses WHERE account_id = $1`, accountID)
	if err != nil {
		return nil, fmt.Errorf("api keys last used: %w", err)
	}
	defer rows.Close()
	out := map[string]time.Time{}
	for rows.Next() {
		var id string
		var at time.Time
		if err := rows.Scan(&id, &at); err != nil {
			return nil, fmt.Errorf("api keys last used: %w", err)
		}
		out[id] = store.Micro(at)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("api keys last used: %w", err)
	}
	return out, nil
}
