package testserver

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"strings"
	"syscall"
)

// MountTmpfs mounts a tmpfs of size bytes on dir (which must exist), for
// tests that need a real disk that fills up: writes past size fail with
// ENOSPC, as on a full disk. It needs root (or CAP_SYS_ADMIN); as another
// user it mounts through `sudo -n`, as the CI scripts install packages,
// owned by that user. The error says so when mounting is refused. The
// answer unmounts it.
func MountTmpfs(dir string, size int64) (unmount func() error, err error) {
	opts := fmt.Sprintf("size=%d,mode=0700", size)
	err = syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, opts)
	if err == nil {
		return func() error {
			if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
				return fmt.Errorf("unmount tmpfs %s: %w", dir, err)
			}
			return nil
		}, nil
	}
	if os.Getuid() == 0 || !errors.Is(err, syscall.EPERM) {
		return nil, fmt.Errorf("mount a %d-byte tmpfs on %s (the full-disk tests need root or CAP_SYS_ADMIN to mount one; uid %d): %w", size, dir, os.Getuid(), err)
	}
	opts += fmt.Sprintf(",uid=%d,gid=%d", os.Getuid(), os.Getgid())
	if out, serr := exec.Command("sudo", "-n", "mount", "-t", "tmpfs", "-o", "nosuid,nodev,"+opts, "tmpfs", dir).CombinedOutput(); serr != nil {
		return nil, fmt.Errorf("mount a %d-byte tmpfs on %s: not root (uid %d: %v), and sudo -n mount failed: %v: %s (the full-disk tests need root, CAP_SYS_ADMIN or password-less sudo)", size, dir, os.Getuid(), err, serr, strings.TrimSpace(string(out)))
	}
	return func() error {
		if out, err := exec.Command("sudo", "-n", "umount", "-l", dir).CombinedOutput(); err != nil {
			return fmt.Errorf("unmount tmpfs %s: %v: %s", dir, err, strings.TrimSpace(string(out)))
		}
		return nil
	}, nil
}

// FillDisk appends zeros to the file at path until its disk is full, as a
// writer other than the one under test would; it answers an error unless
// the disk did fill (ENOSPC).
func FillDisk(path string) error {
	f, err := os.OpenFile(path, os.O_WRONLY|os.O_CREATE|os.O_APPEND, 0o600)
	if err != nil {
		return fmt.Errorf("fill disk: %w", err)
	}
	buf := make([]byte, 4<<10)
	for err == nil {
		_, err = f.Write(buf)
	}
	if cerr := f.Close(); cerr != nil && !errors.Is(cerr, syscall.ENOSPC) {
		return fmt.Errorf("fill disk with %s: %w", path, cerr)
	}
	if !errors.Is(err, syscall.ENOSPC) {
		return fmt.Errorf("fill disk with %s: %w, want no space left", path, err)
	}
	return nil
}
