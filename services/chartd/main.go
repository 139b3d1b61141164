// Command chartd runs the chart service: every module in one process
// (-target=all) or one service per process (-target=gateway|chart|data|
// brand|render), wired in modules.go.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"os"
	"os/signal"
	"strings"
	"syscall"
	"time"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/httpx"
	"chartd.dev/libs/lifecycle"
	"chartd.dev/libs/reaper"
	"chartd.dev/libs/telemetry"
	"chartd.dev/services/gateway"
)

func main() {
	// SIGINT stops at once (a person at a terminal); SIGTERM, what a
	// cluster sends, drains first (run).
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt)
	defer stop()
	term := make(chan os.Signal, 1)
	signal.Notify(term, syscall.SIGTERM)
	if err := run(ctx, os.Args[1:], os.Getenv, os.Stderr, term); err != nil {
		fmt.Fprintln(os.Stderr, "chartd:", err)
		os.Exit(1)
	}
}

// run parses the settings, builds the target's modules on one set of
// telemetry providers and serves until ctx ends or term delivers; then the
// modules stop in reverse dependency order, the server first (draining
// in-flight requests). On term the process first drains (App.drain).
func run(ctx context.Context, args []string, getenv func(string) string, stderr io.Writer, term <-chan os.Signal) error {
	cfg, err := ParseConfig(args, getenv)
	if err != nil {
		return fmt.Errorf("settings:\n%w", err)
	}
	tel, err := telemetry.New(ctx, telemetry.Config{Service: "chartd-" + cfg.Target, LogLevel: cfg.logLevel(), LogOut: stderr,
		SampleRatio: cfg.TraceSampleRatio, Prometheus: cfg.MetricsAddr != ""})
	if err != nil {
		return fmt.Errorf("telemetry: %w", err)
	}
	defer tel.Shutdown(context.Background())
	// Chromium's helpers outlive a recycled browser; as PID 1 of a pod
	// chartd is their parent then, and must reap them (libs/reaper).
	if err := reaper.Start(ctx, tel.Log); err != nil {
		tel.Log.Warn("orphaned processes are not reaped", "err", err)
	}
	app, err := NewApp(ctx, cfg, tel)
	if err != nil {
		return err
	}
	defer app.Close()
	if err := app.serveMetrics(cfg.MetricsAddr); err != nil {
		return err
	}
	ln, err := net.Listen("tcp", cfg.Addr)
	if err != nil {
		return fmt.Errorf("listen %s: %w", cfg.Addr, err)
	}
	ctx, cancel := context.WithCancel(ctx)
	defer cancel()
	go func() {
		select {
		case <-term:
			app.drain(ctx, cfg.ShutdownDelay)
			cancel()
		case <-ctx.Done():
		}
	}()
	return serve(ctx, app, ln, cfg.ShutdownTimeout)
}

// drain is the first step of a stop asked by SIGTERM: /readyz answers 503
// while the process keeps serving everything else for delay, the time the
// cluster takes to drop it from every load balancer (endpoint
// propagation). Only then does the server stop accepting and finish what
// is in flight, so no client meets a closed port. ctx ending (SIGINT)
// cuts the delay short.
func (a *App) drain(ctx context.Context, delay time.Duration) {
	a.draining.Store(true)
	a.tel.Log.Info("SIGTERM: not ready, serving on until the load balancers let go", "delay", delay.String())
	t := time.NewTimer(delay)
	defer t.Stop()
	select {
	case <-t.C:
	case <-ctx.Done():
	}
}

// serverMaxHeaderBytes is net/http's own cap on the request line and
// headers, past which it answers 431 in plain text before any handler
// runs. The gateway refuses with the error body from
// -gateway.max-header-bytes on, which must stay below this cap.
const serverMaxHeaderBytes = 256 << 10

// serve adds the HTTP server on ln as the app's last module and runs the
// app until ctx ends.
func serve(ctx context.Context, app *App, ln net.Listener, drain time.Duration) error {
	mod, err := serverModule(app, ln, drain)
	if err != nil {
		return err
	}
	app.modules.Add(mod)
	return app.Run(ctx)
}

// serverModule answers on ln until its context ends, then stops taking
// connections and waits up to drain for in-flight requests. What net/http
// says by itself goes to the log and the chartd_http_server_errors_total
// metric; "OPTIONS *" reaches the handler, which refuses it with the error
// body, instead of net/http's bare 200. net/http's own plain-text refusals
// (headers past serverMaxHeaderBytes, malformed requests) become the error
// body too (plainRefusal).
func serverModule(app *App, ln net.Listener, drain time.Duration) (lifecycle.Module, error) {
	errLog, err := httpx.ServerErrorLog(app.tel.Log, app.tel.Meter.Meter("chartd/http"))
	if err != nil {
		return lifecycle.Module{}, fmt.Errorf("server error log: %w", err)
	}
	h := app.Handler()
	ln = httpx.ErrorBodyListener(ln, app.plainRefusal)
	srv := &http.Server{
		Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
			if app.draining.Load() || connTooOld(r.Context(), app.cfg.MaxConnAge) {
				// Each answer while draining closes its connection, so
				// keep-alive clients dial again and reach a replica
				// that stays; so does the first past -max-conn-age, so
				// that they reach the replicas started since.
				w.Header().Set("Connection", "close")
			}
			if len(r.TransferEncoding) > 0 {
				// net/http reads a chunked body over any Content-Length and
				// drops that header; a request carrying both may be
				// smuggling a second one past a proxy that read the
				// length, so it is refused and the connection closes after
				// the answer (RFC 9112 §6.3), as after every chunked
				// request.
				w.Header().Set("Connection", "close")
				if httpx.LengthAndChunked(r.Context()) {
					app.refuse(w, r, apierr.New(apierr.InvalidRequest, "the request has both Content-Length and Transfer-Encoding; send one of them"))
					return
				}
			}
			h.ServeHTTP(w, r)
		}),
		ReadHeaderTimeout:            10 * time.Second,
		ReadTimeout:                  60 * time.Second,
		WriteTimeout:                 120 * time.Second,
		IdleTimeout:                  120 * time.Second,
		MaxHeaderBytes:               serverMaxHeaderBytes,
		ErrorLog:                     errLog,
		ConnContext:                  connContext,
		DisableGeneralOptionsHandler: true,
	}
	return lifecycle.Module{Name: "server", Run: func(ctx context.Context) error {
		app.tel.Log.Info("chartd listening", "target", app.cfg.Target, "addr", ln.Addr().String(), "public_url", app.cfg.PublicURL)
		errc := make(chan error, 1)
		go func() { errc <- srv.Serve(ln) }()
		select {
		case err := <-errc:
			return fmt.Errorf("serve: %w", err)
		case <-ctx.Done():
		}
		app.tel.Log.Info("draining", "timeout", drain.String())
		sctx, cancel := context.WithTimeout(context.Background(), drain)
		defer cancel()
		if err := srv.Shutdown(sctx); err != nil {
			return fmt.Errorf("drain: %w", err)
		}
		if err := <-errc; err != nil && !errors.Is(err, http.ErrServerClosed) {
			return err
		}
		return nil
	}}, nil
}

// acceptedKey is the context key of a connection's accept time.
type acceptedKey struct{}

// connContext is httpx.ConnContext with the connection's accept time,
// for connTooOld.
func connContext(ctx context.Context, c net.Conn) context.Context {
	return context.WithValue(httpx.ConnContext(ctx, c), acceptedKey{}, time.Now())
}

// connTooOld says whether the connection of ctx has served longer than
// maxAge (0: never too old).
func connTooOld(ctx context.Context, maxAge time.Duration) bool {
	at, ok := ctx.Value(acceptedKey{}).(time.Time)
	return maxAge > 0 && ok && time.Since(at) >= maxAge
}

// plainRefusal answers a request net/http refused by itself, before any
// handler: invalid_request with the error body.
func (a *App) plainRefusal(w http.ResponseWriter, r *http.Request, status int, text string) {
	err := apierr.New(apierr.InvalidRequest, "the request is malformed (%s); send a well-formed HTTP/1.1 request", strings.TrimSpace(text))
	if status == http.StatusRequestHeaderFieldsTooLarge {
		err = apierr.New(apierr.InvalidRequest, "the request line and headers are over %d bytes, past the limit of %d bytes; send fewer or shorter headers",
			serverMaxHeaderBytes, a.cfg.Gateway.MaxHeaderBytes)
	}
	a.refuse(w, r, err)
}

// refuse answers err before any route, through the gateway when it runs
// here so the client address' rate-limit headers come with it.
func (a *App) refuse(w http.ResponseWriter, r *http.Request, err error) {
	if _, ok := a.handlers[gateway.Name]; ok {
		a.handler.ServeHTTP(w, r.WithContext(httpx.WithRefusal(r.Context(), err)))
		return
	}
	apierr.Write(w, a.cfg.PublicURL+"/docs", err)
}
