package testserver

import (
	"runtime"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// TestPaceScale: a bound is stretched by the factor, never shrunk.
func TestPaceScale(t *testing.T) {
	tests := []struct {
		factor float64
		d      time.Duration
		want   time.Duration
	}{
		{1, 2 * time.Second, 2 * time.Second},
		{0.5, 2 * time.Second, 2 * time.Second},
		{2.5, 2 * time.Second, 5 * time.Second},
		{10, 500 * time.Millisecond, 5 * time.Second},
	}
	for _, tt := range tests {
		if got := (Pace{Factor: tt.factor}).Scale(tt.d); got != tt.want {
			t.Errorf("pace ×%v of %v = %v, want %v", tt.factor, tt.d, got, tt.want)
		}
	}
}

// TestPaceSeesContention: with four busy goroutines per core beside it,
// the reference operation gets at most a fifth of a core, and the pace
// says the machine is at least twice as slow as without them.
func TestPaceSeesContention(t *testing.T) {
	quiet := MeasurePace()
	var stop atomic.Bool
	var wg sync.WaitGroup
	for range 4 * runtime.GOMAXPROCS(0) {
		wg.Go(func() {
			for n := 0; !stop.Load(); n++ {
				paceWork()
			}
		})
	}
	busy := MeasurePace()
	stop.Store(true)
	wg.Wait()
	t.Logf("without the busy goroutines %v; beside them %v", quiet, busy)
	if busy.Factor < 2 || busy.Share > 0.5 {
		t.Errorf("beside %d busy goroutines: %v, want at least ×2", 4*runtime.GOMAXPROCS(0), busy)
	}
}
