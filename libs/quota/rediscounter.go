package quota

import (
	"context"
	"errors"
	"fmt"
	"time"

	"github.com/redis/go-redis/v9"
)

// RedisCounter is the Counter shared by all replicas. Each window's key
// expires when the window ends (EXPIREAT), so old windows clean themselves
// up; the increment and the expiry travel in one MULTI/EXEC. Errors are
// returned, never hidden: the caller decides whether to render anyway.
type RedisCounter struct {
	client redis.UniversalClient
	opts   RedisOptions
}

// NewRedisCounter returns a counter on client; it uses opts.KeyPrefix,
// opts.Timeout and opts.Clock.
func NewRedisCounter(client redis.UniversalClient, opts RedisOptions) *RedisCounter {
	return &RedisCounter{client: client, opts: opts.withDefaults()}
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
		return 0, fmt.Errorf("add %d to %s %s usage of %s: %w", n, w, w.ID(now), key, err)
	}
	return int(incr.Val()), nil
}

// Get answers key's count in the current window.
func (c *RedisCounter) Get(ctx context.Context, key string, w Window) (int, error) {
	if err := w.Validate(); err != nil {
		return 0, err
	}
	now := c.opts.Clock()
	ctx, cancel := c.opts.withTimeout(ctx)
	defer cancel()
	n, err := c.client.Get(ctx, c.key("usage", key, w, now)).Int()
	if errors.Is(err, redis.Nil) {
		return 0, nil
	}
	if err != nil {
		return 0, fmt.Errorf("get %s %s usage of %s: %w", w, w.ID(now), key, err)
	}
	return n, nil
}

// AddUnique records member for key in the current window.
func (c *RedisCounter) AddUnique(ctx context.Context, key string, w Window, member string) (int, bool, error) {
	if err := w.Validate(); err != nil {
		return 0, false, err
	}
	now := c.opts.Clock()
	k := c.key("uniq", key, w, now)
	ctx, cancel := c.opts.withTimeout(ctx)
	defer cancel()
	var added, count *redis.IntCmd
	_, err := c.client.TxPipelined(ctx, func(p redis.Pipeliner) error {
		added = p.SAdd(ctx, k, member)
		count = p.SCard(ctx, k)
		p.ExpireAt(ctx, k, w.End(now))
		return nil
	})
	if err != nil {
		return 0, false, fmt.Errorf("add to %s %s distinct usage of %s: %w", w, w.ID(now), key, err)
	}
	return int(count.Val()), added.Val() == 1, nil
}

// CountUnique answers how many distinct members key holds in the current
// window.
func (c *RedisCounter) CountUnique(ctx context.Context, key string, w Window) (int, error) {
	if err := w.Validate(); err != nil {
		return 0, err
	}
	now := c.opts.Clock()
	ctx, cancel := c.opts.withTimeout(ctx)
	defer cancel()
	n, err := c.client.SCard(ctx, c.key("uniq", key, w, now)).Result()
	if err != nil {
		return 0, fmt.Errorf("count %s %s distinct usage of %s: %w", w, w.ID(now), key, err)
	}
	return int(n), nil
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
// atomic script.
func (c *RedisCounter) AddWithin(ctx context.Context, key string, w Window, n, limit int) (int, bool, error) {
	if err := w.Validate(); err != nil {
		return 0, false, err
	}
	now := c.opts.Clock()
	ctx, cancel := c.opts.withTimeout(ctx)
	defer cancel()
	res, err := redis.NewScript(addWithinScript).Run(ctx, c.client, []string{c.key("usage", key, w, now)}, n, limit, w.End(now).Unix()).Int64Slice()
	if err != nil {
		return 0, false, fmt.Errorf("add %d within %d to %s %s usage of %s: %w", n, limit, w, w.ID(now), key, err)
	}
	return int(res[0]), res[1] == 1, nil
}

// AddUniqueWithin records member unless the window is full, in one atomic
// script.
func (c *RedisCounter) AddUniqueWithin(ctx context.Context, key string, w Window, member string, limit int) (int, bool, error) {
	if err := w.Validate(); err != nil {
		return 0, false, err
	}
	now := c.opts.Clock()
	ctx, cancel := c.opts.withTimeout(ctx)
	defer cancel()
	res, err := redis.NewScript(addUniqueWithinScript).Run(ctx, c.client, []string{c.key("uniq", key, w, now)}, member, limit, w.End(now).Unix()).Int64Slice()
	if err != nil {
		return 0, false, fmt.Errorf("add within %d to %s %s distinct usage of %s: %w", limit, w, w.ID(now), key, err)
	}
	return int(res[0]), res[1] == 1, nil
}
