package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"fmt"
	"time"

	"chartd.dev/libs/store"
)

var _ store.LinkDesigns = (*Store)(nil)

// PutLinkDesign stores a data link's design once per account (by its
// SHA-256) and the link's pointer to it; the first link stored wins.
func (s *Store) PutLinkDesign(ctx context.Context, accountID, id, chartID string, design []byte, limit int) error {
	if err := s.putLinkDesign(ctx, accountID, id, chartID, design, limit); err != nil {
		return fmt.Errorf("put link design for account %s: %w", accountID, s.check(err))
	}
	return nil
}

func (s *Store) putLinkDesign(ctx context.Context, accountID, id, chartID string, design []byte, limit int) error {
	if err := s.writable(); err != nil {
		return err
	}
	sum := sha256.Sum256(design)
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var one int
	if err := tx.QueryRowContext(ctx, `SELECT 1 FROM accounts WHERE id = ?`, accountID).Scan(&one); err != nil {
		return notFound(err)
	}
	var held int
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM link_designs WHERE id = ?`, id).Scan(&held); err != nil || held > 0 {
		return err // the first link stored under id stays
	}
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM link_design_bodies WHERE account_id = ? AND hash = ?`, accountID, sum[:]).Scan(&held); err != nil {
		return err
	}
	if held == 0 {
		if limit > 0 {
			n, err := countDesigns(ctx, tx, accountID)
			if err != nil {
				return err
			}
			if n >= limit {
				return fmt.Errorf("%w: %d of %d link designs", store.ErrLimit, n, limit)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO link_design_bodies (account_id, hash, design, created_at) VALUES (?, ?, ?, ?)`,
			accountID, sum[:], nonNil(design), micros(time.Now())); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO link_designs (id, account_id, chart_id, design, design_hash, created_at) VALUES (?, ?, ?, x'', ?, ?) ON CONFLICT (id) DO NOTHING`,
		id, accountID, chartID, sum[:], micros(time.Now())); err != nil {
		if isForeignKey(err) {
			return store.ErrNotFound
		}
		return err
	}
	return tx.Commit()
}

// queryer is a transaction or the store's reader.
type queryer interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// countDesigns counts the account's designs: the kept ones, and those a
// link stored whole before designs were kept once.
func countDesigns(ctx context.Context, q queryer, accountID string) (int, error) {
	var n int
	err := q.QueryRowContext(ctx, `SELECT (SELECT count(*) FROM link_design_bodies WHERE account_id = ?1)
		+ (SELECT count(*) FROM link_designs WHERE account_id = ?1 AND design_hash IS NULL)`, accountID).Scan(&n)
	return n, err
}

// CountLinkDesigns answers how many distinct designs the account holds.
func (s *Store) CountLinkDesigns(ctx context.Context, accountID string) (int, error) {
	n, err := countDesigns(ctx, s.read, accountID)
	if err != nil {
		return 0, fmt.Errorf("count link designs of account %s: %w", accountID, err)
	}
	return n, nil
}

// GetLinkDesign loads one of the account's link designs.
func (s *Store) GetLinkDesign(ctx context.Context, accountID, id string) ([]byte, error) {
	var design []byte
	err := s.read.QueryRowContext(ctx, `SELECT coalesce(b.design, l.design) FROM link_designs l
		LEFT JOIN link_design_bodies b ON b.account_id = l.account_id AND b.hash = l.design_hash
		WHERE l.account_id = ? AND l.id = ?`, accountID, id).Scan(&design)
	if err != nil {
		return nil, fmt.Errorf("get link design %s of account %s: %w", id, accountID, notFound(err))
	}
	return design, nil
}
