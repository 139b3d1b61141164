package main

import (
	"bytes"
	"context"
	"encoding/hex"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"

	"chartd.dev/libs/auth"
	"chartd.dev/libs/secrets"
	"chartd.dev/libs/signing"
	"chartd.dev/libs/store"
)

func ctl(t *testing.T, dir string, args ...string) (map[string]any, []any, error) {
	t.Helper()
	return ctlEnv(t, nil, dir, args...)
}

// ctlEnv runs chartctl with env as its environment.
func ctlEnv(t *testing.T, env map[string]string, dir string, args ...string) (map[string]any, []any, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), append([]string{"-data-dir", dir}, args...), func(k string) string { return env[k] }, &out)
	if err != nil {
		return nil, nil, err
	}
	var obj map[string]any
	if json.Unmarshal(out.Bytes(), &obj) == nil {
		return obj, nil, nil
	}
	var list []any
	if err := json.Unmarshal(out.Bytes(), &list); err != nil {
		t.Fatalf("output is not JSON: %s", out.String())
	}
	return nil, list, nil
}

func TestAccountsAndKeys(t *testing.T) {
	dir := t.TempDir()
	acct, _, err := ctl(t, dir, "account", "create", "-plan", "free")
	if err != nil {
		t.Fatal(err)
	}
	id, _ := acct["account_id"].(string)
	key, _ := acct["api_key"].(string)
	if len(id) != 36 || !strings.HasPrefix(key, auth.KeyPrefix) || len(acct) != 2 {
		t.Fatalf("account create printed %v", acct)
	}
	st, err := openStore(context.Background(), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	_, a, err := st.LookupAPIKey(context.Background(), auth.Hash(key))
	st.Close()
	if err != nil || a.ID != id || a.Plan != "free" {
		t.Fatalf("the printed key does not authenticate: %v %+v", err, a)
	}

	k2, _, err := ctl(t, dir, "key", "create", "-account", id, "-name", "ci")
	if err != nil {
		t.Fatal(err)
	}
	_, keys, err := ctl(t, dir, "key", "list", "-account", id)
	if err != nil || len(keys) != 2 {
		t.Fatalf("key list: %v %v", keys, err)
	}
	for _, k := range keys {
		if strings.Contains(mustJSON(k), key) || strings.Contains(mustJSON(k), k2["api_key"].(string)) {
			t.Fatal("key list shows a whole key")
		}
	}
	if _, _, err := ctl(t, dir, "key", "revoke", "-account", id, "-key", k2["key_id"].(string)); err != nil {
		t.Fatal(err)
	}
	st, _ = openStore(context.Background(), dir, "")
	if _, _, err := st.LookupAPIKey(context.Background(), auth.Hash(k2["api_key"].(string))); err == nil {
		t.Fatal("revoked key still authenticates")
	}
	st.Close()

	if _, _, err := ctl(t, dir, "plan", "set", "-account", id, "-plan", "pro"); err != nil {
		t.Fatal(err)
	}
	st, _ = openStore(context.Background(), dir, "")
	got, _ := st.GetAccount(context.Background(), id)
	st.Close()
	if got.Plan != "pro" {
		t.Fatalf("plan = %s", got.Plan)
	}

	r1, _, err := ctl(t, dir, "signing-key", "rotate", "-account", id)
	if err != nil {
		t.Fatal(err)
	}
	r2, _, _ := ctl(t, dir, "signing-key", "rotate", "-account", id)
	if revoked, _ := r2["revoked"].([]any); len(revoked) != 1 || revoked[0] != r1["kid"] {
		t.Fatalf("rotation revoked %v, want %v", r2["revoked"], r1["kid"])
	}
	if _, _, err := ctl(t, dir, "signing-key", "revoke", "-account", id, "-kid", r2["kid"].(string)); err != nil {
		t.Fatal(err)
	}
}

func TestRefusals(t *testing.T) {
	dir := t.TempDir()
	for _, args := range [][]string{
		{"account", "create"},
		{"account", "create", "-plan", "gold"},
		{"key", "create"},
		{"key", "create", "-account", "00000000-0000-0000-0000-000000000000"},
		{"plan", "set", "-account", "x", "-plan", "pro"},
		{"frobnicate", "now"},
	} {
		if _, _, err := ctl(t, dir, args...); err == nil {
			t.Errorf("%v accepted", args)
		}
	}
}

func mustJSON(v any) string { b, _ := json.Marshal(v); return string(b) }

// newAccountIn makes an account with chartctl and answers its id.
func newAccountIn(t *testing.T, dir string) string {
	t.Helper()
	acct, _, err := ctl(t, dir, "account", "create", "-plan", "pro")
	if err != nil {
		t.Fatal(err)
	}
	return acct["account_id"].(string)
}

// storedKey reads a signing key row straight from the store in dir.
func storedKey(t *testing.T, dir, account, kid string) store.SigningKey {
	t.Helper()
	st, err := openStore(context.Background(), dir, "")
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	k, err := st.GetSigningKey(context.Background(), account, kid)
	if err != nil {
		t.Fatal(err)
	}
	return k
}

func writeKeyFile(t *testing.T, path string, mode os.FileMode) *secrets.Box {
	t.Helper()
	key := secrets.GenerateKey()
	if err := os.WriteFile(path, []byte(hex.EncodeToString(key)+"\n"), mode); err != nil {
		t.Fatal(err)
	}
	os.Chmod(path, mode)
	box, err := secrets.New(key)
	if err != nil {
		t.Fatal(err)
	}
	return box
}

func TestSigningKeySealedWithDataDirKey(t *testing.T) {
	dir := t.TempDir()
	id := newAccountIn(t, dir)
	keyPath := filepath.Join(dir, "secrets.key")
	if _, err := os.Stat(keyPath); err == nil {
		t.Fatal("account create made a secrets key; only the verbs that seal need one")
	}
	r1, _, err := ctl(t, dir, "signing-key", "rotate", "-account", id)
	if err != nil {
		t.Fatal(err)
	}
	fi, err := os.Stat(keyPath)
	if err != nil {
		t.Fatalf("rotate did not generate %s: %v", keyPath, err)
	}
	if fi.Mode().Perm() != 0o600 {
		t.Fatalf("generated key file mode %04o, want 0600", fi.Mode().Perm())
	}
	box, err := secrets.LoadKeyFile(keyPath)
	if err != nil {
		t.Fatal(err)
	}
	k1 := storedKey(t, dir, id, r1["kid"].(string))
	if signing.IsLegacy(k1.Secret) {
		t.Fatal("rotate stored a raw secret")
	}
	if _, legacy, err := signing.Open(box, k1); err != nil || legacy {
		t.Fatalf("stored secret does not open with %s: %v", keyPath, err)
	}
	// The next rotation reuses the key file.
	raw, _ := os.ReadFile(keyPath)
	r2, _, err := ctl(t, dir, "signing-key", "rotate", "-account", id)
	if err != nil {
		t.Fatal(err)
	}
	if raw2, _ := os.ReadFile(keyPath); !bytes.Equal(raw, raw2) {
		t.Fatal("a second rotation replaced the key file")
	}
	if _, _, err := signing.Open(box, storedKey(t, dir, id, r2["kid"].(string))); err != nil {
		t.Fatal(err)
	}
	// A key file others can read is refused, and nothing is created.
	os.Chmod(keyPath, 0o644)
	if _, _, err := ctl(t, dir, "signing-key", "rotate", "-account", id); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("rotate with a world-readable key file: %v", err)
	}
	if _, list, _ := ctl(t, dir, "account", "list"); len(list) != 1 {
		t.Fatal("account list")
	}
}

func TestSigningKeySecretsKeyFileFlag(t *testing.T) {
	dir, keyDir := t.TempDir(), t.TempDir()
	id := newAccountIn(t, dir)
	own := filepath.Join(keyDir, "cluster.key")
	box := writeKeyFile(t, own, 0o400)
	for _, c := range []struct {
		name string
		env  map[string]string
		args []string
	}{
		{"flag", nil, []string{"-secrets-key-file", own}},
		{"environment", map[string]string{"CHARTD_SECRETS_KEY_FILE": own}, nil},
	} {
		t.Run(c.name, func(t *testing.T) {
			r, _, err := ctlEnv(t, c.env, dir, append(c.args, "signing-key", "rotate", "-account", id)...)
			if err != nil {
				t.Fatal(err)
			}
			if _, _, err := signing.Open(box, storedKey(t, dir, id, r["kid"].(string))); err != nil {
				t.Fatalf("not sealed with -secrets-key-file: %v", err)
			}
			if _, err := os.Stat(filepath.Join(dir, "secrets.key")); err == nil {
				t.Fatal("a data-dir key was generated although -secrets-key-file was given")
			}
		})
	}
	// A named file that does not exist is an error, never a new key.
	missing := filepath.Join(keyDir, "typo.key")
	if _, _, err := ctl(t, dir, "-secrets-key-file", missing, "signing-key", "rotate", "-account", id); err == nil {
		t.Fatal("rotate with a missing -secrets-key-file succeeded")
	}
	if _, err := os.Stat(missing); err == nil {
		t.Fatal("a missing -secrets-key-file was created")
	}
}

func TestSecretsMigrate(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	id := newAccountIn(t, dir)
	// Two secrets stored raw, as chartctl wrote them before sealing.
	st, err := openStore(ctx, dir, "")
	if err != nil {
		t.Fatal(err)
	}
	raw := [][]byte{signing.NewSecret(), signing.NewSecret()}
	var kids []string
	for _, r := range raw {
		k, err := st.CreateSigningKey(ctx, id, uuid.NewString(), r)
		if err != nil {
			t.Fatal(err)
		}
		kids = append(kids, k.ID)
	}
	st.RevokeSigningKey(ctx, id, kids[0])
	st.Close()

	// A live raw key is still accepted by verification until migrated.
	box, err := secrets.EnsureKeyFile(filepath.Join(dir, "secrets.key"))
	if err != nil {
		t.Fatal(err)
	}
	if _, legacy, err := signing.Open(box, storedKey(t, dir, id, kids[1])); err != nil || !legacy {
		t.Fatalf("raw secret before migration: legacy=%v %v", legacy, err)
	}
	// A sealed key, so a wrong key file can be detected.
	if _, _, err := ctl(t, dir, "signing-key", "rotate", "-account", id); err != nil {
		t.Fatal(err)
	}

	wrong := filepath.Join(t.TempDir(), "wrong.key")
	writeKeyFile(t, wrong, 0o600)
	rep, _, err := ctl(t, dir, "-secrets-key-file", wrong, "secrets", "migrate")
	if err == nil || !strings.Contains(err.Error(), "nothing was changed") {
		t.Fatalf("migrate with the wrong key: %v %v", rep, err)
	}
	if k := storedKey(t, dir, id, kids[1]); !bytes.Equal(k.Secret, raw[1]) {
		t.Fatal("migrate with the wrong key wrote")
	}

	rep, _, err = ctl(t, dir, "secrets", "migrate")
	if err != nil {
		t.Fatal(err)
	}
	if resealed, _ := rep["resealed"].([]any); len(resealed) != 2 || rep["already_sealed"] != 1.0 || rep["keys"] != 3.0 {
		t.Fatalf("secrets migrate printed %v", rep)
	}
	for i, kid := range kids {
		k := storedKey(t, dir, id, kid)
		got, legacy, err := signing.Open(box, k)
		if err != nil || legacy || !bytes.Equal(got, raw[i]) {
			t.Fatalf("key %s after migrate: legacy=%v %v", kid, legacy, err)
		}
	}
	if k := storedKey(t, dir, id, kids[0]); k.RevokedAt == nil {
		t.Fatal("migrate un-revoked a key")
	}
	rep, _, err = ctl(t, dir, "secrets", "migrate")
	if resealed, _ := rep["resealed"].([]any); err != nil || len(resealed) != 0 || rep["already_sealed"] != 3.0 {
		t.Fatalf("second migrate: %v %v", rep, err)
	}
}

// On PostgreSQL the key is never generated: the cluster's must be named.
func TestKeyBoxWithPostgres(t *testing.T) {
	dir := t.TempDir()
	if _, err := keyBox("", dir, "postgres://db/chartd"); err == nil || !strings.Contains(err.Error(), "-secrets-key-file") {
		t.Fatalf("keyBox on PostgreSQL without a key file: %v", err)
	}
	if _, err := os.Stat(filepath.Join(dir, "secrets.key")); err == nil {
		t.Fatal("a key was generated for the cluster")
	}
	named := filepath.Join(dir, "cluster.key")
	writeKeyFile(t, named, 0o600)
	if _, err := keyBox(named, dir, "postgres://db/chartd"); err != nil {
		t.Fatal(err)
	}
}
