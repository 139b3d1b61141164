package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"chartd.dev/libs/secrets"
	"chartd.dev/libs/signing"
	"chartd.dev/libs/testserver"
)

// TestSecretsRotate rotates the server key on both stores: a key file
// with the new key first and the old one after it re-seals every secret
// under the new key in one transaction (`secrets rotate`), after which the
// new key alone opens them all; a key file lacking the old key writes
// nothing.
func TestSecretsRotate(t *testing.T) {
	t.Run("embedded", func(t *testing.T) { testSecretsRotate(t, "") })
	t.Run("postgres", func(t *testing.T) {
		pg, err := testserver.StartPostgres()
		if err != nil {
			t.Fatalf("start postgres: %v", err)
		}
		t.Cleanup(func() { pg.Stop() })
		u, err := pg.CreateDatabase("rotate")
		if err != nil {
			t.Fatal(err)
		}
		testSecretsRotate(t, u)
	})
}

func testSecretsRotate(t *testing.T, pgURL string) {
	dir := t.TempDir()
	keys := t.TempDir()
	oldKey, newKey := secrets.GenerateKey(), secrets.GenerateKey()
	file := func(name string, ks ...[]byte) string {
		var b strings.Builder
		for _, k := range ks {
			b.WriteString(hex.EncodeToString(k) + "\n")
		}
		p := filepath.Join(keys, name)
		if err := os.WriteFile(p, []byte(b.String()), 0o600); err != nil {
			t.Fatal(err)
		}
		return p
	}
	oldFile, ringFile, newFile := file("old", oldKey), file("ring", newKey, oldKey), file("new", newKey)
	run := func(keyFile string, args ...string) (map[string]any, error) {
		base := []string{"-secrets-key-file", keyFile}
		if pgURL != "" {
			base = append(base, "-postgres-url", pgURL)
		}
		out, _, err := ctl(t, dir, append(base, args...)...)
		return out, err
	}
	acct, err := run(oldFile, "account", "create", "-plan", "pro")
	if err != nil {
		t.Fatal(err)
	}
	id := acct["account_id"].(string)
	var kids []string
	for range 2 { // one revoked, one live
		r, err := run(oldFile, "signing-key", "rotate", "-account", id)
		if err != nil {
			t.Fatal(err)
		}
		kids = append(kids, r["kid"].(string))
	}
	st, err := openStore(context.Background(), dir, pgURL)
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	oldBox, _ := secrets.New(oldKey)
	newBox, _ := secrets.New(newKey)
	plain := map[string][]byte{}
	for _, kid := range kids {
		k, err := st.GetSigningKey(context.Background(), id, kid)
		if err != nil {
			t.Fatal(err)
		}
		if plain[kid], _, err = signing.Open(oldBox, k); err != nil {
			t.Fatal(err)
		}
	}

	// The new key alone: every secret is unreadable, nothing is written.
	if _, err := run(newFile, "secrets", "rotate"); err == nil || !strings.Contains(err.Error(), "cannot open") {
		t.Fatalf("rotate without the old key: %v", err)
	}
	if k, _ := st.GetSigningKey(context.Background(), id, kids[1]); !oldBox.Current(k.Secret) {
		t.Fatal("a failed rotation wrote")
	}

	rep, err := run(ringFile, "secrets", "rotate")
	if err != nil {
		t.Fatal(err)
	}
	if rep["keys"] != 2.0 || rep["resealed"] != 2.0 || rep["key_id"] != newBox.KeyIDs()[0] {
		t.Fatalf("secrets rotate printed %v", rep)
	}
	for _, kid := range kids {
		k, err := st.GetSigningKey(context.Background(), id, kid)
		if err != nil {
			t.Fatal(err)
		}
		got, legacy, err := signing.Open(newBox, k)
		if err != nil || legacy || !bytes.Equal(got, plain[kid]) {
			t.Fatalf("key %s with the new key alone after rotation: %v", kid, err)
		}
	}
	// The old key has left the file: chartctl keeps working.
	if rep, err := run(newFile, "secrets", "rotate"); err != nil || rep["resealed"] != 0.0 {
		t.Fatalf("second rotation with the new key alone: %v %v", rep, err)
	}
	if _, err := run(newFile, "signing-key", "rotate", "-account", id); err != nil {
		t.Fatal(err)
	}
}
