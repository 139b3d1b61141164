package imgbench

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"io"
	"math/rand/v2"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"chartd.dev/libs/testserver"
)

const (
	// accounts × chartsPer × linksPer distinct signed links: each chart's
	// links differ in their expiry, so 100 pictures stand behind 10,000
	// URLs, as a CDN sees a popular chart embedded in many pages.
	accounts, chartsPer, linksPer = 10, 10, 100
	// edge is the CDN edge's concurrency in a burst.
	edge = 64
	// burst is one mixed burst: 80 % repeats with If-None-Match.
	burst = 2000
	// revokeBound is the longest a revoked signing key's links may still
	// answer: revocation reaches every process at once through Redis
	// (docs/decisions/security.md); a second is the slack for a loaded
	// machine.
	revokeBound = time.Second
)

// BenchmarkImgCDN runs one chartd (-target=all: SQLite, images on disk,
// Redis for limits and revocations) and a client behaving like a CDN
// edge in front of it: 10,000 distinct signed links over 100 pictures,
// each picture drawn once, each link opened once, then bursts of
// 2,000 requests at c=64 of which 80 % repeat with If-None-Match (304)
// and 20 % ask again without (a cached 200). Each loop iteration is one
// mixed burst; after the loop a burst of 304s only and one of cached 200s
// only give each answer's own rate. It reports the rates, p99s, CPU time
// of the chartd process per 1,000 requests, and how long after chartctl
// revoked an account's signing key, under that load, its links answered
// 404 (it fails past revokeBound). The per-address and per-link limits
// are lifted: the benchmark measures serving, not them.
func BenchmarkImgCDN(b *testing.B) {
	env := start(b)
	links := env.makeLinks(b)
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: edge, MaxConnsPerHost: edge}, Timeout: time.Minute}
	b.Cleanup(c.CloseIdleConnections)

	// Each picture is drawn once (concurrent first requests of one
	// picture would each draw it: the image cache has no single flight),
	// then the edge fills its cache: every link once, a cached 200 each.
	draw := run(c, links, 8, len(links)/linksPer, func(i int) (int, bool) { return i * linksPer, false })
	if draw.bad > 0 {
		b.Fatalf("drawing each picture once: %d bad answers; the first: %s", draw.bad, draw.first)
	}
	warm := run(c, links, edge, len(links), func(i int) (int, bool) { return i, false })
	if warm.bad > 0 {
		b.Fatalf("opening every link once: %d bad answers; the first: %s", warm.bad, warm.first)
	}
	b.Logf("100 pictures drawn at c=8: %.0f PNG/s; then 10,000 links opened once at c=%d: %.0f/s, p99 %v", draw.rate(), edge, warm.rate(), warm.p99(http.StatusOK))

	rng := rand.New(rand.NewPCG(36, 1))
	mixed := &result{}
	cpu0, ops0 := env.cpu(b), env.redisCommands(b)
	for b.Loop() {
		picks := make([]int, burst)
		conds := make([]bool, burst)
		for i := range picks {
			picks[i], conds[i] = rng.IntN(len(links)), rng.IntN(10) < 8
		}
		mixed.add(run(c, links, edge, burst, func(i int) (int, bool) { return picks[i], conds[i] }))
	}
	cpuMixed, ops := env.cpu(b)-cpu0, env.redisCommands(b)-ops0
	if mixed.bad > 0 {
		b.Fatalf("mixed bursts: %d bad answers; the first: %s", mixed.bad, mixed.first)
	}
	only304 := run(c, links, edge, 10_000, func(i int) (int, bool) { return i, true })
	only200 := run(c, links, edge, 5_000, func(i int) (int, bool) { return (i * 7) % len(links), false })
	for _, r := range []*result{only304, only200} {
		if r.bad > 0 {
			b.Fatalf("%d bad answers; the first: %s", r.bad, r.first)
		}
	}
	b.ReportMetric(only304.rate(), "304/s")
	b.ReportMetric(only200.rate(), "cached200/s")
	b.ReportMetric(ms(only304.p99(http.StatusNotModified)), "p99-304-ms")
	b.ReportMetric(ms(only200.p99(http.StatusOK)), "p99-200-ms")
	b.ReportMetric(mixed.rate(), "mixed/s")
	b.ReportMetric(ms(mixed.p99(http.StatusNotModified)), "mixed-p99-304-ms")
	b.ReportMetric(ms(mixed.p99(http.StatusOK)), "mixed-p99-200-ms")
	b.ReportMetric(float64(cpuMixed.Milliseconds())/float64(mixed.n)*1000, "cpu-ms/1000req")
	b.ReportMetric(float64(ops)/float64(mixed.n), "redis-ops/req")
	b.ReportMetric(0, "ns/op")
	b.Logf("mixed bursts: %d requests (%d 304, %d 200) at %.0f/s, CPU %v; 304 only: %.0f/s p99 %v; cached 200 only: %.0f/s p99 %v",
		mixed.n, len(mixed.lat[http.StatusNotModified]), len(mixed.lat[http.StatusOK]), mixed.rate(), cpuMixed,
		only304.rate(), only304.p99(http.StatusNotModified), only200.rate(), only200.p99(http.StatusOK))

	took, after := env.revokeUnderLoad(b, c, links)
	b.ReportMetric(ms(took), "revoke-404-ms")
	b.Logf("a revoked signing key's links answered 404 %v after chartctl returned, under a mixed load at c=%d (%d 200s after it)", took, edge, after)
	if took > revokeBound {
		b.Errorf("a revoked key's link still answered for %v, past %v", took, revokeBound)
	}
}

// ms is a duration in milliseconds.
func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// link is one signed link, with the ETag the edge keeps for it and the
// account that owns it.
type link struct {
	url, etag string
	account   int
}

// env is the running chartd.
type env struct {
	base, dataDir, redisURL, chartctl string
	cmd                               *exec.Cmd
	accountIDs                        []string
	keys                              []string
}

// start builds chartd and chartctl from this tree, starts Redis and one
// chartd -target=all on a loopback port, and waits for /readyz.
func start(b *testing.B) *env {
	b.Helper()
	dir := b.TempDir()
	for _, bld := range []struct{ dir, pkg, out string }{
		{"../../services/chartd", ".", "chartd"},
		{"..", "./chartctl", "chartctl"},
	} {
		cmd := exec.Command("go", "build", "-o", filepath.Join(dir, bld.out), bld.pkg)
		cmd.Dir = bld.dir
		if out, err := cmd.CombinedOutput(); err != nil {
			b.Fatalf("go build %s: %v\n%s", bld.pkg, err, out)
		}
	}
	rd, err := testserver.StartRedis()
	if err != nil {
		b.Fatalf("Redis: %v", err)
	}
	b.Cleanup(func() { rd.Stop() })
	port, err := testserver.FreePort()
	if err != nil {
		b.Fatal(err)
	}
	addr := fmt.Sprintf("127.0.0.1:%d", port)
	e := &env{base: "http://" + addr, dataDir: filepath.Join(dir, "data"), redisURL: rd.URL(), chartctl: filepath.Join(dir, "chartctl")}
	var logs bytes.Buffer
	e.cmd = exec.Command(filepath.Join(dir, "chartd"), "-target=all", "-addr", addr, "-public-url", e.base, "-data-dir", e.dataDir,
		"-redis-url", e.redisURL, "-log-level=error", "-render.start-timeout=5m",
		"-render.link-rate-address=100000000", "-render.link-rate-link=100000000")
	e.cmd.Stdout, e.cmd.Stderr = &logs, &logs
	if err := e.cmd.Start(); err != nil {
		b.Fatal(err)
	}
	exited := make(chan error, 1)
	go func() { exited <- e.cmd.Wait() }()
	b.Cleanup(func() {
		e.cmd.Process.Signal(os.Interrupt)
		<-exited
	})
	deadline := time.Now().Add(5 * time.Minute)
	for {
		resp, err := http.Get(e.base + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == http.StatusOK {
				break
			}
		}
		select {
		case err := <-exited:
			b.Fatalf("chartd exited: %v\n%s", err, logs.String())
		case <-time.After(100 * time.Millisecond):
		}
		if time.Now().After(deadline) {
			b.Fatalf("chartd not ready in 5 minutes:\n%s", logs.String())
		}
	}
	return e
}

// chartctlJSON runs chartctl on the env's store and Redis and decodes
// its answer.
func (e *env) chartctlJSON(b *testing.B, out any, args ...string) {
	b.Helper()
	cmd := exec.Command(e.chartctl, append([]string{"-data-dir", e.dataDir, "-redis-url", e.redisURL}, args...)...)
	raw, err := cmd.Output()
	if err != nil {
		var stderr []byte
		if ee, ok := err.(*exec.ExitError); ok {
			stderr = ee.Stderr
		}
		b.Fatalf("chartctl %q: %v: %s", args, err, stderr)
	}
	if out != nil {
		if err := json.Unmarshal(raw, out); err != nil {
			b.Fatalf("chartctl %q: %v: %s", args, err, raw)
		}
	}
}

// api sends one JSON request with an API key and decodes a 2xx answer.
func (e *env) api(c *http.Client, key, method, path string, body, out any) error {
	raw, err := json.Marshal(body)
	if err != nil {
		return err
	}
	req, err := http.NewRequest(method, e.base+path, bytes.NewReader(raw))
	if err != nil {
		return err
	}
	req.Header.Set("Authorization", "Bearer "+key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := c.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	got, err := io.ReadAll(resp.Body)
	if err != nil {
		return err
	}
	if resp.StatusCode/100 != 2 {
		return fmt.Errorf("%s %s: answer %d: %.300s", method, path, resp.StatusCode, got)
	}
	return json.Unmarshal(got, out)
}

// makeLinks makes the pro accounts with chartctl, a bar chart per
// account and chart number, and linksPer links of each chart, 16 API
// calls at a time.
func (e *env) makeLinks(b *testing.B) []link {
	b.Helper()
	for range accounts {
		var a struct {
			AccountID string `json:"account_id"`
			APIKey    string `json:"api_key"`
		}
		e.chartctlJSON(b, &a, "account", "create", "-plan", "pro")
		e.accountIDs, e.keys = append(e.accountIDs, a.AccountID), append(e.keys, a.APIKey)
	}
	c := &http.Client{Transport: &http.Transport{MaxIdleConnsPerHost: 16}, Timeout: time.Minute}
	defer c.CloseIdleConnections()
	type job struct{ account, chart, n int }
	links := make([]link, accounts*chartsPer*linksPer)
	var (
		mu    sync.Mutex
		first error
		next  atomic.Int64
		wg    sync.WaitGroup
	)
	ids := make([]string, accounts*chartsPer)
	for i := range ids {
		var ch struct {
			Chart struct {
				ID string `json:"id"`
			} `json:"chart"`
		}
		a := i / chartsPer
		data := fmt.Sprintf("Region,Sales\nNorth,%d\nSouth,%d\nEast,%d\nWest,%d", 40+i, 90+i%13, 60+i%17, 120-i%19)
		if err := e.api(c, e.keys[a], "POST", "/api/v1/charts", map[string]any{"type": "bar", "data": data,
			"ops": []any{map[string]any{"op": "setTitle", "title": map[string]any{"text": fmt.Sprintf("Chart %d", i)}}}}, &ch); err != nil {
			b.Fatal(err)
		}
		ids[i] = ch.Chart.ID
	}
	for range 16 {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < len(links); i = int(next.Add(1)) - 1 {
				chart := i / linksPer
				a := chart / chartsPer
				var got struct {
					URL string `json:"url"`
				}
				err := e.api(c, e.keys[a], "POST", "/api/v1/image-urls", map[string]any{"id": ids[chart], "expires_in": 86400 + 1000*(i%linksPer)}, &got)
				mu.Lock()
				if err != nil && first == nil {
					first = err
				}
				links[i] = link{url: got.URL, account: a}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	if first != nil {
		b.Fatalf("create_image_url: %v", first)
	}
	seen := map[string]bool{}
	for _, l := range links {
		seen[l.url] = true
	}
	if len(seen) != len(links) {
		b.Fatalf("%d distinct links of %d", len(seen), len(links))
	}
	return links
}

// cpu is the chartd process's CPU time so far (user + system), read from
// /proc at 100 ticks a second.
func (e *env) cpu(b *testing.B) time.Duration {
	b.Helper()
	raw, err := os.ReadFile(fmt.Sprintf("/proc/%d/stat", e.cmd.Process.Pid))
	if err != nil {
		b.Fatal(err)
	}
	f := strings.Fields(string(raw[bytes.LastIndexByte(raw, ')')+2:]))
	ut, _ := strconv.ParseInt(f[11], 10, 64)
	st, _ := strconv.ParseInt(f[12], 10, 64)
	return time.Duration(ut+st) * 10 * time.Millisecond
}

// redisCommands is the commands Redis has processed so far (INFO stats:
// total_commands_processed; the INFO itself among them).
func (e *env) redisCommands(b *testing.B) int64 {
	b.Helper()
	u, err := url.Parse(e.redisURL)
	if err != nil {
		b.Fatal(err)
	}
	conn, err := net.DialTimeout("tcp", u.Host, 10*time.Second)
	if err != nil {
		b.Fatal(err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, "*2\r\n$4\r\nINFO\r\n$5\r\nstats\r\n"); err != nil {
		b.Fatal(err)
	}
	r := bufio.NewReader(conn)
	head, err := r.ReadString('\n')
	if err != nil || !strings.HasPrefix(head, "$") {
		b.Fatalf("redis INFO: %q: %v", head, err)
	}
	n, err := strconv.Atoi(strings.TrimSpace(head[1:]))
	if err != nil {
		b.Fatalf("redis INFO: %q", head)
	}
	body := make([]byte, n)
	if _, err := io.ReadFull(r, body); err != nil {
		b.Fatal(err)
	}
	for _, l := range strings.Split(string(body), "\r\n") {
		if v, ok := strings.CutPrefix(l, "total_commands_processed:"); ok {
			c, err := strconv.ParseInt(v, 10, 64)
			if err != nil {
				b.Fatal(err)
			}
			return c
		}
	}
	b.Fatal("redis INFO stats has no total_commands_processed")
	return 0
}

// revokeUnderLoad runs mixed bursts over every account's links but the
// first's, revokes the first account's signing key with chartctl, and
// then opens one of its links until it answers 404: the time from
// chartctl's return to that 404, and the 200s before it.
func (e *env) revokeUnderLoad(b *testing.B, c *http.Client, links []link) (time.Duration, int) {
	b.Helper()
	var others []link
	var victim link
	for _, l := range links {
		if l.account == 0 {
			victim = l
		} else {
			others = append(others, l)
		}
	}
	u, err := url.Parse(victim.url)
	if err != nil {
		b.Fatal(err)
	}
	kid := u.Query().Get("kid")
	ctx, stop := context.WithCancel(context.Background())
	var wg sync.WaitGroup
	wg.Go(func() {
		for ctx.Err() == nil {
			run(c, others, edge, burst, func(i int) (int, bool) { return (i * 13) % len(others), i%5 != 0 })
		}
	})
	defer func() {
		stop()
		wg.Wait()
	}()
	e.chartctlJSON(b, nil, "signing-key", "revoke", "-account", e.accountIDs[0], "-kid", kid)
	revoked := time.Now()
	after := 0
	for {
		status, _, err := get(c, victim.url, "")
		if err != nil {
			b.Fatal(err)
		}
		if status == http.StatusNotFound {
			return time.Since(revoked), after
		}
		after++
		if time.Since(revoked) > time.Minute {
			b.Fatalf("the revoked key's link still answers %d a minute later", status)
		}
	}
}

// result is what a burst got: latencies by status, and the bad answers.
type result struct {
	mu    sync.Mutex
	n     int
	took  time.Duration
	lat   map[int][]time.Duration
	bad   int
	first string
}

func (r *result) add(o *result) {
	if r.lat == nil {
		r.lat = map[int][]time.Duration{}
	}
	r.n += o.n
	r.took += o.took
	for s, l := range o.lat {
		r.lat[s] = append(r.lat[s], l...)
	}
	if r.first == "" {
		r.first = o.first
	}
	r.bad += o.bad
}

func (r *result) rate() float64 { return float64(r.n) / r.took.Seconds() }

func (r *result) p99(status int) time.Duration {
	l := slices.Clone(r.lat[status])
	if len(l) == 0 {
		return 0
	}
	slices.Sort(l)
	return l[(len(l)*99+99)/100-1]
}

// run sends n requests, conc at a time; pick(i) names the i-th request's
// link and whether it carries the link's ETag in If-None-Match. A 304
// must come for a conditional request and a 200 with a body for the rest,
// each with the link's ETag, which the edge keeps.
func run(c *http.Client, links []link, conc, n int, pick func(i int) (int, bool)) *result {
	r := &result{lat: map[int][]time.Duration{}}
	var next atomic.Int64
	var wg sync.WaitGroup
	began := time.Now()
	for range conc {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				j, cond := pick(i)
				l := &links[j]
				inm := ""
				if cond {
					inm = l.etag
				}
				t0 := time.Now()
				status, etag, err := get(c, l.url, inm)
				d := time.Since(t0)
				r.mu.Lock()
				want := http.StatusOK
				if cond && inm != "" {
					want = http.StatusNotModified
				}
				switch {
				case err != nil || status != want || etag == "":
					r.bad++
					if r.first == "" {
						r.first = fmt.Sprintf("%s (If-None-Match %q): %d %v", l.url, inm, status, err)
					}
				default:
					r.lat[status] = append(r.lat[status], d)
					if l.etag == "" {
						l.etag = etag
					}
				}
				r.mu.Unlock()
			}
		})
	}
	wg.Wait()
	r.n, r.took = n, time.Since(began)
	return r
}

// get opens a link, with If-None-Match when inm is set, and reads the
// whole answer.
func get(c *http.Client, u, inm string) (int, string, error) {
	req, err := http.NewRequest(http.MethodGet, u, nil)
	if err != nil {
		return 0, "", err
	}
	if inm != "" {
		req.Header.Set("If-None-Match", inm)
	}
	resp, err := c.Do(req)
	if err != nil {
		return 0, "", err
	}
	defer resp.Body.Close()
	if _, err := io.Copy(io.Discard, resp.Body); err != nil {
		return 0, "", err
	}
	return resp.StatusCode, resp.Header.Get("ETag"), nil
}
