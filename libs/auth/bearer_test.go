package auth

import (
	"net/http"
	"testing"
)

// TestBearerKey accepts exactly "Bearer <token>" with one space and
// refuses every other spelling of the header.
func TestBearerKey(t *testing.T) {
	for _, tt := range []struct {
		header, key string
		ok          bool
	}{
		{"Bearer chd_abc123", "chd_abc123", true},
		{"bearer chd_abc123", "chd_abc123", true},
		{"Bearer a-b.c~d+e/f==", "a-b.c~d+e/f==", true},
		{"Bearer  chd_abc123", "", false},
		{"Bearer \tchd_abc123", "", false},
		{"Bearer chd_abc 123", "", false},
		{"Bearer chd_abc123 ", "", false},
		{"Bearer ", "", false},
		{"Bearer =", "", false},
		{"Bearer chd_a=b", "", false},
		{"Basic chd_abc123", "", false},
		{"Bearerchd_abc123", "", false},
	} {
		r, _ := http.NewRequest(http.MethodGet, "/", nil)
		r.Header["Authorization"] = []string{tt.header}
		key, err := BearerKey(r)
		if (err == nil) != tt.ok || key != tt.key {
			t.Errorf("BearerKey(%q) = %q, %v; want %q ok=%v", tt.header, key, err, tt.key, tt.ok)
		}
	}
}
