package sqlite

import (
	"context"
	"crypto/sha256"
	"database/sql"
	"encoding/json"
	"fmt"
	"time"

	"chartd.dev/libs/store"
)

var _ store.LinkDesigns = (*Store)(nil)

// PutLinkDesign stores a data link's design once per account (by its
// SHA-256) and the link's row pointing at it; the first link stored wins.
func (s *Store) PutLinkDesign(ctx context.Context, accountID string, l store.DataLink, limits store.LinkLimits) error {
	if err := s.putLinkDesign(ctx, accountID, l, limits); err != nil {
		return fmt.Errorf("put link design for account %s: %w", accountID, s.check(err))
	}
	return nil
}

func (s *Store) putLinkDesign(ctx context.Context, accountID string, l store.DataLink, limits store.LinkLimits) error {
	if err := s.writable(); err != nil {
		return err
	}
	sum := sha256.Sum256(l.Design)
	now := time.Now()
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
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM link_designs WHERE id = ?`, l.ID).Scan(&held); err != nil || held > 0 {
		return err // the first link stored under id stays
	}
	if limits.Links > 0 {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM link_designs WHERE account_id = ?`, accountID).Scan(&n); err != nil {
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
	if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM link_design_bodies WHERE account_id = ? AND hash = ?`, accountID, sum[:]).Scan(&held); err != nil {
		return err
	}
	if held == 0 {
		if limits.Designs > 0 {
			n, err := countDesigns(ctx, tx, accountID)
			if err != nil {
				return err
			}
			if n >= limits.Designs {
				return fmt.Errorf("%w: %d of %d link designs", store.ErrLimit, n, limits.Designs)
			}
		}
		if _, err := tx.ExecContext(ctx, `INSERT INTO link_design_bodies (account_id, hash, design, created_at) VALUES (?, ?, ?, ?)`,
			accountID, sum[:], nonNil(l.Design), micros(now)); err != nil {
			return err
		}
	}
	if _, err := tx.ExecContext(ctx,
		`INSERT INTO link_designs (id, account_id, chart_id, kid, expires_at, design, design_hash, created_at)
		 VALUES (?, ?, ?, NULLIF(?, ''), ?, x'', ?, ?) ON CONFLICT (id) DO NOTHING`,
		l.ID, accountID, l.ChartID, l.KID, optMicros(l.Expires), sum[:], micros(now)); err != nil {
		if isForeignKey(err) {
			return store.ErrNotFound
		}
		return err
	}
	return tx.Commit()
}

// dropStoppedLinks deletes the account's data links signed by the
// revoked kids, those stored before links kept their kid once the account
// has no live key left, and the designs no link keeps any more, in the
// caller's transaction.
func dropStoppedLinks(ctx context.Context, tx *sql.Tx, accountID string, revoked []string) error {
	kids, err := json.Marshal(revoked)
	if err != nil {
		return err
	}
	if _, err := tx.ExecContext(ctx, `DELETE FROM link_designs WHERE account_id = ?1 AND (kid IN (SELECT value FROM json_each(?2))
		OR (kid IS NULL AND NOT EXISTS (SELECT 1 FROM signing_keys WHERE account_id = ?1 AND revoked_at IS NULL)))`,
		accountID, string(kids)); err != nil {
		return fmt.Errorf("delete stopped data links: %w", err)
	}
	return dropUnkeptDesigns(ctx, tx, accountID)
}

// dropExpiredLinks deletes the account's links past their expiry (a
// range of the (account_id, expires_at) index, at most the account's
// limit of rows) and, when there were some, the designs no link keeps;
// it answers how many links went.
func dropExpiredLinks(ctx context.Context, tx *sql.Tx, accountID string, now time.Time) (int, error) {
	res, err := tx.ExecContext(ctx, `DELETE FROM link_designs WHERE account_id = ? AND expires_at <= ?`, accountID, micros(now))
	if err != nil {
		return 0, fmt.Errorf("delete expired data links: %w", err)
	}
	n, err := res.RowsAffected()
	if err != nil || n == 0 {
		return 0, err
	}
	return int(n), dropUnkeptDesigns(ctx, tx, accountID)
}

// dropUnkeptDesigns deletes the account's designs no link keeps.
func dropUnkeptDesigns(ctx context.Context, tx *sql.Tx, accountID string) error {
	if _, err := tx.ExecContext(ctx, `DELETE FROM link_design_bodies WHERE account_id = ?1 AND hash NOT IN
		(SELECT design_hash FROM link_designs WHERE account_id = ?1 AND design_hash IS NOT NULL)`, accountID); err != nil {
		return fmt.Errorf("delete unkept link designs: %w", err)
	}
	return nil
}

// optMicros is t as a nullable micros column: NULL when zero.
func optMicros(t time.Time) sql.NullInt64 {
	if t.IsZero() {
		return sql.NullInt64{}
	}
	return sql.NullInt64{Int64: micros(t), Valid: true}
}

// CountDataLinks answers how many data links the account holds.
func (s *Store) CountDataLinks(ctx context.Context, accountID string) (int, error) {
	var n int
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM link_designs WHERE account_id = ?`, accountID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count data links of account %s: %w", accountID, err)
	}
	return n, nil
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
