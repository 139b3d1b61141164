package store

import (
	"encoding/base64"
	"fmt"
	"strconv"
	"strings"
	"time"
)

// Cursor is a position in ListCharts' order: the last row of a page. Keyset
// pagination on (updated_at, id) means a page never repeats a row even when
// charts are inserted or edited between calls.
type Cursor struct {
	UpdatedAt time.Time
	ID        string
}

// EncodeCursor renders c as the opaque string handed to API clients:
// base64url of "<unix microseconds>.<id>".
func EncodeCursor(c Cursor) string {
	raw := strconv.FormatInt(Micro(c.UpdatedAt).UnixMicro(), 10) + "." + c.ID
	return base64.RawURLEncoding.EncodeToString([]byte(raw))
}

// DecodeCursor parses a string made by EncodeCursor. Anything else is an
// error wrapping ErrBadCursor.
func DecodeCursor(s string) (Cursor, error) {
	raw, err := base64.RawURLEncoding.Strict().DecodeString(s)
	if err != nil {
		return Cursor{}, fmt.Errorf("%w: %v", ErrBadCursor, err)
	}
	// The decoder skips line breaks; insist on the one spelling we emit.
	if base64.RawURLEncoding.EncodeToString(raw) != s {
		return Cursor{}, fmt.Errorf("%w: not canonical", ErrBadCursor)
	}
	micros, id, ok := strings.Cut(string(raw), ".")
	if !ok || id == "" {
		return Cursor{}, fmt.Errorf("%w: no id", ErrBadCursor)
	}
	us, err := strconv.ParseInt(micros, 10, 64)
	if err != nil || strconv.FormatInt(us, 10) != micros {
		return Cursor{}, fmt.Errorf("%w: bad time %q", ErrBadCursor, micros)
	}
	t := time.UnixMicro(us).UTC()
	if t.Year() < 1 || t.Year() > 9999 {
		// Both backends store years 1..9999; anything else was not made here.
		return Cursor{}, fmt.Errorf("%w: time out of range", ErrBadCursor)
	}
	return Cursor{UpdatedAt: t, ID: id}, nil
}

// PageSize applies ListCharts' default (limit <= 0) and cap.
func PageSize(limit int) int {
	if limit <= 0 {
		return DefaultPageSize
	}
	return min(limit, MaxPageSize)
}

// Paginate cuts a result fetched with LIMIT limit+1 down to one page and
// answers the cursor for the next page, "" when rows held no extra row.
func Paginate(rows []Chart, limit int) (page []Chart, next string) {
	if len(rows) <= limit {
		return rows, ""
	}
	page = rows[:limit]
	last := page[len(page)-1]
	return page, EncodeCursor(Cursor{UpdatedAt: last.UpdatedAt, ID: last.ID})
}
