package httpx

import (
	"errors"
	"log/slog"
	"net/http"

	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"

	"chartd.dev/libs/apierr"
)

// HandlerFunc is an HTTP handler that returns its refusal instead of
// writing it, so error bodies are written in one place.
type HandlerFunc func(w http.ResponseWriter, r *http.Request) error

// Errors adapts HandlerFuncs to http.Handler, writing any returned error as
// the API error body with links under DocsURL. An `internal` answer says
// nothing of its cause to the caller, so the cause is logged here, with the
// request id, and recorded on the request's span: it is the only place an
// operator can find it.
type Errors struct {
	DocsURL string
	// Log receives the causes of internal errors; nil drops them (tests).
	Log *slog.Logger
}

// Wrap turns f into an http.Handler.
func (e Errors) Wrap(f HandlerFunc) http.Handler {
	return http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if err := f(w, r); err != nil {
			e.Write(w, r, err)
		}
	})
}

// Write answers err as the error body; an internal error's cause goes to
// the log and the span, never into the body.
func (e Errors) Write(w http.ResponseWriter, r *http.Request, err error) {
	ae := apierr.Write(w, e.DocsURL, err)
	if ae.Code != apierr.Internal {
		return
	}
	ctx := r.Context()
	if ctx.Err() != nil && errors.Is(err, ctx.Err()) {
		// The caller went away; nothing failed that an operator must see.
		if e.Log != nil {
			e.Log.DebugContext(ctx, "request cancelled", slog.String("request_id", RequestID(ctx)), slog.String("path", r.URL.Path))
		}
		return
	}
	span := trace.SpanFromContext(ctx)
	span.RecordError(err)
	span.SetStatus(codes.Error, ae.Message)
	if ae.Unavailable {
		// A service away for a moment: the caller retries, and the
		// outage shows in the readiness of the service itself.
		if e.Log != nil {
			e.Log.WarnContext(ctx, "service unavailable", slog.String("request_id", RequestID(ctx)),
				slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("err", err.Error()))
		}
		return
	}
	if e.Log != nil {
		e.Log.ErrorContext(ctx, "internal error", slog.String("request_id", RequestID(ctx)),
			slog.String("method", r.Method), slog.String("path", r.URL.Path), slog.String("err", err.Error()))
	}
}
