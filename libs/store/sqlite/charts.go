package sqlite

import (
	"context"
	"database/sql"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"

	"chartd.dev/libs/store"
)

const chartColumns = `id, account_id, name, type, spec, created_at, updated_at`

// getChartQuery loads one chart; prepared in Open.
const getChartQuery = `SELECT ` + chartColumns + ` FROM charts WHERE account_id = ? AND id = ?`

func scanChart(r scanner) (store.Chart, error) {
	var c store.Chart
	var created, updated int64
	if err := r.Scan(&c.ID, &c.AccountID, &c.Name, &c.Type, &c.Spec, &created, &updated); err != nil {
		return store.Chart{}, err
	}
	c.CreatedAt = fromMicros(created)
	c.UpdatedAt = fromMicros(updated)
	return c, nil
}

// CreateChart inserts c with fresh timestamps, enforcing limit atomically:
// the transaction starts with BEGIN IMMEDIATE on the single writer, so the
// count and the insert cannot interleave with another create.
func (s *Store) CreateChart(ctx context.Context, c store.Chart, limit int) (store.Chart, error) {
	if c.ID == "" {
		c.ID = uuid.NewString()
	}
	now := store.Micro(time.Now())
	c.CreatedAt, c.UpdatedAt = now, now
	c.Spec = nonNil(c.Spec)
	if err := s.createChart(ctx, c, limit); err != nil {
		return store.Chart{}, fmt.Errorf("create chart %s in account %s: %w", c.ID, c.AccountID, err)
	}
	return c, nil
}

func (s *Store) createChart(ctx context.Context, c store.Chart, limit int) error {
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return err
	}
	defer tx.Rollback()
	var one int
	if err := tx.QueryRowContext(ctx, `SELECT 1 FROM accounts WHERE id = ?`, c.AccountID).Scan(&one); err != nil {
		return notFound(err)
	}
	if limit > 0 {
		var n int
		if err := tx.QueryRowContext(ctx, `SELECT count(*) FROM charts WHERE account_id = ?`, c.AccountID).Scan(&n); err != nil {
			return err
		}
		if n >= limit {
			return fmt.Errorf("%w: %d of %d charts", store.ErrLimit, n, limit)
		}
	}
	_, err = tx.ExecContext(ctx,
		`INSERT INTO charts (`+chartColumns+`) VALUES (?, ?, ?, ?, ?, ?, ?)`,
		c.ID, c.AccountID, c.Name, c.Type, c.Spec, micros(c.CreatedAt), micros(c.UpdatedAt))
	if isUnique(err) {
		return fmt.Errorf("%w: chart id taken", store.ErrConflict)
	}
	if err != nil {
		return err
	}
	return tx.Commit()
}

// GetChart loads one of the account's charts.
func (s *Store) GetChart(ctx context.Context, accountID, id string) (store.Chart, error) {
	c, err := scanChart(s.getChart.QueryRowContext(ctx, accountID, id))
	if err != nil {
		return store.Chart{}, fmt.Errorf("get chart %s in account %s: %w", id, accountID, notFound(err))
	}
	return c, nil
}

// UpdateChart saves name, type and spec in one conditional UPDATE: the
// token check and the write are a single statement on the single writer,
// so of several writers holding the same token exactly one matches.
func (s *Store) UpdateChart(ctx context.Context, c store.Chart, expected *time.Time) (store.Chart, error) {
	var want sql.NullInt64
	if expected != nil {
		want = sql.NullInt64{Int64: micros(*expected), Valid: true}
	}
	out, err := scanChart(s.write.QueryRowContext(ctx,
		`UPDATE charts SET name = ?, type = ?, spec = ?, updated_at = max(?, updated_at + 1)
		  WHERE account_id = ? AND id = ? AND (? IS NULL OR updated_at = ?)
		  RETURNING `+chartColumns,
		c.Name, c.Type, nonNil(c.Spec), micros(time.Now()), c.AccountID, c.ID, want, want))
	if errors.Is(err, sql.ErrNoRows) {
		err = s.updateMiss(ctx, c, expected)
	}
	if err != nil {
		return store.Chart{}, fmt.Errorf("update chart %s in account %s: %w", c.ID, c.AccountID, err)
	}
	return out, nil
}

// updateMiss explains why a conditional update changed nothing: the chart
// is missing from the account, or its token moved on.
func (s *Store) updateMiss(ctx context.Context, c store.Chart, expected *time.Time) error {
	if expected == nil {
		return store.ErrNotFound
	}
	var updated int64
	err := s.write.QueryRowContext(ctx,
		`SELECT updated_at FROM charts WHERE account_id = ? AND id = ?`, c.AccountID, c.ID).Scan(&updated)
	if err != nil {
		return notFound(err)
	}
	return fmt.Errorf("%w: chart changed at %s, expected %s", store.ErrConflict,
		fromMicros(updated).Format(time.RFC3339Nano), store.Micro(*expected).Format(time.RFC3339Nano))
}

// DeleteChart removes one of the account's charts; its dataset goes with it.
func (s *Store) DeleteChart(ctx context.Context, accountID, id string) error {
	res, err := s.write.ExecContext(ctx, `DELETE FROM charts WHERE account_id = ? AND id = ?`, accountID, id)
	if err == nil {
		err = mustAffect(res)
	}
	if err != nil {
		return fmt.Errorf("delete chart %s in account %s: %w", id, accountID, err)
	}
	return nil
}

// ListCharts pages through the account's charts, most recently changed
// first, by keyset on (updated_at, id).
func (s *Store) ListCharts(ctx context.Context, accountID string, limit int, cursor string) ([]store.Chart, string, error) {
	limit = store.PageSize(limit)
	var rows *sql.Rows
	var err error
	if cursor == "" {
		rows, err = s.read.QueryContext(ctx,
			`SELECT `+chartColumns+` FROM charts WHERE account_id = ?
			  ORDER BY updated_at DESC, id DESC LIMIT ?`, accountID, limit+1)
	} else {
		cur, derr := store.DecodeCursor(cursor)
		if derr != nil {
			return nil, "", fmt.Errorf("list charts of account %s: %w", accountID, derr)
		}
		rows, err = s.read.QueryContext(ctx,
			`SELECT `+chartColumns+` FROM charts WHERE account_id = ? AND (updated_at, id) < (?, ?)
			  ORDER BY updated_at DESC, id DESC LIMIT ?`, accountID, micros(cur.UpdatedAt), cur.ID, limit+1)
	}
	if err != nil {
		return nil, "", fmt.Errorf("list charts of account %s: %w", accountID, err)
	}
	defer rows.Close()
	out := make([]store.Chart, 0, limit+1)
	for rows.Next() {
		c, err := scanChart(rows)
		if err != nil {
			return nil, "", fmt.Errorf("list charts of account %s: %w", accountID, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, "", fmt.Errorf("list charts of account %s: %w", accountID, err)
	}
	page, next := store.Paginate(out, limit)
	return page, next, nil
}

// CountCharts answers how many charts the account holds.
func (s *Store) CountCharts(ctx context.Context, accountID string) (int, error) {
	var n int
	if err := s.read.QueryRowContext(ctx, `SELECT count(*) FROM charts WHERE account_id = ?`, accountID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count charts of account %s: %w", accountID, err)
	}
	return n, nil
}

// PutDataset inserts or replaces the chart's dataset. The composite foreign
// key (account_id, chart_id) → charts makes a chart of another account (or
// no chart) a violation, and the upsert's WHERE keeps another account's row
// untouched; both answer ErrNotFound.
func (s *Store) PutDataset(ctx context.Context, d store.Dataset) error {
	if d.UpdatedAt.IsZero() {
		d.UpdatedAt = time.Now()
	}
	res, err := s.write.ExecContext(ctx,
		`INSERT INTO datasets (chart_id, account_id, format, raw, updated_at) VALUES (?, ?, ?, ?, ?)
		 ON CONFLICT (chart_id) DO UPDATE SET format = excluded.format, raw = excluded.raw, updated_at = excluded.updated_at
		  WHERE datasets.account_id = excluded.account_id`,
		d.ChartID, d.AccountID, d.Format, nonNil(d.Raw), micros(d.UpdatedAt))
	switch {
	case isForeignKey(err):
		err = store.ErrNotFound
	case err == nil:
		err = mustAffect(res)
	}
	if err != nil {
		return fmt.Errorf("put dataset of chart %s in account %s: %w", d.ChartID, d.AccountID, err)
	}
	return nil
}

// GetDataset loads the chart's dataset.
func (s *Store) GetDataset(ctx context.Context, accountID, chartID string) (store.Dataset, error) {
	var d store.Dataset
	var updated int64
	err := s.read.QueryRowContext(ctx,
		`SELECT chart_id, account_id, format, raw, updated_at FROM datasets WHERE account_id = ? AND chart_id = ?`,
		accountID, chartID).Scan(&d.ChartID, &d.AccountID, &d.Format, &d.Raw, &updated)
	if err != nil {
		return store.Dataset{}, fmt.Errorf("get dataset of chart %s in account %s: %w", chartID, accountID, notFound(err))
	}
	d.UpdatedAt = fromMicros(updated)
	return d, nil
}

// DeleteDataset removes the chart's dataset.
func (s *Store) DeleteDataset(ctx context.Context, accountID, chartID string) error {
	res, err := s.write.ExecContext(ctx, `DELETE FROM datasets WHERE account_id = ? AND chart_id = ?`, accountID, chartID)
	if err == nil {
		err = mustAffect(res)
	}
	if err != nil {
		return fmt.Errorf("delete dataset of chart %s in account %s: %w", chartID, accountID, err)
	}
	return nil
}
