package testserver

import (
	"context"
	"io"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
	"github.com/minio/minio-go/v7"
	"github.com/minio/minio-go/v7/pkg/credentials"
	"github.com/redis/go-redis/v9"
)

func TestPostgres(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	pg, err := StartPostgres()
	if err != nil {
		t.Fatalf("start postgres: %v", err)
	}
	defer func() {
		if err := pg.Stop(); err != nil {
			t.Errorf("stop: %v", err)
		}
	}()
	url, err := pg.CreateDatabase("selftest")
	if err != nil {
		t.Fatalf("create database: %v", err)
	}
	if url != pg.URL("selftest") {
		t.Fatalf("CreateDatabase answered %q, URL answers %q", url, pg.URL("selftest"))
	}
	if _, err := pg.CreateDatabase("selftest"); err == nil {
		t.Fatalf("creating the same database twice succeeded")
	}
	conn, err := pgx.Connect(ctx, url)
	if err != nil {
		t.Fatalf("connect: %v", err)
	}
	defer conn.Close(ctx)
	var db string
	if err := conn.QueryRow(ctx, `SELECT current_database()`).Scan(&db); err != nil || db != "selftest" {
		t.Fatalf("current_database() = %q, %v; want selftest", db, err)
	}
}

func TestRedisOutage(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	r, err := StartRedis()
	if err != nil {
		t.Fatalf("start redis: %v", err)
	}
	defer r.Stop()
	opts, err := redis.ParseURL(r.URL())
	if err != nil {
		t.Fatalf("parse %q: %v", r.URL(), err)
	}
	opts.MaxRetries = -1
	c := redis.NewClient(opts)
	defer c.Close()
	if err := c.Set(ctx, "k", "v", 0).Err(); err != nil {
		t.Fatalf("set: %v", err)
	}
	if err := r.Kill(); err != nil {
		t.Fatalf("kill: %v", err)
	}
	if err := c.Ping(ctx).Err(); err == nil {
		t.Fatalf("ping succeeded while the server was down")
	}
	if err := r.Start(); err != nil {
		t.Fatalf("restart: %v", err)
	}
	if err := c.Ping(ctx).Err(); err != nil {
		t.Fatalf("ping after restart: %v", err)
	}
	// Persistence is off: the restarted server starts empty.
	if n, err := c.Exists(ctx, "k").Result(); err != nil || n != 0 {
		t.Fatalf("key survived a restart with persistence off: %d, %v", n, err)
	}
}

func TestMinIO(t *testing.T) {
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	start := time.Now()
	m, err := StartMinIO()
	if err != nil {
		t.Fatalf("start minio: %v", err)
	}
	t.Logf("minio ready on %s in %v", m.Endpoint(), time.Since(start).Round(time.Millisecond))
	stopped := false
	defer func() {
		if !stopped {
			m.Stop()
		}
	}()
	c, err := minio.New(m.Endpoint(), &minio.Options{Creds: credentials.NewStaticV4(m.AccessKey(), m.SecretKey(), "")})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.MakeBucket(ctx, "selftest", minio.MakeBucketOptions{}); err != nil {
		t.Fatalf("make bucket: %v", err)
	}
	if _, err := c.PutObject(ctx, "selftest", "k", strings.NewReader("v"), 1, minio.PutObjectOptions{}); err != nil {
		t.Fatalf("put: %v", err)
	}
	obj, err := c.GetObject(ctx, "selftest", "k", minio.GetObjectOptions{})
	if err != nil {
		t.Fatalf("get: %v", err)
	}
	got, err := io.ReadAll(obj)
	obj.Close()
	if err != nil || string(got) != "v" {
		t.Fatalf("read back %q, %v", got, err)
	}
	// Wrong credentials are refused: the server really checks them.
	bad, _ := minio.New(m.Endpoint(), &minio.Options{Creds: credentials.NewStaticV4(m.AccessKey(), "wrong-secret", "")})
	if _, err := bad.BucketExists(ctx, "selftest"); err == nil {
		t.Fatalf("a wrong secret key was accepted")
	}

	dir := m.dir
	stopped = true
	if err := m.Stop(); err != nil {
		t.Fatalf("stop: %v", err)
	}
	if _, err := os.Stat(dir); !os.IsNotExist(err) {
		t.Errorf("data dir %s left after Stop: %v", dir, err)
	}
	if _, err := net.DialTimeout("tcp", m.Endpoint(), time.Second); err == nil {
		t.Errorf("%s still accepts connections after Stop", m.Endpoint())
	}
}

func TestMinIOMissingBinary(t *testing.T) {
	t.Setenv("CHARTD_MINIO", filepath.Join(t.TempDir(), "no-such-minio"))
	m, err := StartMinIO()
	if err == nil {
		m.Stop()
		t.Fatal("StartMinIO succeeded without a binary")
	}
	if !strings.Contains(err.Error(), "tools/ci/deps.sh") {
		t.Fatalf("error %q does not say how to install MinIO", err)
	}
}

// A restart loses the data of a killed Redis and keeps that of one shut
// down; a PostgreSQL shut down keeps what it had committed.
func TestRestartKeepsData(t *testing.T) {
	tests := []struct {
		name string
		// start, stop and restart a server; put writes "v", got reads it
		// back ("" when gone).
		run      func(t *testing.T) (put func(context.Context) error, stop, restart func() error, got func(context.Context) (string, error), cleanup func())
		wantKept bool
	}{
		{"redis killed", redisRestart(func(r *Redis) error { return r.Kill() }), false},
		{"redis shut down", redisRestart(func(r *Redis) error { return r.Shutdown() }), true},
		{"postgres shut down", postgresRestart, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
			defer cancel()
			put, stop, restart, got, cleanup := tc.run(t)
			defer cleanup()
			if err := put(ctx); err != nil {
				t.Fatalf("write before the stop: %v", err)
			}
			if err := stop(); err != nil {
				t.Fatalf("stop: %v", err)
			}
			if _, err := got(ctx); err == nil {
				t.Fatalf("read succeeded while the server was down")
			}
			if err := restart(); err != nil {
				t.Fatalf("restart: %v", err)
			}
			var v string
			var err error
			deadline := time.Now().Add(10 * time.Second)
			for v, err = got(ctx); err != nil && time.Now().Before(deadline); v, err = got(ctx) {
				time.Sleep(50 * time.Millisecond)
			}
			if err != nil {
				t.Fatalf("read after the restart: %v", err)
			}
			if kept := v == "v"; kept != tc.wantKept {
				t.Errorf("after the restart the value is %q; kept = %v, want %v", v, kept, tc.wantKept)
			}
		})
	}
}

func redisRestart(stop func(*Redis) error) func(t *testing.T) (func(context.Context) error, func() error, func() error, func(context.Context) (string, error), func()) {
	return func(t *testing.T) (func(context.Context) error, func() error, func() error, func(context.Context) (string, error), func()) {
		r, err := StartRedis()
		if err != nil {
			t.Fatalf("start redis: %v", err)
		}
		opts, err := redis.ParseURL(r.URL())
		if err != nil {
			t.Fatalf("parse %q: %v", r.URL(), err)
		}
		opts.MaxRetries = -1
		c := redis.NewClient(opts)
		put := func(ctx context.Context) error { return c.Set(ctx, "k", "v", 0).Err() }
		got := func(ctx context.Context) (string, error) {
			v, err := c.Get(ctx, "k").Result()
			if err == redis.Nil {
				return "", nil
			}
			return v, err
		}
		return put, func() error { return stop(r) }, r.Start, got, func() { c.Close(); r.Stop() }
	}
}

func postgresRestart(t *testing.T) (func(context.Context) error, func() error, func() error, func(context.Context) (string, error), func()) {
	pg, err := StartPostgres()
	if err != nil {
		t.Fatalf("start postgres: %v", err)
	}
	url := pg.URL("postgres")
	put := func(ctx context.Context) error {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return err
		}
		defer conn.Close(ctx)
		_, err = conn.Exec(ctx, `CREATE TABLE kv (k text PRIMARY KEY, v text); INSERT INTO kv VALUES ('k', 'v')`)
		return err
	}
	got := func(ctx context.Context) (string, error) {
		conn, err := pgx.Connect(ctx, url)
		if err != nil {
			return "", err
		}
		defer conn.Close(ctx)
		var v string
		err = conn.QueryRow(ctx, `SELECT v FROM kv WHERE k = 'k'`).Scan(&v)
		if err == pgx.ErrNoRows {
			return "", nil
		}
		return v, err
	}
	return put, pg.Shutdown, pg.Start, got, func() { pg.Stop() }
}
