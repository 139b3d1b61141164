// Package controller holds the RenderFleet reconciler: it keeps a fleet's
// Deployment, Service and PodDisruptionBudget as the spec says, and the
// replica count in line with the load the render pods report.
package controller

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"log/slog"
	"maps"
	"net"
	"slices"
	"strconv"
	"strings"
	"sync"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	policyv1 "k8s.io/api/policy/v1"
	apierrors "k8s.io/apimachinery/pkg/api/errors"
	"k8s.io/apimachinery/pkg/api/meta"
	"k8s.io/apimachinery/pkg/api/resource"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/types"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/utils/clock"
	"k8s.io/utils/ptr"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	"sigs.k8s.io/controller-runtime/pkg/controller/controllerutil"

	"chartd.dev/services/operator/api/v1alpha1"
	"chartd.dev/services/operator/internal/fleetstats"
)

// Labels the operator puts on a fleet's pods. FleetLabel alone selects
// them, so the Deployment's selector never has to change.
const (
	FleetLabel     = "chartd.dev/fleet"
	ComponentLabel = "app.kubernetes.io/component"
	ManagedByLabel = "app.kubernetes.io/managed-by"
	// ManagedBy is the value of ManagedByLabel.
	ManagedBy = "chartd-operator"
	// PortName is the render container's HTTP port; the stats are read on
	// the port of that name in each pod's spec.
	PortName = "http"
	// ContainerPort is where the render container listens.
	ContainerPort = 8080
	// secretsKeyDir holds the copy of the secrets key chartd reads.
	secretsKeyDir = "/run/chartd"
)

// Condition types of a RenderFleet.
const (
	// CondReconciled: the Deployment, Service and PDB match the spec.
	CondReconciled = "Reconciled"
	// CondStatsAvailable: at least one ready pod answered its fleet stats.
	CondStatsAvailable = "StatsAvailable"
	// CondAvailable: at least minReplicas pods are available.
	CondAvailable = "Available"
)

// StatsReader reads one render pod's fleet stats; fleetstats.Client is
// the real one.
type StatsReader interface {
	Get(ctx context.Context, base string) (fleetstats.Stats, error)
}

// RenderFleetReconciler reconciles RenderFleets.
type RenderFleetReconciler struct {
	client.Client
	Scheme *runtime.Scheme
	Stats  StatsReader
	// Clock times the scale-down window; tests pass a fake one.
	Clock clock.PassiveClock
	Log   *slog.Logger

	// rss keeps each pod's recent Chromium memory readings, to see it
	// growing; it is rebuilt from new readings after a restart. One
	// reconcile at a time updates it (the controller's default).
	mu  sync.Mutex
	rss map[types.NamespacedName]map[types.UID][]int64
}

// +kubebuilder:rbac:groups=chartd.dev,resources=renderfleets,verbs=get;list;watch
// +kubebuilder:rbac:groups=chartd.dev,resources=renderfleets/status,verbs=get;update;patch
// +kubebuilder:rbac:groups=chartd.dev,resources=renderfleets/finalizers,verbs=update
// +kubebuilder:rbac:groups=apps,resources=deployments,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups="",resources=services,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups=policy,resources=poddisruptionbudgets,verbs=get;list;watch;create;update;patch
// +kubebuilder:rbac:groups="",resources=pods,verbs=get;list;watch;delete

// Reconcile brings one fleet's objects and size in line with its spec and
// its pods' load, and requeues itself to read the load again.
func (r *RenderFleetReconciler) Reconcile(ctx context.Context, req ctrl.Request) (ctrl.Result, error) {
	var fleet v1alpha1.RenderFleet
	if err := r.Get(ctx, req.NamespacedName, &fleet); err != nil {
		if apierrors.IsNotFound(err) {
			// Owner references let the garbage collector remove the rest.
			r.mu.Lock()
			delete(r.rss, req.NamespacedName)
			r.mu.Unlock()
			return ctrl.Result{}, nil
		}
		return ctrl.Result{}, fmt.Errorf("get fleet %s: %w", req.NamespacedName, err)
	}
	spec := withDefaults(fleet.Spec)
	now := r.Clock.Now()
	before := fleet.Status.DeepCopy()

	var dep appsv1.Deployment
	current := spec.MinReplicas
	switch err := r.Get(ctx, req.NamespacedName, &dep); {
	case err == nil && dep.Spec.Replicas != nil:
		current = *dep.Spec.Replicas
	case err != nil && !apierrors.IsNotFound(err):
		return ctrl.Result{}, fmt.Errorf("get deployment %s: %w", req.NamespacedName, err)
	}

	load, err := r.readLoad(ctx, &fleet, spec)
	if err != nil {
		return ctrl.Result{}, err
	}
	next, since := decide(spec, current, load, fleet.Status.ScaleDownSince, now)
	if spec.Replicas != nil {
		// An outside autoscaler drives the fleet through /scale.
		next, since = clamp(*spec.Replicas, spec), nil
	}
	fleet.Status.ScaleDownSince = since
	if next != current || fleet.Status.LastScaleTime == nil {
		t := metav1.NewTime(now)
		fleet.Status.LastScaleTime = &t
	}
	if next != current {
		r.logger().Info("scaling render fleet", "fleet", req.NamespacedName, "from", current, "to", next,
			"queue", load.queue, "busy_tabs", load.busy)
	}

	applied, err := r.apply(ctx, &fleet, spec, next)
	if err != nil {
		meta.SetStatusCondition(&fleet.Status.Conditions, metav1.Condition{Type: CondReconciled, Status: metav1.ConditionFalse,
			Reason: "ApplyFailed", Message: err.Error(), ObservedGeneration: fleet.Generation})
		if serr := r.writeStatus(ctx, &fleet, before); serr != nil {
			r.logger().Error("writing fleet status", "fleet", req.NamespacedName, "err", serr)
		}
		return ctrl.Result{}, err
	}
	if err := r.recycle(ctx, &fleet, spec, load); err != nil {
		return ctrl.Result{}, err
	}

	dep = *applied
	st := &fleet.Status
	st.ObservedGeneration = fleet.Generation
	st.Replicas = next
	st.Selector = metav1.FormatLabelSelector(&metav1.LabelSelector{MatchLabels: selectorLabels(&fleet)})
	st.ReadyReplicas = dep.Status.ReadyReplicas
	st.DesiredReplicas = load.desired(spec, current)
	st.Queue, st.BusyTabs, st.P95RenderMillis = int32(load.queue), int32(load.busy), int64(load.p95)
	meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: CondReconciled, Status: metav1.ConditionTrue,
		Reason: "Applied", Message: "Deployment, Service and PodDisruptionBudget match the spec", ObservedGeneration: fleet.Generation})
	if load.reporting > 0 {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: CondStatsAvailable, Status: metav1.ConditionTrue,
			Reason: "PodsReporting", Message: fmt.Sprintf("%d of %d ready pods reported fleet stats", load.reporting, load.ready),
			ObservedGeneration: fleet.Generation})
	} else {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: CondStatsAvailable, Status: metav1.ConditionFalse,
			Reason: "NoStats", Message: fmt.Sprintf("no ready pod answered %s (%d ready); the replica count is held", fleetstats.Path, load.ready),
			ObservedGeneration: fleet.Generation})
	}
	if dep.Status.AvailableReplicas >= spec.MinReplicas {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: CondAvailable, Status: metav1.ConditionTrue,
			Reason: "MinimumReplicasAvailable", Message: fmt.Sprintf("%d pods available", dep.Status.AvailableReplicas),
			ObservedGeneration: fleet.Generation})
	} else {
		meta.SetStatusCondition(&st.Conditions, metav1.Condition{Type: CondAvailable, Status: metav1.ConditionFalse,
			Reason:             "MinimumReplicasUnavailable",
			Message:            fmt.Sprintf("%d of the minimum %d pods available", dep.Status.AvailableReplicas, spec.MinReplicas),
			ObservedGeneration: fleet.Generation})
	}
	if err := r.writeStatus(ctx, &fleet, before); err != nil {
		return ctrl.Result{}, err
	}
	return ctrl.Result{RequeueAfter: spec.PollInterval.Duration}, nil
}

// writeStatus patches the status when it changed.
func (r *RenderFleetReconciler) writeStatus(ctx context.Context, fleet *v1alpha1.RenderFleet, before *v1alpha1.RenderFleetStatus) error {
	if before != nil && equalStatus(*before, fleet.Status) {
		return nil
	}
	if err := r.Status().Update(ctx, fleet); err != nil {
		return fmt.Errorf("update status of fleet %s/%s: %w", fleet.Namespace, fleet.Name, err)
	}
	return nil
}

func equalStatus(a, b v1alpha1.RenderFleetStatus) bool {
	return a.ObservedGeneration == b.ObservedGeneration && a.Replicas == b.Replicas && a.ReadyReplicas == b.ReadyReplicas &&
		a.DesiredReplicas == b.DesiredReplicas && a.Queue == b.Queue && a.BusyTabs == b.BusyTabs &&
		a.P95RenderMillis == b.P95RenderMillis && timeEqual(a.ScaleDownSince, b.ScaleDownSince) &&
		timeEqual(a.LastScaleTime, b.LastScaleTime) && conditionsEqual(a.Conditions, b.Conditions)
}

func timeEqual(a, b *metav1.Time) bool {
	if a == nil || b == nil {
		return a == b
	}
	return a.Equal(b)
}

func conditionsEqual(a, b []metav1.Condition) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		x, y := a[i], b[i]
		if x.Type != y.Type || x.Status != y.Status || x.Reason != y.Reason || x.Message != y.Message || x.ObservedGeneration != y.ObservedGeneration {
			return false
		}
	}
	return true
}

// withDefaults fills what the CRD's defaults would, for objects written
// before a default existed.
func withDefaults(s v1alpha1.RenderFleetSpec) v1alpha1.RenderFleetSpec {
	if s.MinReplicas < 1 {
		s.MinReplicas = 1
	}
	if s.MaxReplicas < s.MinReplicas {
		s.MaxReplicas = s.MinReplicas
	}
	if s.TabsPerPod < 1 {
		s.TabsPerPod = 1
	}
	if s.PollInterval.Duration <= 0 {
		s.PollInterval.Duration = 15 * time.Second
	}
	if s.TerminationGracePeriodSeconds < 1 {
		s.TerminationGracePeriodSeconds = 30
	}
	if s.Recycle.Samples < 2 {
		s.Recycle.Samples = 5
	}
	return s
}

// load is the fleet's load at one reading.
type load struct {
	ready, reporting int
	queue, busy      int
	p95              float64
	// pods are the ready pods that answered, with their readings.
	pods []podStats
}

type podStats struct {
	pod   *corev1.Pod
	stats fleetstats.Stats
}

// desired is the replica count the load asks for, within bounds: enough
// pods that each holds its tabs plus the target queue. Without readings
// it is the current count.
func (l load) desired(spec v1alpha1.RenderFleetSpec, current int32) int32 {
	if l.reporting == 0 {
		return clamp(current, spec)
	}
	per := int(spec.TabsPerPod + spec.TargetQueuePerPod)
	n := (l.queue + l.busy + per - 1) / per
	return clamp(int32(min(n, int(spec.MaxReplicas))), spec)
}

func clamp(n int32, spec v1alpha1.RenderFleetSpec) int32 {
	return max(spec.MinReplicas, min(spec.MaxReplicas, n))
}

// decide answers the replica count to set and when the load first asked
// for fewer: growth is immediate, shrinking waits until the load has
// asked for fewer pods for the whole stabilization window.
func decide(spec v1alpha1.RenderFleetSpec, current int32, l load, since *metav1.Time, now time.Time) (int32, *metav1.Time) {
	cur := clamp(current, spec)
	want := l.desired(spec, current)
	switch {
	case want >= cur:
		return max(want, cur), nil
	case since == nil:
		t := metav1.NewTime(now)
		return cur, &t
	case now.Sub(since.Time) >= spec.ScaleDownStabilization.Duration:
		return want, nil
	default:
		return cur, since
	}
}

// readLoad asks every ready pod of the fleet for its stats, in parallel.
func (r *RenderFleetReconciler) readLoad(ctx context.Context, fleet *v1alpha1.RenderFleet, spec v1alpha1.RenderFleetSpec) (load, error) {
	var pods corev1.PodList
	if err := r.List(ctx, &pods, client.InNamespace(fleet.Namespace), client.MatchingLabels{FleetLabel: fleet.Name}); err != nil {
		return load{}, fmt.Errorf("list pods of fleet %s/%s: %w", fleet.Namespace, fleet.Name, err)
	}
	ctx, cancel := context.WithTimeout(ctx, min(spec.PollInterval.Duration, 5*time.Second))
	defer cancel()
	var (
		l  load
		mu sync.Mutex
		wg sync.WaitGroup
	)
	for i := range pods.Items {
		p := &pods.Items[i]
		base, ok := statsBase(p)
		if !ok {
			continue
		}
		l.ready++
		wg.Go(func() {
			s, err := r.Stats.Get(ctx, base)
			if err != nil {
				r.logger().Warn("reading render pod stats", "pod", p.Name, "err", err)
				return
			}
			mu.Lock()
			defer mu.Unlock()
			l.pods = append(l.pods, podStats{pod: p, stats: s})
		})
	}
	wg.Wait()
	for _, ps := range l.pods {
		l.reporting++
		l.queue += ps.stats.Queue
		l.busy += ps.stats.BusyTabs
		l.p95 = max(l.p95, ps.stats.P95RenderMillis)
	}
	return l, nil
}

// statsBase answers where a pod's stats are read: its IP and the port
// named http, for a ready pod that is not going away.
func statsBase(p *corev1.Pod) (string, bool) {
	if p.DeletionTimestamp != nil || p.Status.PodIP == "" || !podReady(p) {
		return "", false
	}
	port := int32(ContainerPort)
	for _, c := range p.Spec.Containers {
		for _, cp := range c.Ports {
			if cp.Name == PortName {
				port = cp.ContainerPort
			}
		}
	}
	return "http://" + net.JoinHostPort(p.Status.PodIP, strconv.Itoa(int(port))), true
}

func podReady(p *corev1.Pod) bool {
	for _, c := range p.Status.Conditions {
		if c.Type == corev1.PodReady {
			return c.Status == corev1.ConditionTrue
		}
	}
	return false
}

// recycle deletes one pod whose Chromium memory grew at each of the last
// Samples readings past the threshold, so the Deployment replaces it; it
// acts only while every other reporting pod is ready, one pod at a time.
func (r *RenderFleetReconciler) recycle(ctx context.Context, fleet *v1alpha1.RenderFleet, spec v1alpha1.RenderFleetSpec, l load) error {
	r.mu.Lock()
	if r.rss == nil {
		r.rss = map[types.NamespacedName]map[types.UID][]int64{}
	}
	// Only the fleet's pods that answered now keep their readings: a pod
	// that is gone, or skipped a reading, starts over.
	key := types.NamespacedName{Namespace: fleet.Namespace, Name: fleet.Name}
	old := r.rss[key]
	now := map[types.UID][]int64{}
	r.rss[key] = now
	var leaking *corev1.Pod
	for _, ps := range l.pods {
		h := append(old[ps.pod.UID], ps.stats.ChromiumRSSBytes)
		if len(h) > int(spec.Recycle.Samples) {
			h = h[len(h)-int(spec.Recycle.Samples):]
		}
		now[ps.pod.UID] = h
		if leaking == nil && spec.Recycle.MemoryMiB > 0 && growing(h, int(spec.Recycle.Samples)) && h[len(h)-1] >= spec.Recycle.MemoryMiB<<20 {
			leaking = ps.pod
		}
	}
	if leaking != nil {
		delete(now, leaking.UID)
	}
	r.mu.Unlock()
	if leaking == nil || l.ready < 2 {
		return nil
	}
	r.logger().Info("recreating render pod whose Chromium memory keeps growing", "fleet", fleet.Namespace+"/"+fleet.Name, "pod", leaking.Name)
	if err := r.Delete(ctx, leaking, client.Preconditions{UID: &leaking.UID}); err != nil && !apierrors.IsNotFound(err) {
		return fmt.Errorf("delete leaking pod %s/%s: %w", leaking.Namespace, leaking.Name, err)
	}
	return nil
}

func growing(h []int64, samples int) bool {
	if len(h) < samples {
		return false
	}
	for i := 1; i < len(h); i++ {
		if h[i] <= h[i-1] {
			return false
		}
	}
	return true
}

func (r *RenderFleetReconciler) logger() *slog.Logger {
	if r.Log != nil {
		return r.Log
	}
	return slog.Default()
}

// selectorLabels select a fleet's pods.
func selectorLabels(fleet *v1alpha1.RenderFleet) map[string]string {
	return map[string]string{FleetLabel: fleet.Name}
}

// podLabels are the spec's labels with the operator's on top.
func podLabels(fleet *v1alpha1.RenderFleet, spec v1alpha1.RenderFleetSpec) map[string]string {
	l := maps.Clone(spec.PodLabels)
	if l == nil {
		l = map[string]string{}
	}
	l[ComponentLabel] = "render"
	l[ManagedByLabel] = ManagedBy
	maps.Copy(l, selectorLabels(fleet))
	return l
}

// apply creates or updates the fleet's Deployment, Service and PDB, each
// owned by the fleet.
func (r *RenderFleetReconciler) apply(ctx context.Context, fleet *v1alpha1.RenderFleet, spec v1alpha1.RenderFleetSpec, replicas int32) (*appsv1.Deployment, error) {
	objMeta := metav1.ObjectMeta{Name: fleet.Name, Namespace: fleet.Namespace}
	labels := map[string]string{ComponentLabel: "render", ManagedByLabel: ManagedBy, FleetLabel: fleet.Name}

	dep := &appsv1.Deployment{ObjectMeta: objMeta}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, dep, func() error {
		maps.Copy(ensure(&dep.Labels), labels)
		dep.Spec.Replicas = &replicas
		if dep.Spec.Selector == nil {
			dep.Spec.Selector = &metav1.LabelSelector{MatchLabels: selectorLabels(fleet)}
		}
		dep.Spec.Strategy = appsv1.DeploymentStrategy{Type: appsv1.RollingUpdateDeploymentStrategyType,
			RollingUpdate: &appsv1.RollingUpdateDeployment{MaxUnavailable: ptr.To(intstr.FromInt32(0)), MaxSurge: ptr.To(intstr.FromInt32(1))}}
		// The API server fills in defaults the template leaves out, so the
		// template read back never equals the one built: compare the built
		// one's hash instead, or every poll would send an update.
		want := podTemplate(fleet, spec)
		if h := templateHash(want); dep.Annotations[TemplateHashAnnotation] != h {
			dep.Spec.Template = want
			ensure(&dep.Annotations)[TemplateHashAnnotation] = h
		}
		return controllerutil.SetControllerReference(fleet, dep, r.Scheme)
	}); err != nil {
		return nil, fmt.Errorf("apply deployment %s/%s: %w", fleet.Namespace, fleet.Name, err)
	}

	svc := &corev1.Service{ObjectMeta: objMeta}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, svc, func() error {
		maps.Copy(ensure(&svc.Labels), labels)
		svc.Spec.Type = corev1.ServiceTypeClusterIP
		svc.Spec.Selector = selectorLabels(fleet)
		svc.Spec.Ports = []corev1.ServicePort{{Name: PortName, Port: 80, TargetPort: intstr.FromString(PortName), Protocol: corev1.ProtocolTCP}}
		return controllerutil.SetControllerReference(fleet, svc, r.Scheme)
	}); err != nil {
		return nil, fmt.Errorf("apply service %s/%s: %w", fleet.Namespace, fleet.Name, err)
	}

	pdb := &policyv1.PodDisruptionBudget{ObjectMeta: objMeta}
	if _, err := controllerutil.CreateOrUpdate(ctx, r.Client, pdb, func() error {
		maps.Copy(ensure(&pdb.Labels), labels)
		pdb.Spec.MaxUnavailable = ptr.To(intstr.FromInt32(1))
		pdb.Spec.Selector = &metav1.LabelSelector{MatchLabels: selectorLabels(fleet)}
		return controllerutil.SetControllerReference(fleet, pdb, r.Scheme)
	}); err != nil {
		return nil, fmt.Errorf("apply pod disruption budget %s/%s: %w", fleet.Namespace, fleet.Name, err)
	}
	return dep, nil
}

// TemplateHashAnnotation on the render Deployment is the hash of the pod
// template the operator last wrote.
const TemplateHashAnnotation = "chartd.dev/template-hash"

// templateHash is a short hash of a pod template as built.
func templateHash(t corev1.PodTemplateSpec) string {
	b, err := json.Marshal(t)
	if err != nil {
		panic(fmt.Sprintf("pod template does not marshal: %v", err)) // a plain struct always does
	}
	sum := sha256.Sum256(b)
	return hex.EncodeToString(sum[:8])
}

func ensure(m *map[string]string) map[string]string {
	if *m == nil {
		*m = map[string]string{}
	}
	return *m
}

// MetricsPortName is the render container's Prometheus port, there when
// the fleet's args give -metrics-addr.
const MetricsPortName = "metrics"

// ContainerPorts are the render container's ports: http, and metrics
// when args serve /metrics (-metrics-addr=host:port), so a PodMonitor
// finds it by name.
func ContainerPorts(args []string) []corev1.ContainerPort {
	ports := []corev1.ContainerPort{{Name: PortName, ContainerPort: ContainerPort, Protocol: corev1.ProtocolTCP}}
	// The flag given last wins, as in chartd's flag parsing.
	for _, a := range slices.Backward(args) {
		v, ok := strings.CutPrefix(a, "-metrics-addr=")
		if !ok {
			v, ok = strings.CutPrefix(a, "--metrics-addr=")
		}
		if !ok {
			continue
		}
		if _, p, err := net.SplitHostPort(v); err == nil {
			if n, err := strconv.Atoi(p); err == nil && n > 0 && n < 65536 {
				return append(ports, corev1.ContainerPort{Name: MetricsPortName, ContainerPort: int32(n), Protocol: corev1.ProtocolTCP})
			}
		}
		return ports
	}
	return ports
}

// podTemplate is the render pod: chartd -target=render with one browser
// per tab, non-root on a read-only root filesystem with a writable /tmp,
// probed on /readyz (ready once the tabs are warm) and /healthz.
func podTemplate(fleet *v1alpha1.RenderFleet, spec v1alpha1.RenderFleetSpec) corev1.PodTemplateSpec {
	args := append([]string{
		"-target=render",
		"-addr=0.0.0.0:" + strconv.Itoa(ContainerPort),
		"-render.browsers=" + strconv.Itoa(int(spec.TabsPerPod)),
		"-render.tabs=1",
	}, spec.Args...)
	probe := func(path string, period, failures int32) *corev1.Probe {
		return &corev1.Probe{ProbeHandler: corev1.ProbeHandler{HTTPGet: &corev1.HTTPGetAction{Path: path, Port: intstr.FromString(PortName)}},
			PeriodSeconds: period, FailureThreshold: failures, TimeoutSeconds: 2}
	}
	sel := &metav1.LabelSelector{MatchLabels: selectorLabels(fleet)}
	secCtx := &corev1.SecurityContext{
		RunAsNonRoot: ptr.To(true), AllowPrivilegeEscalation: ptr.To(false), ReadOnlyRootFilesystem: ptr.To(true),
		Capabilities:   &corev1.Capabilities{Drop: []corev1.Capability{"ALL"}},
		SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
	}
	// /tmp holds Chromium's profiles: bounded by the pod's ephemeral-storage
	// limit, so a pod that fills it is evicted, not the node's disk filled.
	tmp := &corev1.EmptyDirVolumeSource{}
	if q, ok := spec.Resources.Limits[corev1.ResourceEphemeralStorage]; ok {
		tmp.SizeLimit = &q
	}
	volumes := []corev1.Volume{{Name: "tmp", VolumeSource: corev1.VolumeSource{EmptyDir: tmp}}}
	mounts := []corev1.VolumeMount{{Name: "tmp", MountPath: "/tmp"}}
	var inits []corev1.Container
	if k := spec.SecretsKey; k != nil {
		args = append(args, "-secrets-key-file="+secretsKeyDir+"/secrets.key")
		volumes = append(volumes,
			corev1.Volume{Name: "secrets-key-source", VolumeSource: corev1.VolumeSource{Secret: &corev1.SecretVolumeSource{
				SecretName: k.Name, Items: []corev1.KeyToPath{{Key: k.Key, Path: "secrets.key"}}, DefaultMode: ptr.To(int32(0o440))}}},
			corev1.Volume{Name: "secrets-key", VolumeSource: corev1.VolumeSource{EmptyDir: &corev1.EmptyDirVolumeSource{
				Medium: corev1.StorageMediumMemory, SizeLimit: ptr.To(resource.MustParse("1Mi"))}}})
		mounts = append(mounts, corev1.VolumeMount{Name: "secrets-key", MountPath: secretsKeyDir, ReadOnly: true})
		inits = append(inits, corev1.Container{
			Name:            "secrets-key",
			Image:           spec.Image,
			ImagePullPolicy: spec.ImagePullPolicy,
			Command:         []string{"/bin/sh", "-c", "install -m 0400 /etc/chartd/secrets-key/secrets.key " + secretsKeyDir + "/secrets.key"},
			VolumeMounts: []corev1.VolumeMount{
				{Name: "secrets-key-source", MountPath: "/etc/chartd/secrets-key", ReadOnly: true},
				{Name: "secrets-key", MountPath: secretsKeyDir},
			},
			Resources: corev1.ResourceRequirements{
				Requests: corev1.ResourceList{corev1.ResourceCPU: resource.MustParse("10m"), corev1.ResourceMemory: resource.MustParse("16Mi")},
				Limits:   corev1.ResourceList{corev1.ResourceMemory: resource.MustParse("32Mi")},
			},
			SecurityContext: secCtx,
		})
	}
	return corev1.PodTemplateSpec{
		ObjectMeta: metav1.ObjectMeta{Labels: podLabels(fleet, spec), Annotations: maps.Clone(spec.PodAnnotations)},
		Spec: corev1.PodSpec{
			ServiceAccountName:            spec.ServiceAccountName,
			AutomountServiceAccountToken:  ptr.To(false),
			TerminationGracePeriodSeconds: ptr.To(spec.TerminationGracePeriodSeconds),
			ImagePullSecrets:              spec.ImagePullSecrets,
			NodeSelector:                  spec.NodeSelector,
			Tolerations:                   spec.Tolerations,
			Affinity:                      spec.Affinity,
			SecurityContext: &corev1.PodSecurityContext{
				RunAsNonRoot: ptr.To(true), RunAsUser: ptr.To(int64(65532)), RunAsGroup: ptr.To(int64(65532)), FSGroup: ptr.To(int64(65532)),
				SeccompProfile: &corev1.SeccompProfile{Type: corev1.SeccompProfileTypeRuntimeDefault},
			},
			TopologySpreadConstraints: []corev1.TopologySpreadConstraint{
				{MaxSkew: 1, TopologyKey: "topology.kubernetes.io/zone", WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: sel},
				{MaxSkew: 1, TopologyKey: "kubernetes.io/hostname", WhenUnsatisfiable: corev1.ScheduleAnyway, LabelSelector: sel},
			},
			Volumes:        append(volumes, spec.Volumes...),
			InitContainers: inits,
			Containers: []corev1.Container{{
				Name:            "render",
				Image:           spec.Image,
				ImagePullPolicy: spec.ImagePullPolicy,
				Args:            args,
				Env:             spec.Env,
				Ports:           ContainerPorts(args),
				Resources:       spec.Resources,
				StartupProbe:    probe("/healthz", 2, 30),
				ReadinessProbe:  probe("/readyz", 5, 3),
				LivenessProbe:   probe("/healthz", 10, 3),
				VolumeMounts:    append(mounts, spec.VolumeMounts...),
				SecurityContext: secCtx,
			}},
		},
	}
}

// SetupWithManager registers the reconciler: it watches fleets and the
// objects they own, and forgets the readings of deleted pods.
func (r *RenderFleetReconciler) SetupWithManager(mgr ctrl.Manager) error {
	if r.Clock == nil {
		r.Clock = clock.RealClock{}
	}
	err := ctrl.NewControllerManagedBy(mgr).
		For(&v1alpha1.RenderFleet{}).
		Owns(&appsv1.Deployment{}).
		Owns(&corev1.Service{}).
		Owns(&policyv1.PodDisruptionBudget{}).
		Named("renderfleet").
		Complete(r)
	if err != nil {
		return fmt.Errorf("set up the renderfleet controller: %w", err)
	}
	return nil
}
