package main

import (
	"bufio"
	"net"
	"net/url"
	"strings"
	"testing"
)

// TestRateLimitHeadersSpelledAsSpec reads the answer off the wire, where
// no client has canonicalised the names: X-RateLimit-*, as the spec writes
// them.
func TestRateLimitHeadersSpelledAsSpec(t *testing.T) {
	in := startAll(t)
	u, err := url.Parse(in.url)
	if err != nil {
		t.Fatal(err)
	}
	conn, err := net.Dial("tcp", u.Host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	if _, err := conn.Write([]byte("GET /api/v1/account HTTP/1.1\r\nHost: " + u.Host + "\r\nConnection: close\r\n\r\n")); err != nil {
		t.Fatal(err)
	}
	names := map[string]bool{}
	r := bufio.NewReader(conn)
	for {
		line, err := r.ReadString('\n')
		if err != nil || line == "\r\n" {
			break
		}
		if name, _, ok := strings.Cut(line, ":"); ok {
			names[name] = true
		}
	}
	for _, h := range []string{"X-RateLimit-Limit", "X-RateLimit-Remaining", "X-RateLimit-Reset"} {
		if !names[h] {
			t.Errorf("header %s not on the wire as spelled; got %v", h, names)
		}
	}
}
