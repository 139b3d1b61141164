// Command loadgen sends a bounded load of HTTP requests to a chartd on this
// machine and reports throughput and latency percentiles. It refuses
// targets off the loopback range: load tests never leave the machine.
package main

import (
	"context"
	"errors"
	"flag"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/signal"
	"slices"
	"strings"
	"sync"
	"syscall"
	"time"
)

func main() {
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	defer stop()
	if err := run(ctx, os.Args[1:], os.Stdout); err != nil {
		fmt.Fprintln(os.Stderr, "loadgen:", err)
		os.Exit(1)
	}
}

// Report is the outcome of one load run.
type Report struct {
	Requests  int
	Errors    int
	Duration  time.Duration
	PerSecond float64
	P50, P99  time.Duration
	Statuses  map[int]int
}

func (r Report) String() string {
	return fmt.Sprintf("requests=%d errors=%d duration=%s rate=%.0f req/s p50=%s p99=%s statuses=%v",
		r.Requests, r.Errors, r.Duration.Round(time.Millisecond), r.PerSecond, r.P50, r.P99, r.Statuses)
}

func run(ctx context.Context, args []string, out io.Writer) error {
	fs := flag.NewFlagSet("loadgen", flag.ContinueOnError)
	target := fs.String("url", "http://127.0.0.1:8080/api/v1/account", "URL to request (loopback only)")
	method := fs.String("method", http.MethodGet, "HTTP method")
	body := fs.String("body", "", "request body (sent as application/json)")
	key := fs.String("key", os.Getenv("CHARTD_API_KEY"), "API key; several, comma-separated, are used in turn (one account's allowance caps a run)")
	conc := fs.Int("c", 16, "concurrent connections")
	dur := fs.Duration("d", 5*time.Second, "how long to send (at most 60s)")
	max := fs.Int("n", 1_000_000, "at most this many requests")
	pairs := fs.String("pairs", "", "file of 'KEY URL' lines used in turn instead of -key/-url (one chart per account, so no account's allowance caps the run)")
	if err := fs.Parse(args); err != nil {
		return err
	}
	if *dur > time.Minute {
		return errors.New("-d: at most 60s")
	}
	u, err := url.Parse(*target)
	if err != nil {
		return fmt.Errorf("-url: %w", err)
	}
	if err := loopbackOnly(u.Hostname()); err != nil {
		return err
	}
	o := Options{URL: *target, Method: *method, Body: *body, Key: *key, Concurrency: *conc, Duration: *dur, MaxRequests: *max}
	if *pairs != "" {
		b, err := os.ReadFile(*pairs)
		if err != nil {
			return err
		}
		for _, line := range strings.Split(strings.TrimSpace(string(b)), "\n") {
			k, u, ok := strings.Cut(strings.TrimSpace(line), " ")
			if !ok {
				return fmt.Errorf("-pairs: line %q is not 'KEY URL'", line)
			}
			pu, err := url.Parse(u)
			if err != nil {
				return err
			}
			if err := loopbackOnly(pu.Hostname()); err != nil {
				return err
			}
			o.Pairs = append(o.Pairs, [2]string{k, u})
		}
	}
	rep, err := Load(ctx, o)
	if err != nil {
		return err
	}
	fmt.Fprintln(out, rep)
	return nil
}

func loopbackOnly(host string) error {
	if host == "localhost" {
		return nil
	}
	ip := net.ParseIP(host)
	if ip == nil || !ip.IsLoopback() {
		return fmt.Errorf("target %q is not a loopback address; load tests stay on this machine", host)
	}
	return nil
}

// Options describe one load run.
type Options struct {
	URL, Method, Body string
	// Key is one API key or several, comma-separated, used in turn.
	Key string
	// Pairs, when set, are (key, URL) pairs used in turn instead.
	Pairs       [][2]string
	Concurrency int
	Duration    time.Duration
	MaxRequests int
}

// Load sends requests from Concurrency workers until Duration passes or
// MaxRequests are sent, and measures each.
func Load(ctx context.Context, o Options) (Report, error) {
	tr := &http.Transport{MaxIdleConnsPerHost: o.Concurrency, MaxConnsPerHost: o.Concurrency}
	client := &http.Client{Transport: tr, Timeout: 10 * time.Second}
	defer tr.CloseIdleConnections()
	ctx, cancel := context.WithTimeout(ctx, o.Duration)
	defer cancel()
	var (
		mu       sync.Mutex
		lat      []time.Duration
		statuses = map[int]int{}
		errs     int
		sent     int
	)
	start := time.Now()
	pairs := o.Pairs
	if len(pairs) == 0 {
		for _, k := range strings.Split(o.Key, ",") {
			pairs = append(pairs, [2]string{k, o.URL})
		}
	}
	var wg sync.WaitGroup
	for range o.Concurrency {
		wg.Add(1)
		go func() {
			defer wg.Done()
			local := make([]time.Duration, 0, 4096)
			for ctx.Err() == nil {
				mu.Lock()
				if sent >= o.MaxRequests {
					mu.Unlock()
					break
				}
				sent++
				pair := pairs[sent%len(pairs)]
				key, target := pair[0], pair[1]
				mu.Unlock()
				var rb io.Reader
				if o.Body != "" {
					rb = strings.NewReader(o.Body)
				}
				req, _ := http.NewRequestWithContext(ctx, o.Method, target, rb)
				if key != "" {
					req.Header.Set("Authorization", "Bearer "+key)
				}
				if o.Body != "" {
					req.Header.Set("Content-Type", "application/json")
				}
				t0 := time.Now()
				resp, err := client.Do(req)
				if err != nil {
					if ctx.Err() == nil {
						mu.Lock()
						errs++
						mu.Unlock()
					}
					continue
				}
				io.Copy(io.Discard, resp.Body)
				resp.Body.Close()
				local = append(local, time.Since(t0))
				mu.Lock()
				statuses[resp.StatusCode]++
				mu.Unlock()
			}
			mu.Lock()
			lat = append(lat, local...)
			mu.Unlock()
		}()
	}
	wg.Wait()
	el := time.Since(start)
	slices.Sort(lat)
	rep := Report{Requests: len(lat), Errors: errs, Duration: el, Statuses: statuses}
	if len(lat) > 0 {
		rep.PerSecond = float64(len(lat)) / el.Seconds()
		rep.P50 = lat[len(lat)*50/100]
		rep.P99 = lat[min(len(lat)*99/100, len(lat)-1)]
	}
	return rep, nil
}
