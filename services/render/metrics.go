package render

import (
	"context"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"
)

// metrics are the render service's own instruments: how often the image
// cache answers, and how long Chromium takes when it does not.
type metrics struct {
	cache  metric.Int64Counter
	raster metric.Float64Histogram
}

var (
	hitAttr  = metric.WithAttributes(attribute.String("result", "hit"))
	missAttr = metric.WithAttributes(attribute.String("result", "miss"))
	okAttr   = metric.WithAttributes(attribute.String("result", "ok"))
	errAttr  = metric.WithAttributes(attribute.String("result", "error"))
)

func newMetrics(mp metric.MeterProvider) (metrics, error) {
	if mp == nil {
		mp = noop.NewMeterProvider()
	}
	m := mp.Meter("chartd.dev/services/render")
	var ms metrics
	var err error
	if ms.cache, err = m.Int64Counter("chartd.render.image_cache", metric.WithDescription("PNG image cache lookups by result")); err != nil {
		return ms, fmt.Errorf("metric: %w", err)
	}
	if ms.raster, err = m.Float64Histogram("chartd.render.raster.duration", metric.WithUnit("s"),
		metric.WithDescription("time to turn an SVG into a PNG in Chromium, queueing included")); err != nil {
		return ms, fmt.Errorf("metric: %w", err)
	}
	return ms, nil
}

func (m metrics) cacheHit(ctx context.Context)  { m.cache.Add(ctx, 1, hitAttr) }
func (m metrics) cacheMiss(ctx context.Context) { m.cache.Add(ctx, 1, missAttr) }

func (m metrics) rasterized(ctx context.Context, d time.Duration, err error) {
	a := okAttr
	if err != nil {
		a = errAttr
	}
	m.raster.Record(ctx, d.Seconds(), a)
}
