// Package telemetry builds the one logger, tracer provider and meter
// provider of a chartd process. They are injected into every module; nothing
// here sets globals: callers pass them to otelhttp explicitly.
package telemetry

import (
	"context"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"net/http"
	"os"

	"github.com/prometheus/client_golang/prometheus"
	"github.com/prometheus/client_golang/prometheus/collectors"
	"github.com/prometheus/client_golang/prometheus/promhttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlpmetric/otlpmetrichttp"
	"go.opentelemetry.io/otel/exporters/otlp/otlptrace/otlptracehttp"
	otelprom "go.opentelemetry.io/otel/exporters/prometheus"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
	"go.opentelemetry.io/otel/propagation"
	sdkmetric "go.opentelemetry.io/otel/sdk/metric"
	"go.opentelemetry.io/otel/sdk/resource"
	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	semconv "go.opentelemetry.io/otel/semconv/v1.26.0"
	"go.opentelemetry.io/otel/trace"

	"chartd.dev/libs/httpx"
)

// Providers is what every module receives: a logger, a tracer provider, a
// meter provider and the propagator used across internal calls.
type Providers struct {
	Log        *slog.Logger
	Tracer     trace.TracerProvider
	Meter      metric.MeterProvider
	Propagator propagation.TextMapPropagator
	// Metrics serves the Prometheus text exposition of every instrument
	// made on Meter; nil unless Config.Prometheus.
	Metrics  http.Handler
	shutdown []func(context.Context) error
}

// Config selects the log level and the service name put on telemetry.
type Config struct {
	Service  string
	LogLevel slog.Level
	// LogOut is where JSON logs go; os.Stderr when nil.
	LogOut io.Writer
	// SampleRatio is the share of new traces recorded and exported when
	// an OTLP endpoint is set, in (0, 1]; 0 means every trace. A caller's
	// decision (its traceparent's sampled flag) is followed either way.
	SampleRatio float64
	// Prometheus makes the meter provider real even without OTLP, with a
	// Prometheus reader behind Providers.Metrics: most clusters scrape.
	Prometheus bool
}

// New builds the providers. When OTEL_EXPORTER_OTLP_ENDPOINT is set, traces
// and metrics are exported over OTLP/HTTP; otherwise spans are still made
// (so trace ids travel across internal calls) but nothing is exported.
func New(ctx context.Context, cfg Config) (*Providers, error) {
	out := cfg.LogOut
	if out == nil {
		out = os.Stderr
	}
	p := &Providers{
		Log: slog.New(NewLogHandler(out, cfg.LogLevel)).With("service", cfg.Service),
		// W3C trace context only: nothing here reads baggage.
		Propagator: propagation.TraceContext{},
	}
	if cfg.SampleRatio < 0 || cfg.SampleRatio > 1 {
		return nil, fmt.Errorf("trace sample ratio %g: want 0 to 1", cfg.SampleRatio)
	}
	if cfg.SampleRatio == 0 {
		cfg.SampleRatio = 1
	}
	res := resource.NewSchemaless(semconv.ServiceName(cfg.Service))
	// Without an exporter nobody reads spans, so they are not recorded; they
	// still get trace ids, which travel across internal calls and into logs.
	topts := []sdktrace.TracerProviderOption{sdktrace.WithResource(res), sdktrace.WithSampler(sdktrace.ParentBased(sdktrace.NeverSample()))}
	var readers []sdkmetric.Reader
	exporting := os.Getenv("OTEL_EXPORTER_OTLP_ENDPOINT") != ""
	if exporting {
		te, err := otlptracehttp.New(ctx)
		if err != nil {
			return nil, errors.Join(errors.New("otlp trace exporter"), err)
		}
		me, err := otlpmetrichttp.New(ctx)
		if err != nil {
			return nil, errors.Join(errors.New("otlp metric exporter"), err)
		}
		topts = append(topts, sdktrace.WithBatcher(te), sdktrace.WithSampler(Sampler(cfg.SampleRatio)))
		readers = append(readers, sdkmetric.NewPeriodicReader(me))
	}
	if cfg.Prometheus {
		// A registry of our own: nothing registers on the global one.
		reg := prometheus.NewRegistry()
		reg.MustRegister(collectors.NewGoCollector(), collectors.NewProcessCollector(collectors.ProcessCollectorOpts{}))
		pe, err := otelprom.New(otelprom.WithRegisterer(reg), otelprom.WithoutScopeInfo())
		if err != nil {
			return nil, fmt.Errorf("prometheus exporter: %w", err)
		}
		readers = append(readers, pe)
		p.Metrics = promhttp.HandlerFor(reg, promhttp.HandlerOpts{ErrorLog: slog.NewLogLogger(p.Log.Handler(), slog.LevelWarn)})
	}
	tp := sdktrace.NewTracerProvider(topts...)
	p.Tracer = tp
	p.shutdown = append(p.shutdown, tp.Shutdown)
	if len(readers) > 0 {
		mopts := []sdkmetric.Option{sdkmetric.WithResource(res)}
		for _, r := range readers {
			mopts = append(mopts, sdkmetric.WithReader(r))
		}
		mp := sdkmetric.NewMeterProvider(mopts...)
		p.Meter = mp
		p.shutdown = append(p.shutdown, mp.Shutdown)
	} else {
		// Without an exporter nobody reads metrics: a no-op provider keeps
		// them off the hot path.
		p.Meter = noop.NewMeterProvider()
	}
	return p, nil
}

// Sampler records ratio of new traces (0 to 1) and follows a sampled
// caller: a trace begun upstream is whole or absent, never cut in parts.
func Sampler(ratio float64) sdktrace.Sampler {
	return sdktrace.ParentBased(sdktrace.TraceIDRatioBased(ratio))
}

// Shutdown flushes and stops the exporters.
func (p *Providers) Shutdown(ctx context.Context) error {
	var errs []error
	for _, f := range p.shutdown {
		errs = append(errs, f(ctx))
	}
	return errors.Join(errs...)
}

// NewLogHandler is the JSON log handler of chartd: each record carries the
// request id and trace id found in its context.
func NewLogHandler(out io.Writer, level slog.Level) slog.Handler {
	return requestIDHandler{slog.NewJSONHandler(out, &slog.HandlerOptions{Level: level})}
}

// requestIDHandler adds the request id and trace id found in the context to
// every record.
type requestIDHandler struct{ slog.Handler }

func (h requestIDHandler) Handle(ctx context.Context, r slog.Record) error {
	if id := httpx.RequestID(ctx); id != "" {
		r.AddAttrs(slog.String("request_id", id))
	}
	if sc := trace.SpanContextFromContext(ctx); sc.HasTraceID() {
		r.AddAttrs(slog.String("trace_id", sc.TraceID().String()))
	}
	return h.Handler.Handle(ctx, r)
}

func (h requestIDHandler) WithAttrs(as []slog.Attr) slog.Handler {
	return requestIDHandler{h.Handler.WithAttrs(as)}
}

func (h requestIDHandler) WithGroup(name string) slog.Handler {
	return requestIDHandler{h.Handler.WithGroup(name)}
}
