package sqlite

import (
	"context"
	"database/sql"
	"encoding/json"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"

	"chartd.dev/libs/store"
)

// CreateAccount makes an account with a fresh UUID id.
func (s *Store) CreateAccount(ctx context.Context, plan string) (store.Account, error) {
	if err := s.writable(); err != nil {
		return store.Account{}, fmt.Errorf("create account: %w", err)
	}
	if !store.ValidPlan(plan) {
		return store.Account{}, fmt.Errorf("create account: %w: %q", store.ErrInvalidPlan, plan)
	}
	a := store.Account{ID: uuid.NewString(), Plan: plan, CreatedAt: store.Micro(time.Now())}
	if _, err := s.write.ExecContext(ctx,
		`INSERT INTO accounts (id, plan, created_at) VALUES (?, ?, ?)`,
		a.ID, a.Plan, micros(a.CreatedAt)); err != nil {
		return store.Account{}, fmt.Errorf("create account: %w", s.check(err))
	}
	return a, nil
}

// GetAccount loads one account.
func (s *Store) GetAccount(ctx context.Context, id string) (store.Account, error) {
	a, err := scanAccount(s.read.QueryRowContext(ctx,
		`SELECT id, plan, created_at FROM accounts WHERE id = ?`, id))
	if err != nil {
		return store.Account{}, fmt.Errorf("get account %s: %w", id, notFound(err))
	}
	return a, nil
}

// SetPlan changes an account's plan.
func (s *Store) SetPlan(ctx context.Context, id, plan string) error {
	if !store.ValidPlan(plan) {
		return fmt.Errorf("set plan of account %s: %w: %q", id, store.ErrInvalidPlan, plan)
	}
	res, err := s.write.ExecContext(ctx, `UPDATE accounts SET plan = ? WHERE id = ?`, plan, id)
	if err == nil {
		err = mustAffect(res)
	}
	if err != nil {
		return fmt.Errorf("set plan of account %s: %w", id, s.check(err))
	}
	return nil
}

// ListAccounts lists every account, oldest first.
func (s *Store) ListAccounts(ctx context.Context) ([]store.Account, error) {
	rows, err := s.read.QueryContext(ctx, `SELECT id, plan, created_at FROM accounts ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	defer rows.Close()
	var out []store.Account
	for rows.Next() {
		a, err := scanAccount(rows)
		if err != nil {
			return nil, fmt.Errorf("list accounts: %w", err)
		}
		out = append(out, a)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	return out, nil
}

// scanner is what *sql.Row and *sql.Rows share.
type scanner interface{ Scan(dest ...any) error }

func scanAccount(r scanner) (store.Account, error) {
	var a store.Account
	var created int64
	if err := r.Scan(&a.ID, &a.Plan, &created); err != nil {
		return store.Account{}, err
	}
	a.CreatedAt = fromMicros(created)
	return a, nil
}

const apiKeyColumns = `k.id, k.account_id, k.name, k.prefix, k.hash, k.created_at, k.revoked_at`

// lookupAPIKeyQuery authenticates a request; prepared in Open.
const lookupAPIKeyQuery = `SELECT ` + apiKeyColumns + `, a.id, a.plan, a.created_at
  FROM api_keys k JOIN accounts a ON a.id = k.account_id
 WHERE k.hash = ? AND k.revoked_at IS NULL`

func scanAPIKey(r scanner, extra ...any) (store.APIKey, error) {
	var k store.APIKey
	var created int64
	var revoked sql.NullInt64
	dest := append([]any{&k.ID, &k.AccountID, &k.Name, &k.Prefix, &k.Hash, &created, &revoked}, extra...)
	if err := r.Scan(dest...); err != nil {
		return store.APIKey{}, err
	}
	k.CreatedAt = fromMicros(created)
	k.RevokedAt = fromNullMicros(revoked)
	return k, nil
}

// CreateAPIKey stores a key by its hash; a duplicate hash is ErrConflict.
func (s *Store) CreateAPIKey(ctx context.Context, accountID, name, prefix string, hash []byte) (store.APIKey, error) {
	if err := s.writable(); err != nil {
		return store.APIKey{}, fmt.Errorf("create api key: %w", err)
	}
	k := store.APIKey{
		ID: uuid.NewString(), AccountID: accountID, Name: name, Prefix: prefix,
		Hash: append([]byte(nil), hash...), CreatedAt: store.Micro(time.Now()),
	}
	_, err := s.write.ExecContext(ctx,
		`INSERT INTO api_keys (id, account_id, name, prefix, hash, created_at) VALUES (?, ?, ?, ?, ?, ?)`,
		k.ID, k.AccountID, k.Name, k.Prefix, nonNil(k.Hash), micros(k.CreatedAt))
	switch {
	case isForeignKey(err):
		return store.APIKey{}, fmt.Errorf("create api key for account %s: %w", accountID, store.ErrNotFound)
	case isUnique(err):
		return store.APIKey{}, fmt.Errorf("create api key for account %s: %w: duplicate hash", accountID, store.ErrConflict)
	case err != nil:
		return store.APIKey{}, fmt.Errorf("create api key for account %s: %w", accountID, s.check(err))
	}
	return k, nil
}

// ListAPIKeys lists an account's keys, revoked ones included, oldest first.
func (s *Store) ListAPIKeys(ctx context.Context, accountID string) ([]store.APIKey, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT `+apiKeyColumns+` FROM api_keys k WHERE k.account_id = ? ORDER BY k.created_at, k.id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("list api keys of account %s: %w", accountID, err)
	}
	defer rows.Close()
	var out []store.APIKey
	for rows.Next() {
		k, err := scanAPIKey(rows)
		if err != nil {
			return nil, fmt.Errorf("list api keys of account %s: %w", accountID, err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list api keys of account %s: %w", accountID, err)
	}
	return out, nil
}

// RevokeAPIKey revokes one of the account's keys, keeping the first
// revocation time when revoked twice.
func (s *Store) RevokeAPIKey(ctx context.Context, accountID, keyID string) error {
	res, err := s.write.ExecContext(ctx,
		`UPDATE api_keys SET revoked_at = coalesce(revoked_at, ?) WHERE account_id = ? AND id = ?`,
		micros(time.Now()), accountID, keyID)
	if err == nil {
		err = mustAffect(res)
	}
	if err != nil {
		return fmt.Errorf("revoke api key %s of account %s: %w", keyID, accountID, s.check(err))
	}
	return nil
}

// LookupAPIKey answers the live key with this hash and its account.
func (s *Store) LookupAPIKey(ctx context.Context, hash []byte) (store.APIKey, store.Account, error) {
	var a store.Account
	var accCreated int64
	k, err := scanAPIKey(s.lookupAPIKey.QueryRowContext(ctx, nonNil(hash)),
		&a.ID, &a.Plan, &accCreated)
	if err != nil {
		return store.APIKey{}, store.Account{}, fmt.Errorf("look up api key: %w", notFound(err))
	}
	a.CreatedAt = fromMicros(accCreated)
	return k, a, nil
}

const signingKeyColumns = `id, account_id, secret, created_at, revoked_at`

func scanSigningKey(r scanner) (store.SigningKey, error) {
	var k store.SigningKey
	var created int64
	var revoked sql.NullInt64
	if err := r.Scan(&k.ID, &k.AccountID, &k.Secret, &created, &revoked); err != nil {
		return store.SigningKey{}, err
	}
	k.CreatedAt = fromMicros(created)
	k.RevokedAt = fromNullMicros(revoked)
	return k, nil
}

// CreateSigningKey stores a new signing key under the caller's kid.
func (s *Store) CreateSigningKey(ctx context.Context, accountID, kid string, secret []byte) (store.SigningKey, error) {
	if err := s.writable(); err != nil {
		return store.SigningKey{}, fmt.Errorf("create signing key: %w", err)
	}
	if kid == "" {
		return store.SigningKey{}, fmt.Errorf("create signing key for account %s: empty kid", accountID)
	}
	k := store.SigningKey{
		ID: kid, AccountID: accountID,
		Secret: append([]byte(nil), secret...), CreatedAt: store.Micro(time.Now()),
	}
	_, err := s.write.ExecContext(ctx,
		`INSERT INTO signing_keys (id, account_id, secret, created_at) VALUES (?, ?, ?, ?)`,
		k.ID, k.AccountID, nonNil(k.Secret), micros(k.CreatedAt))
	switch {
	case isForeignKey(err):
		return store.SigningKey{}, fmt.Errorf("create signing key for account %s: %w", accountID, store.ErrNotFound)
	case isUnique(err):
		return store.SigningKey{}, fmt.Errorf("create signing key for account %s: %w: kid %s is taken", accountID, store.ErrConflict, kid)
	case err != nil:
		return store.SigningKey{}, fmt.Errorf("create signing key for account %s: %w", accountID, s.check(err))
	}
	return k, nil
}

// ListSigningKeys lists an account's signing keys, oldest first.
func (s *Store) ListSigningKeys(ctx context.Context, accountID string) ([]store.SigningKey, error) {
	rows, err := s.read.QueryContext(ctx,
		`SELECT `+signingKeyColumns+` FROM signing_keys WHERE account_id = ? ORDER BY created_at, id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("list signing keys of account %s: %w", accountID, err)
	}
	defer rows.Close()
	var out []store.SigningKey
	for rows.Next() {
		k, err := scanSigningKey(rows)
		if err != nil {
			return nil, fmt.Errorf("list signing keys of account %s: %w", accountID, err)
		}
		out = append(out, k)
	}
	if err := rows.Err(); err != nil {
		return nil, fmt.Errorf("list signing keys of account %s: %w", accountID, err)
	}
	return out, nil
}

// RevokeSigningKey revokes one of the account's signing keys and deletes
// the data links it signed.
func (s *Store) RevokeSigningKey(ctx context.Context, accountID, kid string) error {
	if err := s.revokeSigningKey(ctx, accountID, kid); err != nil {
		return fmt.Errorf("revoke signing key %s of account %s: %w", kid, accountID, s.check(err))
	}
	return nil
}

func (s *Store) revokeSigningKey(ctx context.Context, accountID, kid string) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	res, err := tx.ExecContext(ctx,
		`UPDATE signing_keys SET revoked_at = coalesce(revoked_at, ?) WHERE account_id = ? AND id = ?`,
		micros(time.Now()), accountID, kid)
	if err != nil {
		return err
	}
	if err := mustAffect(res); err != nil {
		return err
	}
	if err := dropStoppedLinks(ctx, tx, accountID, []string{kid}); err != nil {
		return err
	}
	return tx.Commit()
}

// GetSigningKey loads one of the account's signing keys, revoked or not.
func (s *Store) GetSigningKey(ctx context.Context, accountID, kid string) (store.SigningKey, error) {
	k, err := scanSigningKey(s.read.QueryRowContext(ctx,
		`SELECT `+signingKeyColumns+` FROM signing_keys WHERE account_id = ? AND id = ?`, accountID, kid))
	if err != nil {
		return store.SigningKey{}, fmt.Errorf("get signing key %s of account %s: %w", kid, accountID, notFound(err))
	}
	return k, nil
}

// LookupSigningKey finds a live signing key by kid alone.
func (s *Store) LookupSigningKey(ctx context.Context, kid string) (store.SigningKey, error) {
	k, err := scanSigningKey(s.read.QueryRowContext(ctx,
		`SELECT `+signingKeyColumns+` FROM signing_keys WHERE id = ? AND revoked_at IS NULL`, kid))
	if err != nil {
		return store.SigningKey{}, fmt.Errorf("look up signing key %s: %w", kid, notFound(err))
	}
	return k, nil
}

// SetSigningKeySecret replaces a signing key's secret bytes when they still
// equal old.
func (s *Store) SetSigningKeySecret(ctx context.Context, accountID, kid string, old, secret []byte) error {
	res, err := s.write.ExecContext(ctx,
		`UPDATE signing_keys SET secret = ? WHERE account_id = ? AND id = ? AND secret = ?`,
		nonNil(secret), accountID, kid, nonNil(old))
	if err == nil {
		err = mustAffect(res)
	}
	if errors.Is(err, store.ErrNotFound) {
		// Nothing changed: tell a missing key from one whose bytes moved on.
		var one int
		switch qerr := s.write.QueryRowContext(ctx,
			`SELECT 1 FROM signing_keys WHERE account_id = ? AND id = ?`, accountID, kid).Scan(&one); {
		case qerr == nil:
			err = fmt.Errorf("%w: the stored secret changed", store.ErrConflict)
		case !errors.Is(qerr, sql.ErrNoRows):
			err = qerr
		}
	}
	if err != nil {
		return fmt.Errorf("set secret of signing key %s of account %s: %w", kid, accountID, s.check(err))
	}
	return nil
}

// RotateSigningKey stores kid (when not empty) and revokes the account's
// other live keys, in one transaction.
func (s *Store) RotateSigningKey(ctx context.Context, accountID, kid string, secret []byte) (store.SigningKey, []string, error) {
	if err := s.writable(); err != nil {
		return store.SigningKey{}, nil, fmt.Errorf("rotate signing key: %w", err)
	}
	k, revoked, err := s.rotateSigningKey(ctx, accountID, kid, secret)
	if err != nil {
		return store.SigningKey{}, nil, fmt.Errorf("rotate signing keys of account %s: %w", accountID, s.check(err))
	}
	slices.Sort(revoked)
	return k, revoked, nil
}

func (s *Store) rotateSigningKey(ctx context.Context, accountID, kid string, secret []byte) (store.SigningKey, []string, error) {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return store.SigningKey{}, nil, err
	}
	defer tx.Rollback()
	var one int
	if err := tx.QueryRowContext(ctx, `SELECT 1 FROM accounts WHERE id = ?`, accountID).Scan(&one); err != nil {
		return store.SigningKey{}, nil, notFound(err)
	}
	now := store.Micro(time.Now())
	rows, err := tx.QueryContext(ctx,
		`UPDATE signing_keys SET revoked_at = ? WHERE account_id = ? AND revoked_at IS NULL RETURNING id`, micros(now), accountID)
	if err != nil {
		return store.SigningKey{}, nil, err
	}
	var revoked []string
	for rows.Next() {
		var id string
		if err := rows.Scan(&id); err != nil {
			rows.Close()
			return store.SigningKey{}, nil, err
		}
		revoked = append(revoked, id)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return store.SigningKey{}, nil, err
	}
	if err := dropStoppedLinks(ctx, tx, accountID, revoked); err != nil {
		return store.SigningKey{}, nil, err
	}
	var k store.SigningKey
	if kid != "" {
		k = store.SigningKey{ID: kid, AccountID: accountID, Secret: append([]byte(nil), secret...), CreatedAt: now}
		_, err = tx.ExecContext(ctx, `INSERT INTO signing_keys (id, account_id, secret, created_at) VALUES (?, ?, ?, ?)`,
			k.ID, k.AccountID, nonNil(k.Secret), micros(k.CreatedAt))
		if isUnique(err) {
			return store.SigningKey{}, nil, fmt.Errorf("%w: kid %s is taken", store.ErrConflict, kid)
		}
		if err != nil {
			return store.SigningKey{}, nil, err
		}
	}
	return k, revoked, tx.Commit()
}

// ResealSigningKeys rewrites every signing key's secret through reseal in
// one transaction (SQLite's one writer holds the database meanwhile).
func (s *Store) ResealSigningKeys(ctx context.Context, reseal func(store.SigningKey) ([]byte, bool, error)) (seen, changed int, err error) {
	seen, changed, err = s.resealSigningKeys(ctx, reseal)
	if err != nil {
		return 0, 0, fmt.Errorf("reseal signing keys: %w", s.check(err))
	}
	return seen, changed, nil
}

func (s *Store) resealSigningKeys(ctx context.Context, reseal func(store.SigningKey) ([]byte, bool, error)) (seen, changed int, err error) {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return 0, 0, err
	}
	defer tx.Rollback()
	rows, err := tx.QueryContext(ctx, `SELECT `+signingKeyColumns+` FROM signing_keys ORDER BY account_id, created_at, id`)
	if err != nil {
		return 0, 0, err
	}
	var keys []store.SigningKey
	for rows.Next() {
		k, err := scanSigningKey(rows)
		if err != nil {
			rows.Close()
			return 0, 0, err
		}
		keys = append(keys, k)
	}
	if err := errors.Join(rows.Err(), rows.Close()); err != nil {
		return 0, 0, err
	}
	for _, k := range keys {
		seen++
		secret, ch, err := reseal(k)
		if err != nil {
			return 0, 0, fmt.Errorf("signing key %s: %w", k.ID, err)
		}
		if !ch {
			continue
		}
		if _, err := tx.ExecContext(ctx, `UPDATE signing_keys SET secret = ? WHERE account_id = ? AND id = ?`,
			nonNil(secret), k.AccountID, k.ID); err != nil {
			return 0, 0, err
		}
		changed++
	}
	return seen, changed, tx.Commit()
}

// SetBrandPalette replaces the account's brand colors; nil or empty clears.
func (s *Store) SetBrandPalette(ctx context.Context, accountID string, colors []string) error {
	var palette sql.NullString
	if len(colors) > 0 {
		b, err := json.Marshal(colors)
		if err != nil {
			return fmt.Errorf("set brand palette of account %s: %w", accountID, s.check(err))
		}
		palette = sql.NullString{String: string(b), Valid: true}
	}
	res, err := s.write.ExecContext(ctx, `UPDATE accounts SET brand_palette = ? WHERE id = ?`, palette, accountID)
	if err == nil {
		err = mustAffect(res)
	}
	if err != nil {
		return fmt.Errorf("set brand palette of account %s: %w", accountID, s.check(err))
	}
	return nil
}

// GetBrandPalette answers the brand colors, nil when none are set.
func (s *Store) GetBrandPalette(ctx context.Context, accountID string) ([]string, error) {
	var palette sql.NullString
	err := s.read.QueryRowContext(ctx, `SELECT brand_palette FROM accounts WHERE id = ?`, accountID).Scan(&palette)
	if err != nil {
		return nil, fmt.Errorf("get brand palette of account %s: %w", accountID, notFound(err))
	}
	if !palette.Valid {
		return nil, nil
	}
	var colors []string
	if err := json.Unmarshal([]byte(palette.String), &colors); err != nil {
		return nil, fmt.Errorf("get brand palette of account %s: decode: %w", accountID, err)
	}
	return colors, nil
}
