package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httputil"
	"net/url"
	"os/exec"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	"chartd.dev/libs/secrets"
)

// balancer stands in for a Service's endpoints and the kube-proxy or
// ingress in front of render replicas: each request goes to a ready
// backend, round robin, and each backend's /readyz is polled every
// 100 ms, as endpoint updates propagate. A request it cannot place, or
// whose backend fails, is a 502 the test counts.
type balancer struct {
	backends []*backend
	next     atomic.Uint64
	errs     atomic.Int64
	stop     chan struct{}
}

type backend struct {
	addr  string
	ready atomic.Bool
	proxy *httputil.ReverseProxy
}

func newBalancer(t *testing.T, addrs ...string) *balancer {
	b := &balancer{stop: make(chan struct{})}
	probe := &http.Client{Timeout: 500 * time.Millisecond}
	for _, a := range addrs {
		u, _ := url.Parse("http://" + a)
		be := &backend{addr: a, proxy: httputil.NewSingleHostReverseProxy(u)}
		be.proxy.ErrorHandler = func(w http.ResponseWriter, r *http.Request, err error) {
			b.errs.Add(1)
			t.Logf("balancer: %s %s via %s: %v", r.Method, r.URL.Path, a, err)
			w.WriteHeader(http.StatusBadGateway)
		}
		b.backends = append(b.backends, be)
		go func() {
			tick := time.NewTicker(100 * time.Millisecond)
			defer tick.Stop()
			for {
				resp, err := probe.Get("http://" + a + "/readyz")
				ok := err == nil && resp.StatusCode == 200
				if err == nil {
					resp.Body.Close()
				}
				be.ready.Store(ok)
				select {
				case <-b.stop:
					return
				case <-tick.C:
				}
			}
		}()
	}
	t.Cleanup(func() { close(b.stop) })
	return b
}

func (b *balancer) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	n := len(b.backends)
	start := int(b.next.Add(1))
	for i := range n {
		if be := b.backends[(start+i)%n]; be.ready.Load() {
			be.proxy.ServeHTTP(w, r)
			return
		}
	}
	b.errs.Add(1)
	w.WriteHeader(http.StatusBadGateway)
}

// rollingRestart runs the services apart with two render replicas behind
// a balancer, drives renders through the gateway from four clients, and
// restarts the replicas one at a time (SIGTERM, exit, start again, ready)
// as a Deployment's rolling update does. It answers the requests sent
// and those that failed.
func rollingRestart(t *testing.T, delay time.Duration) (total, failed int64) {
	bin := chartdBinary(t)
	dir := t.TempDir()
	keyFile := filepath.Join(dir, "secrets.key")
	if _, err := secrets.EnsureKeyFile(keyFile); err != nil {
		t.Fatal(err)
	}
	gw := freeAddr(t)
	pub := "http://" + gw
	renders := []string{freeAddr(t), freeAddr(t)}
	lb := newBalancer(t, renders...)
	lbAddr := freeAddr(t)
	srv := &http.Server{Addr: lbAddr, Handler: lb}
	go srv.ListenAndServe()
	t.Cleanup(func() { srv.Close() })

	common := []string{"-data-dir", dir, "-internal-token", "split-mode-internal-token-0123456789", "-public-url", pub, "-log-level", "warn",
		"-render.browsers=1", "-secrets-key-file", keyFile, "-single-node-trial", "-shutdown.delay=" + delay.String(), "-render-url", "http://" + lbAddr}
	addrs := map[string]string{}
	for _, target := range []string{"chart", "data", "brand"} {
		addrs[target] = freeAddr(t)
		common = append(common, "-"+target+"-url", "http://"+addrs[target])
	}
	for _, target := range []string{"chart", "data", "brand"} {
		startProcess(t, bin, addrs[target], append([]string{"-target=" + target}, common...)...)
	}
	procs := make([]*exec.Cmd, len(renders))
	for i, a := range renders {
		procs[i] = startProcess(t, bin, a, append([]string{"-target=render"}, common...)...)
	}
	startProcess(t, bin, gw, append([]string{"-target=gateway"}, common...)...)
	waitBalanced := func(i int) {
		deadline := time.Now().Add(60 * time.Second)
		for !lb.backends[i].ready.Load() {
			if time.Now().After(deadline) {
				t.Fatalf("render replica %d never ready behind the balancer", i)
			}
			time.Sleep(20 * time.Millisecond)
		}
	}
	waitBalanced(0)
	waitBalanced(1)
	in := instance{url: pub, open: storeOpener(Config{DataDir: dir})}

	const workers = 4
	var sent, bad atomic.Int64
	var failures sync.Map
	stop := make(chan struct{})
	var wg sync.WaitGroup
	for w := range workers {
		key := in.newAccount(t, "pro")
		hc := &http.Client{Transport: &http.Transport{}, Timeout: 30 * time.Second}
		t.Cleanup(hc.CloseIdleConnections)
		wg.Add(1)
		go func() {
			defer wg.Done()
			for i := 0; ; i++ {
				select {
				case <-stop:
					return
				default:
				}
				format := "svg"
				if (i+w)%3 == 0 {
					format = "png"
				}
				body, _ := json.Marshal(map[string]any{"type": "bar", "data": salesCSV, "format": format})
				req, _ := http.NewRequest("POST", pub+"/api/v1/render", bytes.NewReader(body))
				req.Header.Set("Authorization", "Bearer "+key)
				req.Header.Set("Content-Type", "application/json")
				sent.Add(1)
				resp, err := hc.Do(req)
				switch {
				case err != nil:
					bad.Add(1)
					failures.Store(fmt.Sprintf("worker %d request %d", w, i), err.Error())
				case resp.StatusCode != 200:
					b, _ := io.ReadAll(resp.Body)
					bad.Add(1)
					failures.Store(fmt.Sprintf("worker %d request %d", w, i), fmt.Sprintf("%d %.200s", resp.StatusCode, b))
				}
				if resp != nil {
					io.Copy(io.Discard, resp.Body)
					resp.Body.Close()
				}
				time.Sleep(60 * time.Millisecond)
			}
		}()
	}
	time.Sleep(time.Second) // load before the first restart
	for i, a := range renders {
		if err := procs[i].Process.Signal(syscall.SIGTERM); err != nil {
			t.Fatal(err)
		}
		if err := procs[i].Wait(); err != nil {
			t.Fatalf("render replica %d after SIGTERM: %v", i, err)
		}
		procs[i] = startProcess(t, bin, a, append([]string{"-target=render"}, common...)...)
		waitBalanced(i)
	}
	time.Sleep(time.Second) // load after the last restart
	close(stop)
	wg.Wait()
	var lines []string
	failures.Range(func(k, v any) bool {
		lines = append(lines, fmt.Sprintf("%s: %s", k, v))
		return len(lines) < 20
	})
	if len(lines) > 0 {
		t.Logf("failures (first %d):\n%s", len(lines), strings.Join(lines, "\n"))
	}
	return sent.Load(), bad.Load()
}

// TestRollingRestartRender: a rolling restart of two render replicas under
// load fails no request: each replica, on SIGTERM, leaves the balancer
// (/readyz 503) while it keeps serving for -shutdown.delay, then drains.
func TestRollingRestartRender(t *testing.T) {
	total, failed := rollingRestart(t, time.Second)
	t.Logf("rolling restart of 2 render replicas: %d requests, %d failed", total, failed)
	if total < 50 {
		t.Fatalf("only %d requests under load; the restart proves nothing", total)
	}
	if failed != 0 {
		t.Fatalf("%d of %d requests failed during the rolling restart", failed, total)
	}
}
