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

func TestPeekAndReplicaResults(t *testing.T) {
	l := Limit{Rate: 120, Period: time.Minute} // 500ms per token
	tests := []struct {
		name string
		got  Result
		want Result
	}{
		{"peek fresh", peekResult(l, 0), Result{true, 120, 120, 0, 0}},
		{"peek one left", peekResult(l, 59500*time.Millisecond), Result{true, 120, 1, 0, 59500 * time.Millisecond}},
		{"peek empty", peekResult(l, time.Minute), Result{false, 120, 0, 500 * time.Millisecond, time.Minute}},
		{"a third's share, one spent", replicaResult(l, 3, Result{true, 40, 39, 0, 1500 * time.Millisecond}), Result{true, 120, 117, 0, 1500 * time.Millisecond}},
		{"a third's share, rounded up past the whole", replicaResult(Limit{Rate: 10, Period: time.Minute}, 3, Result{true, 4, 4, 0, 0}), Result{true, 10, 10, 0, 0}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if tc.got != tc.want {
				t.Errorf("got %+v, want %+v", tc.got, tc.want)
			}
		})
	}
}

// TestReplicaShare: each replica's share while Redis is out, never zero.
func TestReplicaShare(t *testing.T) {
	for _, tc := range []struct{ rate, replicas, want int }{{1200, 1, 1200}, {1200, 3, 400}, {120, 7, 18}, {1, 4, 1}} {
		if got := replicaShare(Limit{Rate: tc.rate, Period: time.Minute}, tc.replicas); got != (Limit{Rate: tc.want, Period: time.Minute}) {
			t.Errorf("%d over %d replicas: %v, want %d", tc.rate, tc.replicas, got, tc.want)
		}
	}
}
