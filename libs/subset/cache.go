package subset

import (
	"context"
	"fmt"
	"strconv"
	"sync"
	"sync/atomic"
	"time"
	"unicode/utf8"

	"github.com/hashicorp/golang-lru/v2/simplelru"
	"golang.org/x/sync/singleflight"

	"chartd.dev/libs/fontstack"
)

// Subsetter cuts a face down to the given characters and answers the font
// file: a Tool, or a Cache in front of one.
type Subsetter interface {
	Subset(ctx context.Context, face fontstack.Face, runes []rune) ([]byte, error)
}

var (
	_ Subsetter = (*Tool)(nil)
	_ Subsetter = (*Cache)(nil)
)

// Cache keeps the subsets a Subsetter made, by face and character set,
// least recently used first out once they hold more than their byte
// budget. Requests for a subset being made wait for that one instead of
// making it again. Errors are not kept.
type Cache struct {
	next    Subsetter
	budget  int64
	timeout time.Duration

	mu    sync.Mutex
	lru   *simplelru.LRU[string, []byte]
	bytes int64

	flight       singleflight.Group
	hits, misses atomic.Uint64
}

// NewCache puts a cache of at most budget bytes of font files in front of
// next. A subset is made under its own deadline (timeout), so one caller
// giving up does not fail the others waiting for it.
func NewCache(next Subsetter, budget int64, timeout time.Duration) *Cache {
	c := &Cache{next: next, budget: budget, timeout: timeout}
	// The byte budget bounds the cache; the entry count is only the LRU's
	// own upper limit.
	c.lru, _ = simplelru.NewLRU[string, []byte](1<<20, func(_ string, v []byte) { c.bytes -= int64(len(v)) })
	return c
}

// Subset answers the subset of face for runes (sorted, without repeats:
// the same set in another order is another key) from the cache, or makes
// it with the next Subsetter and keeps it.
func (c *Cache) Subset(ctx context.Context, face fontstack.Face, runes []rune) ([]byte, error) {
	key := Key(face, runes)
	c.mu.Lock()
	v, ok := c.lru.Get(key)
	c.mu.Unlock()
	if ok {
		c.hits.Add(1)
		return v, nil
	}
	c.misses.Add(1)
	ch := c.flight.DoChan(key, func() (any, error) {
		sctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), c.timeout)
		defer cancel()
		out, err := c.next.Subset(sctx, face, runes)
		if err != nil {
			return nil, err
		}
		c.put(key, out)
		return out, nil
	})
	select {
	case res := <-ch:
		if res.Err != nil {
			return nil, res.Err
		}
		return res.Val.([]byte), nil
	case <-ctx.Done():
		return nil, fmt.Errorf("subset %s: %w", face.File, ctx.Err())
	}
}

// put keeps a subset, dropping the least recently used ones over budget;
// a subset larger than the whole budget is not kept.
func (c *Cache) put(key string, v []byte) {
	if int64(len(v)) > c.budget {
		return
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.lru.Contains(key) {
		return
	}
	c.lru.Add(key, v)
	c.bytes += int64(len(v))
	for c.bytes > c.budget {
		c.lru.RemoveOldest()
	}
}

// Stats is what a Cache holds and how it has served.
type Stats struct {
	Entries      int
	Bytes        int64
	Hits, Misses uint64
}

// Stats reports the cache's contents and its hits and misses so far.
func (c *Cache) Stats() Stats {
	c.mu.Lock()
	defer c.mu.Unlock()
	return Stats{Entries: c.lru.Len(), Bytes: c.bytes, Hits: c.hits.Load(), Misses: c.misses.Load()}
}

// Key identifies a face and a character set: the font file (or embedded
// file name), the face index and the characters.
func Key(face fontstack.Face, runes []rune) string {
	b := make([]byte, 0, len(face.Path)+len(face.File)+16+len(runes)*2)
	b = append(b, face.Path...)
	b = append(b, 0)
	b = append(b, face.File...)
	b = append(b, 0)
	b = strconv.AppendInt(b, int64(face.Index), 10)
	b = append(b, 0)
	for _, r := range runes {
		b = utf8.AppendRune(b, r)
	}
	return string(b)
}
