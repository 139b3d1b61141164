package postgres

import (
	"context"
	"errors"
	"fmt"
	"slices"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"chartd.dev/libs/store"
)

// CreateAccount makes an account with a fresh UUID id.
func (s *Store) CreateAccount(ctx context.Context, plan string) (store.Account, error) {
	if !store.ValidPlan(plan) {
		return store.Account{}, fmt.Errorf("create account: %w: %q", store.ErrInvalidPlan, plan)
	}
	a := store.Account{ID: uuid.NewString(), Plan: plan, CreatedAt: store.Micro(time.Now())}
	if _, err := s.pool.Exec(ctx,
		`INSERT INTO accounts (id, plan, created_at) VALUES ($1, $2, $3)`, a.ID, a.Plan, a.CreatedAt); err != nil {
		return store.Account{}, fmt.Errorf("create account: %w", full(err))
	}
	return a, nil
}

// GetAccount loads one account.
func (s *Store) GetAccount(ctx context.Context, id string) (store.Account, error) {
	a, err := scanAccount(s.pool.QueryRow(ctx, `SELECT id, plan, created_at FROM accounts WHERE id = $1`, id))
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
	tag, err := s.pool.Exec(ctx, `UPDATE accounts SET plan = $2 WHERE id = $1`, id, plan)
	if err == nil {
		err = mustAffect(tag)
	}
	if err != nil {
		return fmt.Errorf("set plan of account %s: %w", id, full(err))
	}
	return nil
}

// ListAccounts lists every account, oldest first.
func (s *Store) ListAccounts(ctx context.Context) ([]store.Account, error) {
	rows, err := s.pool.Query(ctx, `SELECT id, plan, created_at FROM accounts ORDER BY created_at, id`)
	if err != nil {
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Account, error) { return scanAccount(r) })
	if err != nil {
		return nil, fmt.Errorf("list accounts: %w", err)
	}
	return out, nil
}

func scanAccount(r pgx.Row) (store.Account, error) {
	var a store.Account
	if err := r.Scan(&a.ID, &a.Plan, &a.CreatedAt); err != nil {
		return store.Account{}, err
	}
	a.CreatedAt = store.Micro(a.CreatedAt)
	return a, nil
}

const apiKeyColumns = `k.id, k.account_id, k.name, k.prefix, k.hash, k.created_at, k.revoked_at`

func scanAPIKey(r pgx.Row, extra ...any) (store.APIKey, error) {
	var k store.APIKey
	dest := append([]any{&k.ID, &k.AccountID, &k.Name, &k.Prefix, &k.Hash, &k.CreatedAt, &k.RevokedAt}, extra...)
	if err := r.Scan(dest...); err != nil {
		return store.APIKey{}, err
	}
	k.CreatedAt = store.Micro(k.CreatedAt)
	k.RevokedAt = optMicro(k.RevokedAt)
	return k, nil
}

// CreateAPIKey stores a key by its hash; a duplicate hash is ErrConflict.
func (s *Store) CreateAPIKey(ctx context.Context, accountID, name, prefix string, hash []byte) (store.APIKey, error) {
	k := store.APIKey{
		ID: uuid.NewString(), AccountID: accountID, Name: name, Prefix: prefix,
		Hash: append([]byte(nil), hash...), CreatedAt: store.Micro(time.Now()),
	}
	_, err := s.pool.Exec(ctx,
		`INSERT INTO api_keys (id, account_id, name, prefix, hash, created_at) VALUES ($1, $2, $3, $4, $5, $6)`,
		k.ID, k.AccountID, k.Name, k.Prefix, nonNil(k.Hash), k.CreatedAt)
	switch {
	case pgCode(err) == codeForeignKeyViolation:
		return store.APIKey{}, fmt.Errorf("create api key for account %s: %w", accountID, store.ErrNotFound)
	case pgCode(err) == codeUniqueViolation:
		return store.APIKey{}, fmt.Errorf("create api key for account %s: %w: duplicate hash", accountID, store.ErrConflict)
	case err != nil:
		return store.APIKey{}, fmt.Errorf("create api key for account %s: %w", accountID, full(err))
	}
	return k, nil
}

// ListAPIKeys lists an account's keys, revoked ones included, oldest first.
func (s *Store) ListAPIKeys(ctx context.Context, accountID string) ([]store.APIKey, error) {
	rows, err := s.pool.Query(ctx,
		`SELECT `+apiKeyColumns+` FROM api_keys k WHERE k.account_id = $1 ORDER BY k.created_at, k.id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("list api keys of account %s: %w", accountID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.APIKey, error) { return scanAPIKey(r) })
	if err != nil {
		return nil, fmt.Errorf("list api keys of account %s: %w", accountID, err)
	}
	return out, nil
}

// RevokeAPIKey revokes one of the account's keys, keeping the first
// revocation time when revoked twice.
func (s *Store) RevokeAPIKey(ctx context.Context, accountID, keyID string) error {
	tag, err := s.pool.Exec(ctx,
		`UPDATE api_keys SET revoked_at = coalesce(revoked_at, $3) WHERE account_id = $1 AND id = $2`,
		accountID, keyID, store.Micro(time.Now()))
	if err == nil {
		err = mustAffect(tag)
	}
	if err != nil {
		return fmt.Errorf("revoke api key %s of account %s: %w", keyID, accountID, full(err))
	}
	return nil
}

// LookupAPIKey answers the live key with this hash and its account.
func (s *Store) LookupAPIKey(ctx context.Context, hash []byte) (store.APIKey, store.Account, error) {
	var a store.Account
	k, err := scanAPIKey(s.pool.QueryRow(ctx,
		`SELECT `+apiKeyColumns+`, a.id, a.plan, a.created_at
		   FROM api_keys k JOIN accounts a ON a.id = k.account_id
		  WHERE k.hash = $1 AND k.revoked_at IS NULL`, nonNil(hash)),
		&a.ID, &a.Plan, &a.CreatedAt)
	if err != nil {
		return store.APIKey{}, store.Account{}, fmt.Errorf("look up api key: %w", notFound(err))
	}
	a.CreatedAt = store.Micro(a.CreatedAt)
	return k, a, nil
}

const signingKeyColumns = `id, account_id, secret, created_at, revoked_at`

func scanSigningKey(r pgx.Row) (store.SigningKey, error) {
	var k store.SigningKey
	if err := r.Scan(&k.ID, &k.AccountID, &k.Secret, &k.CreatedAt, &k.RevokedAt); err != nil {
		return store.SigningKey{}, err
	}
	k.CreatedAt = store.Micro(k.CreatedAt)
	k.RevokedAt = optMicro(k.RevokedAt)
	return k, nil
}

// CreateSigningKey stores a new signing key under the caller's kid.
func (s *Store) CreateSigningKey(ctx context.Context, accountID, kid string, secret []byte) (store.SigningKey, error) {
	if kid == "" {
		return store.SigningKey{}, fmt.Errorf("create signing key for account %s: empty kid", accountID)
	}
	k := store.SigningKey{
		ID: kid, AccountID: accountID,
		Secret: append([]byte(nil), secret...), CreatedAt: store.Micro(time.Now()),
	}
	_, err := s.pool.Exec(ctx,
		`INSERT INTO signing_keys (id, account_id, secret, created_at) VALUES ($1, $2, $3, $4)`,
		k.ID, k.AccountID, nonNil(k.Secret), k.CreatedAt)
	switch {
	case pgCode(err) == codeForeignKeyViolation:
		return store.SigningKey{}, fmt.Errorf("create signing key for account %s: %w", accountID, store.ErrNotFound)
	case pgCode(err) == codeUniqueViolation:
		return store.SigningKey{}, fmt.Errorf("create signing key for account %s: %w: kid %s is taken", accountID, store.ErrConflict, kid)
	case err != nil:
		return store.SigningKey{}, fmt.Errorf("create signing key for account %s: %w", accountID, full(err))
	}
	return k, nil
}

// ListSigningKeys lists an account's signing keys, oldest first.
func (s *Store) ListSigningKeys(ctx context.Context, accountID string) ([]store.SigningKey, error) {
	rows, err := s.pool.Query(ctx,
		`SELECT `+signingKeyColumns+` FROM signing_keys WHERE account_id = $1 ORDER BY created_at, id`, accountID)
	if err != nil {
		return nil, fmt.Errorf("list signing keys of account %s: %w", accountID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.SigningKey, error) { return scanSigningKey(r) })
	if err != nil {
		return nil, fmt.Errorf("list signing keys of account %s: %w", accountID, err)
	}
	return out, nil
}

// RevokeSigningKey revokes one of the account's signing keys and deletes
// the data links it signed, the account row locked as PutLinkDesign's.
func (s *Store) RevokeSigningKey(ctx context.Context, accountID, kid string) error {
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, accountID).Scan(&one); err != nil {
			return notFound(err)
		}
		tag, err := tx.Exec(ctx,
			`UPDATE signing_keys SET revoked_at = coalesce(revoked_at, $3) WHERE account_id = $1 AND id = $2`,
			accountID, kid, store.Micro(time.Now()))
		if err != nil {
			return err
		}
		if err := mustAffect(tag); err != nil {
			return err
		}
		return dropStoppedLinks(ctx, tx, accountID, []string{kid})
	})
	if err != nil {
		return fmt.Errorf("revoke signing key %s of account %s: %w", kid, accountID, full(err))
	}
	return nil
}

// GetSigningKey loads one of the account's signing keys, revoked or not.
func (s *Store) GetSigningKey(ctx context.Context, accountID, kid string) (store.SigningKey, error) {
	k, err := scanSigningKey(s.pool.QueryRow(ctx,
		`SELECT `+signingKeyColumns+` FROM signing_keys WHERE account_id = $1 AND id = $2`, accountID, kid))
	if err != nil {
		return store.SigningKey{}, fmt.Errorf("get signing key %s of account %s: %w", kid, accountID, notFound(err))
	}
	return k, nil
}

// LookupSigningKey finds a live signing key by kid alone.
func (s *Store) LookupSigningKey(ctx context.Context, kid string) (store.SigningKey, error) {
	k, err := scanSigningKey(s.pool.QueryRow(ctx,
		`SELECT `+signingKeyColumns+` FROM signing_keys WHERE id = $1 AND revoked_at IS NULL`, kid))
	if err != nil {
		return store.SigningKey{}, fmt.Errorf("look up signing key %s: %w", kid, notFound(err))
	}
	return k, nil
}

// SetSigningKeySecret replaces a signing key's secret bytes when they still
// equal old.
func (s *Store) SetSigningKeySecret(ctx context.Context, accountID, kid string, old, secret []byte) error {
	tag, err := s.pool.Exec(ctx,
		`UPDATE signing_keys SET secret = $3 WHERE account_id = $1 AND id = $2 AND secret = $4`,
		accountID, kid, nonNil(secret), nonNil(old))
	if err == nil {
		err = mustAffect(tag)
	}
	if errors.Is(err, store.ErrNotFound) {
		// Nothing changed: tell a missing key from one whose bytes moved on.
		var one int
		switch qerr := s.pool.QueryRow(ctx,
			`SELECT 1 FROM signing_keys WHERE account_id = $1 AND id = $2`, accountID, kid).Scan(&one); {
		case qerr == nil:
			err = fmt.Errorf("%w: the stored secret changed", store.ErrConflict)
		case !errors.Is(qerr, pgx.ErrNoRows):
			err = qerr
		}
	}
	if err != nil {
		return fmt.Errorf("set secret of signing key %s of account %s: %w", kid, accountID, full(err))
	}
	return nil
}

// RotateSigningKey stores kid (when not empty) and revokes the account's
// other live keys, in one transaction.
func (s *Store) RotateSigningKey(ctx context.Context, accountID, kid string, secret []byte) (store.SigningKey, []string, error) {
	var k store.SigningKey
	var revoked []string
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		// The account's row, locked: two rotations of one account queue.
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, accountID).Scan(&one); err != nil {
			return notFound(err)
		}
		now := store.Micro(time.Now())
		rows, err := tx.Query(ctx,
			`UPDATE signing_keys SET revoked_at = $2 WHERE account_id = $1 AND revoked_at IS NULL RETURNING id`, accountID, now)
		if err != nil {
			return err
		}
		if revoked, err = pgx.CollectRows(rows, pgx.RowTo[string]); err != nil {
			return err
		}
		if err := dropStoppedLinks(ctx, tx, accountID, revoked); err != nil {
			return err
		}
		if kid == "" {
			return nil
		}
		k = store.SigningKey{ID: kid, AccountID: accountID, Secret: append([]byte(nil), secret...), CreatedAt: now}
		_, err = tx.Exec(ctx, `INSERT INTO signing_keys (id, account_id, secret, created_at) VALUES ($1, $2, $3, $4)`,
			k.ID, k.AccountID, nonNil(k.Secret), k.CreatedAt)
		if pgCode(err) == codeUniqueViolation {
			return fmt.Errorf("%w: kid %s is taken", store.ErrConflict, kid)
		}
		return err
	})
	if err != nil {
		return store.SigningKey{}, nil, fmt.Errorf("rotate signing keys of account %s: %w", accountID, full(err))
	}
	slices.Sort(revoked)
	return k, revoked, nil
}

// ResealSigningKeys rewrites every signing key's secret through reseal in
// one transaction, the rows locked meanwhile.
func (s *Store) ResealSigningKeys(ctx context.Context, reseal func(store.SigningKey) ([]byte, bool, error)) (seen, changed int, err error) {
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		seen, changed = 0, 0
		rows, err := tx.Query(ctx, `SELECT `+signingKeyColumns+` FROM signing_keys ORDER BY account_id, created_at, id FOR UPDATE`)
		if err != nil {
			return err
		}
		keys, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.SigningKey, error) { return scanSigningKey(r) })
		if err != nil {
			return err
		}
		for _, k := range keys {
			seen++
			secret, ch, err := reseal(k)
			if err != nil {
				return fmt.Errorf("signing key %s: %w", k.ID, full(err))
			}
			if !ch {
				continue
			}
			if _, err := tx.Exec(ctx, `UPDATE signing_keys SET secret = $3 WHERE account_id = $1 AND id = $2`,
				k.AccountID, k.ID, nonNil(secret)); err != nil {
				return err
			}
			changed++
		}
		return nil
	})
	if err != nil {
		return 0, 0, fmt.Errorf("reseal signing keys: %w", full(err))
	}
	return seen, changed, nil
}

// SetBrandPalette replaces the account's brand colors; nil or empty clears.
func (s *Store) SetBrandPalette(ctx context.Context, accountID string, colors []string) error {
	var palette []string // nil binds as NULL
	if len(colors) > 0 {
		palette = colors
	}
	tag, err := s.pool.Exec(ctx, `UPDATE accounts SET brand_palette = $2 WHERE id = $1`, accountID, palette)
	if err == nil {
		err = mustAffect(tag)
	}
	if err != nil {
		return fmt.Errorf("set brand palette of account %s: %w", accountID, full(err))
	}
	return nil
}

// GetBrandPalette answers the brand colors, nil when none are set.
func (s *Store) GetBrandPalette(ctx context.Context, accountID string) ([]string, error) {
	var palette []string
	if err := s.pool.QueryRow(ctx, `SELECT brand_palette FROM accounts WHERE id = $1`, accountID).Scan(&palette); err != nil {
		return nil, fmt.Errorf("get brand palette of account %s: %w", accountID, notFound(err))
	}
	if len(palette) == 0 {
		return nil, nil
	}
	return palette, nil
}
