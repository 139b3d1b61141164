// Package revoke carries revocations between chartd's processes, so the
// caches that spare the store a read per request (the gateway's API keys,
// the render service's signing keys) drop what no longer holds at once
// instead of when their TTL runs out. Between processes the events go
// through Redis pub/sub (Redis); in one process they are plain calls
// (Memory). A message Redis loses is covered by the caches' TTL, and a
// subscriber that had to reconnect is told to drop everything (Reset).
package revoke

import (
	"context"
	"errors"
	"maps"
	"slices"
	"sync"
)

// Kind is what an event revokes.
type Kind string

// The kinds of events.
const (
	// APIKeys: one of the account (Event.ID) API keys was revoked, or
	// what its keys stand for changed; drop every cached key of it.
	APIKeys Kind = "api-keys"
	// SigningKey: the signing key Event.ID (a kid) was revoked or rotated
	// away; drop it.
	SigningKey Kind = "signing-key"
	// Reset: events may have been lost (the subscription was broken and
	// is back); drop everything cached. Only notifiers send it.
	Reset Kind = "reset"
)

// Event says that something a cache may hold stopped holding.
type Event struct {
	Kind Kind   `json:"kind"`
	ID   string `json:"id,omitempty"`
}

// Notifier delivers events to every subscriber in every process that
// shares it.
type Notifier interface {
	// Publish delivers e: to this process's subscribers before it
	// returns, to other processes' as soon as the medium carries it. An
	// error means other processes may not hear of e (their caches' TTL
	// then bounds the delay); this process's subscribers have.
	Publish(ctx context.Context, e Event) error
	// Subscribe calls fn for every event published from now on, from any
	// goroutine, until cancel is called. fn must be quick and must not
	// publish.
	Subscribe(fn func(Event)) (cancel func())
}

// errReset refuses a Reset given to Publish.
var errReset = errors.New("publish: a reset is sent by notifiers only")

// subscribers is the local fan-out both notifiers share.
type subscribers struct {
	mu   sync.RWMutex
	next int
	fns  map[int]func(Event)
}

func (s *subscribers) add(fn func(Event)) func() {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.fns == nil {
		s.fns = map[int]func(Event){}
	}
	id := s.next
	s.next++
	s.fns[id] = fn
	return func() {
		s.mu.Lock()
		delete(s.fns, id)
		s.mu.Unlock()
	}
}

func (s *subscribers) deliver(e Event) {
	s.mu.RLock()
	fns := make([]func(Event), 0, len(s.fns))
	for _, id := range slices.Sorted(maps.Keys(s.fns)) {
		fns = append(fns, s.fns[id])
	}
	s.mu.RUnlock()
	for _, fn := range fns {
		fn(e)
	}
}

// Memory is the notifier of a single process (the embedded mode): Publish
// calls every subscriber before it returns.
type Memory struct{ subs subscribers }

// NewMemory answers an in-process notifier.
func NewMemory() *Memory { return &Memory{} }

// Publish calls every subscriber with e.
func (m *Memory) Publish(_ context.Context, e Event) error {
	if e.Kind == Reset {
		return errReset
	}
	m.subs.deliver(e)
	return nil
}

// Subscribe adds fn until cancel.
func (m *Memory) Subscribe(fn func(Event)) func() { return m.subs.add(fn) }
