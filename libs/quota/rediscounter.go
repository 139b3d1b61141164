package quota

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
)

// CounterFallbackMetric is the name of the counter incremented each time a
// RedisCounter call is answered by the in-process counter because Redis
// could not be reached.
const CounterFallbackMetric = "chartd_quota_counter_fallback_total"

// handOverTimeout bounds adding the in-process counts to Redis after an
// outage; it runs in the background, so it may take longer than Timeout.
const handOverTimeout = 10 * time.Second

// RedisCounter is the Counter shared by all replicas. Each window's key
// expires when the window ends (EXPIREAT), so old windows clean themselves
// up; the increment and the expiry travel in one MULTI/EXEC.
//
// It degrades rather than fails (see the package doc): when Redis does not
// answer within Timeout, calls are answered by an in-process MemoryCounter
// for the same windows, at once, until a background probe reaches Redis
// again; then what was counted in process is added to Redis.
type RedisCounter struct {
	client   redis.UniversalClient
	opts     RedisOptions
	health   *redisHealth
	fallback metric.Int64Counter
	opAttrs  map[string]metric.AddOption // read-only after construction

	// mu orders counting in process against handing the counts over, so
	// no count lands in local after it was taken.
	mu    sync.Mutex
	local *MemoryCounter

	lastLog    atomic.Int64 // unix nanoseconds of the last fallback log line
	suppressed atomic.Int64 // fallbacks not logged since then
}

// NewRedisCounter returns a counter on client; it uses opts.KeyPrefix,
// opts.Timeout, opts.ProbeInterval, opts.Logger, opts.Meter, opts.LogInterval
// and opts.Clock. Like NewRedis it adds a dial hook to client.
func NewRedisCounter(client redis.UniversalClient, opts RedisOptions) *RedisCounter {
	opts = opts.withDefaults()
	fallback, err := opts.Meter.Int64Counter(CounterFallbackMetric,
		metric.WithDescription("Usage-counter calls answered in process because Redis could not be reached."),
		metric.WithUnit("{call}"))
	if err != nil {
		// The counter still works; only the metric is lost, so say so.
		opts.Logger.Error("usage counter metric unavailable", slog.String("metric", CounterFallbackMetric),
			slog.Any("error", fmt.Errorf("create metric %s: %w", CounterFallbackMetric, err)))
		fallback, _ = noop.NewMeterProvider().Meter("chartd.dev/libs/quota").Int64Counter(CounterFallbackMetric)
	}
	c := &RedisCounter{
		client:   client,
		opts:     opts,
		fallback: fallback,
		opAttrs:  map[string]metric.AddOption{},
		local:    NewMemoryCounter(opts.Clock),
	}
	// The op attribute of CounterFallbackMetric names the Counter method.
	for _, op := range []string{"add", "get", "add_unique", "count_unique", "add_within", "add_unique_within"} {
		c.opAttrs[op] = metric.WithAttributeSet(attribute.NewSet(attribute.String("op", op)))
	}
	c.health = newRedisHealth(client, opts, "usage counter", c.recovered)
	return c
}

// do runs remote against Redis, or local against the in-process counter
// when Redis is marked down or remote fails. Only the caller's own
// cancelled context is an error.
func (c *RedisCounter) do(ctx context.Context, op, key string, remote func(ctx context.Context) error, local func(m *MemoryCounter) error) error {
	if err := ctx.Err(); err != nil {
		return fmt.Errorf("count %s of %s: %w", op, key, err)
	}
	if !c.health.isDown() {
		err := remote(ctx)
		if err == nil {
			return nil
		}
		if ctx.Err() != nil {
			return err
		}
		cause := c.explain(err)
		c.mu.Lock()
		c.health.markDown(cause)
		err = local(c.local)
		c.mu.Unlock()
		c.noteFallback(ctx, op, key, cause)
		return err
	}
	c.mu.Lock()
	if !c.health.isDown() {
		// Redis came back and the counts were taken meanwhile: ask it.
		c.mu.Unlock()
		return c.do(ctx, op, key, remote, local)
	}
	err := local(c.local)
	c.mu.Unlock()
	c.noteFallback(ctx, op, key, c.health.downCause())
	return err
}

// explain names our own timeout, which go-redis reports as a bare
// "context deadline exceeded".
func (c *RedisCounter) explain(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no answer from Redis within %v: %w", c.opts.Timeout, err)
	}
	return err
}

// noteFallback counts every call answered in process and logs at most one
// line per LogInterval, carrying how many were not logged since.
func (c *RedisCounter) noteFallback(ctx context.Context, op, key string, err error) {
	c.fallback.Add(ctx, 1, c.opAttrs[op])
	now := time.Now().UnixNano()
	last := c.lastLog.Load()
	if now-last < int64(c.opts.LogInterval) || !c.lastLog.CompareAndSwap(last, now) {
		c.suppressed.Add(1)
		return
	}
	c.opts.Logger.WarnContext(ctx, "usage counter cannot reach Redis; counting in this process until it is back",
		slog.String("op", op), slog.String("key", key), slog.Any("error", err),
		slog.Int64("suppressed", c.suppressed.Swap(0)))
}

// handed is one series taken from the in-process counter and sent to
// Redis, kept until Redis confirmed it.
type handed struct {
	w       Window
	start   time.Time
	key     string
	n       int      // a count to add
	members []string // or distinct members to add, when not nil
	cmd     redis.Cmder
}

// handOverRounds is how many times recovered hands counts over while
// calls still count in process, before it lets them use Redis again.
const handOverRounds = 3

// recovered runs once a probe reached Redis: it hands what was counted in
// process to Redis while calls keep counting in process, until little is
// left; then it takes the rest and lets calls use Redis in one step, so a
// call right after sees (nearly) the whole total. What Redis did not take
// is put back and Redis marked down again.
func (c *RedisCounter) recovered(ctx context.Context) error {
	var handedSeries, handedMembers int
	for round := 1; ; round++ {
		c.mu.Lock()
		series, members := c.takeSeries()
		last := len(series) == 0 || round == handOverRounds
		if last {
			c.health.markUp()
		}
		c.mu.Unlock()
		if len(series) > 0 {
			if err := c.handOver(ctx, series); err != nil {
				return err
			}
		}
		handedSeries, handedMembers = handedSeries+len(series), handedMembers+members
		if last {
			break
		}
	}
	c.opts.Logger.InfoContext(ctx, "usage counter reached Redis again; counts made in process added to it",
		slog.Int("series", handedSeries), slog.Int("members", handedMembers), slog.Int64("suppressed", c.suppressed.Swap(0)))
	return nil
}

// takeSeries empties the in-process counter and answers its series of the
// current windows and how many distinct members they hold. Called with
// c.mu held.
func (c *RedisCounter) takeSeries() ([]handed, int) {
	now := c.opts.Clock()
	var series []handed
	members := 0
	for i, mw := range c.local.takeAll() {
		w := Window(i + 1)
		if mw.counts == nil || !mw.start.Equal(w.Start(now)) {
			continue // the window is over; Redis would expire it anyway
		}
		for key, n := range mw.counts {
			if n != 0 {
				series = append(series, handed{w: w, start: mw.start, key: key, n: n})
			}
		}
		for key, set := range mw.unique {
			if len(set) == 0 {
				continue
			}
			h := handed{w: w, start: mw.start, key: key, members: make([]string, 0, len(set))}
			for m := range set {
				h.members = append(h.members, m)
			}
			members += len(set)
			series = append(series, h)
		}
	}
	return series, members
}

// handOver adds series to Redis in one pipeline. On failure the series
// Redis did not confirm go back to the in-process counter and Redis is
// marked down again.
func (c *RedisCounter) handOver(ctx context.Context, series []handed) error {
	ctx, cancel := context.WithTimeout(ctx, handOverTimeout)
	defer cancel()
	pipe := c.client.Pipeline()
	for i := range series {
		s := &series[i]
		end := s.w.End(s.start)
		if s.members == nil {
			k := c.key("usage", s.key, s.w, s.start)
			s.cmd = pipe.IncrBy(ctx, k, int64(s.n))
			pipe.ExpireAt(ctx, k, end)
			continue
		}
		k := c.key("uniq", s.key, s.w, s.start)
		args := make([]any, len(s.members))
		for j, m := range s.members {
			args[j] = m
		}
		s.cmd = pipe.SAdd(ctx, k, args...)
		pipe.ExpireAt(ctx, k, end)
	}
	_, err := pipe.Exec(ctx)
	if err == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	kept := 0
	for _, s := range series {
		if s.cmd.Err() != nil {
			c.local.restore(s.w, s.start, s.key, s.n, s.members)
			kept++
		}
	}
	err = fmt.Errorf("add %d series counted in process to Redis (%d kept for the next try): %w", len(series), kept, err)
	c.health.markDown(err)
	return err
}

// key answers the storage key of key's series kind ("usage", "uniq") in
// the window containing now.
func (c *RedisCounter) key(kind, key string, w Window, now time.Time) string {
	return c.opts.KeyPrefix + kind + ":" + w.String() + ":" + w.ID(now) + ":" + key
}

// Add adds n to key's count in the current window.
func (c *RedisCounter) Add(ctx context.Context, key string, w Window, n int) (int, error) {
	if err := w.Validate(); err != nil {
		return 0, err
	}
	var count int
	err := c.do(ctx, "add", key, func(ctx context.Context) error {
		now := c.opts.Clock()
		k := c.key("usage", key, w, now)
		ctx, cancel := c.opts.withTimeout(ctx)
		defer cancel()
		var incr *redis.IntCmd
		_, err := c.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
			incr = p.IncrBy(ctx, k, int64(n))
			p.ExpireAt(ctx, k, w.End(now))
			return nil
		})
		if err != nil {
			return fmt.Errorf("add %d to %s %s usage of %s: %w", n, w, w.ID(now), key, err)
		}
		count = int(incr.Val())
		return nil
	}, func(m *MemoryCounter) (err error) {
		count, err = m.Add(ctx, key, w, n)
		return err
	})
	return count, err
}

// Get answers key's count in the current window.
func (c *RedisCounter) Get(ctx context.Context, key string, w Window) (int, error) {
	if err := w.Validate(); err != nil {
		return 0, err
	}
	var count int
	err := c.do(ctx, "get", key, func(ctx context.Context) error {
		now := c.opts.Clock()
		ctx, cancel := c.opts.withTimeout(ctx)
		defer cancel()
		n, err := c.client.Get(ctx, c.key("usage", key, w, now)).Int()
		if errors.Is(err, redis.Nil) {
			count = 0
			return nil
		}
		if err != nil {
			return fmt.Errorf("get %s %s usage of %s: %w", w, w.ID(now), key, err)
		}
		count = n
		return nil
	}, func(m *MemoryCounter) (err error) {
		count, err = m.Get(ctx, key, w)
		return err
	})
	return count, err
}

// AddUnique records member for key in the current window.
func (c *RedisCounter) AddUnique(ctx context.Context, key string, w Window, member string) (int, bool, error) {
	if err := w.Validate(); err != nil {
		return 0, false, err
	}
	var count int
	var added bool
	err := c.do(ctx, "add_unique", key, func(ctx context.Context) error {
		now := c.opts.Clock()
		k := c.key("uniq", key, w, now)
		ctx, cancel := c.opts.withTimeout(ctx)
		defer cancel()
		var sadd, scard *redis.IntCmd
		_, err := c.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
			sadd = p.SAdd(ctx, k, member)
			scard = p.SCard(ctx, k)
			p.ExpireAt(ctx, k, w.End(now))
			return nil
		})
		if err != nil {
			return fmt.Errorf("add to %s %s distinct usage of %s: %w", w, w.ID(now), key, err)
		}
		count, added = int(scard.Val()), sadd.Val() == 1
		return nil
	}, func(m *MemoryCounter) (err error) {
		count, added, err = m.AddUnique(ctx, key, w, member)
		return err
	})
	return count, added, err
}

// CountUnique answers how many distinct members key holds in the current
// window.
func (c *RedisCounter) CountUnique(ctx context.Context, key string, w Window) (int, error) {
	if err := w.Validate(); err != nil {
		return 0, err
	}
	var count int
	err := c.do(ctx, "count_unique", key, func(ctx context.Context) error {
		now := c.opts.Clock()
		ctx, cancel := c.opts.withTimeout(ctx)
		defer cancel()
		n, err := c.client.SCard(ctx, c.key("uniq", key, w, now)).Result()
		if err != nil {
			return fmt.Errorf("count %s %s distinct usage of %s: %w", w, w.ID(now), key, err)
		}
		count = int(n)
		return nil
	}, func(m *MemoryCounter) (err error) {
		count, err = m.CountUnique(ctx, key, w)
		return err
	})
	return count, err
}

// addWithinScript adds ARGV[1] to KEYS[1] unless that passes ARGV[2]; the
// key expires at ARGV[3] (unix seconds). It answers {count, ok}.
const addWithinScript = `
local cur = tonumber(redis.call('GET', KEYS[1]) or '0')
local n = tonumber(ARGV[1])
if cur + n > tonumber(ARGV[2]) then return {cur, 0} end
cur = redis.call('INCRBY', KEYS[1], n)
redis.call('EXPIREAT', KEYS[1], ARGV[3])
return {cur, 1}`

// addUniqueWithinScript adds ARGV[1] to the set KEYS[1] unless it is new
// and the set already holds ARGV[2] members; expiry as above. {count, ok}.
const addUniqueWithinScript = `
if redis.call('SISMEMBER', KEYS[1], ARGV[1]) == 1 then return {redis.call('SCARD', KEYS[1]), 1} end
local n = redis.call('SCARD', KEYS[1])
if n >= tonumber(ARGV[2]) then return {n, 0} end
redis.call('SADD', KEYS[1], ARGV[1])
redis.call('EXPIREAT', KEYS[1], ARGV[3])
return {n + 1, 1}`

// AddWithin adds n to key's count if the result stays within limit, in one
// atomic script. While Redis is down the in-process count starts from
// zero, so each replica may grant up to limit more (see the package doc).
func (c *RedisCounter) AddWithin(ctx context.Context, key string, w Window, n, limit int) (int, bool, error) {
	if err := w.Validate(); err != nil {
		return 0, false, err
	}
	var count int
	var ok bool
	err := c.do(ctx, "add_within", key, func(ctx context.Context) error {
		now := c.opts.Clock()
		ctx, cancel := c.opts.withTimeout(ctx)
		defer cancel()
		res, err := redis.NewScript(addWithinScript).Run(ctx, c.client, []string{c.key("usage", key, w, now)}, n, limit, w.End(now).Unix()).Int64Slice()
		if err != nil {
			return fmt.Errorf("add %d within %d to %s %s usage of %s: %w", n, limit, w, w.ID(now), key, err)
		}
		count, ok = int(res[0]), res[1] == 1
		return nil
	}, func(m *MemoryCounter) (err error) {
		count, ok, err = m.AddWithin(ctx, key, w, n, limit)
		return err
	})
	return count, ok, err
}

// AddUniqueWithin records member unless the window is full, in one atomic
// script. While Redis is down the in-process set starts empty (see the
// package doc).
func (c *RedisCounter) AddUniqueWithin(ctx context.Context, key string, w Window, member string, limit int) (int, bool, error) {
	if err := w.Validate(); err != nil {
		return 0, false, err
	}
	var count int
	var ok bool
	err := c.do(ctx, "add_unique_within", key, func(ctx context.Context) error {
		now := c.opts.Clock()
		ctx, cancel := c.opts.withTimeout(ctx)
		defer cancel()
		res, err := redis.NewScript(addUniqueWithinScript).Run(ctx, c.client, []string{c.key("uniq", key, w, now)}, member, limit, w.End(now).Unix()).Int64Slice()
		if err != nil {
			return fmt.Errorf("add within %d to %s %s distinct usage of %s: %w", limit, w, w.ID(now), key, err)
		}
		count, ok = int(res[0]), res[1] == 1
		return nil
	}, func(m *MemoryCounter) (err error) {
		count, ok, err = m.AddUniqueWithin(ctx, key, w, member, limit)
		return err
	})
	return count, ok, err
}
