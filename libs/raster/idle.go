package raster

import (
	"context"
	"slices"
	"sync"
	"time"
)

// idleSet holds the tabs ready to draw. It hands out the tab that came
// back last: one render at a time then stays on one warm tab, whose
// caches and page tables are hot. Two browsers taking turns cost about
// 2 ms of the median and 4 ms of the mean per PNG here
// (BenchmarkRenderSerial, see docs/decisions/rendering.md). Waiting renders are
// served first come, first served, each handed the next tab that comes
// back.
type idleSet struct {
	mu      sync.Mutex
	tabs    []*tab      // last in, first out
	waiters []chan *tab // first in, first out; each has room for one
}

// put gives a tab to the longest-waiting render, or keeps it.
func (s *idleSet) put(t *tab) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if len(s.waiters) > 0 {
		w := s.waiters[0]
		s.waiters = s.waiters[1:]
		w <- t
		return
	}
	s.tabs = append(s.tabs, t)
}

// get takes the tab that came back last, waiting for one until the
// deadline (ok false: none came) or ctx ends.
func (s *idleSet) get(ctx context.Context, deadline time.Duration) (t *tab, ok bool, err error) {
	s.mu.Lock()
	if n := len(s.tabs); n > 0 {
		t = s.tabs[n-1]
		s.tabs[n-1] = nil
		s.tabs = s.tabs[:n-1]
		s.mu.Unlock()
		return t, true, nil
	}
	w := make(chan *tab, 1)
	s.waiters = append(s.waiters, w)
	s.mu.Unlock()

	timer := time.NewTimer(deadline)
	defer timer.Stop()
	select {
	case t = <-w:
		return t, true, nil
	case <-timer.C:
	case <-ctx.Done():
		err = ctx.Err()
	}
	s.mu.Lock()
	if i := slices.Index(s.waiters, w); i >= 0 {
		s.waiters = slices.Delete(s.waiters, i, i+1)
		s.mu.Unlock()
		return nil, false, err
	}
	s.mu.Unlock()
	// A tab was handed over as the wait ended: pass it on.
	s.put(<-w)
	return nil, false, err
}

// takeIf takes the idle tabs for which keep answers true, at most max
// of them (0: all).
func (s *idleSet) takeIf(max int, keep func(*tab) bool) []*tab {
	s.mu.Lock()
	defer s.mu.Unlock()
	var out []*tab
	s.tabs = slices.DeleteFunc(s.tabs, func(t *tab) bool {
		if (max == 0 || len(out) < max) && keep(t) {
			out = append(out, t)
			return true
		}
		return false
	})
	return out
}

// len is how many tabs are idle.
func (s *idleSet) len() int {
	s.mu.Lock()
	defer s.mu.Unlock()
	return len(s.tabs)
}
