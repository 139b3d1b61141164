package blob

import (
	"container/list"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"sync"
	"time"

	"chartd.dev/libs/store"
)

var _ Store = (*Dir)(nil)

// tmpPrefix names in-flight writes in the root directory. "~" never occurs
// in a valid key, so a temp file can never be mistaken for an object.
const tmpPrefix = "put~"

// Dir is a Store in a local directory, for a single render process without
// an object store. Each object is one file named by its key; writes are
// atomic (temp file, fsync, rename), so a reader or a crash never leaves a
// torn image. The total size is kept under a byte cap by evicting the least
// recently used objects. Recency is kept in the files' modification times,
// so it survives a restart. One Dir must own its directory: two Dirs (or
// processes) on the same directory do not see each other's index. As on a
// file system, a key cannot be both an object and a directory of another
// key ("a" and "a/b"); the render cache's keys all have the same depth.
type Dir struct {
	root     string
	maxBytes int64
	// minFree is the free space the cache leaves on its disk: a Put that
	// would leave less writes nothing (ErrLowSpace), so the cache never
	// takes the room a store on the same volume freed for its deletes.
	minFree int64

	mu    sync.Mutex
	lru   *list.List               // of *dirEntry; front is the least recently used
	index map[string]*list.Element // key -> its element in lru
	bytes int64                    // sum of the sizes in lru
}

type dirEntry struct {
	key  string
	size int64
}

// NewDir opens (creating it if needed) a cache directory capped at maxBytes
// of object data that keeps minFree bytes free on its disk. Existing objects
// are indexed oldest-used first, leftovers of interrupted writes are
// removed, and objects over the cap are evicted, so a restart with a
// smaller cap takes effect at once.
func NewDir(dir string, maxBytes, minFree int64) (*Dir, error) {
	if dir == "" {
		return nil, errors.New("blob dir: no directory given")
	}
	if maxBytes <= 0 {
		return nil, fmt.Errorf("blob dir %s: byte cap must be positive, got %d", dir, maxBytes)
	}
	if minFree < 0 {
		return nil, fmt.Errorf("blob dir %s: free-space floor must be 0 or more, got %d", dir, minFree)
	}
	root, err := filepath.Abs(dir)
	if err != nil {
		return nil, fmt.Errorf("blob dir %s: %w", dir, err)
	}
	if err := os.MkdirAll(root, 0o755); err != nil {
		return nil, fmt.Errorf("blob dir %s: %w", root, err)
	}
	d := &Dir{root: root, maxBytes: maxBytes, minFree: minFree, lru: list.New(), index: map[string]*list.Element{}}
	if err := d.load(); err != nil {
		return nil, fmt.Errorf("blob dir %s: index: %w", root, err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	if err := d.evictLocked(); err != nil {
		return nil, err
	}
	return d, nil
}

// load rebuilds the index from the files under root, ordered by mtime.
func (d *Dir) load() error {
	type found struct {
		key   string
		size  int64
		mtime time.Time
	}
	var all []found
	err := filepath.WalkDir(d.root, func(path string, de fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if de.IsDir() {
			return nil
		}
		if filepath.Dir(path) == d.root && strings.HasPrefix(de.Name(), tmpPrefix) {
			// A Put that never reached its rename: not an object.
			if err := os.Remove(path); err != nil && !errors.Is(err, fs.ErrNotExist) {
				return err
			}
			return nil
		}
		if !de.Type().IsRegular() {
			return nil
		}
		rel, err := filepath.Rel(d.root, path)
		if err != nil {
			return err
		}
		key := filepath.ToSlash(rel)
		if ValidateKey(key) != nil {
			return nil // not ours: leave it alone and do not count it
		}
		info, err := de.Info()
		if errors.Is(err, fs.ErrNotExist) {
			return nil
		}
		if err != nil {
			return err
		}
		all = append(all, found{key, info.Size(), info.ModTime()})
		return nil
	})
	if err != nil {
		return err
	}
	sort.Slice(all, func(i, j int) bool {
		if !all[i].mtime.Equal(all[j].mtime) {
			return all[i].mtime.Before(all[j].mtime)
		}
		return all[i].key < all[j].key
	})
	for _, f := range all {
		d.index[f.key] = d.lru.PushBack(&dirEntry{key: f.key, size: f.size})
		d.bytes += f.size
	}
	return nil
}

func (d *Dir) path(key string) string {
	return filepath.Join(d.root, filepath.FromSlash(key))
}

func (d *Dir) errorf(op, key string, err error) error {
	return fmt.Errorf("blob dir %s: %s %q: %w", d.root, op, key, err)
}

// Put writes data under key and evicts least recently used objects while
// the total is over the cap. contentType is not kept: the key's prefix
// already says what the bytes are. An object larger than the whole cap is
// refused rather than evicting everything else, and so is one that would
// leave less than the floor free on the disk (ErrLowSpace): the cache then
// still serves what it holds.
func (d *Dir) Put(ctx context.Context, key string, data []byte, contentType string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return d.errorf("put", key, err)
	}
	size := int64(len(data))
	if size > d.maxBytes {
		return d.errorf("put", key, fmt.Errorf("%d bytes exceed the cache cap of %d", size, d.maxBytes))
	}
	if err := d.room(size); err != nil {
		return d.errorf("put", key, err)
	}
	path := d.path(key)
	if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
		return d.errorf("put", key, err)
	}
	tmp, err := d.writeTemp(data)
	if err != nil {
		return d.errorf("put", key, err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	// The mtime is set here, under the lock, so the order on disk matches
	// the order in the index and survives a reopen (kernel timestamps are
	// too coarse to order quick successive writes by themselves).
	now := time.Now()
	if err := os.Chtimes(tmp, now, now); err != nil {
		os.Remove(tmp)
		return d.errorf("put", key, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		os.Remove(tmp)
		return d.errorf("put", key, err)
	}
	if el, ok := d.index[key]; ok {
		e := el.Value.(*dirEntry)
		d.bytes += size - e.size
		e.size = size
		d.lru.MoveToBack(el)
	} else {
		d.index[key] = d.lru.PushBack(&dirEntry{key: key, size: size})
		d.bytes += size
	}
	return d.evictLocked()
}

// room checks that writing size bytes leaves the floor free on the disk.
func (d *Dir) room(size int64) error {
	if d.minFree == 0 {
		return nil
	}
	free, err := store.FreeSpace(d.root)
	if err != nil {
		return err
	}
	if free-size < d.minFree {
		return fmt.Errorf("%w: %d bytes free, the cache leaves %d", ErrLowSpace, free, d.minFree)
	}
	return nil
}

// writeTemp writes data to a new temp file in root, synced so that the
// rename that publishes it cannot outlive its contents in a crash.
func (d *Dir) writeTemp(data []byte) (string, error) {
	f, err := os.CreateTemp(d.root, tmpPrefix+"*")
	if err != nil {
		return "", err
	}
	_, err = f.Write(data)
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		os.Remove(f.Name())
		return "", err
	}
	return f.Name(), nil
}

// evictLocked removes least recently used objects until the total fits the
// cap. The newest object alone always fits (Put refuses larger ones), so it
// is never evicted by its own Put.
func (d *Dir) evictLocked() error {
	for d.bytes > d.maxBytes {
		el := d.lru.Front()
		e := el.Value.(*dirEntry)
		if err := os.Remove(d.path(e.key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
			return d.errorf("evict", e.key, err)
		}
		d.lru.Remove(el)
		delete(d.index, e.key)
		d.bytes -= e.size
	}
	return nil
}

// Get reads the object under key and marks it as used, in memory and in
// its mtime, so a popular image outlives newer unpopular ones.
func (d *Dir) Get(ctx context.Context, key string) ([]byte, error) {
	if err := ValidateKey(key); err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, d.errorf("get", key, err)
	}
	path := d.path(key)
	d.mu.Lock()
	el, ok := d.index[key]
	if ok {
		d.lru.MoveToBack(el)
		now := time.Now()
		// Best effort: failing to persist recency only affects order
		// after a restart.
		_ = os.Chtimes(path, now, now)
	}
	d.mu.Unlock()
	if !ok {
		return nil, d.errorf("get", key, ErrNotFound)
	}
	// Read outside the lock: a concurrent Put renames a new file over this
	// path and an eviction unlinks it, and either way the open file is
	// whole; only a missing file is possible, which is a miss.
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, d.errorf("get", key, ErrNotFound)
	}
	if err != nil {
		return nil, d.errorf("get", key, err)
	}
	return data, nil
}

// Delete removes the object under key, if any.
func (d *Dir) Delete(ctx context.Context, key string) error {
	if err := ValidateKey(key); err != nil {
		return err
	}
	if err := ctx.Err(); err != nil {
		return d.errorf("delete", key, err)
	}
	d.mu.Lock()
	defer d.mu.Unlock()
	el, ok := d.index[key]
	if !ok {
		return nil
	}
	if err := os.Remove(d.path(key)); err != nil && !errors.Is(err, fs.ErrNotExist) {
		return d.errorf("delete", key, err)
	}
	d.lru.Remove(el)
	delete(d.index, key)
	d.bytes -= el.Value.(*dirEntry).size
	return nil
}

// Usage answers the bytes and number of objects held, for metrics and
// tests of the cap.
func (d *Dir) Usage() (bytes int64, objects int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.bytes, d.lru.Len()
}
