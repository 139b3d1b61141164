package main

import (
	"fmt"
	"math/rand/v2"
	"strings"
	"testing"

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

	// About 1 MiB of CSV that SQLite cannot pack smaller.
	rng := rand.New(rand.NewPCG(25, 15))
	bigData := func() string {
		var b strings.Builder
		b.WriteString("label,value\n")
		for b.Len() < 1<<20 {
			fmt.Fprintf(&b, "k%016x%016x,%d\n", rng.Uint64(), rng.Uint64(), rng.IntN(1e6))
		}
		return b.String()
	}
	storageFull := func(what string, a answer) {
		t.Helper()
		if a.status != 500 || a.errCode(t) != "internal" || a.header.Get("Retry-After") == "" ||
			!strings.Contains(string(a.body), "storage is full") || !strings.Contains(string(a.body), "not a fault of the request") {
			t.Fatalf("%s on a full disk: %d Retry-After %q %s", what, a.status, a.header.Get("Retry-After"), a.body)
		}
	}

	// A write that finds no room spends the reserve and moves the WAL into
	// the database file; when that gives back enough room the service
	// takes writes again at once. Fill until it cannot.
	var ids []string
	refusals := 0
	for len(ids) < 40 {
		a := c.do("POST", "/api/v1/charts", map[string]any{"type": "bar", "data": bigData()})
		if a.status == 201 {
			var out struct{ Chart struct{ ID string } }
			a.json(t, &out)
			ids = append(ids, out.Chart.ID)
			continue
		}
		refusals++
		storageFull("create_chart", a)
		ready := anon.do("GET", "/readyz", nil)
		if ready.status == 503 {
			if !strings.Contains(string(ready.body), "storage full") {
				t.Fatalf("readyz on a full disk: %d %s", ready.status, ready.body)
			}
			break
		}
	}
	if len(ids) == 0 || len(ids) == 40 {
		t.Fatalf("%d charts of 1 MiB fit on a 16 MiB disk", len(ids))
	}
	t.Logf("disk full after %d charts (%d refusals)", len(ids), refusals)

	// The room the reserve gave is kept for deletes: writes wait.
	storageFull("create_chart again", c.do("POST", "/api/v1/charts", map[string]any{"type": "bar", "data": "a,b\nx,1\n"}))
	storageFull("apply_ops", c.do("POST", "/api/v1/charts/"+ids[0]+"/ops", map[string]any{"ops": []any{map[string]any{"op": "setTitle", "title": map[string]any{"text": "full"}}}}))
	storageFull("duplicate", c.do("POST", "/api/v1/charts/"+ids[0]+"/duplicate", nil))
	// The account's first image link needs a signing key stored.
	storageFull("create_image_url", c.do("POST", "/api/v1/image-urls", map[string]any{"id": ids[0]}))
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
	if a := c.do("POST", "/api/v1/charts", map[string]any{"type": "bar", "data": bigData()}); a.status != 201 {
		t.Fatalf("create_chart after deletes freed space: %d %s", a.status, a.body)
	}
	if a := c.do("POST", "/api/v1/charts/"+ids[len(ids)-1]+"/duplicate", nil); a.status != 201 {
		t.Fatalf("duplicate after deletes freed space: %d %s", a.status, a.body)
	}
	if a := c.do("POST", "/api/v1/image-urls", map[string]any{"id": ids[len(ids)-1]}); a.status != 200 {
		t.Fatalf("create_image_url after deletes freed space: %d %s", a.status, a.body)
	}
}
