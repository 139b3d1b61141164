package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"strings"
	"time"

	"github.com/google/uuid"

	"chartd.dev/libs/store"
)

var _ store.OAuth = (*Store)(nil)

// CreateOAuthClient registers an app; its redirect URIs are kept as JSON.
func (s *Store) CreateOAuthClient(ctx context.Context, name string, redirectURIs []string) (store.OAuthClient, error) {
	if err := s.writable(); err != nil {
		return store.OAuthClient{}, fmt.Errorf("create oauth client: %w", err)
	}
	c := store.OAuthClient{ID: uuid.NewString(), Name: name, RedirectURIs: redirectURIs, CreatedAt: store.Micro(time.Now())}
	uris, err := json.Marshal(redirectURIs)
	if err != nil {
		return store.OAuthClient{}, fmt.Errorf("create oauth client: %w", s.check(err))
	}
	if _, err := s.write.ExecContext(ctx, `INSERT INTO oauth_clients (id, name, redirect_uris, created_at) VALUES (?, ?, ?, ?)`,
		c.ID, c.Name, string(uris), micros(c.CreatedAt)); err != nil {
		return store.OAuthClient{}, fmt.Errorf("create oauth client: %w", s.check(err))
	}
	return c, nil
}

// GetOAuthClient loads an app.
func (s *Store) GetOAuthClient(ctx context.Context, id string) (store.OAuthClient, error) {
	var c store.OAuthClient
	var uris string
	var created int64
	err := s.read.QueryRowContext(ctx, `SELECT id, name, redirect_uris, created_at FROM oauth_clients WHERE id = ?`, id).
		Scan(&c.ID, &c.Name, &uris, &created)
	if err != nil {
		return store.OAuthClient{}, fmt.Errorf("get oauth client %s: %w", id, notFound(err))
	}
	if err := json.Unmarshal([]byte(uris), &c.RedirectURIs); err != nil {
		return store.OAuthClient{}, fmt.Errorf("get oauth client %s: redirect uris: %w", id, err)
	}
	c.CreatedAt = fromMicros(created)
	return c, nil
}

// DeleteUnusedOAuthClients deletes apps registered before before that
// have no grant.
func (s *Store) DeleteUnusedOAuthClients(ctx context.Context, before time.Time) (int, error) {
	res, err := s.write.ExecContext(ctx, `DELETE FROM oauth_clients WHERE created_at < ?
		AND NOT EXISTS (SELECT 1 FROM oauth_grants g WHERE g.client_id = oauth_clients.id)`, micros(before))
	if err != nil {
		return 0, fmt.Errorf("delete unused oauth clients: %w", s.check(err))
	}
	n, err := res.RowsAffected()
	return int(n), err
}

const grantColumns = `g.id, g.account_id, g.client_id, c.name, g.scopes, g.resource, g.created_at, g.last_used_at, g.revoked_at`

func scanGrant(r scanner, extra ...any) (store.OAuthGrant, error) {
	var g store.OAuthGrant
	var scopes string
	var created int64
	var used, revoked sql.NullInt64
	if err := r.Scan(append([]any{&g.ID, &g.AccountID, &g.ClientID, &g.ClientName, &scopes, &g.Resource, &created, &used, &revoked}, extra...)...); err != nil {
		return store.OAuthGrant{}, err
	}
	g.Scopes = strings.Fields(scopes)
	g.CreatedAt = fromMicros(created)
	g.LastUsedAt = fromNullMicros(used)
	g.RevokedAt = fromNullMicros(revoked)
	return g, nil
}

// CreateOAuthGrant stores a grant with a fresh id.
func (s *Store) CreateOAuthGrant(ctx context.Context, g store.OAuthGrant) (store.OAuthGrant, error) {
	g.ID = uuid.NewString()
	g.CreatedAt = store.Micro(g.CreatedAt)
	g.LastUsedAt, g.RevokedAt = nil, nil
	if _, err := s.write.ExecContext(ctx, `INSERT INTO oauth_grants (id, account_id, client_id, scopes, resource, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		g.ID, g.AccountID, g.ClientID, strings.Join(g.Scopes, " "), g.Resource, micros(g.CreatedAt)); err != nil {
		if isForeignKey(err) {
			err = store.ErrNotFound
		}
		return store.OAuthGrant{}, fmt.Errorf("create oauth grant: %w", s.check(err))
	}
	c, err := s.GetOAuthClient(ctx, g.ClientID)
	if err != nil {
		return store.OAuthGrant{}, fmt.Errorf("create oauth grant: %w", s.check(err))
	}
	g.ClientName = c.Name
	return g, nil
}

// GetOAuthGrant loads a grant by id.
func (s *Store) GetOAuthGrant(ctx context.Context, id string) (store.OAuthGrant, error) {
	g, err := scanGrant(s.read.QueryRowContext(ctx, `SELECT `+grantColumns+` FROM oauth_grants g JOIN oauth_clients c ON c.id = g.client_id WHERE g.id = ?`, id))
	if err != nil {
		return store.OAuthGrant{}, fmt.Errorf("get oauth grant %s: %w", id, notFound(err))
	}
	return g, nil
}

// ListOAuthGrants lists the account's live grants, oldest first.
func (s *Store) ListOAuthGrants(ctx context.Context, accountID string) ([]store.OAuthGrant, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT `+grantColumns+` FROM oauth_grants g JOIN oauth_clients c ON c.id = g.client_id
		WHERE g.account_id = ? AND g.revoked_at IS NULL ORDER BY g.created_at, g.id`, accountID)
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
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return fmt.Errorf("revoke oauth grant %s: %w", id, s.check(err))
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx, `UPDATE oauth_grants SET revoked_at = coalesce(revoked_at, ?) WHERE account_id = ? AND id = ?`, micros(at), accountID, id)
	if err == nil {
		err = mustAffect(res)
	}
	if err == nil {
		_, err = tx.ExecContext(ctx, `DELETE FROM oauth_tokens WHERE grant_id = ?`, id)
	}
	if err == nil {
		err = tx.Commit()
	}
	if err != nil {
		return fmt.Errorf("revoke oauth grant %s of account %s: %w", id, accountID, s.check(err))
	}
	return nil
}

// TouchOAuthGrant records a use; an older time is ignored.
func (s *Store) TouchOAuthGrant(ctx context.Context, id string, at time.Time) error {
	if _, err := s.write.ExecContext(ctx, `UPDATE oauth_grants SET last_used_at = max(coalesce(last_used_at, 0), ?) WHERE id = ?`, micros(at), id); err != nil {
		return fmt.Errorf("touch oauth grant %s: %w", id, s.check(err))
	}
	return nil
}

// CreateOAuthToken stores a code or token of a live grant by its hash.
func (s *Store) CreateOAuthToken(ctx context.Context, t store.OAuthToken) error {
	res, err := s.write.ExecContext(ctx, `INSERT INTO oauth_tokens (hash, grant_id, kind, redirect_uri, challenge, expires_at)
		SELECT ?, id, ?, ?, ?, ? FROM oauth_grants WHERE id = ? AND revoked_at IS NULL`,
		nonNil(t.Hash), t.Kind, t.RedirectURI, t.Challenge, micros(t.ExpiresAt), t.GrantID)
	switch {
	case isUnique(err):
		err = store.ErrConflict
	case err == nil:
		err = mustAffect(res)
	}
	if err != nil {
		return fmt.Errorf("create oauth %s: %w", t.Kind, s.check(err))
	}
	return nil
}

// SpendOAuthToken uses a code or refresh token once: one conditional
// UPDATE, so of two uses racing one wins.
func (s *Store) SpendOAuthToken(ctx context.Context, kind string, hash []byte, now time.Time) (store.OAuthToken, error) {
	t := store.OAuthToken{Hash: hash, Kind: kind}
	var expires int64
	err := s.write.QueryRowContext(ctx, `UPDATE oauth_tokens SET used_at = ?
		WHERE hash = ? AND kind = ? AND used_at IS NULL AND expires_at > ?
		  AND grant_id IN (SELECT id FROM oauth_grants WHERE revoked_at IS NULL)
		RETURNING grant_id, redirect_uri, challenge, expires_at`, micros(now), nonNil(hash), kind, micros(now)).
		Scan(&t.GrantID, &t.RedirectURI, &t.Challenge, &expires)
	if err == nil {
		t.ExpiresAt = fromMicros(expires)
		used := store.Micro(now)
		t.UsedAt = &used
		return t, nil
	}
	if !errors.Is(err, sql.ErrNoRows) {
		return store.OAuthToken{}, fmt.Errorf("spend oauth %s: %w", kind, s.check(err))
	}
	var used sql.NullInt64
	err = s.write.QueryRowContext(ctx, `SELECT grant_id, redirect_uri, challenge, expires_at, used_at FROM oauth_tokens WHERE hash = ? AND kind = ?`,
		nonNil(hash), kind).Scan(&t.GrantID, &t.RedirectURI, &t.Challenge, &expires, &used)
	if err != nil {
		return store.OAuthToken{}, fmt.Errorf("spend oauth %s: %w", kind, s.check(notFound(err)))
	}
	if !used.Valid {
		return store.OAuthToken{}, fmt.Errorf("spend oauth %s: expired or revoked: %w", kind, store.ErrNotFound)
	}
	t.ExpiresAt = fromMicros(expires)
	t.UsedAt = fromNullMicros(used)
	return t, fmt.Errorf("spend oauth %s: already used: %w", kind, store.ErrConflict)
}

// LookupOAuthAccess answers the live access token's grant and account.
func (s *Store) LookupOAuthAccess(ctx context.Context, hash []byte, now time.Time) (store.OAuthGrant, store.Account, error) {
	var a store.Account
	var created int64
	g, err := scanGrant(s.read.QueryRowContext(ctx, `SELECT `+grantColumns+`, a.id, a.plan, a.created_at
		FROM oauth_tokens t JOIN oauth_grants g ON g.id = t.grant_id JOIN oauth_clients c ON c.id = g.client_id JOIN accounts a ON a.id = g.account_id
		WHERE t.hash = ? AND t.kind = ? AND t.expires_at > ? AND g.revoked_at IS NULL`, nonNil(hash), store.OAuthAccess, micros(now)),
		&a.ID, &a.Plan, &created)
	if err != nil {
		return store.OAuthGrant{}, store.Account{}, fmt.Errorf("look up oauth access token: %w", notFound(err))
	}
	a.CreatedAt = fromMicros(created)
	return g, a, nil
}
