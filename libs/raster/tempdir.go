package raster

import (
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// MakeTempDir makes a folder under the system's temporary directory named
// prefix, this process's pid, a dash and a random suffix: the pid lets
// SweepStale tell a folder whose process was killed from one in use.
func MakeTempDir(prefix string) (string, error) {
	return os.MkdirTemp("", prefix+strconv.Itoa(os.Getpid())+"-")
}

// SweepStale removes the folders under root that MakeTempDir made with
// one of prefixes for a process that is gone (killed before it could
// remove them), and kills any Chromium still running from them. A pid
// taken by a newer process counts as gone: that process started after the
// folder was last changed. It answers how many folders it removed.
func SweepStale(root string, prefixes ...string) int {
	entries, err := os.ReadDir(root)
	if err != nil {
		return 0
	}
	removed := 0
	for _, e := range entries {
		if !e.IsDir() {
			continue
		}
		for _, prefix := range prefixes {
			rest, ok := strings.CutPrefix(e.Name(), prefix)
			if !ok {
				continue
			}
			pidText, _, ok := strings.Cut(rest, "-")
			pid, err := strconv.Atoi(pidText)
			if !ok || err != nil || pid <= 0 || pid == os.Getpid() {
				break
			}
			info, err := e.Info()
			if err != nil || ownerRunning(pid, info.ModTime()) {
				break
			}
			dir := filepath.Join(root, e.Name())
			for _, p := range ProcsUnder(dir) {
				killPid(p)
			}
			if os.RemoveAll(dir) == nil {
				removed++
			}
			break
		}
	}
	return removed
}

// ownerRunning reports whether pid is a live process that started no
// later than changed.
func ownerRunning(pid int, changed time.Time) bool {
	st := stateOf(pid)
	if st == 0 || st == 'Z' || st == 'X' {
		return false
	}
	started, ok := startTime(pid)
	return !ok || !started.After(changed.Add(time.Second))
}

// startTime is when pid started, from its start time in clock ticks after
// boot (/proc/pid/stat) and the boot time (/proc/stat btime). Linux
// reports ticks at USER_HZ, 100 a second, on every architecture.
func startTime(pid int) (time.Time, bool) {
	f := statFields(pid)
	// Field 22 of stat is the 20th after the command name.
	if len(f) < 20 {
		return time.Time{}, false
	}
	ticks, err := strconv.ParseInt(f[19], 10, 64)
	if err != nil {
		return time.Time{}, false
	}
	b, err := os.ReadFile("/proc/stat")
	if err != nil {
		return time.Time{}, false
	}
	for line := range strings.Lines(string(b)) {
		if v, ok := strings.CutPrefix(line, "btime "); ok {
			boot, err := strconv.ParseInt(strings.TrimSpace(v), 10, 64)
			if err != nil {
				return time.Time{}, false
			}
			return time.Unix(boot, 0).Add(time.Duration(ticks) * 10 * time.Millisecond), true
		}
	}
	return time.Time{}, false
}
