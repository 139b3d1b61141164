package deploytest

// The wiring test runs the distributed mode's workloads as local
// processes, the way a kubelet would run their pods, with a host stand-in
// for each thing the cluster provides:
//
//   - the image: its entrypoint, environment and files, read from the
//     Dockerfile target the Makefile builds for the image's repository;
//     the Go binaries it copies are built from this tree;
//   - the pod's volumes: temp directories, Secrets written with their
//     modes and group, init containers run before the main one;
//   - Service DNS names and ports: a loopback load balancer per Service
//     port (kube-proxy's stand-in) over the ready pods' loopback ports;
//   - the environment: Secret references resolved, Service link variables
//     set as the kubelet sets them;
//   - the pod's user (runAsUser, fsGroup) when the test runs as root.
//
// Anything the chart uses that is not emulated fails the test by name.

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"maps"
	"net"
	"net/http"
	"net/url"
	"os"
	"os/exec"
	"path"
	"path/filepath"
	"regexp"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	appsv1 "k8s.io/api/apps/v1"
	corev1 "k8s.io/api/core/v1"
	"k8s.io/apimachinery/pkg/util/intstr"
	"k8s.io/apimachinery/pkg/util/wait"

	"chartd.dev/libs/testserver"
)

// image is what one Dockerfile target puts in a container.
type image struct {
	stage      string
	env        [][2]string // ENV, in order
	entrypoint []string
	cmd        []string
	// files are the image's files copied from the build stage: path in
	// the image → path in the build stage (/out/chartd).
	files map[string]string
	// made are the files a RUN writes with printf: path → format.
	made map[string]string
	// userland: the base is Debian, whose /bin/sh and coreutils this
	// Debian host stands in for; a distroless image has none.
	userland bool
	// home is the HOME the container runtime sets from the image's
	// /etc/passwd for its user: distroless's nonroot user lives in
	// /home/nonroot; unknown users get /.
	home string
}

// dockerPath is the PATH of a container whose image sets none.
const dockerPath = "/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"

// readImages answers the images the Makefile's images target builds, by
// repository: `docker build --target <stage> -t $(REGISTRY)/<name>:…`.
func readImages(makefile, dockerfile string) (map[string]*image, error) {
	mk, err := os.ReadFile(makefile)
	if err != nil {
		return nil, fmt.Errorf("read Makefile: %w", err)
	}
	reg := regexp.MustCompile(`(?m)^REGISTRY \?= (\S+)$`).FindSubmatch(mk)
	if reg == nil {
		return nil, errors.New("the Makefile sets no default REGISTRY")
	}
	stages, err := parseDockerfile(dockerfile)
	if err != nil {
		return nil, err
	}
	out := map[string]*image{}
	for _, m := range regexp.MustCompile(`docker build --target (\S+) -t \$\(REGISTRY\)/([^:\s]+):`).FindAllSubmatch(mk, -1) {
		st, ok := stages[string(m[1])]
		if !ok {
			return nil, fmt.Errorf("the Makefile builds target %s, which the Dockerfile lacks", m[1])
		}
		out[string(reg[1])+"/"+string(m[2])] = st
	}
	if len(out) == 0 {
		return nil, errors.New("the Makefile's images target builds no image")
	}
	return out, nil
}

// parseDockerfile reads each named stage's FROM, ENV, ENTRYPOINT, CMD and
// COPY --from=build; a stage built FROM another inherits what it set.
func parseDockerfile(file string) (map[string]*image, error) {
	raw, err := os.ReadFile(file)
	if err != nil {
		return nil, fmt.Errorf("read Dockerfile: %w", err)
	}
	var lines []string
	var cur strings.Builder
	for _, l := range strings.Split(string(raw), "\n") {
		l = strings.TrimSpace(l)
		if l == "" || strings.HasPrefix(l, "#") {
			continue
		}
		if s, ok := strings.CutSuffix(l, `\`); ok {
			cur.WriteString(s + " ")
			continue
		}
		cur.WriteString(l)
		lines = append(lines, cur.String())
		cur.Reset()
	}
	stages := map[string]*image{}
	var st *image
	for _, l := range lines {
		kw, rest, _ := strings.Cut(l, " ")
		rest = strings.TrimSpace(rest)
		kw = strings.ToUpper(kw)
		if st == nil && kw != "FROM" && kw != "ARG" {
			return nil, fmt.Errorf("Dockerfile: %s before the first FROM", kw)
		}
		switch kw {
		case "FROM":
			f := slices.DeleteFunc(strings.Fields(rest), func(s string) bool { return strings.HasPrefix(s, "--") })
			if len(f) == 0 {
				return nil, errors.New("Dockerfile: FROM without an image")
			}
			st = &image{files: map[string]string{}, made: map[string]string{}, userland: strings.HasPrefix(f[0], "debian:"), home: "/"}
			if strings.HasPrefix(f[0], "gcr.io/distroless/") && strings.HasSuffix(f[0], ":nonroot") {
				st.home = "/home/nonroot"
			}
			if parent, ok := stages[f[0]]; ok {
				*st = *parent
				st.env = slices.Clone(parent.env)
				st.files, st.made = maps.Clone(parent.files), maps.Clone(parent.made)
			}
			if len(f) == 3 && strings.EqualFold(f[1], "as") {
				st.stage = f[2]
				stages[f[2]] = st
			}
		case "ENV":
			env, err := parseEnvLine(rest)
			if err != nil {
				return nil, fmt.Errorf("Dockerfile stage %s: %w", st.stage, err)
			}
			st.env = append(st.env, env...)
		case "ENTRYPOINT", "CMD":
			var argv []string
			if err := json.Unmarshal([]byte(rest), &argv); err != nil {
				argv = []string{"/bin/sh", "-c", rest} // shell form
			}
			if kw == "ENTRYPOINT" {
				st.entrypoint = argv
			} else {
				st.cmd = argv
			}
		case "RUN":
			for _, m := range printfTo.FindAllStringSubmatch(rest, -1) {
				st.made[m[2]] = m[1]
			}
		case "COPY":
			f := strings.Fields(rest)
			from := ""
			for len(f) > 0 && strings.HasPrefix(f[0], "--") {
				if v, ok := strings.CutPrefix(f[0], "--from="); ok {
					from = v
				}
				f = f[1:]
			}
			if from != "build" || len(f) < 2 {
				continue // only the build stage's outputs run here
			}
			dst := f[len(f)-1]
			for _, src := range f[:len(f)-1] {
				p := dst
				if strings.HasSuffix(dst, "/") {
					p = dst + path.Base(src)
				}
				st.files[p] = src
			}
		}
	}
	return stages, nil
}

// printfTo finds `printf '<format>' > /path` in a RUN.
var printfTo = regexp.MustCompile(`printf '([^']*)' > (/\S+)`)

// makeImageFiles writes the files each image's RUN makes with printf
// under dir, as the build would (executable, as the Dockerfile makes
// them): stage → path in the image → host path.
func makeImageFiles(images map[string]*image, dir string) (map[string]map[string]string, error) {
	out := map[string]map[string]string{}
	for _, img := range images {
		if _, ok := out[img.stage]; ok {
			continue
		}
		out[img.stage] = map[string]string{}
		for p, format := range img.made {
			host := filepath.Join(dir, img.stage, filepath.FromSlash(p))
			if err := os.MkdirAll(filepath.Dir(host), 0o755); err != nil {
				return nil, err
			}
			content, err := exec.Command("printf", format).Output()
			if err != nil {
				return nil, fmt.Errorf("image %s: printf of %s: %w", img.stage, p, err)
			}
			if err := os.WriteFile(host, content, 0o755); err != nil {
				return nil, err
			}
			out[img.stage][p] = host
		}
	}
	return out, nil
}

// parseEnvLine reads `ENV K=V K2="V 2"` (or the old `ENV K V`).
func parseEnvLine(s string) ([][2]string, error) {
	if k, v, ok := strings.Cut(s, " "); ok && !strings.Contains(k, "=") {
		return [][2]string{{k, strings.TrimSpace(v)}}, nil
	}
	var out [][2]string
	for _, f := range strings.Fields(s) {
		k, v, ok := strings.Cut(f, "=")
		if !ok {
			return nil, fmt.Errorf("ENV %q: want KEY=VALUE", f)
		}
		if strings.HasPrefix(v, `"`) {
			u, err := strconv.Unquote(v)
			if err != nil {
				return nil, fmt.Errorf("ENV %s: quoted values with spaces are not read here: %w", k, err)
			}
			v = u
		}
		out = append(out, [2]string{k, v})
	}
	return out, nil
}

// repository is an image reference without its tag and digest.
func repository(ref string) string {
	ref, _, _ = strings.Cut(ref, "@")
	if i := strings.LastIndex(ref, ":"); i > strings.LastIndex(ref, "/") {
		ref = ref[:i]
	}
	return ref
}

// pathMap maps container paths to host paths: volume mounts and image
// files, the longest container path first.
type pathMap []struct{ container, host string }

func (m *pathMap) add(container, host string) {
	*m = append(*m, struct{ container, host string }{path.Clean(container), host})
	sort.SliceStable(*m, func(i, j int) bool { return len((*m)[i].container) > len((*m)[j].container) })
}

// lookup maps one absolute container path.
func (m pathMap) lookup(p string) (string, bool) {
	for _, e := range m {
		if p == e.container {
			return e.host, true
		}
		if rest, ok := strings.CutPrefix(p, e.container+"/"); ok {
			return filepath.Join(e.host, rest), true
		}
	}
	return "", false
}

// translate maps every container path in s that starts at a word
// boundary (the start, a space, '=', ',', ':' or a quote) and ends at one
// or at a '/', as in "-data-dir=/tmp/chartd" or a `sh -c` script.
func (m pathMap) translate(s string) string {
	sep := func(c byte) bool { return strings.IndexByte(" \t=,:'\"", c) >= 0 }
	var b strings.Builder
	for i := 0; i < len(s); {
		done := false
		if s[i] == '/' && (i == 0 || sep(s[i-1])) {
			for _, e := range m {
				end := i + len(e.container)
				if strings.HasPrefix(s[i:], e.container) && (end == len(s) || s[end] == '/' || sep(s[end])) {
					b.WriteString(e.host)
					i, done = end, true
					break
				}
			}
		}
		if !done {
			b.WriteByte(s[i])
			i++
		}
	}
	return b.String()
}

// syncBuffer is a process's output, written by os/exec's copier and read
// by the test.
type syncBuffer struct {
	mu sync.Mutex
	b  bytes.Buffer
}

func (s *syncBuffer) Write(p []byte) (int, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.b.Write(p)
}

// tail answers the last n bytes written.
func (s *syncBuffer) tail(n int) string {
	s.mu.Lock()
	defer s.mu.Unlock()
	b := s.b.Bytes()
	return string(b[max(0, len(b)-n):])
}

// pod is one Deployment run as one local process.
type pod struct {
	name   string // the Deployment's
	labels map[string]string
	spec   corev1.PodSpec
	img    *image
	dir    string            // the pod's host directory
	vols   map[string]string // volume name → host directory
	ports  map[int32]int     // main container port → loopback port
	// listening are the container ports an argument or variable of the
	// main container listens on.
	listening map[int32]bool
	// calls are the Service ports the main container's arguments and
	// variables name, with the value naming each.
	calls map[endpoint]string
	logs  syncBuffer
	cmd   *exec.Cmd
	// ready: the pod passed its probes, so it handles SIGTERM.
	ready bool
	// standIns are variables standing in for what the kubelet provides
	// that a process reads at fixed paths (the ServiceAccount's files).
	standIns []string
	stopped  bool
	done     chan struct{} // closed when the main process has exited
	exitErr  error
}

// main is the pod's one container.
func (p *pod) main() corev1.Container { return p.spec.Containers[0] }

// containerPort resolves a Service's or probe's target port to a port
// the main container declares.
func (p *pod) containerPort(target intstr.IntOrString, dflt int32) (int32, error) {
	c := p.main()
	if target.Type == intstr.String {
		for _, cp := range c.Ports {
			if cp.Name == target.StrVal {
				return cp.ContainerPort, nil
			}
		}
		return 0, fmt.Errorf("container %s of %s has no port named %q", c.Name, p.name, target.StrVal)
	}
	n := target.IntVal
	if n == 0 {
		n = dflt
	}
	if _, ok := p.ports[n]; !ok {
		return 0, fmt.Errorf("container %s of %s declares no port %d", c.Name, p.name, n)
	}
	return n, nil
}

// endpoint is one port of one Service.
type endpoint struct {
	service string
	port    int32
}

// cluster is the release run on this machine: its Services and Secrets
// and the processes run from its Deployments.
type cluster struct {
	t          *testing.T
	ns         string
	publicHost string
	root       string
	services   map[string]*corev1.Service
	secrets    map[string]*corev1.Secret
	images     map[string]*image // by repository
	// built are the host stand-ins of the build stage's outputs
	// (/out/chartd → a binary built from this tree); made the files
	// each stage's RUN makes (makeImageFiles).
	built map[string]string
	made  map[string]map[string]string
	// pods are the running pods; all every pod ever started, for logs.
	pods, all []*pod
	// skipped are the pod labels of the Deployments not run here, by
	// name.
	skipped   map[string]map[string]string
	endpoints map[endpoint]string // → the loopback address of its balancer
	// balancers stand in for kube-proxy: one per Service port, over the
	// ready pods it selects.
	balancers map[endpoint]*serviceLB
}

// selects reports whether a Service selector picks pods with labels.
func selects(sel, labels map[string]string) bool {
	if len(sel) == 0 {
		return false
	}
	for k, v := range sel {
		if labels[k] != v {
			return false
		}
	}
	return true
}

// addPod prepares a Deployment's pod: its directory, volumes and loopback
// ports. It runs nothing yet.
func (c *cluster) addPod(d *appsv1.Deployment) (*pod, error) {
	spec := d.Spec.Template.Spec
	if len(spec.Containers) != 1 {
		return nil, fmt.Errorf("Deployment %s: %d containers; one is emulated", d.Name, len(spec.Containers))
	}
	ct := spec.Containers[0]
	img, ok := c.images[repository(ct.Image)]
	if !ok {
		return nil, fmt.Errorf("Deployment %s: image %s is none the Makefile builds (%v)", d.Name, ct.Image, slices.Sorted(maps.Keys(c.images)))
	}
	// A second replica of a Deployment is a pod of its own name and
	// directory, as the ReplicaSet's pods are.
	name := d.Name
	for n := 2; slices.ContainsFunc(c.all, func(q *pod) bool { return q.name == name }); n++ {
		name = fmt.Sprintf("%s-%d", d.Name, n)
	}
	p := &pod{name: name, labels: d.Spec.Template.Labels, spec: spec, img: img, dir: filepath.Join(c.root, "pods", name),
		vols: map[string]string{}, ports: map[int32]int{}, listening: map[int32]bool{}, calls: map[endpoint]string{}, done: make(chan struct{})}
	if d.Spec.Selector == nil || !selectorMatches(d.Spec.Selector, p.labels) {
		return nil, fmt.Errorf("Deployment %s: its selector %v does not select its own pods %v", d.Name, d.Spec.Selector, p.labels)
	}
	if err := os.MkdirAll(p.dir, 0o755); err != nil {
		return nil, err
	}
	for _, v := range spec.Volumes {
		if err := c.makeVolume(p, v); err != nil {
			return nil, fmt.Errorf("Deployment %s: volume %s: %w", d.Name, v.Name, err)
		}
	}
	for _, cp := range ct.Ports {
		if cp.Protocol != "" && cp.Protocol != corev1.ProtocolTCP {
			return nil, fmt.Errorf("Deployment %s: port %d/%s is not TCP", d.Name, cp.ContainerPort, cp.Protocol)
		}
		n, err := testserver.FreePort()
		if err != nil {
			return nil, err
		}
		p.ports[cp.ContainerPort] = n
	}
	c.pods, c.all = append(c.pods, p), append(c.all, p)
	return p, nil
}

// fsGroup is the pod's fsGroup, or -1.
func fsGroup(spec corev1.PodSpec) int {
	if sc := spec.SecurityContext; sc != nil && sc.FSGroup != nil {
		return int(*sc.FSGroup)
	}
	return -1
}

// makeVolume makes a volume's host directory: an emptyDir is an empty
// directory anyone may write, as the kubelet makes it; a Secret volume
// holds the Secret's keys as files with the volume's modes, group-owned
// by the pod's fsGroup.
func (c *cluster) makeVolume(p *pod, v corev1.Volume) error {
	dir := filepath.Join(p.dir, "volumes", v.Name)
	if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	p.vols[v.Name] = dir
	switch {
	case v.EmptyDir != nil:
		return os.Chmod(dir, 0o777)
	case v.Secret != nil:
		mode := int32(0o644)
		if v.Secret.DefaultMode != nil {
			mode = *v.Secret.DefaultMode
		}
		items := v.Secret.Items
		if len(items) == 0 {
			s, ok := c.secrets[v.Secret.SecretName]
			if !ok {
				return fmt.Errorf("no Secret %s in the release", v.Secret.SecretName)
			}
			for _, k := range slices.Sorted(maps.Keys(secretData(s))) {
				items = append(items, corev1.KeyToPath{Key: k, Path: k})
			}
		}
		for _, it := range items {
			val, err := c.secretValue(v.Secret.SecretName, it.Key)
			if err != nil {
				return err
			}
			m := mode
			if it.Mode != nil {
				m = *it.Mode
			}
			f := filepath.Join(dir, it.Path)
			if err := os.WriteFile(f, []byte(val), 0o600); err != nil {
				return err
			}
			if g := fsGroup(p.spec); g >= 0 && os.Geteuid() == 0 {
				if err := os.Chown(f, 0, g); err != nil {
					return err
				}
			}
			if err := os.Chmod(f, os.FileMode(m)); err != nil {
				return err
			}
		}
		return nil
	}
	return errors.New("only emptyDir and secret volumes are emulated")
}

// secretData is a rendered Secret's keys and values, stringData over data.
func secretData(s *corev1.Secret) map[string]string {
	out := map[string]string{}
	for k, v := range s.Data {
		out[k] = string(v)
	}
	maps.Copy(out, s.StringData)
	return out
}

func (c *cluster) secretValue(name, key string) (string, error) {
	s, ok := c.secrets[name]
	if !ok {
		return "", fmt.Errorf("no Secret %s in the release", name)
	}
	v, ok := secretData(s)[key]
	if !ok {
		return "", fmt.Errorf("Secret %s has no key %s", name, key)
	}
	return v, nil
}

// wireServices gives every port of every Service a load balancer, over
// the loopback port of the one pod it selects, through its target port.
func (c *cluster) wireServices() error {
	c.endpoints = map[endpoint]string{}
	c.balancers = map[endpoint]*serviceLB{}
	for _, name := range slices.Sorted(maps.Keys(c.services)) {
		s := c.services[name]
		var backs []*pod
		for _, p := range c.pods {
			if selects(s.Spec.Selector, p.labels) {
				backs = append(backs, p)
			}
		}
		if len(backs) == 0 {
			if slices.ContainsFunc(slices.Collect(maps.Values(c.skipped)), func(l map[string]string) bool { return selects(s.Spec.Selector, l) }) {
				continue
			}
			return fmt.Errorf("Service %s: its selector %v selects no pod", name, s.Spec.Selector)
		}
		if len(backs) > 1 {
			return fmt.Errorf("Service %s: its selector %v selects the pods of %d Deployments", name, s.Spec.Selector, len(backs))
		}
		for _, sp := range s.Spec.Ports {
			cp, err := backs[0].containerPort(sp.TargetPort, sp.Port)
			if err != nil {
				return fmt.Errorf("Service %s port %d: %w", name, sp.Port, err)
			}
			lb, err := newServiceLB("127.0.0.1:" + strconv.Itoa(backs[0].ports[cp]))
			if err != nil {
				return fmt.Errorf("Service %s port %d: %w", name, sp.Port, err)
			}
			c.t.Cleanup(lb.Close)
			e := endpoint{name, sp.Port}
			c.endpoints[e], c.balancers[e] = lb.addr(), lb
		}
	}
	return nil
}

// servicePort answers the number of a Service's port named name.
func (c *cluster) servicePort(svc, name string) (int32, error) {
	s, ok := c.services[svc]
	if !ok {
		return 0, fmt.Errorf("no Service %s", svc)
	}
	for _, sp := range s.Spec.Ports {
		if sp.Name == name {
			return sp.Port, nil
		}
	}
	return 0, fmt.Errorf("Service %s has no port named %q", svc, name)
}

// serviceOf answers the Service a host name names inside the cluster:
// svc, svc.ns, svc.ns.svc or svc.ns.svc.cluster.local.
func (c *cluster) serviceOf(host string) (string, bool) {
	host = strings.TrimSuffix(strings.ToLower(host), ".")
	for _, suffix := range []string{"", "." + c.ns, "." + c.ns + ".svc", "." + c.ns + ".svc.cluster.local"} {
		if name, ok := strings.CutSuffix(host, suffix); ok && !strings.Contains(name, ".") {
			if _, ok := c.services[name]; ok {
				return name, true
			}
		}
	}
	return "", false
}

// parseURL parses an absolute URL with a host, as scheme://host….
func parseURL(v string) (*url.URL, error) {
	if !strings.Contains(v, "://") {
		return nil, errors.New("not an absolute URL")
	}
	u, err := url.Parse(v)
	if err != nil || u.Host == "" {
		return nil, fmt.Errorf("not an absolute URL with a host: %q", v)
	}
	return u, nil
}

var (
	listenAddr = regexp.MustCompile(`^(?:0\.0\.0\.0|\[::\]|)?:(\d+)$`)
	hostName   = regexp.MustCompile(`^[a-z0-9]([-a-z0-9.]*[a-z0-9])?$`)
)

// mapHost rewrites one address a process dials: a Service's DNS name and
// port become the loopback address standing in for it, recorded in
// calls when calls is not nil. Any other name fails: nothing here would
// resolve it, nor would the cluster.
func (c *cluster) mapHost(v string, calls map[endpoint]string) (string, error) {
	resolve := func(host, port string) (string, bool, error) {
		if net.ParseIP(host) != nil || host == "localhost" || host == c.publicHost {
			return "", false, nil
		}
		svc, ok := c.serviceOf(host)
		if !ok {
			return "", false, fmt.Errorf("%q names host %s, which is no Service of the release", v, host)
		}
		n, err := strconv.Atoi(port)
		if err != nil {
			return "", false, fmt.Errorf("%q: port %q", v, port)
		}
		addr, ok := c.endpoints[endpoint{svc, int32(n)}]
		if !ok {
			return "", false, fmt.Errorf("%q: Service %s has no port %d", v, svc, n)
		}
		if calls != nil {
			calls[endpoint{svc, int32(n)}] = v
		}
		return addr, true, nil
	}
	if u, err := parseURL(v); err == nil {
		port := u.Port()
		if port == "" {
			port = map[string]string{"http": "80", "https": "443"}[u.Scheme]
		}
		addr, ok, err := resolve(u.Hostname(), port)
		if err != nil || !ok {
			return v, err
		}
		u.Host = addr
		return u.String(), nil
	}
	if host, port, err := net.SplitHostPort(v); err == nil && hostName.MatchString(host) && strings.ContainsAny(host, "abcdefghijklmnopqrstuvwxyz") {
		if addr, ok, err := resolve(host, port); err != nil || ok {
			return addr, err
		}
	}
	return v, nil
}

// translate rewrites one argument or variable value of a container for
// this machine: listen addresses on a declared port (of the main
// container), the addresses of Services and the paths of volumes and
// image files. An absolute path that is neither (nor, on a Debian image,
// a file of this host) fails: the root filesystem is read-only and holds
// nothing else.
func (c *cluster) translate(p *pod, paths pathMap, main bool, v string) (string, error) {
	if m := listenAddr.FindStringSubmatch(v); m != nil && main {
		n, _ := strconv.Atoi(m[1])
		hp, ok := p.ports[int32(n)]
		if !ok {
			return "", fmt.Errorf("%q listens on port %d, which the container does not declare", v, n)
		}
		p.listening[int32(n)] = true
		return "127.0.0.1:" + strconv.Itoa(hp), nil
	}
	var calls map[endpoint]string
	if main {
		calls = p.calls
	}
	parts := strings.Split(v, ",")
	for i, part := range parts {
		var err error
		if parts[i], err = c.mapHost(part, calls); err != nil {
			return "", err
		}
	}
	v = strings.Join(parts, ",")
	out := paths.translate(v)
	if strings.HasPrefix(v, "/") && !strings.ContainsAny(v, " \t") && out == v {
		if _, err := os.Stat(v); !p.img.userland || err != nil {
			return "", fmt.Errorf("%q is neither in the image nor on a volume", v)
		}
	}
	return out, nil
}

// translateArg translates an argument, or the value of a -flag=value one.
func (c *cluster) translateArg(p *pod, paths pathMap, main bool, a string) (string, error) {
	if flag, val, ok := strings.Cut(a, "="); ok && strings.HasPrefix(flag, "-") {
		v, err := c.translate(p, paths, main, val)
		return flag + "=" + v, err
	}
	return c.translate(p, paths, main, a)
}

// paths is the path map of one container of p: its volume mounts, the
// image's files standing in for what the Dockerfile copies and makes.
func (c *cluster) paths(p *pod, ct corev1.Container) (pathMap, error) {
	var m pathMap
	for img, src := range p.img.files {
		host, ok := c.built[src]
		if !ok {
			continue // not built here; running it fails by name
		}
		m.add(img, host)
	}
	for img, host := range c.made[p.img.stage] {
		m.add(img, host)
	}
	for _, vm := range ct.VolumeMounts {
		dir, ok := p.vols[vm.Name]
		if !ok {
			return nil, fmt.Errorf("container %s mounts volume %s, which the pod lacks", ct.Name, vm.Name)
		}
		if vm.SubPath != "" {
			dir = filepath.Join(dir, vm.SubPath)
		}
		m.add(vm.MountPath, dir)
	}
	return m, nil
}

// env is a container's environment, later settings winning: PATH and
// the HOME the runtime sets, the pod's stand-ins, TMPDIR, the image's
// ENV, the Service link variables, envFrom and env, each translated for
// this machine. TMPDIR points at the volume on /tmp, so the process
// writes where the container could.
func (c *cluster) env(p *pod, ct corev1.Container, paths pathMap, main bool) ([]string, error) {
	vars := map[string]string{}
	var order []string
	set := func(k, v string) {
		if _, ok := vars[k]; !ok {
			order = append(order, k)
		}
		vars[k] = v
	}
	set("PATH", os.Getenv("PATH"))
	set("HOME", paths.translate(p.img.home))
	for _, kv := range p.standIns {
		k, v, _ := strings.Cut(kv, "=")
		set(k, v)
	}
	if tmp, ok := paths.lookup("/tmp"); ok {
		set("TMPDIR", tmp)
	}
	for _, kv := range p.img.env {
		// The image's own settings may name paths a container without
		// that volume never uses; they are mapped where they can be.
		set(kv[0], paths.translate(kv[1]))
	}
	if p.spec.EnableServiceLinks == nil || *p.spec.EnableServiceLinks {
		for k, v := range c.serviceLinks() {
			set(k, v)
		}
	}
	for _, ef := range ct.EnvFrom {
		if ef.SecretRef == nil {
			return nil, errors.New("envFrom: only secretRef is emulated")
		}
		s, ok := c.secrets[ef.SecretRef.Name]
		if !ok {
			return nil, fmt.Errorf("envFrom: no Secret %s in the release", ef.SecretRef.Name)
		}
		for k, v := range secretData(s) {
			set(ef.Prefix+k, v)
		}
	}
	for _, e := range ct.Env {
		v := expand(e.Value, vars)
		if vf := e.ValueFrom; vf != nil {
			switch {
			case vf.SecretKeyRef != nil:
				s, err := c.secretValue(vf.SecretKeyRef.Name, vf.SecretKeyRef.Key)
				if err != nil {
					if vf.SecretKeyRef.Optional != nil && *vf.SecretKeyRef.Optional {
						continue // an optional key that is missing sets nothing
					}
					return nil, fmt.Errorf("env %s: %w", e.Name, err)
				}
				v = s
			case vf.FieldRef != nil:
				fields := map[string]string{"metadata.namespace": c.ns, "metadata.name": p.name, "status.podIP": "127.0.0.1"}
				fv, ok := fields[vf.FieldRef.FieldPath]
				if !ok {
					return nil, fmt.Errorf("env %s: fieldRef %s is not emulated", e.Name, vf.FieldRef.FieldPath)
				}
				v = fv
			default:
				return nil, fmt.Errorf("env %s: only secretKeyRef and fieldRef are emulated", e.Name)
			}
		}
		tv, err := c.translate(p, paths, main, v)
		if err != nil {
			return nil, fmt.Errorf("env %s: %w", e.Name, err)
		}
		set(e.Name, tv)
	}
	out := make([]string, 0, len(order))
	for _, k := range order {
		out = append(out, k+"="+vars[k])
	}
	return out, nil
}

// serviceLinks are the variables the kubelet sets in every container for
// each Service of its namespace (enableServiceLinks), here with the
// loopback address standing in for the cluster IP (the Service's own
// port before the Services are wired). With the release named chartd
// they start CHARTD_, as chartd's and the operator's settings do: a
// Service named after a setting would set it.
func (c *cluster) serviceLinks() map[string]string {
	out := map[string]string{}
	for name, s := range c.services {
		pre := strings.ToUpper(strings.ReplaceAll(name, "-", "_"))
		for i, sp := range s.Spec.Ports {
			addr, ok := c.endpoints[endpoint{name, sp.Port}]
			if !ok {
				addr = net.JoinHostPort("127.0.0.1", strconv.Itoa(int(sp.Port)))
			}
			host, port, _ := net.SplitHostPort(addr)
			proto := strings.ToUpper(string(sp.Protocol))
			if proto == "" {
				proto = "TCP"
			}
			if i == 0 {
				out[pre+"_SERVICE_HOST"], out[pre+"_SERVICE_PORT"] = host, port
				out[pre+"_PORT"] = strings.ToLower(proto) + "://" + addr
			}
			if sp.Name != "" {
				out[pre+"_SERVICE_PORT_"+strings.ToUpper(strings.ReplaceAll(sp.Name, "-", "_"))] = port
			}
			p := fmt.Sprintf("%s_PORT_%d_%s", pre, sp.Port, proto)
			out[p] = strings.ToLower(proto) + "://" + addr
			out[p+"_PROTO"], out[p+"_PORT"], out[p+"_ADDR"] = strings.ToLower(proto), port, host
		}
	}
	return out
}

var varRef = regexp.MustCompile(`\$\$|\$\(([A-Za-z_][A-Za-z0-9_]*)\)`)

// expand replaces $(VAR) with a variable set before, as the kubelet does
// in env values, command and args; $$ is a literal $.
func expand(s string, vars map[string]string) string {
	return varRef.ReplaceAllStringFunc(s, func(m string) string {
		if m == "$$" {
			return "$"
		}
		if v, ok := vars[m[2:len(m)-1]]; ok {
			return v
		}
		return m
	})
}

// argv is a container's command line: its command or the image's
// entrypoint, then its args or the image's CMD, with $(VAR) expanded and
// translated, the program resolved to its host stand-in.
func (c *cluster) argv(p *pod, ct corev1.Container, paths pathMap, env []string, main bool) ([]string, error) {
	vars := map[string]string{}
	for _, kv := range env {
		k, v, _ := strings.Cut(kv, "=")
		vars[k] = v
	}
	cmd, args := ct.Command, ct.Args
	if len(cmd) == 0 {
		cmd = p.img.entrypoint
		if len(args) == 0 {
			args = p.img.cmd
		}
	}
	all := append(slices.Clone(cmd), args...)
	if len(all) == 0 {
		return nil, fmt.Errorf("container %s: no command, and image %s has no entrypoint", ct.Name, p.img.stage)
	}
	prog := expand(all[0], vars)
	if !strings.HasPrefix(prog, "/") {
		// The runtime looks a bare name up in the image's PATH.
		for _, dir := range filepath.SplitList(dockerPath) {
			if _, ok := paths.lookup(dir + "/" + prog); ok {
				prog = dir + "/" + prog
				break
			}
		}
	}
	host, ok := paths.lookup(prog)
	if !ok {
		if _, err := os.Stat(prog); !p.img.userland || err != nil {
			return nil, fmt.Errorf("container %s: program %s is not in image %s as built here", ct.Name, prog, p.img.stage)
		}
		host = prog
	}
	out := []string{host}
	for _, a := range all[1:] {
		ta, err := c.translateArg(p, paths, main, expand(a, vars))
		if err != nil {
			return nil, fmt.Errorf("container %s: argument %w", ct.Name, err)
		}
		out = append(out, ta)
	}
	return out, nil
}

// command makes the exec.Cmd of one container of p: as the pod's user
// when the test runs as root, in its own process group, killed if the
// test process dies.
func (c *cluster) command(p *pod, ct corev1.Container, argv, env []string) *exec.Cmd {
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.Env = env
	cmd.Dir = p.dir
	cmd.Stdout, cmd.Stderr = &p.logs, &p.logs
	attr := &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if os.Geteuid() == 0 {
		uid, gid := int64(-1), int64(-1)
		if sc := p.spec.SecurityContext; sc != nil {
			if sc.RunAsUser != nil {
				uid = *sc.RunAsUser
			}
			if sc.RunAsGroup != nil {
				gid = *sc.RunAsGroup
			}
		}
		if sc := ct.SecurityContext; sc != nil {
			if sc.RunAsUser != nil {
				uid = *sc.RunAsUser
			}
			if sc.RunAsGroup != nil {
				gid = *sc.RunAsGroup
			}
		}
		if uid >= 0 {
			if gid < 0 {
				gid = 0
			}
			cred := &syscall.Credential{Uid: uint32(uid), Gid: uint32(gid)}
			if g := fsGroup(p.spec); g >= 0 {
				cred.Groups = []uint32{uint32(g)}
			}
			attr.Credential = cred
		}
	}
	cmd.SysProcAttr = attr
	return cmd
}

// start runs p's init containers to completion, then starts its main
// container. Every container port a Service or probe reaches must have
// been given to a listen address.
func (c *cluster) start(p *pod) error {
	for _, ic := range p.spec.InitContainers {
		paths, err := c.paths(p, ic)
		if err != nil {
			return err
		}
		env, err := c.env(p, ic, paths, false)
		if err != nil {
			return fmt.Errorf("init container %s: %w", ic.Name, err)
		}
		argv, err := c.argv(p, ic, paths, env, false)
		if err != nil {
			return err
		}
		cmd := c.command(p, ic, argv, env)
		fmt.Fprintf(&p.logs, "--- init container %s: %q\n", ic.Name, argv)
		done := make(chan error, 1)
		if err := cmd.Start(); err != nil {
			return fmt.Errorf("init container %s: %w", ic.Name, err)
		}
		go func() { done <- cmd.Wait() }()
		select {
		case err := <-done:
			if err != nil {
				return fmt.Errorf("init container %s failed: %w: %s", ic.Name, err, p.logs.tail(2000))
			}
		case <-time.After(2 * time.Minute):
			syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
			<-done
			return fmt.Errorf("init container %s did not finish in 2 minutes", ic.Name)
		}
	}
	ct := p.main()
	paths, err := c.paths(p, ct)
	if err != nil {
		return err
	}
	env, err := c.env(p, ct, paths, true)
	if err != nil {
		return fmt.Errorf("container %s: %w", ct.Name, err)
	}
	argv, err := c.argv(p, ct, paths, env, true)
	if err != nil {
		return err
	}
	for _, cp := range ct.Ports {
		if !p.listening[cp.ContainerPort] {
			return fmt.Errorf("container %s declares port %d (%s), but no argument or variable listens on it: %q", ct.Name, cp.ContainerPort, cp.Name, argv)
		}
	}
	fmt.Fprintf(&p.logs, "--- container %s: %q\n", ct.Name, argv)
	p.cmd = c.command(p, ct, argv, env)
	if err := p.cmd.Start(); err != nil {
		return fmt.Errorf("container %s: %w", ct.Name, err)
	}
	go func() {
		p.exitErr = p.cmd.Wait()
		close(p.done)
	}()
	return nil
}

// probe is one of a container's HTTP probes, by name.
type probe struct {
	name string
	*corev1.Probe
}

// waitProbes waits until the pod passes its startup and readiness probes,
// and then its liveness probe, on the loopback port of each probe's port;
// it fails at once when the process exits. Passing the startup probe
// later than its budget (period × failures) is logged: a kubelet would
// have restarted the container.
func (c *cluster) waitProbes(ctx context.Context, p *pod, started time.Time) error {
	ct := p.main()
	hc := &http.Client{Transport: &http.Transport{DisableKeepAlives: true}}
	for _, pr := range []probe{{"startup", ct.StartupProbe}, {"readiness", ct.ReadinessProbe}, {"liveness", ct.LivenessProbe}} {
		if pr.Probe == nil {
			continue
		}
		g := pr.HTTPGet
		if g == nil {
			return fmt.Errorf("%s: %s probe: only httpGet probes are emulated", p.name, pr.name)
		}
		cp, err := p.containerPort(g.Port, 0)
		if err != nil {
			return fmt.Errorf("%s: %s probe: %w", p.name, pr.name, err)
		}
		url := fmt.Sprintf("http://127.0.0.1:%d%s", p.ports[cp], g.Path)
		timeout := time.Duration(max(pr.TimeoutSeconds, 1)) * time.Second
		var last string
		err = wait.PollUntilContextCancel(ctx, 100*time.Millisecond, true, func(ctx context.Context) (bool, error) {
			select {
			case <-p.done:
				return false, fmt.Errorf("the process exited (%v)", p.exitErr)
			default:
			}
			rctx, cancel := context.WithTimeout(ctx, timeout)
			defer cancel()
			req, _ := http.NewRequestWithContext(rctx, http.MethodGet, url, nil)
			resp, err := hc.Do(req)
			if err != nil {
				last = err.Error()
				return false, nil
			}
			resp.Body.Close()
			last = resp.Status
			return resp.StatusCode >= 200 && resp.StatusCode < 400, nil
		})
		if err != nil {
			return fmt.Errorf("%s: %s probe GET %s never passed (last: %s): %w", p.name, pr.name, g.Path, last, err)
		}
		if pr.name == "startup" {
			budget := time.Duration(pr.PeriodSeconds*pr.FailureThreshold) * time.Second
			if took := time.Since(started); took > budget {
				c.t.Logf("%s: the startup probe passed after %v, over its budget of %v (this machine is loaded)", p.name, took.Round(time.Second), budget)
			}
		}
	}
	p.ready = true
	return nil
}

// stop stops every running pod as the kubelet does, all at once.
func (c *cluster) stop() {
	pods := slices.Clone(c.pods)
	for _, p := range pods {
		terminate(p)
	}
	for _, p := range pods {
		c.reap(p)
	}
}

// stopPod stops one pod; it runs no more.
func (c *cluster) stopPod(p *pod) {
	terminate(p)
	c.reap(p)
}

// terminate sends SIGTERM to a pod's main process, as the kubelet does.
func terminate(p *pod) {
	if p.cmd != nil && p.cmd.Process != nil && !p.stopped {
		p.cmd.Process.Signal(syscall.SIGTERM)
	}
}

// reap waits for a terminated pod to exit: SIGKILL to its process group
// after the grace period, and in any case for what it may have left
// behind. A ready pod that needs its whole grace period, or exits
// non-zero, fails the test.
func (c *cluster) reap(p *pod) {
	c.pods = slices.DeleteFunc(c.pods, func(q *pod) bool { return q == p })
	if p.cmd == nil || p.cmd.Process == nil || p.stopped {
		return
	}
	p.stopped = true
	grace := 30 * time.Second
	if g := p.spec.TerminationGracePeriodSeconds; g != nil {
		grace = time.Duration(*g) * time.Second
	}
	select {
	case <-p.done:
		if p.exitErr != nil && p.ready {
			c.t.Errorf("%s exited with %v after SIGTERM", p.name, p.exitErr)
		}
	case <-time.After(grace):
		c.t.Errorf("%s did not stop within its grace period of %v after SIGTERM", p.name, grace)
	}
	syscall.Kill(-p.cmd.Process.Pid, syscall.SIGKILL)
	<-p.done
}

// exec runs a program in the main container of the Deployment named
// deployment, as `kubectl exec` does: with the container's environment
// and files, as its user. It answers the program's standard output.
func (c *cluster) exec(ctx context.Context, deployment string, argv ...string) ([]byte, error) {
	i := slices.IndexFunc(c.pods, func(p *pod) bool { return p.name == deployment })
	if i < 0 {
		return nil, fmt.Errorf("no Deployment %s runs here", deployment)
	}
	p := c.pods[i]
	if p.cmd == nil {
		return nil, fmt.Errorf("%s has not started", deployment)
	}
	ct := p.main()
	paths, err := c.paths(p, ct)
	if err != nil {
		return nil, err
	}
	env := p.cmd.Env
	ct.Command, ct.Args = argv, nil
	full, err := c.argv(p, ct, paths, env, false)
	if err != nil {
		return nil, err
	}
	cmd := c.command(p, ct, full, env)
	var stdout, stderr bytes.Buffer
	cmd.Stdout, cmd.Stderr = &stdout, &stderr
	if err := cmd.Start(); err != nil {
		return nil, fmt.Errorf("exec %q in %s: %w", argv, deployment, err)
	}
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err = <-done:
	case <-ctx.Done():
		syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
		err = errors.Join(ctx.Err(), <-done)
	}
	if err != nil {
		return nil, fmt.Errorf("exec %q in %s: %w: %s", argv, deployment, err, stderr.Bytes())
	}
	return stdout.Bytes(), nil
}
