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

var _ store.OAuth = (*Store)(nil)

// CreateOAuthClient registers an app.
func (s *Store) CreateOAuthClient(ctx context.Context, name string, redirectURIs []string) (store.OAuthClient, error) {
	c := store.OAuthClient{ID: uuid.NewString(), Name: name, RedirectURIs: redirectURIs, CreatedAt: store.Micro(time.Now())}
	if c.RedirectURIs == nil {
		c.RedirectURIs = []string{}
	}
	if _, err := s.pool.Exec(ctx, `INSERT INTO oauth_clients (id, name, redirect_uris, created_at) VALUES ($1, $2, $3, $4)`,
		c.ID, c.Name, c.RedirectURIs, c.CreatedAt); err != nil {
		return store.OAuthClient{}, fmt.Errorf("create oauth client: %w", full(err))
	}
	return c, nil
}

// GetOAuthClient loads an app.
func (s *Store) GetOAuthClient(ctx context.Context, id string) (store.OAuthClient, error) {
	var c store.OAuthClient
	err := s.pool.QueryRow(ctx, `SELECT id, name, redirect_uris, created_at FROM oauth_clients WHERE id = $1`, id).
		Scan(&c.ID, &c.Name, &c.RedirectURIs, &c.CreatedAt)
	if err != nil {
		return store.OAuthClient{}, fmt.Errorf("get oauth client %s: %w", id, notFound(err))
	}
	c.CreatedAt = store.Micro(c.CreatedAt)
	return c, nil
}

// DeleteUnusedOAuthClients deletes apps registered before before that
// have no grant.
func (s *Store) DeleteUnusedOAuthClients(ctx context.Context, before time.Time) (int, error) {
	tag, err := s.pool.Exec(ctx, `DELETE FROM oauth_clients c WHERE c.created_at < $1
		AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = c.id)`, before.UTC())
	if err != nil {
		return 0, fmt.Errorf("delete unused oauth clients: %w", full(err))
	}
	return int(tag.RowsAffected()), nil
}

const grantColumns = `g.id, g.account_id, g.client_id, c.name, g.scopes, g.resource, g.created_at, g.last_used_at, g.revoked_at`

func scanGrant(r pgx.Row, extra ...any) (store.OAuthGrant, error) {
	var g store.OAuthGrant
	if err := r.Scan(append([]any{&g.ID, &g.AccountID, &g.ClientID, &g.ClientName, &g.Scopes, &g.Resource, &g.CreatedAt, &g.LastUsedAt, &g.RevokedAt}, extra...)...); err != nil {
		return store.OAuthGrant{}, err
	}
	g.CreatedAt = store.Micro(g.CreatedAt)
	g.LastUsedAt = optMicro(g.LastUsedAt)
	g.RevokedAt = optMicro(g.RevokedAt)
	return g, nil
}

// CreateOAuthGrant stores a grant with a fresh id.
func (s *Store) CreateOAuthGrant(ctx context.Context, g store.OAuthGrant) (store.OAuthGrant, error) {
	g.ID = uuid.NewString()
	g.CreatedAt = store.Micro(g.CreatedAt)
	g.LastUsedAt, g.RevokedAt = nil, nil
	if g.Scopes == nil {
		g.Scopes = []string{}
	}
	err := s.pool.QueryRow(ctx, `WITH ins AS (
		   INSERT INTO oauth_grants (id, account_id, client_id, scopes, resource, created_at) VALUES ($1, $2, $3, $4, $5, $6) RETURNING client_id)
		 SELECT c.name FROM oauth_clients c JOIN ins ON c.id = ins.client_id`,
		g.ID, g.AccountID, g.ClientID, g.Scopes, g.Resource, g.CreatedAt).Scan(&g.ClientName)
	if pgCode(err) == codeForeignKeyViolation {
		err = store.ErrNotFound
	}
	if err != nil {
		return store.OAuthGrant{}, fmt.Errorf("create oauth grant: %w", full(err))
	}
	return g, nil
}

// GetOAuthGrant loads a grant by id.
func (s *Store) GetOAuthGrant(ctx context.Context, id string) (store.OAuthGrant, error) {
	g, err := scanGrant(s.pool.QueryRow(ctx, `SELECT `+grantColumns+` FROM oauth_grants g JOIN oauth_clients c ON c.id = g.client_id WHERE g.id = $1`, id))
	if err != nil {
		return store.OAuthGrant{}, fmt.Errorf("get oauth grant %s: %w", id, notFound(err))
	}
	return g, nil
}

// ListOAuthGrants lists the account's live grants, oldest first.
func (s *Store) ListOAuthGrants(ctx context.Context, accountID string) ([]store.OAuthGrant, error) {
	rows, err := s.pool.Query(ctx, `SELECT `+grantColumns+` FROM oauth_grants g JOIN oauth_clients c ON c.id = g.client_id
		WHERE g.account_id = $1 AND g.revoked_at IS NULL ORDER BY g.created_at, g.id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("list oauth grants: %w", err)
	}
	defer rows.Close()
	var out []store.OAuthGrant
	for rows.Next() {
		g, err := scanGrant(rows)
		if err != nil {
			return nil, fmt.Errorf("list oauth grants: %w", err)
		}
		out = append(out, g)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list oauth grants: %w", err)
	}
	return out, nil
}

// RevokeOAuthGrant revokes a grant and deletes its tokens in one
// transaction.
func (s *Store) RevokeOAuthGrant(ctx context.Context, accountID, id string, at time.Time) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		tag, err := tx.Exec(ctx, `UPDATE oauth_grants SET revoked_at = coalesce(revoked_at, $3) WHERE account_id = $1 AND id = $2`, accountID, id, store.Micro(at))
		if err != nil {
			return err
		}
		if err := mustAffect(tag); err != nil {
			return err
		}
		_, err = tx.Exec(ctx, `DELETE FROM oauth_tokens WHERE grant_id = $1`, id)
		return err
	})
	if err != nil {
		return fmt.Errorf("revoke oauth grant %s of account %s: %w", id, accountID, full(err))
	}
	return nil
}

// TouchOAuthGrant records a use; an older time is ignored.
func (s *Store) TouchOAuthGrant(ctx context.Context, id string, at time.Time) error {
	if _, err := s.pool.Exec(ctx, `UPDATE oauth_grants SET last_used_at = greatest(last_used_at, $2) WHERE id = $1`, id, store.Micro(at)); err != nil {
		return fmt.Errorf("touch oauth grant %s: %w", id, full(err))
	}
	return nil
}

// CreateOAuthToken stores a code or token of a live grant by its hash.
func (s *Store) CreateOAuthToken(ctx context.Context, t store.OAuthToken) error {
	tag, err := s.pool.Exec(ctx, `INSERT INTO oauth_tokens (hash, grant_id, kind, redirect_uri, challenge, expires_at)
		SELECT $1, id, $3, $4, $5, $6 FROM oauth_grants WHERE id = $2 AND revoked_at IS NULL`,
		nonNil(t.Hash), t.GrantID, t.Kind, t.RedirectURI, t.Challenge, store.Micro(t.ExpiresAt))
	switch {
	case pgCode(err) == codeUniqueViolation:
		err = store.ErrConflict
	case err == nil:
		err = mustAffect(tag)
	}
	if err != nil {
		return fmt.Errorf("create oauth %s: %w", t.Kind, full(err))
	}
	return nil
}

// SpendOAuthToken uses a code or refresh token once: one conditional
// UPDATE, so of two uses racing one wins.
func (s *Store) SpendOAuthToken(ctx context.Context, kind string, hash []byte, now time.Time) (store.OAuthToken, error) {
	t := store.OAuthToken{Hash: hash, Kind: kind}
	now = store.Micro(now)
	err := s.pool.QueryRow(ctx, `UPDATE oauth_tokens SET used_at = $3
		WHERE hash = $1 AND kind = $2 AND used_at IS NULL AND expires_at > $3
		  AND grant_id IN (SELECT id FROM oauth_grants WHERE revoked_at IS NULL)
		RETURNING grant_id, redirect_uri, challenge, expires_at, used_at`, nonNil(hash), kind, now).
		Scan(&t.GrantID, &t.RedirectURI, &t.Challenge, &t.ExpiresAt, &t.UsedAt)
	if err == nil {
		t.ExpiresAt = store.Micro(t.ExpiresAt)
		t.UsedAt = optMicro(t.UsedAt)
		return t, nil
	}
	if !errors.Is(err, pgx.ErrNoRows) {
		return store.OAuthToken{}, fmt.Errorf("spend oauth %s: %w", kind, full(err))
	}
	err = s.pool.QueryRow(ctx, `SELECT grant_id, redirect_uri, challenge, expires_at, used_at FROM oauth_tokens WHERE hash = $1 AND kind = $2`,
		nonNil(hash), kind).Scan(&t.GrantID, &t.RedirectURI, &t.Challenge, &t.ExpiresAt, &t.UsedAt)
	if err != nil {
		return store.OAuthToken{}, fmt.Errorf("spend oauth %s: %w", kind, full(notFound(err)))
	}
	if t.UsedAt == nil {
		return store.OAuthToken{}, fmt.Errorf("spend oauth %s: expired or revoked: %w", kind, store.ErrNotFound)
	}
	t.ExpiresAt = store.Micro(t.ExpiresAt)
	t.UsedAt = optMicro(t.UsedAt)
	return t, fmt.Errorf("spend oauth %s: already used: %w", kind, store.ErrConflict)
}

// LookupOAuthAccess answers the live access token's grant and account.
func (s *Store) LookupOAuthAccess(ctx context.Context, hash []byte, now time.Time) (store.OAuthGrant, store.Account, error) {
	var a store.Account
	g, err := scanGrant(s.pool.QueryRow(ctx, `SELECT `+grantColumns+`, a.id, a.plan, a.created_at
		FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN oauth_clients c ON c.id = g.client_id JOIN accounts a ON a.id = g.account_id
		WHERE t.hash = $1 AND t.kind = $2 AND t.expires_at > $3 AND g.revoked_at IS NULL`, nonNil(hash), store.OAuthAccess, store.Micro(now)),
		&a.ID, &a.Plan, &a.CreatedAt)
	if err != nil {
		return store.OAuthGrant{}, store.Account{}, fmt.Errorf("look up oauth access token: %w", notFound(err))
	}
	a.CreatedAt = store.Micro(a.CreatedAt)
	return g, a, nil
}
