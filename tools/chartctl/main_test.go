package main

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"chartd.dev/libs/auth"
)

func ctl(t *testing.T, dir string, args ...string) (map[string]any, []any, error) {
	t.Helper()
	var out bytes.Buffer
	err := run(context.Background(), append([]string{"-data-dir", dir}, args...), func(string) string { return "" }, &out)
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
