package revoke_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"chartd.dev/libs/revoke"
	"chartd.dev/libs/testserver"
)

// testRedis is the redis-server of this package's tests; the reconnect
// test starts its own so it can kill it.
var testRedis *testserver.Redis

func TestMain(m *testing.M) {
	srv, err := testserver.StartRedis()
	if err != nil {
		fmt.Fprintln(os.Stderr, "revoke tests need redis-server:", err)
		os.Exit(1)
	}
	testRedis = srv
	code := m.Run()
	srv.Stop()
	os.Exit(code)
}

// wait is how long an event may take between processes on one machine.
const wait = 5 * time.Second

// recorder collects the events a subscriber is given.
type recorder struct {
	mu     sync.Mutex
	events []revoke.Event
	got    chan struct{}
}

func newRecorder() *recorder { return &recorder{got: make(chan struct{}, 100)} }

func (r *recorder) fn(e revoke.Event) {
	r.mu.Lock()
	r.events = append(r.events, e)
	r.mu.Unlock()
	r.got <- struct{}{}
}

func (r *recorder) seen() []revoke.Event {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]revoke.Event(nil), r.events...)
}

// waitFor waits until r has n events.
func (r *recorder) waitFor(t *testing.T, n int) []revoke.Event {
	t.Helper()
	deadline := time.After(wait)
	for len(r.seen()) < n {
		select {
		case <-r.got:
		case <-deadline:
			t.Fatalf("%d events after %s, want %d: %v", len(r.seen()), wait, n, r.seen())
		}
	}
	return r.seen()
}

// pair answers two notifiers on one medium, as two processes see it (one
// process: the same notifier twice).
type pair func(t *testing.T) (a, b revoke.Notifier)

func memoryPair(t *testing.T) (revoke.Notifier, revoke.Notifier) {
	m := revoke.NewMemory()
	return m, m
}

func newClient(t *testing.T, url string) *redis.Client {
	t.Helper()
	opt, err := redis.ParseURL(url)
	if err != nil {
		t.Fatal(err)
	}
	opt.ContextTimeoutEnabled = true
	c := redis.NewClient(opt)
	t.Cleanup(func() { c.Close() })
	return c
}

// startRedis starts a Redis notifier on its own client, running until the
// test ends.
func startRedis(t *testing.T, url, channel string) *revoke.Redis {
	t.Helper()
	n := revoke.NewRedis(t.Context(), newClient(t, url), revoke.RedisOptions{Channel: channel})
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan struct{})
	go func() { n.Run(ctx); close(done) }()
	t.Cleanup(func() { cancel(); n.Close(); <-done })
	return n
}

func redisPair(t *testing.T) (revoke.Notifier, revoke.Notifier) {
	channel := fmt.Sprintf("test:%s:%d", t.Name(), time.Now().UnixNano())
	return startRedis(t, testRedis.URL(), channel), startRedis(t, testRedis.URL(), channel)
}

// TestConformance runs the same cases on both notifiers.
func TestConformance(t *testing.T) {
	for name, p := range map[string]pair{"memory": memoryPair, "redis": redisPair} {
		t.Run(name, func(t *testing.T) { conformance(t, p) })
	}
}

func conformance(t *testing.T, newPair pair) {
	key := revoke.Event{Kind: revoke.APIKeys, ID: "acct-1"}
	kid := revoke.Event{Kind: revoke.SigningKey, ID: "kid-1"}

	t.Run("the publisher's own subscribers have it when Publish returns", func(t *testing.T) {
		a, _ := newPair(t)
		var got []revoke.Event
		cancel := a.Subscribe(func(e revoke.Event) { got = append(got, e) })
		defer cancel()
		if err := a.Publish(t.Context(), key); err != nil {
			t.Fatal(err)
		}
		if len(got) != 1 || got[0] != key {
			t.Fatalf("after Publish the publisher's subscriber has %v, want [%v]", got, key)
		}
	})

	t.Run("every subscriber of the other process gets each event once, in order", func(t *testing.T) {
		a, b := newPair(t)
		r1, r2 := newRecorder(), newRecorder()
		defer b.Subscribe(r1.fn)()
		defer b.Subscribe(r2.fn)()
		for _, e := range []revoke.Event{key, kid} {
			if err := a.Publish(t.Context(), e); err != nil {
				t.Fatal(err)
			}
		}
		for _, r := range []*recorder{r1, r2} {
			got := r.waitFor(t, 2)
			if len(got) != 2 || got[0] != key || got[1] != kid {
				t.Fatalf("subscriber got %v, want [%v %v]", got, key, kid)
			}
		}
	})

	t.Run("a cancelled subscriber hears nothing more", func(t *testing.T) {
		a, b := newPair(t)
		gone, stays := newRecorder(), newRecorder()
		cancel := b.Subscribe(gone.fn)
		defer b.Subscribe(stays.fn)()
		cancel()
		if err := a.Publish(t.Context(), kid); err != nil {
			t.Fatal(err)
		}
		// stays hearing it means gone would have by now.
		stays.waitFor(t, 1)
		if got := gone.seen(); len(got) != 0 {
			t.Fatalf("cancelled subscriber got %v", got)
		}
	})

	t.Run("a notifier does not publish resets", func(t *testing.T) {
		a, _ := newPair(t)
		if err := a.Publish(t.Context(), revoke.Event{Kind: revoke.Reset}); err == nil {
			t.Fatal("publishing a reset: no error")
		}
	})
}

// TestRedisReconnectResets: after Redis comes back, subscribers are told
// to drop everything (what was published meanwhile is lost), and events
// flow again; a Publish while Redis is away fails but reaches the
// publisher's own subscribers.
func TestRedisReconnectResets(t *testing.T) {
	srv, err := testserver.StartRedis()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	a, b := startRedis(t, srv.URL(), "c"), startRedis(t, srv.URL(), "c")
	ra, rb := newRecorder(), newRecorder()
	defer a.Subscribe(ra.fn)()
	defer b.Subscribe(rb.fn)()

	if err := srv.Kill(); err != nil {
		t.Fatal(err)
	}
	lost := revoke.Event{Kind: revoke.SigningKey, ID: "lost"}
	if err := a.Publish(t.Context(), lost); err == nil {
		t.Fatal("publish with Redis down: no error")
	}
	if got := ra.waitFor(t, 1); got[0] != lost {
		t.Fatalf("publisher's subscriber got %v, want %v", got, lost)
	}
	if err := srv.Start(); err != nil {
		t.Fatal(err)
	}
	if got := rb.waitFor(t, 1); got[0].Kind != revoke.Reset {
		t.Fatalf("after Redis came back the other process got %v, want a reset", got)
	}
	after := revoke.Event{Kind: revoke.APIKeys, ID: "after"}
	if err := a.Publish(t.Context(), after); err != nil {
		t.Fatal(err)
	}
	for _, e := range rb.waitFor(t, 2)[1:] {
		if e != after {
			t.Fatalf("after the reconnect the other process got %v, want %v", e, after)
		}
	}
}

// BenchmarkRedisDelivery measures one event from Publish in one process
// to its subscriber in another, through Redis: how long after a
// revocation other processes may still answer from their caches.
func BenchmarkRedisDelivery(b *testing.B) {
	channel := fmt.Sprintf("bench:%d", time.Now().UnixNano())
	opt, _ := redis.ParseURL(testRedis.URL())
	ca, cb := redis.NewClient(opt), redis.NewClient(opt)
	defer ca.Close()
	defer cb.Close()
	a := revoke.NewRedis(b.Context(), ca, revoke.RedisOptions{Channel: channel})
	nb := revoke.NewRedis(b.Context(), cb, revoke.RedisOptions{Channel: channel})
	defer a.Close()
	defer nb.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go a.Run(ctx)
	go nb.Run(ctx)
	got := make(chan struct{}, 1)
	defer nb.Subscribe(func(revoke.Event) { got <- struct{}{} })()
	e := revoke.Event{Kind: revoke.APIKeys, ID: "acct"}
	b.ReportAllocs()
	for b.Loop() {
		if err := a.Publish(ctx, e); err != nil {
			b.Fatal(err)
		}
		<-got
	}
}
