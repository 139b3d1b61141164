package deploytest

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"os"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"sigs.k8s.io/controller-runtime/pkg/client"

	"chartd.dev/services/operator/api/v1alpha1"
	"chartd.dev/services/operator/internal/controller"
)

const (
	// fleetLoad is the load's concurrency: that many PNG requests in
	// flight at all times, each of a picture never drawn before. One pod
	// of one tab draws one at a time, so the rest queue on it; the
	// operator, asked for one drawing per pod (targetQueuePerPod 0), wants
	// fleetLoad pods.
	fleetLoad = 3
	// fleetAccounts spread the load over pro accounts, each allowed 1,200
	// requests a minute and 1,000 pictures a month.
	fleetAccounts = 10
	// baselineRequests are drawn one at a time on the one unloaded pod,
	// for the p99 the grown fleet is held to.
	baselineRequests = 40
	// grownRequests are the answers measured once the fleet has grown.
	grownRequests = 100
	// fleetChart is where -update writes the timeline, drawn by chartd.
	fleetChart = repoRoot + "/docs/img/fleet-autoscale.png"
)

// TestFleetAutoscales runs the distributed release as TestWiring does —
// the operator on a real API server, every pod a process made from its
// rendered Deployment — with a RenderFleet of minReplicas 1, maxReplicas
// 4, one tab a pod, a poll every 2 seconds and a 6-second scale-down
// window. The test stands in for the Deployment controller and the
// kubelet of the render fleet: it follows the replica count the operator
// writes, starts each new pod, reports it in the API server as Ready
// (with the address the operator reads its fleet stats on) and puts it
// among the Service's endpoints once it passes its probes; a pod taken
// away is deleted, sent SIGTERM and drained. First a baseline of PNGs is
// drawn one at a time on the one pod; then a load of distinct PNGs, more
// at once than one pod draws, runs until the fleet has grown to at least
// 3 ready pods, each handed a connection by the Service, and served
// grownRequests more; then it stops and the fleet must shrink back to 1;
// every pod taken away must have had a connection. No request may fail; a 429 with
// Retry-After is an honest answer but must stay within 5 % once grown;
// the grown fleet's p99 must be at most half that of the one pod under
// the same load, measured in the same run on the same machine (its ratio
// to one unloaded pod's p99 is logged: the pods share this machine's
// cores, so the grown fleet draws no faster than one pod, it only takes
// the queue away). The timeline is logged; with -update it is drawn by
// the release's own render fleet as a line chart into docs/img.
func TestFleetAutoscales(t *testing.T) {
	began := time.Now()
	root := wiringRoot(t)
	builds := buildBinaries(t, filepath.Join(root, "bin"))
	be := startBackends(t)
	v := wiringValueMap(be, "")
	delete(v, "brand")
	v["render"] = map[string]any{"minReplicas": 1, "maxReplicas": 4, "tabsPerPod": 1, "targetQueuePerPod": 0,
		"pollInterval": "2s", "scaleDownStabilization": "6s",
		// Chromium warms up beside the load on a shared 2-core machine.
		"extraArgs": []any{"-render.start-timeout=2m"}}
	c, rel, kc, front := startDistributed(t, root, builds, v)
	fleet := rel.fleets[0].Name
	k := newFleetKubelet(t, c, kc, fleet)
	t.Logf("%d pods ready %v after the start", len(c.pods), time.Since(began).Round(time.Second))

	keys := proAccounts(t, c, fleetAccounts)
	visitors := make([]*visitor, len(keys))
	for i, key := range keys {
		visitors[i] = newVisitor(t, front, key)
	}
	var seq atomic.Int64
	draw := func(ctx context.Context) answer {
		n := seq.Add(1)
		return drawDistinct(ctx, visitors[n%int64(len(visitors))], n)
	}

	// The unloaded pod, one PNG at a time.
	var base []time.Duration
	for range baselineRequests {
		a := draw(context.Background())
		if a.status != http.StatusOK {
			t.Fatalf("baseline PNG: %s", a.failure)
		}
		base = append(base, a.end.Sub(a.start))
	}
	baseP99 := percentile(base, 99)
	t.Logf("one unloaded pod, %d PNGs one at a time: p50 %v, p99 %v", len(base), percentile(base, 50), baseP99)

	var inFlight atomic.Int32
	tl := startTimeline(kc, fleet, k, &inFlight)
	ctx, stopLoad := context.WithCancel(context.Background())
	var res fleetResult
	var wg sync.WaitGroup
	for range fleetLoad {
		wg.Go(func() {
			for ctx.Err() == nil {
				inFlight.Add(1)
				a := draw(ctx)
				inFlight.Add(-1)
				if ctx.Err() != nil && a.status == 0 {
					return
				}
				res.add(a)
			}
		})
	}
	stop := func() {
		stopLoad()
		wg.Wait()
	}
	defer stop()
	loadAt := time.Now()
	tl.mark("load starts")

	var grownAt time.Time
	err := wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		k.sync(t)
		if res.failures() > 0 {
			return false, errors.New("a request failed")
		}
		// Grown: 3 pods ready, each handed a connection by the Service
		// (the gateway's older connections end within -max-conn-age).
		if grownAt.IsZero() && k.ready.Load() >= 3 && k.allServed(t) {
			grownAt = time.Now()
			tl.mark(fmt.Sprintf("%d pods ready, each with a connection", k.ready.Load()))
		}
		return !grownAt.IsZero() && res.okSince(grownAt) >= grownRequests, nil
	})
	stop()
	loadEnd := time.Now()
	tl.mark("load stops")
	if err != nil {
		t.Errorf("the fleet did not grow to 3 ready pods and serve %d PNGs within 2 minutes of load (%d ready, %d served since): %v",
			grownRequests, k.ready.Load(), res.okSince(grownAt), err)
	}
	singleP99 := percentile(res.latencies(loadAt, firstNonZero(k.secondReady, loadEnd)), 99)

	// The load is gone: the fleet must shrink back to one pod, each pod
	// drained.
	err = wait.PollUntilContextTimeout(context.Background(), 250*time.Millisecond, 2*time.Minute, true, func(context.Context) (bool, error) {
		return k.sync(t) == 1 && len(k.pods) == 1 && len(k.starting) == 0, nil
	})
	shrunk := time.Now()
	tl.mark("1 pod")
	rows := tl.stop()
	t.Logf("timeline (s since the load began: load in flight, queue+drawing on the fleet, replicas asked, pods ready):\n%s", tl.text(loadAt))
	if err != nil {
		t.Errorf("the fleet did not shrink back to 1 pod within 2 minutes of the load's end (replicas %d): %v", k.sync(t), err)
	}

	ok, busy, failed := res.counts(time.Time{})
	gOK, gBusy, _ := res.counts(grownAt)
	grownP99 := percentile(res.latencies(grownAt, loadEnd), 99)
	t.Logf("load: %d answers: %d PNGs, %d 429 with Retry-After, %d failed; once grown (%v after the load began): %d PNGs, %d 429; "+
		"p99 %v on one pod under the load, %v grown (p50 %v), %v unloaded (%.1f×); max %d pods ready; back to 1 pod %v after the load stopped",
		ok+busy+len(failed), ok, busy, len(failed), grownAt.Sub(loadAt).Round(100*time.Millisecond), gOK, gBusy,
		singleP99, grownP99, percentile(res.latencies(grownAt, loadEnd), 50), baseP99, float64(grownP99)/float64(max(baseP99, 1)),
		k.maxReady, shrunk.Sub(loadEnd).Round(100*time.Millisecond))
	if len(failed) > 0 {
		t.Errorf("%d requests failed; the first: %q", len(failed), failed[:min(len(failed), 5)])
	}
	if k.maxReady < 3 {
		t.Errorf("the fleet reached %d ready pods, want at least 3", k.maxReady)
	}
	if gOK+gBusy > 0 && gBusy*20 > gOK+gBusy {
		t.Errorf("%d of %d answers once grown were 429, over 5 %%", gBusy, gOK+gBusy)
	}
	// The fleet's pods share this machine's 2 cores, so the grown fleet
	// draws no faster than one pod; what it takes away is the queue on
	// the one tab, which made one pod under this load slow.
	if !grownAt.IsZero() && 2*grownP99 > singleP99 {
		t.Errorf("p99 once grown %v, over half that of one pod under the same load (%v)", grownP99, singleP99)
	}
	t.Logf("connections the render Service handed each pod taken away: %v", k.served)
	for name, n := range k.served {
		if n == 0 {
			t.Errorf("render pod %s took no connection through the Service", name)
		}
	}
	if *update && !t.Failed() {
		writeTimelineChart(t, visitors[0], rows, loadAt, loadEnd)
	}
}

// startDistributed runs the release of values v as TestWiring does: the
// operator on a real API server (it keeps running until the test ends,
// and answers the API server's admin client), every other Deployment a
// pod of this machine, and a front proxy from the rendered Ingress.
func startDistributed(t *testing.T, root string, builds <-chan binaries, v map[string]any) (*cluster, release, client.Client, *frontProxy) {
	t.Helper()
	files, err := renderChart(t, marshalValues(t, v), wiringNamespace)
	if err != nil {
		t.Fatalf("render the chart: %v", err)
	}
	s := newScheme(t)
	rel := readRelease(t, decodeStrict(t, s, documents(files)))
	c := newCluster(t, rel, root)
	deps, svcs, kc := runOperator(t, s, c, rel, builds)
	// The operator keeps running (runOperator stops it when the test
	// ends); startPods runs the rest.
	for _, p := range slices.Clone(c.pods) {
		c.pods = slices.DeleteFunc(c.pods, func(q *pod) bool { return q == p })
		c.skipped[p.name] = p.labels
	}
	rel.deployments = append(rel.deployments, deps...)
	for _, svc := range svcs {
		rel.services[svc.Name] = svc
	}
	startPods(t, c, rel.deployments)
	routes, err := ingressRoutes(rel.ingresses[0], c.servicePort)
	if err != nil {
		t.Fatal(err)
	}
	front, err := newFrontProxy("Ingress "+rel.ingresses[0].Name, routes, c.endpoints)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(front.Close)
	return c, rel, kc, front
}

// firstNonZero answers a unless it is the zero time, else b.
func firstNonZero(a, b time.Time) time.Time {
	if a.IsZero() {
		return b
	}
	return a
}

// proAccounts makes n pro accounts.
func proAccounts(t *testing.T, c *cluster, n int) []string {
	return accounts(t, c, "pro", n)
}

// accounts makes n accounts of a plan with chartctl in the gateway pod
// and answers their API keys.
func accounts(t *testing.T, c *cluster, plan string, n int) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
	defer cancel()
	var keys []string
	for range n {
		out, err := c.exec(ctx, fullname+"-gateway", "chartctl", "account", "create", "-plan", plan)
		if err != nil {
			t.Fatal(err)
		}
		var acct struct {
			APIKey string `json:"api_key"`
		}
		if err := json.Unmarshal(out, &acct); err != nil || acct.APIKey == "" {
			t.Fatalf("chartctl account create: %v: %s", err, out)
		}
		keys = append(keys, acct.APIKey)
	}
	return keys
}

// answer is one request of a load: when it ran, its status, and what
// was wrong with it, if anything. Status 0 is a request that got no
// answer.
type answer struct {
	start, end time.Time
	status     int
	failure    string
}

// drawDistinct asks render_image for a bar chart no other n draws (its
// title is "Load n"), as a PNG. A 200 must be a PNG; a 429 must say when
// to come back (Retry-After); anything else is a failure.
func drawDistinct(ctx context.Context, v *visitor, n int64) answer {
	a := answer{start: time.Now()}
	body, _ := json.Marshal(map[string]any{"type": "bar", "format": "png",
		"data": fmt.Sprintf("Region,Sales\nNorth,%d\nSouth,%d\nEast,%d\nWest,%d", 40+n%97, 60+n%89, 80+n%83, 100+n%79),
		"ops":  []any{map[string]any{"op": "setTitle", "title": map[string]any{"text": fmt.Sprintf("Load %d", n)}}}})
	req, err := http.NewRequestWithContext(ctx, http.MethodPost, "http://"+publicHost+"/api/v1/render", bytes.NewReader(body))
	if err != nil {
		a.failure, a.end = err.Error(), time.Now()
		return a
	}
	req.Header.Set("Authorization", "Bearer "+v.key)
	req.Header.Set("Content-Type", "application/json")
	resp, err := v.http.Do(req)
	if err != nil {
		a.failure = err.Error()
		a.end = time.Now()
		return a
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	a.end = time.Now()
	a.status = resp.StatusCode
	switch {
	case err != nil:
		a.failure = fmt.Sprintf("answer %d, reading it: %v", resp.StatusCode, err)
	case resp.StatusCode == http.StatusOK && !bytes.HasPrefix(b, []byte("\x89PNG")):
		a.failure = fmt.Sprintf("answer 200 %q is no PNG: %.100q", resp.Header.Get("Content-Type"), b)
	case resp.StatusCode == http.StatusTooManyRequests:
		if s, err := strconv.Atoi(resp.Header.Get("Retry-After")); err != nil || s < 1 {
			a.failure = fmt.Sprintf("answer 429 without a Retry-After in seconds (%q): %.200s", resp.Header.Get("Retry-After"), b)
		}
	case resp.StatusCode != http.StatusOK:
		a.failure = fmt.Sprintf("answer %d: %.200s", resp.StatusCode, b)
	}
	return a
}

// fleetResult is every answer of a load.
type fleetResult struct {
	mu      sync.Mutex
	answers []answer
}

func (r *fleetResult) add(a answer) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.answers = append(r.answers, a)
}

// failures counts the failed requests so far.
func (r *fleetResult) failures() int {
	_, _, f := r.counts(time.Time{})
	return len(f)
}

// okSince counts the PNGs of the requests sent at or after since.
func (r *fleetResult) okSince(since time.Time) int {
	if since.IsZero() {
		return 0
	}
	ok, _, _ := r.counts(since)
	return ok
}

// counts answers the PNGs, the honest 429s and the failures among the
// requests sent at or after since.
func (r *fleetResult) counts(since time.Time) (ok, busy int, failed []string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, a := range r.answers {
		switch {
		case a.start.Before(since):
		case a.failure != "":
			failed = append(failed, a.failure)
		case a.status == http.StatusOK:
			ok++
		default:
			busy++
		}
	}
	return ok, busy, failed
}

// latencies answers the times of the PNGs whose requests were sent
// within [from, to).
func (r *fleetResult) latencies(from, to time.Time) []time.Duration {
	r.mu.Lock()
	defer r.mu.Unlock()
	var out []time.Duration
	for _, a := range r.answers {
		if a.status == http.StatusOK && a.failure == "" && !a.start.Before(from) && a.start.Before(to) {
			out = append(out, a.end.Sub(a.start))
		}
	}
	return out
}

// percentile answers the p-th percentile of ds (nearest rank), or 0.
func percentile(ds []time.Duration, p int) time.Duration {
	if len(ds) == 0 {
		return 0
	}
	s := slices.Clone(ds)
	slices.Sort(s)
	i := (len(s)*p + 99) / 100
	return s[max(i, 1)-1]
}

// fleetKubelet stands in for the Deployment controller, the kubelet and
// the endpoints controller of one RenderFleet's Deployment: it runs as
// many pods as the Deployment asks for, each reported Ready in the API
// server (its IP loopback, its container ports the loopback ports the
// process listens on, so the operator reads its fleet stats there) and
// put among its Services' endpoints once it passes its probes; a pod
// taken away is deleted, sent SIGTERM, taken out of the endpoints
// endpointLag later and drained.
type fleetKubelet struct {
	c    *cluster
	kc   client.Client
	key  client.ObjectKey
	pods []*pod
	// starting are the pods started and not yet through their probes.
	starting []starting
	// ready counts the pods among the endpoints; the timeline reads it.
	ready    atomic.Int32
	maxReady int32
	// secondReady is when a second pod became ready.
	secondReady time.Time
	// served counts, per pod, the connections its Service handed it.
	served map[string]int
}

// starting is a pod started and waiting for its probes.
type starting struct {
	p       *pod
	started time.Time
	probed  chan error // the probes' outcome
}

func newFleetKubelet(t *testing.T, c *cluster, kc client.Client, fleet string) *fleetKubelet {
	t.Helper()
	k := &fleetKubelet{c: c, kc: kc, key: client.ObjectKey{Namespace: wiringNamespace, Name: fleet}, served: map[string]int{}}
	for _, p := range c.pods {
		if p.labels[controller.FleetLabel] == fleet {
			if err := k.report(p); err != nil {
				t.Fatal(err)
			}
			k.pods = append(k.pods, p)
			k.ready.Add(1)
		}
	}
	if len(k.pods) != 1 {
		t.Fatalf("want the fleet's one pod running, have %d", len(k.pods))
	}
	k.maxReady = 1
	return k
}

// report creates p's Pod in the API server as Ready, as the
// ReplicaSet controller and the kubelet would.
func (k *fleetKubelet) report(p *pod) error {
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	spec := *p.spec.DeepCopy()
	for i := range spec.Containers[0].Ports {
		cp := &spec.Containers[0].Ports[i]
		cp.ContainerPort = int32(p.ports[cp.ContainerPort])
	}
	for _, pr := range []*corev1.Probe{spec.Containers[0].StartupProbe, spec.Containers[0].ReadinessProbe, spec.Containers[0].LivenessProbe} {
		if pr != nil && pr.HTTPGet != nil && pr.HTTPGet.Port.Type == intstr.Int {
			pr.HTTPGet.Port = intstr.FromInt32(int32(p.ports[pr.HTTPGet.Port.IntVal]))
		}
	}
	po := &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: k.key.Namespace, Labels: p.labels}, Spec: spec}
	if err := k.kc.Create(ctx, po); err != nil {
		return fmt.Errorf("create Pod %s: %w", p.name, err)
	}
	po.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "127.0.0.1", PodIPs: []corev1.PodIP{{IP: "127.0.0.1"}},
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue, LastTransitionTime: metav1.Now()}}}
	if err := k.kc.Status().Update(ctx, po); err != nil {
		return fmt.Errorf("report Pod %s ready: %w", p.name, err)
	}
	return nil
}

// balancer answers the Service load balancer of the fleet's http port.
func (k *fleetKubelet) balancer() (*serviceLB, error) {
	for e, lb := range k.c.balancers {
		if e.service == k.key.Name {
			return lb, nil
		}
	}
	return nil, fmt.Errorf("no load balancer for Service %s", k.key.Name)
}

// allServed says whether the Service has handed every ready pod a
// connection.
func (k *fleetKubelet) allServed(t *testing.T) bool {
	t.Helper()
	lb, err := k.balancer()
	if err != nil {
		t.Fatal(err)
	}
	for _, p := range k.pods {
		cp, err := p.containerPort(intstr.FromString(controller.PortName), 0)
		if err != nil {
			t.Fatal(err)
		}
		if lb.connections(fmt.Sprintf("127.0.0.1:%d", p.ports[cp])) == 0 {
			return false
		}
	}
	return true
}

// sync makes the running pods match the Deployment's replicas and
// answers the replicas.
func (k *fleetKubelet) sync(t *testing.T) int32 {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	var d appsv1.Deployment
	if err := k.kc.Get(ctx, k.key, &d); err != nil {
		t.Fatalf("get Deployment %s: %v", k.key, err)
	}
	want := int(*d.Spec.Replicas)
	// Pods start at once, as the ReplicaSet creates them, and each is
	// ready when its probes pass, whatever the others do.
	for range want - len(k.pods) - len(k.starting) {
		p, err := k.c.addPod(&d)
		if err != nil {
			t.Fatal(err)
		}
		started := time.Now()
		if err := k.c.start(p); err != nil {
			t.Fatalf("start %s: %v", p.name, err)
		}
		probed := make(chan error, 1)
		go func() {
			pctx, pcancel := context.WithTimeout(context.Background(), 4*time.Minute)
			defer pcancel()
			probed <- k.c.waitProbes(pctx, p, started)
		}()
		k.starting = append(k.starting, starting{p, started, probed})
	}
	for _, s := range slices.Clone(k.starting) {
		select {
		case err := <-s.probed:
			if err != nil {
				t.Fatal(err)
			}
		default:
			continue
		}
		k.starting = slices.DeleteFunc(k.starting, func(x starting) bool { return x.p == s.p })
		if err := k.report(s.p); err != nil {
			t.Fatal(err)
		}
		if err := k.c.setEndpoints(s.p, true); err != nil {
			t.Fatal(err)
		}
		k.pods = append(k.pods, s.p)
		k.ready.Add(1)
		if len(k.pods) == 2 && k.secondReady.IsZero() {
			k.secondReady = time.Now()
		}
		k.maxReady = max(k.maxReady, k.ready.Load())
		t.Logf("replicas %d: %s ready %v after its start", want, s.p.name, time.Since(s.started).Round(100*time.Millisecond))
	}
	if n := len(k.pods) - want; n > 0 {
		began := time.Now()
		gone := slices.Clone(k.pods[len(k.pods)-n:])
		k.pods = k.pods[:len(k.pods)-n]
		lb, err := k.balancer()
		if err != nil {
			t.Fatal(err)
		}
		for _, p := range gone {
			err := k.kc.Delete(ctx, &corev1.Pod{ObjectMeta: metav1.ObjectMeta{Name: p.name, Namespace: k.key.Namespace}})
			if err != nil && !apierrors.IsNotFound(err) {
				t.Fatalf("delete Pod %s: %v", p.name, err)
			}
			terminate(p)
			k.ready.Add(-1)
		}
		lag := time.NewTimer(endpointLag)
		<-lag.C
		for _, p := range gone {
			if err := k.c.setEndpoints(p, false); err != nil {
				t.Fatal(err)
			}
			cp, err := p.containerPort(intstr.FromString(controller.PortName), 0)
			if err != nil {
				t.Fatal(err)
			}
			k.served[p.name] = lb.connections(fmt.Sprintf("127.0.0.1:%d", p.ports[cp]))
		}
		for _, p := range gone {
			k.c.reap(p)
		}
		t.Logf("replicas %d: %d render pods drained and stopped %v after SIGTERM", want, n, time.Since(began).Round(100*time.Millisecond))
	}
	return int32(want)
}

// timelineRow is one second of the load: requests in flight, the fleet's
// renders waiting and drawing (as the operator last read them), the
// replicas the Deployment asks for and the pods ready.
type timelineRow struct {
	at                    time.Time
	load, queue, replicas int
	ready                 int
	mark                  string
}

// timeline samples the fleet once a second until stopped.
type timeline struct {
	kc    client.Client
	fleet string
	k     *fleetKubelet
	load  *atomic.Int32

	mu    sync.Mutex
	rows  []timelineRow
	marks []timelineRow
	done  chan struct{}
	quit  context.CancelFunc
}

func startTimeline(kc client.Client, fleet string, k *fleetKubelet, load *atomic.Int32) *timeline {
	ctx, quit := context.WithCancel(context.Background())
	tl := &timeline{kc: kc, fleet: fleet, k: k, load: load, done: make(chan struct{}), quit: quit}
	go func() {
		defer close(tl.done)
		tick := time.NewTicker(time.Second)
		defer tick.Stop()
		for ctx.Err() == nil {
			tl.sample(ctx)
			select {
			case <-ctx.Done():
				return
			case <-tick.C:
			}
		}
	}()
	return tl
}

func (tl *timeline) sample(ctx context.Context) {
	row := timelineRow{at: time.Now(), ready: int(tl.k.ready.Load()), load: int(tl.load.Load())}
	var f v1alpha1.RenderFleet
	var d appsv1.Deployment
	key := client.ObjectKey{Namespace: wiringNamespace, Name: tl.fleet}
	if tl.kc.Get(ctx, key, &f) != nil || tl.kc.Get(ctx, key, &d) != nil || d.Spec.Replicas == nil {
		return // stopping: a row of zeros would be no reading
	}
	row.queue, row.replicas = int(f.Status.Queue+f.Status.BusyTabs), int(*d.Spec.Replicas)
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.rows = append(tl.rows, row)
}

// mark notes an event on the timeline.
func (tl *timeline) mark(what string) {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	tl.marks = append(tl.marks, timelineRow{at: time.Now(), mark: what})
}

// stop ends the sampling and answers the rows.
func (tl *timeline) stop() []timelineRow {
	tl.quit()
	<-tl.done
	tl.mu.Lock()
	defer tl.mu.Unlock()
	return slices.Clone(tl.rows)
}

// text is the timeline, a line a second, marks in between.
func (tl *timeline) text(zero time.Time) string {
	tl.mu.Lock()
	defer tl.mu.Unlock()
	all := append(slices.Clone(tl.rows), tl.marks...)
	slices.SortStableFunc(all, func(a, b timelineRow) int { return a.at.Compare(b.at) })
	var b strings.Builder
	for _, r := range all {
		at := r.at.Sub(zero).Seconds()
		if r.mark != "" {
			fmt.Fprintf(&b, "%6.1f  -- %s\n", at, r.mark)
			continue
		}
		fmt.Fprintf(&b, "%6.1f  load %d  queue %d  replicas %d  ready %d\n", at, r.load, r.queue, r.replicas, r.ready)
	}
	return b.String()
}

// writeTimelineChart draws the timeline as a line chart with the
// release's own render_image and writes it to docs/img: the pods asked
// for and ready, and the renders waiting or drawing, a point a second.
func writeTimelineChart(t *testing.T, v *visitor, rows []timelineRow, zero, loadEnd time.Time) {
	t.Helper()
	var csv strings.Builder
	// Pods ready last, drawn over the replicas asked where they agree:
	// where they part, the gap is a pod warming up.
	csv.WriteString("Seconds,Renders waiting or drawing,Replicas asked,Pods ready\n")
	for _, r := range rows {
		fmt.Fprintf(&csv, "%d,%d,%d,%d\n", int(r.at.Sub(zero).Round(time.Second).Seconds()), r.queue, r.replicas, r.ready)
	}
	sub := fmt.Sprintf("%d new PNGs at a time from 0 s to %.0f s, one tab a pod; the operator reads the queue every 2 s and waits 6 s before shrinking",
		fleetLoad, loadEnd.Sub(zero).Seconds())
	got := v.do(t, "POST", "/api/v1/render", map[string]any{"type": "line", "format": "png", "scale": 2, "data": csv.String(),
		"ops": []any{
			map[string]any{"op": "setTitle", "title": map[string]any{"text": "The render fleet grows under load and shrinks after it"}},
			map[string]any{"op": "setSubtitle", "subtitle": map[string]any{"text": sub}},
			map[string]any{"op": "setAxisTitle", "axis": "x", "text": "Seconds since the load began"},
			map[string]any{"op": "setAxis", "axis": "y", "min": 0, "max": 4},
			map[string]any{"op": "setFooter", "footer": map[string]any{"source": "TestFleetAutoscales, services/operator/deploytest"}},
		}})
	if got.status != http.StatusOK || !bytes.HasPrefix(got.body, []byte("\x89PNG")) {
		t.Fatalf("draw the timeline: answer %d: %.300s", got.status, got.body)
	}
	if err := os.WriteFile(fleetChart, got.body, 0o644); err != nil {
		t.Fatal(err)
	}
	t.Logf("wrote %s", fleetChart)
}
