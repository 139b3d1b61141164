// Package deploytest checks what an SRE installs: the Helm chart in
// helm/chartd and the kustomize overlays in k8s/, rendered the way Helm
// and kubectl do, decoded strictly with the client-go scheme and sent to
// a real kube-apiserver with server-side dry-run.
package deploytest

import (
	"bytes"
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"regexp"
	"slices"
	"sort"
	"strings"
	"testing"

	"helm.sh/helm/v3/pkg/chart/loader"
	"helm.sh/helm/v3/pkg/chartutil"
	"helm.sh/helm/v3/pkg/engine"
	"helm.sh/helm/v3/pkg/lint"
	"helm.sh/helm/v3/pkg/lint/support"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	apiextensionsv1 "k8s.io/apiextensions-apiserver/pkg/apis/apiextensions/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/runtime/serializer"
	clientgoscheme "k8s.io/client-go/kubernetes/scheme"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/kustomize/api/krusty"
	"sigs.k8s.io/kustomize/kyaml/filesys"
	"sigs.k8s.io/yaml"

	"chartd.dev/services/operator/api/v1alpha1"
	"chartd.dev/services/operator/internal/controller"
	"chartd.dev/services/operator/internal/kubetest"
)

var update = flag.Bool("update", false, "rewrite k8s/overlays/*/chartd.yaml from the Helm chart, and docs/img/fleet-autoscale.png from TestFleetAutoscales's run")

const (
	repoRoot = "../../.."
	chartDir = repoRoot + "/helm/chartd"
)

// newScheme knows every kind the chart and the overlays may hold.
func newScheme(t testing.TB) *runtime.Scheme {
	t.Helper()
	s := runtime.NewScheme()
	for _, add := range []func(*runtime.Scheme) error{clientgoscheme.AddToScheme, apiextensionsv1.AddToScheme, v1alpha1.AddToScheme, gatewayv1.Install} {
		if err := add(s); err != nil {
			t.Fatal(err)
		}
	}
	return s
}

// gatewayCRD is the Gateway API's HTTPRoute CRD, from the module the
// scheme's types come from.
func gatewayCRD(t testing.TB) string {
	t.Helper()
	dir, err := moduleDir("sigs.k8s.io/gateway-api")
	if err != nil {
		t.Fatal(err)
	}
	return filepath.Join(dir, "config", "crd", "standard", "gateway.networking.k8s.io_httproutes.yaml")
}

// valueCase is one set of values the chart must render and install with.
type valueCase struct {
	name   string
	values string
}

const distributedBase = `
deploymentMode: distributed
s3: {endpoint: "minio.storage:9000", secure: false}
`

const inlineSecrets = `
secrets:
  postgresURL: postgres://chartd:pw@postgres.db:5432/chartd
  redisURL: redis://redis.db:6379/0
  s3AccessKey: chartd
  s3SecretKey: secret-secret
`

// valueCases are the matrix: both modes, TLS on and off, existingSecret,
// Gateway API HTTPRoute instead of the Ingress.
func valueCases() []valueCase {
	return []valueCase{
		{"single defaults", ``},
		{"single tls trusted proxies", `
publicURL: https://charts.example.com
ingress: {host: charts.example.com, className: nginx, tls: {enabled: true}}
single: {persistence: {enabled: false}}
trustedProxies: [10.244.0.0/16]
`},
		{"single httproute", `
ingress: {enabled: false}
httpRoute: {enabled: true, parentRefs: [{name: public, namespace: gateways}]}
`},
		{"distributed inline secrets", distributedBase + inlineSecrets},
		{"distributed mail", distributedBase + inlineSecrets + `  smtpURL: smtp://chartd:pw@mail.example.com:587
mail: {from: "chartd <no-reply@example.com>"}
`},
		{"single mail from existingSecret", `
secrets: {existingSecret: chartd-credentials}
mail: {from: "chartd <no-reply@example.com>"}
`},
		{"distributed existingSecret tls otel trusted proxies", distributedBase + `
publicURL: https://charts.example.com
secrets: {existingSecret: chartd-credentials}
ingress: {host: charts.example.com, tls: {enabled: true, secretName: charts-tls}}
otel: {endpoint: "http://otel-collector.observability:4318"}
trustedProxies: [10.244.0.0/16, "fd00:10::/64"]
`},
		{"distributed httproute no autoscaling", distributedBase + inlineSecrets + `
ingress: {enabled: false}
httpRoute: {enabled: true, parentRefs: [{name: public, namespace: gateways}], hostnames: [charts.example.com]}
gateway: {autoscaling: {enabled: false, minReplicas: 2, maxReplicas: 10, targetCPUUtilizationPercentage: 70}}
networkPolicy: {postgres: {port: 5432, to: [{ipBlock: {cidr: 10.1.0.0/16}}]}}
render: {minReplicas: 1, maxReplicas: 3}
shutdownDelaySeconds: 12
terminationGracePeriodSeconds: 33
`},
	}
}

// renderChart renders the chart as `helm template` does, with values
// validated against values.schema.json.
func renderChart(t testing.TB, valuesYAML, namespace string) (map[string]string, error) {
	t.Helper()
	ch, err := loader.Load(chartDir)
	if err != nil {
		t.Fatalf("load chart: %v", err)
	}
	vals, err := chartutil.ReadValues([]byte(valuesYAML))
	if err != nil {
		t.Fatalf("values: %v", err)
	}
	caps := chartutil.DefaultCapabilities.Copy()
	caps.KubeVersion = chartutil.KubeVersion{Version: "v1.37.2", Major: "1", Minor: "37"}
	rv, err := chartutil.ToRenderValues(ch, vals, chartutil.ReleaseOptions{Name: "chartd", Namespace: namespace, IsInstall: true}, caps)
	if err != nil {
		return nil, err
	}
	return engine.Render(ch, rv)
}

// documents splits rendered manifests into non-empty YAML documents, in a
// stable order.
func documents(files map[string]string) []string {
	names := make([]string, 0, len(files))
	for n := range files {
		if strings.HasSuffix(n, ".yaml") || strings.HasSuffix(n, ".yml") {
			names = append(names, n)
		}
	}
	sort.Strings(names)
	var docs []string
	for _, n := range names {
		docs = append(docs, splitYAML(files[n])...)
	}
	return docs
}

var docSep = regexp.MustCompile(`(?m)^---\s*$`)

func splitYAML(s string) []string {
	var out []string
	for _, d := range docSep.Split(s, -1) {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(d), &m); err == nil && len(m) == 0 {
			continue
		}
		out = append(out, d)
	}
	return out
}

// decodeStrict decodes every document into its typed object, refusing
// unknown and duplicate fields.
func decodeStrict(t testing.TB, s *runtime.Scheme, docs []string) []client.Object {
	t.Helper()
	dec := serializer.NewCodecFactory(s, serializer.EnableStrict).UniversalDeserializer()
	var objs []client.Object
	for _, d := range docs {
		obj, gvk, err := dec.Decode([]byte(d), nil, nil)
		if err != nil {
			t.Errorf("strict decode: %v\n%s", err, d)
			continue
		}
		co, ok := obj.(client.Object)
		if !ok {
			t.Errorf("%s is not an object", gvk)
			continue
		}
		co.GetObjectKind().SetGroupVersionKind(*gvk)
		objs = append(objs, co)
	}
	return objs
}

// dryRun sends every object to the API server with server-side dry-run,
// in namespace ns, so admission and validation run as on an install.
func dryRun(t testing.TB, c client.Client, ns string, objs []client.Object) {
	t.Helper()
	ctx := context.Background()
	for _, o := range objs {
		u := &unstructured.Unstructured{}
		raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			t.Fatal(err)
		}
		u.SetUnstructuredContent(raw)
		u.SetGroupVersionKind(o.GetObjectKind().GroupVersionKind())
		if u.GetKind() == "Namespace" || u.GetKind() == "CustomResourceDefinition" {
			continue // created for real by the caller
		}
		scoped, err := c.IsObjectNamespaced(u)
		if err != nil {
			t.Errorf("%s %s: %v", u.GetKind(), u.GetName(), err)
			continue
		}
		if scoped {
			u.SetNamespace(ns)
		}
		if err := c.Create(ctx, u, client.DryRunAll); err != nil {
			t.Errorf("dry-run create %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
}

func createNamespace(t testing.TB, c client.Client, name string) {
	t.Helper()
	if err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metaName(name)}); err != nil {
		t.Fatalf("create namespace %s: %v", name, err)
	}
}

// TestChartMail: the gateway (or the single process) reads its SMTP URL
// from the Secret's optional smtp-url key and gets the From address as a
// flag; the chart's own Secret carries the URL given.
func TestChartMail(t *testing.T) {
	s := newScheme(t)
	for _, tc := range valueCases() {
		if !strings.Contains(tc.name, "mail") {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			files, err := renderChart(t, tc.values, "mail")
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			var env, args bool
			for _, o := range decodeStrict(t, s, documents(files)) {
				switch o := o.(type) {
				case *corev1.Secret:
					if !strings.Contains(tc.name, "existingSecret") && o.StringData["smtp-url"] != "smtp://chartd:pw@mail.example.com:587" {
						t.Errorf("Secret %s smtp-url = %q", o.Name, o.StringData["smtp-url"])
					}
				case *appsv1.Deployment, *appsv1.StatefulSet:
					var spec corev1.PodSpec
					if d, ok := o.(*appsv1.Deployment); ok {
						spec = d.Spec.Template.Spec
					} else {
						spec = o.(*appsv1.StatefulSet).Spec.Template.Spec
					}
					for _, c := range spec.Containers {
						if !slices.Contains(c.Args, "-target=gateway") && !slices.Contains(c.Args, "-target=all") {
							continue
						}
						args = args || slices.Contains(c.Args, "-gateway.mail.from=chartd <no-reply@example.com>")
						for _, e := range c.Env {
							if e.Name == "CHARTD_GATEWAY_MAIL_SMTP_URL" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil &&
								e.ValueFrom.SecretKeyRef.Key == "smtp-url" && e.ValueFrom.SecretKeyRef.Optional != nil && *e.ValueFrom.SecretKeyRef.Optional {
								env = true
							}
						}
					}
				}
			}
			if !env || !args {
				t.Errorf("gateway: SMTP URL from the Secret %v, -gateway.mail.from flag %v; want both", env, args)
			}
		})
	}
}

// TestChartNotesMail: the install notes say when sign-up on the site is
// off for want of a mail server (chartd never logs the mails' sign-in
// links instead), and how to turn it on in that mode.
func TestChartNotesMail(t *testing.T) {
	for _, tt := range []struct {
		values      string
		off         bool
		instruction string
	}{
		{"", true, "set secrets.existingSecret"},
		{distributedBase + inlineSecrets, true, "set secrets.smtpURL"},
		{distributedBase + inlineSecrets + "  smtpURL: smtp://chartd:pw@mail.example.com:587\n", false, "secrets.smtpURL"},
		{"secrets: {existingSecret: chartd-credentials}", false, "key smtp-url of the Secret chartd-credentials"},
	} {
		files, err := renderChart(t, tt.values, "notes")
		if err != nil {
			t.Fatalf("render %q: %v", tt.values, err)
		}
		notes := files["chartd/templates/NOTES.txt"]
		if strings.Contains(notes, "SIGN-UP IS OFF") != tt.off || !strings.Contains(notes, tt.instruction) || strings.Contains(notes, "logs them") {
			t.Errorf("values %q: NOTES.txt, want sign-up off %v and %q:\n%s", tt.values, tt.off, tt.instruction, notes)
		}
	}
}

// TestChartAndOverlays renders the chart for every value case and builds
// every overlay, then installs each with server-side dry-run.
func TestChartAndOverlays(t *testing.T) {
	s := newScheme(t)
	cfg := kubetest.Start(t, s, chartDir+"/crds", gatewayCRD(t))
	c, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	for i, tc := range valueCases() {
		t.Run("chart/"+tc.name, func(t *testing.T) {
			ns := fmt.Sprintf("chart-%d", i)
			files, err := renderChart(t, tc.values, ns)
			if err != nil {
				t.Fatalf("render: %v", err)
			}
			objs := decodeStrict(t, s, documents(files))
			checkWorkloads(t, tc, objs)
			createNamespace(t, c, ns)
			dryRun(t, c, ns, objs)
		})
	}
	t.Run("dry-run refuses what the API server would", func(t *testing.T) {
		createNamespace(t, c, "refuse")
		bad := &unstructured.Unstructured{Object: map[string]any{"apiVersion": "apps/v1", "kind": "Deployment",
			"metadata": map[string]any{"name": "bad", "namespace": "refuse"},
			"spec": map[string]any{"selector": map[string]any{"matchLabels": map[string]any{"a": "b"}},
				"template": map[string]any{"metadata": map[string]any{"labels": map[string]any{"a": "c"}},
					"spec": map[string]any{"containers": []any{map[string]any{"name": "x", "image": "x"}}}}}}}
		if err := c.Create(context.Background(), bad, client.DryRunAll); err == nil || !strings.Contains(err.Error(), "selector") {
			t.Fatalf("dry-run of a Deployment whose selector misses its pods: %v", err)
		}
	})
	for _, overlay := range []string{"single", "distributed"} {
		t.Run("kustomize/"+overlay, func(t *testing.T) {
			docs := kustomizeBuild(t, repoRoot+"/k8s/overlays/"+overlay)
			objs := decodeStrict(t, s, docs)
			var nsName string
			for _, o := range objs {
				if o.GetObjectKind().GroupVersionKind().Kind == "Namespace" {
					nsName = o.GetName()
				}
			}
			if nsName == "" {
				t.Fatal("the overlay has no Namespace")
			}
			if err := c.Create(context.Background(), &corev1.Namespace{ObjectMeta: metaName(nsName)}); err != nil && !strings.Contains(err.Error(), "already exists") {
				t.Fatal(err)
			}
			dryRun(t, c, nsName, objs)
		})
	}
}

func kustomizeBuild(t testing.TB, dir string) []string {
	t.Helper()
	k := krusty.MakeKustomizer(krusty.MakeDefaultOptions())
	m, err := k.Run(filesys.MakeFsOnDisk(), dir)
	if err != nil {
		t.Fatalf("kustomize build %s: %v", dir, err)
	}
	out, err := m.AsYaml()
	if err != nil {
		t.Fatal(err)
	}
	return splitYAML(string(out))
}

// TestStrictDecode: the decoder the chart tests use refuses unknown and
// duplicate fields, so a misspelled field in a template fails.
func TestStrictDecode(t *testing.T) {
	tests := []struct{ name, doc, want string }{
		{"unknown field", "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {portz: []}\n", "unknown field"},
		{"duplicate field", "apiVersion: v1\nkind: Service\nmetadata: {name: x}\nspec: {type: ClusterIP, type: NodePort}\n", "already set"},
	}
	dec := serializer.NewCodecFactory(newScheme(t), serializer.EnableStrict).UniversalDeserializer()
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, _, err := dec.Decode([]byte(tt.doc), nil, nil)
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("decode: %v, want %q", err, tt.want)
			}
		})
	}
}

// TestHelmLint runs helm lint (the library the CLI uses) on every value
// case; any warning or error fails.
func TestHelmLint(t *testing.T) {
	for _, tc := range valueCases() {
		t.Run(tc.name, func(t *testing.T) {
			vals, err := chartutil.ReadValues([]byte(tc.values))
			if err != nil {
				t.Fatal(err)
			}
			l := lint.AllWithKubeVersion(chartDir, vals, "chartd", &chartutil.KubeVersion{Version: "v1.37.2", Major: "1", Minor: "37"})
			for _, m := range l.Messages {
				if m.Severity >= support.WarningSev {
					t.Errorf("helm lint: %s", m)
				}
			}
		})
	}
}

// TestChartRefuses: misspelled values and settings that cannot work fail
// the install with a message naming them.
func TestChartRefuses(t *testing.T) {
	tests := []struct {
		name, values, want string
	}{
		{"misspelled top-level value", `replicaCount: 3`, "replicaCount"},
		{"misspelled nested value", `gateway: {replica: 3}`, "replica"},
		{"unknown mode", `deploymentMode: cluster`, "deploymentMode"},
		{"bad secrets key", `secrets: {secretsKey: nothex}`, "secretsKey"},
		{"grace shorter than drain", `{shutdownTimeoutSeconds: 30, terminationGracePeriodSeconds: 30}`, "terminationGracePeriodSeconds (30) must be larger"},
		{"grace shorter than delay plus drain", `{shutdownDelaySeconds: 15, shutdownTimeoutSeconds: 20, terminationGracePeriodSeconds: 30}`,
			"terminationGracePeriodSeconds (30) must be larger than shutdownDelaySeconds + shutdownTimeoutSeconds (15 + 20 = 35)"},
		{"negative delay", `shutdownDelaySeconds: -1`, "shutdownDelaySeconds"},
		{"distributed without postgres", distributedBase, "secrets.postgresURL"},
		{"distributed without s3", `{deploymentMode: distributed, secrets: {existingSecret: x}}`, "s3.endpoint is required"},
		{"tls without https", `ingress: {tls: {enabled: true}}`, "https://"},
		{"httproute without parent", `httpRoute: {enabled: true}`, "parentRefs"},
		{"trusted proxy not a CIDR", `trustedProxies: [ingress-nginx]`, "trustedProxies"},
		{"trusting every address", `trustedProxies: [0.0.0.0/0]`, "trustedProxies"},
		{"render minReplicas above maxReplicas", distributedBase + inlineSecrets + `render: {minReplicas: 5, maxReplicas: 3}`, "render.minReplicas (5) must not exceed render.maxReplicas (3)"},
		{"HPA minReplicas above maxReplicas", distributedBase + inlineSecrets + `chart: {autoscaling: {enabled: true, minReplicas: 12, maxReplicas: 10, targetCPUUtilizationPercentage: 70}}`,
			"chart.autoscaling.minReplicas (12) must not exceed chart.autoscaling.maxReplicas (10)"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := renderChart(t, tt.values, "chartd")
			if err == nil || !strings.Contains(err.Error(), tt.want) {
				t.Fatalf("error %v, want one naming %q", err, tt.want)
			}
		})
	}
}

// TestOverlaysMatchChart: the kustomize overlays are the chart rendered
// with fixed values (go test ./deploytest -update rewrites them), so
// `kubectl apply -k` and `helm install` give the same objects.
func TestOverlaysMatchChart(t *testing.T) {
	for _, mode := range []string{"single", "distributed"} {
		t.Run(mode, func(t *testing.T) {
			want := overlayManifest(t, mode)
			path := filepath.Join(repoRoot, "k8s", "overlays", mode, "chartd.yaml")
			if *update {
				if err := os.WriteFile(path, want, 0o644); err != nil {
					t.Fatal(err)
				}
			}
			got, err := os.ReadFile(path)
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("%s differs from the chart rendered for kustomize; run go test ./deploytest -run TestOverlaysMatchChart -update", path)
			}
		})
	}
}

// overlayManifest renders the chart for an overlay: release chartd in
// namespace chartd, credentials in the Secret chartd-secrets the overlay
// generates, without Helm's own labels.
func overlayManifest(t testing.TB, mode string) []byte {
	t.Helper()
	values := "deploymentMode: single\n"
	if mode == "distributed" {
		values = "deploymentMode: distributed\nsecrets: {existingSecret: chartd-secrets}\ns3: {endpoint: \"minio.chartd:9000\"}\n"
	}
	files, err := renderChart(t, values, "chartd")
	if err != nil {
		t.Fatal(err)
	}
	var out bytes.Buffer
	out.WriteString("# Generated from helm/chartd (deploymentMode: " + mode + ") by services/operator/deploytest;\n# do not edit: change the chart and run go test ./deploytest -run TestOverlaysMatchChart -update.\n")
	for _, d := range documents(files) {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(d), &m); err != nil {
			t.Fatal(err)
		}
		stripHelmLabels(m)
		b, err := yaml.Marshal(m)
		if err != nil {
			t.Fatal(err)
		}
		out.WriteString("---\n")
		out.Write(b)
	}
	return out.Bytes()
}

// stripHelmLabels removes the labels only Helm sets, everywhere.
func stripHelmLabels(v any) {
	switch x := v.(type) {
	case map[string]any:
		if labels, ok := x["labels"].(map[string]any); ok {
			delete(labels, "helm.sh/chart")
			if labels["app.kubernetes.io/managed-by"] == "Helm" {
				labels["app.kubernetes.io/managed-by"] = "kustomize"
			}
		}
		for _, e := range x {
			stripHelmLabels(e)
		}
	case []any:
		for _, e := range x {
			stripHelmLabels(e)
		}
	}
}

// TestGeneratedCopies: the CRD and RBAC controller-gen writes into k8s/
// are the ones the chart ships.
func TestGeneratedCopies(t *testing.T) {
	tests := []struct{ generated, copy string }{
		{"k8s/crd/chartd.dev_renderfleets.yaml", "helm/chartd/crds/chartd.dev_renderfleets.yaml"},
		{"k8s/rbac/role.yaml", "helm/chartd/files/operator-role.yaml"},
	}
	for _, tt := range tests {
		t.Run(tt.copy, func(t *testing.T) {
			a, err := os.ReadFile(filepath.Join(repoRoot, tt.generated))
			if err != nil {
				t.Fatal(err)
			}
			b, err := os.ReadFile(filepath.Join(repoRoot, tt.copy))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(a, b) {
				t.Fatalf("%s differs from %s: run make manifests", tt.copy, tt.generated)
			}
		})
	}
}

// TestChartReadmeListsEveryValue: helm/chartd/README.md names every leaf
// of values.yaml.
func TestChartReadmeListsEveryValue(t *testing.T) {
	raw, err := os.ReadFile(chartDir + "/values.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var vals map[string]any
	if err := yaml.Unmarshal(raw, &vals); err != nil {
		t.Fatal(err)
	}
	readme, err := os.ReadFile(chartDir + "/README.md")
	if err != nil {
		t.Fatal(err)
	}
	var missing []string
	for _, k := range leafKeys("", vals) {
		if !bytes.Contains(readme, []byte("`"+k+"`")) {
			missing = append(missing, k)
		}
	}
	if len(missing) > 0 {
		t.Fatalf("helm/chartd/README.md does not list: %s", strings.Join(missing, ", "))
	}
}

// leafKeys lists the dotted paths of values whose value is not a map of
// further settings (resource maps and label maps count as one value).
func leafKeys(prefix string, m map[string]any) []string {
	var out []string
	for k, v := range m {
		p := k
		if prefix != "" {
			p = prefix + "." + k
		}
		sub, ok := v.(map[string]any)
		if ok && len(sub) > 0 && !slices.Contains([]string{"resources", "annotations", "labels", "podLabels", "podAnnotations", "nodeSelector", "affinity"}, k) {
			out = append(out, leafKeys(p, sub)...)
			continue
		}
		out = append(out, p)
	}
	sort.Strings(out)
	return out
}

// TestMonitoringObjects: with serviceMonitor.enabled the chart makes a
// PodMonitor for chartd's pods on their metrics port, a PrometheusRule
// whose groups are monitoring/alerts.yaml and the Grafana dashboard
// ConfigMap holding monitoring/dashboard.json; every chartd container
// has the metrics port and serves it (-metrics-addr).
func TestMonitoringObjects(t *testing.T) {
	files, err := renderChart(t, distributedBase+inlineSecrets+"serviceMonitor: {enabled: true}\n", "chartd")
	if err != nil {
		t.Fatal(err)
	}
	kinds := map[string]map[string]any{}
	for _, d := range documents(files) {
		var m map[string]any
		if err := yaml.Unmarshal([]byte(d), &m); err != nil {
			t.Fatal(err)
		}
		kind, _ := m["kind"].(string)
		name, _, _ := unstructured.NestedString(m, "metadata", "name")
		kinds[kind+"/"+name] = m
	}
	alerts, err := os.ReadFile(filepath.Join(chartDir, "monitoring", "alerts.yaml"))
	if err != nil {
		t.Fatal(err)
	}
	var want map[string]any
	if err := yaml.Unmarshal(alerts, &want); err != nil {
		t.Fatal(err)
	}
	rule := kinds["PrometheusRule/chartd"]
	if rule == nil || !reflect.DeepEqual(rule["spec"], want) {
		t.Errorf("PrometheusRule spec is not monitoring/alerts.yaml: %v", rule)
	}
	dash, err := os.ReadFile(filepath.Join(chartDir, "monitoring", "dashboard.json"))
	if err != nil {
		t.Fatal(err)
	}
	cm := kinds["ConfigMap/chartd-dashboard"]
	got, _, _ := unstructured.NestedString(cm, "data", "chartd.json")
	if cm == nil || strings.TrimSpace(got) != strings.TrimSpace(string(dash)) {
		t.Errorf("dashboard ConfigMap does not hold monitoring/dashboard.json")
	}
	if l, _, _ := unstructured.NestedString(cm, "metadata", "labels", "grafana_dashboard"); l != "1" {
		t.Errorf("dashboard ConfigMap label grafana_dashboard %q", l)
	}
	pm := kinds["PodMonitor/chartd"]
	eps, _, _ := unstructured.NestedSlice(pm, "spec", "podMetricsEndpoints")
	if pm == nil || len(eps) != 1 || eps[0].(map[string]any)["port"] != "metrics" {
		t.Fatalf("PodMonitor %v", pm)
	}
	s := newScheme(t)
	deployments := 0
	for _, o := range decodeStrict(t, s, onlyKinds(documents(files), "Deployment", "RenderFleet")) {
		var c corev1.Container
		var args []string
		switch o := o.(type) {
		case *appsv1.Deployment:
			if o.Labels["app.kubernetes.io/component"] == "operator" {
				continue
			}
			c = o.Spec.Template.Spec.Containers[0]
			args = c.Args
		case *v1alpha1.RenderFleet:
			// The operator adds the port from the args.
			args = o.Spec.Args
			c.Ports = controller.ContainerPorts(args)
		default:
			continue
		}
		deployments++
		if !slices.Contains(args, "-metrics-addr=0.0.0.0:9090") || !slices.ContainsFunc(c.Ports, func(p corev1.ContainerPort) bool { return p.Name == "metrics" && p.ContainerPort == 9090 }) {
			t.Errorf("%s: args %v ports %v: want -metrics-addr and port metrics 9090", o.GetName(), args, c.Ports)
		}
	}
	if deployments != 5 {
		t.Errorf("%d chartd workloads checked, want 5", deployments)
	}
}

// onlyKinds keeps the documents of the given kinds.
func onlyKinds(docs []string, kinds ...string) []string {
	var out []string
	for _, d := range docs {
		var m struct {
			Kind string `json:"kind"`
		}
		if yaml.Unmarshal([]byte(d), &m) == nil && slices.Contains(kinds, m.Kind) {
			out = append(out, d)
		}
	}
	return out
}

// TestChromiumPin: the render image pins the Chromium package the tests
// here run (their pixel goldens are this version's), the chart's
// images.render.chromiumVersion is its upstream version, and both render
// workloads pass it as -render.chromium-version, so a pod built with
// another Chromium refuses to start.
func TestChromiumPin(t *testing.T) {
	df, err := os.ReadFile(filepath.Join(repoRoot, "Dockerfile"))
	if err != nil {
		t.Fatal(err)
	}
	m := regexp.MustCompile(`(?m)^ARG CHROMIUM_VERSION=(\S+)$`).FindSubmatch(df)
	if m == nil || !strings.Contains(string(df), "chromium=${CHROMIUM_VERSION} chromium-common=${CHROMIUM_VERSION}") {
		t.Fatal("the Dockerfile does not pin the chromium package with ARG CHROMIUM_VERSION")
	}
	pinned := string(m[1])
	out, err := exec.Command("dpkg-query", "-W", "-f=${Version}", "chromium").Output()
	if err != nil {
		t.Fatalf("dpkg-query chromium: %v", err)
	}
	if string(out) != pinned {
		t.Errorf("the image pins chromium %s, the tests here run %s: the goldens would not be the image's", pinned, out)
	}
	upstream, _, _ := strings.Cut(pinned, "-")
	for _, values := range []string{"", distributedBase + inlineSecrets} {
		files, err := renderChart(t, values, "chartd")
		if err != nil {
			t.Fatal(err)
		}
		found := 0
		for _, d := range documents(files) {
			if strings.Contains(d, "-render.chromium-version=") {
				found++
				if !strings.Contains(d, "-render.chromium-version="+upstream+"\n") {
					t.Errorf("a workload pins another Chromium than %s:\n%s", upstream, d)
				}
			}
		}
		if found != 1 {
			t.Errorf("values %q: %d workloads pass -render.chromium-version, want the one that renders", values, found)
		}
	}
}
