package secrets

import (
	"bytes"
	"crypto/aes"
	"crypto/cipher"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
)

func newBox(t *testing.T, key []byte) *Box {
	t.Helper()
	b, err := New(key)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func TestNewRejectsKeySizes(t *testing.T) {
	for _, n := range []int{0, 16, 24, 31, 33, 64} {
		if _, err := New(make([]byte, n)); err == nil {
			t.Errorf("New with a %d-byte key succeeded", n)
		}
	}
}

func TestSealOpen(t *testing.T) {
	key := bytes.Repeat([]byte{7}, KeySize)
	box := newBox(t, key)
	other := newBox(t, bytes.Repeat([]byte{8}, KeySize))
	ad := []byte("account-1/kid-1")
	secret := bytes.Repeat([]byte{0x00, 0xff, 0x7f}, 11)[:32]
	sealed, err := box.Seal(secret, ad)
	if err != nil {
		t.Fatal(err)
	}
	if len(sealed) != len(secret)+Overhead || sealed[0] != Version2 || !IsSealed(sealed) || !box.Current(sealed) {
		t.Fatalf("sealed value: %d bytes, version %d", len(sealed), sealed[0])
	}
	if bytes.Contains(sealed, secret) {
		t.Fatal("sealed value contains the plaintext")
	}
	again, _ := box.Seal(secret, ad)
	if n := 1 + KeyIDSize; bytes.Equal(again[n:n+NonceSize], sealed[n:n+NonceSize]) {
		t.Fatal("two seals share a nonce")
	}

	flip := func(i int) []byte {
		c := bytes.Clone(sealed)
		c[i] ^= 0x01
		return c
	}
	tests := []struct {
		name   string
		box    *Box
		sealed []byte
		ad     []byte
		ok     bool
	}{
		{"round trip", box, sealed, ad, true},
		{"second seal opens too", box, again, ad, true},
		{"empty plaintext", box, mustSeal(t, box, nil, ad), ad, true},
		{"nil additional data", box, mustSeal(t, box, secret, nil), nil, true},
		{"wrong key", other, sealed, ad, false},
		{"other row (additional data)", box, sealed, []byte("account-1/kid-2"), false},
		{"additional data missing", box, sealed, nil, false},
		{"unknown version", box, flip(0), ad, false},
		{"version 0", box, append([]byte{0}, sealed[1:]...), ad, false},
		{"tampered key id", box, flip(1), ad, false},
		{"tampered nonce", box, flip(1 + KeyIDSize), ad, false},
		{"tampered ciphertext", box, flip(1 + KeyIDSize + NonceSize), ad, false},
		{"tampered tag", box, flip(len(sealed) - 1), ad, false},
		{"truncated", box, sealed[:len(sealed)-1], ad, false},
		{"extended", box, append(bytes.Clone(sealed), 0), ad, false},
		{"too short", box, sealed[:Overhead-1], ad, false},
		{"empty", box, nil, ad, false},
		{"plaintext", box, secret, ad, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := tt.box.Open(tt.sealed, tt.ad)
			if !tt.ok {
				if !errors.Is(err, ErrOpen) || got != nil {
					t.Fatalf("Open = %x, %v; want ErrOpen", got, err)
				}
				return
			}
			if err != nil {
				t.Fatalf("Open: %v", err)
			}
			if tt.name == "empty plaintext" {
				if len(got) != 0 {
					t.Fatalf("Open = %x, want empty", got)
				}
				return
			}
			if !bytes.Equal(got, secret) {
				t.Fatalf("Open = %x, want %x", got, secret)
			}
		})
	}
}

func mustSeal(t *testing.T, b *Box, pt, ad []byte) []byte {
	t.Helper()
	s, err := b.Seal(pt, ad)
	if err != nil {
		t.Fatal(err)
	}
	return s
}

func writeFile(t *testing.T, path, content string, mode os.FileMode) {
	t.Helper()
	if err := os.WriteFile(path, []byte(content), mode); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(path, mode); err != nil { // not narrowed by the umask
		t.Fatal(err)
	}
}

func TestLoadKeyFile(t *testing.T) {
	key := bytes.Repeat([]byte{0xab}, KeySize)
	hexKey := hex.EncodeToString(key)
	ref := newBox(t, key)
	sealed := mustSeal(t, ref, []byte("s"), nil)

	dir := t.TempDir()
	if err := os.Symlink("ok", filepath.Join(dir, "link")); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(dir, "adir"), 0o700); err != nil {
		t.Fatal(err)
	}
	tests := []struct {
		name, file, content string
		mode                os.FileMode
		wantErr             string // "" loads the reference key
	}{
		{"hex with newline", "ok", hexKey + "\n", 0o600, ""},
		{"a newer key first, comments", "ring", "# rotated 2026-11\n" + strings.Repeat("cd", KeySize) + "\n\n# the old one\n" + hexKey + "\n", 0o600, ""},
		{"one key twice", "twice", hexKey + "\n" + hexKey + "\n", 0o600, "listed twice"},
		{"a bad second line", "bad2", hexKey + "\n" + hexKey[:10] + "\n", 0o600, "line 2"},
		{"hex alone, read-only", "bare", hexKey, 0o400, ""},
		{"upper-case hex", "upper", strings.ToUpper(hexKey), 0o600, ""},
		{"symlink to a good file", "link", "", 0, ""},
		{"group readable", "g", hexKey, 0o640, "chmod 600"},
		{"world readable", "o", hexKey, 0o644, "mode 0644"},
		{"group writable", "gw", hexKey, 0o620, "group or others"},
		{"raw bytes", "raw", string(key), 0o600, "64 hexadecimal characters"},
		{"short", "short", hexKey[:62], 0o600, "found 62 characters"},
		{"not hex", "nothex", strings.Repeat("zz", KeySize), 0o600, "hexadecimal"},
		{"empty", "empty", "", 0o600, "found 0 characters"},
		{"missing", "missing", "", 0, "no such file"},
		{"directory", "adir", "", 0, "not a regular file"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			path := filepath.Join(dir, tt.file)
			if tt.mode != 0 {
				writeFile(t, path, tt.content, tt.mode)
			}
			box, err := LoadKeyFile(path)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("LoadKeyFile error = %v, want one containing %q", err, tt.wantErr)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			if _, err := box.Open(sealed, nil); err != nil {
				t.Fatalf("loaded key is not the file's key: %v", err)
			}
		})
	}
}

func TestEnsureKeyFile(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data") // missing: created 0700
	path := filepath.Join(dir, DefaultKeyFile)
	box, err := EnsureKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("generated key file mode %04o, want 0600", fi.Mode().Perm())
	}
	if di, _ := os.Stat(dir); di.Mode().Perm() != 0o700 {
		t.Fatalf("created directory mode %04o, want 0700", di.Mode().Perm())
	}
	raw, _ := os.ReadFile(path)
	if len(raw) != 2*KeySize+1 || raw[len(raw)-1] != '\n' {
		t.Fatalf("key file content %q: want 64 hex characters and a newline", raw)
	}
	entries, _ := os.ReadDir(dir)
	if len(entries) != 1 {
		t.Fatalf("data dir holds %d entries, want only the key file (no temp files)", len(entries))
	}
	sealed := mustSeal(t, box, []byte("kept"), nil)

	// A second call loads the same key rather than making a new one.
	again, err := EnsureKeyFile(path)
	if err != nil {
		t.Fatal(err)
	}
	if _, err := again.Open(sealed, nil); err != nil {
		t.Fatalf("EnsureKeyFile replaced an existing key: %v", err)
	}
	// An existing file with loose permissions is refused, not replaced.
	if err := os.Chmod(path, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := EnsureKeyFile(path); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("EnsureKeyFile accepted a world-readable file: %v", err)
	}
	if raw2, _ := os.ReadFile(path); !bytes.Equal(raw, raw2) {
		t.Fatal("EnsureKeyFile rewrote an existing file")
	}
}

// Processes racing to create the key all end up with the one key that won.
func TestEnsureKeyFileRace(t *testing.T) {
	path := filepath.Join(t.TempDir(), DefaultKeyFile)
	boxes := make([]*Box, 16)
	var wg sync.WaitGroup
	for i := range boxes {
		wg.Go(func() {
			b, err := EnsureKeyFile(path)
			if err != nil {
				t.Error(err)
			}
			boxes[i] = b
		})
	}
	wg.Wait()
	if t.Failed() {
		return
	}
	sealed := mustSeal(t, boxes[0], []byte("x"), nil)
	for i, b := range boxes {
		if _, err := b.Open(sealed, nil); err != nil {
			t.Fatalf("racer %d holds another key", i)
		}
	}
}

func TestLoad(t *testing.T) {
	dir := t.TempDir()
	if _, err := Load("", ""); err == nil || !strings.Contains(err.Error(), "-secrets-key-file") {
		t.Fatalf("Load without a file or directory: %v", err)
	}
	if _, err := Load(filepath.Join(dir, "typo.key"), dir); err == nil {
		t.Fatal("Load generated a named key file that did not exist")
	}
	gen, err := Load("", dir)
	if err != nil {
		t.Fatal(err)
	}
	named, err := Load(filepath.Join(dir, DefaultKeyFile), "")
	if err != nil {
		t.Fatal(err)
	}
	if _, err := named.Open(mustSeal(t, gen, []byte("x"), nil), nil); err != nil {
		t.Fatal("the generated key and the named file differ")
	}
}

func BenchmarkOpen(b *testing.B) {
	box, _ := New(GenerateKey())
	sealed, _ := box.Seal(make([]byte, 32), []byte("account/kid"))
	b.ReportAllocs()
	for b.Loop() {
		if _, err := box.Open(sealed, []byte("account/kid")); err != nil {
			b.Fatal(err)
		}
	}
}

// sealV1 seals as the first format did: version 1, nonce, no key id.
func sealV1(t *testing.T, key, pt, ad []byte) []byte {
	t.Helper()
	block, err := aes.NewCipher(key)
	if err != nil {
		t.Fatal(err)
	}
	aead, err := cipher.NewGCM(block)
	if err != nil {
		t.Fatal(err)
	}
	out := make([]byte, 1+NonceSize)
	out[0] = Version1
	rand.Read(out[1:])
	return aead.Seal(out, out[1:], pt, ad)
}

// TestKeyRing: a ring seals under its newest key and opens values of
// every key it holds, by key id, and the first format by trying each;
// Reseal moves a value to the newest key; a box without the key opens
// nothing of it.
func TestKeyRing(t *testing.T) {
	oldKey, newKey := GenerateKey(), GenerateKey()
	old := newBox(t, oldKey)
	ring, err := NewRing(newKey, oldKey)
	if err != nil {
		t.Fatal(err)
	}
	if ids := ring.KeyIDs(); len(ids) != 2 || ids[1] != old.KeyIDs()[0] || len(ids[0]) != 2*KeyIDSize {
		t.Fatalf("key ids %v", ids)
	}
	ad := []byte("acct/kid")
	byOld := mustSeal(t, old, []byte("a secret"), ad)
	v1 := sealV1(t, oldKey, []byte("a secret"), ad)
	if len(v1) != len("a secret")+OverheadV1 || !IsSealed(v1) || !SealedLen(len(v1), len("a secret")) || !SealedLen(len(byOld), len("a secret")) {
		t.Fatal("lengths of the two formats")
	}
	byRing := mustSeal(t, ring, []byte("a secret"), ad)
	for name, v := range map[string][]byte{"old key": byOld, "first format": v1, "new key": byRing} {
		if pt, err := ring.Open(v, ad); err != nil || string(pt) != "a secret" {
			t.Errorf("ring opens the %s's value: %q %v", name, pt, err)
		}
	}
	if _, err := old.Open(byRing, ad); !errors.Is(err, ErrOpen) {
		t.Error("the old key alone opens a value of the new key")
	}
	if !ring.Current(byRing) || ring.Current(byOld) || ring.Current(v1) || !old.Current(byOld) {
		t.Error("Current")
	}
	for name, v := range map[string][]byte{"old key": byOld, "first format": v1} {
		out, changed, err := ring.Reseal(v, ad)
		if err != nil || !changed || !ring.Current(out) {
			t.Fatalf("reseal %s: changed %v err %v", name, changed, err)
		}
		onlyNew := newBox(t, newKey)
		if pt, err := onlyNew.Open(out, ad); err != nil || string(pt) != "a secret" {
			t.Errorf("the resealed %s value does not open with the new key alone: %v", name, err)
		}
	}
	if out, changed, err := ring.Reseal(byRing, ad); err != nil || changed || !bytes.Equal(out, byRing) {
		t.Errorf("a current value resealed: changed %v err %v", changed, err)
	}
	if _, _, err := ring.Reseal(byOld, []byte("other/row")); !errors.Is(err, ErrOpen) {
		t.Errorf("reseal under other additional data: %v", err)
	}
	if _, err := NewRing(newKey, oldKey, newKey); err == nil {
		t.Error("a ring with a key twice")
	}
	if _, err := NewRing(); err == nil {
		t.Error("an empty ring")
	}
}
