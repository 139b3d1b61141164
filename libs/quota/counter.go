package quota

import (
	"context"
	"errors"
	"fmt"
	"time"
)

// Window is the calendar period a usage counter covers, in UTC: the daily
// render allowance resets at 00:00 UTC, the monthly image allowance on the
// first of the month.
type Window int

// The usage windows.
const (
	Day Window = iota + 1
	Month
)

// ErrInvalidWindow is returned for a Window other than Day or Month.
var ErrInvalidWindow = errors.New("quota: invalid window")

// Validate reports whether w is Day or Month.
func (w Window) Validate() error {
	if w != Day && w != Month {
		return fmt.Errorf("%w: %d", ErrInvalidWindow, int(w))
	}
	return nil
}

// String names the window ("day", "month"); it is part of storage keys.
func (w Window) String() string {
	switch w {
	case Day:
		return "day"
	case Month:
		return "month"
	}
	return fmt.Sprintf("window(%d)", int(w))
}

// Start is the UTC instant the window containing now began.
func (w Window) Start(now time.Time) time.Time {
	u := now.UTC()
	switch w {
	case Day:
		return time.Date(u.Year(), u.Month(), u.Day(), 0, 0, 0, 0, time.UTC)
	case Month:
		return time.Date(u.Year(), u.Month(), 1, 0, 0, 0, 0, time.UTC)
	}
	return u
}

// End is the UTC instant the window containing now ends (exclusive), when
// its counts start again from zero.
func (w Window) End(now time.Time) time.Time {
	s := w.Start(now)
	switch w {
	case Day:
		return s.AddDate(0, 0, 1)
	case Month:
		return s.AddDate(0, 1, 0)
	}
	return s
}

// Reset is the time from now until the window ends, for "resets in"
// answers and headers.
func (w Window) Reset(now time.Time) time.Duration { return w.End(now).Sub(now) }

// ID names the window containing now: "2026-11-05" for a Day, "2026-11"
// for a Month. Day and Month IDs never look alike.
func (w Window) ID(now time.Time) string {
	switch w {
	case Day:
		return w.Start(now).Format(time.DateOnly)
	case Month:
		return w.Start(now).Format("2006-01")
	}
	return ""
}

// Counter counts usage per key and window (renders per day, distinct
// pictures per month). Plain counts (Add, Get) and distinct members
// (AddUnique, CountUnique) of the same key are separate series.
type Counter interface {
	// Add adds n (negative to refund) to key's count in the current window
	// and answers the new count.
	Add(ctx context.Context, key string, window Window, n int) (int, error)
	// Get answers key's count in the current window (0 when unused).
	Get(ctx context.Context, key string, window Window) (int, error)
	// AddUnique records member (a picture hash) for key in the current
	// window and answers how many distinct members the window holds and
	// whether member was new: each different picture counts once a month.
	AddUnique(ctx context.Context, key string, window Window, member string) (count int, added bool, err error)
	// CountUnique answers how many distinct members key holds in the
	// current window without adding one (for get_account).
	CountUnique(ctx context.Context, key string, window Window) (int, error)
	// AddWithin adds n to key's count only if the result stays within
	// limit, atomically; ok tells whether it was added. The daily render
	// allowance is checked and taken in one step this way.
	AddWithin(ctx context.Context, key string, window Window, n, limit int) (count int, ok bool, err error)
	// AddUniqueWithin records member unless that would make more than limit
	// distinct members; a member already recorded is always ok. The monthly
	// image allowance: a picture seen this month costs nothing more, a new
	// one needs room.
	AddUniqueWithin(ctx context.Context, key string, window Window, member string, limit int) (count int, ok bool, err error)
}
