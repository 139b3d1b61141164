package postgres

import (
	"context"
	"crypto/sha256"
	"fmt"
	"time"

	"github.com/jackc/pgx/v5"

	"chartd.dev/libs/store"
)

var _ store.LinkDesigns = (*Store)(nil)

// PutLinkDesign stores a data link's design once per account (by its
// SHA-256) and the link's row pointing at it; the first link stored wins.
// The account row is locked before counting, so concurrent links cannot
// overshoot the limits.
func (s *Store) PutLinkDesign(ctx context.Context, accountID string, l store.DataLink, limits store.LinkLimits) error {
	sum := sha256.Sum256(l.Design)
	now := time.Now().UTC()
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, accountID).Scan(&one); err != nil {
			return notFound(err)
		}
		var held bool
		if err := tx.QueryRow(ctx, `SELECT exists(SELECT 1 FROM link_designs WHERE id = $1)`, l.ID).Scan(&held); err != nil || held {
			return err // the first link stored under id stays
		}
		if limits.Links > 0 {
			var n int
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM link_designs WHERE account_id = $1`, accountID).Scan(&n); err != nil {
				return err
			}
			if n >= limits.Links {
				freed, err := dropExpiredLinks(ctx, tx, accountID, now)
				if err != nil {
					return err
				}
				if n -= freed; n >= limits.Links {
					return fmt.Errorf("%w: %d of %d", store.ErrLinkLimit, n, limits.Links)
				}
			}
		}
		if err := tx.QueryRow(ctx, `SELECT exists(SELECT 1 FROM link_design_bodies WHERE account_id = $1 AND hash = $2)`, accountID, sum[:]).Scan(&held); err != nil {
			return err
		}
		if !held {
			if limits.Designs > 0 {
				n, err := countDesigns(ctx, tx, accountID)
				if err != nil {
					return err
				}
				if n >= limits.Designs {
					return fmt.Errorf("%w: %d of %d link designs", store.ErrLimit, n, limits.Designs)
				}
			}
			if _, err := tx.Exec(ctx, `INSERT INTO link_design_bodies (account_id, hash, design, created_at) VALUES ($1, $2, $3, $4)`,
				accountID, sum[:], nonNil(l.Design), now); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx,
			`INSERT INTO link_designs (id, account_id, chart_id, kid, expires_at, design, design_hash, created_at)
			 VALUES ($1, $2, $3, NULLIF($4, ''), $5, '', $6, $7) ON CONFLICT (id) DO NOTHING`,
			l.ID, accountID, l.ChartID, l.KID, optTime(l.Expires), sum[:], now)
		if pgCode(err) == codeForeignKeyViolation {
			return store.ErrNotFound
		}
		return err
	})
	if err != nil {
		return fmt.Errorf("put link design for account %s: %w", accountID, full(err))
	}
	return nil
}

// dropStoppedLinks deletes the account's data links signed by the
// revoked kids, those stored before links kept their kid once the account
// has no live key left, and the designs no link keeps any more. The
// caller holds the account row locked, so no link being stored can lose
// its design.
func dropStoppedLinks(ctx context.Context, tx pgx.Tx, accountID string, revoked []string) error {
	if _, err := tx.Exec(ctx, `DELETE FROM link_designs WHERE account_id = $1 AND (kid = ANY($2)
		OR (kid IS NULL AND NOT EXISTS (SELECT 1 FROM signing_keys WHERE account_id = $1 AND revoked_at IS NULL)))`,
		accountID, revoked); err != nil {
		return fmt.Errorf("delete stopped data links: %w", err)
	}
	return dropUnkeptDesigns(ctx, tx, accountID)
}

// dropExpiredLinks deletes the account's links past their expiry (a
// range of the (account_id, expires_at) index, at most the account's
// limit of rows) and, when there were some, the designs no link keeps;
// it answers how many links went.
func dropExpiredLinks(ctx context.Context, tx pgx.Tx, accountID string, now time.Time) (int, error) {
	tag, err := tx.Exec(ctx, `DELETE FROM link_designs WHERE account_id = $1 AND expires_at <= $2`, accountID, now)
	if err != nil {
		return 0, fmt.Errorf("delete expired data links: %w", err)
	}
	if tag.RowsAffected() == 0 {
		return 0, nil
	}
	return int(tag.RowsAffected()), dropUnkeptDesigns(ctx, tx, accountID)
}

// dropUnkeptDesigns deletes the account's designs no link keeps.
func dropUnkeptDesigns(ctx context.Context, tx pgx.Tx, accountID string) error {
	if _, err := tx.Exec(ctx, `DELETE FROM link_design_bodies WHERE account_id = $1 AND hash NOT IN
		(SELECT design_hash FROM link_designs WHERE account_id = $1 AND design_hash IS NOT NULL)`, accountID); err != nil {
		return fmt.Errorf("delete unkept link designs: %w", err)
	}
	return nil
}

// optTime is t for a nullable column: NULL when zero.
func optTime(t time.Time) *time.Time {
	if t.IsZero() {
		return nil
	}
	t = store.Micro(t)
	return &t
}

// CountDataLinks answers how many data links the account holds.
func (s *Store) CountDataLinks(ctx context.Context, accountID string) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM link_designs WHERE account_id = $1`, accountID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count data links of account %s: %w", accountID, err)
	}
	return n, nil
}

// countDesigns counts the account's designs: the kept ones, and those a
// link stored whole before designs were kept once.
func countDesigns(ctx context.Context, q interface {
	QueryRow(ctx context.Context, sql string, args ...any) pgx.Row
}, accountID string) (int, error) {
	var n int
	err := q.QueryRow(ctx, `SELECT (SELECT count(*) FROM link_design_bodies WHERE account_id = $1)
		+ (SELECT count(*) FROM link_designs WHERE account_id = $1 AND design_hash IS NULL)`, accountID).Scan(&n)
	return n, err
}

// CountLinkDesigns answers how many distinct designs the account holds.
func (s *Store) CountLinkDesigns(ctx context.Context, accountID string) (int, error) {
	n, err := countDesigns(ctx, s.pool, accountID)
	if err != nil {
		return 0, fmt.Errorf("count link designs of account %s: %w", accountID, err)
	}
	return n, nil
}

// GetLinkDesign loads one of the account's link designs.
func (s *Store) GetLinkDesign(ctx context.Context, accountID, id string) ([]byte, error) {
	var design []byte
	err := s.pool.QueryRow(ctx, `SELECT coalesce(b.design, l.design) FROM link_designs l
		LEFT JOIN link_design_bodies b ON b.account_id = l.account_id AND b.hash = l.design_hash
		WHERE l.account_id = $1 AND l.id = $2`, accountID, id).Scan(&design)
	if err != nil {
		return nil, fmt.Errorf("get link design %s of account %s: %w", id, accountID, notFound(err))
	}
	return design, nil
}
