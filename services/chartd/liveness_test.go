package main

import (
	"net/http"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestLivenessDeadPool: when the render pool's browser dies and no new
// one can be launched, /healthz fails once -render.dead-pool-after has
// passed, so the kubelet restarts the pod instead of leaving it unready
// for ever.
func TestLivenessDeadPool(t *testing.T) {
	dir := t.TempDir()
	broken := filepath.Join(dir, "broken")
	pidFile := filepath.Join(dir, "pid")
	// The browser binary: Chromium, until the file broken exists.
	wrapper := filepath.Join(dir, "chromium")
	script := "#!/bin/sh\n[ -e " + broken + " ] && exit 1\necho $$ > " + pidFile + "\nexec /usr/bin/chromium \"$@\"\n"
	if err := os.WriteFile(wrapper, []byte(script), 0o755); err != nil {
		t.Fatal(err)
	}
	in := startAll(t, "-render.chromium="+wrapper, "-render.dead-pool-after=2s")
	health := func() int {
		resp, err := http.Get(in.url + "/healthz")
		if err != nil {
			t.Fatal(err)
		}
		resp.Body.Close()
		return resp.StatusCode
	}
	if s := health(); s != 200 {
		t.Fatalf("/healthz with a live pool: %d", s)
	}
	raw, err := os.ReadFile(pidFile)
	if err != nil {
		t.Fatal(err)
	}
	pid, err := strconv.Atoi(strings.TrimSpace(string(raw)))
	if err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(broken, nil, 0o644); err != nil {
		t.Fatal(err)
	}
	killed := time.Now()
	if err := syscall.Kill(pid, syscall.SIGKILL); err != nil {
		t.Fatal(err)
	}
	deadline := killed.Add(30 * time.Second)
	for health() == 200 {
		if time.Now().After(deadline) {
			t.Fatal("/healthz still 200 30 s after the pool lost its only browser and cannot launch another")
		}
		time.Sleep(100 * time.Millisecond)
	}
	if took := time.Since(killed); took < 2*time.Second {
		t.Errorf("/healthz failed %s after the browser died, before -render.dead-pool-after (2s)", took)
	}
	if in.app.Ready(t.Context()) == nil {
		t.Error("ready with no live browser")
	}
}
