package quota

import (
	"context"
	"sync"
	"time"
)

// MemoryCounter is the in-process Counter of the one-machine setup. It
// keeps only the current Day and the current Month: when the clock enters a
// new window the previous one's counts are dropped.
type MemoryCounter struct {
	clock func() time.Time

	mu      sync.Mutex
	windows [2]memoryWindow // indexed by Window-1
}

type memoryWindow struct {
	start  time.Time
	counts map[string]int
	unique map[string]map[string]struct{}
}

// NewMemoryCounter returns an empty counter reading time from clock
// (time.Now when nil).
func NewMemoryCounter(clock func() time.Time) *MemoryCounter {
	if clock == nil {
		clock = time.Now
	}
	return &MemoryCounter{clock: clock}
}

// current answers the live window w, starting a fresh one when the clock
// has left the stored one. Called with c.mu held.
func (c *MemoryCounter) current(w Window) *memoryWindow {
	start := w.Start(c.clock())
	mw := &c.windows[w-1]
	if mw.counts == nil || !mw.start.Equal(start) {
		*mw = memoryWindow{start: start, counts: make(map[string]int), unique: make(map[string]map[string]struct{})}
	}
	return mw
}

// Add adds n to key's count in the current window.
func (c *MemoryCounter) Add(_ context.Context, key string, w Window, n int) (int, error) {
	if err := w.Validate(); err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	mw := c.current(w)
	mw.counts[key] += n
	return mw.counts[key], nil
}

// Get answers key's count in the current window.
func (c *MemoryCounter) Get(_ context.Context, key string, w Window) (int, error) {
	if err := w.Validate(); err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.current(w).counts[key], nil
}

// AddUnique records member for key in the current window.
func (c *MemoryCounter) AddUnique(_ context.Context, key string, w Window, member string) (int, bool, error) {
	if err := w.Validate(); err != nil {
		return 0, false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	mw := c.current(w)
	set := mw.unique[key]
	if set == nil {
		set = make(map[string]struct{})
		mw.unique[key] = set
	}
	if _, seen := set[member]; seen {
		return len(set), false, nil
	}
	set[member] = struct{}{}
	return len(set), true, nil
}

// CountUnique answers how many distinct members key holds in the current
// window.
func (c *MemoryCounter) CountUnique(_ context.Context, key string, w Window) (int, error) {
	if err := w.Validate(); err != nil {
		return 0, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.current(w).unique[key]), nil
}

// AddWithin adds n to key's count if the result stays within limit.
func (c *MemoryCounter) AddWithin(_ context.Context, key string, w Window, n, limit int) (int, bool, error) {
	if err := w.Validate(); err != nil {
		return 0, false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	mw := c.current(w)
	if mw.counts[key]+n > limit {
		return mw.counts[key], false, nil
	}
	mw.counts[key] += n
	return mw.counts[key], true, nil
}

// AddUniqueWithin records member unless the window is full.
func (c *MemoryCounter) AddUniqueWithin(_ context.Context, key string, w Window, member string, limit int) (int, bool, error) {
	if err := w.Validate(); err != nil {
		return 0, false, err
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	mw := c.current(w)
	set := mw.unique[key]
	if _, seen := set[member]; seen {
		return len(set), true, nil
	}
	if len(set) >= limit {
		return len(set), false, nil
	}
	if set == nil {
		set = make(map[string]struct{})
		mw.unique[key] = set
	}
	set[member] = struct{}{}
	return len(set), true, nil
}

// takeAll removes and answers both windows as they are, for handing their
// counts to Redis; a window the clock has already left is included, and
// the caller skips it.
func (c *MemoryCounter) takeAll() [2]memoryWindow {
	c.mu.Lock()
	defer c.mu.Unlock()
	taken := c.windows
	c.windows = [2]memoryWindow{}
	return taken
}

// restore adds back n and members that takeAll took from window w
// starting at start, when a hand-over to Redis failed. They are dropped
// when the clock has left that window: its counts would expire anyway.
func (c *MemoryCounter) restore(w Window, start time.Time, key string, n int, members []string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	mw := c.current(w)
	if !mw.start.Equal(start) {
		return
	}
	if n != 0 {
		mw.counts[key] += n
	}
	if len(members) == 0 {
		return
	}
	set := mw.unique[key]
	if set == nil {
		set = make(map[string]struct{}, len(members))
		mw.unique[key] = set
	}
	for _, m := range members {
		set[m] = struct{}{}
	}
}
