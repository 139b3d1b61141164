package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
)

// TestSiteUsers covers the site's verbs: an account with an email, a
// sign-in link, and a password read from a file.
func TestSiteUsers(t *testing.T) {
	dir := t.TempDir()
	acct, _, err := ctl(t, dir, "account", "create", "-plan", "pro", "-email", "Local@Example.com")
	if err != nil {
		t.Fatal(err)
	}
	if acct["email"] != "local@example.com" || acct["user_id"] == "" || !strings.HasPrefix(acct["api_key"].(string), "chd_") {
		t.Fatalf("account create -email: %v", acct)
	}
	good := filepath.Join(dir, "pw")
	short := filepath.Join(dir, "short")
	os.WriteFile(good, []byte("a long enough password\n"), 0o600)
	os.WriteFile(short, []byte("short\n"), 0o600)
	tests := []struct {
		name    string
		args    []string
		wantErr string
		check   func(map[string]any) bool
	}{
		{"used email", []string{"account", "create", "-plan", "free", "-email", "local@example.com"}, "conflict", nil},
		{"bad email", []string{"account", "create", "-plan", "free", "-email", "nope"}, "email", nil},
		{"link", []string{"signin", "link", "-email", "LOCAL@example.com", "-public-url", "http://127.0.0.1:8080/"}, "", func(m map[string]any) bool {
			u, _ := m["url"].(string)
			return strings.HasPrefix(u, "http://127.0.0.1:8080/signin/link?token=") && len(u) > 60 && m["expires_at"] != nil
		}},
		{"link needs the public url", []string{"signin", "link", "-email", "local@example.com"}, "-public-url", nil},
		{"link for an unknown user", []string{"signin", "link", "-email", "x@example.com", "-public-url", "http://h"}, "not found", nil},
		{"password", []string{"password", "set", "-email", "local@example.com", "-password-file", good}, "", func(m map[string]any) bool { return m["password_set"] == true }},
		{"short password", []string{"password", "set", "-email", "local@example.com", "-password-file", short}, "10 to 256", nil},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, _, err := ctl(t, dir, tt.args...)
			if tt.wantErr != "" {
				if err == nil || !strings.Contains(err.Error(), tt.wantErr) {
					t.Fatalf("error %v, want one saying %q", err, tt.wantErr)
				}
				return
			}
			if err != nil || !tt.check(got) {
				t.Fatalf("answer %v, %v", got, err)
			}
		})
	}
}
