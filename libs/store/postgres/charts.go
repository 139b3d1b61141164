package postgres

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/google/uuid"
	"github.com/jackc/pgx/v5"

	"chartd.dev/libs/store"
)

const chartColumns = `id, account_id, name, type, spec, created_at, updated_at`

func scanChart(r pgx.Row) (store.Chart, error) {
	var c store.Chart
	if err := r.Scan(&c.ID, &c.AccountID, &c.Name, &c.Type, &c.Spec, &c.CreatedAt, &c.UpdatedAt); err != nil {
		return store.Chart{}, err
	}
	c.CreatedAt = store.Micro(c.CreatedAt)
	c.UpdatedAt = store.Micro(c.UpdatedAt)
	return c, nil
}

// CreateChart inserts c with fresh timestamps. With a limit, the account
// row is locked (SELECT ... FOR UPDATE) before counting, so concurrent
// creates for one account count one after another and cannot overshoot.
func (s *Store) CreateChart(ctx context.Context, c store.Chart, limit int) (store.Chart, error) {
	if c.ID == "" {
		c.ID = uuid.NewString()
	}
	now := store.Micro(time.Now())
	c.CreatedAt, c.UpdatedAt = now, now
	c.Spec = nonNil(c.Spec)
	if c.Data != nil {
		c.Data = &store.Dataset{Format: c.Data.Format, Raw: nonNil(c.Data.Raw)}
	}
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		if limit > 0 {
			var n int
			err := tx.QueryRow(ctx, `SELECT 1 FROM accounts WHERE id = $1 FOR UPDATE`, c.AccountID).Scan(&n)
			if err != nil {
				return notFound(err)
			}
			if err := tx.QueryRow(ctx, `SELECT count(*) FROM charts WHERE account_id = $1`, c.AccountID).Scan(&n); err != nil {
				return err
			}
			if n >= limit {
				return fmt.Errorf("%w: %d of %d charts", store.ErrLimit, n, limit)
			}
		}
		_, err := tx.Exec(ctx, `INSERT INTO charts (`+chartColumns+`) VALUES ($1, $2, $3, $4, $5, $6, $7)`,
			c.ID, c.AccountID, c.Name, c.Type, c.Spec, c.CreatedAt, c.UpdatedAt)
		switch pgCode(err) {
		case codeForeignKeyViolation:
			return store.ErrNotFound
		case codeUniqueViolation:
			return fmt.Errorf("%w: chart id taken", store.ErrConflict)
		}
		if err != nil {
			return err
		}
		return putData(ctx, tx, c)
	})
	if err != nil {
		return store.Chart{}, fmt.Errorf("create chart %s in account %s: %w", c.ID, c.AccountID, full(err))
	}
	return c, nil
}

// GetChart loads one of the account's charts.
func (s *Store) GetChart(ctx context.Context, accountID, id string) (store.Chart, error) {
	c, err := scanChart(s.pool.QueryRow(ctx,
		`SELECT `+chartColumns+` FROM charts WHERE account_id = $1 AND id = $2`, accountID, id))
	if err != nil {
		return store.Chart{}, fmt.Errorf("get chart %s in account %s: %w", id, accountID, notFound(err))
	}
	return c, nil
}

// putData writes c.Data, when set, as the chart's data in tx.
func putData(ctx context.Context, tx pgx.Tx, c store.Chart) error {
	if c.Data == nil {
		return nil
	}
	_, err := tx.Exec(ctx,
		`INSERT INTO datasets (chart_id, account_id, format, raw, updated_at) VALUES ($1, $2, $3, $4, $5)
		 ON CONFLICT (chart_id) DO UPDATE SET format = excluded.format, raw = excluded.raw, updated_at = excluded.updated_at`,
		c.ID, c.AccountID, c.Data.Format, nonNil(c.Data.Raw), c.UpdatedAt)
	if err != nil {
		return fmt.Errorf("put data: %w", err)
	}
	return nil
}

// GetChartWithData loads the chart and its data in one statement.
func (s *Store) GetChartWithData(ctx context.Context, accountID, id string) (store.Chart, error) {
	var c store.Chart
	var format *string
	var raw []byte
	err := s.pool.QueryRow(ctx,
		`SELECT c.id, c.account_id, c.name, c.type, c.spec, c.created_at, c.updated_at, d.format, d.raw
		   FROM charts c LEFT JOIN datasets d ON d.chart_id = c.id AND d.account_id = c.account_id
		  WHERE c.account_id = $1 AND c.id = $2`, accountID, id).
		Scan(&c.ID, &c.AccountID, &c.Name, &c.Type, &c.Spec, &c.CreatedAt, &c.UpdatedAt, &format, &raw)
	if err != nil {
		return store.Chart{}, fmt.Errorf("get chart %s with data in account %s: %w", id, accountID, notFound(err))
	}
	c.CreatedAt, c.UpdatedAt = store.Micro(c.CreatedAt), store.Micro(c.UpdatedAt)
	if format != nil {
		c.Data = &store.Dataset{Format: *format, Raw: nonNil(raw)}
	}
	return c, nil
}

// UpdateChart saves name, type, spec and (when given) data in one
// transaction whose conditional UPDATE is the token check. Writers holding
// the same token queue on the row lock; under READ COMMITTED each re-checks
// the WHERE clause against the row the previous one committed, finds the
// token moved, and matches nothing: exactly one wins.
func (s *Store) UpdateChart(ctx context.Context, c store.Chart, expected *time.Time) (store.Chart, error) {
	var want *time.Time
	if expected != nil {
		w := store.Micro(*expected)
		want = &w
	}
	var out store.Chart
	err := pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		var err error
		out, err = scanChart(tx.QueryRow(ctx,
			`UPDATE charts SET name = $3, type = $4, spec = $5,
			        updated_at = greatest($6::timestamptz, updated_at + interval '1 microsecond')
			  WHERE account_id = $1 AND id = $2 AND ($7::timestamptz IS NULL OR updated_at = $7::timestamptz)
			  RETURNING `+chartColumns,
			c.AccountID, c.ID, c.Name, c.Type, nonNil(c.Spec), store.Micro(time.Now()), want))
		if errors.Is(err, pgx.ErrNoRows) {
			return updateMiss(ctx, tx, c, want)
		}
		if err != nil {
			return err
		}
		out.Data = c.Data
		return putData(ctx, tx, out)
	})
	if err != nil {
		return store.Chart{}, fmt.Errorf("update chart %s in account %s: %w", c.ID, c.AccountID, full(err))
	}
	return out, nil
}

// EditChart runs edit in one transaction that holds the chart's row lock
// (SELECT ... FOR UPDATE) from the read to the write, so edits of one chart
// from any replica run one after another. Within this process they queue
// first on s.edits, so each chart holds at most one pooled connection here.
func (s *Store) EditChart(ctx context.Context, accountID, id string, edit store.ChartEdit) (store.Chart, error) {
	unlock, err := s.edits.Lock(ctx, accountID+"/"+id)
	if err != nil {
		return store.Chart{}, fmt.Errorf("edit chart %s in account %s: %w", id, accountID, full(err))
	}
	defer unlock()
	var out store.Chart
	err = pgx.BeginFunc(ctx, s.pool, func(tx pgx.Tx) error {
		cur, err := scanChart(tx.QueryRow(ctx,
			`SELECT `+chartColumns+` FROM charts WHERE account_id = $1 AND id = $2 FOR UPDATE`, accountID, id))
		if err != nil {
			return notFound(err)
		}
		data := func() (*store.Dataset, error) { return readData(ctx, tx, accountID, id) }
		next, err := edit(cur, data)
		if err != nil {
			return err
		}
		next.ID, next.AccountID = cur.ID, cur.AccountID
		out, err = scanChart(tx.QueryRow(ctx,
			`UPDATE charts SET name = $3, type = $4, spec = $5,
			        updated_at = greatest($6::timestamptz, updated_at + interval '1 microsecond')
			  WHERE account_id = $1 AND id = $2
			  RETURNING `+chartColumns,
			accountID, id, next.Name, next.Type, nonNil(next.Spec), store.Micro(time.Now())))
		if err != nil {
			return notFound(err)
		}
		out.Data = next.Data
		return putData(ctx, tx, out)
	})
	if err != nil {
		return store.Chart{}, fmt.Errorf("edit chart %s in account %s: %w", id, accountID, full(err))
	}
	return out, nil
}

// readData reads a chart's data in tx; nil when it has none.
func readData(ctx context.Context, tx pgx.Tx, accountID, id string) (*store.Dataset, error) {
	var d store.Dataset
	err := tx.QueryRow(ctx, `SELECT format, raw FROM datasets WHERE chart_id = $1 AND account_id = $2`, id, accountID).
		Scan(&d.Format, &d.Raw)
	if errors.Is(err, pgx.ErrNoRows) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("read data: %w", err)
	}
	d.Raw = nonNil(d.Raw)
	return &d, nil
}

// updateMiss explains why a conditional update changed nothing: the chart
// is missing from the account, or its token moved on.
func updateMiss(ctx context.Context, tx pgx.Tx, c store.Chart, expected *time.Time) error {
	if expected == nil {
		return store.ErrNotFound
	}
	var updated time.Time
	err := tx.QueryRow(ctx, `SELECT updated_at FROM charts WHERE account_id = $1 AND id = $2`,
		c.AccountID, c.ID).Scan(&updated)
	if err != nil {
		return notFound(err)
	}
	return fmt.Errorf("%w: chart changed at %s, expected %s", store.ErrConflict,
		store.Micro(updated).Format(time.RFC3339Nano), expected.Format(time.RFC3339Nano))
}

// DeleteChart removes one of the account's charts; its data goes with it
// in the same statement (ON DELETE CASCADE).
func (s *Store) DeleteChart(ctx context.Context, accountID, id string) error {
	tag, err := s.pool.Exec(ctx, `DELETE FROM charts WHERE account_id = $1 AND id = $2`, accountID, id)
	if err == nil {
		err = mustAffect(tag)
	}
	if err != nil {
		return fmt.Errorf("delete chart %s in account %s: %w", id, accountID, full(err))
	}
	return nil
}

// ListCharts pages through the account's charts, most recently changed
// first, by keyset on (updated_at, id) over the charts_account_recent index.
func (s *Store) ListCharts(ctx context.Context, accountID string, limit int, cursor string) ([]store.Chart, string, error) {
	limit = store.PageSize(limit)
	var rows pgx.Rows
	var err error
	if cursor == "" {
		rows, err = s.pool.Query(ctx,
			`SELECT `+chartColumns+` FROM charts WHERE account_id = $1
			  ORDER BY updated_at DESC, id DESC LIMIT $2`, accountID, limit+1)
	} else {
		cur, derr := store.DecodeCursor(cursor)
		if derr != nil {
			return nil, "", fmt.Errorf("list charts of account %s: %w", accountID, derr)
		}
		rows, err = s.pool.Query(ctx,
			`SELECT `+chartColumns+` FROM charts WHERE account_id = $1 AND (updated_at, id) < ($2, $3)
			  ORDER BY updated_at DESC, id DESC LIMIT $4`, accountID, cur.UpdatedAt, cur.ID, limit+1)
	}
	if err != nil {
		return nil, "", fmt.Errorf("list charts of account %s: %w", accountID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Chart, error) { return scanChart(r) })
	if err != nil {
		return nil, "", fmt.Errorf("list charts of account %s: %w", accountID, err)
	}
	page, next := store.Paginate(out, limit)
	return page, next, nil
}

// CountCharts answers how many charts the account holds.
func (s *Store) CountCharts(ctx context.Context, accountID string) (int, error) {
	var n int
	if err := s.pool.QueryRow(ctx, `SELECT count(*) FROM charts WHERE account_id = $1`, accountID).Scan(&n); err != nil {
		return 0, fmt.Errorf("count charts of account %s: %w", accountID, err)
	}
	return n, nil
}

// FindCharts answers a page of the account's charts matching q, searched
// and ordered here over the charts_account_recent index's rows.
func (s *Store) FindCharts(ctx context.Context, accountID string, q store.ChartSearch) ([]store.Chart, bool, error) {
	limit := store.PageSize(q.Limit)
	order := "DESC"
	if q.Oldest {
		order = "ASC"
	}
	rows, err := s.pool.Query(ctx,
		`SELECT `+chartColumns+` FROM charts WHERE account_id = $1
		  AND ($2 = '' OR name ILIKE $3 OR (convert_from(spec, 'UTF8')::jsonb #>> '{style,title,text}') ILIKE $3)
		  ORDER BY updated_at `+order+`, id `+order+` OFFSET $4 LIMIT $5`,
		accountID, q.Text, store.LikePattern(q.Text), max(q.Offset, 0), limit+1)
	if err != nil {
		return nil, false, fmt.Errorf("find charts of account %s: %w", accountID, err)
	}
	out, err := pgx.CollectRows(rows, func(r pgx.CollectableRow) (store.Chart, error) { return scanChart(r) })
	if err != nil {
		return nil, false, fmt.Errorf("find charts of account %s: %w", accountID, err)
	}
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}
