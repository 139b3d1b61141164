package main

import (
	"bytes"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"chartd.dev/libs/testserver"
)

// TestDiskFull fills a real 16 MiB disk (a tmpfs under -data-dir) with
// charts through the API, on the embedded SQLite store: the write that
// finds no room, and the writes after it, answer the contract's internal
// 500 with Retry-After and a message that says the storage is full and
// the caller is not at fault; /readyz says not ready, naming storage full;
// reads and deletes are served on the full disk; once deletes have given
// space back, /readyz is ready and creates work again.
func TestDiskFull(t *testing.T) {
	dir := t.TempDir()
	unmount, err := testserver.MountTmpfs(dir, 16<<20)
	if err != nil {
		t.Fatalf("this test needs a real full disk: %v", err)
	}
	t.Cleanup(func() {
		if err := unmount(); err != nil {
			t.Error(err)
		}
	})
	in := startAll(t, "-data-dir", dir, "-sqlite-reserve-mib", "3")
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	anon := newClient(t, in.url, "")

	ids := fillThroughAPI(t, c, anon)

	// The room the reserve gave is kept for deletes: writes wait.
	storageFull(t, "create_chart again", c.do("POST", "/api/v1/charts", map[string]any{"type": "bar", "data": "a,b\nx,1\n"}))
	storageFull(t, "apply_ops", c.do("POST", "/api/v1/charts/"+ids[0]+"/ops", map[string]any{"ops": []any{map[string]any{"op": "setTitle", "title": map[string]any{"text": "full"}}}}))
	storageFull(t, "duplicate", c.do("POST", "/api/v1/charts/"+ids[0]+"/duplicate", nil))
	// The account's first image link needs a signing key stored.
	storageFull(t, "create_image_url", c.do("POST", "/api/v1/image-urls", map[string]any{"id": ids[0]}))
	// Reads are served.
	if a := c.do("GET", "/api/v1/charts/"+ids[0], nil); a.status != 200 {
		t.Fatalf("get_chart on a full disk: %d %s", a.status, a.body)
	}
	// Deletes go through, and give the space back.
	for i, id := range ids[:len(ids)-2] {
		if a := c.do("DELETE", "/api/v1/charts/"+id, nil); a.status != 200 {
			t.Fatalf("delete %d of %d on a full disk: %d %s", i+1, len(ids)-2, a.status, a.body)
		}
	}
	if a := anon.do("GET", "/readyz", nil); a.status != 200 {
		t.Fatalf("readyz after deletes freed space: %d %s", a.status, a.body)
	}
	if a := c.do("POST", "/api/v1/charts", map[string]any{"type": "bar", "data": bigCSV(rand.New(rand.NewPCG(26, 15)))}); a.status != 201 {
		t.Fatalf("create_chart after deletes freed space: %d %s", a.status, a.body)
	}
	if a := c.do("POST", "/api/v1/charts/"+ids[len(ids)-1]+"/duplicate", nil); a.status != 201 {
		t.Fatalf("duplicate after deletes freed space: %d %s", a.status, a.body)
	}
	if a := c.do("POST", "/api/v1/image-urls", map[string]any{"id": ids[len(ids)-1]}); a.status != 200 {
		t.Fatalf("create_image_url after deletes freed space: %d %s", a.status, a.body)
	}
}

// TestDiskFullRestart fills a real 16 MiB disk through the API of a chartd
// process until the store is full (its reserve spent), and then through
// another writer (a file on the same volume) until not a byte is free.
// The image cache under the same -data-dir keeps its floor free: a PNG
// drawn on the full disk is served but not cached. A delete still goes
// through and the chart is gone. chartd restarted on that disk starts
// (it used to exit with "database or disk is full" and crash-loop), says
// not ready, serves reads and deletes; and when even the deletes' own
// reserve is gone and its room taken, a delete says that nothing was
// deleted, and nothing was.
func TestDiskFullRestart(t *testing.T) {
	dir := t.TempDir()
	unmount, err := testserver.MountTmpfs(dir, 16<<20)
	if err != nil {
		t.Fatalf("this test needs a real full disk: %v", err)
	}
	t.Cleanup(func() {
		if err := unmount(); err != nil {
			t.Error(err)
		}
	})
	bin := chartdBinary(t)
	addr := freeAddr(t)
	pub := "http://" + addr
	args := []string{"-target=all", "-data-dir", dir, "-public-url", pub, "-render.browsers=1",
		"-gateway.mail.smtp-url", shared.smtp.URL(), "-sqlite-reserve-mib", "3", "-render.image-cache-min-free-mib", "6"}
	proc := startProcess(t, bin, addr, args...)
	waitURL(t, pub+"/readyz", nil, args) // the browser is warm
	in := instance{url: pub, open: storeOpener(Config{DataDir: dir})}
	key := in.newAccount(t, "pro")
	c := newClient(t, pub, key)
	anon := newClient(t, pub, "")

	// A PNG drawn while the disk has room is cached.
	var small struct{ Chart struct{ ID string } }
	a := c.do("POST", "/api/v1/charts", map[string]any{"type": "bar", "data": "a,b\nx,1\ny,2\n"})
	if a.status != 201 {
		t.Fatalf("create_chart: %d %s", a.status, a.body)
	}
	a.json(t, &small)
	png := func(scale int) {
		t.Helper()
		a := c.do("GET", fmt.Sprintf("/api/v1/charts/%s/render.png?scale=%d", small.Chart.ID, scale), nil)
		if a.status != 200 || !bytes.HasPrefix(a.body, []byte("\x89PNG")) {
			t.Fatalf("render_chart png scale %d: %d %.200s", scale, a.status, a.body)
		}
	}
	png(1)
	for deadline := time.Now().Add(time.Minute); cached(t, dir) != 1; time.Sleep(20 * time.Millisecond) {
		if time.Now().After(deadline) {
			t.Fatalf("%d PNGs cached a minute after one was drawn with room on the disk", cached(t, dir))
		}
	}

	ids := fillThroughAPI(t, c, anon)
	// Under the floor the cache writes nothing, and still serves.
	png(2)
	png(1)
	if err := testserver.FillDisk(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
	if a := c.do("DELETE", "/api/v1/charts/"+ids[0], nil); a.status != 200 {
		t.Fatalf("delete on a disk another writer filled: %d %s", a.status, a.body)
	}
	if a := c.do("GET", "/api/v1/charts/"+ids[0], nil); a.status != 404 {
		t.Fatalf("get_chart of a deleted chart: %d %s", a.status, a.body)
	}

	// Restart: a stopping chartd writes its pending cache writes first.
	proc.Process.Signal(os.Interrupt)
	proc.Wait()
	if n := cached(t, dir); n != 1 {
		t.Fatalf("%d PNGs in the image cache, want the 1 drawn before the disk filled", n)
	}
	if err := testserver.FillDisk(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
	startProcess(t, bin, addr, args...)
	c, anon = newClient(t, pub, key), newClient(t, pub, "")
	if a := anon.do("GET", "/readyz", nil); a.status != 503 || !strings.Contains(string(a.body), "storage full") {
		t.Fatalf("readyz after a restart on a full disk: %d %s", a.status, a.body)
	}
	if a := c.do("GET", "/api/v1/charts/"+ids[1], nil); a.status != 200 {
		t.Fatalf("get_chart after a restart on a full disk: %d %s", a.status, a.body)
	}
	if a := c.do("DELETE", "/api/v1/charts/"+ids[1], nil); a.status != 200 {
		t.Fatalf("delete after a restart on a full disk: %d %s", a.status, a.body)
	}
	if a := c.do("GET", "/api/v1/charts/"+ids[1], nil); a.status != 404 {
		t.Fatalf("get_chart of a deleted chart: %d %s", a.status, a.body)
	}

	// No room at all, not even the deletes' own: the answer says so.
	if err := os.Remove(filepath.Join(dir, "chartd.db.reserve-delete")); err != nil && !errors.Is(err, fs.ErrNotExist) {
		t.Fatal(err)
	}
	if err := testserver.FillDisk(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
	a = c.do("DELETE", "/api/v1/charts/"+ids[2], nil)
	storageFull(t, "delete with no room at all", a)
	if !strings.Contains(string(a.body), "nothing was deleted") {
		t.Fatalf("delete with no room at all: %s, want it to say nothing was deleted", a.body)
	}
	if a := c.do("GET", "/api/v1/charts/"+ids[2], nil); a.status != 200 {
		t.Fatalf("get_chart of a chart whose delete failed: %d %s", a.status, a.body)
	}
	if err := os.Remove(filepath.Join(dir, "filler")); err != nil {
		t.Fatal(err)
	}
	if a := c.do("DELETE", "/api/v1/charts/"+ids[2], nil); a.status != 200 {
		t.Fatalf("delete once space is back: %d %s", a.status, a.body)
	}
}

// cached counts the PNGs in the image cache under dir, the -data-dir.
func cached(t *testing.T, dir string) int {
	t.Helper()
	n := 0
	err := filepath.WalkDir(filepath.Join(dir, "images"), func(path string, d fs.DirEntry, err error) error {
		if err == nil && d.Type().IsRegular() && !strings.HasPrefix(d.Name(), "put~") {
			n++
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return n
}

// storageFull checks a on a full disk is the contract's internal 500 with
// Retry-After and a message that says the storage is full and the caller
// is not at fault.
func storageFull(t *testing.T, what string, a answer) {
	t.Helper()
	if a.status != 500 || a.errCode(t) != "internal" || a.header.Get("Retry-After") == "" ||
		!strings.Contains(string(a.body), "storage is full") || !strings.Contains(string(a.body), "not a fault of the request") {
		t.Fatalf("%s on a full disk: %d Retry-After %q %s", what, a.status, a.header.Get("Retry-After"), a.body)
	}
}

// fillThroughAPI creates charts of about 1 MiB of CSV that SQLite cannot
// pack smaller until /readyz says the storage is full: a write that finds
// no room spends the reserve and moves the WAL into the database file, and
// when that gives back enough room the service takes writes again at once.
// It answers the charts made.
func fillThroughAPI(t *testing.T, c, anon *client) []string {
	t.Helper()
	rng := rand.New(rand.NewPCG(25, 15))
	var ids []string
	refusals := 0
	for len(ids) < 40 {
		a := c.do("POST", "/api/v1/charts", map[string]any{"type": "bar", "data": bigCSV(rng)})
		if a.status == 201 {
			var out struct{ Chart struct{ ID string } }
			a.json(t, &out)
			ids = append(ids, out.Chart.ID)
			continue
		}
		refusals++
		storageFull(t, "create_chart", a)
		ready := anon.do("GET", "/readyz", nil)
		if ready.status == 503 {
			if !strings.Contains(string(ready.body), "storage full") {
				t.Fatalf("readyz on a full disk: %d %s", ready.status, ready.body)
			}
			t.Logf("disk full after %d charts (%d refusals)", len(ids), refusals)
			return ids
		}
	}
	t.Fatalf("%d charts of 1 MiB fit on the disk and the store is not full", len(ids))
	return nil
}

// bigCSV is about 1 MiB of CSV that SQLite cannot pack smaller.
func bigCSV(rng *rand.Rand) string {
	var b strings.Builder
	b.WriteString("label,value\n")
	for b.Len() < 1<<20 {
		fmt.Fprintf(&b, "k%016x%016x,%d\n", rng.Uint64(), rng.Uint64(), rng.IntN(1e6))
	}
	return b.String()
}
