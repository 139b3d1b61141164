package raster

import (
	"context"
	"log/slog"
	"strings"
	"sync/atomic"
	"testing"
	"time"

	sdktrace "go.opentelemetry.io/otel/sdk/trace"
	"go.opentelemetry.io/otel/sdk/trace/tracetest"
)

// TestObservability: what the render fleet's metrics and traces read —
// a span for the wait for a tab and one for the drawing, children of the
// caller's; restarts by cause; memory per browser; Chromium's version.
func TestObservability(t *testing.T) {
	exp := tracetest.NewInMemoryExporter()
	tp := sdktrace.NewTracerProvider(sdktrace.WithSyncer(exp))
	cfg := DefaultConfig()
	cfg.Browsers, cfg.Tabs, cfg.RecycleRenders, cfg.Tracer = 1, 1, 3, tp
	p := startPool(t, cfg)
	if v := p.Version(); !strings.Contains(v, "Chrome/") {
		t.Errorf("version %q", v)
	}
	ctx, root := tp.Tracer("test").Start(context.Background(), "request")
	for i := range 3 {
		if _, err := p.Render(ctx, Job{SVG: barsSVG(i), Width: 40, Height: 30, Scale: 1}); err != nil {
			t.Fatal(err)
		}
	}
	root.End()
	names := map[string]int{}
	for _, s := range exp.GetSpans() {
		if s.Name == "request" {
			continue
		}
		names[s.Name]++
		if s.Parent.SpanID() != root.SpanContext().SpanID() {
			t.Errorf("span %s is not the caller's child", s.Name)
		}
	}
	if names["raster.queue_wait"] != 3 || names["raster.draw"] != 3 {
		t.Errorf("spans %v: want 3 queue waits and 3 draws", names)
	}
	deadline := time.Now().Add(30 * time.Second)
	for p.Ready() != nil || len(p.BrowserRSS()) != 1 || p.Stats().RestartsBy["recycle_renders"] < 1 {
		if time.Now().After(deadline) {
			t.Fatalf("no recycled browser replaced: %+v, rss %v", p.Stats(), p.BrowserRSS())
		}
		time.Sleep(20 * time.Millisecond)
	}
	st := p.Stats()
	if st.RestartsBy["crash"] != 0 || st.RestartsBy["failure"] != 0 || len(st.RestartsBy) != len(Causes) {
		t.Errorf("restarts by cause %v", st.RestartsBy)
	}
	if rss := p.BrowserRSS(); rss[0] < 10<<20 {
		t.Errorf("browser memory %v: want the live browser's, at least 10 MiB", rss)
	}
}

// TestChromiumVersionPin: a pool pinned to another Chromium version fails
// to start, naming both; pinned to the installed one, it starts.
func TestChromiumVersionPin(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Browsers, cfg.Tabs = 1, 1
	probe := startPool(t, cfg)
	_, installed, _ := strings.Cut(probe.Version(), "/")
	probe.Close()

	cfg.ChromiumVersion = "1.2.3.4"
	cfg.TempDir = t.TempDir()
	p, err := New(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	err = p.Start(context.Background())
	if err == nil || !strings.Contains(err.Error(), "is not the pinned 1.2.3.4") || !strings.Contains(err.Error(), installed) {
		t.Fatalf("start pinned to another version: %v", err)
	}
	if left := ProcsUnder(cfg.TempDir); len(left) > 0 {
		t.Fatalf("a refused pool left Chromium running: %v", left)
	}
	cfg.ChromiumVersion = installed[:strings.LastIndex(installed, ".")] // a prefix of whole parts
	startPool(t, cfg)
}

// BenchmarkRenderSpans is BenchmarkRender30Bars with chartd's tracer
// provider as it runs without an exporter (spans made, not recorded) and
// with every trace recorded: what the queue-wait and draw spans cost.
func BenchmarkRenderSpans(b *testing.B) {
	for _, c := range []struct {
		name    string
		sampler sdktrace.Sampler
	}{{"unsampled", sdktrace.ParentBased(sdktrace.NeverSample())}, {"sampled", sdktrace.AlwaysSample()}} {
		b.Run(c.name, func(b *testing.B) {
			tp := sdktrace.NewTracerProvider(sdktrace.WithSampler(c.sampler), sdktrace.WithSyncer(tracetest.NewNoopExporter()))
			cfg := DefaultConfig()
			cfg.Tracer = tp
			p := startPool(b, cfg)
			svg := bars30()
			var n atomic.Int64
			b.ReportAllocs()
			b.ResetTimer()
			b.RunParallel(func(pb *testing.PB) {
				for pb.Next() {
					if _, err := p.Render(context.Background(), Job{SVG: distinct(svg, n.Add(1)), Width: 800, Height: 600, Scale: 1}); err != nil {
						b.Error(err)
						return
					}
				}
			})
		})
	}
}
