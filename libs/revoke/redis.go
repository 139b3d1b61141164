package revoke

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"time"

	"github.com/redis/go-redis/v9"
)

// DefaultChannel is the Redis channel the events go through.
const DefaultChannel = "chartd:revoke"

// publishTimeout bounds a Publish whose context has no deadline: a frozen
// Redis must not hold a revocation page (the store has the revocation
// already; the TTL covers the rest).
const publishTimeout = 2 * time.Second

// RedisOptions are the optional settings of NewRedis.
type RedisOptions struct {
	// Channel is the pub/sub channel; DefaultChannel when empty.
	Channel string
	// Log receives subscription losses; slog.Default when nil.
	Log *slog.Logger
	// Confirm bounds how long NewRedis waits for Redis to confirm the
	// subscription (1 s when 0); Redis away at start is not an error.
	Confirm time.Duration
}

// Redis is the notifier of processes sharing a Redis: events go through
// one pub/sub channel. NewRedis subscribes; Run delivers what arrives to
// the subscribers until its context ends. When the subscription breaks
// and comes back, subscribers get a Reset event, since what was published
// meanwhile is lost.
type Redis struct {
	rdb     *redis.Client
	channel string
	log     *slog.Logger
	// self marks this process's messages, which it delivered already.
	self string
	ps   *redis.PubSub
	// confirmed: the first subscription was confirmed, so the next one
	// is a resubscription after a break.
	confirmed bool
	subs      subscribers
}

// message is an event on the wire.
type message struct {
	Event
	From string `json:"from"`
}

// NewRedis subscribes to the events on rdb, waiting up to opts.Confirm for
// Redis to confirm, so events published once it returns reach this
// process. Call Run to deliver them and Close to unsubscribe.
func NewRedis(ctx context.Context, rdb *redis.Client, opts RedisOptions) *Redis {
	if opts.Channel == "" {
		opts.Channel = DefaultChannel
	}
	if opts.Log == nil {
		opts.Log = slog.Default()
	}
	if opts.Confirm <= 0 {
		opts.Confirm = time.Second
	}
	var b [8]byte
	rand.Read(b[:])
	r := &Redis{rdb: rdb, channel: opts.Channel, log: opts.Log, self: hex.EncodeToString(b[:])}
	r.ps = rdb.Subscribe(ctx, r.channel)
	msg, err := r.ps.ReceiveTimeout(ctx, opts.Confirm)
	if _, ok := msg.(*redis.Subscription); ok && err == nil {
		r.confirmed = true
	} else {
		r.log.WarnContext(ctx, "revocations: no Redis subscription yet; caches fall back to their TTL until it is back",
			"channel", r.channel, "err", fmt.Sprint(err))
	}
	return r
}

// Run delivers the events from other processes until ctx ends.
func (r *Redis) Run(ctx context.Context) error {
	ch := r.ps.ChannelWithSubscriptions()
	for {
		select {
		case <-ctx.Done():
			return nil
		case m, ok := <-ch:
			if !ok {
				return nil
			}
			r.handle(ctx, m)
		}
	}
}

func (r *Redis) handle(ctx context.Context, m any) {
	switch m := m.(type) {
	case *redis.Subscription:
		if m.Kind != "subscribe" {
			return
		}
		if r.confirmed {
			r.log.InfoContext(ctx, "revocations: Redis subscription back; caches dropped", "channel", r.channel)
			r.subs.deliver(Event{Kind: Reset})
		}
		r.confirmed = true
	case *redis.Message:
		var msg message
		if err := json.Unmarshal([]byte(m.Payload), &msg); err != nil {
			r.log.WarnContext(ctx, "revocations: unreadable message; caches dropped", "err", err.Error())
			r.subs.deliver(Event{Kind: Reset})
			return
		}
		if msg.From == r.self {
			return
		}
		r.subs.deliver(msg.Event)
	}
}

// Close unsubscribes; Run then returns.
func (r *Redis) Close() error { return r.ps.Close() }

// Publish delivers e to this process's subscribers, then publishes it to
// the others.
func (r *Redis) Publish(ctx context.Context, e Event) error {
	if e.Kind == Reset {
		return errReset
	}
	r.subs.deliver(e)
	payload, err := json.Marshal(message{Event: e, From: r.self})
	if err != nil {
		return fmt.Errorf("publish %s %s: %w", e.Kind, e.ID, err)
	}
	if _, ok := ctx.Deadline(); !ok {
		var cancel context.CancelFunc
		ctx, cancel = context.WithTimeout(ctx, publishTimeout)
		defer cancel()
	}
	if err := r.rdb.Publish(ctx, r.channel, payload).Err(); err != nil {
		return fmt.Errorf("publish %s %s to redis: %w", e.Kind, e.ID, err)
	}
	return nil
}

// Subscribe adds fn until cancel.
func (r *Redis) Subscribe(fn func(Event)) func() { return r.subs.add(fn) }
