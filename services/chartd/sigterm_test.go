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

	"chartd.dev/libs/testserver"
)

// TestSIGTERMDrains runs the binary, starts a create_chart whose body is
// still arriving, sends SIGTERM, then finishes the body: for
// -shutdown.delay /readyz answers 503 while new requests are still
// served; then new connections are refused, the in-flight request is
// answered, and the process exits cleanly.
func TestSIGTERMDrains(t *testing.T) {
	pace := testserver.MeasurePace()
	bin := chartdBinary(t)
	dir := t.TempDir()
	addr := freeAddr(t)
	in := instance{url: "http://" + addr, open: storeOpener(Config{DataDir: dir})}
	const delay = 2 * time.Second
	cmd := exec.Command(bin, "-target=all", "-data-dir", dir, "-addr", addr, "-log-level", "warn", "-render.browsers=1", "-shutdown.delay="+delay.String())
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
	// The server may take the signal before Signal returns: the delay is
	// measured from before sending, the upper bounds from after.
	sending := time.Now()
	if err := cmd.Process.Signal(syscall.SIGTERM); err != nil {
		t.Fatal(err)
	}
	signalled := time.Now()
	// Draining: not ready, still serving, for the delay.
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err != nil {
			t.Fatalf("/readyz during the delay: %v", err)
		}
		resp.Body.Close()
		if resp.StatusCode == 503 {
			break
		}
		if time.Since(signalled) > delay/2 {
			t.Fatalf("/readyz still %d %s after SIGTERM", resp.StatusCode, time.Since(signalled))
		}
		time.Sleep(20 * time.Millisecond)
	}
	req, _ := http.NewRequest("GET", "http://"+addr+"/api/v1/chart-types", nil)
	req.Header.Set("Authorization", "Bearer "+key)
	resp, err := http.DefaultClient.Do(req)
	if err != nil || resp.StatusCode != 200 {
		t.Fatalf("a new request during the delay: %v %v", resp, err)
	}
	resp.Body.Close()
	if time.Since(signalled) >= delay {
		t.Fatalf("the checks took the whole delay (%s); they prove nothing", time.Since(signalled))
	}
	// After the delay: no new connections.
	for {
		c, err := net.DialTimeout("tcp", addr, time.Second)
		if err != nil {
			if since := time.Since(sending); since < delay {
				t.Fatalf("connections refused %s after SIGTERM, before the %s delay", since, delay)
			}
			break
		}
		c.Close()
		if time.Since(signalled) > delay+pace.Scale(5*time.Second) {
			t.Fatalf("new connections still accepted %v after the delay", pace.Scale(5*time.Second))
		}
		time.Sleep(20 * time.Millisecond)
	}
	fmt.Fprint(conn, body[10:])
	resp, err = http.ReadResponse(bufio.NewReader(conn), nil)
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
