package reaper

import (
	"errors"
	"os"
	"os/exec"
	"testing"
	"time"

	"golang.org/x/sys/unix"
)

// waitZombies polls until ppid has n zombie children or the deadline.
func waitZombies(t *testing.T, n int) []int {
	t.Helper()
	deadline := time.Now().Add(10 * time.Second)
	for {
		z := zombieChildren(os.Getpid())
		if len(z) >= n {
			return z
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d zombie children, waited for %d", len(z), n)
		}
		time.Sleep(10 * time.Millisecond)
	}
}

// TestReapLeavesExecChildren: a child os/exec started and has not waited
// for keeps its exit status for Wait, zombie or not.
func TestReapLeavesExecChildren(t *testing.T) {
	if !pidfdsWork() {
		t.Fatal("no pidfds on this kernel")
	}
	cmd := exec.Command("sh", "-c", "exit 3")
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	waitZombies(t, 1)
	if n := Reap(); n != 0 {
		t.Errorf("reaped %d of os/exec's children", n)
	}
	var ee *exec.ExitError
	if err := cmd.Wait(); !errors.As(err, &ee) || ee.ExitCode() != 3 {
		t.Fatalf("Wait after Reap: %v, want exit status 3", err)
	}
}

// TestReapOrphans: as a subreaper the process inherits a grandchild whose
// parent exited; once it exits Reap waits for it.
func TestReapOrphans(t *testing.T) {
	if err := unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0); err != nil {
		t.Fatal(err)
	}
	defer unix.Prctl(unix.PR_SET_CHILD_SUBREAPER, 0, 0, 0, 0)
	cmd := exec.Command("sh", "-c", "sleep 0.2 & exit 0")
	if err := cmd.Run(); err != nil {
		t.Fatal(err)
	}
	z := waitZombies(t, 1)
	if n := Reap(); n != len(z) {
		t.Fatalf("reaped %d of %d orphans", n, len(z))
	}
	if left := zombieChildren(os.Getpid()); len(left) != 0 {
		t.Fatalf("zombies left: %v", left)
	}
}

func TestParseStat(t *testing.T) {
	st, pp, ok := parseStat([]byte("42 (a (b) c) Z 7 42 42 0 -1"))
	if !ok || st != 'Z' || pp != 7 {
		t.Fatalf("%c %d %v", st, pp, ok)
	}
	if _, _, ok := parseStat([]byte("garbage")); ok {
		t.Fatal("garbage parsed")
	}
}
