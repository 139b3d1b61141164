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

// updateChartQuery is the compare-and-set of a chart row: with a token
// (the last two arguments) it matches only the version the caller read.
const updateChartQuery = `UPDATE charts SET name = ?, type = ?, spec = ?, updated_at = max(?, updated_at + 1)
  WHERE account_id = ? AND id = ? AND (? IS NULL OR updated_at = ?)
  RETURNING ` + chartColumns

// getChartQuery loads one chart; prepared in Open.
const getChartQuery = `SELECT ` + chartColumns + ` FROM charts WHERE account_id = ? AND id = ?`

// getChartWithDataQuery loads a chart and its data in one statement, so one
// read snapshot; prepared in Open.
const getChartWithDataQuery = `SELECT c.id, c.account_id, c.name, c.type, c.spec, c.created_at, c.updated_at, d.format, d.raw
  FROM charts c LEFT JOIN datasets d ON d.chart_id = c.id AND d.account_id = c.account_id
 WHERE c.account_id = ? AND c.id = ?`

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
	if c.Data != nil {
		c.Data = &store.Dataset{Format: c.Data.Format, Raw: nonNil(c.Data.Raw)}
	}
	if err := s.createChart(ctx, c, limit); err != nil {
		return store.Chart{}, fmt.Errorf("create chart %s in account %s: %w", c.ID, c.AccountID, s.check(err))
	}
	return c, nil
}

func (s *Store) createChart(ctx context.Context, c store.Chart, limit int) error {
	if err := s.writable(); err != nil {
		return err
	}
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
	if err := putData(ctx, tx, c); err != nil {
		return err
	}
	return tx.Commit()
}

// putData writes c.Data, when set, as the chart's data in tx.
func putData(ctx context.Context, tx *sql.Tx, c store.Chart) error {
	if c.Data == nil {
		return nil
	}
	_, err := tx.ExecContext(ctx,
		`INSERT INTO datasets (chart_id, account_id, format, raw, updated_at) VALUES (?, ?, ?, ?, ?)
		 ON CONFLICT (chart_id) DO UPDATE SET format = excluded.format, raw = excluded.raw, updated_at = excluded.updated_at`,
		c.ID, c.AccountID, c.Data.Format, nonNil(c.Data.Raw), micros(c.UpdatedAt))
	if err != nil {
		return fmt.Errorf("put data: %w", err)
	}
	return nil
}

// GetChart loads one of the account's charts.
func (s *Store) GetChart(ctx context.Context, accountID, id string) (store.Chart, error) {
	c, err := scanChart(s.getChart.QueryRowContext(ctx, accountID, id))
	if err != nil {
		return store.Chart{}, fmt.Errorf("get chart %s in account %s: %w", id, accountID, notFound(err))
	}
	return c, nil
}

// GetChartWithData loads the chart and its data in one statement.
func (s *Store) GetChartWithData(ctx context.Context, accountID, id string) (store.Chart, error) {
	var c store.Chart
	var created, updated int64
	var format sql.NullString
	var raw []byte
	err := s.getChartWithData.QueryRowContext(ctx, accountID, id).
		Scan(&c.ID, &c.AccountID, &c.Name, &c.Type, &c.Spec, &created, &updated, &format, &raw)
	if err != nil {
		return store.Chart{}, fmt.Errorf("get chart %s with data in account %s: %w", id, accountID, notFound(err))
	}
	c.CreatedAt, c.UpdatedAt = fromMicros(created), fromMicros(updated)
	if format.Valid {
		c.Data = &store.Dataset{Format: format.String, Raw: nonNil(raw)}
	}
	return c, nil
}

// UpdateChart saves name, type, spec and (when given) data in one
// transaction whose conditional UPDATE is the token check: on the single
// writer, of several writers holding the same token exactly one matches.
func (s *Store) UpdateChart(ctx context.Context, c store.Chart, expected *time.Time) (store.Chart, error) {
	out, err := s.updateChart(ctx, c, expected)
	if err != nil {
		return store.Chart{}, fmt.Errorf("update chart %s in account %s: %w", c.ID, c.AccountID, s.check(err))
	}
	return out, nil
}

func (s *Store) updateChart(ctx context.Context, c store.Chart, expected *time.Time) (store.Chart, error) {
	if err := s.writable(); err != nil {
		return store.Chart{}, err
	}
	var want sql.NullInt64
	if expected != nil {
		want = sql.NullInt64{Int64: micros(*expected), Valid: true}
	}
	if c.Data == nil {
		// One statement is atomic by itself: no transaction round trips.
		out, err := scanChart(s.write.QueryRowContext(ctx, updateChartQuery,
			c.Name, c.Type, nonNil(c.Spec), micros(time.Now()), c.AccountID, c.ID, want, want))
		if errors.Is(err, sql.ErrNoRows) {
			return store.Chart{}, updateMiss(ctx, s.write, c, expected)
		}
		return out, err
	}
	tx, err := s.write.BeginTx(ctx, nil)
	if err != nil {
		return store.Chart{}, err
	}
	defer tx.Rollback()
	out, err := scanChart(tx.QueryRowContext(ctx, updateChartQuery,
		c.Name, c.Type, nonNil(c.Spec), micros(time.Now()), c.AccountID, c.ID, want, want))
	if errors.Is(err, sql.ErrNoRows) {
		return store.Chart{}, updateMiss(ctx, tx, c, expected)
	}
	if err != nil {
		return store.Chart{}, err
	}
	out.Data = c.Data
	if err := putData(ctx, tx, out); err != nil {
		return store.Chart{}, err
	}
	if err := tx.Commit(); err != nil {
		return store.Chart{}, err
	}
	return out, nil
}

// maxEditAttempts bounds how often EditChart re-reads when the chart moved
// under it, which only another process writing the same file can cause.
const maxEditAttempts = 16

// EditChart runs edit while this process holds the chart (s.edits), then
// saves its answer as a compare-and-set on the updated_at it read. Edits
// of one chart in this process thus run one after another and always
// win, while edits of other charts go on meanwhile: the single writer
// connection is held only for the write, not for edit. Should another
// process change the chart between read and write, the edit runs again on
// the newer version.
func (s *Store) EditChart(ctx context.Context, accountID, id string, edit store.ChartEdit) (store.Chart, error) {
	out, err := s.editChart(ctx, accountID, id, edit)
	if err != nil {
		return store.Chart{}, fmt.Errorf("edit chart %s in account %s: %w", id, accountID, s.check(err))
	}
	return out, nil
}

func (s *Store) editChart(ctx context.Context, accountID, id string, edit store.ChartEdit) (store.Chart, error) {
	if err := s.writable(); err != nil {
		return store.Chart{}, err
	}
	unlock, err := s.edits.Lock(ctx, accountID+"/"+id)
	if err != nil {
		return store.Chart{}, err
	}
	defer unlock()
	for attempt := 1; ; attempt++ {
		cur, err := scanChart(s.getChart.QueryRowContext(ctx, accountID, id))
		if err != nil {
			return store.Chart{}, notFound(err)
		}
		data := func() (*store.Dataset, error) { return s.readData(ctx, accountID, id, cur.UpdatedAt) }
		next, err := edit(cur, data)
		if errors.Is(err, errMoved) && attempt < maxEditAttempts {
			continue
		}
		if err != nil {
			return store.Chart{}, err
		}
		next.ID, next.AccountID = cur.ID, cur.AccountID
		token := cur.UpdatedAt
		out, err := s.updateChart(ctx, next, &token)
		if errors.Is(err, store.ErrConflict) && attempt < maxEditAttempts {
			continue
		}
		return out, err
	}
}

// errMoved is a chart changed by another process while EditChart edited it.
var errMoved = fmt.Errorf("%w: the chart changed while it was edited", store.ErrConflict)

// readData reads a chart's data as of the version updated (in one read
// with the chart row, so both are one snapshot); nil when it has none. A
// newer version in between is errMoved.
func (s *Store) readData(ctx context.Context, accountID, id string, updated time.Time) (*store.Dataset, error) {
	c, err := s.GetChartWithData(ctx, accountID, id)
	if err != nil {
		return nil, err
	}
	if !c.UpdatedAt.Equal(updated) {
		return nil, fmt.Errorf("%w: at %s", errMoved, c.UpdatedAt.Format(time.RFC3339Nano))
	}
	return c.Data, nil
}

// querier is a connection or a transaction.
type querier interface {
	QueryRowContext(ctx context.Context, query string, args ...any) *sql.Row
}

// updateMiss explains why a conditional update changed nothing: the chart
// is missing from the account, or its token moved on.
func updateMiss(ctx context.Context, tx querier, c store.Chart, expected *time.Time) error {
	if expected == nil {
		return store.ErrNotFound
	}
	var updated int64
	err := tx.QueryRowContext(ctx,
		`SELECT updated_at FROM charts WHERE account_id = ? AND id = ?`, c.AccountID, c.ID).Scan(&updated)
	if err != nil {
		return notFound(err)
	}
	return fmt.Errorf("%w: chart changed at %s, expected %s", store.ErrConflict,
		fromMicros(updated).Format(time.RFC3339Nano), store.Micro(*expected).Format(time.RFC3339Nano))
}

// DeleteChart removes one of the account's charts; its data goes with it
// in the same statement (ON DELETE CASCADE). It works on a full disk: a
// delete that finds no room releases the reserve, then the deletes' own,
// and runs again (deleting), and the pages it frees go back to the file
// system (reclaim).
func (s *Store) DeleteChart(ctx context.Context, accountID, id string) error {
	err := s.deleting(func() error {
		res, err := s.write.ExecContext(ctx, `DELETE FROM charts WHERE account_id = ? AND id = ?`, accountID, id)
		if err != nil {
			return err
		}
		return mustAffect(res)
	})
	if err != nil {
		return fmt.Errorf("delete chart %s in account %s: %w", id, accountID, err)
	}
	s.reclaim(ctx)
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

// FindCharts answers a page of the account's charts matching q, searched
// and ordered here (LIKE folds ASCII letters only, as documented).
func (s *Store) FindCharts(ctx context.Context, accountID string, q store.ChartSearch) ([]store.Chart, bool, error) {
	limit := store.PageSize(q.Limit)
	order := "DESC"
	if q.Oldest {
		order = "ASC"
	}
	rows, err := s.read.QueryContext(ctx,
		`SELECT `+chartColumns+` FROM charts WHERE account_id = ?
		  AND (? = '' OR name LIKE ? ESCAPE '\' OR json_extract(CAST(spec AS TEXT), '$.style.title.text') LIKE ? ESCAPE '\')
		  ORDER BY updated_at `+order+`, id `+order+` LIMIT ? OFFSET ?`,
		accountID, q.Text, store.LikePattern(q.Text), store.LikePattern(q.Text), limit+1, max(q.Offset, 0))
	if err != nil {
		return nil, false, fmt.Errorf("find charts of account %s: %w", accountID, err)
	}
	defer rows.Close()
	out := make([]store.Chart, 0, limit+1)
	for rows.Next() {
		c, err := scanChart(rows)
		if err != nil {
			return nil, false, fmt.Errorf("find charts of account %s: %w", accountID, err)
		}
		out = append(out, c)
	}
	if err := rows.Err(); err != nil {
		return nil, false, fmt.Errorf("find charts of account %s: %w", accountID, err)
	}
	if len(out) > limit {
		return out[:limit], true, nil
	}
	return out, false, nil
}
