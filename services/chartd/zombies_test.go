package main

import (
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"
)

// lockedBuffer is a bytes.Buffer a process writes to while a test reads.
type lockedBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (l *lockedBuffer) Write(p []byte) (int, error) {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.Write(p)
}

func (l *lockedBuffer) String() string {
	l.mu.Lock()
	defer l.mu.Unlock()
	return l.b.String()
}

// procStat answers a process's state and parent from /proc/<pid>/stat.
func procStat(pid int) (state byte, ppid int, ok bool) {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return 0, 0, false
	}
	// The command name may hold spaces: the fields follow its last ')'.
	i := bytes.LastIndexByte(b, ')')
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 {
		return 0, 0, false
	}
	ppid, _ = strconv.Atoi(f[1])
	return f[0][0], ppid, true
}

// childrenOf lists the pids whose parent is ppid, and which of them are
// zombies.
func childrenOf(ppid int) (all, zombies []int) {
	entries, _ := os.ReadDir("/proc")
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		if st, pp, ok := procStat(pid); ok && pp == ppid {
			all = append(all, pid)
			if st == 'Z' {
				zombies = append(zombies, pid)
			}
		}
	}
	return all, zombies
}

// TestNoZombiesAsPID1 runs chartd as PID 1 of a new PID namespace, as in
// a pod without an init, recycling its browser every 5 renders: after
// 100 PNGs (20 recycles) no zombie is left under it. Chromium's helpers
// (zygote, crashpad) outlive the browser that started them and are
// re-parented to PID 1, which must reap them.
func TestNoZombiesAsPID1(t *testing.T) {
	if os.Getuid() != 0 {
		t.Fatal("this test runs chartd in a new PID namespace (unshare --pid), which needs root")
	}
	bin := chartdBinary(t)
	dir := t.TempDir()
	addr := freeAddr(t)
	in := instance{url: "http://" + addr, open: storeOpener(Config{DataDir: dir})}
	key := in.newAccount(t, "pro")
	cmd := exec.Command("unshare", "--pid", "--fork", "--mount-proc", bin, "-target=all", "-data-dir", dir, "-addr", addr,
		"-render.browsers=1", "-render.recycle-renders=5", "-shutdown.delay=0s")
	var logs lockedBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitURL(t, in.url+"/readyz", nil, nil)
	kids, _ := childrenOf(cmd.Process.Pid)
	if len(kids) != 1 {
		cmd.Process.Kill()
		cmd.Wait()
		t.Fatalf("unshare has %d children, want chartd alone", len(kids))
	}
	init := kids[0]
	// unshare ignores SIGINT while it waits: stop chartd itself.
	t.Cleanup(func() {
		syscall.Kill(init, syscall.SIGINT)
		cmd.Wait()
	})
	c := newClient(t, in.url, key)
	for i := range 100 {
		csv := fmt.Sprintf("Country,Sales\nGermany,%d\nFrance,%d\n", 100+i, 50+i)
		if a := c.doPatient("POST", "/api/v1/render", map[string]any{"type": "bar", "data": csv, "format": "png"}); a.status != 200 {
			t.Fatalf("render %d: %d %.200s", i+1, a.status, a.body)
		}
	}
	if n := strings.Count(logs.String(), "recycled after its renders"); n < 20 {
		t.Fatalf("%d browser recycles, want at least 20:\n%s", n, logs.String())
	}
	// Reaping follows SIGCHLD: wait for the condition, not a fixed time.
	deadline := time.Now().Add(10 * time.Second)
	for {
		_, zombies := childrenOf(init)
		if len(zombies) == 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d zombies under chartd (PID 1 of its namespace) after 20 browser recycles: %v", len(zombies), zombies)
		}
		time.Sleep(50 * time.Millisecond)
	}
}
