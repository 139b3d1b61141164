package deploytest

import (
	"fmt"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	"helm.sh/helm/v3/pkg/chartutil"
	appsv1 "k8s.io/api/apps/v1"
	autoscalingv2 "k8s.io/api/autoscaling/v2"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	policyv1 "k8s.io/api/policy/v1"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"

	"chartd.dev/services/operator/api/v1alpha1"
)

func metaName(name string) metav1.ObjectMeta { return metav1.ObjectMeta{Name: name} }

// moduleDir is where the go command keeps a module of this build.
func moduleDir(path string) (string, error) {
	out, err := exec.Command("go", "list", "-m", "-f", "{{.Dir}}", path).Output()
	if err != nil {
		return "", fmt.Errorf("go list -m %s: %w", path, err)
	}
	return strings.TrimSpace(string(out)), nil
}

// checkWorkloads checks what the issue asks of every workload and of
// each mode, on the decoded objects.
func checkWorkloads(t *testing.T, tc valueCase, objs []client.Object) {
	t.Helper()
	distributed := strings.Contains(tc.values, "deploymentMode: distributed")
	kinds := map[string][]string{}
	var routes []string
	for _, o := range objs {
		kind := o.GetObjectKind().GroupVersionKind().Kind
		kinds[kind] = append(kinds[kind], o.GetName())
		switch x := o.(type) {
		case *appsv1.Deployment:
			checkPod(t, x.Name, x.Spec.Template.Spec)
			for _, c := range x.Spec.Template.Spec.Containers {
				checkTrustedProxies(t, tc, x.Name, c.Args)
				if c.Name != "operator" {
					checkShutdownDelay(t, tc, x.Name, c.Args)
				}
			}
		case *v1alpha1.RenderFleet:
			checkTrustedProxies(t, tc, x.Name, x.Spec.Args)
			checkShutdownDelay(t, tc, x.Name, x.Spec.Args)
			if x.Spec.TerminationGracePeriodSeconds <= stopSeconds(t, x.Spec.Args) {
				t.Errorf("RenderFleet %s: grace %ds is not above the shutdown delay plus the drain timeout", x.Name, x.Spec.TerminationGracePeriodSeconds)
			}
			if x.Spec.SecretsKey == nil || x.Spec.Resources.Limits.Memory().IsZero() {
				t.Errorf("RenderFleet %s: want a secrets key and a memory limit", x.Name)
			}
		case *corev1.ConfigMap:
			t.Errorf("ConfigMap %s: nothing in the chart belongs in one (secrets go in Secrets)", x.Name)
		case *networkingv1.Ingress:
			for _, r := range x.Spec.Rules {
				for _, p := range r.HTTP.Paths {
					routes = append(routes, p.Path+"→"+p.Backend.Service.Name)
				}
			}
		case *gatewayv1.HTTPRoute:
			for _, r := range x.Spec.Rules {
				routes = append(routes, *r.Matches[0].Path.Value+"→"+string(r.BackendRefs[0].Name))
			}
		case *autoscalingv2.HorizontalPodAutoscaler, *policyv1.PodDisruptionBudget:
		}
	}
	want := func(kind string, names ...string) {
		t.Helper()
		for _, n := range names {
			if !slices.Contains(kinds[kind], n) {
				t.Errorf("no %s %s; have %v", kind, n, kinds[kind])
			}
		}
	}
	want("NetworkPolicy", "chartd-default-deny")
	if distributed {
		want("Deployment", "chartd-gateway", "chartd-chart", "chartd-data", "chartd-brand", "chartd-operator")
		want("PodDisruptionBudget", "chartd-gateway", "chartd-chart", "chartd-data", "chartd-brand", "chartd-operator")
		want("RenderFleet", "chartd-render")
		want("NetworkPolicy", "chartd-gateway", "chartd-chart", "chartd-data", "chartd-brand", "chartd-render", "chartd-operator")
		hpas := []string{"chartd-chart", "chartd-data"}
		if !strings.Contains(tc.values, "autoscaling: {enabled: false") {
			hpas = append(hpas, "chartd-gateway")
		}
		want("HorizontalPodAutoscaler", hpas...)
		if strings.Contains(tc.values, "existingSecret") == slices.Contains(kinds["Secret"], "chartd") {
			t.Errorf("Secrets %v: the chart makes one exactly when no existingSecret is given", kinds["Secret"])
		}
	} else {
		want("Deployment", "chartd")
	}
	site, img := "chartd", "chartd"
	if distributed {
		site, img = "chartd-gateway", "chartd-render"
	}
	if len(routes) > 0 && !(slices.Contains(routes, "/img→"+img) && slices.Contains(routes, "/→"+site)) {
		t.Errorf("routes %v: want /img→%s and /→%s", routes, img, site)
	}
	if len(routes) == 0 {
		t.Errorf("no Ingress or HTTPRoute")
	}
}

// checkTrustedProxies: with trustedProxies set, the processes behind the
// ingress (the gateway, render, single mode's chartd) get their
// -<service>.trusted-proxies flags, and no other process does; without
// it none does.
func checkTrustedProxies(t *testing.T, tc valueCase, name string, args []string) {
	t.Helper()
	var want []string
	if strings.Contains(tc.values, "trustedProxies:") {
		switch name {
		case "chartd":
			want = []string{"gateway", "render"}
		case "chartd-gateway":
			want = []string{"gateway"}
		case "chartd-render":
			want = []string{"render"}
		}
	}
	var got []string
	for _, a := range args {
		flagName, value, _ := strings.Cut(strings.TrimPrefix(a, "-"), "=")
		if svc, ok := strings.CutSuffix(flagName, ".trusted-proxies"); ok {
			got = append(got, svc)
			if value == "" || strings.Contains(value, " ") {
				t.Errorf("%s: %s: want comma-separated CIDRs", name, a)
			}
		}
	}
	if !slices.Equal(got, want) {
		t.Errorf("%s: -<service>.trusted-proxies flags for %v, want %v (args %q)", name, got, want, args)
	}
}

// checkShutdownDelay: every chartd process gets -shutdown.delay from
// shutdownDelaySeconds (5 when the case leaves it to the default).
func checkShutdownDelay(t *testing.T, tc valueCase, name string, args []string) {
	t.Helper()
	vals, err := chartutil.ReadValues([]byte(tc.values))
	if err != nil {
		t.Fatal(err)
	}
	want := "-shutdown.delay=5s"
	if v, ok := vals["shutdownDelaySeconds"]; ok {
		want = fmt.Sprintf("-shutdown.delay=%vs", v)
	}
	if !slices.Contains(args, want) {
		t.Errorf("%s: want %s in %q", name, want, args)
	}
}

// checkPod: probes, resources, a locked-down security context and a
// grace period above the shutdown delay plus the drain timeout.
func checkPod(t *testing.T, name string, p corev1.PodSpec) {
	t.Helper()
	if p.SecurityContext == nil || p.SecurityContext.RunAsNonRoot == nil || !*p.SecurityContext.RunAsNonRoot ||
		p.SecurityContext.SeccompProfile == nil || p.SecurityContext.SeccompProfile.Type != corev1.SeccompProfileTypeRuntimeDefault {
		t.Errorf("%s: pod security context %+v", name, p.SecurityContext)
	}
	for _, c := range p.Containers {
		sc := c.SecurityContext
		if sc == nil || sc.AllowPrivilegeEscalation == nil || *sc.AllowPrivilegeEscalation || sc.ReadOnlyRootFilesystem == nil ||
			!*sc.ReadOnlyRootFilesystem || sc.Capabilities == nil || !slices.Contains(sc.Capabilities.Drop, "ALL") {
			t.Errorf("%s/%s: container security context %+v", name, c.Name, sc)
		}
		if c.ReadinessProbe == nil || c.LivenessProbe == nil || c.ReadinessProbe.HTTPGet == nil || c.LivenessProbe.HTTPGet == nil {
			t.Errorf("%s/%s: want HTTP readiness and liveness probes", name, c.Name)
			continue
		}
		if c.Resources.Requests.Cpu().IsZero() || c.Resources.Requests.Memory().IsZero() || c.Resources.Limits.Memory().IsZero() {
			t.Errorf("%s/%s: want cpu and memory requests and a memory limit, have %+v", name, c.Name, c.Resources)
		}
		if c.Name == "operator" {
			continue
		}
		checkEphemeral(t, name, p, c.Resources)
		if c.ReadinessProbe.HTTPGet.Path != "/readyz" || c.LivenessProbe.HTTPGet.Path != "/healthz" {
			t.Errorf("%s/%s: probes on %s and %s", name, c.Name, c.ReadinessProbe.HTTPGet.Path, c.LivenessProbe.HTTPGet.Path)
		}
		if p.TerminationGracePeriodSeconds == nil || *p.TerminationGracePeriodSeconds <= stopSeconds(t, c.Args) {
			t.Errorf("%s: terminationGracePeriodSeconds %v is not above -shutdown.delay plus -shutdown-timeout", name, p.TerminationGracePeriodSeconds)
		}
		if len(p.TopologySpreadConstraints) == 0 && name != "chartd" {
			t.Errorf("%s: no topology spread", name)
		}
	}
}

// checkEphemeral: a chartd container asks for and is limited in
// ephemeral storage, and its /tmp emptyDir is bounded by that limit, so a
// pod filling its disk is evicted, not the node.
func checkEphemeral(t *testing.T, name string, p corev1.PodSpec, r corev1.ResourceRequirements) {
	t.Helper()
	limit, ok := r.Limits[corev1.ResourceEphemeralStorage]
	if req, rok := r.Requests[corev1.ResourceEphemeralStorage]; !ok || !rok || req.IsZero() || limit.Cmp(req) < 0 {
		t.Errorf("%s: want an ephemeral-storage request and a limit above it, have %+v", name, r)
		return
	}
	for _, v := range p.Volumes {
		if v.Name == "tmp" {
			if v.EmptyDir == nil || v.EmptyDir.SizeLimit == nil || v.EmptyDir.SizeLimit.Cmp(limit) != 0 {
				t.Errorf("%s: /tmp emptyDir %+v: want sizeLimit %s (the ephemeral-storage limit)", name, v.EmptyDir, limit.String())
			}
			return
		}
	}
	t.Errorf("%s: no tmp volume", name)
}

// stopSeconds is how long chartd may take after SIGTERM with these args:
// it keeps serving for -shutdown.delay, then drains for -shutdown-timeout.
// Both must be given, so the chart, not chartd's defaults, sets the sum.
func stopSeconds(t *testing.T, args []string) int64 {
	t.Helper()
	var sum time.Duration
	for _, flag := range []string{"-shutdown.delay", "-shutdown-timeout"} {
		found := false
		for _, a := range args {
			if v, ok := strings.CutPrefix(a, flag+"="); ok {
				d, err := time.ParseDuration(v)
				if err != nil {
					t.Fatalf("%s %q: %v", flag, v, err)
				}
				sum += d
				found = true
			}
		}
		if !found {
			t.Errorf("no %s in %v", flag, args)
		}
	}
	return int64(sum / time.Second)
}
