package main

import (
	"testing"

	"chartd.dev/libs/testserver"
)

// TestRedisOutage: with Redis gone the API keeps answering (the limiter
// fails open, the counters count in process) and /readyz stays ready, so a
// load balancer keeps every replica; when Redis is back nothing changes.
func TestRedisOutage(t *testing.T) {
	rd, err := testserver.StartRedis()
	if err != nil {
		t.Fatal(err)
	}
	defer rd.Stop()
	in := startAll(t, "-redis-url", rd.URL())
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	anon := newClient(t, in.url, "")
	if a := anon.do("GET", "/readyz", nil); a.status != 200 {
		t.Fatalf("ready before the outage: %d %s", a.status, a.body)
	}
	if err := rd.Kill(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 5; i++ {
		a := c.do("GET", "/api/v1/palettes", nil)
		if a.status != 200 || a.header.Get("X-RateLimit-Limit") != "1200" {
			t.Fatalf("during the outage: %d %v", a.status, a.header)
		}
	}
	if a := anon.do("GET", "/readyz", nil); a.status != 200 {
		t.Fatalf("readyz during the outage: %d %s", a.status, a.body)
	}
	if err := rd.Start(); err != nil {
		t.Fatal(err)
	}
	if a := c.do("GET", "/api/v1/account", nil); a.status != 200 {
		t.Fatalf("after the outage: %d %s", a.status, a.body)
	}
	if a := anon.do("GET", "/readyz", nil); a.status != 200 {
		t.Fatalf("readyz after the outage: %d %s", a.status, a.body)
	}
}
