package store

import "time"

// Micro normalises a timestamp the way every backend stores it: UTC,
// truncated to microseconds, no monotonic reading. Values passed through
// Micro compare equal (even with ==) after a round trip through either
// backend.
func Micro(t time.Time) time.Time {
	return t.UTC().Truncate(time.Microsecond)
}

// NextUpdatedAt is the updated_at a chart gets when it is saved at now
// after last being saved at old: now, but never less than old plus one
// microsecond, so the concurrency token always changes on a write even when
// two writes land in the same microsecond or the clock steps back.
func NextUpdatedAt(old, now time.Time) time.Time {
	old, now = Micro(old), Micro(now)
	if floor := old.Add(time.Microsecond); now.Before(floor) {
		return floor
	}
	return now
}
