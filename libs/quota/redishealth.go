package quota

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net"
	"sync/atomic"
	"time"

	"github.com/redis/go-redis/v9"
)

// redisHealth remembers that Redis failed, so requests stop waiting on
// it, and probes it in the background until it answers again. No request
// ever waits on a probe: during an outage every call answers at once
// without Redis, and only the calls that discover the outage pay Timeout.
type redisHealth struct {
	client   redis.UniversalClient
	opts     RedisOptions
	what     string // names the user of Redis in log lines
	recovery func(ctx context.Context) error

	down    atomic.Bool
	probing atomic.Bool
	cause   atomic.Pointer[error] // errRedisDown with the failure that marked Redis down
}

// newRedisHealth watches client for a user named what; recovery runs after
// a probe reached Redis and must call markUp when it succeeds (an error
// keeps Redis marked down and the probes going). It adds a dial hook to
// client (see dialWatch).
func newRedisHealth(client redis.UniversalClient, opts RedisOptions, what string, recovery func(ctx context.Context) error) *redisHealth {
	h := &redisHealth{client: client, opts: opts, what: what, recovery: recovery}
	client.AddHook(dialWatch{h})
	return h
}

// dialWatch marks Redis down the moment a connection to it fails. A killed
// Redis refuses connections at once, but go-redis retries the dial until
// the call's Timeout is spent; without the hook every request arriving in
// that Timeout would wait it out too, before the first failure is known.
type dialWatch struct{ h *redisHealth }

// DialHook marks Redis down on a failed dial that was not given up by its
// caller.
func (d dialWatch) DialHook(next redis.DialHook) redis.DialHook {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		conn, err := next(ctx, network, addr)
		if err != nil && ctx.Err() == nil && !d.h.isDown() {
			d.h.markDown(fmt.Errorf("dial %s: %w", addr, err))
		}
		return conn, err
	}
}

// ProcessHook leaves commands alone.
func (dialWatch) ProcessHook(next redis.ProcessHook) redis.ProcessHook { return next }

// ProcessPipelineHook leaves pipelines alone.
func (dialWatch) ProcessPipelineHook(next redis.ProcessPipelineHook) redis.ProcessPipelineHook {
	return next
}

// isDown reports whether calls should skip Redis. The healthy path costs
// one atomic load.
func (h *redisHealth) isDown() bool { return h.down.Load() }

// markDown makes calls skip Redis, remembering why, and starts the
// prober unless it runs.
func (h *redisHealth) markDown(cause error) {
	wrapped := fmt.Errorf("%w: %w", errRedisDown, cause)
	h.cause.Store(&wrapped)
	h.down.Store(true)
	if h.probing.CompareAndSwap(false, true) {
		go h.probe()
	}
}

// downCause answers why Redis was last marked down, for the log lines of
// the calls that skip it.
func (h *redisHealth) downCause() error {
	if p := h.cause.Load(); p != nil {
		return *p
	}
	return errRedisDown
}

// markUp lets calls use Redis again.
func (h *redisHealth) markUp() { h.down.Store(false) }

// probe pings Redis every ProbeInterval until it answers and recovery
// succeeds. It ends for good when the client is closed (the process is
// stopping).
func (h *redisHealth) probe() {
	t := time.NewTicker(h.opts.ProbeInterval)
	defer t.Stop()
	for range t.C {
		ctx, cancel := h.opts.withTimeout(context.Background())
		err := h.client.Ping(ctx).Err()
		cancel()
		if errors.Is(err, redis.ErrClosed) {
			h.probing.Store(false)
			return
		}
		if err != nil {
			continue
		}
		if err := h.recovery(context.Background()); err != nil {
			h.opts.Logger.Warn(h.what+" reached Redis again but could not recover; probing on",
				slog.Any("error", err))
			continue
		}
		h.probing.Store(false)
		// A failure between recovery and the line above found the prober
		// still running and started none: carry on probing for it.
		if !h.down.Load() || !h.probing.CompareAndSwap(false, true) {
			return
		}
	}
}
