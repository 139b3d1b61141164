package testserver

import (
	"fmt"
	"os"
	"syscall"
)

// MountTmpfs mounts a tmpfs of size bytes on dir (which must exist), for
// tests that need a real disk that fills up: writes past size fail with
// ENOSPC, as on a full disk. It needs root (or CAP_SYS_ADMIN); the error
// says so when mounting is refused. The answer unmounts it.
func MountTmpfs(dir string, size int64) (unmount func() error, err error) {
	if err := syscall.Mount("tmpfs", dir, "tmpfs", syscall.MS_NOSUID|syscall.MS_NODEV, fmt.Sprintf("size=%d,mode=0700", size)); err != nil {
		return nil, fmt.Errorf("mount a %d-byte tmpfs on %s (the full-disk tests need root or CAP_SYS_ADMIN to mount one; uid %d): %w", size, dir, os.Getuid(), err)
	}
	return func() error {
		if err := syscall.Unmount(dir, syscall.MNT_DETACH); err != nil {
			return fmt.Errorf("unmount tmpfs %s: %w", dir, err)
		}
		return nil
	}, nil
}
