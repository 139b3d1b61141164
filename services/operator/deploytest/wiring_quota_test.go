package deploytest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"

	"chartd.dev/libs/brand/brandtest"
	"chartd.dev/libs/plan"
)

// TestQuotaExactAcrossReplicas runs the distributed release as
// TestWiring does, with 3 gateway pods and 2 render pods counting against
// the one Redis, each gateway at its own address, and a client spraying
// requests over the gateways round robin. None of three allowances may
// admit more than the plan says, whichever replica counts:
//
//   - a free account's requests a minute (a burst of 120, then one per
//     half second), while one gateway is restarted mid-run: the ones
//     admitted stay within the burst plus the refills of the run's time,
//     every answer says the same X-RateLimit-Limit, a 429 says Remaining 0
//     with a Retry-After, and no Remaining is handed out more often than
//     the refills allow (the count goes down once across the replicas);
//   - a free account's monthly images, on distinct pictures drawn by
//     either render pod: exactly 100 answered, the rest
//     image_limit_reached;
//   - a pro account's daily brand lookups, each of another website:
//     exactly 20 looked up, the rest rate_limited.
func TestQuotaExactAcrossReplicas(t *testing.T) {
	began := time.Now()
	root := wiringRoot(t)
	builds := buildBinaries(t, filepath.Join(root, "bin"))
	be := startBackends(t)
	free, pro := plan.LimitsOf(plan.Free), plan.LimitsOf(plan.Pro)
	sites := make([]string, pro.BrandLookups+4)
	hosts := make([]string, len(sites))
	for i := range sites {
		s := brandtest.ServeSite(brandCorpus, "stripe-like")
		t.Cleanup(s.Close)
		sites[i], hosts[i] = s.URL, strings.TrimPrefix(s.URL, "http://")
	}
	c, rel, _, _ := startDistributed(t, root, builds, wiringValueMap(be, strings.Join(hosts, ",")))
	deployment := func(name string) *appsv1.Deployment {
		i := slices.IndexFunc(rel.deployments, func(d *appsv1.Deployment) bool { return d.Name == name })
		if i < 0 {
			t.Fatalf("no Deployment %s", name)
		}
		return rel.deployments[i]
	}
	gwDep := deployment(fullname + "-gateway")
	c.runReplica(t, deployment(rel.fleets[0].Name))
	gws := &gateways{}
	for _, p := range c.pods {
		if p.name == gwDep.Name {
			gws.add(t, p)
		}
	}
	gws.add(t, c.runReplica(t, gwDep))
	gws.add(t, c.runReplica(t, gwDep))
	t.Logf("3 gateways and 2 render pods ready %v after the start", time.Since(began).Round(time.Second))
	keys := accounts(t, c, plan.Free, 2)
	brandKey := accounts(t, c, plan.Pro, 1)[0]

	t.Run("requests a minute, while a gateway restarts", func(t *testing.T) {
		const sent = 260
		var (
			mu       sync.Mutex
			answers  []reply
			lost     []string
			next     atomic.Int64
			answered atomic.Int64
		)
		start := time.Now()
		var wg sync.WaitGroup
		for range 12 {
			wg.Go(func() {
				for next.Add(1) <= sent {
					r, err := gws.send(http.MethodGet, "/api/v1/account", keys[0], nil)
					answered.Add(1)
					mu.Lock()
					if err != nil {
						lost = append(lost, err.Error())
					} else {
						answers = append(answers, r)
					}
					mu.Unlock()
				}
			})
		}
		// One gateway restarts once a third of the requests are answered:
		// out of the rotation, SIGTERM, drained; a new pod takes its place.
		err := wait.PollUntilContextTimeout(context.Background(), 20*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
			return answered.Load() >= sent/3, nil
		})
		if err != nil {
			t.Fatal("the requests made no progress")
		}
		old := gws.remove(2)
		c.retire(t, old)
		gws.add(t, c.runReplica(t, gwDep))
		wg.Wait()
		took := time.Since(start)

		limit := free.RequestsPerMinute
		refills := int(took / (plan.RequestPeriod / time.Duration(limit)))
		ok, limited := 0, 0
		seen := map[int]int{}
		for _, r := range answers {
			if got := r.header.Get("X-RateLimit-Limit"); got != strconv.Itoa(limit) {
				t.Errorf("answer %d says X-RateLimit-Limit %q, want %d", r.status, got, limit)
			}
			rem, err := strconv.Atoi(r.header.Get("X-RateLimit-Remaining"))
			switch {
			case err != nil || rem < 0 || rem >= limit:
				t.Errorf("answer %d says X-RateLimit-Remaining %q", r.status, r.header.Get("X-RateLimit-Remaining"))
			case r.status == http.StatusOK:
				ok++
				seen[rem]++
			case r.status == http.StatusTooManyRequests:
				limited++
				if ra, err := strconv.Atoi(r.header.Get("Retry-After")); rem != 0 || err != nil || ra < 1 || ra > 60 {
					t.Errorf("429 says Remaining %d, Retry-After %q; want 0 and 1..60 s", rem, r.header.Get("Retry-After"))
				}
			default:
				t.Errorf("answer %d: %.200s", r.status, r.body)
			}
		}
		over := ok - (limit + refills)
		t.Logf("%d requests in %v over 3 gateways (one restarted): %d admitted, %d 429, %d without an answer (sent to the stopping gateway, sent again elsewhere: %d); "+
			"the plan allows %d + %d refills: overshoot %d",
			sent, took.Round(100*time.Millisecond), ok, limited, sent-len(answers), gws.retried.Load(), limit, refills, max(over, 0))
		if over > 0 {
			t.Errorf("%d requests admitted, over the %d the plan allows in %v", ok, limit+refills, took)
		}
		if len(lost) > 0 {
			t.Errorf("%d requests got no answer from any gateway; the first: %q", len(lost), lost[:min(3, len(lost))])
		}
		if limited == 0 {
			t.Errorf("no request was refused: the allowance never ran out in %v", took)
		}
		for rem, n := range seen {
			if n > 1+refills {
				t.Errorf("X-RateLimit-Remaining %d was answered %d times, more than once plus the %d refills: the replicas count apart", rem, n, refills)
			}
		}
		if _, ok := seen[0]; !ok {
			t.Errorf("no admitted request said Remaining 0 before the 429s; seen %v", seen)
		}
	})

	t.Run("monthly images on distinct pictures", func(t *testing.T) {
		sent := free.MonthlyImages + 15
		ok, refused, failed := spray(sent, 8, func(i int) (reply, error) {
			body := map[string]any{"type": "bar", "format": "png", "data": "Region,Sales\nNorth,40\nSouth,60",
				"ops": []any{map[string]any{"op": "setTitle", "title": map[string]any{"text": fmt.Sprintf("Picture %d", i)}}}}
			return gws.send(http.MethodPost, "/api/v1/render", keys[1], body)
		}, "image_limit_reached")
		t.Logf("%d distinct pictures over 3 gateways and 2 render pods: %d drawn, %d image_limit_reached; the plan allows %d: overshoot %d",
			sent, ok, refused, free.MonthlyImages, max(ok-free.MonthlyImages, 0))
		if len(failed) > 0 {
			t.Errorf("%d requests failed; the first: %q", len(failed), failed[:min(3, len(failed))])
		}
		if ok != free.MonthlyImages || refused != sent-free.MonthlyImages {
			t.Errorf("%d pictures drawn and %d refused, want exactly %d and %d", ok, refused, free.MonthlyImages, sent-free.MonthlyImages)
		}
	})

	t.Run("daily brand lookups of distinct websites", func(t *testing.T) {
		ok, refused, failed := spray(len(sites), 6, func(i int) (reply, error) {
			return gws.send(http.MethodPost, "/api/v1/brand-palette/extract", brandKey, map[string]any{"url": sites[i]})
		}, "rate_limited")
		t.Logf("%d websites over 3 gateways: %d looked up, %d rate_limited; the plan allows %d: overshoot %d",
			len(sites), ok, refused, pro.BrandLookups, max(ok-pro.BrandLookups, 0))
		if len(failed) > 0 {
			t.Errorf("%d requests failed; the first: %q", len(failed), failed[:min(3, len(failed))])
		}
		if ok != pro.BrandLookups || refused != len(sites)-pro.BrandLookups {
			t.Errorf("%d websites looked up and %d refused, want exactly %d and %d", ok, refused, pro.BrandLookups, len(sites)-pro.BrandLookups)
		}
	})
}

// spray sends n requests, conc at a time, and counts the 200s, the
// refusals with the error code refusal (a 429; rate_limited with a
// Retry-After, as the design says), and the rest as failures.
func spray(n, conc int, send func(i int) (reply, error), refusal string) (ok, refused int, failed []string) {
	var mu sync.Mutex
	var next atomic.Int64
	var wg sync.WaitGroup
	for range conc {
		wg.Go(func() {
			for i := int(next.Add(1)) - 1; i < n; i = int(next.Add(1)) - 1 {
				r, err := send(i)
				var e struct {
					Error struct {
						Code string `json:"code"`
					} `json:"error"`
				}
				mu.Lock()
				switch {
				case err != nil:
					failed = append(failed, err.Error())
				case r.status == http.StatusOK:
					ok++
				case r.status == http.StatusTooManyRequests && json.Unmarshal(r.body, &e) == nil && e.Error.Code == refusal &&
					(refusal != "rate_limited" || r.header.Get("Retry-After") != ""):
					refused++
				default:
					failed = append(failed, fmt.Sprintf("answer %d: %.200s", r.status, r.body))
				}
				mu.Unlock()
			}
		})
	}
	wg.Wait()
	return ok, refused, failed
}

// gateways are the gateway pods' own addresses, as a client that sprays
// over them sees them: round robin, a pod taken out of the rotation
// before it stops, a request whose connection was refused or cut before
// an answer sent again to the next one.
type gateways struct {
	mu      sync.Mutex
	addrs   []string
	pods    []*pod
	next    int
	http    http.Client
	retried atomic.Int64
}

// add puts p's http port in the rotation.
func (g *gateways) add(t *testing.T, p *pod) {
	t.Helper()
	port, err := p.containerPort(intstr.FromString("http"), 0)
	if err != nil {
		t.Fatal(err)
	}
	g.mu.Lock()
	defer g.mu.Unlock()
	g.addrs = append(g.addrs, fmt.Sprintf("127.0.0.1:%d", p.ports[port]))
	g.pods = append(g.pods, p)
}

// remove takes the i-th gateway out of the rotation and answers its pod.
func (g *gateways) remove(i int) *pod {
	g.mu.Lock()
	defer g.mu.Unlock()
	p := g.pods[i]
	g.addrs, g.pods = slices.Delete(g.addrs, i, i+1), slices.Delete(g.pods, i, i+1)
	return p
}

func (g *gateways) pick() string {
	g.mu.Lock()
	defer g.mu.Unlock()
	g.next++
	return g.addrs[g.next%len(g.addrs)]
}

// send sends one request with an API key to the next gateway, and again
// to the next one (up to 5 times) when the connection was refused or cut
// before any answer.
func (g *gateways) send(method, path, key string, body any) (reply, error) {
	var raw []byte
	if body != nil {
		var err error
		if raw, err = json.Marshal(body); err != nil {
			return reply{}, err
		}
	}
	var last error
	for try := range 5 {
		if try > 0 {
			g.retried.Add(1)
		}
		req, err := http.NewRequest(method, "http://"+g.pick()+path, bytes.NewReader(raw))
		if err != nil {
			return reply{}, err
		}
		req.Host = publicHost
		req.Header.Set("Authorization", "Bearer "+key)
		if body != nil {
			req.Header.Set("Content-Type", "application/json")
		}
		resp, err := g.http.Do(req)
		if err != nil {
			if errors.Is(err, syscall.ECONNREFUSED) || errors.Is(err, syscall.ECONNRESET) || errors.Is(err, io.EOF) || isClosedConn(err) {
				last = err
				continue
			}
			return reply{}, err
		}
		b, err := io.ReadAll(resp.Body)
		resp.Body.Close()
		if err != nil {
			return reply{}, fmt.Errorf("reading the answer: %w", err)
		}
		return reply{status: resp.StatusCode, header: resp.Header, body: b}, nil
	}
	return reply{}, fmt.Errorf("no gateway answered: %w", last)
}

// isClosedConn says whether err is a connection the server closed before
// answering (a kept-alive connection to a gateway that stopped).
func isClosedConn(err error) bool {
	var op *net.OpError
	return errors.As(err, &op) || strings.Contains(err.Error(), "server closed idle connection")
}
