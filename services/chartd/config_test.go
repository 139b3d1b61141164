package main

import (
	"context"
	"io"
	"net"
	"net/http"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	"chartd.dev/libs/telemetry"
)

func env(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

func TestParseConfigListsEveryProblem(t *testing.T) {
	_, err := ParseConfig([]string{"-target=everything", "-addr=nope", "-public-url=ftp://x", "-log-level=loud", "-redis-url=http://x"}, env(nil))
	if err == nil {
		t.Fatal("bad settings accepted")
	}
	for _, want := range []string{"-target", "-addr", "-public-url", "-log-level", "-redis-url", "-internal-token"} {
		if !strings.Contains(err.Error(), want) {
			t.Errorf("error lacks %s:\n%v", want, err)
		}
	}
}

func TestParseConfigEnvironment(t *testing.T) {
	c, err := ParseConfig([]string{"-addr=127.0.0.1:9000"}, env(map[string]string{
		"CHARTD_ADDR":                   "127.0.0.1:1", // the flag wins
		"CHARTD_DATA_DIR":               "/tmp/x",
		"CHARTD_GATEWAY_MAX_BODY_BYTES": "2048",
		"CHARTD_LOG_LEVEL":              "debug",
	}))
	if err != nil {
		t.Fatal(err)
	}
	if c.Addr != "127.0.0.1:9000" || c.DataDir != "/tmp/x" || c.Gateway.MaxBodyBytes != 2048 || c.LogLevel != "debug" || c.PublicURL != "http://127.0.0.1:9000" {
		t.Fatalf("%+v", c)
	}
	if _, err := ParseConfig(nil, env(map[string]string{"CHARTD_SHUTDOWN_TIMEOUT": "soon"})); err == nil || !strings.Contains(err.Error(), "CHARTD_SHUTDOWN_TIMEOUT") {
		t.Fatalf("bad env value: %v", err)
	}
}

func TestSplitGatewayNeedsServiceURLs(t *testing.T) {
	_, err := ParseConfig([]string{"-target=gateway", "-internal-token=0123456789abcdef0"}, env(nil))
	for _, s := range []string{"chart", "data", "brand", "render"} {
		if err == nil || !strings.Contains(err.Error(), "-"+s+"-url") {
			t.Fatalf("missing %s url not reported: %v", s, err)
		}
	}
}

func TestInitOrder(t *testing.T) {
	order, err := initOrder(TargetAll)
	if err != nil {
		t.Fatal(err)
	}
	pos := map[string]int{}
	for i, m := range order {
		pos[m] = i
	}
	for m, deps := range moduleDeps() {
		for _, d := range deps {
			if _, ok := pos[m]; ok && pos[d] > pos[m] {
				t.Errorf("%s built before its dependency %s", m, d)
			}
		}
	}
	if order[len(order)-1] != TargetAll || len(order) != len(moduleDeps()) {
		t.Fatalf("order %v", order)
	}
	order, _ = initOrder("data")
	if strings.Join(order, ",") != "data" {
		t.Fatalf("data target builds %v", order)
	}
}

// TestDrain: a request in flight when the process is told to stop is
// answered, and serve returns cleanly.
func TestDrain(t *testing.T) {
	tel, err := telemetry.New(context.Background(), telemetry.Config{Service: "test", LogLevel: 8, LogOut: io.Discard})
	if err != nil {
		t.Fatal(err)
	}
	var started atomic.Bool
	app := &App{cfg: Config{Target: TargetAll}, tel: tel, handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		started.Store(true)
		time.Sleep(300 * time.Millisecond)
		w.Write([]byte("done"))
	})}
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	served := make(chan error, 1)
	go func() { served <- serve(ctx, app, ln, 5*time.Second) }()
	got := make(chan string, 1)
	go func() {
		resp, err := http.Get("http://" + ln.Addr().String() + "/")
		if err != nil {
			got <- err.Error()
			return
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		got <- string(b)
	}()
	for !started.Load() {
		time.Sleep(5 * time.Millisecond)
	}
	cancel() // what SIGTERM does through signal.NotifyContext
	if body := <-got; body != "done" {
		t.Fatalf("in-flight request got %q", body)
	}
	if err := <-served; err != nil {
		t.Fatalf("serve: %v", err)
	}
	if _, err := http.Get("http://" + ln.Addr().String() + "/"); err == nil {
		t.Fatal("still accepting after drain")
	}
}

// TestSplitNeedsSharedBackends: a service run apart refuses to start on
// a private SQLite file or in-process limits, unless told it is a
// single-node trial; the target table of docs/targets.md says the same.
func TestSplitNeedsSharedBackends(t *testing.T) {
	urls := []string{"-internal-token=0123456789abcdef0", "-chart-url=http://c", "-data-url=http://d", "-brand-url=http://b", "-render-url=http://r"}
	for _, tt := range []struct {
		target          string
		postgres, redis bool
	}{
		{"gateway", true, true}, {"chart", true, false}, {"data", false, false}, {"brand", true, true}, {"render", true, true},
	} {
		_, err := ParseConfig(append([]string{"-target=" + tt.target}, urls...), env(nil))
		msg := ""
		if err != nil {
			msg = err.Error()
		}
		if got := strings.Contains(msg, "-postgres-url"); got != tt.postgres {
			t.Errorf("-target=%s without -postgres-url: refused %v, want %v (%s)", tt.target, got, tt.postgres, msg)
		}
		if got := strings.Contains(msg, "-redis-url"); got != tt.redis {
			t.Errorf("-target=%s without -redis-url: refused %v, want %v (%s)", tt.target, got, tt.redis, msg)
		}
		if _, err := ParseConfig(append([]string{"-target=" + tt.target, "-single-node-trial"}, urls...), env(nil)); err != nil {
			t.Errorf("-target=%s -single-node-trial: %v", tt.target, err)
		}
		if _, err := ParseConfig(append([]string{"-target=" + tt.target, "-postgres-url=postgres://h/db", "-redis-url=redis://h:6379"}, urls...), env(nil)); err != nil {
			t.Errorf("-target=%s with the shared backends: %v", tt.target, err)
		}
	}
}
