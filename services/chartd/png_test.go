package main

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"
)

// TestPNGCache: a PNG is kept in the image store under its picture hash;
// the same picture again is served from there, byte for byte, and adds
// nothing to the store.
func TestPNGCache(t *testing.T) {
	dir := t.TempDir()
	in := startAll(t, "-data-dir", dir)
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	files := func() []string {
		var out []string
		filepath.WalkDir(filepath.Join(dir, "images"), func(p string, d os.DirEntry, err error) error {
			// put~* are writes in flight, renamed into place when whole.
			if err == nil && !d.IsDir() && !strings.HasPrefix(d.Name(), "put~") {
				out = append(out, p)
			}
			return nil
		})
		return out
	}
	body := map[string]any{"type": "bar", "data": salesCSV, "scale": 2}
	first := c.do("POST", "/api/v1/render", body)
	if first.status != 200 {
		t.Fatalf("%d %s", first.status, first.body)
	}
	// The store is written off the request's path: wait for it.
	stored := files()
	for deadline := time.Now().Add(10 * time.Second); len(stored) == 0 && time.Now().Before(deadline); stored = files() {
		time.Sleep(5 * time.Millisecond)
	}
	if len(stored) != 1 {
		t.Fatalf("image store holds %v after one PNG", stored)
	}
	onDisk, _ := os.ReadFile(stored[0])
	if !bytes.Equal(onDisk, first.body) {
		t.Fatal("the stored PNG is not the one answered")
	}
	// Make the stored copy recognisable: a hit must answer it as is.
	marked := append(bytes.Clone(onDisk), "chartd-cache-hit"...)
	if err := os.WriteFile(stored[0], marked, 0o600); err != nil {
		t.Fatal(err)
	}
	again := c.do("POST", "/api/v1/render", body)
	if !bytes.Equal(again.body, marked) {
		t.Fatal("the same picture again was drawn anew, not served from the image store")
	}
	if n := len(files()); n != 1 {
		t.Fatalf("image store holds %d files after the same picture twice", n)
	}
	// Another scale is another picture.
	body["scale"] = 1
	if a := c.do("POST", "/api/v1/render", body); a.status != 200 {
		t.Fatalf("scale 1: %d", a.status)
	}
	for deadline := time.Now().Add(10 * time.Second); len(files()) != 2; time.Sleep(5 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("image store holds %d files after two pictures", len(files()))
		}
	}
}

// TestPNGBusy: with one tab and a short deadline, a burst of PNGs gets
// some 429 rate_limited answers with Retry-After and a message about the
// render fleet; none hangs and none is a 500. The pictures are within the
// cost budget of that deadline (2/5 of it), so they are drawn, not
// refused as too heavy; one that still overruns the deadline answers 413.
func TestPNGBusy(t *testing.T) {
	in := startAll(t, "-render.tabs=1", "-render.deadline=250ms")
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	var mu sync.Mutex
	statuses := map[int]int{}
	var busy answer
	var wg sync.WaitGroup
	for i := range 16 {
		wg.Go(func() {
			var rows strings.Builder
			rows.WriteString("x,y\n")
			for j := range 3000 {
				fmt.Fprintf(&rows, "%d,%d\n", j, (j*7919+i)%1000)
			}
			a := c.do("POST", "/api/v1/render", map[string]any{"type": "scatter", "data": rows.String(), "width": 400, "height": 400})
			mu.Lock()
			statuses[a.status]++
			if a.status == 429 {
				busy = a
			}
			mu.Unlock()
		})
	}
	done := make(chan struct{})
	go func() { wg.Wait(); close(done) }()
	select {
	case <-done:
	case <-time.After(60 * time.Second):
		t.Fatal("renders hung")
	}
	if statuses[429] == 0 || statuses[500] > 0 || statuses[200]+statuses[413]+statuses[429] != 16 {
		t.Fatalf("statuses %v: want some 429 and no 500", statuses)
	}
	if busy.errCode(t) != "rate_limited" || busy.header.Get("Retry-After") == "" || !strings.Contains(string(busy.body), "render fleet is busy") {
		t.Fatalf("busy answer: %v %s", busy.header, busy.body)
	}
}
