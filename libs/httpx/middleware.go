package httpx

import (
	"context"
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"runtime/debug"
	"time"

	"go.opentelemetry.io/otel/trace"

	"chartd.dev/libs/apierr"
)

// HeaderRequestID carries a request's id between client, gateway and services.
const HeaderRequestID = "X-Request-Id"

type ridKey struct{}

// RequestID answers the id of the request in ctx: the one the client sent,
// else the trace id, else "".
func RequestID(ctx context.Context) string {
	if s, ok := ctx.Value(ridKey{}).(string); ok {
		return s
	}
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		return sc.TraceID().String()
	}
	return ""
}

// WithRequestID stores a request id in ctx.
func WithRequestID(ctx context.Context, id string) context.Context {
	return context.WithValue(ctx, ridKey{}, id)
}

func newID() string {
	var b [12]byte
	var out [24]byte
	rand.Read(b[:])
	hex.Encode(out[:], b[:])
	return string(out[:])
}

func validID(s string) bool {
	if len(s) == 0 || len(s) > 64 {
		return false
	}
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z' || c >= '0' && c <= '9' || c == '-' || c == '_') {
			return false
		}
	}
	return true
}

// StatusClientClosed is the status logged for a request whose client hung
// up before its answer (nginx's 499); it is never sent.
const StatusClientClosed = 499

// isProbe tells the paths of the health probes.
func isProbe(path string) bool {
	switch path {
	case "/healthz", "/readyz", "/livez":
		return true
	}
	return false
}

// statusWriter remembers the status written, for the access log.
type statusWriter struct {
	http.ResponseWriter
	status int
	bytes  int
}

func (s *statusWriter) WriteHeader(code int) {
	// An informational answer (100 Continue, 103 Early Hints, forwarded
	// by a reverse proxy) comes before the real one; 101 is final.
	if s.status == 0 && (code >= 200 || code == http.StatusSwitchingProtocols) {
		s.status = code
	}
	s.ResponseWriter.WriteHeader(code)
}

func (s *statusWriter) Write(b []byte) (int, error) {
	if s.status == 0 {
		s.status = http.StatusOK
	}
	n, err := s.ResponseWriter.Write(b)
	s.bytes += n
	return n, err
}

func (s *statusWriter) Unwrap() http.ResponseWriter { return s.ResponseWriter }

// Guard is the middleware of every server, inside the tracing one: it gives
// the request an id (kept from X-Request-Id when well-formed, else the trace
// id, so logs and traces meet), turns a panic into an `internal` error body
// that leaks nothing, and logs one line per request: at ERROR for a 5xx
// but 503 (a readiness probe's "not yet", an upstream away for a moment)
// at WARN; a request whose client hung up as status 499 at DEBUG (nothing
// failed that an operator must see); a probe answered 2xx at DEBUG (a
// kubelet asks every few seconds; its failures stay whole).
func Guard(log *slog.Logger, docsURL string, next http.Handler) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		start := time.Now()
		ctx := r.Context()
		id := r.Header.Get(HeaderRequestID)
		switch {
		case validID(id):
			ctx = WithRequestID(ctx, id)
			r = r.WithContext(ctx)
		case trace.SpanContextFromContext(ctx).HasTraceID():
			id = trace.SpanContextFromContext(ctx).TraceID().String()
			r.Header[HeaderRequestID] = []string{id}
		default:
			id = newID()
			r.Header[HeaderRequestID] = []string{id}
			ctx = WithRequestID(ctx, id)
			r = r.WithContext(ctx)
		}
		w.Header()[HeaderRequestID] = r.Header[HeaderRequestID][:1:1]
		sw := &statusWriter{ResponseWriter: w}
		defer func() {
			if v := recover(); v != nil {
				if v == http.ErrAbortHandler {
					panic(v)
				}
				log.ErrorContext(ctx, "panic", "panic", fmt.Sprint(v), "stack", string(debug.Stack()))
				if sw.status == 0 {
					apierr.Write(sw, docsURL, fmt.Errorf("panic: %v", v))
				}
			}
			lvl := slog.LevelInfo
			status := sw.status
			switch {
			case ctx.Err() != nil && errors.Is(context.Cause(ctx), context.Canceled) && (status == 0 || status >= 500):
				// The client went away before its answer: the 499 of
				// nginx, not a failure of the service.
				status, lvl = StatusClientClosed, slog.LevelDebug
			case status < 300 && isProbe(r.URL.Path):
				lvl = slog.LevelDebug
			case status == http.StatusServiceUnavailable, status == http.StatusInternalServerError && sw.Header().Get("Retry-After") != "":
				// A readiness probe saying "not yet", or an answer whose
				// service is away for a moment (internal with Retry-After):
				// expected while a process starts or a backend is away,
				// not a failure of this process.
				lvl = slog.LevelWarn
			case sw.status >= 500:
				lvl = slog.LevelError
			}
			if log.Enabled(ctx, lvl) {
				log.LogAttrs(ctx, lvl, "request", slog.String("method", r.Method),
					slog.String("path", r.URL.Path), slog.Int("status", status), slog.Int("bytes", sw.bytes),
					slog.Duration("duration", time.Since(start)))
			}
		}()
		next.ServeHTTP(sw, r)
	})
}
