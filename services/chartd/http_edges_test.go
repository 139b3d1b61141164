package main

import (
	"bufio"
	"errors"
	"io"
	"net"
	"net/http"
	"strconv"
	"strings"
	"testing"
	"time"
)

// TestHeadIsGetWithoutTheBody: HEAD on a GET endpoint answers what GET
// answers, headers and status, with no body (RFC 9110 §9.3.2); a
// method-not-allowed answer lists HEAD with GET.
func TestHeadIsGetWithoutTheBody(t *testing.T) {
	in := startAll(t)
	key := in.newAccount(t, "pro")
	host := strings.TrimPrefix(in.url, "http://")
	for _, path := range []string{"/api/v1/account", "/api/v1/openapi.json", "/api/v1/charts"} {
		get := rawDo(t, in.url, "GET "+path+" HTTP/1.1\r\nHost: "+host+"\r\nAuthorization: Bearer "+key+"\r\nConnection: close\r\n\r\n")
		head := rawHead(t, in.url, "HEAD "+path+" HTTP/1.1\r\nHost: "+host+"\r\nAuthorization: Bearer "+key+"\r\nConnection: close\r\n\r\n")
		if get.status != 200 || head.status != 200 {
			t.Fatalf("%s: GET %d, HEAD %d %q", path, get.status, head.status, head.body)
		}
		if len(head.body) != 0 {
			t.Errorf("%s: HEAD sent a body: %.100q", path, head.body)
		}
		if g, h := get.header.Get("Content-Type"), head.header.Get("Content-Type"); g != h {
			t.Errorf("%s: Content-Type GET %q, HEAD %q", path, g, h)
		}
		hasRateLimitHeaders(t, head.header)
	}
	a := rawDo(t, in.url, "PUT /api/v1/account HTTP/1.1\r\nHost: "+host+"\r\nAuthorization: Bearer "+key+"\r\nContent-Length: 0\r\nConnection: close\r\n\r\n")
	if a.status != 400 || !strings.Contains(a.header.Get("Allow"), "HEAD") {
		t.Errorf("PUT: %d, Allow %q", a.status, a.header.Get("Allow"))
	}
}

// rawHead is rawDo for a HEAD request, whose answer has no body whatever
// its Content-Length says; any byte after the headers is reported as body.
func rawHead(t *testing.T, publicURL, req string) rawAnswer {
	t.Helper()
	conn, err := net.Dial("tcp", strings.TrimPrefix(publicURL, "http://"))
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, &http.Request{Method: http.MethodHead})
	if err != nil {
		t.Fatalf("no HTTP answer: %v", err)
	}
	rest, _ := io.ReadAll(br) // the server closes after the answer
	return rawAnswer{status: resp.StatusCode, header: resp.Header, body: rest}
}

// TestHugeHeadersGetTheErrorBody: headers past net/http's own cap (256
// KiB), which it refuses before any handler runs, get the API's error
// body and rate-limit headers, not net/http's plain-text 431.
func TestHugeHeadersGetTheErrorBody(t *testing.T) {
	in := startAll(t)
	host := strings.TrimPrefix(in.url, "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	req := "GET /api/v1/account HTTP/1.1\r\nHost: " + host + "\r\nX-Padding: " + strings.Repeat("p", 1<<20) + "\r\n\r\n"
	// The server answers and closes before reading it all: write while
	// reading.
	go conn.Write([]byte(req))
	resp, err := http.ReadResponse(bufio.NewReader(conn), nil)
	if err != nil {
		t.Fatalf("no HTTP answer: %v", err)
	}
	body, err := io.ReadAll(resp.Body)
	if err != nil && !errors.Is(err, net.ErrClosed) {
		t.Logf("body read: %v", err)
	}
	if resp.StatusCode != 400 || resp.Header.Get("Content-Type") != "application/json" {
		t.Fatalf("%d %q: %.200q", resp.StatusCode, resp.Header.Get("Content-Type"), body)
	}
	code, msg := oneErrorBody(t, body)
	if code != "invalid_request" || !strings.Contains(msg, "limit of 65536 bytes") {
		t.Errorf("%s %q", code, msg)
	}
	hasRateLimitHeaders(t, resp.Header)
	if !resp.Close {
		t.Error("the connection stays open")
	}
}

// TestContentLengthWithChunkedClosesTheConnection: a request with both
// Content-Length and Transfer-Encoding (a smuggling attempt, RFC 9112
// §6.3) is refused and its connection closed, so a request hidden behind
// it is never answered; a plain chunked request still works.
func TestContentLengthWithChunkedClosesTheConnection(t *testing.T) {
	in := startAll(t)
	key := in.newAccount(t, "pro")
	host := strings.TrimPrefix(in.url, "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	body := "0\r\n\r\n"
	smuggled := "GET /api/v1/account HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " + key + "\r\n\r\n"
	req := "POST /api/v1/charts HTTP/1.1\r\nHost: " + host + "\r\nAuthorization: Bearer " + key +
		"\r\nContent-Type: application/json\r\nContent-Length: " + strconv.Itoa(len(body)+len(smuggled)) + "\r\nTransfer-Encoding: chunked\r\n\r\n" + body + smuggled
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	resp, err := http.ReadResponse(br, nil)
	if err != nil {
		t.Fatalf("no answer: %v", err)
	}
	first, _ := io.ReadAll(resp.Body)
	if !resp.Close {
		t.Errorf("%d without Connection: close", resp.StatusCode)
	}
	if resp.StatusCode != 400 {
		t.Errorf("answered %d %.200s, want 400 invalid_request", resp.StatusCode, first)
	} else if code, msg := oneErrorBody(t, first); code != "invalid_request" || !strings.Contains(msg, "both Content-Length and Transfer-Encoding") {
		t.Errorf("%s %q", code, msg)
	}
	hasRateLimitHeaders(t, resp.Header)
	if next, err := http.ReadResponse(br, nil); err == nil {
		t.Fatalf("the request after it was answered too: %d", next.StatusCode)
	}
}

// TestChunkedRequestStillServed: a chunked body without Content-Length
// is read as usual, after requests with Content-Length on the same
// connection.
func TestChunkedRequestStillServed(t *testing.T) {
	in := startAll(t)
	key := in.newAccount(t, "pro")
	host := strings.TrimPrefix(in.url, "http://")
	conn, err := net.Dial("tcp", host)
	if err != nil {
		t.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	spec := `{"type":"bar","data":"x,y\na,1\n"}`
	auth := "Host: " + host + "\r\nAuthorization: Bearer " + key + "\r\nContent-Type: application/json\r\n"
	req := "POST /api/v1/charts HTTP/1.1\r\n" + auth + "Content-Length: " + strconv.Itoa(len(spec)) + "\r\n\r\n" + spec +
		"POST /api/v1/charts HTTP/1.1\r\n" + auth + "Transfer-Encoding: chunked\r\n\r\n" + strconv.FormatInt(int64(len(spec)), 16) + "\r\n" + spec + "\r\n0\r\n\r\n"
	if _, err := conn.Write([]byte(req)); err != nil {
		t.Fatal(err)
	}
	br := bufio.NewReader(conn)
	for i := range 2 {
		resp, err := http.ReadResponse(br, nil)
		if err != nil {
			t.Fatalf("answer %d: %v", i+1, err)
		}
		body, _ := io.ReadAll(resp.Body)
		if resp.StatusCode != 201 {
			t.Fatalf("answer %d: %d %.300s", i+1, resp.StatusCode, body)
		}
	}
}
