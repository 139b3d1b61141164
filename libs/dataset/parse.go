package dataset

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Parse reads data in one of the spec's input forms into a table with
// detected kinds. data is a string (CSV/TSV, or JSON when format is
// "json"), json.RawMessage (the raw `data` JSON value: a string, an array of
// objects or an array of arrays; object keys keep their order), or rows as
// decoded by encoding/json ([]any of map[string]any or of []any, with or
// without UseNumber; map keys have no order, so new keys are taken sorted).
// format is "", "csv", "tsv" or "json". Bad data gives a *DataError.
// Parse takes any number of columns, so data saved before a limit existed
// still loads; requests go through ParseRequest, which caps them.
func Parse(data any, format string) (*Table, []Notice, error) {
	return parse(data, format, limits{})
}

// limits bound one parse: ctx, when set, ends it early (the caller has
// gone), and more than maxColumns columns (when > 0) is a
// *ColumnLimitError as soon as the header or keys show them, before the
// rows are read or the columns' names and kinds worked out.
type limits struct {
	ctx        context.Context
	maxColumns int
}

// columns refuses n columns when they are more than allowed.
func (l limits) columns(n int) error {
	if l.maxColumns > 0 && n > l.maxColumns {
		return &ColumnLimitError{Columns: n, Limit: l.maxColumns}
	}
	return nil
}

// checkEvery is how many rows or columns pass between looks at the context.
const checkEvery = 4096

// every answers the context's error at every checkEvery-th i, so long
// loops stop soon after the caller has gone.
func (l limits) every(i int) error {
	if l.ctx == nil || i%checkEvery != 0 {
		return nil
	}
	if err := l.ctx.Err(); err != nil {
		return fmt.Errorf("parse data: %w", err)
	}
	return nil
}

// parse is Parse within lim.
func parse(data any, format string, lim limits) (*Table, []Notice, error) {
	switch format {
	case "", "csv", "tsv", "json":
	default:
		return nil, nil, dataErrorf("format must be csv, tsv or json; got %q", format)
	}
	var (
		names   []string
		cols    []*rawCol
		rows    int
		notices []Notice
		err     error
	)
	switch d := data.(type) {
	case nil:
		return nil, nil, dataErrorf("data is missing; send a string of CSV or TSV, an array of objects or an array of arrays")
	case string:
		if format == "json" {
			names, cols, rows, notices, err = parseJSONText(d, format, true, lim)
		} else {
			names, cols, rows, notices, err = parseDelimited(d, format, lim)
		}
	case json.RawMessage:
		names, cols, rows, notices, err = parseJSONText([]byte(d), format, false, lim)
	case []byte:
		names, cols, rows, notices, err = parseJSONText(d, format, false, lim)
	case []any:
		var b *rowsBuilder
		if b, err = goRows(d, format, lim); err == nil {
			names, cols, rows = b.names, b.cols, b.rows
		}
	case []map[string]any:
		rs := make([]any, len(d))
		for i, m := range d {
			rs[i] = m
		}
		return parse(rs, format, lim)
	case [][]any:
		rs := make([]any, len(d))
		for i, a := range d {
			rs[i] = a
		}
		return parse(rs, format, lim)
	default:
		return nil, nil, dataErrorf("data must be a string of CSV or TSV, an array of objects or an array of arrays; got %s", goKindName(data))
	}
	if err != nil {
		return nil, nil, err
	}
	if len(cols) == 0 {
		return nil, nil, dataErrorf("data has no columns; name them in a header row or in the keys of the row objects")
	}
	names, renamed := uniqueNames(names)
	notices = append(notices, renamed...)
	t := &Table{Rows: rows, Columns: make([]*Column, len(cols))}
	// Detecting a column reads its every cell: look at the context about
	// once per checkEvery cells.
	perCheck := max(1, checkEvery/max(rows, 1))
	for j, rc := range cols {
		if j%perCheck == 0 {
			if err := lim.every(0); err != nil {
				return nil, nil, err
			}
		}
		col, ns := detectColumn(rc, rows, columnID(j+1), names[j])
		t.Columns[j] = col
		notices = append(notices, ns...)
	}
	return t, notices, nil
}

// uniqueNames trims header names, names empty ones "Column N" and makes
// duplicates unique ("Sales 2"), with a notice for each change.
func uniqueNames(raw []string) ([]string, []Notice) {
	names := make([]string, len(raw))
	taken := make(map[string]bool, len(raw))
	for j, n := range raw {
		names[j] = strings.TrimSpace(n)
		taken[names[j]] = true
	}
	var notices []Notice
	used := make(map[string]bool, len(raw))
	next := map[string]int{}
	for j, n := range names {
		switch {
		case n == "":
			name := freeName("Column "+strconv.Itoa(j+1), taken, next)
			notices = append(notices, Notice{Code: NoticeRenamedColumn, Message: fmt.Sprintf(
				"column %d has no name in the header; it is named %q", j+1, name)})
			names[j] = name
		case used[n]:
			name := freeName(n, taken, next)
			notices = append(notices, Notice{Code: NoticeRenamedColumn, Message: fmt.Sprintf(
				"the header names %q more than once; column %d is named %q", n, j+1, name)})
			names[j] = name
		}
		used[names[j]] = true
	}
	return names, notices
}

// freeName returns base, or base followed by the smallest number ≥ 2 that is
// not taken, and marks it taken. next remembers per base where the search
// stopped, so a name repeated n times costs O(n), not O(n²): names are only
// ever added to taken, so a number skipped once stays taken.
func freeName(base string, taken map[string]bool, next map[string]int) string {
	if !taken[base] {
		taken[base] = true
		return base
	}
	k := max(next[base], 2)
	for taken[base+" "+strconv.Itoa(k)] {
		k++
	}
	name := base + " " + strconv.Itoa(k)
	next[base] = k + 1
	taken[name] = true
	return name
}

// plural renders a count with its noun: "1 blank line was", "3 blank lines were".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return strconv.Itoa(n) + " " + many
}
