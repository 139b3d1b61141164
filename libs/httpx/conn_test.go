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

// TestFraming: the request stream is followed across bodies and reads of
// any size; only a chunked request with a Content-Length sets both.
func TestFraming(t *testing.T) {
	get := "GET /a HTTP/1.1\r\nHost: x\r\n\r\n"
	post := "POST /b HTTP/1.1\r\nHost: x\r\nContent-Length: 40\r\n\r\n" + "Transfer-Encoding: chunked\r\nContent-Le\r\n\r\n"
	chunked := "POST /c HTTP/1.1\r\nHost: x\r\ntransfer-encoding: chunked\r\n\r\n5\r\nhello\r\n0\r\n\r\n"
	smuggle := "POST /d HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n"
	tests := []struct {
		stream string
		both   bool
	}{
		{get + post + chunked, false},
		{get + post + smuggle, true},
		{"\r\n" + smuggle, true},
		{post + get, false},
		{"POST /e HTTP/1.1\r\nX-Long-Header-Name-Content-Length: 1\r\n  Content-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n", false},
	}
	for _, tt := range tests {
		for _, size := range []int{1, 3, 7, 4096} {
			var f framing
			for s := tt.stream; s != ""; {
				n := min(size, len(s))
				f.feed([]byte(s[:n]))
				s = s[n:]
			}
			if f.both != tt.both {
				t.Errorf("%.50q in reads of %d: both %v, want %v", tt.stream, size, f.both, tt.both)
			}
		}
	}
}

// BenchmarkFraming follows a typical API request (about 400 bytes of
// headers and a small body), as every connection read does.
func BenchmarkFraming(b *testing.B) {
	req := []byte("POST /api/v1/charts HTTP/1.1\r\nHost: api.example.com\r\nUser-Agent: Mozilla/5.0 (X11; Linux x86_64) AppleWebKit/537.36\r\n" +
		"Authorization: Bearer cd_live_0123456789abcdef0123456789abcdef\r\nAccept: application/json\r\nAccept-Encoding: gzip, deflate, br\r\n" +
		"Content-Type: application/json\r\nX-Request-Id: 0123456789abcdef01234567\r\nContent-Length: 36\r\n\r\n" + `{"type":"bar","data":"x,y\na,1\n"}  `)
	var f framing
	b.SetBytes(int64(len(req)))
	b.ReportAllocs()
	for b.Loop() {
		f.feed(req)
	}
	if f.done {
		b.Fatal("lost the framing")
	}
}
