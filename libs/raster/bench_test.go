package raster

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"slices"
	"strings"
	"sync/atomic"
	"testing"
	"time"
)

// bars30 is a 30-bar picture at 800×600, as libs/draw writes one: one
// rect per bar, a label per bar, axis text.
func bars30() []byte {
	var b strings.Builder
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600" viewBox="0 0 800 600" font-family="'Roboto', 'DejaVu Sans'"><rect width="800" height="600" fill="#ffffff"/>`)
	b.WriteString(`<text x="40" y="40" font-size="20" font-weight="bold">Thirty bars and their labels</text>`)
	for i := range 30 {
		h := 40 + (i*53)%420
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="18" height="%d" fill="#1d81a2"/><text x="%d" y="580" font-size="11" text-anchor="middle">C%d</text>`, 60+i*24, 550-h, h, 69+i*24, i)
	}
	for i := range 6 {
		fmt.Fprintf(&b, `<line x1="55" x2="780" y1="%d" y2="%d" stroke="#e0e0e0"/><text x="50" y="%d" font-size="11" text-anchor="end">%d</text>`, 550-i*80, 550-i*80, 554-i*80, i*100)
	}
	b.WriteString(`</svg>`)
	return []byte(b.String())
}

// distinct makes the i-th picture differ from every other, as requests'
// pictures do: Chromium caches a decoded image by its data: URL, so the
// same SVG twice would measure a cache hit.
func distinct(svg []byte, i int64) []byte {
	return bytes.Replace(svg, []byte("Thirty bars"), fmt.Appendf(nil, "Bars #%d", i), 1)
}

func benchRender(b *testing.B, scale int) {
	p := startPool(b, DefaultConfig())
	svg := bars30()
	var n atomic.Int64
	b.ResetTimer()
	b.RunParallel(func(pb *testing.PB) {
		for pb.Next() {
			if _, err := p.Render(context.Background(), Job{SVG: distinct(svg, n.Add(1)), Width: 800, Height: 600, Scale: scale}); err != nil {
				b.Error(err)
				return
			}
		}
	})
}

// BenchmarkRender30Bars is the pool's throughput on a 30-bar 800×600 PNG
// with every tab busy (ns/op is wall time per PNG across the pool).
func BenchmarkRender30Bars(b *testing.B) { benchRender(b, 1) }

// BenchmarkRender30BarsScale2 is the same at twice the pixels a side.
func BenchmarkRender30BarsScale2(b *testing.B) { benchRender(b, 2) }

// BenchmarkRenderSerial is one render at a time: the latency of a PNG.
// Besides the mean (ns/op) it reports the median and the 99th percentile,
// which the targets are stated in. The 30 bars are replayed onto
// the canvas, as charts are; the benchmark fails if any was not.
func BenchmarkRenderSerial(b *testing.B) { benchSerial(b, pathEither, EncoderChromium) }

// BenchmarkRenderSerialWasm is BenchmarkRenderSerial with the page's
// wasm PNG encoder instead of Chromium's (convertToBlob): the two side by
// side are the encoder's gain or loss.
func BenchmarkRenderSerialWasm(b *testing.B) { benchSerial(b, pathEither, EncoderWasm) }

// BenchmarkRenderSerialImage is BenchmarkRenderSerial with every picture
// decoded as an SVG image instead (the path for what replay does not
// know, and the only one before replay): the two side by side are the
// replay's gain.
func BenchmarkRenderSerialImage(b *testing.B) { benchSerial(b, pathImage, EncoderChromium) }

func benchSerial(b *testing.B, path, enc string) {
	p := startPool(b, DefaultConfig())
	svg := bars30()
	i := int64(0)
	var took []time.Duration
	before := p.Stats()
	b.ResetTimer()
	for b.Loop() {
		i++
		start := time.Now()
		if _, err := p.Render(context.Background(), Job{SVG: distinct(svg, i), Width: 800, Height: 600, Scale: 1, path: path, encoder: enc}); err != nil {
			b.Fatal(err)
		}
		took = append(took, time.Since(start))
	}
	b.StopTimer()
	after := p.Stats()
	renders, replayed := after.Renders-before.Renders, after.Replayed-before.Replayed
	if want := map[string]int64{pathEither: renders, pathImage: 0}[path]; replayed != want {
		b.Fatalf("%d of %d renders replayed, want %d", replayed, renders, want)
	}
	slices.Sort(took)
	b.ReportMetric(float64(took[len(took)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(took[len(took)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkRenderStory is issue 34's PNG cost: the 30-bar chart with five
// notes, a target line and a range (story-bar30) and twelve panels of
// thirty bars (looks-bar-facet-12), each against the plain 30-bar chart
// of BenchmarkRenderSerial, rendered in turn on one pool so load falls on
// all three alike. Every picture differs from the others (its title
// numbered) and all are replayed; it reports each one's p50 and the
// ratios to the plain chart's.
func BenchmarkRenderStory(b *testing.B) {
	story, err := os.ReadFile("../draw/testdata/story-bar30.svg")
	if err != nil {
		b.Fatal(err)
	}
	facet, err := os.ReadFile("../draw/testdata/looks-bar-facet-12.svg")
	if err != nil {
		b.Fatal(err)
	}
	kinds := []struct {
		name, title string
		svg         []byte
	}{{"plain", "Thirty bars", bars30()}, {"story", "Daily sign-ups", story}, {"facet12", "Twelve stores", facet}}
	p := startPool(b, DefaultConfig())
	took := make([][]time.Duration, len(kinds))
	before := p.Stats()
	i := int64(0)
	b.ResetTimer()
	for b.Loop() {
		for k, kind := range kinds {
			i++
			svg := bytes.ReplaceAll(kind.svg, []byte(kind.title), fmt.Appendf(nil, "%s #%d", kind.title, i))
			start := time.Now()
			if _, err := p.Render(context.Background(), Job{SVG: svg, Width: 800, Height: 600, Scale: 1, path: pathEither}); err != nil {
				b.Fatal(err)
			}
			took[k] = append(took[k], time.Since(start))
		}
	}
	b.StopTimer()
	after := p.Stats()
	if renders, replayed := after.Renders-before.Renders, after.Replayed-before.Replayed; replayed != renders {
		b.Fatalf("%d of %d renders replayed, want all", replayed, renders)
	}
	p50 := make([]float64, len(kinds))
	for k, kind := range kinds {
		slices.Sort(took[k])
		p50[k] = float64(took[k][len(took[k])/2].Microseconds()) / 1000
		b.ReportMetric(p50[k], kind.name+"-p50-ms")
	}
	b.ReportMetric(p50[1]/p50[0], "story/plain")
	b.ReportMetric(p50[2]/p50[0], "facet12/plain")
}
