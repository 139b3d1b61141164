package dataset

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"chartd.dev/libs/apierr"
)

// MaxCells is the most cells (rows × columns) one chart's data may hold
// (DESIGN §7); more is too_large.
const MaxCells = 1_000_000

// MaxColumns is the most columns one chart's data may hold
// (docs/decisions/data.md, "At most 1,000 columns"): it bounds every per-column path (roles,
// series, lint, the columns of each answer), and far fewer columns than
// this already make an unreadable chart. More is too_large.
const MaxColumns = 1_000

// ParseRequest reads the `data` value of an API request: bad data is
// invalid_request saying what and where; more than MaxColumns columns or
// MaxCells cells is too_large.
func ParseRequest(raw []byte, format string) (*Table, []Notice, error) {
	return ParseRequestContext(context.Background(), raw, format)
}

// ParseRequestContext is ParseRequest that stops, answering ctx's error,
// soon after ctx ends: a client that has gone stops the parsing of its data.
func ParseRequestContext(ctx context.Context, raw []byte, format string) (*Table, []Notice, error) {
	t, notices, err := parse(json.RawMessage(raw), format, limits{ctx: ctx, maxColumns: MaxColumns})
	if err != nil {
		var de *DataError
		if errors.As(err, &de) {
			return nil, nil, apierr.New(apierr.InvalidRequest, "data: %s", de.Message)
		}
		var ce *ColumnLimitError
		if errors.As(err, &ce) {
			return nil, nil, apierr.New(apierr.TooLarge, "%s", ce.Error())
		}
		return nil, nil, fmt.Errorf("parse data: %w", err)
	}
	if n := Cells(t); n > MaxCells {
		return nil, nil, apierr.New(apierr.TooLarge, "the data has %d cells (%d rows × %d columns); the limit is %d cells", n, t.Rows, len(t.Columns), MaxCells)
	}
	if notices == nil {
		notices = []Notice{}
	}
	return t, notices, nil
}

// CheckFormat validates an optional format field of a request (named
// field in the message): "" when left out, else csv, tsv or json.
func CheckFormat(field string, f *string) (string, error) {
	if f == nil {
		return "", nil
	}
	switch *f {
	case "csv", "tsv", "json":
		return *f, nil
	}
	return "", apierr.New(apierr.InvalidRequest, "%s %q: use csv, tsv or json", field, *f)
}
