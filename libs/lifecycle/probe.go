package lifecycle

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"net/http"
	"strings"
	"time"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/httpx"
)

// ProbeTimeout bounds one readiness check, so a hung backend answers "not
// ready" before the prober gives up on the process.
const ProbeTimeout = 3 * time.Second

// ServeReady answers a readiness probe with what ready reports (nil ready
// means always ready): 200 {"status":"ready"}, or 503 with the error body
// (code internal) naming the modules that are not ready. Anyone may ask a
// probe, so the causes (addresses, user names, driver messages) go only to
// log, at WARN: not being ready is expected while a process starts or a
// backend is away. 503 rather than internal's 500 tells a load balancer
// "not yet" and keeps the request log at WARN.
func ServeReady(w http.ResponseWriter, r *http.Request, ready func(context.Context) error, docsURL string, log *slog.Logger) {
	if ready != nil {
		ctx, cancel := context.WithTimeout(r.Context(), ProbeTimeout)
		err := ready(ctx)
		cancel()
		if err != nil {
			msg := "not ready; try again shortly"
			if nr := (*NotReadyError)(nil); errors.As(err, &nr) {
				msg = fmt.Sprintf("not ready: %s; try again shortly", strings.Join(nr.Modules, ", "))
			}
			if log != nil {
				log.WarnContext(r.Context(), "not ready", slog.String("err", err.Error()))
			}
			w.Header().Set("Cache-Control", "no-store")
			httpx.WriteJSON(w, http.StatusServiceUnavailable, apierr.Body{Error: apierr.BodyError{
				Code: apierr.Internal, Message: msg, Docs: apierr.DocsURL(docsURL, apierr.Internal)}})
			return
		}
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]string{"status": "ready"})
}

// ServeLive answers a liveness probe with what live reports (nil live
// means always live): 200 {"status":"ok"}, or 503 with the error body
// when the process cannot recover by itself and must be restarted. The
// cause goes to the log at ERROR: a restart is about to happen.
func ServeLive(w http.ResponseWriter, r *http.Request, live func(context.Context) error, docsURL string, log *slog.Logger) {
	if live != nil {
		ctx, cancel := context.WithTimeout(r.Context(), ProbeTimeout)
		err := live(ctx)
		cancel()
		if err != nil {
			if log != nil {
				log.ErrorContext(r.Context(), "not live: the process needs a restart", slog.String("err", err.Error()))
			}
			w.Header().Set("Cache-Control", "no-store")
			httpx.WriteJSON(w, http.StatusServiceUnavailable, apierr.Body{Error: apierr.BodyError{
				Code: apierr.Internal, Message: "not live: a part of this process cannot recover by itself", Docs: apierr.DocsURL(docsURL, apierr.Internal)}})
			return
		}
	}
	httpx.WriteJSON(w, http.StatusOK, map[string]string{"status": "ok"})
}
