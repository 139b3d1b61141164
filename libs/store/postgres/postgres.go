// Package postgres is the cluster store.Store on PostgreSQL (pgx/v5 pgxpool).
//
// Atomicity comes from the database, not from the process, so any number of
// replicas can share one database: chart updates are a single conditional
// UPDATE (row lock plus re-check of the token under READ COMMITTED), chart
// edits hold the row (SELECT ... FOR UPDATE) from their read to their write, and
// limited creates lock the account row (SELECT ... FOR UPDATE) before
// counting. Migrations hold a PostgreSQL advisory lock, so replicas starting
// together migrate once.
package postgres

import (
	"context"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/jackc/pgx/v5/pgconn"
	"github.com/jackc/pgx/v5/pgxpool"
	"github.com/jackc/pgx/v5/stdlib"
	"github.com/pressly/goose/v3"
	"github.com/pressly/goose/v3/lock"

	"chartd.dev/libs/store"
)

//go:embed migrations/*.sql
var migrations embed.FS

var _ store.Store = (*Store)(nil)

// Store is a store.Store on a PostgreSQL database. It is safe for
// concurrent use.
type Store struct {
	pool *pgxpool.Pool
	// edits queues this process's EditChart calls per chart, so writers of
	// one chart wait in memory, not each on a connection held in the pool.
	edits store.Locks
}

// Open connects to the database at url (a postgres:// URL or DSN; pool
// settings such as pool_max_conns go in it) and brings the schema up to
// date.
func Open(ctx context.Context, url string) (*Store, error) {
	cfg, err := pgxpool.ParseConfig(url)
	if err != nil {
		return nil, fmt.Errorf("open postgres store: parse url: %w", err)
	}
	pool, err := pgxpool.NewWithConfig(ctx, cfg)
	if err != nil {
		return nil, fmt.Errorf("open postgres store: %w", err)
	}
	if err := pool.Ping(ctx); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open postgres store: %w", err)
	}
	if err := migrate(ctx, pool); err != nil {
		pool.Close()
		return nil, fmt.Errorf("open postgres store: %w", err)
	}
	return &Store{pool: pool}, nil
}

// migrate applies the embedded migrations with goose's Provider API, under
// a session advisory lock.
func migrate(ctx context.Context, pool *pgxpool.Pool) error {
	dir, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	locker, err := lock.NewPostgresSessionLocker()
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	db := stdlib.OpenDBFromPool(pool) // closing db leaves the pool open
	defer db.Close()
	p, err := goose.NewProvider(goose.DialectPostgres, db, dir,
		goose.WithDisableGlobalRegistry(true),
		goose.WithSessionLocker(locker),
		goose.WithSlog(slog.New(slog.DiscardHandler)))
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate: %w", err)
	}
	return nil
}

// Ping checks the database answers.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.pool.Ping(ctx); err != nil {
		return fmt.Errorf("ping postgres: %w", err)
	}
	return nil
}

// Close closes the pool, waiting for connections in use to be returned.
func (s *Store) Close() error {
	s.pool.Close()
	return nil
}

// PostgreSQL error codes this package tells apart.
const (
	codeUniqueViolation     = "23505"
	codeForeignKeyViolation = "23503"
	// codeDiskFull is disk_full: PostgreSQL could not extend a file.
	codeDiskFull = "53100"
)

// full wraps PostgreSQL's disk_full in store.ErrStorageFull, so the API
// answers it as the service's storage being full (libs/apierr).
func full(err error) error {
	if pgCode(err) == codeDiskFull && !errors.Is(err, store.ErrStorageFull) {
		return store.FullError(err)
	}
	return err
}

func pgCode(err error) string {
	var e *pgconn.PgError
	if errors.As(err, &e) {
		return e.Code
	}
	return ""
}

// notFound maps pgx.ErrNoRows to store.ErrNotFound, leaving other errors.
func notFound(err error) error {
	if errors.Is(err, pgx.ErrNoRows) {
		return store.ErrNotFound
	}
	return err
}

// mustAffect turns "no row changed" into store.ErrNotFound.
func mustAffect(tag pgconn.CommandTag) error {
	if tag.RowsAffected() == 0 {
		return store.ErrNotFound
	}
	return nil
}

// nonNil keeps NOT NULL bytea columns from being bound as NULL.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// optMicro normalises an optional timestamp read from the database.
func optMicro(t *time.Time) *time.Time {
	if t == nil {
		return nil
	}
	m := store.Micro(*t)
	return &m
}
