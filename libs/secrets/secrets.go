// Package secrets seals small secrets (the signing keys of image links) at
// rest with AES-256-GCM under a server key, so a copy of the database alone
// reveals none of them.
//
// A sealed value is
//
//	version (1 byte, Version2) | key id (4 bytes) | nonce (12 random bytes) | ciphertext + 16-byte tag
//
// so it is len(plaintext)+Overhead bytes long. The key id names the server
// key that sealed it (the first bytes of the key's SHA-256), so the Box, a
// key ring, opens it with that key. Values of the first format, Version1
// (version | nonce | ciphertext + tag, OverheadV1 bytes more than the
// plaintext, before keys rotated), still open: every key is tried.
// Callers pass additional data naming where the value lives (for a signing
// key: its account and kid), so a value copied to another row does not
// open.
//
// The server keys are kept in a key file: one key a line, each exactly 64
// hexadecimal characters (the 32 key bytes) — what `openssl rand -hex 32`
// prints — blank lines and # comments ignored. The first key seals new
// values; the others only open older ones. Rotation (docs in README.md):
// add the new key as the second line and roll out, move it to the first
// line and roll out, run `chartctl secrets rotate` to re-seal every value
// under it in one transaction, then drop the old line. The file must not be
// readable or writable by group or others (mode 0600 or 0400).
package secrets

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

const (
	// KeySize is the length of a server key: AES-256.
	KeySize = 32
	// Version1 is the first byte of a value sealed with AES-256-GCM and a
	// 12-byte random nonce, naming no key (before key rotation).
	Version1 byte = 1
	// Version2 is the first byte of a value sealed with AES-256-GCM under
	// the key its key id names, and a 12-byte random nonce.
	Version2 byte = 2
	// KeyIDSize is the length of a key id.
	KeyIDSize = 4
	// NonceSize is the length of the random nonce.
	NonceSize = 12
	// Overhead is how many bytes sealing adds: version, key id, nonce and
	// tag.
	Overhead = 1 + KeyIDSize + NonceSize + 16
	// OverheadV1 is what sealing added in the Version1 format.
	OverheadV1 = 1 + NonceSize + 16
	// DefaultKeyFile is the key file's name in the data directory when
	// -secrets-key-file is not given.
	DefaultKeyFile = "secrets.key"
)

// ErrOpen means a value did not open: another server key, other additional
// data, an unknown version, or bytes changed since sealing. The causes are
// deliberately not told apart.
var ErrOpen = errors.New("secrets: cannot open sealed value (wrong server key, wrong row, or tampered)")

// Box is a key ring: it seals under its first (newest) server key and
// opens values sealed under any of its keys. It is safe for concurrent use.
type Box struct {
	keys []ringKey
}

// ringKey is one server key of a Box.
type ringKey struct {
	id   [KeyIDSize]byte
	aead cipher.AEAD
}

// New builds a Box from one KeySize-byte server key.
func New(key []byte) (*Box, error) { return NewRing(key) }

// NewRing builds a Box from server keys, newest first: the first seals,
// every one opens. Two keys alike, or with one key id, are refused.
func NewRing(keys ...[]byte) (*Box, error) {
	if len(keys) == 0 {
		return nil, errors.New("secrets: no server key")
	}
	b := &Box{}
	for i, key := range keys {
		if len(key) != KeySize {
			return nil, fmt.Errorf("secrets: server key %d is %d bytes, want %d", i+1, len(key), KeySize)
		}
		block, err := aes.NewCipher(key)
		if err != nil {
			return nil, fmt.Errorf("secrets: %w", err)
		}
		aead, err := cipher.NewGCM(block)
		if err != nil {
			return nil, fmt.Errorf("secrets: %w", err)
		}
		k := ringKey{id: keyID(key), aead: aead}
		for _, o := range b.keys {
			if o.id == k.id {
				return nil, fmt.Errorf("secrets: server key %d is listed twice (key id %x)", i+1, k.id)
			}
		}
		b.keys = append(b.keys, k)
	}
	return b, nil
}

// keyID is a key's id: the first KeyIDSize bytes of its SHA-256, which
// tell keys apart without revealing them.
func keyID(key []byte) [KeyIDSize]byte {
	sum := sha256.Sum256(key)
	return [KeyIDSize]byte(sum[:KeyIDSize])
}

// KeyIDs answers the ring's key ids in hex, newest first.
func (b *Box) KeyIDs() []string {
	out := make([]string, len(b.keys))
	for i, k := range b.keys {
		out[i] = hex.EncodeToString(k.id[:])
	}
	return out
}

// GenerateKey answers a fresh random server key.
func GenerateKey() []byte {
	key := make([]byte, KeySize)
	rand.Read(key) // never fails (crypto/rand panics rather than return short)
	return key
}

// Seal encrypts plaintext bound to additionalData under the newest key,
// with a fresh random nonce. The answer is len(plaintext)+Overhead bytes.
func (b *Box) Seal(plaintext, additionalData []byte) ([]byte, error) {
	k := b.keys[0]
	out := make([]byte, 1+KeyIDSize+NonceSize, len(plaintext)+Overhead)
	out[0] = Version2
	copy(out[1:], k.id[:])
	nonce := out[1+KeyIDSize:]
	if _, err := rand.Read(nonce); err != nil {
		return nil, fmt.Errorf("secrets: nonce: %w", err)
	}
	return k.aead.Seal(out, nonce, plaintext, additionalData), nil
}

// Open decrypts a value made by Seal under a key of the ring (the one its
// key id names; for a Version1 value, whichever opens it) and
// additionalData. Any failure is ErrOpen.
func (b *Box) Open(sealed, additionalData []byte) ([]byte, error) {
	pt, _, err := b.open(sealed, additionalData)
	return pt, err
}

// Current reports whether sealed is a value of the current format under
// the newest key: one `chartctl secrets rotate` leaves as it is.
func (b *Box) Current(sealed []byte) bool {
	return len(sealed) >= Overhead && sealed[0] == Version2 && bytes.Equal(sealed[1:1+KeyIDSize], b.keys[0].id[:])
}

// Reseal opens sealed with the ring and seals its plaintext again under the
// newest key, with the same additionalData. A value already Current is
// answered as it is (changed false).
func (b *Box) Reseal(sealed, additionalData []byte) (out []byte, changed bool, err error) {
	if b.Current(sealed) {
		if _, err := b.Open(sealed, additionalData); err != nil {
			return nil, false, err
		}
		return sealed, false, nil
	}
	pt, _, err := b.open(sealed, additionalData)
	if err != nil {
		return nil, false, err
	}
	out, err = b.Seal(pt, additionalData)
	return out, err == nil, err
}

// open answers the plaintext and the index of the key that opened it.
func (b *Box) open(sealed, additionalData []byte) ([]byte, int, error) {
	if !IsSealed(sealed) {
		return nil, 0, ErrOpen
	}
	if sealed[0] == Version1 {
		for i, k := range b.keys {
			if pt, err := k.aead.Open(nil, sealed[1:1+NonceSize], sealed[1+NonceSize:], additionalData); err == nil {
				return pt, i, nil
			}
		}
		return nil, 0, ErrOpen
	}
	id := sealed[1 : 1+KeyIDSize]
	for i, k := range b.keys {
		if bytes.Equal(k.id[:], id) {
			body := sealed[1+KeyIDSize:]
			pt, err := k.aead.Open(nil, body[:NonceSize], body[NonceSize:], additionalData)
			if err != nil {
				return nil, 0, ErrOpen
			}
			return pt, i, nil
		}
	}
	return nil, 0, ErrOpen
}

// IsSealed reports whether v has the shape of a sealed value: a known
// version byte and room for its header and tag. It says nothing of whether
// v opens, and a random byte string passes it 2 times in 256 (when long
// enough), so callers that also hold unsealed values must tell them apart
// by other means (see libs/signing).
func IsSealed(v []byte) bool {
	return (len(v) >= Overhead && v[0] == Version2) || (len(v) >= OverheadV1 && v[0] == Version1)
}

// SealedLen reports whether n is the length of a plaintext of plainLen
// bytes once sealed, in either format.
func SealedLen(n, plainLen int) bool {
	return n == plainLen+Overhead || n == plainLen+OverheadV1
}

// LoadKeyFile reads a key file (one key a line, 64 hex characters each,
// the newest first) and builds its Box. A file that group or others may read or
// write is refused: the key would not be secret.
func LoadKeyFile(path string) (*Box, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("secrets key file: %w", err)
	}
	defer f.Close()
	fi, err := f.Stat() // the file read below, even if path changes meanwhile
	if err != nil {
		return nil, fmt.Errorf("secrets key file: %w", err)
	}
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("secrets key file %s: not a regular file", path)
	}
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("secrets key file %s has mode %04o: group or others may read or change it; run chmod 600 %s", path, perm, path)
	}
	raw, err := io.ReadAll(io.LimitReader(f, 64<<10))
	if err != nil {
		return nil, fmt.Errorf("secrets key file: %w", err)
	}
	keys, err := parseKeys(raw)
	if err != nil {
		return nil, fmt.Errorf("secrets key file %s: %w", path, err)
	}
	b, err := NewRing(keys...)
	if err != nil {
		return nil, fmt.Errorf("secrets key file %s: %w", path, err)
	}
	return b, nil
}

// parseKeys decodes a key file: one key a line, newest first; blank lines
// and lines starting with # are skipped.
func parseKeys(raw []byte) ([][]byte, error) {
	var keys [][]byte
	for i, line := range strings.Split(string(raw), "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		key, err := parseKey([]byte(line))
		if err != nil {
			return nil, fmt.Errorf("line %d: %w", i+1, err)
		}
		keys = append(keys, key)
	}
	if len(keys) == 0 {
		_, err := parseKey(raw) // says what a key looks like
		return nil, err
	}
	return keys, nil
}

// parseKey decodes a key file's content; only a trailing newline (or other
// surrounding white space) is tolerated around the 64 hex characters.
func parseKey(raw []byte) ([]byte, error) {
	s := strings.TrimSpace(string(raw))
	if len(s) != 2*KeySize {
		return nil, fmt.Errorf("want %d hexadecimal characters (%d key bytes, e.g. from `openssl rand -hex %d`), found %d characters", 2*KeySize, KeySize, KeySize, len(s))
	}
	key, err := hex.DecodeString(s)
	if err != nil {
		return nil, fmt.Errorf("want %d hexadecimal characters: %w", 2*KeySize, err)
	}
	return key, nil
}

// EnsureKeyFile loads the key file at path, first creating it with a fresh
// random key and mode 0600 when it does not exist (its directory too, mode
// 0700). Creation is atomic: a process racing to create the same file
// ends up with the key that won, never with a half-written file.
func EnsureKeyFile(path string) (*Box, error) {
	if _, err := os.Lstat(path); err == nil || !errors.Is(err, fs.ErrNotExist) {
		return LoadKeyFile(path)
	}
	if err := writeNewKeyFile(path); err != nil {
		return nil, fmt.Errorf("secrets key file %s: create: %w", path, err)
	}
	return LoadKeyFile(path)
}

// writeNewKeyFile writes a fresh key to a temporary file and links it into
// place, so path appears complete or not at all; an existing path is left
// as it is.
func writeNewKeyFile(path string) error {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return err
	}
	tmp, err := os.CreateTemp(dir, ".secrets-key-*") // mode 0600
	if err != nil {
		return err
	}
	defer os.Remove(tmp.Name())
	_, err = tmp.WriteString(hex.EncodeToString(GenerateKey()) + "\n")
	if err == nil {
		err = tmp.Sync()
	}
	if cerr := tmp.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return err
	}
	if err := os.Link(tmp.Name(), path); err != nil && !errors.Is(err, fs.ErrExist) {
		return err
	}
	if d, err := os.Open(dir); err == nil {
		d.Sync() // make the new name durable; best effort
		d.Close()
	}
	return nil
}

// Load answers the Box for the -secrets-key-file setting. A named file must
// exist (a typo must not mint a new key that nothing else has). When file
// is empty and generateDir is not, the key is <generateDir>/secrets.key,
// created when missing (the one-machine setup). With neither, there is no
// key and Load says which flag to set.
func Load(file, generateDir string) (*Box, error) {
	switch {
	case file != "":
		return LoadKeyFile(file)
	case generateDir != "":
		return EnsureKeyFile(filepath.Join(generateDir, DefaultKeyFile))
	}
	return nil, errors.New("no server key for signing-key secrets: set -secrets-key-file (CHARTD_SECRETS_KEY_FILE) to the file holding it")
}
