package sqlite_test

import (
	"context"
	"errors"
	"path/filepath"
	"sync"
	"testing"

	"chartd.dev/libs/store"
	"chartd.dev/libs/store/sqlite"
	"chartd.dev/libs/store/storetest"
)

// openStore opens a fresh database file in a temp dir, closed at cleanup.
func openStore(tb testing.TB) store.Store {
	tb.Helper()
	s, err := sqlite.Open(context.Background(), filepath.Join(tb.TempDir(), "chartd.db"))
	if err != nil {
		tb.Fatalf("open sqlite store: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("close sqlite store: %v", err)
		}
	})
	return s
}

func TestConformance(t *testing.T) {
	storetest.Run(t, func(t *testing.T) store.Store { return openStore(t) })
}

func BenchmarkStore(b *testing.B) {
	storetest.Bench(b, openStore)
}

func TestOpenRejectsUnsupportedPaths(t *testing.T) {
	for _, path := range []string{"", ":memory:", "a?b.db", "x#y.db"} {
		if s, err := sqlite.Open(context.Background(), path); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded, want an error", path)
		}
	}
	if _, err := sqlite.Open(context.Background(), filepath.Join(t.TempDir(), "missing-dir", "x.db")); err == nil {
		t.Errorf("Open in a missing directory succeeded")
	}
}

func TestReopenKeepsData(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "chartd.db")
	s, err := sqlite.Open(ctx, path)
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.CreateAccount(ctx, store.PlanPro)
	if err != nil {
		t.Fatal(err)
	}
	c, err := s.CreateChart(ctx, store.Chart{AccountID: a.ID, Name: "kept", Type: "bar", Spec: []byte(`{}`)}, 0)
	if err != nil {
		t.Fatal(err)
	}
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	s, err = sqlite.Open(ctx, path) // migrations already applied: a no-op
	if err != nil {
		t.Fatalf("reopen: %v", err)
	}
	defer s.Close()
	got, err := s.GetChart(ctx, a.ID, c.ID)
	if err != nil {
		t.Fatalf("chart lost on reopen: %v", err)
	}
	if got.UpdatedAt != c.UpdatedAt || got.Name != "kept" {
		t.Fatalf("reopened chart = %+v, want %+v", got, c)
	}
}

// TestTwoHandlesOneFile is two processes (say chartd and chartctl) on one
// file: each has its own single writer, so only BEGIN IMMEDIATE and
// busy_timeout keep concurrent writes from failing with SQLITE_BUSY or
// overshooting a limit.
func TestTwoHandlesOneFile(t *testing.T) {
	ctx := context.Background()
	path := filepath.Join(t.TempDir(), "shared.db")
	var handles [2]*sqlite.Store
	for i := range handles {
		s, err := sqlite.Open(ctx, path)
		if err != nil {
			t.Fatalf("open handle %d: %v", i, err)
		}
		defer s.Close()
		handles[i] = s
	}
	const writers, limit = 20, 7
	var wg sync.WaitGroup
	var a store.Account
	// Several rounds: a missing BEGIN IMMEDIATE shows up only when the two
	// handles' transactions overlap.
	for round := range 15 {
		var err error
		a, err = handles[0].CreateAccount(ctx, store.PlanFree)
		if err != nil {
			t.Fatal(err)
		}
		errs := make([]error, writers)
		for i := range writers {
			wg.Go(func() {
				_, errs[i] = handles[i%2].CreateChart(ctx, store.Chart{AccountID: a.ID, Name: "c", Type: "bar", Spec: []byte(`{}`)}, limit)
			})
		}
		wg.Wait()
		ok := 0
		for _, err := range errs {
			switch {
			case err == nil:
				ok++
			case !errors.Is(err, store.ErrLimit):
				t.Fatalf("round %d: create through two handles: %v", round, err)
			}
		}
		if ok != limit {
			t.Fatalf("round %d: %d creates succeeded through two handles, want %d", round, ok, limit)
		}
	}

	charts, _, err := handles[1].ListCharts(ctx, a.ID, 1, "")
	if err != nil || len(charts) != 1 {
		t.Fatalf("list: %v %v", charts, err)
	}
	token := charts[0].UpdatedAt
	wins := 0
	var mu sync.Mutex
	for i := range writers {
		wg.Go(func() {
			_, err := handles[i%2].UpdateChart(ctx, store.Chart{ID: charts[0].ID, AccountID: a.ID, Name: "w", Type: "bar", Spec: []byte(`{}`)}, &token)
			mu.Lock()
			defer mu.Unlock()
			switch {
			case err == nil:
				wins++
			case !errors.Is(err, store.ErrConflict):
				t.Errorf("update through two handles: %v", err)
			}
		})
	}
	wg.Wait()
	if wins != 1 {
		t.Fatalf("%d writers won with one token through two handles, want 1", wins)
	}
}
