package dataset

import (
	"encoding/json"
	"errors"
	"fmt"

	"chartd.dev/libs/apierr"
)

// MaxCells is the most cells (rows × columns) one chart's data may hold
// (DESIGN §7); more is too_large.
const MaxCells = 1_000_000

// ParseRequest reads the `data` value of an API request: bad data is
// invalid_request saying what and where, more than MaxCells is too_large.
func ParseRequest(raw []byte, format string) (*Table, []Notice, error) {
	t, notices, err := Parse(json.RawMessage(raw), format)
	if err != nil {
		var de *DataError
		if errors.As(err, &de) {
			return nil, nil, apierr.New(apierr.InvalidRequest, "data: %s", de.Message)
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
