package brand

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"

	"chartd.dev/libs/fetch"
)

// metrics are the brand service's instruments.
type metrics struct {
	lookup metric.Float64Histogram
}

func newMetrics(mp metric.MeterProvider) (metrics, error) {
	if mp == nil {
		mp = noop.NewMeterProvider()
	}
	m := mp.Meter("chartd.dev/services/brand")
	var ms metrics
	var err error
	if ms.lookup, err = m.Float64Histogram("chartd.brand.lookup.duration", metric.WithUnit("s"),
		metric.WithDescription("time to fetch a website and extract its brand colours, by outcome")); err != nil {
		return ms, fmt.Errorf("metric: %w", err)
	}
	return ms, nil
}

// outcome names why a lookup ended, for the outcome attribute.
func outcome(err error) string {
	switch {
	case err == nil:
		return "ok"
	case errors.Is(err, fetch.ErrPrivateAddress):
		return "private_address"
	case errors.Is(err, fetch.ErrTimeout):
		return "timeout"
	case errors.Is(err, fetch.ErrNotFound):
		return "not_found"
	case errors.Is(err, fetch.ErrNotHTML):
		return "not_html"
	case errors.Is(err, fetch.ErrUnreachable):
		return "unreachable"
	}
	return "error"
}

func (m metrics) looked(ctx context.Context, d time.Duration, err error) {
	m.lookup.Record(ctx, d.Seconds(), metric.WithAttributes(attribute.String("outcome", outcome(err))))
}
