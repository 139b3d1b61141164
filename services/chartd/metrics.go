package main

import (
	"context"
	"errors"
	"fmt"
	"net"
	"net/http"
	"time"

	"chartd.dev/libs/lifecycle"
)

// serveMetrics adds a module serving GET /metrics (the telemetry's
// Prometheus exposition) on addr, a listener of its own: the API's port
// may be public, and a scrape must not pass the gateway's keys and limits.
// Empty addr serves nothing.
func (a *App) serveMetrics(addr string) error {
	if addr == "" {
		return nil
	}
	if a.tel.Metrics == nil {
		return errors.New("metrics: the telemetry has no Prometheus reader")
	}
	ln, err := net.Listen("tcp", addr)
	if err != nil {
		return fmt.Errorf("metrics: listen %s: %w", addr, err)
	}
	a.modules.Add(metricsModule(a, ln))
	return nil
}

// metricsModule serves /metrics on ln until its context ends.
func metricsModule(a *App, ln net.Listener) lifecycle.Module {
	mux := http.NewServeMux()
	mux.Handle("GET /metrics", a.tel.Metrics)
	srv := &http.Server{Handler: mux, ReadHeaderTimeout: 5 * time.Second, WriteTimeout: 30 * time.Second}
	return lifecycle.Module{Name: "metrics", Run: func(ctx context.Context) error {
		a.tel.Log.Info("metrics listening", "addr", ln.Addr().String())
		errc := make(chan error, 1)
		go func() { errc <- srv.Serve(ln) }()
		select {
		case err := <-errc:
			return fmt.Errorf("metrics: %w", err)
		case <-ctx.Done():
		}
		sctx, cancel := context.WithTimeout(context.Background(), time.Second)
		defer cancel()
		return srv.Shutdown(sctx)
	}, Stop: func(context.Context) error {
		// A process stopped before it ran still lets the port go.
		ln.Close()
		return nil
	}}
}
