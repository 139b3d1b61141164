// Package raster turns SVG into PNG with a pool of warm headless Chromium
// tabs (chromedp). Each tab loads one blank page of ours once; a render
// draws the SVG as a data: image onto a canvas in that page and encodes the
// PNG there, so there is no navigation and no compositor frame per render
// and the chart's content can neither run script nor reach the network
// (DESIGN §4). A browser that crashes or hangs is killed with all its
// processes and started again; the render that was on it is retried on
// fresh tabs while its deadline lasts, then answered ErrUnavailable. The wait for a tab is bounded: a saturated pool answers
// ErrBusy rather than queueing without end.
package raster

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"log/slog"
	"os"
	"os/exec"
	"runtime/debug"
	"slices"
	"strings"
	"sync"
	"sync/atomic"
	"time"

	"go.opentelemetry.io/otel/trace"
	"go.opentelemetry.io/otel/trace/noop"
)

// Config is the pool's settings (flags -render.*).
type Config struct {
	// Chromium is the browser binary; empty looks up chromium,
	// chromium-browser and google-chrome on PATH.
	Chromium string
	// Browsers and Tabs (per browser) size the pool.
	Browsers int
	Tabs     int
	// Deadline bounds one render: the wait for a tab and the drawing each.
	Deadline time.Duration
	// Queue is how many renders may wait for a tab; more are refused at once.
	Queue int
	// RecycleRenders and RecycleMiB restart a browser after that many
	// renders or once its processes hold that much memory (0: never).
	RecycleRenders int
	RecycleMiB     int
	// FontConfig is the fontconfig file Chromium draws text with
	// (FONTCONFIG_FILE): the stack libs/draw measures with.
	FontConfig string
	// TempDir holds the browsers' profile directories; empty uses the
	// system's temporary directory.
	TempDir string
	// ChromiumVersion, when set, is the Chromium version the pool must run
	// (the start of its product version, e.g. 156.0.8078.108): pixels
	// differ between versions, so a build that drifted from the pinned
	// package fails to start instead of drawing other pictures.
	ChromiumVersion string
	// Encoder is the page's PNG encoder, EncoderChromium (the default
	// when empty) or EncoderWasm.
	Encoder string
	// Tracer makes the spans of the wait for a tab and of the drawing;
	// nil makes none.
	Tracer trace.TracerProvider
	// StartTimeout bounds launching one browser and warming its tabs;
	// 0 is DefaultStartTimeout. A heavily loaded node (or test machine)
	// needs more.
	StartTimeout time.Duration
}

// DefaultStartTimeout bounds a browser's launch and warm-up when
// Config.StartTimeout is unset: a second or two on an idle machine.
const DefaultStartTimeout = 30 * time.Second

// DefaultConfig is sized for a two-core machine: two browsers, so that one
// crashing leaves the other to retry on, with one tab each. Drawing is
// CPU-bound, so more tabs than cores only contend (measured: 2×1 tabs drew
// more PNGs a second than 2×2 or 1×4 here).
func DefaultConfig() Config {
	return Config{Browsers: 2, Tabs: 1, Deadline: 10 * time.Second, Queue: 256, RecycleRenders: 5000, RecycleMiB: 1024}
}

// RegisterFlags registers the pool's flags under prefix ("render").
func (c *Config) RegisterFlags(prefix string, fs *flag.FlagSet) {
	fs.StringVar(&c.Chromium, prefix+".chromium", c.Chromium, "Chromium binary for PNG (default: chromium on PATH)")
	fs.IntVar(&c.Browsers, prefix+".browsers", c.Browsers, "Chromium processes in the render pool")
	fs.IntVar(&c.Tabs, prefix+".tabs", c.Tabs, "warm tabs per Chromium process")
	fs.DurationVar(&c.Deadline, prefix+".deadline", c.Deadline, "longest wait for a tab, and longest drawing, of one PNG render")
	fs.IntVar(&c.Queue, prefix+".queue", c.Queue, "renders that may wait for a tab before new ones are refused as busy")
	fs.IntVar(&c.RecycleRenders, prefix+".recycle-renders", c.RecycleRenders, "restart a browser after this many renders (0: never)")
	fs.IntVar(&c.RecycleMiB, prefix+".recycle-mib", c.RecycleMiB, "restart a browser once its processes hold this many MiB (0: never)")
	fs.DurationVar(&c.StartTimeout, prefix+".start-timeout", DefaultStartTimeout, "longest launch and warm-up of one Chromium before it counts as failed and is started again")
	fs.StringVar(&c.Encoder, prefix+".png-encoder", c.Encoder, "PNG encoder in the page: chromium (convertToBlob) or wasm (getImageData and the page's WebAssembly encoder); empty: chromium")
	fs.StringVar(&c.ChromiumVersion, prefix+".chromium-version", c.ChromiumVersion, "Chromium version the pool must run, e.g. 156.0.8078.108 (the image's pinned package); empty: any")
}

// Errors a render can end with.
var (
	// ErrBusy: no tab came free within the deadline, or the queue is full.
	ErrBusy = errors.New("the render fleet is busy")
	// ErrClosed: the pool is shut down.
	ErrClosed = errors.New("the render pool is closed")
	// ErrUnavailable: the browser went away under the render (killed,
	// crashed, or retired as broken) and the retries on fresh tabs within
	// the deadline failed too. It is the fleet's passing failure, not the
	// picture's nor a fault of this code: worth trying again shortly.
	ErrUnavailable = errors.New("the render fleet lost its browser while drawing")
)

// errBrowserGone marks a drawing whose browser went away under it:
// Render retries it on a fresh tab.
var errBrowserGone = errors.New("the browser went away under the drawing")

// DrawError is a picture Chromium refused to draw (an SVG it cannot
// decode): the input's fault, so it is not retried.
type DrawError struct{ Msg string }

func (e *DrawError) Error() string { return e.Msg }

// Job is one picture to draw.
type Job struct {
	SVG []byte
	// Width and Height are the SVG's size in CSS pixels.
	Width, Height int
	// Scale multiplies the pixel size (1, 2 or 4): the PNG is
	// Width·Scale × Height·Scale.
	Scale int
	// path makes a test's render take one path only (see page.go), and
	// encoder one PNG encoder other than the pool's.
	path, encoder string
}

// Stats are the pool's counters since it started.
type Stats struct {
	Renders, Retries, Failures, Busy int64
	// Replayed counts the renders drawn by replaying the SVG onto a
	// canvas; the rest of Renders were drawn as an image.
	Replayed int64
	// Restarts counts browsers started after the first ones: crashes,
	// hangs and recycling; RestartsBy splits them by cause (see Causes).
	Restarts   int64
	RestartsBy map[string]int64
	// TabRestarts counts tabs replaced within a live browser: a caller
	// that left a long drawing, or a picture that ran past the deadline.
	TabRestarts int64
	// Refused counts pictures refused as too heavy, before or after
	// drawing (*TooHeavyError).
	Refused int64
	// Warm is the number of tabs ready to draw or drawing.
	Warm int
	// Tabs is the pool's size, browsers × tabs per browser.
	Tabs int
	// Queue is the renders waiting for a tab now; Busy tabs are drawing.
	Queue, BusyTabs int
	// P95 is the 95th percentile of wait plus draw over the last
	// latencyWindow renders (0 before the first).
	P95 time.Duration
}

// latencyWindow is how many recent renders Stats' P95 is taken over.
const latencyWindow = 512

// latencies keeps the durations of the last latencyWindow renders.
type latencies struct {
	mu   sync.Mutex
	ring [latencyWindow]time.Duration
	n    int // renders recorded, ever
}

func (l *latencies) add(d time.Duration) {
	l.mu.Lock()
	l.ring[l.n%latencyWindow] = d
	l.n++
	l.mu.Unlock()
}

// p95 answers the 95th percentile of the recorded window (nearest rank).
func (l *latencies) p95() time.Duration {
	l.mu.Lock()
	k := min(l.n, latencyWindow)
	recent := make([]time.Duration, k)
	copy(recent, l.ring[:k])
	l.mu.Unlock()
	if k == 0 {
		return 0
	}
	slices.Sort(recent)
	return recent[(k*95+99)/100-1]
}

// Pool is the warm Chromium pool. Build it with New and Start it; it is
// safe for concurrent use.
type Pool struct {
	cfg  Config
	log  *slog.Logger
	exec string
	env  []string
	dir  string
	// ownDir is set when the pool made dir and removes it on Close.
	ownDir bool

	idle    idleSet
	waiting atomic.Int64

	mu       sync.Mutex
	browsers map[*browser]struct{}
	nextID   int
	closed   bool
	started  bool
	wg       sync.WaitGroup // browser starters and watchers

	stats struct {
		renders, replayed, retries, failures, busy, restarts, tabRestarts, refused atomic.Int64
	}
	causes  [len(Causes)]atomic.Int64
	tracer  trace.Tracer
	version atomic.Value // string: the browser's product, e.g. HeadlessChrome/131.0.6778.85
	// bigDrawn counts renders of big pictures; the upkeep frees this
	// process's memory after them.
	bigDrawn atomic.Int64
	// lastUse is when the last render started (Unix ns).
	lastUse atomic.Int64
	// quit ends the upkeep.
	quit    chan struct{}
	drawing atomic.Int64 // tabs drawing now
	recent  latencies
}

// New checks the settings and that Chromium is installed; Start launches it.
func New(cfg Config, log *slog.Logger) (*Pool, error) {
	if cfg.Browsers < 1 || cfg.Tabs < 1 || cfg.Browsers*cfg.Tabs > 256 {
		return nil, fmt.Errorf("raster: %d browsers × %d tabs: use at least one of each and at most 256 tabs", cfg.Browsers, cfg.Tabs)
	}
	if cfg.Deadline <= 0 {
		return nil, fmt.Errorf("raster: deadline %s must be positive", cfg.Deadline)
	}
	if cfg.Queue < 0 {
		return nil, fmt.Errorf("raster: queue %d must not be negative", cfg.Queue)
	}
	if cfg.StartTimeout == 0 {
		cfg.StartTimeout = DefaultStartTimeout
	}
	switch cfg.Encoder {
	case "":
		cfg.Encoder = EncoderChromium
	case EncoderChromium, EncoderWasm:
	default:
		return nil, fmt.Errorf("raster: PNG encoder %q: use %s or %s", cfg.Encoder, EncoderChromium, EncoderWasm)
	}
	path, err := findChromium(cfg.Chromium)
	if err != nil {
		return nil, err
	}
	env := os.Environ()
	if cfg.FontConfig != "" {
		if _, err := os.Stat(cfg.FontConfig); err != nil {
			return nil, fmt.Errorf("raster: fontconfig file: %w", err)
		}
		env = append(env, "FONTCONFIG_FILE="+cfg.FontConfig)
	}
	tp := cfg.Tracer
	if tp == nil {
		tp = noop.NewTracerProvider()
	}
	p := &Pool{cfg: cfg, log: log, exec: path, env: env, tracer: tp.Tracer("chartd.dev/libs/raster"),
		browsers: map[*browser]struct{}{}, quit: make(chan struct{})}
	return p, nil
}

// findChromium resolves the browser binary, with an error that says what
// to install.
func findChromium(name string) (string, error) {
	candidates := []string{name}
	if name == "" {
		// Debian's /usr/bin/chromium is a shell wrapper that costs a
		// second per start and adds flags of its own: use the binary.
		candidates = []string{"/usr/lib/chromium/chromium", "chromium", "chromium-browser", "google-chrome", "chrome"}
	}
	for _, c := range candidates {
		if p, err := exec.LookPath(c); err == nil {
			return p, nil
		}
	}
	if name != "" {
		return "", fmt.Errorf("raster: Chromium %q not found: install it (Debian: apt-get install chromium) or point -render.chromium at it", name)
	}
	return "", errors.New("raster: Chromium not found on PATH: PNG needs it; install it (Debian: apt-get install chromium, which `make run` does) or set -render.chromium")
}

// Start launches the browsers and warms their tabs; it returns when every
// tab is ready, or with the first browser's start error.
func (p *Pool) Start(ctx context.Context) error {
	p.mu.Lock()
	if p.started {
		p.mu.Unlock()
		return errors.New("raster: pool already started")
	}
	p.started = true
	dir := p.cfg.TempDir
	if dir == "" {
		// What a killed process of ours left behind goes first.
		if n := SweepStale(os.TempDir(), tempPrefix); n > 0 {
			p.log.Info("removed the temporary folders of pools whose process is gone", "folders", n)
		}
		d, err := MakeTempDir(tempPrefix)
		if err != nil {
			p.mu.Unlock()
			return fmt.Errorf("raster: temp dir: %w", err)
		}
		dir, p.ownDir = d, true
	} else if err := os.MkdirAll(dir, 0o700); err != nil {
		p.mu.Unlock()
		return fmt.Errorf("raster: temp dir: %w", err)
	}
	p.dir = dir
	p.mu.Unlock()

	errs := make(chan error, p.cfg.Browsers)
	for range p.cfg.Browsers {
		go func() { errs <- p.launch(ctx) }()
	}
	var first error
	for range p.cfg.Browsers {
		if err := <-errs; err != nil && first == nil {
			first = err
		}
	}
	if first == nil {
		first = p.checkVersion()
	}
	if first != nil {
		p.Close()
		return first
	}
	p.wg.Add(1)
	go p.upkeep()
	return nil
}

// checkVersion refuses a Chromium other than Config.ChromiumVersion.
func (p *Pool) checkVersion() error {
	want := p.cfg.ChromiumVersion
	if want == "" {
		return nil
	}
	_, got, _ := strings.Cut(p.Version(), "/")
	if got != want && !strings.HasPrefix(got, want+".") {
		return fmt.Errorf("raster: Chromium %s (%s) is not the pinned %s (-render.chromium-version): its pictures would differ from the tested ones; install the pinned package or change the pin", got, p.exec, want)
	}
	return nil
}

// tempPrefix names the pool's own temporary folder (with the owner's pid).
const tempPrefix = "chartd-raster-"

// Ready reports nil once the pool has warm tabs to draw with.
func (p *Pool) Ready() error {
	p.mu.Lock()
	defer p.mu.Unlock()
	if p.closed {
		return ErrClosed
	}
	for b := range p.browsers {
		if b.alive() {
			return nil
		}
	}
	return errors.New("no warm Chromium tab yet: the render pool is starting")
}

// Stats answers the pool's counters.
func (p *Pool) Stats() Stats {
	p.mu.Lock()
	warm := 0
	for b := range p.browsers {
		if b.alive() {
			warm += len(b.tabs)
		}
	}
	p.mu.Unlock()
	by := make(map[string]int64, len(Causes))
	for i, c := range Causes {
		by[c] = p.causes[i].Load()
	}
	return Stats{RestartsBy: by, Renders: p.stats.renders.Load(), Replayed: p.stats.replayed.Load(), Retries: p.stats.retries.Load(), Failures: p.stats.failures.Load(),
		Busy: p.stats.busy.Load(), Restarts: p.stats.restarts.Load(), Warm: warm,
		TabRestarts: p.stats.tabRestarts.Load(), Refused: p.stats.refused.Load(),
		Tabs: p.cfg.Browsers * p.cfg.Tabs, Queue: int(max(p.waiting.Load(), 0)), BusyTabs: int(p.drawing.Load()),
		P95: p.recent.p95()}
}

// RSS is the memory the pool's live browsers hold of their own, all their
// processes included (see rssBytes: anonymous and shared-memory pages,
// proportionally, without the file pages every Chromium shares).
func (p *Pool) RSS() int64 {
	p.mu.Lock()
	dirs := make([]string, 0, len(p.browsers))
	for b := range p.browsers {
		dirs = append(dirs, b.dir)
	}
	p.mu.Unlock()
	var total int64
	for _, d := range dirs {
		total += rssBytes(d)
	}
	return total
}

// BrowserRSS is RSS per live browser, oldest first: which one grows.
func (p *Pool) BrowserRSS() []int64 {
	p.mu.Lock()
	bs := make([]*browser, 0, len(p.browsers))
	for b := range p.browsers {
		bs = append(bs, b)
	}
	p.mu.Unlock()
	slices.SortFunc(bs, func(a, b *browser) int { return a.id - b.id })
	out := make([]int64, len(bs))
	for i, b := range bs {
		out[i] = rssBytes(b.dir)
	}
	return out
}

// Version is the product Chromium reports (HeadlessChrome/131.0...),
// empty before a browser has started.
func (p *Pool) Version() string {
	v, _ := p.version.Load().(string)
	return v
}

// Render draws one job into a PNG. A picture whose cost (CostOf) is over
// the drawing budget is refused with a *TooHeavyError before any tab is
// spent on it. A browser or renderer that goes away under it is replaced
// and the job retried on fresh tabs while the deadline lasts; when those
// fail too the error wraps ErrUnavailable. Other failures are retried
// once on another tab. ErrBusy means no tab came free within the
// deadline; a *DrawError or *TooHeavyError is the picture's own fault.
// A caller that leaves gets its context's error at once; the drawing is
// finished or cancelled off its path and costs no browser.
func (p *Pool) Render(ctx context.Context, j Job) ([]byte, error) {
	if j.Scale == 0 {
		j.Scale = 1
	}
	if j.Width < 1 || j.Height < 1 || j.Scale < 1 {
		return nil, fmt.Errorf("raster: size %d×%d at scale %d", j.Width, j.Height, j.Scale)
	}
	if err := CheckCost(j, p.budget()); err != nil {
		p.stats.refused.Add(1)
		return nil, err
	}
	start := time.Now()
	// A tab whose renderer crashed, or whose browser went away under the
	// drawing (killed, crashed, retired as broken), is no fault of the
	// picture: such failures are retried on fresh tabs while the deadline
	// lasts, and one kill can take several tabs' renderers or a browser
	// with all its tabs, so up to every tab and a relaunched browser.
	// Other failures are retried once.
	transients, retried := 0, false
	var gone error // the last transient failure
	for {
		png, err := p.renderOnce(ctx, j)
		if err == nil {
			p.stats.renders.Add(1)
			p.recent.add(time.Since(start))
			return png, nil
		}
		var de *DrawError
		var th *TooHeavyError
		transient := errors.Is(err, errTabCrashed) || errors.Is(err, errBrowserGone)
		switch {
		case errors.As(err, &th):
			p.stats.refused.Add(1)
			p.stats.failures.Add(1)
			return nil, err
		case ctx.Err() != nil, errors.Is(err, ErrClosed), errors.As(err, &de):
			p.stats.failures.Add(1)
			return nil, err
		case errors.Is(err, ErrBusy):
			p.stats.failures.Add(1)
			if gone != nil {
				// No fresh tab came after the browser went away.
				return nil, fmt.Errorf("%w: no fresh tab within %s after: %w", ErrUnavailable, p.cfg.Deadline, gone)
			}
			return nil, err
		case transient && p.isClosed():
			p.stats.failures.Add(1)
			return nil, fmt.Errorf("%w: %w", ErrClosed, err)
		case transient && transients < p.cfg.Browsers*p.cfg.Tabs+1 && time.Since(start) < p.cfg.Deadline:
			transients++
			gone = err
			p.stats.retries.Add(1)
			p.log.Info("the browser went away under a render; retrying on a fresh tab", "err", err, "retry", transients)
		case transient:
			p.stats.failures.Add(1)
			return nil, fmt.Errorf("%w: %d fresh tabs failed the same way within %s: %w", ErrUnavailable, transients, p.cfg.Deadline, err)
		case !retried:
			retried = true
			p.stats.retries.Add(1)
			p.log.Warn("render failed on a browser; retrying on another tab", "err", err)
		default:
			p.stats.failures.Add(1)
			return nil, err
		}
	}
}

// budget is the drawing time a picture's estimate may reach: well under
// the deadline, since the estimate is of an unloaded tab.
func (p *Pool) budget() time.Duration { return Budget(p.cfg.Deadline) }

// Budget is the drawing time a picture's cost estimate may reach under a
// render deadline, so a caller can refuse a picture before spending
// anything on it (the render service checks before it counts).
func Budget(deadline time.Duration) time.Duration { return deadline * 2 / 5 }

// bigPicture is the SVG plus pixel bytes past which a render counts as
// big: the upkeep hands this process's freed memory back after it.
const bigPicture = 16 << 20

// drawn is the end of one drawing on a tab.
type drawn struct {
	png      []byte
	replayed bool
	err      error
}

// renderOnce takes a tab and draws on it. The drawing runs under the
// tab's own context, bounded by the deadline, not under the caller's: a
// caller that leaves is answered at once and the tab is settled by
// abandon.
func (p *Pool) renderOnce(ctx context.Context, j Job) ([]byte, error) {
	qctx, qspan := p.tracer.Start(ctx, "raster.queue_wait")
	t, err := p.acquire(qctx)
	endSpan(qspan, err)
	if err != nil {
		return nil, err
	}
	p.drawing.Add(1)
	_, dspan := p.tracer.Start(ctx, "raster.draw", trace.WithAttributes(browserAttr(t.b.id)))
	start := time.Now()
	t.used.Store(start.UnixNano())
	p.lastUse.Store(start.UnixNano())
	callCtx, cancel := context.WithTimeout(t.ctx, p.cfg.Deadline)
	done := make(chan drawn, 1)
	go func() {
		png, replayed, err := t.draw(callCtx, j)
		done <- drawn{png, replayed, err}
	}()
	select {
	case d := <-done:
		endSpan(dspan, d.err)
		cancel()
		p.drawing.Add(-1)
		if len(j.SVG)+j.Width*j.Height*j.Scale*j.Scale*4 > bigPicture {
			p.bigDrawn.Add(1)
		}
		if d.replayed {
			p.stats.replayed.Add(1)
		}
		return d.png, p.settle(t, j, d.err)
	case <-ctx.Done():
		endSpan(dspan, ctx.Err())
		go p.abandon(t, j, time.Since(start), done, cancel)
		return nil, fmt.Errorf("draw: the caller left: %w", ctx.Err())
	}
}

// abandonGrace is how long a drawing whose caller left may go on before
// its tab is replaced instead: about ten ordinary renders. A new tab
// costs a few hundred ms of CPU (its warm-up renders), less than a heavy
// picture left to finish.
const abandonGrace = 200 * time.Millisecond

// abandon settles a tab whose caller left mid-draw: a drawing expected to
// end soon is awaited and the tab goes back; a longer one is cancelled by
// closing the tab, whose renderer stops with it, and a new tab of the same
// browser takes its place. Either way the browser stays.
func (p *Pool) abandon(t *tab, j Job, ran time.Duration, done <-chan drawn, cancel context.CancelFunc) {
	defer p.drawing.Add(-1)
	defer cancel()
	if left := CostOf(j.SVG, j.Width, j.Height, j.Scale).Estimate() - ran; left < abandonGrace {
		timer := time.NewTimer(abandonGrace)
		defer timer.Stop()
		select {
		case d := <-done:
			p.settle(t, j, d.err)
			return
		case <-timer.C:
		}
	}
	cancel()
	<-done
	p.replaceTab(t, "its caller left a long drawing")
}

// settle gives the tab back after a drawing ended with err, and answers
// the error the caller sees. A picture's own fault keeps the tab; a
// drawing past the deadline on a browser that still answers is the
// picture's too (a *TooHeavyError), and only its tab is replaced; a
// browser that does not answer is retired.
func (p *Pool) settle(t *tab, j Job, err error) error {
	var de *DrawError
	switch {
	case err == nil, errors.As(err, &de):
		p.release(t)
		return err
	case !t.b.alive():
		// Retired or dead under the drawing: its tabs are dropped.
		t.b.tabDone()
		return fmt.Errorf("%w: %w", errBrowserGone, err)
	}
	if herr := t.b.healthy(); herr != nil {
		p.retire(t.b, "render failed ("+err.Error()+") and the browser is broken: "+herr.Error())
		t.b.tabDone()
		return fmt.Errorf("%w (%v): %w", errBrowserGone, herr, err)
	}
	p.replaceTab(t, "render failed: "+err.Error())
	if errors.Is(err, context.DeadlineExceeded) {
		return &TooHeavyError{Cost: CostOf(j.SVG, j.Width, j.Height, j.Scale), Budget: p.cfg.Deadline, Ran: true}
	}
	return err
}

// acquire waits for an idle tab of a live browser, up to the deadline.
func (p *Pool) acquire(ctx context.Context) (*tab, error) {
	if n := p.waiting.Add(1); n > int64(p.cfg.Queue)+int64(p.cfg.Browsers*p.cfg.Tabs) {
		p.waiting.Add(-1)
		p.stats.busy.Add(1)
		return nil, ErrBusy
	}
	defer p.waiting.Add(-1)
	end := time.Now().Add(p.cfg.Deadline)
	for {
		t, ok, err := p.idle.get(ctx, time.Until(end))
		switch {
		case err != nil:
			return nil, err
		case !ok:
			p.stats.busy.Add(1)
			return nil, ErrBusy
		case t.b.alive() && t.crashed.Err() != nil:
			// Its renderer died while it was idle: a new tab takes its
			// place.
			p.replaceTab(t, "its renderer crashed")
			continue
		case t.b.alive():
			return t, nil
		}
		// A tab of a browser that died or is retiring: drop it.
		t.b.tabDone()
		if p.isClosed() {
			return nil, ErrClosed
		}
	}
}

// release gives a tab back, or retires its browser once it has drawn its
// share. The periodic upkeep runs off the request's path: a memory reading
// every memCheckEvery renders (a scan of /proc that needs no tab, so the
// tab goes straight back), and a tidy every tidyEvery, on its own goroutine
// holding the tab: the renders meanwhile go to the other tabs, which the
// upkeep keeps warm (keepWarm).
func (p *Pool) release(t *tab) {
	b := t.b
	n := b.renders.Add(1)
	if p.cfg.RecycleRenders > 0 && n >= int64(p.cfg.RecycleRenders) {
		p.retire(b, "recycled after its renders")
	}
	if p.cfg.RecycleMiB > 0 && n%memCheckEvery == 0 && b.alive() {
		go p.checkMemory(b)
	}
	if n%tidyEvery == 0 && b.alive() {
		go p.tidy(t)
		return
	}
	p.requeue(t)
}

// memCheckEvery is how many renders of a browser pass between readings
// of its memory against RecycleMiB.
const memCheckEvery = 50

// checkMemory retires a browser whose processes hold more than RecycleMiB.
func (p *Pool) checkMemory(b *browser) {
	if rssBytes(b.dir) > int64(p.cfg.RecycleMiB)<<20 {
		p.retire(b, "recycled for its memory")
	}
}

// upkeepEvery is the upkeep's tick: how soon a browser whose helper
// process died is retired, and how often an idle pool is looked after.
const upkeepEvery = time.Second

// memCheckTicks is how many upkeep ticks pass between readings of every
// browser's memory, so that an idle pool sheds memory too.
const memCheckTicks = 5

// upkeep runs until the pool closes. Each tick it retires a browser one
// of whose helper processes (zygote, GPU, utility) is gone, which would
// leave it unable to start a renderer; every memCheckTicks it reads each
// browser's memory against RecycleMiB and tidies the idle tabs of browsers
// that drew a big picture since their last tidy; and after big pictures
// it hands the memory this process freed back to the system.
func (p *Pool) upkeep() {
	defer p.wg.Done()
	ticker := time.NewTicker(upkeepEvery)
	defer ticker.Stop()
	var big int64
	// seen is each browser's render count at the last tidy pass: one
	// that drew nothing since is at rest.
	seen := map[*browser]int64{}
	for tick := 1; ; tick++ {
		select {
		case <-p.quit:
			return
		case <-ticker.C:
		}
		p.mu.Lock()
		bs := make([]*browser, 0, len(p.browsers))
		for b := range p.browsers {
			bs = append(bs, b)
		}
		p.mu.Unlock()
		for _, b := range bs {
			if !b.alive() {
				continue
			}
			if err := b.helpersAlive(); err != nil {
				p.retire(b, err.Error())
				continue
			}
			if tick%memCheckTicks == 0 && p.cfg.RecycleMiB > 0 {
				p.checkMemory(b)
			}
		}
		p.keepWarm()
		if tick%memCheckTicks == 0 {
			quiet := map[*browser]bool{}
			for _, b := range bs {
				n := b.renders.Load()
				quiet[b] = seen[b] == n
				seen[b] = n
			}
			p.tidyIdle(quiet)
			for b := range seen {
				if !b.alive() {
					delete(seen, b)
				}
			}
		}
		if n := p.bigDrawn.Load(); n != big {
			// The SVG literal, the base64 answer and the PNG of a big
			// picture are tens of MiB this process would otherwise keep
			// until the runtime's scavenger gets to them.
			big = n
			debug.FreeOSMemory()
		}
	}
}

// keepWarm draws a warm-up picture on each idle tab that drew nothing
// for an upkeep tick. With one render at a time, the idle set hands out
// the same tab again and again, and the others go cold; the render that
// lands on one when the hot tab is tidying or busy took 40–90 ms instead
// of 12 (the p99 at c=1). A picture a second costs about 1.5% of a core
// per idle tab, while the pool is in use.
func (p *Pool) keepWarm() {
	now := time.Now()
	if p.lastUse.Load() < now.Add(-keepWarmFor).UnixNano() {
		return
	}
	cold := now.Add(-upkeepEvery).UnixNano()
	for {
		taken := p.idle.takeIf(1, func(t *tab) bool { return t.b.alive() && t.used.Load() < cold })
		if len(taken) == 0 {
			return
		}
		t := taken[0]
		t.used.Store(time.Now().UnixNano())
		ctx, cancel := context.WithTimeout(t.ctx, p.cfg.Deadline)
		i := int(t.used.Load() % 1000)
		_, _, err := t.draw(ctx, Job{SVG: warmSVG(i), Width: 800, Height: 600, Scale: 1, path: warmPath(i)})
		cancel()
		if err != nil {
			p.settle(t, Job{}, err)
			continue
		}
		p.requeue(t)
	}
}

// keepWarmFor is how long after the pool's last render keepWarm goes on:
// a pool at rest draws nothing.
const keepWarmFor = 30 * time.Second

// tidyIdle tidies the idle tabs of browsers at rest (quiet) that drew
// since their tab's last tidy: a pool at rest gives back what big
// pictures left in its pages, and a busy one is not disturbed.
func (p *Pool) tidyIdle(quiet map[*browser]bool) {
	for _, t := range p.idle.takeIf(0, func(t *tab) bool { return quiet[t.b] && t.b.alive() && t.b.renders.Load() != t.tidied.Load() }) {
		p.tidy(t)
	}
}

// tidy tidies the tab, then gives it back.
func (p *Pool) tidy(t *tab) {
	if t.b.alive() {
		t.tidied.Store(t.b.renders.Load())
		if err := t.tidy(); err != nil {
			p.retire(t.b, "tidy failed: "+err.Error())
		}
	}
	p.requeue(t)
}

// requeue puts a tab back in the idle set, or drops it when its browser is
// retiring or gone.
func (p *Pool) requeue(t *tab) {
	if !t.b.alive() {
		t.b.tabDone()
		return
	}
	p.idle.put(t)
}

// tidyAll tidies every tab, taking each in turn as a render would: what a
// browser holds after it is the memory it retains, not caches it would
// drop under pressure.
func (p *Pool) tidyAll(ctx context.Context) error {
	var held []*tab
	defer func() {
		for _, t := range held {
			p.idle.put(t)
		}
	}()
	for range p.cfg.Browsers * p.cfg.Tabs {
		t, err := p.acquire(ctx)
		if err != nil {
			return err
		}
		held = append(held, t)
		if err := t.tidy(); err != nil {
			return err
		}
	}
	return nil
}

func (p *Pool) isClosed() bool {
	p.mu.Lock()
	defer p.mu.Unlock()
	return p.closed
}

// Close stops every browser, kills what is left of their processes and
// removes their directories.
func (p *Pool) Close() error {
	p.mu.Lock()
	if p.closed {
		p.mu.Unlock()
		return nil
	}
	p.closed = true
	close(p.quit)
	bs := make([]*browser, 0, len(p.browsers))
	for b := range p.browsers {
		bs = append(bs, b)
	}
	p.mu.Unlock()
	for _, b := range bs {
		b.stop()
	}
	p.wg.Wait()
	if p.dir != "" {
		// Anything a crash left behind under our directories goes too.
		for _, pid := range ProcsUnder(p.dir) {
			killPid(pid)
		}
		if p.ownDir {
			os.RemoveAll(p.dir)
		}
	}
	return nil
}
