package sqlite

import (
	"context"
	"fmt"
	"time"

	"chartd.dev/libs/store"
)

var _ store.LinkDesigns = (*Store)(nil)

// PutLinkDesign stores a data link's design; the first one stored wins.
func (s *Store) PutLinkDesign(ctx context.Context, accountID, id, chartID string, design []byte) error {
	_, err := s.write.ExecContext(ctx,
		`INSERT INTO link_designs (id, account_id, chart_id, design, created_at) VALUES (?, ?, ?, ?, ?) ON CONFLICT (id) DO NOTHING`,
		id, accountID, chartID, nonNil(design), micros(time.Now()))
	switch {
	case isForeignKey(err):
		return fmt.Errorf("put link design for account %s: %w", accountID, store.ErrNotFound)
	case err != nil:
		return fmt.Errorf("put link design for account %s: %w", accountID, err)
	}
	return nil
}

// GetLinkDesign loads one of the account's link designs.
func (s *Store) GetLinkDesign(ctx context.Context, accountID, id string) ([]byte, error) {
	var design []byte
	err := s.read.QueryRowContext(ctx, `SELECT design FROM link_designs WHERE account_id = ? AND id = ?`, accountID, id).Scan(&design)
	if err != nil {
		return nil, fmt.Errorf("get link design %s of account %s: %w", id, accountID, notFound(err))
	}
	return design, nil
}
