// Package quota holds chartd's request rate limiting and usage counters.
//
// Rate limiting is GCRA (the generic cell rate algorithm), which is the same
// as a token bucket holding Limit.Rate tokens that refills Rate tokens per
// Period: a fresh key may send Rate requests at once (the burst) and then one
// every Period/Rate. Two implementations answer with the same numbers for the
// same sequence of calls (the conformance suite in quota/quotatest checks it):
//
//   - Memory, for one process: one golang.org/x/time/rate bucket per key;
//     keys whose bucket is full again are dropped, so memory follows the keys
//     active within their last refill time, not every key ever seen.
//   - Redis, shared by all replicas: github.com/go-redis/redis_rate, whose
//     atomic Lua script keeps one timestamp per key and reads Redis's own
//     clock, so replicas with skewed clocks still agree.
//
// Decision: the Redis limiter DEGRADES to limiting in process. When Redis
// cannot be reached (or answers with an error) Allow and Peek answer from
// an in-process Memory limiter (the same GCRA) at this replica's share of
// the allowance, Rate/RedisOptions.Replicas rounded up, so the replicas
// behind a load balancer together allow about the whole allowance; the
// Result reports against the whole allowance (Remaining is the share's
// times Replicas), so the X-RateLimit-* headers stay true. Each such
// decision increments the OpenTelemetry counter
// chartd_ratelimit_local_total{op,allowed} and is logged, at most once per
// RedisOptions.LogInterval, with the number of suppressed occurrences. After
// a failure, calls skip Redis and a background probe pings it every
// RedisOptions.ProbeInterval until it answers, so only the calls that find
// Redis gone wait (at most Timeout); no request waits on a probe. Only a
// caller's own cancelled context is returned as an error. What a replica
// spent in process is not handed to Redis afterwards: a key may get up to
// one more allowance across an outage's end.
//
// Usage counters (Counter) count renders per UTC calendar Day or Month.
// Decision: the Redis counter DEGRADES rather than fails. When Redis cannot
// be reached, RedisCounter answers from an in-process MemoryCounter for the
// same windows, with the same Timeout and background probe as the limiter,
// counting each fallback in chartd_quota_counter_fallback_total and logging
// at most once per LogInterval. When the probe reaches Redis again the
// in-process counts are added to it (INCRBY for counts, SADD for distinct
// members) and Redis answers again. During an outage each replica counts
// from zero, so it may grant up to one more allowance per key and window
// than Redis would have; afterwards Redis holds the true total (which may
// then exceed the limit). Only a caller's own cancelled context and an
// invalid Window are errors.
package quota

import (
	"context"
	"errors"
	"fmt"
	"math"
	"time"
)

// Limit is an allowance of Rate requests per Period, with a burst of Rate:
// Limit{Rate: 120, Period: time.Minute} is the free plan's 120 per minute.
type Limit struct {
	Rate   int
	Period time.Duration
}

// ErrInvalidLimit is returned for a Limit whose Rate or Period is not
// positive; it is a programming error, never failed open.
var ErrInvalidLimit = errors.New("quota: invalid limit")

// Validate reports whether the limit can be enforced.
func (l Limit) Validate() error {
	if l.Rate <= 0 || l.Period <= 0 {
		return fmt.Errorf("%w: %d per %s", ErrInvalidLimit, l.Rate, l.Period)
	}
	return nil
}

// Interval is the time one request's token takes to come back
// (Period/Rate), the GCRA emission interval.
func (l Limit) Interval() time.Duration {
	return time.Duration(l.intervalNs())
}

func (l Limit) intervalNs() float64 { return float64(l.Period) / float64(l.Rate) }

// String renders the limit for logs, e.g. "120/1m0s".
func (l Limit) String() string { return fmt.Sprintf("%d/%s", l.Rate, l.Period) }

// Result is a limiter's answer for one key, enough to fill the
// X-RateLimit-* and Retry-After headers.
type Result struct {
	// Allowed says whether this request may proceed.
	Allowed bool
	// Limit is the allowance (the burst), Limit.Rate.
	Limit int
	// Remaining is how many whole requests could be sent right now.
	Remaining int
	// RetryAfter is the time until the next request would be allowed;
	// 0 when this one was allowed.
	RetryAfter time.Duration
	// ResetAfter is the time until the bucket is full again (Remaining ==
	// Limit).
	ResetAfter time.Duration
}

// Limiter enforces a Limit per key (an account, an API key, an address).
type Limiter interface {
	// Allow decides one request for key and consumes a token when it is
	// allowed. A refused request consumes nothing.
	Allow(ctx context.Context, key string, l Limit) (Result, error)
	// Peek answers the key's state without consuming anything (for
	// get_account); Allowed says whether a request would be allowed now.
	Peek(ctx context.Context, key string, l Limit) (Result, error)
}

// remainingEpsilon absorbs float rounding when whole tokens are counted, so
// 8.9999999999 tokens left reads as 9 in every implementation.
const remainingEpsilon = 1e-6

// remaining counts the whole tokens left in a bucket that is deficit short
// of full.
func remaining(l Limit, deficit time.Duration) int {
	r := math.Floor(float64(l.Rate) - float64(deficit)/l.intervalNs() + remainingEpsilon)
	return int(max(0, min(r, float64(l.Rate))))
}

// newResult builds the answer from the decision and the bucket's deficit
// after it (how long until the bucket is full again, i.e. GCRA's TAT-now).
// Both implementations go through it so they report identical numbers.
// ResetAfter is rounded to the microsecond (Redis's clock resolution);
// RetryAfter is rounded up, since it promises that waiting that long is
// enough.
func newResult(l Limit, allowed bool, deficit time.Duration) Result {
	deficit = max(0, deficit)
	res := Result{
		Allowed:    allowed,
		Limit:      l.Rate,
		Remaining:  remaining(l, deficit),
		ResetAfter: deficit.Round(time.Microsecond),
	}
	if !allowed {
		res.Remaining = 0
		wait := float64(deficit) - float64(l.Rate-1)*l.intervalNs()
		res.RetryAfter = max(time.Microsecond, ceilMicro(wait))
	}
	return res
}

// peekResult is the answer for a key without consuming: a request would be
// allowed when at least one whole token is left.
func peekResult(l Limit, deficit time.Duration) Result {
	return newResult(l, remaining(l, max(0, deficit)) >= 1, deficit)
}

func ceilMicro(ns float64) time.Duration {
	return time.Duration(math.Ceil(ns/float64(time.Microsecond))) * time.Microsecond
}

// Every backend implements its interface.
var (
	_ Limiter = (*Memory)(nil)
	_ Limiter = (*Redis)(nil)
	_ Counter = (*MemoryCounter)(nil)
	_ Counter = (*RedisCounter)(nil)
)
