package httpx

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
)

// plainErrorHeaders is what net/http writes between the status line and
// the body of the answers it gives by itself, before any handler runs
// (headers past http.Server.MaxHeaderBytes: 431; a malformed request:
// 400 or 501). Handlers' answers never carry exactly these headers.
const plainErrorHeaders = "\r\nContent-Type: text/plain; charset=utf-8\r\nConnection: close\r\n\r\n"

// PlainAnswer is how the server answers a request net/http refuses by
// itself: status is net/http's, text its plain-text body. The answer is
// written to w like a handler's; the connection closes after it.
type PlainAnswer func(w http.ResponseWriter, r *http.Request, status int, text string)

// ErrorBodyListener wraps ln so that net/http's own plain-text refusals
// (such as the 431 for headers past http.Server.MaxHeaderBytes) reach the
// client as answer writes them, with the API's error body, instead of
// "431 Request Header Fields Too Large" in plain text. answer gets a
// request with the connection's addresses and nothing else of the
// refused request, which net/http has not kept.
func ErrorBodyListener(ln net.Listener, answer PlainAnswer) net.Listener {
	return errorBodyListener{Listener: ln, answer: answer}
}

type errorBodyListener struct {
	net.Listener
	answer PlainAnswer
}

// Accept wraps each connection.
func (l errorBodyListener) Accept() (net.Conn, error) {
	c, err := l.Listener.Accept()
	if err != nil {
		return nil, err
	}
	return &errorBodyConn{Conn: c, answer: l.answer}, nil
}

// errorBodyConn replaces net/http's plain-text refusals, which it writes
// to the connection in one Write, by the API's answer.
type errorBodyConn struct {
	net.Conn
	answer PlainAnswer
}

// Write passes p on unless it is one of net/http's own plain refusals.
func (c *errorBodyConn) Write(p []byte) (int, error) {
	status, text, ok := parsePlainError(p)
	if !ok {
		return c.Conn.Write(p)
	}
	if _, err := c.Conn.Write(c.render(status, text)); err != nil {
		return 0, err
	}
	return len(p), nil
}

// render runs answer on a bare request from the connection's peer and
// lays the result out as an HTTP/1.1 response that closes the connection.
func (c *errorBodyConn) render(status int, text string) []byte {
	r, _ := http.NewRequestWithContext(context.Background(), http.MethodGet, "/", nil)
	r.RemoteAddr = c.Conn.RemoteAddr().String()
	r.RequestURI = "/"
	rec := &recorder{header: http.Header{}}
	c.answer(rec, r, status, text)
	if rec.status == 0 {
		rec.status = status
	}
	resp := &http.Response{StatusCode: rec.status, ProtoMajor: 1, ProtoMinor: 1, Header: rec.header,
		Body: io.NopCloser(bytes.NewReader(rec.body.Bytes())), ContentLength: int64(rec.body.Len()), Close: true}
	var out bytes.Buffer
	bw := bufio.NewWriter(&out)
	resp.Write(bw)
	bw.Flush()
	return out.Bytes()
}

// CloseWrite keeps net/http's half-close after a refusal working.
func (c *errorBodyConn) CloseWrite() error {
	if cw, ok := c.Conn.(interface{ CloseWrite() error }); ok {
		return cw.CloseWrite()
	}
	return nil
}

// ReadFrom keeps sendfile for file answers.
func (c *errorBodyConn) ReadFrom(r io.Reader) (int64, error) {
	if rf, ok := c.Conn.(io.ReaderFrom); ok {
		return rf.ReadFrom(r)
	}
	return io.Copy(c.Conn, r)
}

// parsePlainError reads "HTTP/1.1 <status> <reason><plainErrorHeaders><text>".
func parsePlainError(p []byte) (status int, text string, ok bool) {
	rest, found := bytes.CutPrefix(p, []byte("HTTP/1.1 "))
	if !found || len(rest) < 4 || rest[3] != ' ' {
		return 0, "", false
	}
	status, err := strconv.Atoi(string(rest[:3]))
	if err != nil || status < 400 || status > 599 {
		return 0, "", false
	}
	_, body, found := bytes.Cut(rest, []byte(plainErrorHeaders))
	if !found || bytes.IndexByte(rest[:len(rest)-len(body)-len(plainErrorHeaders)], '\n') >= 0 {
		return 0, "", false
	}
	return status, string(body), true
}

// recorder keeps what answer writes.
type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }

func (r *recorder) WriteHeader(status int) {
	if r.status == 0 {
		r.status = status
	}
}

func (r *recorder) Write(p []byte) (int, error) {
	r.WriteHeader(http.StatusOK)
	return r.body.Write(p)
}

type refusalKey struct{}

// WithRefusal marks ctx as a request net/http refused by itself, with the
// refusal err to answer.
func WithRefusal(ctx context.Context, err error) context.Context {
	return context.WithValue(ctx, refusalKey{}, err)
}

// Refusal is the refusal WithRefusal stored in ctx, or nil.
func Refusal(ctx context.Context) error {
	err, _ := ctx.Value(refusalKey{}).(error)
	return err
}
