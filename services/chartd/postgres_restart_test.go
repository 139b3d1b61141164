package main

import (
	"net/http"
	"strings"
	"testing"
	"time"

	"chartd.dev/libs/testserver"
)

// TestPostgresRestart: PostgreSQL restarts under about 100 requests a
// second. While it is down, answers come quickly and say so honestly: a
// server error (internal 500 with Retry-After when a key cannot be checked), never
// a bad key, a missing chart or a rate limit. Once it is back,
// chartd serves everything again with the data made before, without a
// restart of its own.
func TestPostgresRestart(t *testing.T) {
	pace := testserver.MeasurePace()
	pg, err := testserver.StartPostgres()
	if err != nil {
		t.Fatal(err)
	}
	defer pg.Stop()
	dbURL, err := pg.CreateDatabase("restart")
	if err != nil {
		t.Fatal(err)
	}
	// Its own PostgreSQL, so restarting it disturbs no other test.
	in := startAll(t, append(clusterFlags(t), "-postgres-url", dbURL)...)
	anon := newClient(t, in.url, "")
	lt, clients := newLoadTarget(t, in, 8)
	hc := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 64}, Timeout: 30 * time.Second}
	defer hc.CloseIdleConnections()

	before := statsOf(lt.run(hc, 2*time.Second))
	t.Logf("PostgreSQL up:        %s", before)
	if before.server != 0 || before.errs != 0 || len(before.other) != 0 {
		t.Fatalf("before the restart every request must answer 200: %s", before)
	}
	if err := pg.Shutdown(); err != nil {
		t.Fatal(err)
	}
	downSamples := lt.run(hc, 3*time.Second)
	t.Logf("PostgreSQL stopped:   %s", statsOf(downSamples))
	if a := anon.do("GET", "/readyz", nil); a.status == 200 || a.errCode(t) != "internal" {
		t.Errorf("readyz with PostgreSQL down: %d %s", a.status, a.body)
	}
	if err := pg.Start(); err != nil {
		t.Fatal(err)
	}
	restarted := time.Now()
	afterSamples := lt.run(hc, 5*time.Second)
	t.Logf("PostgreSQL restarted: %s", statsOf(afterSamples))

	for _, s := range downSamples {
		honest := s.status == 200 ||
			s.status == 500 && strings.Contains(s.body, `"code":"internal"`)
		if s.err != nil || !honest {
			t.Errorf("%s with PostgreSQL down: %d %v %s", s.kind, s.status, s.err, s.body)
		}
		if pace.Over(s.took, 5*time.Second) {
			t.Errorf("%s with PostgreSQL down took %v: a dead database must not hold requests", s.kind, s.took)
		}
	}
	// The pool reconnects on its own: requests sent a little after the
	// restart all succeed.
	const settle = 2 * time.Second
	late := 0
	for _, s := range afterSamples {
		if s.sent.Sub(restarted) < settle {
			continue
		}
		late++
		if s.err != nil || s.status != 200 {
			t.Errorf("%s %v after PostgreSQL restarted: %d %v %s", s.kind, s.sent.Sub(restarted).Round(time.Millisecond), s.status, s.err, s.body)
		}
	}
	if late < loadRate {
		t.Errorf("only %d requests sent after the restart settled", late)
	}
	// What was made before the restart is still there, and writes work.
	for i, c := range clients {
		if a := c.do("GET", "/api/v1/charts/"+lt.charts[i], nil); a.status != 200 {
			t.Errorf("get_chart made before the restart: %d %s", a.status, a.body)
		}
		if a := c.do("POST", "/api/v1/charts", map[string]any{"type": "pie", "data": "k,v\na,1"}); a.status != 201 && a.status != 200 {
			t.Errorf("create_chart after the restart: %d %s", a.status, a.body)
		}
	}
	if a := anon.do("GET", "/readyz", nil); a.status != 200 {
		t.Errorf("readyz after the restart: %d %s", a.status, a.body)
	}
}
