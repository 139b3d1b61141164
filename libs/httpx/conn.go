package httpx

import (
	"bufio"
	"bytes"
	"context"
	"io"
	"net"
	"net/http"
	"strconv"
	"sync"
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
// to the connection in one Write, by the API's answer; and it reads the
// framing of the requests that pass (framing) for what net/http drops.
type errorBodyConn struct {
	net.Conn
	answer PlainAnswer

	mu      sync.Mutex
	framing framing
}

// Read passes the bytes on and follows the requests' framing in them.
func (c *errorBodyConn) Read(p []byte) (int, error) {
	n, err := c.Conn.Read(p)
	if n > 0 {
		c.mu.Lock()
		c.framing.feed(p[:n])
		c.mu.Unlock()
	}
	return n, err
}

// lengthAndChunked says whether a request on the connection carried both
// Content-Length and Transfer-Encoding.
func (c *errorBodyConn) lengthAndChunked() bool {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.framing.both
}

type connKey struct{}

// ConnContext is http.Server.ConnContext for ErrorBodyListener's
// connections: it lets LengthAndChunked find the connection.
func ConnContext(ctx context.Context, c net.Conn) context.Context {
	if ec, ok := c.(*errorBodyConn); ok {
		return context.WithValue(ctx, connKey{}, ec)
	}
	return ctx
}

// LengthAndChunked says whether the request of ctx, one with a
// Transfer-Encoding, also carried a Content-Length: net/http reads the
// body as chunked and deletes the Content-Length header, but RFC 9112
// §6.3 calls the pair a smuggling attempt. It needs ErrorBodyListener and
// ConnContext; without them it answers false.
func LengthAndChunked(ctx context.Context) bool {
	ec, ok := ctx.Value(connKey{}).(*errorBodyConn)
	return ok && ec.lengthAndChunked()
}

// framing follows the request stream of a connection on which requests
// are framed by Content-Length until a chunked one, after which the
// server closes the connection (so nothing after it needs following). It
// keeps a few bytes of state, never the headers.
type framing struct {
	done     bool  // a chunked request came; the stream is not followed on
	body     int64 // body bytes still to skip
	lines    int   // lines of the current header block
	line     int   // bytes of the current line
	name     [18]byte
	nameLen  int // bytes of name, while at the line's start
	inName   bool
	isLength bool // the current line is Content-Length
	length   int64
	sawLen   bool
	sawTE    bool
	both     bool // the chunked request also had Content-Length
}

// feed follows p, the next bytes read.
func (f *framing) feed(p []byte) {
	for len(p) > 0 && !f.done {
		if f.body > 0 {
			skip := min(int64(len(p)), f.body)
			f.body -= skip
			p = p[skip:]
			continue
		}
		if f.line > 0 && !f.inName && !f.isLength {
			// The rest of this line matters not: on to its end.
			i := bytes.IndexByte(p, '\n')
			if i < 0 {
				return
			}
			p = p[i:]
		}
		b := p[0]
		p = p[1:]
		switch {
		case b == '\n':
			f.endLine()
		case b == '\r':
		case f.line == 0:
			f.line, f.inName, f.nameLen, f.isLength = 1, b != ' ' && b != '\t', 0, false
			f.nameByte(b)
		default:
			f.line++
			if f.inName {
				f.nameByte(b)
			} else if f.isLength && b >= '0' && b <= '9' && f.length < 1<<40 {
				f.length = f.length*10 + int64(b-'0')
			}
		}
	}
}

// nameByte adds b to the header name of the current line; ':' ends it.
func (f *framing) nameByte(b byte) {
	if !f.inName {
		return
	}
	if b == ':' {
		f.inName = false
		switch name := f.name[:f.nameLen]; {
		case bytes.EqualFold(name, []byte("content-length")):
			f.isLength, f.sawLen, f.length = true, true, 0
		case bytes.EqualFold(name, []byte("transfer-encoding")):
			f.sawTE = true
		}
		return
	}
	if f.nameLen == len(f.name) {
		f.inName = false // no header this code looks for is that long
		return
	}
	f.name[f.nameLen] = b
	f.nameLen++
}

// endLine closes a line; an empty one ends the header block.
func (f *framing) endLine() {
	empty := f.line == 0
	f.line, f.inName = 0, false
	if !empty {
		f.lines++
		return
	}
	if f.lines == 0 {
		return // an empty line before a request line
	}
	if f.sawTE {
		f.both, f.done = f.sawLen, true
		return
	}
	if f.sawLen {
		f.body = f.length
	}
	f.lines, f.sawLen, f.length = 0, false, 0
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
