package sqlite

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	sqlite3 "modernc.org/sqlite/lib"

	"chartd.dev/libs/store"
)

// A full disk must not lock the owner out of freeing space: SQLite needs
// room in the WAL even to delete. So the store keeps a reserve, a file of
// zeros beside the database (<db>.reserve), made at open when space
// allows. The first write that fails with SQLITE_FULL (or ENOSPC/EDQUOT)
// deletes the reserve, moves the WAL into the database file and puts the
// store in its full state: the inserts that grow the store (charts and
// their edits, link designs, accounts, keys, users, OAuth clients) are
// refused at once with store.ErrStorageFull, so they do not eat the freed
// room; deletes, revocations and sign-in still run, and deletes give their
// pages back to the file system (incremental vacuum, WAL truncated); Ping
// reports not ready. The store leaves the full state when the disk has
// need() free and the reserve is made again: tried by Ping, and by writes
// at most once per recoverEvery.
//
// The freed room is free disk space: any other writer on the volume (the
// image cache, a log, an operator's copy) can take it before a delete
// does. So a second, smaller reserve (<db>.reserve-delete) is never spent
// by a full write: only by a delete that found no room even so, just
// before it tries again, and at open when SQLite could not otherwise
// create its WAL and shared-memory files. It is made again first, as soon
// as the disk has room for it.

// DefaultReserveBytes is the reserve's size. On a full disk it must hold
// what a checkpoint writes into the database file (the WAL's pages the
// file does not have yet: up to walAutocheckpointPages plus the last
// transaction, a chart of up to 5 MiB, the gateway's body limit) and then
// the frames of the deletes and their vacuum steps.
const DefaultReserveBytes = 8 << 20

// walAutocheckpointPages is the WAL size, in pages, that starts a
// checkpoint: 1 MiB at the default page size.
const walAutocheckpointPages = 256

// recoverEvery spaces out the writes' attempts to leave the full state:
// each attempt writes the whole reserve.
const recoverEvery = time.Second

// lazyFreePages is how many free pages (1 MiB) a store with room lets
// gather inside its file before deletes give them back to the file system.
const lazyFreePages = 256

// vacuumStep is how many free pages one incremental vacuum step gives back
// while the disk is full; between steps the WAL is truncated, so a step
// never needs more WAL room than the reserve gave.
const vacuumStep = 128

// maxDeleteReserve caps the deletes' reserve: it holds SQLite's
// shared-memory file (32 KiB) and WAL room for a delete and one vacuum
// step (vacuumStep pages), with room to spare.
const maxDeleteReserve = 1 << 20

// space is the store's full state and its reserves.
type space struct {
	dir   string // the database's directory
	path  string // the reserve file; "" when the store keeps none
	bytes int64
	// del is the deletes' reserve file ("" with path) of delBytes.
	del      string
	delBytes int64

	full atomic.Bool
	mu   sync.Mutex // serialises making and releasing the reserve
	last time.Time  // last attempt to leave the full state, under mu
}

// isFull reports SQLite's "database or disk is full" (any extended code of
// SQLITE_FULL) or a file system's no-space error in err's chain.
func isFull(err error) bool {
	if err == nil {
		return false
	}
	return sqliteCode(err)&0xff == sqlite3.SQLITE_FULL || store.IsNoSpace(err)
}

// fullCause marks a full disk in err as store.ErrStorageFull, for errors
// met before the store exists (its migrations); others are left alone.
func fullCause(err error) error {
	if isFull(err) && !errors.Is(err, store.ErrStorageFull) {
		return store.FullError(err)
	}
	return err
}

// check classifies a write's error: a full disk becomes store.ErrStorageFull
// (once) and puts the store in its full state, releasing the reserve.
func (s *Store) check(err error) error {
	if err == nil || errors.Is(err, store.ErrStorageFull) || !isFull(err) {
		return err
	}
	s.markFull()
	return store.FullError(err)
}

// markFull enters the full state and releases the reserve, so deletes have
// room.
func (s *Store) markFull() {
	s.space.mu.Lock()
	defer s.space.mu.Unlock()
	s.space.full.Store(true)
	s.space.last = time.Now()
	s.releaseLocked()
	// Move the WAL into the database file now, while the reserve's room
	// is there, and truncate it: a delete then needs only its own frames.
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	s.write.ExecContext(ctx, `PRAGMA wal_checkpoint(TRUNCATE)`)
}

// releaseLocked spends the reserve (not the deletes' one).
func (s *Store) releaseLocked() {
	if s.space.path != "" {
		os.Remove(s.space.path)
	}
}

// spendDeleteReserve frees the deletes' reserve for a delete that found
// no room; it reports whether there was one to free.
func (s *Store) spendDeleteReserve() bool {
	s.space.mu.Lock()
	defer s.space.mu.Unlock()
	if have, _ := reserveSize(s.space.del); have == 0 {
		return false
	}
	return os.Remove(s.space.del) == nil
}

// deleting runs op, a write that frees space, on a disk that may be full:
// a first failure for room enters the full state (the reserve's room is
// freed, the WAL moved into the database file) and tries again; a second
// spends the deletes' reserve and tries once more. A delete that still
// finds no room answers an error wrapping store.ErrDeleteFull, so the
// answer does not claim that deletes work.
func (s *Store) deleting(op func() error) error {
	err := op()
	if isFull(err) {
		s.markFull()
		err = op()
	}
	if isFull(err) && s.spendDeleteReserve() {
		err = op()
	}
	if isFull(err) {
		return store.DeleteFullError(err)
	}
	return err
}

// writable refuses a write other than a delete while the store is full,
// unless the reserve can be made again (tried at most once per
// recoverEvery).
func (s *Store) writable() error {
	if !s.space.full.Load() {
		return nil
	}
	return s.recover(false)
}

// Full reports whether the store is in its full state: writes other than
// deletes refused until space is freed.
func (s *Store) Full() bool { return s.space.full.Load() }

// recover tries to leave the full state by making the reserve again; force
// ignores recoverEvery. It answers nil when the store is not full (any
// more), else an error wrapping store.ErrStorageFull.
func (s *Store) recover(force bool) error {
	s.space.mu.Lock()
	defer s.space.mu.Unlock()
	if !s.space.full.Load() {
		return nil
	}
	if !force && time.Since(s.space.last) < recoverEvery {
		return fmt.Errorf("%w: writes are paused until space is freed; reads and deletes are served", store.ErrStorageFull)
	}
	s.space.last = time.Now()
	s.deleteReserveLocked()
	if err := s.roomLocked(); err != nil {
		return fmt.Errorf("%w: writes are paused until space is freed (%v); reads and deletes are served", store.ErrStorageFull, err)
	}
	s.space.full.Store(false)
	return nil
}

// need is the free space the store wants before it takes writes: the
// reserve, and as much again for the writes themselves, so that remaking
// the reserve never just takes back the room it gave (1 MiB at least).
func (sp *space) need() int64 { return max(2*sp.bytes, 1<<20) }

// roomLocked checks the disk has need() free and makes the reserve; an
// error says why not.
func (s *Store) roomLocked() error {
	free, err := store.FreeSpace(s.space.dir)
	if err != nil {
		return err
	}
	if have, _ := reserveSize(s.space.path); free+have < s.space.need() {
		return fmt.Errorf("%w: %d bytes free on the database's disk, %d needed", errNoRoom, free+have, s.space.need())
	}
	return s.makeReserveLocked()
}

// errNoRoom is a disk with less free space than the store needs.
var errNoRoom = errors.New("too little free space")

// reserveSize answers the size of the reserve file at path, 0 if none.
func reserveSize(path string) (int64, error) {
	if path == "" {
		return 0, nil
	}
	st, err := os.Stat(path)
	if err != nil {
		return 0, err
	}
	return st.Size(), nil
}

// makeReserveLocked makes the reserve file; a store without a reserve
// makes nothing.
func (s *Store) makeReserveLocked() error {
	return makeReserve(s.space.path, s.space.bytes)
}

// deleteReserveLocked makes the deletes' reserve when it is missing and
// the disk has room for it and for SQLite to open (openFree) besides;
// otherwise it stays missing until a later try.
func (s *Store) deleteReserveLocked() {
	if s.space.del == "" {
		return
	}
	if have, _ := reserveSize(s.space.del); have > 0 {
		return
	}
	if free, err := store.FreeSpace(s.space.dir); err != nil || free < s.space.delBytes+openFree {
		return
	}
	makeReserve(s.space.del, s.space.delBytes)
}

// makeReserve writes a reserve file of n bytes at path whole (zeros,
// synced: a sparse or unsynced file would hold no blocks), through a
// temporary name so a short one is never taken for the reserve. A reserve
// already there is kept; an empty path makes nothing.
func makeReserve(path string, n int64) error {
	if path == "" {
		return nil
	}
	if have, err := reserveSize(path); err == nil && have > 0 {
		return nil // whole: it is renamed into place once written
	}
	tmp := path + ".tmp"
	err := writeZeros(tmp, n)
	if err == nil {
		err = os.Rename(tmp, path)
	}
	if err != nil {
		os.Remove(tmp)
		return fmt.Errorf("make reserve %s: %w", path, err)
	}
	return nil
}

// writeZeros creates path holding n zero bytes on disk.
func writeZeros(path string, n int64) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_TRUNC, fileMode)
	if err != nil {
		return err
	}
	buf := make([]byte, 256<<10)
	for left := n; left > 0 && err == nil; left -= int64(len(buf)) {
		_, err = f.Write(buf[:min(left, int64(len(buf)))])
	}
	if err == nil {
		err = f.Sync()
	}
	return errors.Join(err, f.Close())
}

// openSpace sets up the reserves before SQLite opens the file. A reserve
// already there is kept, whatever its size (chartctl and chartd may open
// the file with different sizes), unless the disk is full: then it is
// spent, so SQLite has room for its WAL and index files, and the store
// opens in its full state rather than failing, so the owner can still
// read and delete. When that reserve was spent already (a restart after
// the disk filled), the deletes' reserve is spent instead. With room, the
// deletes' reserve is made if missing, and the reserve when the disk has
// need() free, else the store opens full.
func (s *Store) openSpace(path string, reserve int64) error {
	s.space.dir = filepath.Dir(path)
	if reserve > 0 {
		s.space.path, s.space.bytes = path+".reserve", reserve
		s.space.del, s.space.delBytes = path+".reserve-delete", min(reserve, maxDeleteReserve)
	}
	s.space.mu.Lock()
	defer s.space.mu.Unlock()
	free, err := store.FreeSpace(s.space.dir)
	if err != nil {
		return err
	}
	if free < openFree {
		s.space.full.Store(true)
		s.space.last = time.Now()
		if have, _ := reserveSize(s.space.path); have > 0 {
			s.releaseLocked()
		} else if s.space.del != "" {
			os.Remove(s.space.del)
		}
		return nil
	}
	s.deleteReserveLocked()
	if have, _ := reserveSize(s.space.path); have > 0 {
		return nil
	}
	if err := s.roomLocked(); err != nil {
		if !store.IsNoSpace(err) && !errors.Is(err, errNoRoom) {
			return err
		}
		s.space.full.Store(true)
		s.space.last = time.Now()
		s.releaseLocked()
	}
	return nil
}

// openFree is the free space below which a disk counts as full at open.
const openFree = 256 << 10

// reclaim gives the pages a delete freed back to the file system, so the
// space is free for everyone and the reserve can be made again. A store
// with room lets lazyFreePages gather first (a vacuum and checkpoint cost
// about 1.5 ms); a full one reclaims at once. Either works in steps of
// vacuumStep pages with a checkpoint before each, so a step never needs
// more WAL room than one step's pages; a step that fails leaves the rest
// free inside the file, for later writes or the next delete. A full store
// then tries to leave its full state.
func (s *Store) reclaim(ctx context.Context) {
	full := s.space.full.Load()
	checkpoint := `PRAGMA wal_checkpoint(PASSIVE)`
	if full {
		checkpoint = `PRAGMA wal_checkpoint(TRUNCATE)`
	}
	if !full {
		var free int
		if err := s.write.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free); err != nil || free < lazyFreePages {
			return
		}
	}
	prev := -1
	for {
		if _, err := s.write.ExecContext(ctx, checkpoint); err != nil {
			break
		}
		// A file made before auto_vacuum was set keeps its free pages:
		// stop as soon as a step gives nothing back.
		var free int
		if err := s.write.QueryRowContext(ctx, `PRAGMA freelist_count`).Scan(&free); err != nil || free == 0 || free == prev {
			break
		}
		prev = free
		if err := s.vacuum(ctx, vacuumStep); err != nil {
			break
		}
	}
	if full {
		s.recover(true)
	}
}

// vacuum gives up to pages free pages (0: all) back to the file system. The
// pragma answers a row per page freed and frees the next only when asked
// for the next row, so every row is read.
func (s *Store) vacuum(ctx context.Context, pages int) error {
	rows, err := s.write.QueryContext(ctx, fmt.Sprintf(`PRAGMA incremental_vacuum(%d)`, pages))
	if err != nil {
		return err
	}
	for rows.Next() {
	}
	return errors.Join(rows.Err(), rows.Close())
}
