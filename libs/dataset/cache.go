package dataset

import (
	lru "github.com/hashicorp/golang-lru/v2"
)

// Cache keeps parsed tables of stored data so hot reads skip parsing. An
// entry is valid for one owner and one version of the data (a hash of it
// as stored); tables are shared read-only, which is
// safe because steps never change their input.
type Cache struct {
	lru      *lru.Cache[string, cacheEntry]
	maxCells int
}

type cacheEntry struct {
	owner   string
	version string
	table   *Table
}

// NewCache holds up to size tables of at most maxCells cells each.
func NewCache(size, maxCells int) (*Cache, error) {
	l, err := lru.New[string, cacheEntry](size)
	if err != nil {
		return nil, err
	}
	return &Cache{lru: l, maxCells: maxCells}, nil
}

// Get answers the table stored for key, owner and version.
func (c *Cache) Get(key, owner string, version string) (*Table, bool) {
	e, ok := c.lru.Get(key)
	if !ok || e.owner != owner || e.version != version {
		return nil, false
	}
	return e.table, true
}

// Add stores t unless it is over the cell bound.
func (c *Cache) Add(key, owner string, version string, t *Table) {
	if Cells(t) > c.maxCells {
		return
	}
	c.lru.Add(key, cacheEntry{owner: owner, version: version, table: t})
}
