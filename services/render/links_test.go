package render

import (
	"testing"
	"time"
)

// TestLiveMaxAge: a live link's answer is never cached past the link's
// expiry, to the second, whatever -render.live-link-max-age says.
func TestLiveMaxAge(t *testing.T) {
	now := time.Unix(1_000_000, 900_000_000) // .9 s into a second
	for _, tc := range []struct {
		name    string
		maxAge  time.Duration
		expires int64
		want    int64
	}{
		{"no expiry", 30 * time.Second, 0, 30},
		{"expiry far away", 30 * time.Second, 1_000_000 + 3600, 30},
		{"expires_in 60 with max-age 60, opened 0.9 s later", 60 * time.Second, 1_000_000 + 60, 59},
		{"expires in 10.1 s", 30 * time.Second, 1_000_000 + 11, 10},
		{"expires within the second", 30 * time.Second, 1_000_001, 0},
		{"expired", 30 * time.Second, 999_000, 0},
	} {
		if got := liveMaxAge(tc.maxAge, tc.expires, now); got != tc.want {
			t.Errorf("%s: max-age %d, want %d", tc.name, got, tc.want)
		}
	}
}
