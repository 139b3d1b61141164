package raster

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"image"
	"image/png"
	"log/slog"
	"net"
	"net/http"
	"os"
	"sync"
	"sync/atomic"
	"testing"
	"time"
)

// startPool starts a pool under a temp dir and closes it with the test,
// proving no Chromium process outlives it.
func startPool(t testing.TB, cfg Config) *Pool {
	t.Helper()
	cfg.TempDir = t.TempDir()
	return startPoolAt(t, cfg)
}

// startPoolAt starts a pool under cfg.TempDir. A browser's start is
// bounded by minutes, not the production 30 s: on a machine loaded 20–40
// deep a start with its warm-up renders took longer, and what a test
// asserts is never how fast a browser starts (a start that hangs still
// fails, at this bound).
func startPoolAt(t testing.TB, cfg Config) *Pool {
	t.Helper()
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = testStartTimeout
	}
	p, err := New(cfg, slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 2*testStartTimeout)
	defer cancel()
	if err := p.Start(ctx); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		p.Close()
		if left := ProcsUnder(cfg.TempDir); len(left) > 0 {
			t.Errorf("Chromium processes left after Close: %v", left)
		}
	})
	return p
}

// testStartTimeout bounds a test pool's browser start (startPoolAt).
const testStartTimeout = 5 * time.Minute

func smallConfig() Config {
	c := DefaultConfig()
	c.Browsers, c.Tabs, c.Deadline = 1, 2, 10*time.Second
	return c
}

func decodePNG(t testing.TB, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("not a PNG (%d bytes): %v", len(b), err)
	}
	return img
}

const squareSVG = `<svg xmlns="http://www.w3.org/2000/svg" width="%d" height="%d" viewBox="0 0 100 50"><rect x="50" y="0" width="50" height="50" fill="#ff0000"/></svg>`

func TestRenderSizesAndTransparency(t *testing.T) {
	p := startPool(t, smallConfig())
	for _, scale := range []int{1, 2, 4} {
		svg := fmt.Appendf(nil, squareSVG, 100, 50)
		out, err := p.Render(context.Background(), Job{SVG: svg, Width: 100, Height: 50, Scale: scale})
		if err != nil {
			t.Fatalf("scale %d: %v", scale, err)
		}
		img := decodePNG(t, out)
		if b := img.Bounds(); b.Dx() != 100*scale || b.Dy() != 50*scale {
			t.Fatalf("scale %d: %dx%d, want %dx%d", scale, b.Dx(), b.Dy(), 100*scale, 50*scale)
		}
		// Left half: nothing drawn, so fully transparent; right half red.
		if _, _, _, a := img.At(2, 2).RGBA(); a != 0 {
			t.Errorf("scale %d: corner alpha %d, want 0", scale, a)
		}
		r, g, b, a := img.At(75*scale, 25*scale).RGBA()
		if r>>8 != 255 || g>>8 != 0 || b>>8 != 0 || a>>8 != 255 {
			t.Errorf("scale %d: centre of the square %d,%d,%d,%d, want opaque red", scale, r>>8, g>>8, b>>8, a>>8)
		}
	}
	// The fleet stats the operator reads: an idle pool after three renders.
	cfg := smallConfig()
	if st := p.Stats(); st.Tabs != cfg.Browsers*cfg.Tabs || st.Queue != 0 || st.BusyTabs != 0 || st.P95 <= 0 || st.Renders != 3 {
		t.Errorf("stats %+v", st)
	}
}

func TestLatenciesP95(t *testing.T) {
	var l latencies
	if l.p95() != 0 {
		t.Fatal("empty window")
	}
	for i := 1; i <= 100; i++ {
		l.add(time.Duration(i) * time.Millisecond)
	}
	if got := l.p95(); got != 95*time.Millisecond {
		t.Fatalf("p95 of 1..100 ms = %s", got)
	}
	// The window keeps the newest latencyWindow renders only.
	for range latencyWindow {
		l.add(time.Second)
	}
	if got := l.p95(); got != time.Second {
		t.Fatalf("p95 after the window turned = %s", got)
	}
}

func TestBadSVGIsDrawError(t *testing.T) {
	p := startPool(t, smallConfig())
	_, err := p.Render(context.Background(), Job{SVG: []byte("<svg><oops"), Width: 10, Height: 10})
	var de *DrawError
	if !errors.As(err, &de) {
		t.Fatalf("err = %v, want a DrawError", err)
	}
	// The tab is still good.
	if _, err := p.Render(context.Background(), Job{SVG: fmt.Appendf(nil, squareSVG, 10, 5), Width: 10, Height: 5}); err != nil {
		t.Fatal(err)
	}
	if s := p.Stats(); s.Restarts != 0 {
		t.Errorf("a bad picture restarted a browser: %+v", s)
	}
}

// TestNoNetwork draws hostile SVGs that try every way to fetch: none may
// reach a listener on loopback.
func TestNoNetwork(t *testing.T) {
	var hits atomic.Int64
	l, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		t.Fatal(err)
	}
	srv := &http.Server{Handler: http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits.Add(1)
		w.Header().Set("Content-Type", "image/png")
	})}
	go srv.Serve(l)
	defer srv.Close()
	u := "http://" + l.Addr().String()
	host := "localhost:" + fmt.Sprint(l.Addr().(*net.TCPAddr).Port)
	hostile := []string{
		`<image href="` + u + `/img.png" width="10" height="10"/>`,
		`<image xlink:href="` + u + `/xlink.png" width="10" height="10"/>`,
		`<style>@import url(` + u + `/import.css);</style>`,
		`<style>text{font-family:x} @font-face{font-family:x;src:url(` + u + `/font.woff)}</style><text>hi</text>`,
		`<rect width="10" height="10" fill="url(` + u + `/fill.svg#p)"/>`,
		`<rect width="10" height="10" style="fill:url(` + u + `/style.svg#p);filter:url(` + u + `/filter.svg#f)"/>`,
		`<script>fetch("` + u + `/script")</script>`,
		`<script href="` + u + `/script.js"/>`,
		`<foreignObject width="10" height="10"><img xmlns="http://www.w3.org/1999/xhtml" src="` + u + `/fo.png"/><iframe xmlns="http://www.w3.org/1999/xhtml" src="` + u + `/frame"/></foreignObject>`,
		`<use href="` + u + `/use.svg#x"/>`,
		`<image href="http://` + host + `/byname.png" width="10" height="10"/>`,
		`<a href="` + u + `/link"><rect width="10" height="10" onload="fetch('` + u + `/onload')"/></a>`,
	}
	p := startPool(t, smallConfig())
	for _, h := range hostile {
		svg := `<svg xmlns="http://www.w3.org/2000/svg" xmlns:xlink="http://www.w3.org/1999/xlink" width="20" height="20">` + h + `</svg>`
		if _, err := p.Render(context.Background(), Job{SVG: []byte(svg), Width: 20, Height: 20}); err != nil {
			var de *DrawError
			if !errors.As(err, &de) {
				t.Fatalf("%s: %v", h, err)
			}
		}
	}
	// The listener itself works: a plain client reaches it.
	resp, err := http.Get(u + "/control")
	if err != nil {
		t.Fatal(err)
	}
	resp.Body.Close()
	if n := hits.Load(); n != 1 {
		t.Fatalf("Chromium made %d requests to the loopback listener, want 0", n-1)
	}
}

// TestBusy fills a one-tab pool with slow renders: a render that finds no
// tab within the deadline is refused as busy, never left hanging.
func TestBusy(t *testing.T) {
	cfg := smallConfig()
	cfg.Tabs, cfg.Deadline, cfg.Queue = 1, time.Second, 1
	p := startPool(t, cfg)
	// A picture under the cost budget (a heavier one is refused as too
	// heavy before it queues) keeps the tab busy for a while; with one
	// tab and a queue of one, the others find no room.
	var heavy bytes.Buffer
	heavy.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="1000" height="1000">`)
	for i := range 2000 {
		fmt.Fprintf(&heavy, `<circle cx="%d" cy="%d" r="3" fill="#%06x" fill-opacity="0.5"/>`, i%997, (i*7)%991, i*2654435761%0xffffff)
	}
	heavy.WriteString(`</svg>`)
	if err := CheckCost(Job{SVG: heavy.Bytes(), Width: 1000, Height: 1000, Scale: 1}, p.budget()); err != nil {
		t.Fatalf("the test's picture must be within the budget: %v", err)
	}
	var wg sync.WaitGroup
	var busy, ok, other atomic.Int64
	for range 6 {
		wg.Go(func() {
			_, err := p.Render(context.Background(), Job{SVG: heavy.Bytes(), Width: 1000, Height: 1000, Scale: 1})
			switch {
			case err == nil:
				ok.Add(1)
			case errors.Is(err, ErrBusy):
				busy.Add(1)
			default:
				other.Add(1)
				t.Log(err)
			}
		})
	}
	wg.Wait()
	if busy.Load() == 0 {
		t.Fatalf("no render was refused as busy (ok %d, other %d)", ok.Load(), other.Load())
	}
	if p.Stats().Busy == 0 {
		t.Error("Stats().Busy did not count the refusals")
	}
}

func TestMissingChromium(t *testing.T) {
	_, err := New(Config{Chromium: "/nonexistent/chromium", Browsers: 1, Tabs: 1, Deadline: time.Second}, slog.New(slog.DiscardHandler))
	if err == nil || !bytes.Contains([]byte(err.Error()), []byte("apt-get install chromium")) {
		t.Fatalf("err = %v, want one naming what to install", err)
	}
}

func TestMain(m *testing.M) {
	os.Exit(m.Run())
}
