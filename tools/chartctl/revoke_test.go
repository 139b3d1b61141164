package main

import (
	"context"
	"testing"
	"time"

	"github.com/redis/go-redis/v9"

	"chartd.dev/libs/revoke"
	"chartd.dev/libs/testserver"
)

// TestRevocationsAnnounced: with -redis-url (CHARTD_REDIS_URL), key
// revocation, signing-key rotation and revocation and plan changes reach a
// chartd process listening on the cluster's Redis, in that order.
func TestRevocationsAnnounced(t *testing.T) {
	srv, err := testserver.StartRedis()
	if err != nil {
		t.Fatal(err)
	}
	defer srv.Stop()
	opts, err := redis.ParseURL(srv.URL())
	if err != nil {
		t.Fatal(err)
	}
	rc := redis.NewClient(opts)
	defer rc.Close()
	chartd := revoke.NewRedis(t.Context(), rc, revoke.RedisOptions{})
	defer chartd.Close()
	ctx, cancel := context.WithCancel(context.Background())
	defer cancel()
	go chartd.Run(ctx)
	got := make(chan revoke.Event, 10)
	defer chartd.Subscribe(func(e revoke.Event) { got <- e })()

	dir := t.TempDir()
	env := map[string]string{"CHARTD_REDIS_URL": srv.URL()}
	acct, _, err := ctlEnv(t, env, dir, "account", "create", "-plan", "free")
	if err != nil {
		t.Fatal(err)
	}
	id := acct["account_id"].(string)
	r1, _, err := ctlEnv(t, env, dir, "signing-key", "rotate", "-account", id)
	if err != nil {
		t.Fatal(err)
	}
	k2, _, err := ctlEnv(t, env, dir, "key", "create", "-account", id)
	if err != nil {
		t.Fatal(err)
	}
	r2, _, err := ctlEnv(t, env, dir, "signing-key", "rotate", "-account", id)
	if err != nil {
		t.Fatal(err)
	}
	for _, args := range [][]string{
		{"key", "revoke", "-account", id, "-key", k2["key_id"].(string)},
		{"signing-key", "revoke", "-account", id, "-kid", r2["kid"].(string)},
		{"plan", "set", "-account", id, "-plan", "pro"},
	} {
		if _, _, err := ctlEnv(t, env, dir, args...); err != nil {
			t.Fatalf("%v: %v", args, err)
		}
	}
	want := []revoke.Event{
		{Kind: revoke.SigningKey, ID: r1["kid"].(string)}, // rotated away by the second rotation
		{Kind: revoke.APIKeys, ID: id},
		{Kind: revoke.SigningKey, ID: r2["kid"].(string)},
		{Kind: revoke.APIKeys, ID: id},
	}
	for i, w := range want {
		select {
		case e := <-got:
			if e != w {
				t.Fatalf("event %d: %v, want %v", i, e, w)
			}
		case <-time.After(5 * time.Second):
			t.Fatalf("event %d (%v) not heard in 5 s", i, w)
		}
	}
}
