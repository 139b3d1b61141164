package dataset

import (
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
func Parse(data any, format string) (*Table, []Notice, error) {
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
			names, cols, rows, notices, err = parseJSONText(d, format, true)
		} else {
			names, cols, rows, notices, err = parseDelimited(d, format)
		}
	case json.RawMessage:
		names, cols, rows, notices, err = parseJSONText([]byte(d), format, false)
	case []byte:
		names, cols, rows, notices, err = parseJSONText(d, format, false)
	case []any:
		var b *rowsBuilder
		if b, err = goRows(d, format); err == nil {
			names, cols, rows = b.names, b.cols, b.rows
		}
	case []map[string]any:
		rs := make([]any, len(d))
		for i, m := range d {
			rs[i] = m
		}
		return Parse(rs, format)
	case [][]any:
		rs := make([]any, len(d))
		for i, a := range d {
			rs[i] = a
		}
		return Parse(rs, format)
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
	for j, rc := range cols {
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
	for j, n := range names {
		switch {
		case n == "":
			name := freeName("Column "+strconv.Itoa(j+1), taken)
			notices = append(notices, Notice{Code: NoticeRenamedColumn, Message: fmt.Sprintf(
				"column %d has no name in the header; it is named %q", j+1, name)})
			names[j] = name
		case used[n]:
			name := freeName(n, taken)
			notices = append(notices, Notice{Code: NoticeRenamedColumn, Message: fmt.Sprintf(
				"the header names %q more than once; column %d is named %q", n, j+1, name)})
			names[j] = name
		}
		used[names[j]] = true
	}
	return names, notices
}

// freeName returns base, or base followed by the smallest number ≥ 2 that is
// not taken, and marks it taken.
func freeName(base string, taken map[string]bool) string {
	name := base
	for k := 2; taken[name]; k++ {
		name = base + " " + strconv.Itoa(k)
	}
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
