// Package quotatest is the one conformance suite every quota.Limiter and
// quota.Counter implementation passes, so the in-process and the Redis
// backends answer with the same numbers for the same calls.
package quotatest

import (
	"context"
	"errors"
	"strconv"
	"sync"
	"testing"
	"time"

	"chartd.dev/libs/quota"
)

// Timing says whose clock a limiter runs on.
type Timing int

const (
	// FakeTime: the implementation reads the suite's Clock, which Advance
	// moves instantly; numbers are checked to the microsecond.
	FakeTime Timing = iota
	// ServerTime: the implementation keeps its own time (Redis's clock);
	// Advance sleeps, so timed cases use short periods, and numbers are
	// checked within ServerTolerance of the ideal.
	ServerTime
)

// ServerTolerance is how much of a duration may already have elapsed
// between a ServerTime implementation's clock and the suite's ideal
// (round trips and scheduling on a loaded machine).
const ServerTolerance = 50 * time.Millisecond

// Clock is the time source handed to implementations under test.
type Clock struct {
	real bool
	mu   sync.Mutex
	now  time.Time
	// On a real clock: when it was made and how long Advance asked to
	// sleep, so Lag can tell the time lost to round trips and scheduling.
	born  time.Time
	slept time.Duration
}

// NewClock returns a clock for timing: a fake one starting at start, or
// the real time (start ignored) whose Advance sleeps.
func NewClock(timing Timing, start time.Time) *Clock {
	return &Clock{real: timing == ServerTime, now: start, born: time.Now()}
}

// Lag is how much more real time has passed than Advance asked for: the
// round trips and scheduling delays a ServerTime case must tolerate (0 on
// a fake clock). On a loaded machine it grows well past ServerTolerance.
func (c *Clock) Lag() time.Duration {
	if !c.real {
		return 0
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return max(time.Since(c.born)-c.slept, 0)
}

// Now answers the clock's current time; pass the method as an
// implementation's clock.
func (c *Clock) Now() time.Time {
	if c.real {
		return time.Now()
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.now
}

// Advance moves a fake clock forward by d, or sleeps d on a real one.
func (c *Clock) Advance(d time.Duration) {
	if c.real {
		c.mu.Lock()
		c.slept += d
		c.mu.Unlock()
		time.Sleep(d)
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	c.now = c.now.Add(d)
}

// harness is one limiter case's state.
type harness struct {
	t     *testing.T
	lim   quota.Limiter
	clock *Clock
	// tol: how much smaller than ideal a remaining duration may be.
	tol time.Duration
	// slack: extra wait past a promised instant on a real clock.
	slack time.Duration
}

func (h harness) allow(key string, l quota.Limit) quota.Result {
	h.t.Helper()
	r, err := h.lim.Allow(context.Background(), key, l)
	if err != nil {
		h.t.Fatalf("Allow(%q, %s): %v", key, l, err)
	}
	return r
}

func (h harness) peek(key string, l quota.Limit) quota.Result {
	h.t.Helper()
	r, err := h.lim.Peek(context.Background(), key, l)
	if err != nil {
		h.t.Fatalf("Peek(%q, %s): %v", key, l, err)
	}
	return r
}

// want checks a Result against the ideal: flags and counts exactly,
// durations to the microsecond on a fake clock or up to tol less on a
// server clock (time only ever elapses).
func (h harness) want(what string, got quota.Result, allowed bool, remaining int, retry, reset time.Duration) {
	h.t.Helper()
	if got.Allowed != allowed || got.Remaining != remaining {
		h.t.Errorf("%s: Allowed=%v Remaining=%d, want Allowed=%v Remaining=%d (%+v)",
			what, got.Allowed, got.Remaining, allowed, remaining, got)
	}
	h.near(what+" RetryAfter", got.RetryAfter, retry)
	h.near(what+" ResetAfter", got.ResetAfter, reset)
}

func (h harness) near(what string, got, want time.Duration) {
	h.t.Helper()
	const rounding = 2 * time.Microsecond
	tol := h.tol + h.clock.Lag()
	if got < want-tol-rounding || got > want+rounding {
		h.t.Errorf("%s = %v, want %v (tolerance -%v)", what, got, want, tol)
	}
	if want > 0 && got <= 0 {
		h.t.Errorf("%s = %v, want > 0", what, got)
	}
}

var limiterCases = []struct {
	name string
	run  func(h harness)
}{
	{"allows the burst then refuses", func(h harness) {
		l := quota.Limit{Rate: 10, Period: time.Minute} // one token per 6s
		for i := 1; i <= 10; i++ {
			r := h.allow("k", l)
			h.want("request "+strconv.Itoa(i), r, true, 10-i, 0, time.Duration(i)*6*time.Second)
			if r.Limit != 10 {
				h.t.Errorf("Limit = %d, want 10", r.Limit)
			}
		}
		r := h.allow("k", l)
		h.want("request 11", r, false, 0, 6*time.Second, time.Minute)
		// A refused request consumes nothing: the wait does not grow.
		r = h.allow("k", l)
		h.want("request 12", r, false, 0, 6*time.Second, time.Minute)
	}},
	{"refills over time", func(h harness) {
		l := quota.Limit{Rate: 10, Period: time.Second} // one token per 100ms
		for range 10 {
			h.allow("k", l)
		}
		h.clock.Advance(250 * time.Millisecond) // 2.5 tokens back
		h.want("peek after 250ms", h.peek("k", l), true, 2, 0, 750*time.Millisecond)
		h.want("first after refill", h.allow("k", l), true, 1, 0, 850*time.Millisecond)
		h.want("second after refill", h.allow("k", l), true, 0, 0, 950*time.Millisecond)
		r := h.allow("k", l)
		h.want("third after refill", r, false, 0, 50*time.Millisecond, 950*time.Millisecond)
		h.clock.Advance(r.RetryAfter + h.slack)
		r = h.allow("k", l)
		if !r.Allowed {
			h.t.Fatalf("after waiting RetryAfter: refused %+v", r)
		}
		h.clock.Advance(r.ResetAfter + h.slack)
		h.want("after ResetAfter", h.peek("k", l), true, 10, 0, 0)
	}},
	{"keys are independent", func(h harness) {
		l := quota.Limit{Rate: 3, Period: time.Minute}
		for range 3 {
			h.allow("a", l)
		}
		h.want("a refused", h.allow("a", l), false, 0, 20*time.Second, time.Minute)
		h.want("b fresh", h.allow("b", l), true, 2, 0, 20*time.Second)
		h.want("a still refused", h.peek("a", l), false, 0, 20*time.Second, time.Minute)
		h.want("c untouched", h.peek("c", l), true, 3, 0, 0)
	}},
	{"peek does not consume", func(h harness) {
		l := quota.Limit{Rate: 3, Period: time.Minute}
		for i := range 3 {
			h.want("peek fresh "+strconv.Itoa(i), h.peek("k", l), true, 3, 0, 0)
		}
		h.want("first", h.allow("k", l), true, 2, 0, 20*time.Second)
		h.want("peek after one", h.peek("k", l), true, 2, 0, 20*time.Second)
		h.want("peek again", h.peek("k", l), true, 2, 0, 20*time.Second)
		h.allow("k", l)
		h.allow("k", l)
		h.want("peek empty", h.peek("k", l), false, 0, 20*time.Second, time.Minute)
		h.want("allow empty", h.allow("k", l), false, 0, 20*time.Second, time.Minute)
	}},
	{"a changed limit keeps the time used", func(h harness) {
		free := quota.Limit{Rate: 10, Period: time.Minute} // 6s per request
		pro := quota.Limit{Rate: 100, Period: time.Minute} // 0.6s per request
		for range 5 {
			h.allow("k", free) // 30s used
		}
		h.want("peek as pro", h.peek("k", pro), true, 50, 0, 30*time.Second)
		h.want("allow as pro", h.allow("k", pro), true, 49, 0, 30600*time.Millisecond)
		h.want("back to free", h.allow("k", free), true, 3, 0, 36600*time.Millisecond)
	}},
	{"concurrent requests never exceed the burst", func(h harness) {
		l := quota.Limit{Rate: 20, Period: time.Minute}
		var mu sync.Mutex
		allowed := 0
		var wg sync.WaitGroup
		for range 8 {
			wg.Go(func() {
				for range 5 {
					r, err := h.lim.Allow(context.Background(), "k", l)
					if err != nil {
						h.t.Errorf("Allow: %v", err)
						return
					}
					if r.Allowed {
						mu.Lock()
						allowed++
						mu.Unlock()
					}
				}
			})
		}
		wg.Wait()
		if allowed != 20 {
			h.t.Errorf("%d of 40 concurrent requests allowed, want 20", allowed)
		}
	}},
	{"invalid limits are errors", func(h harness) {
		for _, l := range []quota.Limit{{Rate: 0, Period: time.Minute}, {Rate: 5, Period: 0}, {Rate: -1, Period: time.Second}} {
			if _, err := h.lim.Allow(context.Background(), "k", l); !errors.Is(err, quota.ErrInvalidLimit) {
				h.t.Errorf("Allow with %s: error %v, want ErrInvalidLimit", l, err)
			}
			if _, err := h.lim.Peek(context.Background(), "k", l); !errors.Is(err, quota.ErrInvalidLimit) {
				h.t.Errorf("Peek with %s: error %v, want ErrInvalidLimit", l, err)
			}
		}
	}},
}

// RunLimiter runs the limiter conformance cases, each on a fresh limiter
// from newLimiter (which must not share keys between calls).
func RunLimiter(t *testing.T, timing Timing, newLimiter func(t *testing.T, clock *Clock) quota.Limiter) {
	t.Helper()
	start := time.Date(2026, 11, 5, 10, 0, 0, 0, time.UTC)
	for _, tc := range limiterCases {
		t.Run(tc.name, func(t *testing.T) {
			clock := NewClock(timing, start)
			h := harness{t: t, lim: newLimiter(t, clock), clock: clock}
			if timing == ServerTime {
				h.tol, h.slack = ServerTolerance, 10*time.Millisecond
			}
			tc.run(h)
		})
	}
}

// counterHarness is one counter case's state.
type counterHarness struct {
	t     *testing.T
	c     quota.Counter
	clock *Clock
}

func (h counterHarness) add(key string, w quota.Window, n, want int) {
	h.t.Helper()
	got, err := h.c.Add(context.Background(), key, w, n)
	if err != nil {
		h.t.Fatalf("Add(%q, %s, %d): %v", key, w, n, err)
	}
	if got != want {
		h.t.Errorf("Add(%q, %s, %d) = %d, want %d", key, w, n, got, want)
	}
}

func (h counterHarness) get(key string, w quota.Window, want int) {
	h.t.Helper()
	got, err := h.c.Get(context.Background(), key, w)
	if err != nil {
		h.t.Fatalf("Get(%q, %s): %v", key, w, err)
	}
	if got != want {
		h.t.Errorf("Get(%q, %s) at %s = %d, want %d", key, w, h.clock.Now(), got, want)
	}
}

func (h counterHarness) addUnique(key string, w quota.Window, member string, want int, wantAdded bool) {
	h.t.Helper()
	got, added, err := h.c.AddUnique(context.Background(), key, w, member)
	if err != nil {
		h.t.Fatalf("AddUnique(%q, %s, %q): %v", key, w, member, err)
	}
	if got != want || added != wantAdded {
		h.t.Errorf("AddUnique(%q, %s, %q) = %d, %v; want %d, %v", key, w, member, got, added, want, wantAdded)
	}
}

func (h counterHarness) countUnique(key string, w quota.Window, want int) {
	h.t.Helper()
	got, err := h.c.CountUnique(context.Background(), key, w)
	if err != nil {
		h.t.Fatalf("CountUnique(%q, %s): %v", key, w, err)
	}
	if got != want {
		h.t.Errorf("CountUnique(%q, %s) = %d, want %d", key, w, got, want)
	}
}

func (h counterHarness) addWithin(key string, w quota.Window, n, limit, want int, wantOK bool) {
	h.t.Helper()
	got, ok, err := h.c.AddWithin(context.Background(), key, w, n, limit)
	if err != nil {
		h.t.Fatalf("AddWithin(%q, %s, %d, %d): %v", key, w, n, limit, err)
	}
	if got != want || ok != wantOK {
		h.t.Errorf("AddWithin(%q, %s, %d, %d) = %d, %v; want %d, %v", key, w, n, limit, got, ok, want, wantOK)
	}
}

func (h counterHarness) addUniqueWithin(key string, w quota.Window, member string, limit, want int, wantOK bool) {
	h.t.Helper()
	got, ok, err := h.c.AddUniqueWithin(context.Background(), key, w, member, limit)
	if err != nil {
		h.t.Fatalf("AddUniqueWithin(%q, %s, %q, %d): %v", key, w, member, limit, err)
	}
	if got != want || ok != wantOK {
		h.t.Errorf("AddUniqueWithin(%q, %s, %q, %d) = %d, %v; want %d, %v", key, w, member, limit, got, ok, want, wantOK)
	}
}

var counterCases = []struct {
	name string
	// start places the clock relative to the first of a month that is
	// still in the future (Redis expires keys at their window's end).
	start func(firstOfMonth time.Time) time.Time
	run   func(h counterHarness)
}{
	{"counts per key and window", midMonth, func(h counterHarness) {
		h.add("a", quota.Day, 1, 1)
		h.add("a", quota.Day, 2, 3)
		h.get("a", quota.Day, 3)
		h.get("a", quota.Month, 0)
		h.get("b", quota.Day, 0)
		h.add("a", quota.Month, 5, 5)
		h.add("a", quota.Day, -1, 2) // a refund
		h.get("a", quota.Day, 2)
		h.get("a", quota.Month, 5)
	}},
	{"a new day starts from zero, the month goes on", midMonth, func(h counterHarness) {
		h.add("a", quota.Day, 4, 4)
		h.add("a", quota.Month, 4, 4)
		h.addUnique("a", quota.Day, "p1", 1, true)
		h.clock.Advance(2 * time.Hour) // past midnight UTC
		h.get("a", quota.Day, 0)
		h.get("a", quota.Month, 4)
		h.countUnique("a", quota.Day, 0)
		h.addUnique("a", quota.Day, "p1", 1, true)
		h.add("a", quota.Day, 1, 1)
	}},
	{"a new month starts from zero", lastDayOfMonth, func(h counterHarness) {
		h.add("a", quota.Month, 7, 7)
		h.addUnique("a", quota.Month, "p1", 1, true)
		h.clock.Advance(2 * time.Hour)
		h.get("a", quota.Month, 0)
		h.countUnique("a", quota.Month, 0)
		h.addUnique("a", quota.Month, "p1", 1, true)
	}},
	{"adding within a limit stops at the limit", midMonth, func(h counterHarness) {
		h.addWithin("r", quota.Day, 1, 2, 1, true)
		h.addWithin("r", quota.Day, 1, 2, 2, true)
		h.addWithin("r", quota.Day, 1, 2, 2, false)
		h.get("r", quota.Day, 2)
		h.clock.Advance(24 * time.Hour)
		h.addWithin("r", quota.Day, 1, 2, 1, true)
	}},
	{"distinct members within a limit: seen ones stay free", midMonth, func(h counterHarness) {
		h.addUniqueWithin("i", quota.Month, "p1", 2, 1, true)
		h.addUniqueWithin("i", quota.Month, "p2", 2, 2, true)
		h.addUniqueWithin("i", quota.Month, "p3", 2, 2, false)
		h.addUniqueWithin("i", quota.Month, "p1", 2, 2, true)
		h.countUnique("i", quota.Month, 2)
		h.addUniqueWithin("i", quota.Month, "p3", 2, 2, false)
	}},
	{"each different member counts once per window", midMonth, func(h counterHarness) {
		h.countUnique("a", quota.Month, 0)
		h.addUnique("a", quota.Month, "p1", 1, true)
		h.addUnique("a", quota.Month, "p1", 1, false)
		h.addUnique("a", quota.Month, "p2", 2, true)
		h.addUnique("a", quota.Month, "p1", 2, false)
		h.countUnique("a", quota.Month, 2)
		h.addUnique("b", quota.Month, "p1", 1, true)
		h.addUnique("a", quota.Day, "p1", 1, true)
		h.get("a", quota.Month, 0) // plain counts are a separate series
	}},
	{"concurrent updates are all counted", midMonth, func(h counterHarness) {
		var wg sync.WaitGroup
		var mu sync.Mutex
		added := 0
		for range 10 {
			wg.Go(func() {
				for range 10 {
					if _, err := h.c.Add(context.Background(), "a", quota.Day, 1); err != nil {
						h.t.Errorf("Add: %v", err)
					}
				}
				_, ok, err := h.c.AddUnique(context.Background(), "a", quota.Month, "same")
				if err != nil {
					h.t.Errorf("AddUnique: %v", err)
				}
				if ok {
					mu.Lock()
					added++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		h.get("a", quota.Day, 100)
		h.countUnique("a", quota.Month, 1)
		if added != 1 {
			h.t.Errorf("%d concurrent AddUnique of one member reported added, want 1", added)
		}
	}},
	{"invalid windows are errors", midMonth, func(h counterHarness) {
		ctx := context.Background()
		bad := quota.Window(0)
		_, err1 := h.c.Add(ctx, "a", bad, 1)
		_, err2 := h.c.Get(ctx, "a", bad)
		_, _, err3 := h.c.AddUnique(ctx, "a", bad, "p")
		_, err4 := h.c.CountUnique(ctx, "a", bad)
		for i, err := range []error{err1, err2, err3, err4} {
			if !errors.Is(err, quota.ErrInvalidWindow) {
				h.t.Errorf("call %d with window 0: error %v, want ErrInvalidWindow", i, err)
			}
		}
	}},
}

// midMonth is the 15th, 23:00 UTC: two hours later is a new day, same month.
func midMonth(first time.Time) time.Time { return first.AddDate(0, 0, 14).Add(23 * time.Hour) }

// lastDayOfMonth is 23:00 UTC on a month's last day: two hours later is a
// new month.
func lastDayOfMonth(first time.Time) time.Time { return first.AddDate(0, 1, 0).Add(-time.Hour) }

// RunCounter runs the counter conformance cases, each on a fresh counter
// from newCounter (which must not share keys between calls) that reads
// the given fake clock to place calls in windows.
func RunCounter(t *testing.T, newCounter func(t *testing.T, clock *Clock) quota.Counter) {
	t.Helper()
	first := quota.Month.Start(time.Now()).AddDate(0, 2, 0)
	for _, tc := range counterCases {
		t.Run(tc.name, func(t *testing.T) {
			clock := NewClock(FakeTime, tc.start(first))
			tc.run(counterHarness{t: t, c: newCounter(t, clock), clock: clock})
		})
	}
}

// Outage stops and starts the store behind a counter, for RunCounterOutage.
type Outage struct {
	// Stop makes the store stop answering.
	Stop func() error
	// Start brings the store back with what it held before Stop.
	Start func() error
	// Recovery is the longest a counter may take after Start to hand its
	// in-process counts to the store.
	Recovery time.Duration
}

var outageCases = []struct {
	name  string
	start func(firstOfMonth time.Time) time.Time
	run   func(h counterHarness, o Outage)
}{
	{"counting goes on in process and is added back", midMonth, func(h counterHarness, o Outage) {
		h.add("a", quota.Day, 3, 3)
		h.addUnique("i", quota.Month, "p1", 1, true)
		h.addUnique("i", quota.Month, "p2", 2, true)
		h.addWithin("r", quota.Day, 2, 5, 2, true)
		h.stop(o)
		// The in-process counts start from zero: this replica knows only
		// what it counted during the outage.
		h.add("a", quota.Day, 2, 2)
		h.get("a", quota.Day, 2)
		h.addUnique("i", quota.Month, "p2", 1, true)
		h.addUnique("i", quota.Month, "p3", 2, true)
		h.addUnique("i", quota.Month, "p3", 2, false)
		h.countUnique("i", quota.Month, 2)
		// The over-grant: a full limit of 5 more on top of the 2 taken.
		for i := 1; i <= 5; i++ {
			h.addWithin("r", quota.Day, 1, 5, i, true)
		}
		h.addWithin("r", quota.Day, 1, 5, 5, false)
		h.restart(o, "a", quota.Day, 5)
		h.countUnique("i", quota.Month, 3) // p1, p2, p3: members are a union
		h.get("r", quota.Day, 7)           // 2 before + 5 during: over the limit
		h.addWithin("r", quota.Day, 1, 5, 7, false)
		h.add("a", quota.Day, 1, 6)
	}},
	{"a window that ended during the outage is dropped", midMonth, func(h counterHarness, o Outage) {
		h.add("a", quota.Day, 1, 1)
		h.add("a", quota.Month, 1, 1)
		h.stop(o)
		h.add("a", quota.Day, 4, 4)
		h.add("a", quota.Month, 4, 4)
		h.clock.Advance(2 * time.Hour) // past midnight UTC
		h.get("a", quota.Day, 0)
		h.add("a", quota.Day, 2, 2)
		h.restart(o, "a", quota.Month, 5)
		h.get("a", quota.Day, 2)
	}},
	{"concurrent calls during the outage are all counted once", midMonth, func(h counterHarness, o Outage) {
		h.add("a", quota.Day, 5, 5)
		h.stop(o)
		var wg sync.WaitGroup
		var mu sync.Mutex
		added := 0
		for range 10 {
			wg.Go(func() {
				for range 10 {
					if _, err := h.c.Add(context.Background(), "a", quota.Day, 1); err != nil {
						h.t.Errorf("Add during the outage: %v", err)
					}
				}
				_, ok, err := h.c.AddUnique(context.Background(), "a", quota.Month, "same")
				if err != nil {
					h.t.Errorf("AddUnique during the outage: %v", err)
				}
				if ok {
					mu.Lock()
					added++
					mu.Unlock()
				}
			})
		}
		wg.Wait()
		if added != 1 {
			h.t.Errorf("%d concurrent AddUnique of one member reported added, want 1", added)
		}
		h.get("a", quota.Day, 100)
		h.restart(o, "a", quota.Day, 105)
		h.countUnique("a", quota.Month, 1)
	}},
}

// stop stops the store; the counter must keep answering without errors.
func (h counterHarness) stop(o Outage) {
	h.t.Helper()
	if err := o.Stop(); err != nil {
		h.t.Fatalf("stop the store: %v", err)
	}
}

// restart starts the store and waits until key's count in w reads want,
// a total only the store can answer once the in-process counts were
// handed to it.
func (h counterHarness) restart(o Outage, key string, w quota.Window, want int) {
	h.t.Helper()
	if err := o.Start(); err != nil {
		h.t.Fatalf("start the store: %v", err)
	}
	deadline := time.Now().Add(o.Recovery)
	for {
		got, err := h.c.Get(context.Background(), key, w)
		if err != nil {
			h.t.Fatalf("Get(%q, %s) after the restart: %v", key, w, err)
		}
		if got == want {
			return
		}
		if time.Now().After(deadline) {
			h.t.Fatalf("Get(%q, %s) = %d %v after the store came back, want %d", key, w, got, o.Recovery, want)
		}
		time.Sleep(20 * time.Millisecond)
	}
}

// RunCounterOutage runs the outage cases of a counter backed by a store
// (Redis): while the store is stopped every call answers without error
// from an in-process count that starts at zero, and once it is back those
// counts are added to what the store held. newCounter must not share keys
// between calls; each case stops and starts the store once.
func RunCounterOutage(t *testing.T, o Outage, newCounter func(t *testing.T, clock *Clock) quota.Counter) {
	t.Helper()
	first := quota.Month.Start(time.Now()).AddDate(0, 2, 0)
	for _, tc := range outageCases {
		t.Run(tc.name, func(t *testing.T) {
			clock := NewClock(FakeTime, tc.start(first))
			tc.run(counterHarness{t: t, c: newCounter(t, clock), clock: clock}, o)
		})
	}
}
