package site

import "testing"

// TestSafeNext keeps sign-in's destination on this site: every target a
// browser could read as another host goes to the chart list instead.
func TestSafeNext(t *testing.T) {
	for _, tt := range []struct{ next, want string }{
		{"/charts/abc", "/charts/abc"},
		{"/oauth/authorize?client_id=x&redirect_uri=https%3A%2F%2Fapp.example%2Fcb", "/oauth/authorize?client_id=x&redirect_uri=https%3A%2F%2Fapp.example%2Fcb"},
		{"/account#apps", "/account#apps"},
		{"", "/charts"},
		{"https://evil.example/", "/charts"},
		{"//evil.example/", "/charts"},
		{"/\\evil.example/", "/charts"},
		{"/\t/evil.example/", "/charts"},
		{"/\n/evil.example/", "/charts"},
		{"/\r/evil.example/", "/charts"},
		{"/\x00/evil.example/", "/charts"},
		{"/\x7f/evil.example/", "/charts"},
		{"/%2F/evil.example/", "/charts"},
		{"/a\\b", "/charts"},
		{"javascript:alert(1)", "/charts"},
		{"evil.example", "/charts"},
	} {
		if got := safeNext(tt.next); got != tt.want {
			t.Errorf("safeNext(%q) = %q, want %q", tt.next, got, tt.want)
		}
	}
}
