package signing

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/google/uuid"

	"chartd.dev/libs/secrets"
	"chartd.dev/libs/store"

	"chartd.dev/libs/testserver"
)

// clock is a settable time for TTL tests.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func newClock() *clock { return &clock{t: time.Date(2026, 11, 1, 12, 0, 0, 0, time.UTC)} }

func (c *clock) Now() time.Time { c.mu.Lock(); defer c.mu.Unlock(); return c.t }

func (c *clock) Add(d time.Duration) { c.mu.Lock(); c.t = c.t.Add(d); c.mu.Unlock() }

// fakeLookup is a counting stand-in for store.LookupSigningKey over an
// in-memory table; err, when set, is answered instead.
type fakeLookup struct {
	mu    sync.Mutex
	rows  map[string]store.SigningKey
	err   error
	calls atomic.Int64
	// gate, when set, holds every lookup until it is closed.
	gate chan struct{}
}

func (f *fakeLookup) lookup(ctx context.Context, kid string) (store.SigningKey, error) {
	f.calls.Add(1)
	if f.gate != nil {
		select {
		case <-f.gate:
		case <-ctx.Done():
			return store.SigningKey{}, ctx.Err()
		}
	}
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.err != nil {
		return store.SigningKey{}, f.err
	}
	k, ok := f.rows[kid]
	if !ok {
		return store.SigningKey{}, fmt.Errorf("look up signing key %s: %w", kid, store.ErrNotFound)
	}
	return k, nil
}

func (f *fakeLookup) put(k store.SigningKey) {
	f.mu.Lock()
	defer f.mu.Unlock()
	if f.rows == nil {
		f.rows = map[string]store.SigningKey{}
	}
	f.rows[k.ID] = k
}

func (f *fakeLookup) remove(kid string) { f.mu.Lock(); delete(f.rows, kid); f.mu.Unlock() }

// sealedKey makes a key row sealed under box, and its secret.
func sealedKey(t testing.TB, box *secrets.Box) (store.SigningKey, []byte) {
	t.Helper()
	k := store.SigningKey{ID: uuid.NewString(), AccountID: uuid.NewString()}
	secret := NewSecret()
	var err error
	if k.Secret, err = Seal(box, k.AccountID, k.ID, secret); err != nil {
		t.Fatal(err)
	}
	return k, secret
}

func TestKeysCaches(t *testing.T) {
	ctx := context.Background()
	box := newBox(t)
	live, liveSecret := sealedKey(t, box)
	foreign, _ := sealedKey(t, newBox(t)) // sealed under another server key
	legacy := store.SigningKey{ID: uuid.NewString(), AccountID: uuid.NewString(), Secret: NewSecret()}

	tests := []struct {
		name       string
		kid        string
		refuse     bool
		wantErr    error // nil: the key answers
		wantSecret []byte
	}{
		{"live key", live.ID, false, nil, liveSecret},
		{"unknown kid", uuid.NewString(), false, store.ErrNotFound, nil},
		{"sealed under another server key", foreign.ID, false, secrets.ErrOpen, nil},
		{"legacy raw secret", legacy.ID, false, nil, legacy.Secret},
		{"legacy raw secret refused", legacy.ID, true, ErrLegacy, nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			f := &fakeLookup{}
			f.put(live)
			f.put(foreign)
			f.put(legacy)
			clk := newClock()
			var legacySeen atomic.Int64
			keys := &Keys{Lookup: f.lookup, Box: box, Now: clk.Now, RefuseLegacy: tt.refuse,
				OnLegacy: func(string, string) { legacySeen.Add(1) }}
			for i := range 100 {
				acct, secret, err := keys.Secret(ctx, tt.kid)
				if tt.wantErr != nil {
					if !errors.Is(err, tt.wantErr) || secret != nil {
						t.Fatalf("call %d: Secret = %x, %v; want %v", i, secret, err, tt.wantErr)
					}
					continue
				}
				if err != nil || !bytes.Equal(secret, tt.wantSecret) || acct == "" {
					t.Fatalf("call %d: Secret = %q %x %v", i, acct, secret, err)
				}
				clk.Add(DefaultTTL / 200) // 100 calls stay inside one TTL
			}
			if n := f.calls.Load(); n != 1 {
				t.Fatalf("100 calls within the TTL made %d lookups, want 1", n)
			}
			clk.Add(DefaultTTL)
			keys.Secret(ctx, tt.kid)
			if n := f.calls.Load(); n != 2 {
				t.Fatalf("a call after the TTL made %d lookups in all, want 2", n)
			}
			if wantLegacy := int64(0); tt.kid == legacy.ID && !tt.refuse {
				wantLegacy = 2
				if legacySeen.Load() != wantLegacy {
					t.Fatalf("OnLegacy called %d times, want once per lookup (%d)", legacySeen.Load(), wantLegacy)
				}
			}
		})
	}
}

func TestKeysRevocationAfterTTL(t *testing.T) {
	ctx := context.Background()
	box := newBox(t)
	k, _ := sealedKey(t, box)
	f := &fakeLookup{}
	f.put(k)
	clk := newClock()
	keys := &Keys{Lookup: f.lookup, Box: box, Now: clk.Now, TTL: 5 * time.Second}
	if _, _, err := keys.Secret(ctx, k.ID); err != nil {
		t.Fatal(err)
	}
	f.remove(k.ID) // revoked
	clk.Add(5*time.Second - time.Nanosecond)
	if _, _, err := keys.Secret(ctx, k.ID); err != nil {
		t.Fatalf("within the TTL the cached key should still answer: %v", err)
	}
	clk.Add(time.Nanosecond)
	if _, _, err := keys.Secret(ctx, k.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("after the TTL a revoked key answers %v, want ErrNotFound", err)
	}
	// A negative answer is cached for the TTL too; Forget drops it at once.
	f.put(k)
	if _, _, err := keys.Secret(ctx, k.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("negative answer not cached: %v", err)
	}
	keys.Forget(k.ID)
	if _, _, err := keys.Secret(ctx, k.ID); err != nil {
		t.Fatalf("after Forget: %v", err)
	}
	if n := f.calls.Load(); n != 3 {
		t.Fatalf("%d lookups, want 3", n)
	}
	// ForgetAll drops every kid, live or missing.
	f.remove(k.ID)
	keys.ForgetAll()
	if _, _, err := keys.Secret(ctx, k.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("after ForgetAll a revoked key answers %v, want ErrNotFound", err)
	}
}

func TestKeysTransientErrorsNotCached(t *testing.T) {
	ctx := context.Background()
	box := newBox(t)
	k, _ := sealedKey(t, box)
	f := &fakeLookup{err: errors.New("connection refused")}
	f.put(k)
	keys := &Keys{Lookup: f.lookup, Box: box}
	for range 3 {
		if _, _, err := keys.Secret(ctx, k.ID); err == nil || errors.Is(err, store.ErrNotFound) {
			t.Fatalf("store down: %v", err)
		}
	}
	f.mu.Lock()
	f.err = nil
	f.mu.Unlock()
	if _, _, err := keys.Secret(ctx, k.ID); err != nil {
		t.Fatalf("store back: %v", err)
	}
	if n := f.calls.Load(); n != 4 {
		t.Fatalf("%d lookups, want 4 (failures are not cached)", n)
	}
}

func TestKeysSingleflight(t *testing.T) {
	ctx := context.Background()
	box := newBox(t)
	k, secret := sealedKey(t, box)
	f := &fakeLookup{gate: make(chan struct{})}
	f.put(k)
	keys := &Keys{Lookup: f.lookup, Box: box}
	const callers = 64
	var wg sync.WaitGroup
	var started sync.WaitGroup
	started.Add(callers)
	for range callers {
		wg.Go(func() {
			started.Done()
			_, got, err := keys.Secret(ctx, k.ID)
			if err != nil || !bytes.Equal(got, secret) {
				t.Errorf("Secret = %x, %v", got, err)
			}
		})
	}
	started.Wait()
	for f.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	time.Sleep(20 * time.Millisecond) // let the others queue on the lookup
	close(f.gate)
	wg.Wait()
	if n := f.calls.Load(); n != 1 {
		t.Fatalf("%d concurrent misses made %d lookups, want 1", callers, n)
	}
}

// A waiter does not inherit the failure of a leader whose request ended.
func TestKeysLeaderCancelled(t *testing.T) {
	box := newBox(t)
	k, _ := sealedKey(t, box)
	f := &fakeLookup{gate: make(chan struct{})}
	f.put(k)
	keys := &Keys{Lookup: f.lookup, Box: box}
	leaderCtx, cancel := context.WithCancel(context.Background())
	leaderDone := make(chan error)
	go func() { _, _, err := keys.Secret(leaderCtx, k.ID); leaderDone <- err }()
	for f.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	waiterDone := make(chan error)
	go func() { _, _, err := keys.Secret(context.Background(), k.ID); waiterDone <- err }()
	time.Sleep(20 * time.Millisecond) // the waiter queues on the leader's lookup
	cancel()
	if err := <-leaderDone; !errors.Is(err, context.Canceled) {
		t.Fatalf("leader: %v", err)
	}
	close(f.gate)
	if err := <-waiterDone; err != nil {
		t.Fatalf("waiter got the leader's cancellation: %v", err)
	}
	// A waiter whose own request ends stops waiting.
	f2 := &fakeLookup{gate: make(chan struct{})}
	f2.put(k)
	keys2 := &Keys{Lookup: f2.lookup, Box: box}
	go keys2.Secret(context.Background(), k.ID)
	for f2.calls.Load() == 0 {
		time.Sleep(time.Millisecond)
	}
	ctx, cancel2 := context.WithTimeout(context.Background(), 10*time.Millisecond)
	defer cancel2()
	if _, _, err := keys2.Secret(ctx, k.ID); !errors.Is(err, context.DeadlineExceeded) {
		t.Fatalf("waiter past its deadline: %v", err)
	}
	close(f2.gate)
}

func TestKeysBounded(t *testing.T) {
	ctx := context.Background()
	box := newBox(t)
	f := &fakeLookup{}
	var rows []store.SigningKey
	for range 3 {
		k, _ := sealedKey(t, box)
		f.put(k)
		rows = append(rows, k)
	}
	keys := &Keys{Lookup: f.lookup, Box: box, Size: 2}
	for _, k := range rows { // the third evicts the first
		keys.Secret(ctx, k.ID)
	}
	keys.Secret(ctx, rows[2].ID)
	keys.Secret(ctx, rows[1].ID)
	if n := f.calls.Load(); n != 3 {
		t.Fatalf("%d lookups, want 3 (two most recent kept)", n)
	}
	keys.Secret(ctx, rows[0].ID)
	if n := f.calls.Load(); n != 4 {
		t.Fatalf("%d lookups, want 4 (least recent evicted)", n)
	}
	// A flood of unknown kids does not evict the live keys.
	for range 100 {
		keys.Secret(ctx, uuid.NewString())
	}
	before := f.calls.Load()
	keys.Secret(ctx, rows[0].ID)
	keys.Secret(ctx, rows[1].ID)
	if n := f.calls.Load() - before; n != 0 {
		t.Fatalf("unknown kids evicted live keys: %d new lookups", n)
	}
}

// Through a real SQLite store: a key made by Create verifies; revoked, it
// stops verifying once the TTL has passed; a rotation's new key verifies
// at once.
func TestKeysSQLite(t *testing.T) {
	pace := testserver.MeasurePace()
	ctx := context.Background()
	st, box := openSQLite(t), newBox(t)
	a, _ := st.CreateAccount(ctx, store.PlanPro)
	k, secret, err := Create(ctx, st, box, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	var lookups atomic.Int64
	clk := newClock()
	keys := &Keys{
		Lookup: func(ctx context.Context, kid string) (store.SigningKey, error) {
			lookups.Add(1)
			return st.LookupSigningKey(ctx, kid)
		},
		Box: box, Now: clk.Now, TTL: 30 * time.Second,
	}
	acct, got, err := keys.Secret(ctx, k.ID)
	if err != nil || acct != a.ID || !bytes.Equal(got, secret) {
		t.Fatalf("Secret = %q %x %v", acct, got, err)
	}
	// Rotate: a new key, the old one revoked.
	k2, secret2, err := Create(ctx, st, box, a.ID)
	if err != nil {
		t.Fatal(err)
	}
	if err := st.RevokeSigningKey(ctx, a.ID, k.ID); err != nil {
		t.Fatal(err)
	}
	if _, got, err := keys.Secret(ctx, k2.ID); err != nil || !bytes.Equal(got, secret2) {
		t.Fatalf("new key: %x %v", got, err)
	}
	clk.Add(29 * time.Second)
	if _, _, err := keys.Secret(ctx, k.ID); err != nil {
		t.Fatalf("revoked key within the TTL: %v (the cache should still answer)", err)
	}
	clk.Add(time.Second)
	if _, _, err := keys.Secret(ctx, k.ID); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("revoked key after the TTL: %v, want ErrNotFound", err)
	}
	if n := lookups.Load(); n != 3 {
		t.Fatalf("%d store reads, want 3", n)
	}

	// The same with the real clock and a short TTL.
	k3, _, _ := Create(ctx, st, box, a.ID)
	real := &Keys{Lookup: st.LookupSigningKey, Box: box, TTL: 100 * time.Millisecond}
	if _, _, err := real.Secret(ctx, k3.ID); err != nil {
		t.Fatal(err)
	}
	revoked := time.Now()
	st.RevokeSigningKey(ctx, a.ID, k3.ID)
	for {
		_, _, err := real.Secret(ctx, k3.ID)
		if errors.Is(err, store.ErrNotFound) {
			break
		}
		if time.Since(revoked) > pace.Scale(time.Second) {
			t.Fatalf("revocation did not take effect within %v with a 100 ms TTL", pace.Scale(time.Second))
		}
		time.Sleep(5 * time.Millisecond)
	}
	if d := time.Since(revoked); pace.Over(d, 300*time.Millisecond) {
		t.Fatalf("revocation took %v with a 100 ms TTL at %v", d, pace)
	}
}

func TestKeysConcurrent(t *testing.T) {
	ctx := context.Background()
	box := newBox(t)
	f := &fakeLookup{}
	var kids []string
	for range 8 {
		k, _ := sealedKey(t, box)
		f.put(k)
		kids = append(kids, k.ID)
	}
	clk := newClock()
	keys := &Keys{Lookup: f.lookup, Box: box, Size: 4, Now: clk.Now, TTL: time.Second}
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			for i := range 2000 {
				kid := kids[(g+i)%len(kids)]
				if i%7 == 0 {
					kid = uuid.NewString()
				}
				if i%500 == 0 {
					clk.Add(time.Second)
					keys.Forget(kids[i%len(kids)])
				}
				_, _, err := keys.Secret(ctx, kid)
				if err != nil && !errors.Is(err, store.ErrNotFound) {
					t.Error(err)
					return
				}
			}
		})
	}
	wg.Wait()
}

func BenchmarkKeysHit(b *testing.B) {
	ctx := context.Background()
	box := newBox(b)
	k, _ := sealedKey(b, box)
	f := &fakeLookup{}
	f.put(k)
	keys := &Keys{Lookup: f.lookup, Box: box}
	keys.Secret(ctx, k.ID)
	b.ReportAllocs()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, _, err := keys.Secret(ctx, k.ID); err != nil {
				b.Fatal(err)
			}
		}
	})
}
