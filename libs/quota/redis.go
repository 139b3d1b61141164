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

// LocalMetric is the name of the counter incremented each time the Redis
// limiter decides in process because Redis could not, with the attributes
// op (allow, peek) and allowed (true, false).
const LocalMetric = "chartd_ratelimit_local_total"

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
	// Logger receives the outage warnings (slog.Default() when nil).
	Logger *slog.Logger
	// Meter creates the chartd_ratelimit_local_total counter (a no-op
	// meter when nil).
	Meter metric.Meter
	// Replicas is how many processes share each allowance (1 when 0):
	// while Redis is out each one limits in process at 1/Replicas of it,
	// so together they allow about the whole allowance.
	Replicas int
	// LogInterval is the least time between two outage log lines
	// (DefaultLogInterval when 0); occurrences in between are counted in
	// the next line's "suppressed".
	LogInterval time.Duration
	// Timeout bounds each call to Redis (DefaultTimeout when 0; negative:
	// none), so a hung Redis delays a request by at most this much before
	// the limiter decides in process. For it to bound socket reads too, create the
	// client with ContextTimeoutEnabled.
	Timeout time.Duration
	// ProbeInterval is how often, after a Redis failure, a background
	// probe pings Redis (DefaultProbeInterval when 0); until one answers,
	// calls skip Redis and answer at once (limit or count in process). Without it every request of an outage would wait Timeout,
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
	if o.Replicas <= 0 {
		o.Replicas = 1
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
// Lua script on Redis's clock. While Redis is out it limits in process
// (see the package doc).
type Redis struct {
	rl      *redis_rate.Limiter
	opts    RedisOptions
	local   *Memory
	locals  metric.Int64Counter
	localOp map[string][2]metric.AddOption // by op: refused, allowed
	health  *redisHealth

	lastLog    atomic.Int64 // unix nanoseconds of the last outage log line
	suppressed atomic.Int64 // local decisions not logged since then
}

// NewRedis returns a limiter on client (a single node, sentinel or
// cluster client). It adds a dial hook to client so that a refused
// connection marks Redis down at once instead of after go-redis' retries.
func NewRedis(client redis.UniversalClient, opts RedisOptions) (*Redis, error) {
	opts = opts.withDefaults()
	c, err := opts.Meter.Int64Counter(LocalMetric,
		metric.WithDescription("Rate-limit decisions made in process, at 1/replicas of the allowance, because Redis could not be reached."),
		metric.WithUnit("{request}"))
	if err != nil {
		return nil, fmt.Errorf("create metric %s: %w", LocalMetric, err)
	}
	ops := map[string][2]metric.AddOption{}
	for _, op := range []string{"allow", "peek"} {
		ops[op] = [2]metric.AddOption{
			metric.WithAttributeSet(attribute.NewSet(attribute.String("op", op), attribute.Bool("allowed", false))),
			metric.WithAttributeSet(attribute.NewSet(attribute.String("op", op), attribute.Bool("allowed", true))),
		}
	}
	r := &Redis{
		rl:      redis_rate.NewLimiter(client),
		opts:    opts,
		local:   NewMemory(nil),
		locals:  c,
		localOp: ops,
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
		return r.decideLocally(ctx, "allow", key, l, r.health.downCause())
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
		return r.decideLocally(ctx, "allow", key, l, err)
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
		return r.decideLocally(ctx, "peek", key, l, r.health.downCause())
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
		return r.decideLocally(ctx, "peek", key, l, err)
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

// decideLocally answers op for key while Redis is out: GCRA in process
// (Memory) at this replica's share of l, reported against the whole of
// l (replicaResult). It counts every such decision and logs at most one
// line per LogInterval, carrying how many were not logged since the
// previous line.
func (r *Redis) decideLocally(ctx context.Context, op, key string, l Limit, cause error) (Result, error) {
	share := replicaShare(l, r.opts.Replicas)
	var res Result
	var err error
	if op == "peek" {
		res, err = r.local.Peek(ctx, key, share)
	} else {
		res, err = r.local.Allow(ctx, key, share)
	}
	if err != nil {
		return Result{}, fmt.Errorf("rate limit %s in process: %w", key, err)
	}
	res = replicaResult(l, r.opts.Replicas, res)
	allowed := 0
	if res.Allowed {
		allowed = 1
	}
	r.locals.Add(ctx, 1, r.localOp[op][allowed])
	now := time.Now().UnixNano()
	last := r.lastLog.Load()
	if now-last < int64(r.opts.LogInterval) || !r.lastLog.CompareAndSwap(last, now) {
		r.suppressed.Add(1)
		return res, nil
	}
	r.opts.Logger.WarnContext(ctx, "rate limiter cannot reach Redis; limiting in process at this replica's share",
		slog.String("op", op), slog.String("key", key), slog.Int("replicas", r.opts.Replicas), slog.String("share", share.String()),
		slog.Any("error", cause), slog.Int64("suppressed", r.suppressed.Swap(0)))
	return res, nil
}

// replicaShare is one replica's part of l when replicas share it: the
// rate divided, rounded up so that no allowance drops to nothing.
func replicaShare(l Limit, replicas int) Limit {
	return Limit{Rate: max(1, (l.Rate+replicas-1)/replicas), Period: l.Period}
}

// replicaResult reports res, decided on one replica's share, against the
// whole allowance l: with requests spread over the replicas, each one's
// remaining share stands for that many on every replica.
func replicaResult(l Limit, replicas int, res Result) Result {
	res.Limit = l.Rate
	res.Remaining = min(l.Rate, res.Remaining*replicas)
	return res
}
