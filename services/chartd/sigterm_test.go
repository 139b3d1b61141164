package main

import (
	"chartd.dev/libs/raster"

	"bufio"
	"fmt"
	"net"
	"net/http"
	"os"
	"os/exec"
	"strings"
	"syscall"
	"testing"
	"time"
)

// TestSIGTERMDrains runs the binary, starts a create_chart whose body is
// still arriving, sends SIGTERM, then finishes the body: the request is
// answered, new connections are refused, and the process exits cleanly.
func TestSIGTERMDrains(t *testing.T) {
	bin := chartdBinary(t)
	dir := t.TempDir()
	addr := freeAddr(t)
	in := instance{url: "http://" + addr, open: storeOpener(Config{DataDir: dir})}
	cmd := exec.Command(bin, "-target=all", "-data-dir", dir, "-addr", addr, "-log-level", "warn", "-render.browsers=1")
	// The Chromium pool lives under the process's TMPDIR: after exit,
	// nothing of it may be left running.
	tmp := t.TempDir()
	cmd.Env = append(os.Environ(), "TMPDIR="+tmp)
	var logs strings.Builder
	cmd.Stderr = &logs
	key := in.newAccount(t, "pro")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- cmd.Wait() }()
	deadline := time.Now().Add(60 * time.Second)
	for {
		if resp, err := http.Get("http://" + addr + "/readyz"); err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatalf("not ready: %s", logs.String())
		}
		time.Sleep(50 * time.Millisecond)
	}

	if len(raster.ProcsUnder(tmp)) == 0 {
		t.Fatal("no Chromium process runs under the process's TMPDIR; the check below would prove nothing")
	}
	body := `{"type":"bar","data":"Country,Sales\nGermany,120\nFrance,95\n"}`
	conn, err := net.Dial("tcp", addr)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	fmt.Fprintf(conn, "POST /api/v1/charts HTTP/1.1\r\nHost: %s\r\nAuthorization: Bearer %s\r\nContent-Type: application/json\r\nContent-Length: %d\r\n\r\n%s", addr, key, len(body), body[:10])
	time.Sleep(200 * time.Millisecond) // the server is now reading the body
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	time.Sleep(300 * time.Millisecond)
	if c, err := net.DialTimeout("tcp", addr, time.Second); err == nil {
		c.Close()
		t.Error("a new connection was accepted after SIGTERM")
	}
	fmt.Fprint(conn, body[10:])
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("the in-flight request got no answer: %v", err)
	}
	resp.Body.Close()
	if resp.StatusCode != 201 {
		t.Fatalf("in-flight request: %d", resp.StatusCode)
	}
	select {
	case err := <-exited:
		if err != nil {
			t.Fatalf("exit: %v\n%s", err, logs.String())
		}
	case <-time.After(15 * time.Second):
		cmd.Process.Kill()
		t.Fatal("the process did not exit after draining")
	}
	if left := raster.ProcsUnder(tmp); len(left) > 0 {
		t.Fatalf("Chromium processes outlived chartd: %v", left)
	}
}
