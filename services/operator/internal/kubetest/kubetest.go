// Package kubetest starts a real kube-apiserver and etcd for tests
// (envtest), from the binaries tools/ci/deps.sh installs: etcd from
// Debian's etcd-server, kube-apiserver built and cached under
// $HOME/.cache/chartd/bin. A missing binary fails the test with what to
// run; nothing is downloaded.
package kubetest

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"

	"k8s.io/apimachinery/pkg/runtime"
	"k8s.io/client-go/rest"
	"sigs.k8s.io/controller-runtime/pkg/envtest"
)

// binaries finds etcd and kube-apiserver: $KUBEBUILDER_ASSETS first, then
// the cache dir and PATH.
func binaries(t testing.TB) (etcd, apiserver string) {
	t.Helper()
	home, _ := os.UserHomeDir()
	cache := filepath.Join(home, ".cache", "chartd", "bin")
	find := func(name string, dirs ...string) string {
		if d := os.Getenv("KUBEBUILDER_ASSETS"); d != "" {
			dirs = append([]string{d}, dirs...)
		}
		for _, d := range dirs {
			p := filepath.Join(d, name)
			if fi, err := os.Stat(p); err == nil && !fi.IsDir() && fi.Mode()&0o111 != 0 {
				return p
			}
		}
		if p, err := exec.LookPath(name); err == nil {
			return p
		}
		t.Fatalf("%s not found (looked in $KUBEBUILDER_ASSETS, %v and PATH): run tools/ci/deps.sh (make deps), which installs etcd-server and builds kube-apiserver into %s", name, dirs, cache)
		return ""
	}
	return find("etcd", "/usr/bin"), find("kube-apiserver", cache)
}

// Start runs an API server with the CRDs at crdPaths (files or
// directories) installed, registered on scheme, and stops it when the
// test ends.
func Start(t testing.TB, scheme *runtime.Scheme, crdPaths ...string) *rest.Config {
	t.Helper()
	etcd, apiserver := binaries(t)
	env := &envtest.Environment{
		Scheme:                scheme,
		CRDDirectoryPaths:     crdPaths,
		ErrorIfCRDPathMissing: true,
	}
	env.CRDInstallOptions.Scheme = scheme
	env.ControlPlane.GetAPIServer().Path = apiserver
	env.ControlPlane.Etcd = &envtest.Etcd{Path: etcd}
	cfg, err := env.Start()
	if err != nil {
		t.Fatalf("starting kube-apiserver (%s) and etcd (%s): %v", apiserver, etcd, err)
	}
	t.Cleanup(func() {
		// Stop stops the API server before etcd.
		if err := env.Stop(); err != nil {
			t.Errorf("stopping the API server: %v", err)
		}
	})
	return cfg
}
