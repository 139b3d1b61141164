package signing

import (
	"context"
	"errors"
	"fmt"
	"sync"
	"time"

	"github.com/hashicorp/golang-lru/v2/simplelru"

	"chartd.dev/libs/secrets"
	"chartd.dev/libs/store"
)

// Defaults of Keys.
const (
	// DefaultTTL is how long an answer is kept: a revoked or rotated key
	// stops verifying within this time on every replica.
	DefaultTTL = 30 * time.Second
	// DefaultSize is how many kids each of the positive and negative
	// caches holds.
	DefaultSize = 10_000
)

// Keys answers the live signing keys by kid for verifying image links,
// opening each with the server key and caching the answer, so a request
// needs no store read. Positive answers (a live key) and negative ones
// (unknown or revoked kid, a secret that does not open) are both kept for
// TTL, in two least-recently-used caches of Size kids each, so a flood of
// made-up kids cannot evict the live keys. Concurrent misses of one kid
// share one lookup. Transient failures (the store unreachable, a cancelled
// request) are not cached.
//
// Set the fields, then use Keys from any number of goroutines; the fields
// must not change after the first call.
type Keys struct {
	// Lookup finds a live key by kid; missing or revoked wraps
	// store.ErrNotFound. Normally a store's LookupSigningKey.
	Lookup func(ctx context.Context, kid string) (store.SigningKey, error)
	// Box opens the stored secrets (the server key).
	Box *secrets.Box
	// TTL bounds how long an answer is reused; 0 means DefaultTTL.
	TTL time.Duration
	// Size bounds each cache in kids; 0 means DefaultSize.
	Size int
	// RefuseLegacy makes raw secrets from before sealing fail (wrapping
	// ErrLegacy) instead of verifying: once `chartctl secrets migrate` has
	// run, nobody able to write to the database can plant a usable key.
	RefuseLegacy bool
	// OnLegacy, when set, is called when a raw secret is read from the
	// store (at most once per kid and TTL), e.g. to log that migration is
	// due.
	OnLegacy func(accountID, kid string)
	// Now is the clock; nil means time.Now.
	Now func() time.Time

	once     sync.Once
	mu       sync.Mutex
	live     *simplelru.LRU[string, entry]
	missing  *simplelru.LRU[string, entry]
	inflight map[string]*call
	gen      uint64 // bumped by Forget: lookups begun before it are not cached
}

type entry struct {
	accountID string
	secret    []byte
	err       error
	expires   time.Time
}

// call is one lookup in flight; waiters read res after done is closed.
type call struct {
	done chan struct{}
	res  entry
	// retry: the lookup failed only because its caller's request ended;
	// waiters with a live request look the kid up again.
	retry bool
}

func (k *Keys) init() {
	size := k.Size
	if size <= 0 {
		size = DefaultSize
	}
	k.live, _ = simplelru.NewLRU[string, entry](size, nil)
	k.missing, _ = simplelru.NewLRU[string, entry](size, nil)
	k.inflight = map[string]*call{}
}

func (k *Keys) now() time.Time {
	if k.Now != nil {
		return k.Now()
	}
	return time.Now()
}

func (k *Keys) ttl() time.Duration {
	if k.TTL > 0 {
		return k.TTL
	}
	return DefaultTTL
}

// Secret answers the account and secret of the live signing key kid. An
// unknown or revoked kid wraps store.ErrNotFound; a secret that does not
// open wraps secrets.ErrOpen (or ErrLegacy). The secret is shared: callers
// must not modify it.
func (k *Keys) Secret(ctx context.Context, kid string) (accountID string, secret []byte, err error) {
	k.once.Do(k.init)
	for {
		k.mu.Lock()
		now := k.now()
		if e, ok := k.cached(kid, now); ok {
			k.mu.Unlock()
			return e.accountID, e.secret, e.err
		}
		if c, ok := k.inflight[kid]; ok {
			k.mu.Unlock()
			select {
			case <-c.done:
			case <-ctx.Done():
				return "", nil, ctx.Err()
			}
			if c.retry && ctx.Err() == nil {
				continue
			}
			return c.res.accountID, c.res.secret, c.res.err
		}
		c := &call{done: make(chan struct{})}
		k.inflight[kid] = c
		gen := k.gen
		k.mu.Unlock()
		k.lead(ctx, kid, c, gen)
		return c.res.accountID, c.res.secret, c.res.err
	}
}

// lead runs the lookup of c for everyone waiting on it, caches what holds
// for TTL, and releases the waiters even if the lookup panics.
func (k *Keys) lead(ctx context.Context, kid string, c *call, gen uint64) {
	c.res.err, c.retry = errors.New("signing: key lookup panicked"), false
	defer func() {
		k.mu.Lock()
		if k.inflight[kid] == c {
			delete(k.inflight, kid)
		}
		k.mu.Unlock()
		close(c.done)
	}()
	c.res, c.retry = k.load(ctx, kid)
	if c.retry || !cacheable(c.res.err) {
		return
	}
	k.mu.Lock()
	defer k.mu.Unlock()
	if gen != k.gen {
		return // Forget ran meanwhile: the answer may predate the change
	}
	c.res.expires = k.now().Add(k.ttl())
	if c.res.err == nil {
		k.live.Add(kid, c.res)
		k.missing.Remove(kid)
	} else {
		k.missing.Add(kid, c.res)
		k.live.Remove(kid)
	}
}

// cached answers a fresh entry for kid; k.mu is held.
func (k *Keys) cached(kid string, now time.Time) (entry, bool) {
	for _, c := range []*simplelru.LRU[string, entry]{k.live, k.missing} {
		if e, ok := c.Get(kid); ok {
			if now.Before(e.expires) {
				return e, true
			}
			c.Remove(kid)
		}
	}
	return entry{}, false
}

// load looks kid up and opens its secret. retry reports a failure caused
// only by ctx ending.
func (k *Keys) load(ctx context.Context, kid string) (e entry, retry bool) {
	sk, err := k.Lookup(ctx, kid)
	if err != nil {
		return entry{err: err}, ctx.Err() != nil
	}
	secret, legacy, err := Open(k.Box, sk)
	if err != nil {
		return entry{err: err}, false
	}
	if legacy {
		if k.RefuseLegacy {
			return entry{err: fmt.Errorf("signing key %s: %w", kid, ErrLegacy)}, false
		}
		if k.OnLegacy != nil {
			k.OnLegacy(sk.AccountID, sk.ID)
		}
	}
	return entry{accountID: sk.AccountID, secret: secret}, false
}

// cacheable reports whether an answer holds for TTL: a key, a missing or
// revoked one, or a secret that cannot be opened; not a failure to ask.
func cacheable(err error) bool {
	return err == nil || errors.Is(err, store.ErrNotFound) ||
		errors.Is(err, secrets.ErrOpen) || errors.Is(err, ErrLegacy)
}

// Forget drops what is cached for kid, e.g. right after this process
// revoked it.
func (k *Keys) Forget(kid string) {
	k.once.Do(k.init)
	k.mu.Lock()
	k.live.Remove(kid)
	k.missing.Remove(kid)
	delete(k.inflight, kid) // a lookup under way may predate the change
	k.gen++
	k.mu.Unlock()
}

// ForgetAll drops everything cached, e.g. when revocations may have been
// missed.
func (k *Keys) ForgetAll() {
	k.once.Do(k.init)
	k.mu.Lock()
	k.live.Purge()
	k.missing.Purge()
	clear(k.inflight)
	k.gen++
	k.mu.Unlock()
}
