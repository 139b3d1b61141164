package render

import (
	"context"
	"errors"
	"fmt"
	"time"

	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/metric"
	"go.opentelemetry.io/otel/metric/noop"

	"chartd.dev/libs/raster"
)

// metrics are the render service's own instruments: how often the image
// cache answers, and how long Chromium takes when it does not.
type metrics struct {
	cache  metric.Int64Counter
	raster metric.Float64Histogram
	// draws counts SVG drawings, the CPU cost of every picture: an image
	// link answered from what the process knows draws none.
	draws metric.Int64Counter
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
	if ms.draws, err = m.Int64Counter("chartd.render.draws", metric.WithDescription("charts drawn as SVG, the first step of every picture")); err != nil {
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

func (m metrics) drawn(ctx context.Context) { m.draws.Add(ctx, 1) }

func (m metrics) rasterized(ctx context.Context, d time.Duration, err error) {
	a := okAttr
	if err != nil {
		a = errAttr
	}
	m.raster.Record(ctx, d.Seconds(), a)
}

// fleetObserver is what a Rasterizer may tell beyond Stats: memory per
// browser and the browser's version (raster.Pool does).
type fleetObserver interface {
	BrowserRSS() []int64
	Version() string
}

// cacheUsage is what an image cache may tell of its size (blob.Dir does;
// a bucket is bounded by its lifecycle rule instead).
type cacheUsage interface {
	Usage() (bytes int64, objects int)
}

// observeFleet registers the render fleet's gauges and counters, read at
// each collection from the pool and the admission: what
// /internal/v1/fleet-stats tells the operator, and what an on-call
// engineer looks at (docs/runbooks.md). Their Prometheus names are listed
// in FleetSeries.
func (s *Service) observeFleet(mp metric.MeterProvider) error {
	if mp == nil {
		return nil
	}
	m := mp.Meter("chartd.dev/services/render")
	var errs []error
	gauge := func(name, unit, desc string) metric.Int64ObservableGauge {
		g, err := m.Int64ObservableGauge(name, metric.WithUnit(unit), metric.WithDescription(desc))
		errs = append(errs, err)
		return g
	}
	counter := func(name, desc string) metric.Int64ObservableCounter {
		c, err := m.Int64ObservableCounter(name, metric.WithDescription(desc))
		errs = append(errs, err)
		return c
	}
	queue := gauge("chartd.render.queue.depth", "", "renders waiting for a Chromium tab now")
	busy := gauge("chartd.render.tabs.busy", "", "Chromium tabs drawing now")
	warm := gauge("chartd.render.tabs.warm", "", "Chromium tabs ready to draw or drawing")
	tabs := gauge("chartd.render.tabs.capacity", "", "Chromium tabs the pool is sized for (browsers × tabs)")
	mem := gauge("chartd.render.chromium.memory", "By", "memory each live Chromium holds, all its processes, as -render.recycle-mib measures it")
	info := gauge("chartd.render.chromium.info", "", "1, labelled with the Chromium version drawing PNGs")
	cache := gauge("chartd.render.image_cache.size", "By", "bytes held by the on-disk PNG cache")
	restarts := counter("chartd.render.browser.restarts", "Chromium browsers started again, by cause")
	pngs := counter("chartd.render.pngs", "PNGs drawn by Chromium, by path: replay (the SVG replayed onto a canvas) or image (decoded as an SVG image, for what replay does not know)")
	fleetBusy := counter("chartd.render.fleet_busy", "renders refused with 429 because the fleet was busy: no tab in time (tabs) or no draw memory (memory)")
	if err := errors.Join(errs...); err != nil {
		return fmt.Errorf("metric: %w", err)
	}
	obs, _ := s.deps.Raster.(fleetObserver)
	usage, _ := s.deps.Images.(cacheUsage)
	_, err := m.RegisterCallback(func(ctx context.Context, o metric.Observer) error {
		st := s.deps.Raster.Stats()
		o.ObserveInt64(queue, int64(st.Queue))
		o.ObserveInt64(busy, int64(st.BusyTabs))
		o.ObserveInt64(warm, int64(st.Warm))
		o.ObserveInt64(tabs, int64(st.Tabs))
		for _, c := range raster.Causes {
			o.ObserveInt64(restarts, st.RestartsBy[c], metric.WithAttributes(attribute.String("cause", c)))
		}
		o.ObserveInt64(pngs, st.Replayed, metric.WithAttributes(attribute.String("path", "replay")))
		o.ObserveInt64(pngs, st.Renders-st.Replayed, metric.WithAttributes(attribute.String("path", "image")))
		o.ObserveInt64(fleetBusy, st.Busy, metric.WithAttributes(attribute.String("reason", "tabs")))
		o.ObserveInt64(fleetBusy, s.admit.busy.Load(), metric.WithAttributes(attribute.String("reason", "memory")))
		if obs != nil {
			// Browsers by age (0 the oldest): a bounded label, where
			// browser ids grow with every restart.
			for i, b := range obs.BrowserRSS() {
				o.ObserveInt64(mem, b, metric.WithAttributes(attribute.Int("browser", i)))
			}
			if v := obs.Version(); v != "" {
				o.ObserveInt64(info, 1, metric.WithAttributes(attribute.String("version", v)))
			}
		} else {
			o.ObserveInt64(mem, s.deps.Raster.RSS(), metric.WithAttributes(attribute.Int("browser", 0)))
		}
		if usage != nil {
			b, _ := usage.Usage()
			o.ObserveInt64(cache, b)
		}
		return nil
	}, queue, busy, warm, tabs, mem, info, cache, restarts, pngs, fleetBusy)
	if err != nil {
		return fmt.Errorf("metric callback: %w", err)
	}
	return nil
}

// FleetSeries are the Prometheus series of the render fleet, with their
// labels: what the dashboard and alerts in helm/chartd/monitoring may
// query, checked against a live /metrics by the chartd tests.
var FleetSeries = map[string][]string{
	"chartd_render_queue_depth":            nil,
	"chartd_render_tabs_busy":              nil,
	"chartd_render_tabs_warm":              nil,
	"chartd_render_tabs_capacity":          nil,
	"chartd_render_chromium_memory_bytes":  {"browser"},
	"chartd_render_chromium_info":          {"version"},
	"chartd_render_image_cache_size_bytes": nil,
	"chartd_render_browser_restarts_total": {"cause"},
	"chartd_render_fleet_busy_total":       {"reason"},
	"chartd_render_pngs_total":             {"path"},
}
