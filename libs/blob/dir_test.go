package blob_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"chartd.dev/libs/blob"
	"chartd.dev/libs/blob/blobtest"
	"chartd.dev/libs/testserver"
)

func TestDirConformance(t *testing.T) {
	blobtest.Run(t, func(t *testing.T) blob.Store {
		d, err := blob.NewDir(t.TempDir(), 64<<20, 0)
		if err != nil {
			t.Fatalf("NewDir: %v", err)
		}
		return d
	})
}

func newDir(t *testing.T, dir string, maxBytes int64) *blob.Dir {
	t.Helper()
	return newDirFloor(t, dir, maxBytes, 0)
}

func newDirFloor(t *testing.T, dir string, maxBytes, minFree int64) *blob.Dir {
	t.Helper()
	d, err := blob.NewDir(dir, maxBytes, minFree)
	if err != nil {
		t.Fatalf("NewDir(%s, %d, %d): %v", dir, maxBytes, minFree, err)
	}
	return d
}

func put(t *testing.T, s blob.Store, key string, size int) {
	t.Helper()
	if err := s.Put(context.Background(), key, payload(key, size), "image/png"); err != nil {
		t.Fatalf("Put(%q): %v", key, err)
	}
}

// payload is size copies of the key's last byte, so a read can be checked.
func payload(key string, size int) []byte {
	return bytes.Repeat([]byte(key[len(key)-1:]), size)
}

// want checks which keys are present (with their payload) and absent.
func want(t *testing.T, s blob.Store, present map[string]int, absent ...string) {
	t.Helper()
	for k, size := range present {
		got, err := s.Get(context.Background(), k)
		if err != nil {
			t.Errorf("Get(%q): %v; want it present", k, err)
		} else if !bytes.Equal(got, payload(k, size)) {
			t.Errorf("Get(%q) = %d bytes, want %d", k, len(got), size)
		}
	}
	for _, k := range absent {
		if _, err := s.Get(context.Background(), k); !errors.Is(err, blob.ErrNotFound) {
			t.Errorf("Get(%q) = %v, want ErrNotFound (evicted)", k, err)
		}
	}
}

func wantUsage(t *testing.T, d *blob.Dir, bytes int64, objects int) {
	t.Helper()
	if b, n := d.Usage(); b != bytes || n != objects {
		t.Fatalf("Usage() = %d bytes, %d objects; want %d, %d", b, n, bytes, objects)
	}
}

func TestDirEvictsLeastRecentlyUsed(t *testing.T) {
	d := newDir(t, t.TempDir(), 3000)
	put(t, d, "a", 1000)
	put(t, d, "b", 1000)
	put(t, d, "c", 1000)
	wantUsage(t, d, 3000, 3)
	// a is the oldest write but the most recent read: b goes first.
	want(t, d, map[string]int{"a": 1000})
	put(t, d, "d", 1000)
	wantUsage(t, d, 3000, 3)
	want(t, d, nil, "b")
	// Order now a, d, c (c just read): a 1500-byte object evicts a and d.
	want(t, d, map[string]int{"c": 1000})
	put(t, d, "e", 1500)
	wantUsage(t, d, 2500, 2)
	want(t, d, map[string]int{"c": 1000, "e": 1500}, "a", "d")
}

func TestDirAccounting(t *testing.T) {
	dir := t.TempDir()
	d := newDir(t, dir, 1000)
	put(t, d, "png/aa/x", 600)
	put(t, d, "png/aa/x", 10) // an overwrite replaces the size, it does not add
	wantUsage(t, d, 10, 1)
	put(t, d, "png/bb/y", 990) // exactly the cap: nothing evicted
	wantUsage(t, d, 1000, 2)
	if err := d.Put(context.Background(), "png/cc/z", make([]byte, 1001), "image/png"); err == nil ||
		!strings.Contains(err.Error(), "exceed the cache cap") {
		t.Fatalf("Put over the whole cap = %v, want a cap error", err)
	}
	wantUsage(t, d, 1000, 2)
	if err := d.Delete(context.Background(), "png/aa/x"); err != nil {
		t.Fatal(err)
	}
	wantUsage(t, d, 990, 1)
	checkDisk(t, d, dir)
}

func TestDirReopen(t *testing.T) {
	dir := t.TempDir()
	d := newDir(t, dir, 3000)
	put(t, d, "png/aa/a", 1000)
	put(t, d, "png/bb/b", 1000)
	put(t, d, "png/cc/c", 1000)
	want(t, d, map[string]int{"png/aa/a": 1000}) // a is now the most recently used
	// Debris a crash or an operator may leave: a temp file of an
	// interrupted Put (removed) and a file that is not a key (ignored).
	if err := os.WriteFile(filepath.Join(dir, "put~123"), []byte("partial"), 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.WriteFile(filepath.Join(dir, "README.TXT"), []byte("not a key"), 0o644); err != nil {
		t.Fatal(err)
	}

	d2 := newDir(t, dir, 3000)
	wantUsage(t, d2, 3000, 3)
	if _, err := os.Stat(filepath.Join(dir, "put~123")); !errors.Is(err, fs.ErrNotExist) {
		t.Errorf("temp file left after reopen: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "README.TXT")); err != nil {
		t.Errorf("foreign file removed: %v", err)
	}
	// The recency of the Get before the reopen survived: b is evicted.
	put(t, d2, "png/dd/d", 1000)
	want(t, d2, map[string]int{"png/aa/a": 1000, "png/cc/c": 1000, "png/dd/d": 1000}, "png/bb/b")

	// Reopening with a smaller cap evicts at once, oldest used first
	// (the Gets above ran in map order, so touch them in a known order).
	want(t, d2, map[string]int{"png/dd/d": 1000})
	want(t, d2, map[string]int{"png/aa/a": 1000})
	d3 := newDir(t, dir, 1500)
	wantUsage(t, d3, 1000, 1)
	want(t, d3, map[string]int{"png/aa/a": 1000}, "png/cc/c", "png/dd/d")
	checkDisk(t, d3, dir)
}

// checkDisk compares Usage with the key files actually on disk.
func checkDisk(t *testing.T, d *blob.Dir, dir string) {
	t.Helper()
	var bytes int64
	var objects int
	err := filepath.WalkDir(dir, func(path string, de fs.DirEntry, err error) error {
		if err != nil || de.IsDir() {
			return err
		}
		rel, _ := filepath.Rel(dir, path)
		if strings.Contains(rel, "~") {
			t.Errorf("temp file left behind: %s", rel)
		}
		if blob.ValidateKey(filepath.ToSlash(rel)) != nil {
			return nil
		}
		info, err := de.Info()
		if err != nil {
			return err
		}
		bytes += info.Size()
		objects++
		return nil
	})
	if err != nil {
		t.Fatal(err)
	}
	if b, n := d.Usage(); b != bytes || n != objects {
		t.Errorf("Usage() = %d bytes, %d objects; disk holds %d bytes, %d objects", b, n, bytes, objects)
	}
}

// TestDirConcurrentChurn mixes Put, Get and Delete on a small cap from 8
// goroutines; the index must still match the disk and the cap hold.
func TestDirConcurrentChurn(t *testing.T) {
	dir := t.TempDir()
	const maxBytes = 8000
	d := newDir(t, dir, maxBytes)
	var wg sync.WaitGroup
	for g := 0; g < 8; g++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(uint64(g), 1))
			for i := 0; i < 150; i++ {
				k := fmt.Sprintf("png/%02d/%c", rng.IntN(4), 'a'+rng.IntN(6))
				switch rng.IntN(3) {
				case 0:
					if err := d.Put(ctx, k, payload(k, 100+rng.IntN(1900)), "image/png"); err != nil {
						t.Error(err)
						return
					}
				case 1:
					got, err := d.Get(ctx, k)
					if err != nil && !errors.Is(err, blob.ErrNotFound) {
						t.Error(err)
						return
					}
					if err == nil && !bytes.Equal(got, payload(k, len(got))) {
						t.Errorf("Get(%q) answered bytes of another key", k)
						return
					}
				case 2:
					if err := d.Delete(ctx, k); err != nil {
						t.Error(err)
						return
					}
				}
			}
		}()
	}
	wg.Wait()
	if b, _ := d.Usage(); b > maxBytes {
		t.Errorf("Usage() = %d bytes, over the cap %d", b, maxBytes)
	}
	checkDisk(t, d, dir)
	// A reopen indexes the same objects.
	d2 := newDir(t, dir, maxBytes)
	b1, n1 := d.Usage()
	wantUsage(t, d2, b1, n1)
}

func TestNewDirErrors(t *testing.T) {
	if _, err := blob.NewDir("", 100, 0); err == nil {
		t.Error("NewDir with no directory succeeded")
	}
	if _, err := blob.NewDir(t.TempDir(), 0, 0); err == nil || !strings.Contains(err.Error(), "cap must be positive") {
		t.Errorf("NewDir with a zero cap = %v", err)
	}
	if _, err := blob.NewDir(t.TempDir(), 100, -1); err == nil || !strings.Contains(err.Error(), "floor") {
		t.Errorf("NewDir with a negative floor = %v", err)
	}
	file := filepath.Join(t.TempDir(), "file")
	os.WriteFile(file, nil, 0o644)
	if _, err := blob.NewDir(file, 100, 0); err == nil || !strings.Contains(err.Error(), file) {
		t.Errorf("NewDir on a regular file = %v, want an error naming it", err)
	}
}

func TestDirCancelledContext(t *testing.T) {
	d := newDir(t, t.TempDir(), 1000)
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	if err := d.Put(ctx, "a", []byte("x"), ""); !errors.Is(err, context.Canceled) {
		t.Errorf("Put with a cancelled context = %v", err)
	}
	if _, err := d.Get(ctx, "a"); !errors.Is(err, context.Canceled) {
		t.Errorf("Get with a cancelled context = %v", err)
	}
}

// TestDirKeepsFreeSpaceFloor fills a real 2 MiB disk through a Dir whose
// floor is 1 MiB: a Put that would leave less free writes nothing and says
// so (ErrLowSpace), the disk keeps the floor free, and what the cache holds
// is still served.
func TestDirKeepsFreeSpaceFloor(t *testing.T) {
	dir := t.TempDir()
	unmount, err := testserver.MountTmpfs(dir, 2<<20)
	if err != nil {
		t.Fatalf("a real small disk is needed: %v", err)
	}
	t.Cleanup(func() {
		if err := unmount(); err != nil {
			t.Error(err)
		}
	})
	const floor = 1 << 20
	d := newDirFloor(t, dir, 64<<20, floor)
	kept := map[string]int{}
	var refused string
	for i := range 16 {
		key := fmt.Sprintf("k%02d", i)
		err := d.Put(context.Background(), key, payload(key, 128<<10), "image/png")
		if err == nil {
			kept[key] = 128 << 10
			continue
		}
		if !errors.Is(err, blob.ErrLowSpace) {
			t.Fatalf("Put(%q) near the floor: %v, want ErrLowSpace", key, err)
		}
		refused = key
		break
	}
	if refused == "" || len(kept) == 0 {
		t.Fatalf("%d Puts of 128 KiB on a 2 MiB disk with a 1 MiB floor, refused %q", len(kept), refused)
	}
	var st syscall.Statfs_t
	if err := syscall.Statfs(dir, &st); err != nil {
		t.Fatal(err)
	}
	if free := int64(st.Bavail) * st.Bsize; free < floor {
		t.Fatalf("%d bytes free after the cache filled up, floor %d", free, floor)
	}
	want(t, d, kept, refused)
}
