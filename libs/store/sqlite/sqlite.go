// Package sqlite is the embedded store.Store for the one-machine setup: one
// SQLite file (modernc.org/sqlite, pure Go) in WAL mode.
//
// SQLite allows one writer at a time. Rather than let concurrent writers
// collide and fail with SQLITE_BUSY, every write goes through a pool of
// exactly one connection whose transactions start with BEGIN IMMEDIATE
// (so a read-then-write transaction never has to upgrade its lock); reads
// use a separate pool of read-only connections that WAL lets run alongside
// the writer. busy_timeout covers other processes (chartctl) writing the
// same file.
package sqlite

import (
	"context"
	"database/sql"
	"embed"
	"errors"
	"fmt"
	"io/fs"
	"log/slog"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"time"

	"github.com/pressly/goose/v3"
	sqlite "modernc.org/sqlite"
	sqlite3 "modernc.org/sqlite/lib"

	"chartd.dev/libs/store"
)

//go:embed migrations/*.sql
var migrations embed.FS

var _ store.Store = (*Store)(nil)

// Store is a store.Store on one SQLite file. It is safe for concurrent use.
type Store struct {
	write *sql.DB // exactly one connection: SQLite has one writer
	read  *sql.DB // query_only connections, concurrent under WAL

	// Prepared once for the per-request hot paths; database/sql prepares
	// them lazily on each read connection and keeps them.
	lookupAPIKey     *sql.Stmt
	getChart         *sql.Stmt
	getChartWithData *sql.Stmt

	// edits serialises EditChart per chart in this process (see there).
	edits store.Locks

	// space is the full state and the reserve that lets deletes through
	// on a full disk (full.go).
	space space
}

// Options tune Open.
type Options struct {
	// ReserveBytes is the size of the reserve file kept beside the
	// database for deletes on a full disk (and the deletes' own reserve,
	// as large up to 1 MiB); 0 means DefaultReserveBytes, negative
	// keeps neither.
	ReserveBytes int64
}

// busyTimeoutMillis is how long a connection waits for another process's
// lock before failing with SQLITE_BUSY.
const busyTimeoutMillis = 10000

// dsn builds the driver's connection string for path with the pragmas every
// connection needs; extra adds per-pool settings.
func dsn(path string, extra ...string) string {
	q := url.Values{}
	// Incremental auto-vacuum lets a delete give pages back to the file
	// system (reclaim), which a full disk needs; it takes effect on a file
	// that has no tables yet, so it comes before anything else.
	q.Add("_pragma", "auto_vacuum(INCREMENTAL)")
	q.Add("_pragma", fmt.Sprintf("busy_timeout(%d)", busyTimeoutMillis))
	q.Add("_pragma", "journal_mode(WAL)")
	// Checkpoint at 1 MiB of WAL instead of 4: what the WAL holds and the
	// database file does not yet is what a checkpoint needs room for on a
	// full disk, and the reserve must cover it (full.go).
	q.Add("_pragma", fmt.Sprintf("wal_autocheckpoint(%d)", walAutocheckpointPages))
	// A WAL a big transaction grew is cut back when it restarts, so the
	// space deletes give back is not kept by the WAL.
	q.Add("_pragma", fmt.Sprintf("journal_size_limit(%d)", walAutocheckpointPages*4096))
	q.Add("_pragma", "foreign_keys(1)")
	q.Add("_pragma", "synchronous(NORMAL)")
	// Reading pages through mmap instead of pread halved hot-path reads here.
	q.Add("_pragma", "mmap_size(268435456)")
	for i := 0; i+1 < len(extra); i += 2 {
		q.Add(extra[i], extra[i+1])
	}
	return path + "?" + q.Encode()
}

// Open opens (creating if needed) the database file at path and brings its
// schema up to date, with the default Options. path must be a file:
// ":memory:" would give each connection its own database.
func Open(ctx context.Context, path string) (*Store, error) {
	return OpenWith(ctx, path, Options{})
}

// OpenWith is Open with options.
func OpenWith(ctx context.Context, path string, o Options) (*Store, error) {
	if path == "" || path == ":memory:" || strings.ContainsAny(path, "?#") {
		return nil, fmt.Errorf("open sqlite store: unsupported path %q", path)
	}
	if err := private(path); err != nil {
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	s := &Store{}
	if o.ReserveBytes == 0 {
		o.ReserveBytes = DefaultReserveBytes
	}
	if err := s.openSpace(path, o.ReserveBytes); err != nil {
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	write, err := sql.Open("sqlite", dsn(path, "_txlock", "immediate"))
	if err != nil {
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	write.SetMaxOpenConns(1)
	write.SetMaxIdleConns(1)
	write.SetConnMaxLifetime(0)
	write.SetConnMaxIdleTime(0)

	// Migrate before the read pool opens, so WAL mode is set on the file
	// (journal_mode is persistent) before anyone reads.
	if err := migrate(ctx, write); err != nil {
		write.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}

	read, err := sql.Open("sqlite", dsn(path, "_pragma", "query_only(1)"))
	if err != nil {
		write.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	readers := max(4, runtime.GOMAXPROCS(0))
	read.SetMaxOpenConns(readers)
	read.SetMaxIdleConns(readers)
	read.SetConnMaxIdleTime(5 * time.Minute)
	s.write, s.read = write, read
	if err := s.prepare(ctx); err != nil {
		s.Close()
		return nil, fmt.Errorf("open sqlite store %s: %w", path, err)
	}
	return s, nil
}

// Modes of the database's directory and files: the owner's alone, like
// the server key file (libs/secrets), since they hold API key hashes,
// signing secrets and every chart's data.
const (
	dirMode  os.FileMode = 0o700
	fileMode os.FileMode = 0o600
)

// private makes the database at path readable by its owner alone before
// SQLite opens it: the directory, which must exist, loses group and other
// access; the file is created (empty, which SQLite takes as a new
// database) or narrowed to fileMode, as are a WAL, shared-memory or
// journal file left by an earlier run. SQLite creates those next to the
// database with the database file's mode, so they stay private too.
func private(path string) error {
	dir := filepath.Dir(path)
	st, err := os.Stat(dir)
	if err != nil {
		return fmt.Errorf("database directory: %w", err)
	}
	if st.Mode().Perm()&^dirMode != 0 {
		if err := os.Chmod(dir, st.Mode().Perm()&dirMode); err != nil {
			return fmt.Errorf("database directory: %w", err)
		}
	}
	f, err := os.OpenFile(path, os.O_RDWR|os.O_CREATE, fileMode)
	if err != nil {
		return fmt.Errorf("database file: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("database file: %w", err)
	}
	for _, p := range []string{path, path + "-wal", path + "-shm", path + "-journal"} {
		if err := os.Chmod(p, fileMode); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return fmt.Errorf("database file: %w", err)
		}
	}
	return nil
}

// prepare readies the hot-path statements on the read pool.
func (s *Store) prepare(ctx context.Context) error {
	var err error
	if s.lookupAPIKey, err = s.read.PrepareContext(ctx, lookupAPIKeyQuery); err != nil {
		return fmt.Errorf("prepare api key lookup: %w", err)
	}
	if s.getChart, err = s.read.PrepareContext(ctx, getChartQuery); err != nil {
		return fmt.Errorf("prepare chart load: %w", err)
	}
	if s.getChartWithData, err = s.read.PrepareContext(ctx, getChartWithDataQuery); err != nil {
		return fmt.Errorf("prepare chart and data load: %w", err)
	}
	return nil
}

// migrate applies the embedded migrations with goose's Provider API. A
// schema that is current is left alone: the check reads only (an Up with
// nothing to do still writes), so a store whose disk is full still opens.
// A pending migration on a full disk fails as storage full.
func migrate(ctx context.Context, db *sql.DB) error {
	dir, err := fs.Sub(migrations, "migrations")
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	p, err := goose.NewProvider(goose.DialectSQLite3, db, dir,
		goose.WithDisableGlobalRegistry(true),
		goose.WithSlog(slog.New(slog.DiscardHandler)))
	if err != nil {
		return fmt.Errorf("migrations: %w", err)
	}
	pending, err := p.HasPending(ctx)
	if err != nil {
		return fmt.Errorf("migrations pending: %w", fullCause(err))
	}
	if !pending {
		return nil
	}
	if _, err := p.Up(ctx); err != nil {
		return fmt.Errorf("migrate: %w", fullCause(err))
	}
	return nil
}

// Ping checks both pools answer and the store is not full: a full store
// serves reads and deletes but no other writes, so it answers an error
// wrapping store.ErrStorageFull until the reserve can be made again.
func (s *Store) Ping(ctx context.Context) error {
	if err := s.recover(true); err != nil {
		return fmt.Errorf("sqlite store: %w", err)
	}
	if err := s.write.PingContext(ctx); err != nil {
		return fmt.Errorf("ping sqlite writer: %w", err)
	}
	if err := s.read.PingContext(ctx); err != nil {
		return fmt.Errorf("ping sqlite reader: %w", err)
	}
	return nil
}

// Close closes the prepared statements and both pools.
func (s *Store) Close() error {
	var errs []error
	for _, st := range []*sql.Stmt{s.lookupAPIKey, s.getChart, s.getChartWithData} {
		if st != nil {
			errs = append(errs, st.Close())
		}
	}
	return errors.Join(append(errs, s.read.Close(), s.write.Close())...)
}

// micros renders a timestamp as the stored integer.
func micros(t time.Time) int64 { return store.Micro(t).UnixMicro() }

// fromMicros turns a stored integer back into a normalised timestamp.
func fromMicros(us int64) time.Time { return time.UnixMicro(us).UTC() }

// fromNullMicros turns a nullable stored integer into an optional timestamp.
func fromNullMicros(n sql.NullInt64) *time.Time {
	if !n.Valid {
		return nil
	}
	t := fromMicros(n.Int64)
	return &t
}

// nonNil keeps NOT NULL blob columns from being bound as NULL.
func nonNil(b []byte) []byte {
	if b == nil {
		return []byte{}
	}
	return b
}

// sqliteCode answers the extended result code of a driver error, 0 if none.
func sqliteCode(err error) int {
	var e *sqlite.Error
	if errors.As(err, &e) {
		return e.Code()
	}
	return 0
}

// isUnique reports a UNIQUE or PRIMARY KEY violation.
func isUnique(err error) bool {
	c := sqliteCode(err)
	return c == sqlite3.SQLITE_CONSTRAINT_UNIQUE || c == sqlite3.SQLITE_CONSTRAINT_PRIMARYKEY
}

// isForeignKey reports a FOREIGN KEY violation: the parent row is missing.
func isForeignKey(err error) bool {
	return sqliteCode(err) == sqlite3.SQLITE_CONSTRAINT_FOREIGNKEY
}

// notFound maps sql.ErrNoRows to store.ErrNotFound, leaving other errors.
func notFound(err error) error {
	if errors.Is(err, sql.ErrNoRows) {
		return store.ErrNotFound
	}
	return err
}

// mustAffect turns "no row changed" into store.ErrNotFound.
func mustAffect(res sql.Result) error {
	n, err := res.RowsAffected()
	if err != nil {
		return err
	}
	if n == 0 {
		return store.ErrNotFound
	}
	return nil
}
