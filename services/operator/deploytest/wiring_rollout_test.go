package deploytest

import (
	"context"
	"fmt"
	"io"
	"net"
	"net/http"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	"k8s.io/apimachinery/pkg/util/wait"
)

// endpointLag is how long a terminating pod stays among its Services'
// endpoints after SIGTERM: the time the endpoint removal takes to reach
// kube-proxy and the ingress controller. chartd's -shutdown.delay (the
// chart's shutdownDelaySeconds, 5 s) must cover it; a process that stops
// accepting at once refuses what is sent to it meanwhile.
const endpointLag = 2 * time.Second

// serviceLB stands in for kube-proxy on one Service port: a loopback
// listener that hands each connection to one of the ready endpoints,
// round robin. An endpoint taken out keeps the connections it has, as
// conntrack keeps them; a connection to an endpoint that refuses is
// closed, as the client of a real Service sees it.
type serviceLB struct {
	ln       net.Listener
	mu       sync.Mutex
	backends []string
	next     int
	// conns counts the connections handed to each endpoint.
	conns map[string]int
}

func newServiceLB(backends ...string) (*serviceLB, error) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	if err != nil {
		return nil, fmt.Errorf("service load balancer: %w", err)
	}
	lb := &serviceLB{ln: ln, backends: backends, conns: map[string]int{}}
	go lb.serve()
	return lb, nil
}

func (lb *serviceLB) addr() string { return lb.ln.Addr().String() }

// Close stops accepting; relayed connections end with their pods.
func (lb *serviceLB) Close() { lb.ln.Close() }

// set adds (ready) or takes out one endpoint.
func (lb *serviceLB) set(backend string, ready bool) {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	lb.backends = slices.DeleteFunc(lb.backends, func(b string) bool { return b == backend })
	if ready {
		lb.backends = append(lb.backends, backend)
	}
}

func (lb *serviceLB) pick() string {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	if len(lb.backends) == 0 {
		return ""
	}
	lb.next++
	b := lb.backends[lb.next%len(lb.backends)]
	lb.conns[b]++
	return b
}

// connections answers how many connections the endpoint was handed.
func (lb *serviceLB) connections(backend string) int {
	lb.mu.Lock()
	defer lb.mu.Unlock()
	return lb.conns[backend]
}

func (lb *serviceLB) serve() {
	for {
		in, err := lb.ln.Accept()
		if err != nil {
			return
		}
		go lb.relay(in.(*net.TCPConn))
	}
}

func (lb *serviceLB) relay(in *net.TCPConn) {
	defer in.Close()
	addr := lb.pick()
	if addr == "" {
		return
	}
	c, err := net.Dial("tcp", addr)
	if err != nil {
		return
	}
	out := c.(*net.TCPConn)
	defer out.Close()
	done := make(chan struct{})
	go func() {
		io.Copy(out, in)
		out.CloseWrite()
		close(done)
	}()
	io.Copy(in, out)
	in.CloseWrite()
	<-done
}

// setEndpoints adds p's ports to (ready) or takes them out of the
// balancers of every Service that selects it, as the endpoints
// controller does.
func (c *cluster) setEndpoints(p *pod, ready bool) error {
	for e, lb := range c.balancers {
		s := c.services[e.service]
		if !selects(s.Spec.Selector, p.labels) {
			continue
		}
		for _, sp := range s.Spec.Ports {
			if sp.Port != e.port {
				continue
			}
			cp, err := p.containerPort(sp.TargetPort, sp.Port)
			if err != nil {
				return fmt.Errorf("Service %s port %d: %w", e.service, e.port, err)
			}
			lb.set(fmt.Sprintf("127.0.0.1:%d", p.ports[cp]), ready)
		}
	}
	return nil
}

// runReplica starts one more pod of d and, once it passes its probes,
// puts it among its Services' endpoints.
func (c *cluster) runReplica(t *testing.T, d *appsv1.Deployment) *pod {
	t.Helper()
	p, err := c.addPod(d)
	if err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	if err := c.start(p); err != nil {
		t.Fatalf("start %s: %v", p.name, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	if err := c.waitProbes(ctx, p, started); err != nil {
		t.Fatal(err)
	}
	if err := c.setEndpoints(p, true); err != nil {
		t.Fatal(err)
	}
	t.Logf("%s ready after %v", p.name, time.Since(started).Round(100*time.Millisecond))
	return p
}

// retire deletes a pod as the kubelet and the endpoints controller do:
// SIGTERM at once, the endpoint removal endpointLag later, then the wait
// for the process to exit within its grace period (reap fails the test
// otherwise, or on a non-zero exit).
func (c *cluster) retire(t *testing.T, p *pod) {
	t.Helper()
	began := time.Now()
	terminate(p)
	select {
	case <-p.done:
	case <-time.After(endpointLag):
	}
	if err := c.setEndpoints(p, false); err != nil {
		t.Fatal(err)
	}
	c.reap(p)
	t.Logf("%s stopped %v after SIGTERM", p.name, time.Since(began).Round(100*time.Millisecond))
}

// loadResult counts the answers of a load.
type loadResult struct {
	mu     sync.Mutex
	ok     int
	failed []string
}

func (r *loadResult) add(what string, err error) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if err != nil {
		r.failed = append(r.failed, what+": "+err.Error())
		return
	}
	r.ok++
}

func (r *loadResult) counts() (int, []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.ok, slices.Clone(r.failed)
}

// getPNG fetches a picture through the visitor's front door and fails
// unless it is a 200 PNG.
func getPNG(ctx context.Context, v *visitor, target string) error {
	if strings.HasPrefix(target, "/") {
		target = "http://" + publicHost + target
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, target, nil)
	if err != nil {
		return err
	}
	if v.key != "" {
		req.Header.Set("Authorization", "Bearer "+v.key)
	}
	resp, err := v.http.Do(req)
	if err != nil {
		return err
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		return fmt.Errorf("reading the answer: %w", err)
	}
	if resp.StatusCode != http.StatusOK || !strings.HasPrefix(string(b), "\x89PNG") {
		return fmt.Errorf("answer %d %q: %.200s", resp.StatusCode, resp.Header.Get("Content-Type"), b)
	}
	return nil
}

// rollRender scales the render Deployment to 2 replicas, then restarts
// both as a rolling update does (maxSurge 1, maxUnavailable 0: a new pod
// ready before an old one is deleted) while clients draw PNGs through
// the gateway and open the image link on /img; no request may fail.
func rollRender(t *testing.T, c *cluster, rel release, api, web *visitor, id, link string) {
	name := rel.fleets[0].Name
	i := slices.IndexFunc(rel.deployments, func(d *appsv1.Deployment) bool { return d.Name == name })
	j := slices.IndexFunc(c.pods, func(p *pod) bool { return p.name == name })
	if i < 0 || j < 0 {
		t.Fatalf("no render Deployment %s running", name)
	}
	d := rel.deployments[i]
	if s := d.Spec.Strategy.RollingUpdate; s != nil && s.MaxUnavailable != nil && s.MaxUnavailable.IntValue() != 0 {
		t.Logf("the render Deployment allows %s unavailable; the restart here keeps every replica", s.MaxUnavailable.String())
	}
	old := []*pod{c.pods[j], c.runReplica(t, d)}

	ctx, cancel := context.WithCancel(context.Background())
	var res loadResult
	var wg sync.WaitGroup
	// Paced under the pro plan's 1200 requests a minute.
	for _, w := range []struct {
		v      *visitor
		target string
	}{{api, "/api/v1/charts/" + id + "/render.png"}, {api, "/api/v1/charts/" + id + "/render.png"}, {web, link}} {
		wg.Go(func() {
			tick := time.NewTicker(200 * time.Millisecond)
			defer tick.Stop()
			for {
				rctx, rcancel := context.WithTimeout(ctx, time.Minute)
				err := getPNG(rctx, w.v, w.target)
				rcancel()
				if ctx.Err() != nil {
					return
				}
				res.add(w.target, err)
				select {
				case <-ctx.Done():
					return
				case <-tick.C:
				}
			}
		})
	}
	stopLoad := func() {
		cancel()
		wg.Wait()
	}
	defer stopLoad()
	// waitAnswers waits for n more successful answers (or the first
	// failure), so each phase runs under load.
	waitAnswers := func(n int) {
		t.Helper()
		start, _ := res.counts()
		err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
			ok, failed := res.counts()
			return ok >= start+n || len(failed) > 0, nil
		})
		if err != nil {
			t.Fatalf("the load made fewer than %d answers in 2 minutes", n)
		}
	}
	waitAnswers(10)
	for _, o := range old {
		c.runReplica(t, d)
		waitAnswers(5)
		c.retire(t, o)
		waitAnswers(5)
	}
	waitAnswers(10)
	stopLoad()
	ok, failed := res.counts()
	t.Logf("rolling restart of 2 render replicas: %d answers, %d failed", ok, len(failed))
	if len(failed) > 0 {
		t.Fatalf("%d of %d requests failed during the rolling restart; the first: %q", len(failed), ok+len(failed), failed[:min(len(failed), 5)])
	}
}
