package raster

import (
	"bytes"
	"os"
	"strconv"
	"strings"
	"syscall"
)

// Chromium forks a zygote, renderers and utility processes; all of them
// carry the browser's --user-data-dir on their command line, and each
// browser of the pool has its own directory. So the directory finds every
// process of one browser, even those that outlive its main process.

// procsUsing lists the pids whose command line holds --user-data-dir=dir:
// the browser's main process and all its children.
func procsUsing(dir string) []int {
	want := []byte("--user-data-dir=" + dir)
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	self := os.Getpid()
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil || pid == self {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil {
			continue
		}
		if hasArg(cmdline, want) {
			pids = append(pids, pid)
		}
	}
	return pids
}

// hasArg reports whether cmdline holds arg as a whole argument. Chromium
// rewrites its children's command lines into one string joined by
// spaces, so an argument ends at a NUL, a space or the end.
func hasArg(cmdline, arg []byte) bool {
	for rest := cmdline; ; {
		i := bytes.Index(rest, arg)
		if i < 0 {
			return false
		}
		if i == 0 || rest[i-1] == 0 || rest[i-1] == ' ' {
			if end := i + len(arg); end == len(rest) || rest[end] == 0 || rest[end] == ' ' {
				return true
			}
		}
		rest = rest[i+1:]
	}
}

// ProcsUnder lists the pids of live Chromium processes whose user data
// directory is inside root: the processes a pool started under its
// TempDir. Tests use it to prove that nothing outlives the pool.
func ProcsUnder(root string) []int {
	if root == "" {
		return nil
	}
	prefix := []byte("--user-data-dir=" + strings.TrimSuffix(root, "/") + "/")
	entries, err := os.ReadDir("/proc")
	if err != nil {
		return nil
	}
	var pids []int
	for _, e := range entries {
		pid, err := strconv.Atoi(e.Name())
		if err != nil {
			continue
		}
		cmdline, err := os.ReadFile("/proc/" + e.Name() + "/cmdline")
		if err != nil || !bytes.Contains(cmdline, prefix) {
			continue
		}
		if stateOf(pid) == 'Z' {
			// A zombie whose parent is not us is reaped by its own parent.
			if ppidOf(pid) != os.Getpid() {
				continue
			}
		}
		pids = append(pids, pid)
	}
	return pids
}

// killAll sends SIGKILL to every process of the browser using dir and
// reports how many it found.
func killAll(dir string) int {
	pids := procsUsing(dir)
	for _, pid := range pids {
		syscall.Kill(pid, syscall.SIGKILL)
	}
	return len(pids)
}

// rssBytes is the memory the browser's processes hold of their own: the
// sum of their proportional anonymous and shared-memory pages (Pss_Anon +
// Pss_Shmem), so copy-on-write pages of the zygote and the IPC buffers the
// processes share count once. File pages (the binary, libraries, fonts)
// are left out: they are shared with every other Chromium on the machine,
// so their share swings with how many others run, and they do not grow
// as a browser leaks.
func rssBytes(dir string) int64 {
	var total int64
	for _, pid := range procsUsing(dir) {
		total += ownBytes(pid)
	}
	return total
}

// ownBytes reads one process's Pss_Anon + Pss_Shmem from
// /proc/pid/smaps_rollup.
func ownBytes(pid int) int64 {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/smaps_rollup")
	if err != nil {
		return 0
	}
	var total int64
	for line := range strings.Lines(string(b)) {
		name, rest, ok := strings.Cut(line, ":")
		if !ok || (name != "Pss_Anon" && name != "Pss_Shmem") {
			continue
		}
		f := strings.Fields(rest)
		if len(f) == 0 {
			continue
		}
		if kb, err := strconv.ParseInt(f[0], 10, 64); err == nil {
			total += kb << 10
		}
	}
	return total
}

// statFields answers the fields of /proc/pid/stat after the command name.
func statFields(pid int) []string {
	b, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/stat")
	if err != nil {
		return nil
	}
	i := bytes.LastIndexByte(b, ')')
	if i < 0 {
		return nil
	}
	return strings.Fields(string(b[i+1:]))
}

func stateOf(pid int) byte {
	f := statFields(pid)
	if len(f) < 1 || f[0] == "" {
		return 0
	}
	return f[0][0]
}

func ppidOf(pid int) int {
	f := statFields(pid)
	if len(f) < 2 {
		return 0
	}
	n, _ := strconv.Atoi(f[1])
	return n
}

// helperPids lists the browser's zygotes, GPU and utility processes:
// those a process of the browser names with --type= other than renderer.
// Chromium rewrites its children's command lines into one string, so the
// arguments are split on spaces as well as NULs.
func helperPids(dir string) []int {
	var out []int
	for _, pid := range procsUsing(dir) {
		cmdline, err := os.ReadFile("/proc/" + strconv.Itoa(pid) + "/cmdline")
		if err != nil {
			continue
		}
		for _, arg := range strings.FieldsFunc(string(cmdline), func(r rune) bool { return r == 0 || r == ' ' }) {
			if ty, ok := strings.CutPrefix(arg, "--type="); ok {
				if ty == "zygote" || ty == "gpu-process" || ty == "utility" {
					out = append(out, pid)
				}
				break
			}
		}
	}
	return out
}
