package main

import (
	"testing"
	"time"

	"chartd.dev/libs/testserver"
)

// TestRedisOutage: with Redis gone the API keeps answering (the limiter
// fails open) while /readyz says the process is not ready; when Redis is
// back, so is readiness.
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
	a := anon.do("GET", "/readyz", nil)
	if a.status == 200 || a.errCode(t) != "internal" {
		t.Fatalf("readyz during the outage: %d %s", a.status, a.body)
	}
	if err := rd.Start(); err != nil {
		t.Fatal(err)
	}
	deadline := time.Now().Add(10 * time.Second)
	for anon.do("GET", "/readyz", nil).status != 200 {
		if time.Now().After(deadline) {
			t.Fatal("not ready again after Redis came back")
		}
		time.Sleep(100 * time.Millisecond)
	}
}
