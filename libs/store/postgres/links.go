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
// SHA-256) and the link's pointer to it; the first link stored wins. The
// account row is locked before counting, so concurrent links cannot
// overshoot the limit.
func (s *Store) PutLinkDesign(ctx context.Context, accountID, id, chartID string, design []byte, limit int) error {
	sum := sha256.Sum256(design)
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var one int
		if err := tx.QueryRow(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, accountID).Scan(&one); err != nil {
			return notFound(err)
		}
		var held bool
		if err := tx.QueryRow(ctx, `SELECT exists(SELECT 1 FROM link_designs WHERE id = $1)`, id).Scan(&held); err != nil || held {
			return err // the first link stored under id stays
		}
		if err := tx.QueryRow(ctx, `SELECT exists(SELECT 1 FROM link_design_bodies WHERE account_id = $1 AND hash = $2)`, accountID, sum[:]).Scan(&held); err != nil {
			return err
		}
		if !held {
			if limit > 0 {
				n, err := countDesigns(ctx, tx, accountID)
				if err != nil {
					return err
				}
				if n >= limit {
					return fmt.Errorf("%w: %d of %d link designs", store.ErrLimit, n, limit)
				}
			}
			if _, err := tx.Exec(ctx, `INSERT INTO link_design_bodies (account_id, hash, design, created_at) VALUES ($1, $2, $3, $4)`,
				accountID, sum[:], nonNil(design), time.Now().UTC()); err != nil {
				return err
			}
		}
		_, err := tx.Exec(ctx,
			`INSERT INTO link_designs (id, account_id, chart_id, design, design_hash, created_at) VALUES ($1, $2, $3, '', $4, $5) ON CONFLICT (id) DO NOTHING`,
			id, accountID, chartID, sum[:], time.Now().UTC())
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
