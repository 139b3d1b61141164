package main

import (
	"strings"
	"testing"

	"chartd.dev/libs/testserver"
)

// TestKeyStoreDownIsInternalNotRateLimited: with PostgreSQL down, a key
// that cannot be looked up gets the spec's internal code (500) with
// Retry-After and a message naming the service's storage, past the
// per-address allowance (120 a minute) too: never a 429 that blames the
// caller's rate.
func TestKeyStoreDownIsInternalNotRateLimited(t *testing.T) {
	pg, err := testserver.StartPostgres()
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Stop()
	dbURL, err := pg.CreateDatabase("keystore")
	if err != nil {
		t.Fatal(err)
	}
	in := startAll(t, append(clusterFlags(t), "-postgres-url", dbURL)...)
	// Never used before the outage, so not in the gateway's key cache.
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	if err := pg.Shutdown(); err != nil {
		t.Fatal(err)
	}
	for i := 0; i < 130; i++ {
		a := c.do("GET", "/api/v1/account", nil)
		if a.status != 500 || a.errCode(t) != "internal" || a.header.Get("Retry-After") == "" || !strings.Contains(string(a.body), "storage cannot be reached") {
			t.Fatalf("request %d with the key store down: %d Retry-After %q %s", i+1, a.status, a.header.Get("Retry-After"), a.body)
		}
		hasRateLimitHeaders(t, a.header)
		if a.header.Get("WWW-Authenticate") != "" {
			t.Fatalf("a challenge for a key that could not be checked: %q", a.header.Get("WWW-Authenticate"))
		}
	}
	if err := pg.Start(); err != nil {
		t.Fatal(err)
	}
	if a := c.do("GET", "/api/v1/account", nil); a.status != 200 {
		t.Fatalf("after PostgreSQL is back: %d %s", a.status, a.body)
	}
}
