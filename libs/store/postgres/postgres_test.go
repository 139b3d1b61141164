package postgres_test

import (
	"context"
	"fmt"
	"os"
	"sync"
	"sync/atomic"
	"testing"

	"github.com/jackc/pgx/v5"

	"chartd.dev/libs/store"
	"chartd.dev/libs/store/postgres"
	"chartd.dev/libs/store/storetest"
	"chartd.dev/libs/testserver"
)

// server is the one PostgreSQL this test binary starts in TestMain; each
// test gets its own database on it.
var server struct {
	pg  *testserver.Postgres
	dbs atomic.Int64
}

func TestMain(m *testing.M) {
	pg, err := testserver.StartPostgres()
	if err != nil {
		// A missing server is a failure, never a skip.
		fmt.Fprintf(os.Stderr, "start postgres: %v\n", err)
		os.Exit(1)
	}
	server.pg = pg
	code := m.Run()
	if err := pg.Stop(); err != nil {
		fmt.Fprintf(os.Stderr, "stop postgres: %v\n", err)
		if code == 0 {
			code = 1
		}
	}
	os.Exit(code)
}

// openStore opens a store on a fresh database, closed at cleanup.
func openStore(tb testing.TB) store.Store {
	tb.Helper()
	url, err := server.pg.CreateDatabase(fmt.Sprintf("store_%d", server.dbs.Add(1)))
	if err != nil {
		tb.Fatalf("create database: %v", err)
	}
	s, err := postgres.Open(context.Background(), url)
	if err != nil {
		tb.Fatalf("open postgres store: %v", err)
	}
	tb.Cleanup(func() {
		if err := s.Close(); err != nil {
			tb.Errorf("close postgres store: %v", err)
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

// TestReplicasOpenTogether starts several replicas on one empty database
// at once: the advisory lock must let exactly one migrate and the others
// find the schema in place.
func TestReplicasOpenTogether(t *testing.T) {
	ctx := context.Background()
	url, err := server.pg.CreateDatabase(fmt.Sprintf("store_%d", server.dbs.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	const replicas = 4
	stores := make([]*postgres.Store, replicas)
	errs := make([]error, replicas)
	var wg sync.WaitGroup
	for i := range replicas {
		wg.Go(func() { stores[i], errs[i] = postgres.Open(ctx, url) })
	}
	wg.Wait()
	for i, err := range errs {
		if err != nil {
			t.Fatalf("replica %d: %v", i, err)
		}
		defer stores[i].Close()
	}
	a, err := stores[0].CreateAccount(ctx, store.PlanFree)
	if err != nil {
		t.Fatal(err)
	}
	got, err := stores[replicas-1].GetAccount(ctx, a.ID)
	if err != nil || got != a {
		t.Fatalf("replica %d sees %+v, %v; want %+v", replicas-1, got, err, a)
	}
}

func TestOpenBadURL(t *testing.T) {
	for _, url := range []string{"not a url ::", server.pg.URL("no_such_database")} {
		if s, err := postgres.Open(context.Background(), url); err == nil {
			s.Close()
			t.Errorf("Open(%q) succeeded, want an error", url)
		}
	}
}

// TestDataLinkBytes measures what a data link adds to the link tables
// (row, index entries, the design shared): at most 400 bytes (measured 339
// on 2026-11-28, 305 before links kept their kid; docs/decisions/quotas.md).
func TestDataLinkBytes(t *testing.T) {
	ctx := context.Background()
	url, err := server.pg.CreateDatabase(fmt.Sprintf("store_%d", server.dbs.Add(1)))
	if err != nil {
		t.Fatal(err)
	}
	s, err := postgres.Open(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer s.Close()
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close(ctx)
	size := func() int64 {
		var n int64
		if err := conn.QueryRow(ctx, `SELECT pg_total_relation_size('link_designs') + pg_total_relation_size('link_design_bodies')`).Scan(&n); err != nil {
			t.Fatal(err)
		}
		return n
	}
	per := storetest.DataLinkBytes(t, s, 5000, size)
	t.Logf("%.0f bytes a data link", per)
	if per > 400 {
		t.Fatalf("a data link takes %.0f bytes of the link tables, want at most 400", per)
	}
}
