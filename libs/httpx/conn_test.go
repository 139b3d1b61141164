package httpx

import "testing"

// TestParsePlainError: net/http's own refusals are recognised, and
// nothing a handler writes is.
func TestParsePlainError(t *testing.T) {
	tests := []struct {
		in     string
		status int
		ok     bool
	}{
		{"HTTP/1.1 431 Request Header Fields Too Large" + plainErrorHeaders + "431 Request Header Fields Too Large", 431, true},
		{"HTTP/1.1 400 Bad Request: missing required Host header" + plainErrorHeaders + "400 Bad Request: missing required Host header", 400, true},
		{"HTTP/1.1 200 OK\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\nhi", 0, false},
		{"HTTP/1.1 400 Bad Request\r\nDate: x" + plainErrorHeaders + "x", 0, false},
		{"hello" + plainErrorHeaders, 0, false},
	}
	for _, tt := range tests {
		status, _, ok := parsePlainError([]byte(tt.in))
		if ok != tt.ok || status != tt.status {
			t.Errorf("%.40q: %d %v, want %d %v", tt.in, status, ok, tt.status, tt.ok)
		}
	}
}
