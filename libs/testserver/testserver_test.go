package testserver

import (
	"context"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"
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
