package main

import (
	"strconv"
	"testing"

	"chartd.dev/libs/testserver"
)

// TestRateLimitHoldsWhileRedisIsOut: with Redis killed, a Pro key (1,200
// a minute) on one of 12 replicas (-redis-replicas) gets this replica's
// share, 100, and then rate_limited; the X-RateLimit-Remaining it sees
// goes down as it spends, counted for all replicas (12 per request).
func TestRateLimitHoldsWhileRedisIsOut(t *testing.T) {
	rd, err := testserver.StartRedis()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Stop()
	in := startAll(t, "-redis-url", rd.URL(), "-redis-replicas", "12")
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	if err := rd.Kill(); err != nil {
		t.Fatal(err)
	}
	allowed, last := 0, 1201
	for i := 0; i < 200; i++ {
		a := c.do("GET", "/api/v1/account", nil)
		if a.status == 429 {
			if code := a.errCode(t); code != "rate_limited" || a.header.Get("X-RateLimit-Remaining") != "0" || a.header.Get("Retry-After") == "" {
				t.Fatalf("refusal: %s, Remaining %q, Retry-After %q", code, a.header.Get("X-RateLimit-Remaining"), a.header.Get("Retry-After"))
			}
			break
		}
		if a.status != 200 {
			t.Fatalf("request %d: %d %s", i+1, a.status, a.body)
		}
		allowed++
		rem, err := strconv.Atoi(a.header.Get("X-RateLimit-Remaining"))
		if err != nil || a.header.Get("X-RateLimit-Limit") != "1200" || rem > last || i == 0 && rem != 1188 {
			t.Fatalf("request %d: Limit %q, Remaining %q after %d", i+1, a.header.Get("X-RateLimit-Limit"), a.header.Get("X-RateLimit-Remaining"), last)
		}
		last = rem
	}
	// The share refills at 100 a minute, one every 0.6 s, while the loop runs.
	if allowed < 100 || allowed > 110 {
		t.Errorf("%d requests allowed with Redis out, want this replica's share of 100 (and what refilled)", allowed)
	}
}
