package raster

import (
	"context"
	"encoding/base64"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"time"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/cdproto/heapprofiler"
	"github.com/chromedp/cdproto/inspector"
	"github.com/chromedp/cdproto/memory"
	"github.com/chromedp/cdproto/page"
	"github.com/chromedp/chromedp"
)

// browser is one Chromium process tree and its warm tabs.
type browser struct {
	p   *Pool
	id  int
	dir string // its --user-data-dir, unique in the pool
	ctx context.Context
	// allocCancel kills the process and waits for it; cancel ends the
	// browser's context.
	allocCancel, cancel context.CancelFunc
	tabs                []*tab

	live    atomic.Bool // warm and not retiring
	renders atomic.Int64
	// helpers are the pids of the zygotes, GPU and utility processes the
	// browser had when it became warm: without them it cannot start a
	// renderer, so one gone retires it (helpersAlive).
	helpers []int
	// held counts tabs not yet dropped; the browser stops when it is
	// retiring and the last tab comes back.
	held     atomic.Int64
	stopOnce sync.Once
	stopped  chan struct{}
}

// tab is one warm page of a browser: a target of its own, so that it
// can be closed and replaced without the browser.
type tab struct {
	b      *browser
	ctx    context.Context
	cancel context.CancelFunc
	// tidied is the browser's render count at this tab's last tidy.
	tidied atomic.Int64
	// used is when the tab last started a drawing (Unix ns).
	used atomic.Int64
	// crashed ends when the tab's renderer crashes (Inspector.targetCrashed):
	// a drawing on it fails at once instead of waiting out the deadline.
	crashed     context.Context
	markCrashed context.CancelFunc
}

// errTabCrashed is a drawing whose tab's renderer died under it.
var errTabCrashed = errors.New("the tab's renderer crashed")

func (b *browser) alive() bool { return b.live.Load() }

// launch starts one browser, warms its tabs and puts them in the idle set;
// a crash later relaunches it.
func (p *Pool) launch(ctx context.Context) error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return ErrClosed
	}
	p.nextID++
	id := p.nextID
	p.mu.Unlock()

	dir := filepath.Join(p.dir, "b"+strconv.Itoa(id))
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("raster: browser dir: %w", err)
	}
	opts := []chromedp.ExecAllocatorOption{
		chromedp.ExecPath(p.exec),
		chromedp.UserDataDir(dir),
		chromedp.NoInheritEnv,
		chromedp.Env(p.env...),
	}
	opts = append(opts, chromedp.DefaultExecAllocatorOptions[:]...)
	opts = append(opts,
		chromedp.Flag("disable-gpu", true),
		// Software 2D canvas: no GPU process round trip per draw.
		chromedp.Flag("disable-accelerated-2d-canvas", true),
		chromedp.Flag("disable-gpu-compositing", true),
		chromedp.Flag("disable-component-update", true),
		chromedp.Flag("disable-quic", true),
		chromedp.Flag("disable-domain-reliability", true),
		chromedp.Flag("no-pings", true),
		chromedp.Flag("mute-audio", true),
		chromedp.Flag("hide-scrollbars", true),
		chromedp.Flag("font-render-hinting", "none"),
		chromedp.Flag("force-device-scale-factor", "1"),
		// No network at all, even if a page asked: every name fails to
		// resolve and every connection goes to a closed proxy, loopback
		// included.
		chromedp.Flag("host-resolver-rules", "MAP * ~NOTFOUND"),
		chromedp.Flag("proxy-server", "http://127.0.0.1:9"),
		chromedp.Flag("proxy-bypass-list", "<-loopback>"),
		chromedp.Flag("disable-features", "Translate,BlinkGenPropertyTrees,OptimizationHints,MediaRouter,DialMediaRouteProvider,AutofillServerCommunication"),
	)
	if os.Getuid() == 0 {
		opts = append(opts, chromedp.NoSandbox)
	}

	allocCtx, allocCancel := chromedp.NewExecAllocator(context.Background(), opts...)
	bctx, cancel := chromedp.NewContext(allocCtx)
	b := &browser{p: p, id: id, dir: dir, ctx: bctx, allocCancel: allocCancel, cancel: cancel, stopped: make(chan struct{})}

	warm := make(chan error, 1)
	go func() { warm <- b.warm() }()
	timer := time.NewTimer(p.cfg.StartTimeout)
	defer timer.Stop()
	var err error
	select {
	case err = <-warm:
	case <-timer.C:
		err = fmt.Errorf("not warm after %s", p.cfg.StartTimeout)
	case <-ctx.Done():
		err = ctx.Err()
	}
	if err != nil {
		b.kill()
		return fmt.Errorf("raster: start Chromium (%s): %w", p.exec, err)
	}

	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		b.kill()
		return ErrClosed
	}
	p.browsers[b] = struct{}{}
	p.wg.Add(1)
	p.mu.Unlock()
	b.held.Store(int64(len(b.tabs)))
	b.live.Store(true)
	for _, t := range b.tabs {
		p.idle.put(t)
	}
	go b.watch()
	b.readVersion()
	p.log.Debug("Chromium ready", "browser", id, "tabs", len(b.tabs), "pid", b.pid())
	return nil
}

// warm starts the browser, opens its tabs and records its helper
// processes.
func (b *browser) warm() error {
	if err := chromedp.Do(b.ctx); err != nil {
		return err
	}
	for range b.p.cfg.Tabs {
		t, err := b.newTab()
		if err != nil {
			return err
		}
		b.tabs = append(b.tabs, t)
	}
	b.helpers = helperPids(b.dir)
	return nil
}

// newTab opens a tab of its own in the browser (the browser's first
// target stays blank: closing it would close the browser), loads our page
// and draws warmRenders pictures so the first real render pays no start-up cost.
func (b *browser) newTab() (*tab, error) {
	tctx, tcancel := chromedp.NewContext(b.ctx)
	crashed, markCrashed := context.WithCancel(context.Background())
	t := &tab{b: b, ctx: tctx, cancel: func() { markCrashed(); tcancel() }, crashed: crashed, markCrashed: markCrashed}
	// The first run opens the target, under the context it is given for
	// good: the tab's own, not the bounded one below.
	if err := chromedp.Do(tctx); err != nil {
		t.cancel()
		return nil, fmt.Errorf("open a tab: %w", err)
	}
	if err := chromedp.Listen(tctx, func(ev any) {
		if _, ok := ev.(*inspector.EventTargetCrashed); ok {
			markCrashed()
		}
	}); err != nil {
		t.cancel()
		return nil, fmt.Errorf("listen to the tab: %w", err)
	}
	ctx, cancel := context.WithTimeout(tctx, b.p.cfg.StartTimeout)
	defer cancel()
	if err := chromedp.Do(ctx, chromedp.Navigate(pageURL())); err != nil {
		t.cancel()
		return nil, fmt.Errorf("load the render page: %w", err)
	}
	for i := range warmRenders {
		j := Job{SVG: warmSVG(i), Width: 800, Height: 600, Scale: 1 + i%2, path: warmPath(i)}
		if _, _, err := t.draw(ctx, j); err != nil {
			t.cancel()
			return nil, fmt.Errorf("warm-up render: %w", err)
		}
	}
	return t, nil
}

// warmRenders is how many pictures a new tab draws before it takes
// traffic. A fresh renderer's first renders took 40–90 ms against 12 ms
// warm (its code, font and glyph caches, and canvases, are cold): that
// was the p99 of a pool that had just replaced a browser.
const warmRenders = 12

// warmPath is the path the i-th warm-up picture takes: mostly replay, as
// charts do, and every fourth as an image, so that path is warm too for
// the charts replay does not know.
func warmPath(i int) string {
	if i%4 == 3 {
		return pathImage
	}
	return pathEither
}

// warmSVG is the i-th warm-up picture: a chart as libs/draw writes one,
// with the shapes and the text styles of charts (title, labels, rotated
// axis names, lines, paths, dots, translucency), each one different so
// that none is a cache hit.
func warmSVG(i int) []byte {
	var b strings.Builder
	b.WriteString(`<svg xmlns="http://www.w3.org/2000/svg" width="800" height="600" viewBox="0 0 800 600" font-family="'Roboto', 'DejaVu Sans', sans-serif" font-size="12"><rect width="800" height="600" fill="#fff"/>`)
	fmt.Fprintf(&b, `<text x="40" y="36" font-size="20" font-weight="bold">Warm-up picture %d</text><text x="18" y="300" transform="rotate(-90 18 300)">Values</text>`, i)
	for k := range 30 {
		h := 40 + (k*53+i*7)%420
		fmt.Fprintf(&b, `<rect x="%d" y="%d" width="18" height="%d" fill="#1d81a2"/><text x="%d" y="580" font-size="11" text-anchor="middle">C%d</text>`, 60+k*24, 550-h, h, 69+k*24, k)
	}
	b.WriteString(`<path d="M60 500`)
	for k := range 30 {
		fmt.Fprintf(&b, ` L%d %d`, 69+k*24, 300+(k*37+i)%150)
	}
	b.WriteString(`" fill="none" stroke="#e4572e" stroke-width="2"/>`)
	for k := range 10 {
		fmt.Fprintf(&b, `<circle cx="%d" cy="%d" r="4" fill="#76b041" fill-opacity="0.6"/><line x1="55" x2="780" y1="%d" y2="%d" stroke="#e0e0e0"/>`, 80+k*70, 200+(k*41+i)%100, 550-k*50, 550-k*50)
	}
	b.WriteString(`</svg>`)
	return []byte(b.String())
}

// replaceTab closes t, which stops its renderer and whatever it was
// drawing, and opens a new tab of the same browser in its place, off the
// caller's path. A browser that cannot open one is broken and retired.
func (p *Pool) replaceTab(t *tab, why string) {
	b := t.b
	p.log.Info("replacing a Chromium tab", "browser", b.id, "why", why)
	go func() {
		t.crash()
		t.cancel()
		if !b.alive() {
			b.tabDone()
			return
		}
		nt, err := b.newTab()
		if err != nil {
			p.retire(b, "a new tab failed: "+err.Error())
			b.tabDone()
			return
		}
		p.stats.tabRestarts.Add(1)
		p.requeue(nt)
	}()
}

// crash ends the tab's renderer at once (Page.crash works on the
// renderer's IO thread, so a main thread busy drawing does not delay it):
// closing the tab alone leaves the renderer drawing to its end.
func (t *tab) crash() {
	ctx, cancel := context.WithTimeout(t.ctx, 200*time.Millisecond)
	defer cancel()
	chromedp.Call(ctx, page.Crash, cdp.Empty{})
}

// pingTimeout bounds the health ping of a browser.
const pingTimeout = 2 * time.Second

// healthy answers nil when the browser's process answers CDP and its
// helper processes are alive.
func (b *browser) healthy() error {
	select {
	case <-b.ctx.Done():
		return errors.New("exited")
	default:
	}
	if err := b.helpersAlive(); err != nil {
		return err
	}
	ctx, cancel := context.WithTimeout(b.ctx, pingTimeout)
	defer cancel()
	if _, err := chromedp.CallBrowser(ctx, cdpbrowser.GetVersion, cdp.Empty{}); err != nil {
		return fmt.Errorf("no answer to a ping: %w", err)
	}
	return nil
}

// helpersAlive answers an error when one of the browser's helper
// processes has exited or is a zombie.
func (b *browser) helpersAlive() error {
	for _, pid := range b.helpers {
		if st := stateOf(pid); st == 0 || st == 'Z' || st == 'X' {
			return fmt.Errorf("its helper process %d is gone", pid)
		}
	}
	return nil
}

func (b *browser) pid() int {
	if c := chromedp.FromContext(b.ctx); c != nil && c.Browser != nil && c.Browser.Process() != nil {
		return c.Browser.Process().Pid
	}
	return 0
}

// watch waits for the browser to end; an end the pool did not ask for is
// a crash: its tabs are dropped and a new browser takes its place.
func (b *browser) watch() {
	defer b.p.wg.Done()
	select {
	case <-b.ctx.Done():
		if b.live.Load() {
			b.p.log.Warn("Chromium exited; starting another", "browser", b.id)
		}
		b.retire("exited")
	case <-b.stopped:
	}
}

// retire takes a browser out of service: no new renders go to it; it stops
// once its tabs come back, and a new one is launched unless the pool is
// closing.
func (p *Pool) retire(b *browser, why string) {
	b.retire(why)
}

func (b *browser) retire(why string) {
	if !b.live.CompareAndSwap(true, false) {
		return
	}
	p := b.p
	p.log.Info("retiring Chromium", "browser", b.id, "why", why, "renders", b.renders.Load())
	select {
	case <-b.ctx.Done():
		// Dead already: nothing can be waited for on it.
		b.stop()
	default:
		if why != "recycled after its renders" && why != "recycled for its memory" {
			// A failing or hung browser is killed now, not drained.
			b.stop()
		}
	}
	if b.held.Load() == 0 {
		b.stop()
	}
	if p.isClosed() {
		return
	}
	p.stats.restarts.Add(1)
	p.causes[causeOf(why)].Add(1)
	p.wg.Add(1)
	go func() {
		defer p.wg.Done()
		p.relaunch()
	}()
}

// relaunch starts a replacement browser, backing off while starts fail.
func (p *Pool) relaunch() {
	delay := 100 * time.Millisecond
	for !p.isClosed() {
		err := p.launch(context.Background())
		if err == nil || errors.Is(err, ErrClosed) {
			return
		}
		p.log.Error("Chromium failed to start again", "err", err, "retry_in", delay)
		time.Sleep(delay)
		delay = min(delay*2, 5*time.Second)
	}
}

// tabDone drops one tab of a retired browser; the last one stops it.
func (b *browser) tabDone() {
	if b.held.Add(-1) <= 0 && !b.live.Load() {
		b.stop()
	}
}

// stop ends the browser once: its processes are killed, reaped and its
// directory removed.
func (b *browser) stop() {
	b.stopOnce.Do(func() {
		b.live.Store(false)
		close(b.stopped)
		b.kill()
		b.p.mu.Lock()
		delete(b.p.browsers, b)
		b.p.mu.Unlock()
	})
}

// kill ends the process tree: the allocator kills and reaps the main
// process; children that outlive it are found by their profile directory.
func (b *browser) kill() {
	b.cancel()
	b.allocCancel()
	for range 50 {
		if killAll(b.dir) == 0 {
			break
		}
		time.Sleep(10 * time.Millisecond)
	}
	os.RemoveAll(b.dir)
}

func killPid(pid int) { syscall.Kill(pid, syscall.SIGKILL) }

// tidyEvery is how many renders of a browser pass between tidies of the
// tab that drew the last of them.
const tidyEvery = 100

// tidy frees what the page keeps between renders: Blink holds each
// decoded data: image in its memory cache and V8 collects lazily, so
// without it a browser's RSS creeps up by about a fifth over 2,000 renders
// (TestMemoryStaysFlat). A critical memory-pressure signal purges those
// caches; a collection then frees the images' wrappers. It costs a few
// milliseconds once per tidyEvery renders.
func (t *tab) tidy() error {
	ctx, cancel := context.WithTimeout(t.ctx, t.b.p.cfg.Deadline)
	defer cancel()
	if _, err := chromedp.Call(ctx, memory.SimulatePressureNotification, memory.SimulatePressureNotificationParams{Level: memory.PressureLevelCritical}); err != nil {
		return fmt.Errorf("memory pressure: %w", err)
	}
	if _, err := chromedp.Run(ctx, chromedp.Evaluate[bool]("tidy()")); err != nil {
		return fmt.Errorf("drop the canvases: %w", err)
	}
	if _, err := chromedp.Call(ctx, heapprofiler.CollectGarbage, cdp.Empty{}); err != nil {
		return fmt.Errorf("collect garbage: %w", err)
	}
	return nil
}

// draw runs render() in the tab's page under ctx (the tab's context,
// bounded) and decodes the PNG it answers, saying whether the page drew
// it by replay.
func (t *tab) draw(ctx context.Context, j Job) (png []byte, replayed bool, err error) {
	enc := j.encoder
	if enc == "" {
		enc = t.b.p.cfg.Encoder
	}
	expr, err := renderCall(j.SVG, j.Width*j.Scale, j.Height*j.Scale, j.path, enc)
	if err != nil {
		return nil, false, err
	}
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	defer context.AfterFunc(t.crashed, func() { cancel(errTabCrashed) })()
	out, err := chromedp.Run(ctx, chromedp.Evaluate[[]string](expr, chromedp.EvalAwaitPromise))
	if err != nil {
		var ex *chromedp.ExceptionError
		if errors.As(err, &ex) {
			return nil, false, &DrawError{Msg: "Chromium could not draw the picture: " + ex.Error()}
		}
		if errors.Is(context.Cause(ctx), errTabCrashed) {
			return nil, false, fmt.Errorf("draw: %w", errTabCrashed)
		}
		if ctx.Err() != nil {
			return nil, false, fmt.Errorf("draw: %w", ctx.Err())
		}
		return nil, false, fmt.Errorf("draw: %w", err)
	}
	if len(out) != 2 {
		return nil, false, fmt.Errorf("draw: the page answered %d values, want a path and a PNG", len(out))
	}
	png, err = base64.StdEncoding.DecodeString(out[1])
	if err != nil {
		return nil, false, fmt.Errorf("draw: decode the PNG: %w", err)
	}
	return png, out[0] == pathReplay, nil
}
