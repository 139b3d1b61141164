package sqlite_test

import (
	"context"
	"crypto/rand"
	"errors"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"chartd.dev/libs/store"
	"chartd.dev/libs/store/sqlite"
	"chartd.dev/libs/testserver"
)

// fullDisk mounts a size-byte tmpfs on a fresh directory, unmounted at
// cleanup (after everything registered later, such as a store's close).
func fullDisk(t *testing.T, size int64) string {
	t.Helper()
	dir := t.TempDir()
	unmount, err := testserver.MountTmpfs(dir, size)
	if err != nil {
		t.Fatalf("a real full disk is needed: %v", err)
	}
	t.Cleanup(func() {
		if err := unmount(); err != nil {
			t.Error(err)
		}
	})
	return dir
}

// freeBytes answers the space left on dir's file system.
func freeBytes(t *testing.T, dir string) int64 {
	t.Helper()
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	return int64(st.Bavail) * st.Bsize
}

// TestFullDiskKeepsDeletes fills a real 8 MiB disk with charts: the write
// that finds no room is store.ErrStorageFull (SQLITE_FULL classified), the
// store stops taking writes and says so on Ping, a delete still goes
// through, and once deletes have given space back the store takes writes
// again with its reserve remade.
func TestFullDiskKeepsDeletes(t *testing.T) {
	dir := fullDisk(t, 8<<20)
	ctx := context.Background()
	path := filepath.Join(dir, "chartd.db")
	const reserve = 1 << 20
	s, err := sqlite.OpenWith(ctx, path, sqlite.Options{ReserveBytes: reserve})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	if st, err := os.Stat(path + ".reserve"); err != nil || st.Size() != reserve {
		t.Fatalf("reserve after open: %v %v", st, err)
	}
	a, err := s.CreateAccount(ctx, store.PlanPro)
	if err != nil {
		t.Fatal(err)
	}
	newChart := func() (store.Chart, error) {
		raw := make([]byte, 256<<10)
		rand.Read(raw)
		return s.CreateChart(ctx, store.Chart{AccountID: a.ID, Name: "big", Type: "bar", Spec: []byte(`{}`),
			Data: &store.Dataset{Format: "csv", Raw: raw}}, 0)
	}
	// A write that finds no room spends the reserve and moves the WAL into
	// the database file; when that gives back enough room the store takes
	// writes again at once. Fill until it cannot.
	var made []string
	fulls := 0
	for len(made) < 64 {
		c, err := newChart()
		if err == nil {
			made = append(made, c.ID)
			continue
		}
		if !errors.Is(err, store.ErrStorageFull) {
			t.Fatalf("create %d on a full disk: %v, want store.ErrStorageFull", len(made)+1, err)
		}
		fulls++
		if !s.Full() {
			t.Fatal("store not in its full state after a write found no room")
		}
		if err := s.Ping(ctx); err != nil {
			if !errors.Is(err, store.ErrStorageFull) {
				t.Fatalf("ping on a full disk: %v, want store.ErrStorageFull", err)
			}
			break
		}
	}
	if len(made) == 0 || len(made) == 64 {
		t.Fatalf("%d charts of 256 KiB made on an 8 MiB disk", len(made))
	}
	t.Logf("disk full after %d charts (%d refusals)", len(made), fulls)
	if _, err := os.Stat(path + ".reserve"); !errors.Is(err, os.ErrNotExist) {
		t.Fatalf("reserve not released on a full disk: %v", err)
	}
	// The room the reserve gave is for deletes: writes wait.
	if _, err := newChart(); !errors.Is(err, store.ErrStorageFull) {
		t.Fatalf("create while full: %v, want store.ErrStorageFull", err)
	}
	if _, err := s.UpdateChart(ctx, store.Chart{AccountID: a.ID, ID: made[0], Name: "x", Type: "bar", Spec: []byte(`{}`)}, nil); !errors.Is(err, store.ErrStorageFull) {
		t.Fatalf("update while full: %v, want store.ErrStorageFull", err)
	}
	// Reads are served.
	if _, err := s.GetChartWithData(ctx, a.ID, made[0]); err != nil {
		t.Fatalf("read while full: %v", err)
	}
	before := freeBytes(t, dir)
	gone := made[:len(made)-3]
	for i, id := range gone {
		if err := s.DeleteChart(ctx, a.ID, id); err != nil {
			t.Fatalf("delete %d of %d on a full disk: %v", i+1, len(gone), err)
		}
	}
	if _, err := s.GetChart(ctx, a.ID, made[0]); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted chart still there: %v", err)
	}
	// The deletes may have remade the reserve out of what they gave back.
	after := freeBytes(t, dir)
	for _, f := range []string{".reserve", ".reserve-delete", "-wal"} {
		if st, err := os.Stat(path + f); err == nil {
			after += st.Size()
		}
	}
	if after < before+int64(len(gone))*200<<10 {
		t.Fatalf("%d deletes of 256 KiB gave back %d bytes to the file system (free %d -> %d)", len(gone), after-before, before, after)
	}
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("ping after deletes freed space: %v", err)
	}
	if s.Full() {
		t.Fatal("store still full after deletes freed space")
	}
	if st, err := os.Stat(path + ".reserve"); err != nil || st.Size() != reserve {
		t.Fatalf("reserve not remade: %v %v", st, err)
	}
	if _, err := newChart(); err != nil {
		t.Fatalf("create after space came back: %v", err)
	}
}

// TestOpenOnFullDisk opens a store whose disk is already full: it opens
// (reads and deletes must stay possible) in its full state.
func TestOpenOnFullDisk(t *testing.T) {
	dir := fullDisk(t, 2<<20)
	ctx := context.Background()
	path := filepath.Join(dir, "chartd.db")
	s, err := sqlite.OpenWith(ctx, path, sqlite.Options{ReserveBytes: 512 << 10})
	if err != nil {
		t.Fatal(err)
	}
	s.Close()
	// Fill what is left with a file that is not the store's.
	filler := filepath.Join(dir, "filler")
	fillFile(t, filler)
	s, err = sqlite.OpenWith(ctx, path, sqlite.Options{ReserveBytes: 512 << 10})
	if err != nil {
		t.Fatalf("open on a full disk: %v", err)
	}
	defer s.Close()
	if !s.Full() {
		t.Fatal("store opened on a full disk is not in its full state")
	}
	if err := s.Ping(ctx); !errors.Is(err, store.ErrStorageFull) {
		t.Fatalf("ping: %v, want store.ErrStorageFull", err)
	}
	os.Remove(filler)
	if err := s.Ping(ctx); err != nil {
		t.Fatalf("ping after space came back: %v", err)
	}
}

// fillFile fills the disk of path through that file, as a writer other
// than the store would.
func fillFile(t *testing.T, path string) {
	t.Helper()
	if err := testserver.FillDisk(path); err != nil {
		t.Fatal(err)
	}
}

// fillStore creates charts of 256 KiB of random data in account a until
// the store is in its full state (the reserve spent and not remade), and
// answers their ids.
func fillStore(t *testing.T, s *sqlite.Store, a store.Account) []string {
	t.Helper()
	ctx := context.Background()
	var made []string
	for len(made) < 64 {
		raw := make([]byte, 256<<10)
		rand.Read(raw)
		c, err := s.CreateChart(ctx, store.Chart{AccountID: a.ID, Name: "big", Type: "bar", Spec: []byte(`{}`),
			Data: &store.Dataset{Format: "csv", Raw: raw}}, 0)
		if err == nil {
			made = append(made, c.ID)
			continue
		}
		if !errors.Is(err, store.ErrStorageFull) {
			t.Fatalf("create %d on a full disk: %v, want store.ErrStorageFull", len(made)+1, err)
		}
		if err := s.Ping(ctx); errors.Is(err, store.ErrStorageFull) {
			return made
		}
	}
	t.Fatalf("%d charts of 256 KiB made and the store is not full", len(made))
	return nil
}

// TestDeleteWhenAnotherWriterTookTheRoom fills a real disk with charts
// until the store is full (its reserve spent), then lets another writer
// take every byte the reserve gave back: a delete still goes through and
// the chart is gone (the deletes' own reserve), the deletes' reserve is
// made again from what the delete gave back; and when even that room is
// taken (the deletes' reserve removed by hand and its room filled), the
// delete says that nothing was deleted, and the chart is still there.
func TestDeleteWhenAnotherWriterTookTheRoom(t *testing.T) {
	dir := fullDisk(t, 8<<20)
	ctx := context.Background()
	path := filepath.Join(dir, "chartd.db")
	s, err := sqlite.OpenWith(ctx, path, sqlite.Options{ReserveBytes: 1 << 20})
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { s.Close() })
	a, err := s.CreateAccount(ctx, store.PlanPro)
	if err != nil {
		t.Fatal(err)
	}
	made := fillStore(t, s, a)
	filler := filepath.Join(dir, "filler")
	fillFile(t, filler)
	if free := freeBytes(t, dir); free != 0 {
		t.Fatalf("%d bytes free after the other writer", free)
	}
	if err := s.DeleteChart(ctx, a.ID, made[0]); err != nil {
		t.Fatalf("delete on a disk another writer filled: %v", err)
	}
	if _, err := s.GetChart(ctx, a.ID, made[0]); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted chart still there: %v", err)
	}
	if _, err := os.Stat(path + ".reserve-delete"); err != nil {
		t.Fatalf("deletes' reserve not made again after a delete gave 256 KiB back: %v", err)
	}

	// Now take the deletes' room too.
	if err := os.Remove(path + ".reserve-delete"); err != nil {
		t.Fatal(err)
	}
	fillFile(t, filler)
	err = s.DeleteChart(ctx, a.ID, made[1])
	if !errors.Is(err, store.ErrStorageFull) || !errors.Is(err, store.ErrDeleteFull) {
		t.Fatalf("delete with no room at all: %v, want store.ErrStorageFull and store.ErrDeleteFull", err)
	}
	if _, err := s.GetChart(ctx, a.ID, made[1]); err != nil {
		t.Fatalf("a delete that said nothing was deleted deleted: %v", err)
	}
	if err := os.Remove(filler); err != nil {
		t.Fatal(err)
	}
	if err := s.DeleteChart(ctx, a.ID, made[1]); err != nil {
		t.Fatalf("delete once space is back: %v", err)
	}
}

// TestRestartOnFullDisk fills a real disk with charts until the store is
// full (its reserve spent), lets another writer take the rest, closes the
// store and opens it again, as a restarted chartd would: it opens, in its
// full state, serves reads and deletes, and the delete gives the chart's
// space back.
func TestRestartOnFullDisk(t *testing.T) {
	dir := fullDisk(t, 8<<20)
	ctx := context.Background()
	path := filepath.Join(dir, "chartd.db")
	o := sqlite.Options{ReserveBytes: 1 << 20}
	s, err := sqlite.OpenWith(ctx, path, o)
	if err != nil {
		t.Fatal(err)
	}
	a, err := s.CreateAccount(ctx, store.PlanPro)
	if err != nil {
		t.Fatal(err)
	}
	made := fillStore(t, s, a)
	fillFile(t, filepath.Join(dir, "filler"))
	if err := s.Close(); err != nil {
		t.Fatal(err)
	}
	if free := freeBytes(t, dir); free >= 256<<10 {
		t.Fatalf("%d bytes free at restart: not a full disk", free)
	}
	s, err = sqlite.OpenWith(ctx, path, o)
	if err != nil {
		t.Fatalf("open on a full disk whose reserve was spent: %v", err)
	}
	t.Cleanup(func() { s.Close() })
	if !s.Full() {
		t.Fatal("store opened on a full disk is not in its full state")
	}
	if _, err := s.GetChartWithData(ctx, a.ID, made[0]); err != nil {
		t.Fatalf("read after a restart on a full disk: %v", err)
	}
	before := freeBytes(t, dir)
	if err := s.DeleteChart(ctx, a.ID, made[0]); err != nil {
		t.Fatalf("delete after a restart on a full disk: %v", err)
	}
	if _, err := s.GetChart(ctx, a.ID, made[0]); !errors.Is(err, store.ErrNotFound) {
		t.Fatalf("deleted chart still there: %v", err)
	}
	after := freeBytes(t, dir)
	for _, f := range []string{".reserve", ".reserve-delete", "-wal"} {
		if st, err := os.Stat(path + f); err == nil {
			after += st.Size()
		}
	}
	if after < before+200<<10 {
		t.Fatalf("a delete of 256 KiB gave back %d bytes (free %d -> %d)", after-before, before, after)
	}
}

// BenchmarkDeleteChart times a delete of a chart with 64 KiB of data,
// which now gives its pages back to the file system (vacuum, checkpoint).
func BenchmarkDeleteChart(b *testing.B) {
	ctx := context.Background()
	s := openStore(b)
	a, err := s.CreateAccount(ctx, store.PlanPro)
	if err != nil {
		b.Fatal(err)
	}
	raw := make([]byte, 64<<10)
	ids := make([]string, b.N)
	for i := range ids {
		rand.Read(raw)
		c, err := s.CreateChart(ctx, store.Chart{AccountID: a.ID, Name: "d", Type: "bar", Spec: []byte(`{}`),
			Data: &store.Dataset{Format: "csv", Raw: raw}}, 0)
		if err != nil {
			b.Fatal(err)
		}
		ids[i] = c.ID
	}
	b.ResetTimer()
	for _, id := range ids {
		if err := s.DeleteChart(ctx, a.ID, id); err != nil {
			b.Fatal(err)
		}
	}
}
