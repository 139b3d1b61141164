package deploytest

import (
	"bufio"
	"bytes"
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"maps"
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
	"testing"
	"time"

	"github.com/go-logr/logr"
	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	networkingv1 "k8s.io/api/networking/v1"
	"k8s.io/apimachinery/pkg/api/meta"
	metav1 "k8s.io/apimachinery/pkg/apis/meta/v1"
	"k8s.io/apimachinery/pkg/apis/meta/v1/unstructured"
	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"
	"k8s.io/client-go/rest"
	"k8s.io/client-go/tools/clientcmd"
	clientcmdapi "k8s.io/client-go/tools/clientcmd/api"
	ctrl "sigs.k8s.io/controller-runtime"
	"sigs.k8s.io/controller-runtime/pkg/client"
	gatewayv1 "sigs.k8s.io/gateway-api/apis/v1"
	"sigs.k8s.io/yaml"

	"chartd.dev/libs/brand/brandtest"
	"chartd.dev/libs/testserver"
	"chartd.dev/services/operator/api/v1alpha1"
	"chartd.dev/services/operator/internal/controller"
	"chartd.dev/services/operator/internal/fleetstats"
	"chartd.dev/services/operator/internal/kubetest"
)

const (
	// wiringNamespace is the namespace the release is rendered for; its
	// Services' DNS names end in it.
	wiringNamespace = "chartd"
	// fullname is the release's base name (release chartd of chart chartd).
	fullname = "chartd"
	// publicHost is the site's public name; the test's clients reach the
	// front proxy whatever name they dial, as DNS would lead it there.
	publicHost  = "charts.wiring.test"
	brandCorpus = repoRoot + "/libs/brand/testdata/sites"
)

// TestWiring starts the distributed mode's workloads as local processes,
// each from its rendered Deployment (command, args, env, ports, volumes,
// probes) on the image the Makefile builds for it. First the release is
// installed in a real API server and the chart's operator Deployment runs
// on it as its ServiceAccount; the render Deployment it makes from the
// chart's RenderFleet is the one run here. Service names map to loopback
// ports; a proxy built from the rendered Ingress (and another from the
// HTTPRoute) is the front door. The API tour through it — an account made
// with chartctl in the gateway pod, create, query, PNG, a link opened on
// /img, the brand palette saved, extracted from a website and drawn with
// — proves that the chart's flags, env, ports, routes and RBAC are right,
// on real PostgreSQL, Redis, MinIO and Chromium. Last, the render
// Deployment runs 2 replicas and is restarted pod by pod under load, with
// no failed request: the drain (-shutdown.delay) covers the endpoint lag.
func TestWiring(t *testing.T) {
	began := time.Now()
	root := wiringRoot(t)
	builds := buildBinaries(t, filepath.Join(root, "bin"))
	be := startBackends(t)
	site := brandtest.ServeSite(brandCorpus, "stripe-like")
	t.Cleanup(site.Close)

	files, err := renderChart(t, wiringValues(t, be, strings.TrimPrefix(site.URL, "http://")), wiringNamespace)
	if err != nil {
		t.Fatalf("render the chart: %v", err)
	}
	s := newScheme(t)
	rel := readRelease(t, decodeStrict(t, s, documents(files)))
	c := newCluster(t, rel, root)
	if !t.Run("the operator runs the render fleet", func(t *testing.T) {
		deps, svcs, _ := runOperator(t, s, c, rel, builds)
		rel.deployments = append(rel.deployments, deps...)
		for _, svc := range svcs {
			rel.services[svc.Name] = svc
		}
	}) {
		t.FailNow()
	}
	startPods(t, c, rel.deployments)
	t.Logf("%d pods ready %v after the start", len(c.pods), time.Since(began).Round(time.Second))

	var fronts []*frontProxy
	var ingressRules []frontRoute
	for _, ing := range rel.ingresses {
		routes, err := ingressRoutes(ing, c.servicePort)
		if err != nil {
			t.Fatal(err)
		}
		ingressRules = append(ingressRules, routes...)
		f, err := newFrontProxy("Ingress "+ing.Name, routes, c.endpoints)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.Close)
		fronts = append(fronts, f)
	}
	for _, hr := range rel.httpRoutes {
		routes, err := httpRouteRoutes(hr)
		if err != nil {
			t.Fatal(err)
		}
		f, err := newFrontProxy("HTTPRoute "+hr.Name, routes, c.endpoints)
		if err != nil {
			t.Fatal(err)
		}
		t.Cleanup(f.Close)
		fronts = append(fronts, f)
	}
	if len(fronts) != 2 {
		t.Fatalf("want the Ingress and the HTTPRoute, have %d front doors", len(fronts))
	}
	t.Run("the NetworkPolicies allow every connection the release makes", func(t *testing.T) {
		conns := connections(t, c, ingressRules)
		if err := checkNetworkPolicies(rel.policies, wiringNamespace, conns); err != nil {
			t.Fatal(err)
		}
		t.Logf("%d connections allowed", len(conns))
	})
	tour(t, c, rel, fronts[0], fronts[1], site.URL, be)
	t.Logf("wiring test: %v", time.Since(began).Round(time.Second))
}

// wiringRoot is the test's directory tree: binaries, pods, volumes. Pods
// run as their own user, so it is readable by all.
func wiringRoot(t *testing.T) string {
	t.Helper()
	root, err := os.MkdirTemp("", "chartd-wiring-")
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { os.RemoveAll(root) })
	if err := os.Chmod(root, 0o755); err != nil {
		t.Fatal(err)
	}
	if err := os.Mkdir(filepath.Join(root, "bin"), 0o755); err != nil {
		t.Fatal(err)
	}
	return root
}

// binaries are the build stage's outputs, built from this tree: image
// path of the build stage (/out/chartd) → host path.
type binaries struct {
	paths map[string]string
	err   error
}

// buildBinaries builds chartd, chartctl and the operator into dir in the
// background, as the Dockerfile's build stage does; the builds stop with
// the test.
func buildBinaries(t *testing.T, dir string) <-chan binaries {
	ctx, cancel := context.WithCancel(context.Background())
	out := make(chan binaries, 1)
	done := make(chan struct{})
	t.Cleanup(func() {
		cancel()
		<-done
	})
	go func() {
		defer close(done)
		b := binaries{paths: map[string]string{}}
		for _, bld := range []struct{ dir, pkg, out string }{
			{repoRoot + "/services/chartd", ".", "chartd"},
			{repoRoot + "/tools", "./chartctl", "chartctl"},
			{repoRoot + "/services/operator", "./cmd", "operator"},
		} {
			host := filepath.Join(dir, bld.out)
			cmd := exec.CommandContext(ctx, "go", "build", "-o", host, bld.pkg)
			cmd.Dir = bld.dir
			if msg, err := cmd.CombinedOutput(); err != nil {
				b.err = fmt.Errorf("go build -o %s %s (in %s): %w\n%s", host, bld.pkg, bld.dir, err, msg)
				break
			}
			b.paths["/out/"+bld.out] = host
		}
		out <- b
	}()
	return out
}

// backends are the real servers the release is given as URLs and
// Secrets.
type backends struct {
	postgresURL, redisURL             string
	s3Endpoint, s3Access, s3SecretKey string
}

func startBackends(t *testing.T) backends {
	t.Helper()
	pg, err := testserver.StartPostgres()
	if err != nil {
		t.Fatalf("PostgreSQL: %v", err)
	}
	t.Cleanup(func() { pg.Stop() })
	pgURL, err := pg.CreateDatabase("chartd")
	if err != nil {
		t.Fatal(err)
	}
	rd, err := testserver.StartRedis()
	if err != nil {
		t.Fatalf("Redis: %v", err)
	}
	t.Cleanup(func() { rd.Stop() })
	mn, err := testserver.StartMinIO()
	if err != nil {
		t.Fatalf("MinIO: %v", err)
	}
	t.Cleanup(func() { mn.Stop() })
	return backends{postgresURL: pgURL, redisURL: rd.URL(), s3Endpoint: mn.Endpoint(), s3Access: mn.AccessKey(), s3SecretKey: mn.SecretKey()}
}

// wiringValues are the values an SRE would give for distributed mode,
// with the backends at the test's servers: the internal token and the
// secrets key left for the chart to generate, the Ingress and an
// HTTPRoute, one render pod of one tab, the front proxies (on loopback)
// trusted for client addresses, and the brand service allowed to fetch
// the loopback test site (in production it refuses private addresses).
func wiringValues(t *testing.T, be backends, siteHost string) string {
	t.Helper()
	return marshalValues(t, wiringValueMap(be, siteHost))
}

// wiringValueMap is wiringValues before it is written as YAML, for a
// test to change a setting of.
func wiringValueMap(be backends, siteHost string) map[string]any {
	return map[string]any{
		"deploymentMode": "distributed",
		"publicURL":      "http://" + publicHost,
		"secrets": map[string]any{
			"postgresURL": be.postgresURL,
			"redisURL":    be.redisURL,
			"s3AccessKey": be.s3Access,
			"s3SecretKey": be.s3SecretKey,
		},
		"s3":        map[string]any{"endpoint": be.s3Endpoint, "bucket": "chartd-wiring"},
		"ingress":   map[string]any{"host": publicHost},
		"httpRoute": map[string]any{"enabled": true, "parentRefs": []any{map[string]any{"name": "public", "namespace": "gateways"}}},
		"render":    map[string]any{"minReplicas": 1, "maxReplicas": 2, "tabsPerPod": 1},
		// The ingress controller's pod CIDR, in production.
		"trustedProxies": []any{"127.0.0.1/32"},
		"brand":          map[string]any{"extraArgs": []any{"-brand.fetch-allow=" + siteHost}},
	}
}

// marshalValues writes a chart's values as YAML.
func marshalValues(t *testing.T, v map[string]any) string {
	t.Helper()
	b, err := yaml.Marshal(v)
	if err != nil {
		t.Fatal(err)
	}
	return string(b)
}

// release is the rendered objects, and by kind those the wiring needs.
type release struct {
	objects     []client.Object
	deployments []*appsv1.Deployment
	services    map[string]*corev1.Service
	secrets     map[string]*corev1.Secret
	ingresses   []*networkingv1.Ingress
	policies    []*networkingv1.NetworkPolicy
	httpRoutes  []*gatewayv1.HTTPRoute
	fleets      []*v1alpha1.RenderFleet
}

func readRelease(t *testing.T, objs []client.Object) release {
	t.Helper()
	if t.Failed() {
		t.FailNow()
	}
	r := release{objects: objs, services: map[string]*corev1.Service{}, secrets: map[string]*corev1.Secret{}}
	for _, o := range objs {
		switch x := o.(type) {
		case *appsv1.Deployment:
			r.deployments = append(r.deployments, x)
		case *corev1.Service:
			r.services[x.Name] = x
		case *corev1.Secret:
			r.secrets[x.Name] = x
		case *networkingv1.Ingress:
			r.ingresses = append(r.ingresses, x)
		case *networkingv1.NetworkPolicy:
			r.policies = append(r.policies, x)
		case *gatewayv1.HTTPRoute:
			r.httpRoutes = append(r.httpRoutes, x)
		case *v1alpha1.RenderFleet:
			r.fleets = append(r.fleets, x)
		}
	}
	if len(r.fleets) != 1 {
		t.Fatalf("want one RenderFleet in distributed mode, have %d", len(r.fleets))
	}
	return r
}

// newCluster prepares the machine's stand-ins for the release's
// cluster; it runs nothing yet. Every pod it runs is stopped when the
// test ends, and its logs shown if the test failed.
func newCluster(t *testing.T, rel release, root string) *cluster {
	t.Helper()
	images, err := readImages(repoRoot+"/Makefile", repoRoot+"/Dockerfile")
	if err != nil {
		t.Fatal(err)
	}
	c := &cluster{t: t, ns: wiringNamespace, publicHost: publicHost, root: root, services: rel.services, secrets: rel.secrets,
		images: images, skipped: map[string]map[string]string{}}
	if c.made, err = makeImageFiles(images, filepath.Join(root, "images")); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.stop()
		if t.Failed() {
			for _, p := range c.all {
				t.Logf("--- logs of %s (the end):\n%s", p.name, p.logs.tail(6000))
			}
		}
	})
	return c
}

// operatorStage is the Dockerfile target of the operator's image.
const operatorStage = "operator"

// runOperator installs the release in a real API server, as helm install
// does, and runs the chart's operator Deployment on it as a process, as
// its ServiceAccount (so with the chart's RBAC). It waits until the
// operator has reconciled every RenderFleet, refused nothing, and answers
// the Deployments and Services it made: the render pods run here are the
// operator's. The operator, then the API server, stop when the (sub)test
// that called it ends. It answers the API server's admin client too, for
// a test that acts as the cluster's controllers.
func runOperator(t *testing.T, s *runtime.Scheme, c *cluster, rel release, builds <-chan binaries) ([]*appsv1.Deployment, []*corev1.Service, client.Client) {
	ctrl.SetLogger(logr.Discard()) // controller-runtime's own log (envtest, clients) has nothing to show
	cfg := kubetest.Start(t, s, chartDir+"/crds", gatewayCRD(t))
	kc, err := client.New(cfg, client.Options{Scheme: s})
	if err != nil {
		t.Fatal(err)
	}
	createNamespace(t, kc, wiringNamespace)
	install(t, kc, wiringNamespace, rel.objects)

	var op *appsv1.Deployment
	for _, d := range rel.deployments {
		if img := c.images[repository(d.Spec.Template.Spec.Containers[0].Image)]; img != nil && img.stage == operatorStage {
			op = d
		}
	}
	if op == nil {
		t.Fatalf("no Deployment runs the %s image", operatorStage)
	}
	bins := <-builds
	if bins.err != nil {
		t.Fatal(bins.err)
	}
	c.built = bins.paths
	p, err := c.addPod(op)
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		c.stopPod(p)
		c.skipped[p.name] = p.labels
	})
	// What the kubelet mounts from the ServiceAccount, client-go and
	// controller-runtime read at fixed paths; here a kubeconfig as the
	// ServiceAccount and the operator's own flag for its namespace stand
	// in for them.
	spec := op.Spec.Template.Spec
	if spec.AutomountServiceAccountToken == nil || *spec.AutomountServiceAccountToken {
		kubeconfig, err := serviceAccountKubeconfig(cfg, wiringNamespace, spec.ServiceAccountName, filepath.Join(p.dir, "kubeconfig"))
		if err != nil {
			t.Fatal(err)
		}
		p.standIns = []string{"KUBECONFIG=" + kubeconfig, "CHARTD_OPERATOR_LEADER_ELECTION_NAMESPACE=" + wiringNamespace}
	}
	started := time.Now()
	if err := c.start(p); err != nil {
		t.Fatalf("start %s: %v", p.name, err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	if err := c.waitProbes(ctx, p, started); err != nil {
		t.Fatal(err)
	}

	var deps []*appsv1.Deployment
	var svcs []*corev1.Service
	for _, f := range rel.fleets {
		key := client.ObjectKey{Namespace: wiringNamespace, Name: f.Name}
		d, svc := &appsv1.Deployment{}, &corev1.Service{}
		var last string
		err := wait.PollUntilContextCancel(ctx, 200*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			select {
			case <-p.done:
				return false, fmt.Errorf("the operator exited (%v)", p.exitErr)
			default:
			}
			if refused := refusals(p.logs.tail(1 << 20)); len(refused) > 0 {
				return false, fmt.Errorf("the API server refused the operator (its RBAC):\n%s", strings.Join(refused, "\n"))
			}
			var fl v1alpha1.RenderFleet
			if err := kc.Get(ctx, key, &fl); err != nil {
				return false, err
			}
			cond := meta.FindStatusCondition(fl.Status.Conditions, controller.CondReconciled)
			if cond == nil || cond.Status != metav1.ConditionTrue || fl.Status.ObservedGeneration != fl.Generation {
				last = fmt.Sprintf("status %+v", fl.Status)
				return false, nil
			}
			if err := kc.Get(ctx, key, d); err != nil {
				last = err.Error()
				return false, nil
			}
			if err := kc.Get(ctx, key, svc); err != nil {
				last = err.Error()
				return false, nil
			}
			return true, nil
		})
		if err != nil {
			t.Fatalf("the operator never reconciled RenderFleet %s (last: %s): %v", f.Name, last, err)
		}
		deps, svcs = append(deps, d), append(svcs, svc)
	}
	if refused := refusals(p.logs.tail(1 << 20)); len(refused) > 0 {
		t.Fatalf("the API server refused the operator (its RBAC):\n%s", strings.Join(refused, "\n"))
	}
	return deps, svcs, kc
}

// refusals are the first log lines that report the API server refusing
// a request ("… is forbidden: User … cannot …").
func refusals(logs string) []string {
	var out []string
	for _, l := range strings.Split(logs, "\n") {
		if strings.Contains(l, "is forbidden") && len(out) < 3 {
			out = append(out, l[:min(len(l), 400)])
		}
	}
	return out
}

// install creates the release's objects in the API server, in namespace
// ns, as helm install does; the CRDs come with the server.
func install(t *testing.T, c client.Client, ns string, objs []client.Object) {
	t.Helper()
	for _, o := range objs {
		raw, err := runtime.DefaultUnstructuredConverter.ToUnstructured(o)
		if err != nil {
			t.Fatal(err)
		}
		u := &unstructured.Unstructured{Object: raw}
		u.SetGroupVersionKind(o.GetObjectKind().GroupVersionKind())
		if u.GetKind() == "CustomResourceDefinition" || u.GetKind() == "Namespace" {
			continue
		}
		scoped, err := c.IsObjectNamespaced(u)
		if err != nil {
			t.Fatalf("%s %s: %v", u.GetKind(), u.GetName(), err)
		}
		if scoped {
			u.SetNamespace(ns)
		}
		if err := c.Create(context.Background(), u); err != nil {
			t.Fatalf("install %s %s: %v", u.GetKind(), u.GetName(), err)
		}
	}
}

// serviceAccountKubeconfig writes a kubeconfig that reaches the API
// server of cfg as the ServiceAccount ns/name (the test's admin
// credentials, impersonating it and its groups), readable by the pod's
// user.
func serviceAccountKubeconfig(cfg *rest.Config, ns, name, file string) (string, error) {
	kc := clientcmdapi.NewConfig()
	kc.Clusters["envtest"] = &clientcmdapi.Cluster{Server: cfg.Host, CertificateAuthorityData: cfg.CAData}
	kc.AuthInfos["sa"] = &clientcmdapi.AuthInfo{ClientCertificateData: cfg.CertData, ClientKeyData: cfg.KeyData, Token: cfg.BearerToken,
		Impersonate:       "system:serviceaccount:" + ns + ":" + name,
		ImpersonateGroups: []string{"system:serviceaccounts", "system:serviceaccounts:" + ns, "system:authenticated"}}
	kc.Contexts["sa"] = &clientcmdapi.Context{Cluster: "envtest", AuthInfo: "sa", Namespace: ns}
	kc.CurrentContext = "sa"
	if err := clientcmd.WriteToFile(*kc, file); err != nil {
		return "", fmt.Errorf("write kubeconfig: %w", err)
	}
	return file, os.Chmod(file, 0o644)
}

// startPods runs every Deployment but the operator's as a pod of this
// machine, and waits until all pass their probes.
func startPods(t *testing.T, c *cluster, deployments []*appsv1.Deployment) {
	t.Helper()
	for _, d := range deployments {
		if _, ok := c.skipped[d.Name]; ok {
			continue
		}
		if _, err := c.addPod(d); err != nil {
			t.Fatal(err)
		}
	}
	if err := c.wireServices(); err != nil {
		t.Fatal(err)
	}
	started := time.Now()
	for _, p := range c.pods {
		if err := c.start(p); err != nil {
			t.Fatalf("start %s: %v", p.name, err)
		}
	}
	ctx, cancel := context.WithTimeout(context.Background(), 4*time.Minute)
	defer cancel()
	errs := make([]error, len(c.pods))
	var wg sync.WaitGroup
	for i, p := range c.pods {
		wg.Go(func() { errs[i] = c.waitProbes(ctx, p, started) })
	}
	wg.Wait()
	if err := errors.Join(errs...); err != nil {
		t.Fatal(err)
	}
}

// reply is one HTTP answer.
type reply struct {
	status int
	header http.Header
	body   []byte
}

// visitor is a client of the public site: every address it dials leads
// to one front proxy, as DNS leads the public name to the ingress.
type visitor struct {
	key  string
	http *http.Client
}

func newVisitor(t *testing.T, front *frontProxy, key string) *visitor {
	t.Helper()
	var d net.Dialer
	tr := &http.Transport{DialContext: func(ctx context.Context, network, _ string) (net.Conn, error) {
		return d.DialContext(ctx, network, front.addr())
	}}
	t.Cleanup(tr.CloseIdleConnections)
	return &visitor{key: key, http: &http.Client{Transport: tr, Timeout: 2 * time.Minute,
		CheckRedirect: func(*http.Request, []*http.Request) error { return http.ErrUseLastResponse }}}
}

// do sends a request to a path of the public site, or to a full URL; a
// body is sent as JSON.
func (v *visitor) do(t *testing.T, method, target string, body any) reply {
	t.Helper()
	if strings.HasPrefix(target, "/") {
		target = "http://" + publicHost + target
	}
	var rb io.Reader
	if body != nil {
		raw, err := json.Marshal(body)
		if err != nil {
			t.Fatal(err)
		}
		rb = bytes.NewReader(raw)
	}
	req, err := http.NewRequest(method, target, rb)
	if err != nil {
		t.Fatal(err)
	}
	if v.key != "" {
		req.Header.Set("Authorization", "Bearer "+v.key)
	}
	if body != nil {
		req.Header.Set("Content-Type", "application/json")
	}
	resp, err := v.http.Do(req)
	if err != nil {
		t.Fatalf("%s %s: %v", method, target, err)
	}
	defer resp.Body.Close()
	b, err := io.ReadAll(resp.Body)
	if err != nil {
		t.Fatalf("%s %s: reading the answer: %v", method, target, err)
	}
	return reply{status: resp.StatusCode, header: resp.Header, body: b}
}

// want fails unless the answer has one of the statuses, and decodes a
// JSON body into out when out is not nil.
func (r reply) want(t *testing.T, what string, out any, statuses ...int) {
	t.Helper()
	if !slices.Contains(statuses, r.status) {
		t.Fatalf("%s: answer %d, want %v: %.500s", what, r.status, statuses, r.body)
	}
	if out != nil {
		if err := json.Unmarshal(r.body, out); err != nil {
			t.Fatalf("%s: the answer is not JSON: %v: %.300s", what, err, r.body)
		}
	}
}

// wantPNG fails unless b is a PNG of w×h pixels, by its signature and
// IHDR chunk.
func wantPNG(t *testing.T, what string, r reply, w, h uint32) {
	t.Helper()
	b := r.body
	if r.status != http.StatusOK || r.header.Get("Content-Type") != "image/png" {
		t.Fatalf("%s: answer %d %q, want 200 image/png: %.300s", what, r.status, r.header.Get("Content-Type"), b)
	}
	if len(b) < 24 || !bytes.Equal(b[:8], []byte("\x89PNG\r\n\x1a\n")) || string(b[12:16]) != "IHDR" {
		t.Fatalf("%s: not a PNG: %q", what, b[:min(len(b), 24)])
	}
	if gw, gh := binary.BigEndian.Uint32(b[16:20]), binary.BigEndian.Uint32(b[20:24]); gw != w || gh != h {
		t.Fatalf("%s: %d×%d pixels, want %d×%d", what, gw, gh, w, h)
	}
}

// wantServedBy fails unless the front proxy sent the last request for
// path to the Service.
func wantServedBy(t *testing.T, front *frontProxy, path, service string) {
	t.Helper()
	if got := front.servedBy(path); got != service {
		t.Fatalf("%s sent %s to %q, want %s", front.kind, path, got, service)
	}
}

// tour is the API tour through the Ingress front door, then the same
// routes through the HTTPRoute one. Each step needs the ones before.
func tour(t *testing.T, c *cluster, rel release, ingress, route *frontProxy, siteURL string, be backends) {
	const (
		gateway = fullname + "-gateway"
		render  = fullname + "-render"
		// A chart's picture without a size: 800×600 (README).
		width, height = 800, 600
	)
	api := newVisitor(t, ingress, "")
	web := newVisitor(t, ingress, "") // opens public links: no key
	var account, id, link string
	var brand []string
	steps := []struct {
		name string
		run  func(t *testing.T)
	}{
		{"chartctl in the gateway pod makes a pro account", func(t *testing.T) {
			ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
			defer cancel()
			out, err := c.exec(ctx, gateway, "chartctl", "account", "create", "-plan", "pro")
			if err != nil {
				t.Fatal(err)
			}
			var acct struct {
				AccountID string `json:"account_id"`
				APIKey    string `json:"api_key"`
			}
			if err := json.Unmarshal(out, &acct); err != nil || acct.APIKey == "" {
				t.Fatalf("chartctl account create: %v: %s", err, out)
			}
			api.key, account = acct.APIKey, acct.AccountID
			var got struct {
				Plan string `json:"plan"`
			}
			api.do(t, "GET", "/api/v1/account", nil).want(t, "get_account", &got, 200)
			if got.Plan != "pro" {
				t.Fatalf("get_account: plan %q, want pro", got.Plan)
			}
			wantServedBy(t, ingress, "/api/v1/account", gateway)
		}},
		{"create a chart", func(t *testing.T) {
			var got struct {
				Chart struct {
					ID string `json:"id"`
				} `json:"chart"`
			}
			api.do(t, "POST", "/api/v1/charts", map[string]any{"type": "bar", "data": "Country,Sales\nGermany,120\nFrance,95\nSpain,60\nItaly,80",
				"ops": []any{map[string]any{"op": "setTitle", "title": map[string]any{"text": "Sales by country"}}}}).want(t, "create_chart", &got, 201)
			if id = got.Chart.ID; id == "" {
				t.Fatal("create_chart answered no chart id")
			}
		}},
		{"query its data through the data service", func(t *testing.T) {
			var got struct {
				Rows      []json.RawMessage `json:"rows"`
				TotalRows int               `json:"total_rows"`
			}
			api.do(t, "POST", "/api/v1/charts/"+id+"/data/query", map[string]any{"limit": 2}).want(t, "query_data", &got, 200)
			if len(got.Rows) != 2 || got.TotalRows != 4 {
				t.Fatalf("query_data: %d rows of %d, want 2 of 4", len(got.Rows), got.TotalRows)
			}
		}},
		{"draw a PNG", func(t *testing.T) {
			wantPNG(t, "render.png", api.do(t, "GET", "/api/v1/charts/"+id+"/render.png", nil), width, height)
		}},
		{"open an image link on /img", func(t *testing.T) {
			var got struct {
				URL string `json:"url"`
			}
			api.do(t, "POST", "/api/v1/image-urls", map[string]any{"id": id}).want(t, "create_image_url", &got, 200, 201)
			link = got.URL
			u, err := url.Parse(link)
			if err != nil || u.Scheme != "http" || u.Host != publicHost || !strings.HasPrefix(u.Path, "/img/") {
				t.Fatalf("create_image_url: link %q, want one on http://%s/img/", link, publicHost)
			}
			wantPNG(t, "the image link", web.do(t, "GET", link, nil), width, height)
			wantServedBy(t, ingress, u.Path, render)
		}},
		{"save and read the brand palette", func(t *testing.T) {
			var got struct {
				Colors []string `json:"colors"`
			}
			api.do(t, "PUT", "/api/v1/brand-palette", map[string]any{"colors": []string{"#0af", "#FF8800"}}).want(t, "set_brand_palette", &got, 200)
			api.do(t, "GET", "/api/v1/brand-palette", nil).want(t, "get_brand_palette", &got, 200)
			if !slices.Equal(got.Colors, []string{"#00AAFF", "#FF8800"}) {
				t.Fatalf("get_brand_palette: %v, want [#00AAFF #FF8800]", got.Colors)
			}
		}},
		{"extract a website's brand colours", func(t *testing.T) {
			var got struct {
				Colors []string `json:"colors"`
			}
			api.do(t, "POST", "/api/v1/brand-palette/extract", map[string]any{"url": siteURL}).want(t, "extract_brand_palette", &got, 200)
			want, err := brandtest.Expect(brandCorpus, "stripe-like")
			if err != nil {
				t.Fatal(err)
			}
			if why := want.Check(got.Colors); why != "" {
				t.Fatalf("extract_brand_palette: %s", why)
			}
			brand = got.Colors
		}},
		{"draw with the brand palette", func(t *testing.T) {
			api.do(t, "PUT", "/api/v1/brand-palette", map[string]any{"colors": brand}).want(t, "set_brand_palette", nil, 200)
			api.do(t, "POST", "/api/v1/charts/"+id+"/ops", map[string]any{"ops": []any{map[string]any{"op": "setPalette", "palette": "brand"}}}).
				want(t, "apply_ops setPalette brand", nil, 200)
			svg := api.do(t, "GET", "/api/v1/charts/"+id+"/render.svg", nil)
			svg.want(t, "render.svg", nil, 200)
			if !bytes.Contains(svg.body, []byte(brand[0])) {
				t.Fatalf("render.svg does not draw with the brand colour %s: %.300s", brand[0], svg.body)
			}
		}},
		{"the docs and the site are the gateway's", func(t *testing.T) {
			api.do(t, "GET", "/docs/", nil).want(t, "GET /docs/", nil, 200)
			wantServedBy(t, ingress, "/docs/", gateway)
			if r := web.do(t, "GET", "/", nil); r.status >= 400 {
				t.Fatalf("GET /: answer %d: %.300s", r.status, r.body)
			}
			wantServedBy(t, ingress, "/", gateway)
		}},
		{"each service keeps its state in the cluster's backends", func(t *testing.T) {
			checkState(t, c, be, account)
		}},
		{"the operator reads the render pod's fleet stats", func(t *testing.T) {
			checkFleetStats(t, c, rel)
		}},
		{"the HTTPRoute routes as the Ingress does", func(t *testing.T) {
			newVisitor(t, route, api.key).do(t, "GET", "/api/v1/account", nil).want(t, "get_account", nil, 200)
			wantServedBy(t, route, "/api/v1/account", gateway)
			wantPNG(t, "the image link", newVisitor(t, route, "").do(t, "GET", link, nil), width, height)
			u, _ := url.Parse(link)
			wantServedBy(t, route, u.Path, render)
		}},
		{"a rolling restart of 2 render replicas under load fails no request", func(t *testing.T) {
			rollRender(t, c, rel, api, web, id, link)
		}},
	}
	for _, s := range steps {
		if !t.Run(s.name, s.run) {
			t.FailNow()
		}
	}
}

// connections are the connections inside the cluster the release makes:
// each pod's calls to the Services its arguments and variables name, the
// ingress controller's to the Ingress backends, and the operator's to
// the render pods' fleet stats.
func connections(t *testing.T, c *cluster, ingressRules []frontRoute) []connection {
	t.Helper()
	var out []connection
	add := func(from peer, e endpoint, why string) {
		cn, err := c.connectionTo(from, e, why)
		if err != nil {
			t.Fatal(err)
		}
		out = append(out, cn)
	}
	for _, p := range c.pods {
		for _, e := range slices.SortedFunc(maps.Keys(p.calls), func(a, b endpoint) int { return strings.Compare(a.service, b.service) }) {
			add(c.podPeer(p.name, p.labels), e, p.calls[e])
		}
	}
	for _, r := range ingressRules {
		add(ingressController, endpoint{r.service, r.port}, "Ingress path "+r.path)
	}
	for name, l := range c.skipped {
		if name != fullname+"-operator" {
			continue
		}
		for _, p := range c.pods {
			if p.labels[controller.FleetLabel] == "" {
				continue
			}
			port, err := p.containerPort(intstr.FromString(controller.PortName), 0)
			if err != nil {
				t.Fatal(err)
			}
			out = append(out, connection{from: c.podPeer(name, l), to: c.podPeer(p.name, p.labels), port: port, portName: controller.PortName, why: "fleet stats"})
		}
	}
	if len(out) == 0 {
		t.Fatal("the release makes no connection")
	}
	return out
}

// checkState fails when a pod keeps what the cluster's backends should:
// chartd falls back to SQLite (chartd.db) and an image directory in its
// -data-dir when it has no PostgreSQL or S3, and to in-process counters
// without Redis. So no pod may hold those files, and Redis must hold the
// counts of each service built on it (their keys end in the names
// libs/quota and the services give them).
func checkState(t *testing.T, c *cluster, be backends, account string) {
	t.Helper()
	for _, p := range c.pods {
		dir := filepath.Join(p.dir, "data") // chartd's default ./data
		for _, a := range p.cmd.Args {
			if v, ok := strings.CutPrefix(a, "-data-dir="); ok {
				dir = v
			}
		}
		for _, name := range []string{"chartd.db", "images"} {
			if _, err := os.Stat(filepath.Join(dir, name)); err == nil {
				t.Errorf("%s keeps %s in its -data-dir: it does not use the cluster's backends", p.name, name)
			}
		}
	}
	u, err := url.Parse(be.redisURL)
	if err != nil {
		t.Fatal(err)
	}
	keys, err := redisKeys(u.Host)
	if err != nil {
		t.Fatal(err)
	}
	for _, tc := range []struct{ service, suffix string }{
		{"gateway", "acct:" + account},        // the request rate limit
		{"brand", "brand-lookups:" + account}, // the websites looked up today
		{"render", "renders:" + account},      // the pictures drawn today
	} {
		if !slices.ContainsFunc(keys, func(k string) bool { return strings.HasSuffix(k, tc.suffix) }) {
			t.Errorf("Redis has no key ending %q: the %s service does not count there; keys: %q", tc.suffix, tc.service, keys)
		}
	}
}

// redisKeys lists a Redis server's keys (KEYS *, in RESP).
func redisKeys(addr string) ([]string, error) {
	conn, err := net.DialTimeout("tcp", addr, 10*time.Second)
	if err != nil {
		return nil, fmt.Errorf("redis: %w", err)
	}
	defer conn.Close()
	conn.SetDeadline(time.Now().Add(30 * time.Second))
	if _, err := io.WriteString(conn, "*2\r\n$4\r\nKEYS\r\n$1\r\n*\r\n"); err != nil {
		return nil, fmt.Errorf("redis: %w", err)
	}
	r := bufio.NewReader(conn)
	line := func() (string, error) {
		l, err := r.ReadString('\n')
		return strings.TrimRight(l, "\r\n"), err
	}
	head, err := line()
	if err != nil || !strings.HasPrefix(head, "*") {
		return nil, fmt.Errorf("redis KEYS: answer %q: %v", head, err)
	}
	n, err := strconv.Atoi(head[1:])
	if err != nil {
		return nil, fmt.Errorf("redis KEYS: answer %q", head)
	}
	keys := make([]string, 0, n)
	for range n {
		h, err := line()
		if err != nil || !strings.HasPrefix(h, "$") {
			return nil, fmt.Errorf("redis KEYS: item %q: %v", h, err)
		}
		size, err := strconv.Atoi(h[1:])
		if err != nil {
			return nil, fmt.Errorf("redis KEYS: item %q", h)
		}
		b := make([]byte, size+2)
		if _, err := io.ReadFull(r, b); err != nil {
			return nil, fmt.Errorf("redis KEYS: %w", err)
		}
		keys = append(keys, string(b[:size]))
	}
	return keys, nil
}

// checkFleetStats reads the render pod's fleet stats as the operator
// does — its client, with the internal token its Deployment's env gives
// it, on the render container's port named http — and checks the pool
// has the tabs the RenderFleet asks for; then scrapes the pod's metrics
// port as Prometheus would and finds the render fleet's series.
func checkFleetStats(t *testing.T, c *cluster, rel release) {
	t.Helper()
	var token string
	for _, d := range rel.deployments {
		for _, e := range d.Spec.Template.Spec.Containers[0].Env {
			if e.Name == "CHARTD_OPERATOR_INTERNAL_TOKEN" && e.ValueFrom != nil && e.ValueFrom.SecretKeyRef != nil {
				v, err := c.secretValue(e.ValueFrom.SecretKeyRef.Name, e.ValueFrom.SecretKeyRef.Key)
				if err != nil {
					t.Fatalf("the operator's token: %v", err)
				}
				token = v
			}
		}
	}
	if token == "" {
		t.Fatal("no Deployment gives the operator CHARTD_OPERATOR_INTERNAL_TOKEN from a Secret")
	}
	fleet := rel.fleets[0]
	i := slices.IndexFunc(c.pods, func(p *pod) bool { return p.name == fleet.Name })
	if i < 0 {
		t.Fatalf("no render pod of fleet %s runs; pods: %v", fleet.Name, slices.Collect(maps.Keys(c.endpoints)))
	}
	p := c.pods[i]
	port, err := p.containerPort(intstr.FromString(controller.PortName), 0)
	if err != nil {
		t.Fatal(err)
	}
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	st, err := fleetstats.Client{HTTP: &http.Client{Timeout: 10 * time.Second}, Token: token}.Get(ctx, fmt.Sprintf("http://127.0.0.1:%d", p.ports[port]))
	if err != nil {
		t.Fatalf("the operator cannot read the render pod's stats: %v", err)
	}
	if !st.Ready || st.Tabs != int(fleet.Spec.TabsPerPod) {
		t.Fatalf("fleet stats %+v: want ready with %d tabs (tabsPerPod)", st, fleet.Spec.TabsPerPod)
	}
	// What a PodMonitor scrapes: the render pod's port named metrics.
	mport, err := p.containerPort(intstr.FromString(controller.MetricsPortName), 0)
	if err != nil {
		t.Fatalf("the render pod has no metrics port: %v", err)
	}
	req, err := http.NewRequestWithContext(ctx, http.MethodGet, fmt.Sprintf("http://127.0.0.1:%d/metrics", p.ports[mport]), nil)
	if err != nil {
		t.Fatal(err)
	}
	resp, err := http.DefaultClient.Do(req)
	if err != nil {
		t.Fatalf("scrape the render pod: %v", err)
	}
	body, _ := io.ReadAll(resp.Body)
	resp.Body.Close()
	for _, want := range []string{
		"chartd_render_queue_depth ", "chartd_render_tabs_busy ",
		fmt.Sprintf("chartd_render_tabs_warm %d", fleet.Spec.TabsPerPod), fmt.Sprintf("chartd_render_tabs_capacity %d", fleet.Spec.TabsPerPod),
		`chartd_render_browser_restarts_total{cause="crash"}`, `chartd_render_chromium_memory_bytes{browser="0"}`,
		`chartd_render_chromium_info{version="`, `chartd_render_fleet_busy_total{reason="tabs"}`, `service_name="chartd-render"`,
	} {
		if resp.StatusCode != 200 || !strings.Contains(string(body), want) {
			t.Fatalf("the render pod's /metrics (%d) lacks %q:\n%s", resp.StatusCode, want, body)
		}
	}
}
