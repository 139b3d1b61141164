// Package reaper reaps the orphans a process inherits as a child
// subreaper. chartd runs as PID 1 of its pod, with no init: Chromium's
// helpers (zygote, crashpad handler) outlive the browser that started
// them when it is recycled, are re-parented to PID 1 and, never waited
// for, stay zombies until the pod's PID limit is spent.
//
// The reaper must not steal an exit status from os/exec: a child started
// with exec.Cmd is waited for by its own Wait, which fails if someone
// else reaped it. Since Go 1.23 os.Process holds a pidfd for each child
// it starts (clone3 CLONE_PIDFD, from the moment the child exists until
// its Wait returns), so the children os/exec knows are exactly those with
// a pidfd open in this process (/proc/self/fdinfo names the pid). The
// reaper waits, by pid, only for zombie children without one: orphans.
// Where pidfds are not available it reaps nothing (os/exec would not be
// told apart) and says so.
package reaper

import (
	"bufio"
	"bytes"
	"context"
	"fmt"
	"log/slog"
	"os"
	"os/signal"
	"strconv"
	"strings"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// Backstop is how often the reaper looks even without SIGCHLD: signals
// that arrive together are delivered once.
const Backstop = 5 * time.Second

// Start makes this process a child subreaper (orphans of its descendants
// come to it, not to the namespace's init) and reaps them on SIGCHLD until
// ctx ends. It answers whether reaping works here.
func Start(ctx context.Context, log *slog.Logger) error {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("reaper: PR_SET_CHILD_SUBREAPER: %w", err)
	}
	if !pidfdsWork() {
		return fmt.Errorf("reaper: this kernel gives no pidfds, so the children of os/exec cannot be told from orphans; run chartd under an init (tini) instead")
	}
	sigs := make(chan os.Signal, 1)
	signal.Notify(sigs, syscall.SIGCHLD)
	go func() {
		defer signal.Stop(sigs)
		tick := time.NewTicker(Backstop)
		defer tick.Stop()
		for {
			select {
			case <-ctx.Done():
				return
			case <-sigs:
			case <-tick.C:
			}
			if n := Reap(); n > 0 {
				log.Debug("reaped orphaned processes", "count", n)
			}
		}
	}()
	return nil
}

// Reap waits for every zombie child of this process that os/exec does
// not hold, and answers how many it reaped.
func Reap() int {
	self := os.Getpid()
	zombies := zombieChildren(self)
	if len(zombies) == 0 {
		return 0
	}
	// Read the pidfds after the zombies: a child os/exec holds keeps its
	// pidfd until its Wait has reaped it, so it is in known whenever it
	// is still a zombie here.
	known := heldPids()
	n := 0
	for _, pid := range zombies {
		if known[pid] {
			continue
		}
		var ws unix.WaitStatus
		if got, err := unix.Wait4(pid, &ws, unix.WNOHANG, nil); err == nil && got == pid {
			n++
		}
	}
	return n
}

// zombieChildren lists the children of ppid that have exited and wait to
// be reaped.
func zombieChildren(ppid int) []int {
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var out []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		b, err := os.ReadFile("/proc/" + e.Name() + "/stat")
		if err != nil {
			continue
		}
		state, parent, ok := parseStat(b)
		if ok && state == 'Z' && parent == ppid {
			out = append(out, pid)
		}
	}
	return out
}

// parseStat reads the state and parent pid of a /proc/<pid>/stat line;
// the command name may hold spaces and parentheses, so the fields are
// read after its last ')'.
func parseStat(b []byte) (state byte, ppid int, ok bool) {
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return 0, 0, false
	}
	f := strings.Fields(string(b[i+1:]))
	if len(f) < 2 || len(f[0]) != 1 {
		return 0, 0, false
	}
	ppid, err := strconv.Atoi(f[1])
	if err != nil {
		return 0, 0, false
	}
	return f[0][0], ppid, true
}

// heldPids answers the pids this process holds a pidfd for: the children
// os/exec started and has not yet waited for.
func heldPids() map[int]bool {
	out := map[int]bool{}
	fds, err := os.ReadDir("/proc/self/fd")
	if err != nil {
		return out
	}
	for _, fd := range fds {
		target, err := os.Readlink("/proc/self/fd/" + fd.Name())
		if err != nil || target != "anon_inode:[pidfd]" {
			continue
		}
		if pid, ok := fdinfoPid("/proc/self/fdinfo/" + fd.Name()); ok {
			out[pid] = true
		}
	}
	return out
}

// fdinfoPid reads the "Pid:" line of a pidfd's fdinfo.
func fdinfoPid(path string) (int, bool) {
	f, err := os.Open(path)
	if err != nil {
		return 0, false
	}
	defer f.Close()
	sc := bufio.NewScanner(f)
	for sc.Scan() {
		if v, ok := strings.CutPrefix(sc.Text(), "Pid:"); ok {
			pid, err := strconv.Atoi(strings.TrimSpace(v))
			return pid, err == nil && pid > 0
		}
	}
	return 0, false
}

// pidfdsWork tells whether this kernel gives pidfds (pidfd_open of this
// very process), which os.Process then uses for every child.
func pidfdsWork() bool {
	fd, err := unix.PidfdOpen(os.Getpid(), 0)
	if err != nil {
		return false
	}
	unix.Close(fd)
	return true
}
