// Package clients holds the typed clients services use to call each other's
// internal APIs. Each client speaks HTTP; in the one-process mode its
// transport calls the other service's handler directly (no sockets).
package clients

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"strconv"
	"strings"
	"time"

	"go.opentelemetry.io/contrib/instrumentation/net/http/otelhttp"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/propagation"
	"go.opentelemetry.io/otel/trace"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/httpx"
)

// InProcess is a RoundTripper that serves requests with a handler in the
// same process.
type InProcess struct{ Handler http.Handler }

// RoundTrip runs the handler and answers what it wrote.
func (t InProcess) RoundTrip(req *http.Request) (*http.Response, error) {
	rec := &recorder{header: http.Header{}, status: 0}
	t.Handler.ServeHTTP(rec, req)
	if rec.status == 0 {
		rec.status = http.StatusOK
	}
	return &http.Response{
		Status:        fmt.Sprintf("%d %s", rec.status, http.StatusText(rec.status)),
		StatusCode:    rec.status,
		Proto:         "HTTP/1.1",
		ProtoMajor:    1,
		ProtoMinor:    1,
		Header:        rec.header,
		Body:          io.NopCloser(bytes.NewReader(rec.body.Bytes())),
		ContentLength: int64(rec.body.Len()),
		Request:       req,
	}, nil
}

type recorder struct {
	header http.Header
	status int
	body   bytes.Buffer
}

func (r *recorder) Header() http.Header { return r.header }
func (r *recorder) WriteHeader(code int) {
	if r.status == 0 {
		r.status = code
	}
}
func (r *recorder) Write(b []byte) (int, error) {
	if r.status == 0 {
		r.status = http.StatusOK
	}
	return r.body.Write(b)
}

// Telemetry is what clients need to trace their calls.
type Telemetry struct {
	Tracer     trace.TracerProvider
	Meter      metric.MeterProvider
	Propagator propagation.TextMapPropagator
}

// UnavailableRetry is the Retry-After of an answer whose service could
// not be reached: about a pod's restart or an endpoint update.
const UnavailableRetry = 5 * time.Second

// Base is the shared part of every typed client: where the service is, how
// to reach it and the internal token.
type Base struct {
	url   string
	http  *http.Client
	token string
}

// NewBase makes a client for the service at baseURL (scheme://host[:port]).
// With handler set, calls go in-process and baseURL is only a label.
func NewBase(baseURL string, handler http.Handler, token string, tel Telemetry) Base {
	var rt http.RoundTripper = http.DefaultTransport
	if handler != nil {
		rt = InProcess{Handler: handler}
		if baseURL == "" {
			baseURL = "http://in-process"
		}
	}
	opts := []otelhttp.Option{}
	if tel.Tracer != nil {
		opts = append(opts, otelhttp.WithTracerProvider(tel.Tracer))
	}
	if tel.Meter != nil {
		opts = append(opts, otelhttp.WithMeterProvider(tel.Meter))
	}
	if tel.Propagator != nil {
		opts = append(opts, otelhttp.WithPropagators(tel.Propagator))
	}
	return Base{url: strings.TrimRight(baseURL, "/"), http: &http.Client{Transport: otelhttp.NewTransport(rt, opts...)}, token: token}
}

// Do calls method path on the service for principal p, sending in (if not
// nil) as JSON and decoding the answer into out. An error body from the
// service comes back as the same *apierr.Error.
func (b Base) Do(ctx context.Context, p auth.Principal, method, path string, in, out any) error {
	var body io.Reader
	if in != nil {
		buf, err := json.Marshal(in)
		if err != nil {
			return fmt.Errorf("encode %s %s: %w", method, path, err)
		}
		body = bytes.NewReader(buf)
	}
	req, err := http.NewRequestWithContext(ctx, method, b.url+path, body)
	if err != nil {
		return fmt.Errorf("build %s %s: %w", method, path, err)
	}
	if in != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	if id := httpx.RequestID(ctx); id != "" {
		req.Header.Set(httpx.HeaderRequestID, id)
	}
	auth.SetInternal(req.Header, b.token, p)
	resp, err := b.http.Do(req)
	if err != nil {
		if ctx.Err() != nil {
			return fmt.Errorf("call %s %s: %w", method, path, err)
		}
		// The service is away (down, restarting, draining): only the
		// answers that need it fail, with an internal answer and a
		// Retry-After the caller may retry on.
		return apierr.Unavailable(fmt.Errorf("call %s %s: %w", method, path, err), UnavailableRetry,
			"a service this answer needs is not answering for a moment; try again in a few seconds")
	}
	defer resp.Body.Close()
	data, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("read %s %s: %w", method, path, err)
	}
	if resp.StatusCode >= 400 {
		var eb apierr.Body
		if json.Unmarshal(data, &eb) == nil && eb.Error.Code != "" {
			// An internal answer with Retry-After is a service away for a
			// moment (apierr.Unavailable), not a fault of it.
			// One answered 503 is a transient failure (apierr.Transient).
			e := &apierr.Error{Code: eb.Error.Code, Message: eb.Error.Message, Unavailable: eb.Error.Code == apierr.Internal && resp.Header.Get("Retry-After") != "",
				Transient: eb.Error.Code == apierr.Internal && resp.StatusCode == http.StatusServiceUnavailable}
			if secs, err := strconv.Atoi(resp.Header.Get("Retry-After")); err == nil && secs > 0 {
				e.RetryAfter = time.Duration(secs) * time.Second
			}
			return e
		}
		return fmt.Errorf("call %s %s: status %d", method, path, resp.StatusCode)
	}
	if out != nil {
		if err := json.Unmarshal(data, out); err != nil {
			return fmt.Errorf("decode %s %s: %w", method, path, err)
		}
	}
	return nil
}

var _ http.RoundTripper = InProcess{}
