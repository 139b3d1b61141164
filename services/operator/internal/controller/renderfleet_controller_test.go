package controller

import (
	"context"
	"encoding/json"
	"fmt"
	"net"
	"net/http"
	"net/http/httptest"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	autoscalingv1 "k8s.io/api/autoscaling/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/wait"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"k8s.io/client-go/util/retry"
	clocktesting "k8s.io/utils/clock/testing"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/config"
	metricsserver "sigs.k8s.io/controller-runtime/pkg/metrics/server"

	"chartd.dev/services/operator/api/v1alpha1"
	"chartd.dev/services/operator/internal/fleetstats"
	"chartd.dev/services/operator/internal/kubetest"
)

const token = "test-internal-token-0123456789"

// renderPod stands in for one render pod's fleet-stats endpoint: the pod
// side of the protocol, served on loopback. Its load and memory are set
// by the test.
type renderPod struct {
	srv              *httptest.Server
	queue, busy, rss atomic.Int64
	// growRSS adds this much memory at each reading.
	growRSS atomic.Int64
}

func newRenderPod(t *testing.T) *renderPod {
	p := &renderPod{}
	p.srv = httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		if r.URL.Path != fleetstats.Path || r.Header.Get(fleetstats.TokenHeader) != token {
			http.Error(w, "not found", http.StatusNotFound)
			return
		}
		rss := p.rss.Add(p.growRSS.Load())
		json.NewEncoder(w).Encode(map[string]any{"queue": p.queue.Load(), "busy_tabs": p.busy.Load(), "tabs": 2,
			"p95_render_ms": 120.0, "chromium_rss_bytes": rss, "ready": true})
	}))
	t.Cleanup(p.srv.Close)
	p.rss.Store(400 << 20)
	return p
}

func (p *renderPod) port(t *testing.T) int32 {
	_, port, err := net.SplitHostPort(p.srv.Listener.Addr().String())
	if err != nil {
		t.Fatal(err)
	}
	n, _ := strconv.Atoi(port)
	return int32(n)
}

// harness is a real API server with the operator's manager running on it.
type harness struct {
	c     client.Client
	clock *clocktesting.FakeClock
	// calls counts the reconciler's reads and writes of Deployments.
	calls *deploymentCalls
}

// deploymentCalls counts the Deployment reads and updates the reconciler
// sends, per namespace.
type deploymentCalls struct {
	mu            sync.Mutex
	gets, updates map[string]int
}

func (d *deploymentCalls) count(m map[string]int, ns string) {
	d.mu.Lock()
	m[ns]++
	d.mu.Unlock()
}

func (d *deploymentCalls) read(ns string) (gets, updates int) {
	d.mu.Lock()
	defer d.mu.Unlock()
	return d.gets[ns], d.updates[ns]
}

// countingClient is the manager's client with the reconciler's Deployment
// calls counted.
type countingClient struct {
	client.Client
	calls *deploymentCalls
}

func (c countingClient) Get(ctx context.Context, key client.ObjectKey, obj client.Object, opts ...client.GetOption) error {
	if _, ok := obj.(*appsv1.Deployment); ok {
		c.calls.count(c.calls.gets, key.Namespace)
	}
	return c.Client.Get(ctx, key, obj, opts...)
}

func (c countingClient) Update(ctx context.Context, obj client.Object, opts ...client.UpdateOption) error {
	if _, ok := obj.(*appsv1.Deployment); ok {
		c.calls.count(c.calls.updates, obj.GetNamespace())
	}
	return c.Client.Update(ctx, obj, opts...)
}

func newScheme(t *testing.T) *runtime.Scheme {
	s := runtime.NewScheme()
	if err := clientgoscheme.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	if err := v1alpha1.AddToScheme(s); err != nil {
		t.Fatal(err)
	}
	return s
}

func start(t *testing.T) harness {
	s := newScheme(t)
	cfg := kubetest.Start(t, s, "../../../../k8s/crd/chartd.dev_renderfleets.yaml")
	mgr, err := ctrl.NewManager(cfg, ctrl.Options{Scheme: s, Metrics: metricsserver.Options{BindAddress: "0"}, HealthProbeBindAddress: "0",
		// go test -count=N starts a manager per run in one process.
		Controller: config.Controller{SkipNameValidation: ptr.To(true)}})
	if err != nil {
		t.Fatal(err)
	}
	clk := clocktesting.NewFakeClock(time.Date(2026, 11, 23, 12, 0, 0, 0, time.UTC))
	calls := &deploymentCalls{gets: map[string]int{}, updates: map[string]int{}}
	r := &RenderFleetReconciler{Client: countingClient{Client: mgr.GetClient(), calls: calls}, Scheme: s, Clock: clk,
		Stats: fleetstats.Client{HTTP: &http.Client{Timeout: time.Second}, Token: token}}
	if err := r.SetupWithManager(mgr); err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error, 1)
	go func() { done <- mgr.Start(ctx) }()
	t.Cleanup(func() {
		cancel()
		if err := <-done; err != nil {
			t.Errorf("manager: %v", err)
		}
	})
	c, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	return harness{c: c, clock: clk, calls: calls}
}

// eventually polls cond until it holds, failing the test with the last
// reason after the timeout.
func eventually(t *testing.T, what string, cond func() (bool, string)) {
	t.Helper()
	var last string
	err := wait.PollUntilContextTimeout(context.Background(), 50*time.Millisecond, 20*time.Second, true, func(context.Context) (bool, error) {
		ok, why := cond()
		last = why
		return ok, nil
	})
	if err != nil {
		t.Fatalf("%s: never happened; last: %s", what, last)
	}
}

func (h harness) fleet(t *testing.T, ns, name string) *v1alpha1.RenderFleet {
	var f v1alpha1.RenderFleet
	if err := h.c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, &f); err != nil {
		t.Fatal(err)
	}
	return &f
}

func (h harness) replicas(ns, name string) (int32, error) {
	var d appsv1.Deployment
	if err := h.c.Get(context.Background(), types.NamespacedName{Namespace: ns, Name: name}, &d); err != nil {
		return 0, err
	}
	return *d.Spec.Replicas, nil
}

func (h harness) namespace(t *testing.T, name string) {
	if err := h.c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metav1.ObjectMeta{Name: name}}); err != nil {
		t.Fatal(err)
	}
}

// addPod makes a ready pod of the fleet whose IP and http port lead to p.
func (h harness) addPod(t *testing.T, ns, fleet, name string, p *renderPod) *corev1.Pod {
	ctx := context.Background()
	pod := &corev1.Pod{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns, Labels: map[string]string{FleetLabel: fleet}},
		Spec: corev1.PodSpec{Containers: []corev1.Container{{Name: "render", Image: "chartd/chartd-render:test",
			Ports: []corev1.ContainerPort{{Name: PortName, ContainerPort: p.port(t)}}}}},
	}
	if err := h.c.Create(ctx, pod); err != nil {
		t.Fatal(err)
	}
	pod.Status = corev1.PodStatus{Phase: corev1.PodRunning, PodIP: "127.0.0.1", PodIPs: []corev1.PodIP{{IP: "127.0.0.1"}},
		Conditions: []corev1.PodCondition{{Type: corev1.PodReady, Status: corev1.ConditionTrue}}}
	if err := h.c.Status().Update(ctx, pod); err != nil {
		t.Fatal(err)
	}
	return pod
}

// create makes a fleet and deletes it when the subtest ends, so its
// reconciles stop with the subtest's render pods.
func (h harness) create(t *testing.T, f *v1alpha1.RenderFleet) {
	t.Helper()
	if err := h.c.Create(context.Background(), f); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		if err := h.c.Delete(context.Background(), f); err != nil && !apierrors.IsNotFound(err) {
			t.Errorf("delete fleet: %v", err)
		}
	})
}

func newFleet(ns, name string) *v1alpha1.RenderFleet {
	return &v1alpha1.RenderFleet{
		ObjectMeta: metav1.ObjectMeta{Name: name, Namespace: ns},
		Spec: v1alpha1.RenderFleetSpec{
			MinReplicas: 2, MaxReplicas: 5, TabsPerPod: 2, TargetQueuePerPod: 2,
			ScaleDownStabilization:        metav1.Duration{Duration: 5 * time.Minute},
			PollInterval:                  metav1.Duration{Duration: 100 * time.Millisecond},
			Image:                         "chartd/chartd-render:1",
			Args:                          []string{"-chart-url=http://chartd-chart"},
			SecretsKey:                    &corev1.SecretKeySelector{LocalObjectReference: corev1.LocalObjectReference{Name: "chartd"}, Key: "secrets-key"},
			TerminationGracePeriodSeconds: 30,
		},
	}
}

func condition(f *v1alpha1.RenderFleet, typ string) string {
	c := meta.FindStatusCondition(f.Status.Conditions, typ)
	if c == nil {
		return "none"
	}
	return fmt.Sprintf("%s/%s gen %d (fleet gen %d)", c.Status, c.Reason, c.ObservedGeneration, f.Generation)
}

func TestRenderFleet(t *testing.T) {
	h := start(t)
	ctx := context.Background()

	t.Run("a created fleet gets its Deployment, Service and PDB, owned by it", func(t *testing.T) {
		h.namespace(t, "create")
		f := newFleet("create", "render")
		f.Spec.Resources.Limits = corev1.ResourceList{corev1.ResourceEphemeralStorage: resource.MustParse("2Gi")}
		if err := h.c.Create(ctx, f); err != nil {
			t.Fatal(err)
		}
		eventually(t, "Reconciled condition", func() (bool, string) {
			g := h.fleet(t, "create", "render")
			c := meta.FindStatusCondition(g.Status.Conditions, CondReconciled)
			return c != nil && c.Status == metav1.ConditionTrue && c.ObservedGeneration == g.Generation && g.Status.ObservedGeneration == g.Generation, condition(g, CondReconciled)
		})
		g := h.fleet(t, "create", "render")
		for _, typ := range []string{CondStatsAvailable, CondAvailable} {
			c := meta.FindStatusCondition(g.Status.Conditions, typ)
			if c == nil || c.Status != metav1.ConditionFalse || c.ObservedGeneration != g.Generation {
				t.Errorf("%s: %s; want False (no pods in envtest) with observedGeneration %d", typ, condition(g, typ), g.Generation)
			}
		}
		var d appsv1.Deployment
		var svc corev1.Service
		var pdb policyv1.PodDisruptionBudget
		key := types.NamespacedName{Namespace: "create", Name: "render"}
		for _, o := range []client.Object{&d, &svc, &pdb} {
			if err := h.c.Get(ctx, key, o); err != nil {
				t.Fatal(err)
			}
			refs := o.GetOwnerReferences()
			if len(refs) != 1 || refs[0].UID != g.UID || refs[0].Kind != "RenderFleet" || refs[0].Controller == nil || !*refs[0].Controller ||
				refs[0].BlockOwnerDeletion == nil || !*refs[0].BlockOwnerDeletion {
				t.Errorf("%T owner references %+v: want the fleet as controller, so deleting it deletes this", o, refs)
			}
		}
		if *d.Spec.Replicas != 2 {
			t.Errorf("replicas %d, want minReplicas 2", *d.Spec.Replicas)
		}
		pod := d.Spec.Template.Spec
		c := pod.Containers[0]
		wantArgs := []string{"-target=render", "-addr=0.0.0.0:8080", "-render.browsers=2", "-render.tabs=1", "-chart-url=http://chartd-chart", "-secrets-key-file=/run/chartd/secrets.key"}
		if c.Image != "chartd/chartd-render:1" || !slices.Equal(c.Args, wantArgs) {
			t.Errorf("container %s %v, want %v", c.Image, c.Args, wantArgs)
		}
		if c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.LivenessProbe.HTTPGet.Path != "/healthz" || !*c.SecurityContext.ReadOnlyRootFilesystem ||
			*c.SecurityContext.AllowPrivilegeEscalation || len(pod.InitContainers) != 1 || *pod.TerminationGracePeriodSeconds != 30 {
			t.Errorf("pod template %+v", pod)
		}
		if v := pod.Volumes[0]; v.Name != "tmp" || v.EmptyDir == nil || v.EmptyDir.SizeLimit == nil || v.EmptyDir.SizeLimit.String() != "2Gi" {
			t.Errorf("/tmp volume %+v: want an emptyDir bounded by the ephemeral-storage limit, 2Gi", v)
		}
		if svc.Spec.Selector[FleetLabel] != "render" || svc.Spec.Ports[0].Port != 80 || pdb.Spec.MaxUnavailable.IntValue() != 1 {
			t.Errorf("service %+v / pdb %+v", svc.Spec, pdb.Spec)
		}
		// envtest runs no garbage collector: the owner references above
		// are what makes the cluster delete the children. The fleet
		// itself has no finalizer and goes at once.
		if err := h.c.Delete(ctx, g); err != nil {
			t.Fatal(err)
		}
		eventually(t, "fleet deleted", func() (bool, string) {
			err := h.c.Get(ctx, key, &v1alpha1.RenderFleet{})
			return apierrors.IsNotFound(err), fmt.Sprint(err)
		})
	})

	t.Run("load raises replicas within bounds; low load lowers them after the window", func(t *testing.T) {
		h.namespace(t, "scale")
		a, b := newRenderPod(t), newRenderPod(t)
		h.addPod(t, "scale", "render", "render-a", a)
		h.addPod(t, "scale", "render", "render-b", b)
		a.queue.Store(6)
		a.busy.Store(2)
		b.queue.Store(2)
		b.busy.Store(2)
		// 12 in flight / (2 tabs + 2 queued) per pod = 3 pods.
		h.create(t, newFleet("scale", "render"))
		eventually(t, "scale up to 3", func() (bool, string) {
			n, err := h.replicas("scale", "render")
			return err == nil && n == 3, fmt.Sprint(n, err)
		})
		a.queue.Store(100)
		eventually(t, "scale up capped at maxReplicas 5", func() (bool, string) {
			n, err := h.replicas("scale", "render")
			g := h.fleet(t, "scale", "render")
			return err == nil && n == 5 && g.Status.Replicas == 5 && g.Status.Queue == 102, fmt.Sprint(n, err, g.Status)
		})
		a.queue.Store(0)
		a.busy.Store(1)
		b.queue.Store(0)
		b.busy.Store(0)
		eventually(t, "scale-down pending", func() (bool, string) {
			g := h.fleet(t, "scale", "render")
			return g.Status.ScaleDownSince != nil && g.Status.DesiredReplicas == 2 && g.Status.Queue == 0, fmt.Sprint(g.Status)
		})
		if n, _ := h.replicas("scale", "render"); n != 5 {
			t.Fatalf("replicas %d before the window passed, want still 5", n)
		}
		h.clock.Step(4 * time.Minute)
		// A reading taken after the step (busy tabs 1 → 2) proves a
		// reconcile ran inside the window.
		b.busy.Store(1)
		eventually(t, "a reconcile inside the window", func() (bool, string) {
			g := h.fleet(t, "scale", "render")
			return g.Status.BusyTabs == 2 && g.Status.ScaleDownSince != nil, fmt.Sprint(g.Status)
		})
		if n, _ := h.replicas("scale", "render"); n != 5 {
			t.Fatalf("replicas %d 4 minutes into a 5-minute window, want still 5", n)
		}
		h.clock.Step(61 * time.Second)
		eventually(t, "scale down to minReplicas after the window", func() (bool, string) {
			n, err := h.replicas("scale", "render")
			g := h.fleet(t, "scale", "render")
			return err == nil && n == 2 && g.Status.ScaleDownSince == nil, fmt.Sprint(n, err, g.Status)
		})
		g := h.fleet(t, "scale", "render")
		if c := meta.FindStatusCondition(g.Status.Conditions, CondStatsAvailable); c == nil || c.Status != metav1.ConditionTrue || c.ObservedGeneration != g.Generation {
			t.Errorf("StatsAvailable %s", condition(g, CondStatsAvailable))
		}
	})

	t.Run("an edited spec rolls out", func(t *testing.T) {
		h.namespace(t, "edit")
		h.create(t, newFleet("edit", "render"))
		eventually(t, "deployment", func() (bool, string) {
			_, err := h.replicas("edit", "render")
			return err == nil, fmt.Sprint(err)
		})
		// The operator writes the fleet's status while the test edits its
		// spec, so the edit is retried on a stale resourceVersion as any
		// client of a controller-owned object must.
		var f *v1alpha1.RenderFleet
		if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
			f = h.fleet(t, "edit", "render")
			f.Spec.Image = "chartd/chartd-render:2"
			f.Spec.TabsPerPod = 4
			f.Spec.MinReplicas = 3
			return h.c.Update(ctx, f)
		}); err != nil {
			t.Fatal(err)
		}
		eventually(t, "new image, tabs and minimum on the Deployment", func() (bool, string) {
			var d appsv1.Deployment
			if err := h.c.Get(ctx, types.NamespacedName{Namespace: "edit", Name: "render"}, &d); err != nil {
				return false, err.Error()
			}
			c := d.Spec.Template.Spec.Containers[0]
			return c.Image == "chartd/chartd-render:2" && slices.Contains(c.Args, "-render.browsers=4") && *d.Spec.Replicas == 3,
				fmt.Sprint(c.Image, c.Args, *d.Spec.Replicas)
		})
		eventually(t, "conditions for the new generation", func() (bool, string) {
			g := h.fleet(t, "edit", "render")
			c := meta.FindStatusCondition(g.Status.Conditions, CondReconciled)
			return g.Generation == f.Generation && c != nil && c.ObservedGeneration == g.Generation && g.Status.ObservedGeneration == g.Generation,
				condition(g, CondReconciled)
		})
	})

	t.Run("a pod whose Chromium memory keeps growing is recreated", func(t *testing.T) {
		h.namespace(t, "recycle")
		steady, leaky := newRenderPod(t), newRenderPod(t)
		leaky.rss.Store(2000 << 20)
		leaky.growRSS.Store(10 << 20)
		h.addPod(t, "recycle", "render", "render-steady", steady)
		pod := h.addPod(t, "recycle", "render", "render-leaky", leaky)
		f := newFleet("recycle", "render")
		f.Spec.Recycle = v1alpha1.RecycleSpec{MemoryMiB: 1536, Samples: 3}
		h.create(t, f)
		eventually(t, "leaky pod deleted", func() (bool, string) {
			var p corev1.Pod
			err := h.c.Get(ctx, client.ObjectKeyFromObject(pod), &p)
			return apierrors.IsNotFound(err) || p.DeletionTimestamp != nil, fmt.Sprint(err)
		})
		var p corev1.Pod
		if err := h.c.Get(ctx, types.NamespacedName{Namespace: "recycle", Name: "render-steady"}, &p); err != nil || p.DeletionTimestamp != nil {
			t.Fatalf("the steady pod was touched: %v %v", err, p.DeletionTimestamp)
		}
	})

	t.Run("a steady fleet's polls send no Deployment update", func(t *testing.T) {
		h.namespace(t, "steady")
		h.create(t, newFleet("steady", "render"))
		key := types.NamespacedName{Namespace: "steady", Name: "render"}
		var d appsv1.Deployment
		eventually(t, "deployment", func() (bool, string) {
			err := h.c.Get(ctx, key, &d)
			return err == nil, fmt.Sprint(err)
		})
		gets, updates := h.calls.read("steady")
		// Each poll (every 100 ms) reads the Deployment twice: wait for
		// 20 more polls.
		eventually(t, "20 polls", func() (bool, string) {
			g, _ := h.calls.read("steady")
			return g >= gets+40, fmt.Sprint(g - gets)
		})
		g, u := h.calls.read("steady")
		var after appsv1.Deployment
		if err := h.c.Get(ctx, key, &after); err != nil {
			t.Fatal(err)
		}
		if u != updates || after.ResourceVersion != d.ResourceVersion {
			t.Fatalf("%d Deployment updates over %d reads of an unchanged fleet (resourceVersion %s → %s): compare before update",
				u-updates, g-gets, d.ResourceVersion, after.ResourceVersion)
		}
	})

	t.Run("the scale subresource drives the fleet within its bounds", func(t *testing.T) {
		h.namespace(t, "hpa")
		f := newFleet("hpa", "render")
		h.create(t, f)
		eventually(t, "deployment", func() (bool, string) {
			n, err := h.replicas("hpa", "render")
			return err == nil && n == 2, fmt.Sprint(n, err)
		})
		for _, c := range []struct{ ask, want int32 }{{4, 4}, {50, 5}, {1, 2}} {
			if err := retry.RetryOnConflict(retry.DefaultRetry, func() error {
				g := h.fleet(t, "hpa", "render")
				return h.c.SubResource("scale").Update(ctx, g, client.WithSubResourceBody(&autoscalingv1.Scale{
					ObjectMeta: metav1.ObjectMeta{Name: g.Name, Namespace: g.Namespace, ResourceVersion: g.ResourceVersion},
					Spec:       autoscalingv1.ScaleSpec{Replicas: c.ask}}))
			}); err != nil {
				t.Fatalf("scale to %d: %v", c.ask, err)
			}
			eventually(t, fmt.Sprintf("scaled to %d for %d", c.want, c.ask), func() (bool, string) {
				n, err := h.replicas("hpa", "render")
				var sc autoscalingv1.Scale
				serr := h.c.SubResource("scale").Get(ctx, h.fleet(t, "hpa", "render"), &sc)
				return err == nil && serr == nil && n == c.want && sc.Status.Replicas == c.want && strings.Contains(sc.Status.Selector, FleetLabel+"=render"),
					fmt.Sprint(n, err, serr, sc.Status)
			})
		}
	})

	t.Run("the API refuses minReplicas above maxReplicas", func(t *testing.T) {
		h.namespace(t, "invalid")
		f := newFleet("invalid", "render")
		f.Spec.MinReplicas = 6
		err := h.c.Create(ctx, f)
		if !apierrors.IsInvalid(err) {
			t.Fatalf("create: %v, want Invalid", err)
		}
	})
}

func TestDecide(t *testing.T) {
	spec := v1alpha1.RenderFleetSpec{MinReplicas: 2, MaxReplicas: 6, TabsPerPod: 2, TargetQueuePerPod: 2,
		ScaleDownStabilization: metav1.Duration{Duration: time.Minute}}
	now := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	at := func(d time.Duration) *metav1.Time { t := metav1.NewTime(now.Add(-d)); return &t }
	tests := []struct {
		name      string
		current   int32
		load      load
		since     *metav1.Time
		want      int32
		wantSince bool
	}{
		{"no readings hold", 4, load{}, nil, 4, false},
		{"no readings still clamp", 9, load{}, nil, 6, false},
		{"up at once", 2, load{reporting: 2, queue: 10, busy: 4}, nil, 4, false},
		{"up capped", 2, load{reporting: 2, queue: 100}, nil, 6, false},
		{"steady", 3, load{reporting: 3, queue: 5, busy: 6}, at(time.Hour), 3, false},
		{"down starts the window", 5, load{reporting: 5, busy: 1}, nil, 5, true},
		{"down inside the window", 5, load{reporting: 5, busy: 1}, at(30 * time.Second), 5, true},
		{"down after the window", 5, load{reporting: 5, busy: 5}, at(time.Minute), 2, false},
		{"never below min", 3, load{reporting: 3}, at(time.Hour), 2, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, since := decide(spec, tt.current, tt.load, tt.since, now)
			if got != tt.want || (since != nil) != tt.wantSince {
				t.Fatalf("decide = %d, since %v; want %d, since set %v", got, since, tt.want, tt.wantSince)
			}
		})
	}
}
