package quota

import (
	"testing"
	"time"
)

func TestNewResult(t *testing.T) {
	l := Limit{Rate: 10, Period: time.Second} // 100ms per token
	tests := []struct {
		name    string
		allowed bool
		deficit time.Duration
		want    Result
	}{
		{"fresh after one", true, 100 * time.Millisecond, Result{true, 10, 9, 0, 100 * time.Millisecond}},
		{"last token", true, time.Second, Result{true, 10, 0, 0, time.Second}},
		{"refused", false, time.Second, Result{false, 10, 0, 100 * time.Millisecond, time.Second}},
		{"refused, half a token back", false, 950 * time.Millisecond, Result{false, 10, 0, 50 * time.Millisecond, 950 * time.Millisecond}},
		{"float noise below a whole token", true, 100*time.Millisecond + 1, Result{true, 10, 9, 0, 100 * time.Millisecond}},
		{"retry rounds up to the microsecond", false, 900*time.Millisecond + 1, Result{false, 10, 0, time.Microsecond, 900 * time.Millisecond}},
		{"negative deficit is full", true, -time.Second, Result{true, 10, 10, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := newResult(l, tc.allowed, tc.deficit); got != tc.want {
				t.Errorf("newResult(%v, %v) = %+v, want %+v", tc.allowed, tc.deficit, got, tc.want)
			}
		})
	}
}

func TestPeekAndFailOpenResults(t *testing.T) {
	l := Limit{Rate: 120, Period: time.Minute} // 500ms per token
	tests := []struct {
		name string
		got  Result
		want Result
	}{
		{"peek fresh", peekResult(l, 0), Result{true, 120, 120, 0, 0}},
		{"peek one left", peekResult(l, 59500*time.Millisecond), Result{true, 120, 1, 0, 59500 * time.Millisecond}},
		{"peek empty", peekResult(l, time.Minute), Result{false, 120, 0, 500 * time.Millisecond, time.Minute}},
		{"fail open allow", failOpenResult(l, true), Result{true, 120, 119, 0, 500 * time.Millisecond}},
		{"fail open peek", failOpenResult(l, false), Result{true, 120, 120, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %+v, want %+v", tc.got, tc.want)
			}
		})
	}
}
