// Package blob stores immutable byte objects (rendered PNGs) under short
// hash-derived keys, so the render service can cache images outside its
// process: in a local directory with a byte cap (Dir) or in a MinIO/S3
// bucket whose lifecycle rule bounds its size (S3).
package blob

import (
	"context"
	"errors"
	"fmt"
	"strings"
)

// Store is what the render cache needs from an object store. Objects are
// written whole and read whole: a reader never sees a partial write.
type Store interface {
	// Put stores data under key, replacing any previous object.
	Put(ctx context.Context, key string, data []byte, contentType string) error
	// Get answers the object under key, or an error wrapping ErrNotFound.
	Get(ctx context.Context, key string) ([]byte, error)
	// Delete removes the object under key; deleting a missing key is not an
	// error, so callers need not check first.
	Delete(ctx context.Context, key string) error
}

// ErrNotFound is wrapped by Get when no object exists under the key, so a
// cache miss can be told apart from a failing store.
var ErrNotFound = errors.New("blob: object not found")

// ErrLowSpace is wrapped by a Dir's Put that would leave less free space
// on the disk than its floor: nothing was written.
var ErrLowSpace = errors.New("blob: too little free space on the cache's disk")

// ErrInvalidKey is wrapped by every operation given a key ValidateKey
// rejects, so a caller bug is told apart from a failing store.
var ErrInvalidKey = errors.New("blob: invalid key")

// MaxKeyLen is the longest key accepted, in bytes; it keeps keys well inside
// file-name and S3 limits.
const MaxKeyLen = 256

// ValidateKey checks a key is safe for every backend: 1 to MaxKeyLen bytes
// of [a-z0-9/._-], slash-separated segments that are neither empty nor "."
// and no ".." anywhere. This keeps keys from escaping a Dir's root and makes
// a key name the same object on a file system and in a bucket.
func ValidateKey(key string) error {
	bad := func(why string) error {
		return fmt.Errorf("%w %q: %s", ErrInvalidKey, key, why)
	}
	switch {
	case key == "":
		return bad("empty")
	case len(key) > MaxKeyLen:
		return bad(fmt.Sprintf("%d bytes, longer than %d", len(key), MaxKeyLen))
	case strings.HasPrefix(key, "/"):
		return bad(`starts with "/"`)
	case strings.HasSuffix(key, "/"):
		return bad(`ends with "/"`)
	case strings.Contains(key, ".."):
		return bad(`contains ".."`)
	case strings.Contains(key, "//"):
		return bad("has an empty path segment")
	}
	for i := 0; i < len(key); i++ {
		c := key[i]
		if !('a' <= c && c <= 'z' || '0' <= c && c <= '9' || c == '/' || c == '.' || c == '_' || c == '-') {
			return bad(fmt.Sprintf("byte %q at %d is not one of [a-z0-9/._-]", c, i))
		}
	}
	for _, seg := range strings.Split(key, "/") {
		if seg == "." {
			return bad(`has a "." path segment`)
		}
	}
	return nil
}
