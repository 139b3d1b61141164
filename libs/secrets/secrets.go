// Package secrets seals small secrets (the signing keys of image links) at
// rest with AES-256-GCM under a server key, so a copy of the database alone
// reveals none of them.
//
// A sealed value is
//
//	version (1 byte, Version1) | nonce (12 random bytes) | ciphertext + 16-byte tag
//
// so it is len(plaintext)+Overhead bytes long. The version byte lets the
// format change later without guessing. Callers pass additional data naming
// where the value lives (for a signing key: its account and kid), so a value
// copied to another row does not open.
//
// The server key is kept in a key file: exactly 64 hexadecimal characters
// (the 32 key bytes), optionally followed by a newline — what
// `openssl rand -hex 32` prints. The file must not be readable or writable
// by group or others (mode 0600 or 0400).
package secrets

import (
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
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
	// 12-byte random nonce.
	Version1 byte = 1
	// NonceSize is the length of the random nonce after the version byte.
	NonceSize = 12
	// Overhead is how many bytes sealing adds: version, nonce and tag.
	Overhead = 1 + NonceSize + 16
	// DefaultKeyFile is the key file's name in the data directory when
	// -secrets-key-file is not given.
	DefaultKeyFile = "secrets.key"
)

// ErrOpen means a value did not open: another server key, other additional
// data, an unknown version, or bytes changed since sealing. The causes are
// deliberately not told apart.
var ErrOpen = errors.New("secrets: cannot open sealed value (wrong server key, wrong row, or tampered)")

// Box seals and opens values under one server key. It is safe for
// concurrent use.
type Box struct {
	aead cipher.AEAD
}

// New builds a Box from a KeySize-byte server key.
func New(key []byte) (*Box, error) {
	if len(key) != KeySize {
		return nil, fmt.Errorf("secrets: server key is %d bytes, want %d", len(key), KeySize)
	}
	block, err := aes.NewCipher(key)
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		return nil, fmt.Errorf("secrets: %w", err)
	}
	return &Box{aead: aead}, nil
}

// GenerateKey answers a fresh random server key.
func GenerateKey() []byte {
	key := make([]byte, KeySize)
	rand.Read(key) // never fails (crypto/rand panics rather than return short)
	return key
}

// Seal encrypts plaintext bound to additionalData, with a fresh random
// nonce. The answer is len(plaintext)+Overhead bytes.
func (b *Box) Seal(plaintext, additionalData []byte) ([]byte, error) {
	out := make([]byte, 1+NonceSize, len(plaintext)+Overhead)
	out[0] = Version1
	if _, err := rand.Read(out[1 : 1+NonceSize]); err != nil {
		return nil, fmt.Errorf("secrets: nonce: %w", err)
	}
	return b.aead.Seal(out, out[1:1+NonceSize], plaintext, additionalData), nil
}

// Open decrypts a value made by Seal with the same server key and
// additionalData. Any failure is ErrOpen.
func (b *Box) Open(sealed, additionalData []byte) ([]byte, error) {
	if !IsSealed(sealed) {
		return nil, ErrOpen
	}
	pt, err := b.aead.Open(nil, sealed[1:1+NonceSize], sealed[1+NonceSize:], additionalData)
	if err != nil {
		return nil, ErrOpen
	}
	return pt, nil
}

// IsSealed reports whether v has the shape of a sealed value: a known
// version byte and room for nonce and tag. It says nothing of whether v
// opens, and a random byte string passes it 1 time in 256 (when long
// enough), so callers that also hold unsealed values must tell them apart
// by other means (see libs/signing).
func IsSealed(v []byte) bool {
	return len(v) >= Overhead && v[0] == Version1
}

// LoadKeyFile reads a key file (64 hex characters, optionally followed by
// a newline) and builds its Box. A file that group or others may read or
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
	raw, err := io.ReadAll(io.LimitReader(f, 1024))
	if err != nil {
		return nil, fmt.Errorf("secrets key file: %w", err)
	}
	key, err := parseKey(raw)
	if err != nil {
		return nil, fmt.Errorf("secrets key file %s: %w", path, err)
	}
	return New(key)
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
