package postgres

import (
	"context"
	"fmt"
	"time"

	"chartd.dev/libs/store"
)

var _ store.LinkDesigns = (*Store)(nil)

// PutLinkDesign stores a data link's design; the first one stored wins.
func (s *Store) PutLinkDesign(ctx context.Context, accountID, id, chartID string, design []byte) error {
	_, err := s.pool.Exec(ctx,
		`INSERT INTO link_designs (id, account_id, chart_id, design, created_at) VALUES ($1, $2, $3, $4, $5) ON CONFLICT (id) DO NOTHING`,
		id, accountID, chartID, nonNil(design), time.Now().UTC())
	switch {
	case pgCode(err) == codeForeignKeyViolation:
		return fmt.Errorf("put link design for account %s: %w", accountID, store.ErrNotFound)
	case err != nil:
		return fmt.Errorf("put link design for account %s: %w", accountID, err)
	}
	return nil
}

// GetLinkDesign loads one of the account's link designs.
func (s *Store) GetLinkDesign(ctx context.Context, accountID, id string) ([]byte, error) {
	var design []byte
	err := s.pool.QueryRow(ctx, `SELECT design FROM link_designs WHERE account_id = $1 AND id = $2`, accountID, id).Scan(&design)
	if err != nil {
		return nil, fmt.Errorf("get link design %s of account %s: %w", id, accountID, notFound(err))
	}
	return design, nil
}
