package quota

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"sync/atomic"
	"time"

	"github.com/go-redis/redis_rate/v10"
	"github.com/redis/go-redis/v9"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
)

// FailOpenMetric is the name of the counter incremented each time the Redis
// limiter answers "allowed" because Redis could not decide.
const FailOpenMetric = "chartd_ratelimit_fail_open_total"

// Defaults for RedisOptions.
const (
	DefaultKeyPrefix     = "chartd:"
	DefaultLogInterval   = 5 * time.Second
	DefaultTimeout       = 250 * time.Millisecond
	DefaultProbeInterval = time.Second
)

// errRedisDown stands for the last Redis failure while calls skip Redis
// until a probe reaches it.
var errRedisDown = errors.New("redis failed recently; waiting for a probe to reach it")

// RedisOptions configures the Redis limiter and counter. The zero value
// works.
type RedisOptions struct {
	// KeyPrefix starts every key this package writes (DefaultKeyPrefix when
	// empty). Limiter keys are "rate:"+KeyPrefix+key (redis_rate adds
	// "rate:"); counter keys are KeyPrefix+"usage:"+window+":"+windowID+":"+key
	// and KeyPrefix+"uniq:"+window+":"+windowID+":"+key.
	KeyPrefix string
	// Logger receives the fail-open warnings (slog.Default() when nil).
	Logger *slog.Logger
	// Meter creates the chartd_ratelimit_fail_open_total counter (a no-op
	// meter when nil).
	Meter metric.Meter
	// LogInterval is the least time between two fail-open log lines
	// (DefaultLogInterval when 0); occurrences in between are counted in
	// the next line's "suppressed".
	LogInterval time.Duration
	// Timeout bounds each call to Redis (DefaultTimeout when 0; negative:
	// none), so a hung Redis delays a request by at most this much before
	// the limiter fails open. For it to bound socket reads too, create the
	// client with ContextTimeoutEnabled.
	Timeout time.Duration
	// ProbeInterval is how often, after a Redis failure, a background
	// probe pings Redis (DefaultProbeInterval when 0); until one answers,
	// calls skip Redis and answer at once (fail open, or count in
	// process). Without it every request of an outage would wait Timeout,
	// since go-redis retries failed commands.
	ProbeInterval time.Duration
	// Clock places counter operations in their Day/Month window (time.Now
	// when nil). The limiter ignores it: GCRA runs on Redis's own clock.
	Clock func() time.Time
}

func (o RedisOptions) withDefaults() RedisOptions {
	if o.KeyPrefix == "" {
		o.KeyPrefix = DefaultKeyPrefix
	}
	if o.Logger == nil {
		o.Logger = slog.Default()
	}
	if o.Meter == nil {
		o.Meter = noop.NewMeterProvider().Meter("chartd.dev/libs/quota")
	}
	if o.LogInterval == 0 {
		o.LogInterval = DefaultLogInterval
	}
	if o.Timeout == 0 {
		o.Timeout = DefaultTimeout
	}
	if o.ProbeInterval == 0 {
		o.ProbeInterval = DefaultProbeInterval
	}
	if o.Clock == nil {
		o.Clock = time.Now
	}
	return o
}

// withTimeout bounds one Redis call by o.Timeout.
func (o RedisOptions) withTimeout(ctx context.Context) (context.Context, context.CancelFunc) {
	if o.Timeout < 0 {
		return ctx, func() {}
	}
	return context.WithTimeout(ctx, o.Timeout)
}

// Redis is the Limiter shared by all replicas: GCRA in redis_rate's atomic
// Lua script on Redis's clock. It fails open (see the package doc).
type Redis struct {
	rl       *redis_rate.Limiter
	opts     RedisOptions
	failOpen metric.Int64Counter
	allowOp  metric.AddOption
	peekOp   metric.AddOption
	health   *redisHealth

	lastLog    atomic.Int64 // unix nanoseconds of the last fail-open log line
	suppressed atomic.Int64 // fail-opens not logged since then
}

// NewRedis returns a limiter on client (a single node, sentinel or
// cluster client). It adds a dial hook to client so that a refused
// connection marks Redis down at once instead of after go-redis' retries.
func NewRedis(client redis.UniversalClient, opts RedisOptions) (*Redis, error) {
	opts = opts.withDefaults()
	c, err := opts.Meter.Int64Counter(FailOpenMetric,
		metric.WithDescription("Requests allowed without a rate-limit decision because Redis could not be reached."),
		metric.WithUnit("{request}"))
	if err != nil {
		return nil, fmt.Errorf("create metric %s: %w", FailOpenMetric, err)
	}
	r := &Redis{
		rl:       redis_rate.NewLimiter(client),
		opts:     opts,
		failOpen: c,
		allowOp:  metric.WithAttributeSet(attribute.NewSet(attribute.String("op", "allow"))),
		peekOp:   metric.WithAttributeSet(attribute.NewSet(attribute.String("op", "peek"))),
	}
	r.health = newRedisHealth(client, opts, "rate limiter", r.recovered)
	return r, nil
}

// Allow decides one request for key under l.
func (r *Redis) Allow(ctx context.Context, key string, l Limit) (Result, error) {
	if err := l.Validate(); err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("rate limit %s: %w", key, err)
	}
	if r.health.isDown() {
		r.noteFailOpen(ctx, "allow", key, r.health.downCause(), r.allowOp)
		return failOpenResult(l, true), nil
	}
	cctx, cancel := r.opts.withTimeout(ctx)
	defer cancel()
	res, err := r.rl.Allow(cctx, r.opts.KeyPrefix+key, redisLimit(l))
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("rate limit %s: %w", key, ctx.Err())
		}
		err = r.explain(err)
		r.health.markDown(err)
		r.noteFailOpen(ctx, "allow", key, err, r.allowOp)
		return failOpenResult(l, true), nil
	}
	return newResult(l, res.Allowed > 0, res.ResetAfter), nil
}

// Peek answers key's state under l without consuming: AllowAtMost with a
// cost of 0 reads the stored timestamp without moving it.
func (r *Redis) Peek(ctx context.Context, key string, l Limit) (Result, error) {
	if err := l.Validate(); err != nil {
		return Result{}, err
	}
	if err := ctx.Err(); err != nil {
		return Result{}, fmt.Errorf("peek rate limit %s: %w", key, err)
	}
	if r.health.isDown() {
		r.noteFailOpen(ctx, "peek", key, r.health.downCause(), r.peekOp)
		return failOpenResult(l, false), nil
	}
	cctx, cancel := r.opts.withTimeout(ctx)
	defer cancel()
	res, err := r.rl.AllowAtMost(cctx, r.opts.KeyPrefix+key, redisLimit(l), 0)
	if err != nil {
		if ctx.Err() != nil {
			return Result{}, fmt.Errorf("peek rate limit %s: %w", key, ctx.Err())
		}
		err = r.explain(err)
		r.health.markDown(err)
		r.noteFailOpen(ctx, "peek", key, err, r.peekOp)
		return failOpenResult(l, false), nil
	}
	return peekResult(l, res.ResetAfter), nil
}

func redisLimit(l Limit) redis_rate.Limit {
	return redis_rate.Limit{Rate: l.Rate, Burst: l.Rate, Period: l.Period}
}

// explain names our own timeout, which go-redis reports as a bare
// "context deadline exceeded".
func (r *Redis) explain(err error) error {
	if errors.Is(err, context.DeadlineExceeded) {
		return fmt.Errorf("no answer from Redis within %v: %w", r.opts.Timeout, err)
	}
	return err
}

// recovered ends the limiter's outage once a probe reached Redis, and
// says so once.
func (r *Redis) recovered(ctx context.Context) error {
	r.opts.Logger.InfoContext(ctx, "rate limiter reached Redis again; limiting resumed",
		slog.Int64("suppressed", r.suppressed.Swap(0)))
	r.health.markUp()
	return nil
}

// noteFailOpen counts every fail-open and logs at most one line per
// LogInterval, carrying how many were not logged since the previous line.
func (r *Redis) noteFailOpen(ctx context.Context, op, key string, err error, attrs metric.AddOption) {
	r.failOpen.Add(ctx, 1, attrs)
	now := time.Now().UnixNano()
	last := r.lastLog.Load()
	if now-last < int64(r.opts.LogInterval) || !r.lastLog.CompareAndSwap(last, now) {
		r.suppressed.Add(1)
		return
	}
	r.opts.Logger.WarnContext(ctx, "rate limiter cannot reach Redis; allowing requests (fail open)",
		slog.String("op", op), slog.String("key", key), slog.Any("error", err),
		slog.Int64("suppressed", r.suppressed.Swap(0)))
}
