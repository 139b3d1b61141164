package store

import (
	"context"
	"fmt"
	"sync"
)

// Locks serialises work per key (a chart id) inside one process, so
// concurrent edits of one chart queue in memory rather than each holding a
// database connection or losing a compare-and-set. Waiting honours ctx: a
// caller that has gone stops waiting. The zero value is ready to use.
type Locks struct {
	mu   sync.Mutex
	held map[string]*keyLock
}

// keyLock is one key's lock: a token channel of capacity one, and how many
// callers hold or wait for it (the entry goes when none do).
type keyLock struct {
	token chan struct{}
	users int
}

// Lock waits until key is free or ctx ends; unlock frees it and must be
// called exactly once after a nil error.
func (l *Locks) Lock(ctx context.Context, key string) (unlock func(), err error) {
	l.mu.Lock()
	if l.held == nil {
		l.held = map[string]*keyLock{}
	}
	k := l.held[key]
	if k == nil {
		k = &keyLock{token: make(chan struct{}, 1)}
		l.held[key] = k
	}
	k.users++
	l.mu.Unlock()
	select {
	case k.token <- struct{}{}:
		return func() {
			<-k.token
			l.release(key, k)
		}, nil
	case <-ctx.Done():
		l.release(key, k)
		return nil, fmt.Errorf("wait for %s: %w", key, ctx.Err())
	}
}

// release drops one user of key's lock, forgetting it when it was the last.
func (l *Locks) release(key string, k *keyLock) {
	l.mu.Lock()
	defer l.mu.Unlock()
	k.users--
	if k.users == 0 {
		delete(l.held, key)
	}
}
