// Package blobtest is the conformance suite every blob.Store backend must
// pass, so the render cache behaves the same on a directory and in a bucket.
package blobtest

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"strings"
	"sync"
	"testing"
	"time"

	"chartd.dev/libs/blob"
)

// Run runs the suite. open is called once per case and must answer an
// empty store (a fresh directory or bucket) that the case may fill; it owns
// any cleanup, through t.Cleanup.
func Run(t *testing.T, open func(t *testing.T) blob.Store) {
	cases := []struct {
		name string
		run  func(t *testing.T, ctx context.Context, s blob.Store)
	}{
		{"RoundTrip", roundTrip},
		{"Overwrite", overwrite},
		{"MissingKey", missingKey},
		{"DeleteIdempotent", deleteIdempotent},
		{"InvalidKeys", invalidKeys},
		{"ValidEdgeKeys", validEdgeKeys},
		{"ConcurrentSameKey", concurrentSameKey},
		{"LargeObject", largeObject},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			c.run(t, ctx, open(t))
		})
	}
}

// Key answers a cache-style key ("png/ab/abcd…") for a name, as the render
// service derives them from a hash.
func Key(name string) string {
	sum := sha256.Sum256([]byte(name))
	h := hex.EncodeToString(sum[:])
	return "png/" + h[:2] + "/" + h
}

func mustGet(t *testing.T, ctx context.Context, s blob.Store, key string) []byte {
	t.Helper()
	got, err := s.Get(ctx, key)
	if err != nil {
		t.Fatalf("Get(%q): %v", key, err)
	}
	return got
}

func mustPut(t *testing.T, ctx context.Context, s blob.Store, key string, data []byte) {
	t.Helper()
	if err := s.Put(ctx, key, data, "image/png"); err != nil {
		t.Fatalf("Put(%q, %d bytes): %v", key, len(data), err)
	}
}

func wantNotFound(t *testing.T, ctx context.Context, s blob.Store, key string) {
	t.Helper()
	got, err := s.Get(ctx, key)
	if !errors.Is(err, blob.ErrNotFound) {
		t.Fatalf("Get(%q) = %d bytes, %v; want an error wrapping ErrNotFound", key, len(got), err)
	}
}

func roundTrip(t *testing.T, ctx context.Context, s blob.Store) {
	objects := map[string][]byte{
		Key("a"):              []byte("\x89PNG\r\n\x1a\nfirst"),
		Key("b"):              bytes.Repeat([]byte{0, 1, 2, 255}, 1000),
		"png/ab/empty-object": {},
		"x":                   []byte("short key"),
	}
	for k, v := range objects {
		mustPut(t, ctx, s, k, v)
	}
	for k, v := range objects {
		if got := mustGet(t, ctx, s, k); !bytes.Equal(got, v) {
			t.Errorf("Get(%q) = %d bytes %.16q, want %d bytes %.16q", k, len(got), got, len(v), v)
		}
	}
}

func overwrite(t *testing.T, ctx context.Context, s blob.Store) {
	k := Key("overwrite")
	for _, v := range [][]byte{[]byte("a longer first version"), []byte("v2"), bytes.Repeat([]byte("3"), 5000)} {
		mustPut(t, ctx, s, k, v)
		if got := mustGet(t, ctx, s, k); !bytes.Equal(got, v) {
			t.Fatalf("after overwrite Get = %.20q (%d bytes), want %.20q (%d bytes)", got, len(got), v, len(v))
		}
	}
}

func missingKey(t *testing.T, ctx context.Context, s blob.Store) {
	wantNotFound(t, ctx, s, Key("never written"))
	// A key whose prefix holds other objects is still missing.
	mustPut(t, ctx, s, "png/ab/child", []byte("x"))
	wantNotFound(t, ctx, s, "png/ab")
	wantNotFound(t, ctx, s, "png/ab/chil")
}

func deleteIdempotent(t *testing.T, ctx context.Context, s blob.Store) {
	k, other := Key("deleted"), Key("kept")
	if err := s.Delete(ctx, k); err != nil {
		t.Fatalf("Delete of a never-written key: %v", err)
	}
	mustPut(t, ctx, s, k, []byte("doomed"))
	mustPut(t, ctx, s, other, []byte("kept"))
	for i := 0; i < 2; i++ {
		if err := s.Delete(ctx, k); err != nil {
			t.Fatalf("Delete #%d: %v", i+1, err)
		}
		wantNotFound(t, ctx, s, k)
	}
	if got := mustGet(t, ctx, s, other); string(got) != "kept" {
		t.Fatalf("Delete touched another key: %q", got)
	}
	// A deleted key can be written again.
	mustPut(t, ctx, s, k, []byte("back"))
	if got := mustGet(t, ctx, s, k); string(got) != "back" {
		t.Fatalf("Get after re-Put = %q", got)
	}
}

// InvalidKeys answers keys every backend must refuse, for backends' own
// tests.
func InvalidKeys() []string {
	return []string{
		"",
		"/png/ab/abc",
		"png/../etc/passwd",
		"..",
		"png/ab/..",
		"png/ab..c",
		"PNG/ab/abc",
		"png/ab/ABC",
		"png ab",
		"png/ab/abc\x00",
		"png\\ab",
		"png/ab/é",
		"png//ab",
		"png/ab/",
		"png/./ab",
		".",
		"png?x=1",
		"png/ab~1",
		strings.Repeat("a", blob.MaxKeyLen+1),
	}
}

func invalidKeys(t *testing.T, ctx context.Context, s blob.Store) {
	for _, k := range InvalidKeys() {
		if err := s.Put(ctx, k, []byte("x"), "image/png"); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("Put(%.40q) = %v, want ErrInvalidKey", k, err)
		}
		if _, err := s.Get(ctx, k); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("Get(%.40q) = %v, want ErrInvalidKey", k, err)
		}
		if err := s.Delete(ctx, k); !errors.Is(err, blob.ErrInvalidKey) {
			t.Errorf("Delete(%.40q) = %v, want ErrInvalidKey", k, err)
		}
	}
	// The error names the key, so the bad caller can be found.
	if err := s.Put(ctx, "png/../x", nil, ""); err == nil || !strings.Contains(err.Error(), `"png/../x"`) {
		t.Errorf("error %v does not quote the key", err)
	}
}

func validEdgeKeys(t *testing.T, ctx context.Context, s blob.Store) {
	keys := []string{
		"b",
		"png/ab/a.b.c",
		"svg/-_./x",
		"png/ab/.hidden",
		strings.Repeat("a/", blob.MaxKeyLen/2-1) + "zz",
	}
	for _, k := range keys {
		if len(k) > blob.MaxKeyLen {
			t.Fatalf("test key %d bytes long", len(k))
		}
		mustPut(t, ctx, s, k, []byte(k))
		if got := mustGet(t, ctx, s, k); string(got) != k {
			t.Errorf("Get(%.40q) = %.40q", k, got)
		}
	}
}

// concurrentSameKey has 8 goroutines write and read one key; every read
// must be one whole version (each carries its own checksum).
func concurrentSameKey(t *testing.T, ctx context.Context, s blob.Store) {
	const writers, rounds, size = 8, 8, 64 << 10
	k := Key("contended")
	version := func(w, r int) []byte {
		b := bytes.Repeat([]byte{byte(w*rounds + r)}, size)
		copy(b, fmt.Sprintf("writer %d round %d ", w, r))
		sum := sha256.Sum256(b[:size-32])
		copy(b[size-32:], sum[:])
		return b
	}
	whole := func(b []byte) bool {
		if len(b) != size {
			return false
		}
		sum := sha256.Sum256(b[:size-32])
		return bytes.Equal(sum[:], b[size-32:])
	}
	mustPut(t, ctx, s, k, version(0, 0))
	var wg sync.WaitGroup
	errs := make(chan error, writers*rounds*2)
	for w := 0; w < writers; w++ {
		wg.Add(1)
		go func() {
			defer wg.Done()
			for r := 0; r < rounds; r++ {
				if err := s.Put(ctx, k, version(w, r), "image/png"); err != nil {
					errs <- fmt.Errorf("writer %d Put: %w", w, err)
					return
				}
				got, err := s.Get(ctx, k)
				if err != nil {
					errs <- fmt.Errorf("writer %d Get: %w", w, err)
					return
				}
				if !whole(got) {
					errs <- fmt.Errorf("writer %d read a torn object: %d bytes starting %.24q", w, len(got), got)
					return
				}
			}
		}()
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
	if got := mustGet(t, ctx, s, k); !whole(got) {
		t.Errorf("final object torn: %d bytes starting %.24q", len(got), got)
	}
}

func largeObject(t *testing.T, ctx context.Context, s blob.Store) {
	data := make([]byte, 4<<20)
	for i := range data {
		data[i] = byte(i*7 + i>>13)
	}
	k := Key("large")
	mustPut(t, ctx, s, k, data)
	got := mustGet(t, ctx, s, k)
	if !bytes.Equal(got, data) {
		t.Fatalf("4 MiB round trip: got %d bytes, equal=%v", len(got), bytes.Equal(got, data))
	}
}
