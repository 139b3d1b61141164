package quota

import (
	"context"
	"sync"
	"time"

	"golang.org/x/time/rate"
)

// Memory sweeps (drops keys whose bucket is full again) at most this often
// by its clock, and also whenever the number of keys doubles since the last
// sweep, so a flood of new keys cannot grow memory without bound.
const (
	memorySweepEvery   = time.Minute
	memoryMinSweepKeys = 1024
)

// Memory is the in-process Limiter of the one-machine setup: one
// golang.org/x/time/rate token bucket per key. Keys whose bucket has
// refilled completely carry no information and are evicted, so memory
// follows the keys active within their refill time.
type Memory struct {
	clock func() time.Time

	mu        sync.Mutex
	keys      map[string]*memoryBucket
	lastSweep time.Time
	sweepAt   int
}

type memoryBucket struct {
	lim   *rate.Limiter
	limit Limit
}

// NewMemory returns an empty in-process limiter reading time from clock
// (time.Now when nil; tests pass a fake clock).
func NewMemory(clock func() time.Time) *Memory {
	if clock == nil {
		clock = time.Now
	}
	return &Memory{clock: clock, keys: make(map[string]*memoryBucket), sweepAt: memoryMinSweepKeys}
}

// Allow decides one request for key under l.
func (m *Memory) Allow(_ context.Context, key string, l Limit) (Result, error) {
	if err := l.Validate(); err != nil {
		return Result{}, err
	}
	now := m.clock()
	m.mu.Lock()
	defer m.mu.Unlock()
	m.maybeSweep(now)
	b := m.keys[key]
	switch {
	case b == nil:
		b = &memoryBucket{lim: newBucket(l, now, 0), limit: l}
		m.keys[key] = b
	case b.limit != l:
		// The key's plan changed: keep the time already used up, as GCRA's
		// stored timestamp does in Redis.
		b.lim = newBucket(l, now, b.deficit(now))
		b.limit = l
	}
	allowed := b.lim.AllowN(now, 1)
	return newResult(l, allowed, b.deficit(now)), nil
}

// Peek answers key's state under l without consuming.
func (m *Memory) Peek(_ context.Context, key string, l Limit) (Result, error) {
	if err := l.Validate(); err != nil {
		return Result{}, err
	}
	now := m.clock()
	m.mu.Lock()
	defer m.mu.Unlock()
	var deficit time.Duration
	if b := m.keys[key]; b != nil {
		deficit = b.deficit(now)
	}
	return peekResult(l, deficit), nil
}

// Keys answers how many keys are tracked (not yet full again), for
// metrics and to check eviction.
func (m *Memory) Keys() int {
	m.mu.Lock()
	defer m.mu.Unlock()
	return len(m.keys)
}

// deficit is how long until the bucket is full again: GCRA's TAT-now.
func (b *memoryBucket) deficit(now time.Time) time.Duration {
	missing := float64(b.limit.Rate) - b.lim.TokensAt(now)
	return time.Duration(missing * b.limit.intervalNs())
}

// maybeSweep drops full buckets when a minute has passed or the map has
// doubled since the last sweep. Called with m.mu held.
func (m *Memory) maybeSweep(now time.Time) {
	if len(m.keys) < m.sweepAt && now.Sub(m.lastSweep) < memorySweepEvery && !now.Before(m.lastSweep) {
		return
	}
	for k, b := range m.keys {
		if b.lim.TokensAt(now) >= float64(b.limit.Rate) {
			delete(m.keys, k)
		}
	}
	m.lastSweep = now
	m.sweepAt = max(memoryMinSweepKeys, 2*len(m.keys))
}

// newBucket makes a token bucket for l that is deficit short of full at now.
// x/time/rate has no "set tokens", so such a bucket is made as a full one
// that spent its whole burst at the moment from which refilling at l's
// rate yields the wanted tokens at now.
func newBucket(l Limit, now time.Time, deficit time.Duration) *rate.Limiter {
	lim := rate.NewLimiter(rate.Limit(float64(l.Rate)/l.Period.Seconds()), l.Rate)
	if deficit > 0 {
		refilledFor := max(0, l.Period-deficit) // time spent refilling from empty
		lim.AllowN(now.Add(-refilledFor), l.Rate)
	}
	return lim
}
