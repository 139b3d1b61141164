// Package raster turns SVG into PNG with a pool of warm headless Chromium
// tabs (chromedp). Each tab loads one blank page of ours once; a render
// draws the SVG as a data: image onto a canvas in that page and encodes the
// PNG there, so there is no navigation and no compositor frame per render
// and the chart's content can neither run script nor reach the network
// (DESIGN §4). A browser that crashes or hangs is killed with all its
// processes and started again; the render that was on it is retried once on
// another tab. The wait for a tab is bounded: a saturated pool answers
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
	// Tracer makes the spans of the wait for a tab and of the drawing;
	// nil makes none.
	Tracer trace.TracerProvider
}

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
	fs.StringVar(&c.ChromiumVersion, prefix+".chromium-version", c.ChromiumVersion, "Chromium version the pool must run, e.g. 156.0.8078.108 (the image's pinned package); empty: any")
}

// Errors a render can end with.
var (
	// ErrBusy: no tab came free within the deadline, or the queue is full.
	ErrBusy = errors.New("the render fleet is busy")
	// ErrClosed: the pool is shut down.
	ErrClosed = errors.New("the render pool is closed")
)

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
}

// Stats are the pool's counters since it started.
type Stats struct {
	Renders, Retries, Failures, Busy int64
	// Restarts counts browsers started after the first ones: crashes,
	// hangs and recycling; RestartsBy splits them by cause (see Causes).
	Restarts   int64
	RestartsBy map[string]int64
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

	stats   struct{ renders, retries, failures, busy, restarts atomic.Int64 }
	causes  [len(Causes)]atomic.Int64
	tracer  trace.Tracer
	version atomic.Value // string: the browser's product, e.g. HeadlessChrome/131.0.6778.85
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
		browsers: map[*browser]struct{}{}}
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
		d, err := os.MkdirTemp("", "chartd-raster-")
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
	return Stats{RestartsBy: by, Renders: p.stats.renders.Load(), Retries: p.stats.retries.Load(), Failures: p.stats.failures.Load(),
		Busy: p.stats.busy.Load(), Restarts: p.stats.restarts.Load(), Warm: warm,
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

// Render draws one job into a PNG. A browser failing under it is replaced
// and the job retried once on another tab; ErrBusy means no tab came free
// within the deadline; a *DrawError is the picture's own fault.
func (p *Pool) Render(ctx context.Context, j Job) ([]byte, error) {
	if j.Scale == 0 {
		j.Scale = 1
	}
	if j.Width < 1 || j.Height < 1 || j.Scale < 1 {
		return nil, fmt.Errorf("raster: size %d×%d at scale %d", j.Width, j.Height, j.Scale)
	}
	start := time.Now()
	for attempt := 0; ; attempt++ {
		png, err := p.renderOnce(ctx, j)
		if err == nil {
			p.stats.renders.Add(1)
			p.recent.add(time.Since(start))
			return png, nil
		}
		var de *DrawError
		if attempt > 0 || errors.Is(err, ErrBusy) || errors.Is(err, ErrClosed) || errors.As(err, &de) || ctx.Err() != nil {
			p.stats.failures.Add(1)
			return nil, err
		}
		p.stats.retries.Add(1)
		p.log.Warn("render failed on a browser; retrying on another tab", "err", err)
	}
}

// renderOnce takes a tab, draws on it and gives the tab back (or retires
// its browser when the tab failed).
func (p *Pool) renderOnce(ctx context.Context, j Job) ([]byte, error) {
	qctx, qspan := p.tracer.Start(ctx, "raster.queue_wait")
	t, err := p.acquire(qctx)
	endSpan(qspan, err)
	if err != nil {
		return nil, err
	}
	p.drawing.Add(1)
	dctx, dspan := p.tracer.Start(ctx, "raster.draw", trace.WithAttributes(browserAttr(t.b.id)))
	png, err := t.render(dctx, j, p.cfg.Deadline)
	endSpan(dspan, err)
	p.drawing.Add(-1)
	var de *DrawError
	switch {
	case err == nil, errors.As(err, &de):
		p.release(t)
	case ctx.Err() != nil && !t.b.alive():
		// The caller left and the browser is gone anyway.
	case ctx.Err() != nil:
		// The caller gave up; the tab may still be busy drawing. A
		// browser with a tab in an unknown state is replaced.
		p.retire(t.b, "render abandoned mid-draw")
	default:
		p.retire(t.b, "render failed: "+err.Error())
	}
	return png, err
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
// holding the tab.
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

// tidy tidies the tab, then gives it back.
func (p *Pool) tidy(t *tab) {
	if t.b.alive() {
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
