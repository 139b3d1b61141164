// Package ci holds the tests of the CI scripts beside them.
package ci

import (
	"os/exec"
	"regexp"
	"strings"
	"testing"
)

// TestProgress: a one-time build run through progress says first how long
// it is expected to take, then how long it has taken, once a tick, and
// keeps the command's exit status.
func TestProgress(t *testing.T) {
	run := func(script string) (string, error) {
		cmd := exec.Command("bash", "-c", ". ./progress.sh; "+script)
		cmd.Env = append(cmd.Environ(), "PROGRESS_EVERY=1")
		out, err := cmd.CombinedOutput()
		return string(out), err
	}
	out, err := run(`progress "a thing" 9 sleep 2.5`)
	if err != nil {
		t.Fatalf("%v: %s", err, out)
	}
	if !strings.HasPrefix(out, "building a thing: expect ~9 min") {
		t.Errorf("no expectation first:\n%s", out)
	}
	if ticks := regexp.MustCompile(`(?m)^  a thing: 0 min [0-9]+ s of ~9 min$`).FindAllString(out, -1); len(ticks) < 2 {
		t.Errorf("want a line a second while it runs, got %d:\n%s", len(ticks), out)
	}
	// A loaded machine stretches a 2.5 s command by seconds; the line's
	// form and a time not below the command's own are what is checked.
	if !regexp.MustCompile(`(?m)^  a thing built in (0 min [2-9]|0 min [1-5][0-9]|1 min [0-9]+) s$`).MatchString(out) {
		t.Errorf("no closing line:\n%s", out)
	}
	out, err = run(`progress "a failing thing" 1 bash -c 'exit 3'`)
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 3 || !regexp.MustCompile(`failed after 0 min [0-9]+ s \(exit 3\)`).MatchString(out) {
		t.Fatalf("a failing build: %v\n%s", err, out)
	}
	// deps.sh builds MinIO and kube-apiserver through it.
	deps, err := exec.Command("grep", "-c", `progress "`, "deps.sh").Output()
	if err != nil || strings.TrimSpace(string(deps)) != "2" {
		t.Errorf("deps.sh runs %s builds through progress, want 2 (minio, kube-apiserver)", strings.TrimSpace(string(deps)))
	}
}
