package main

import (
	"io"
	"net/http"
	"os"
	"os/exec"
	"slices"
	"strings"
	"testing"
	"time"

	dto "github.com/prometheus/client_model/go"
	"github.com/prometheus/common/expfmt"
	"github.com/prometheus/common/model"

	"chartd.dev/services/render"
)

// scrape runs the chartd binary with -metrics-addr, draws PNGs through its
// API (a miss, then a hit from the image cache) and answers what its
// /metrics serves, by family name: what Prometheus would scrape. It
// answers the API's address too.
func scrape(t *testing.T) (map[string]*dto.MetricFamily, string) {
	t.Helper()
	bin := chartdBinary(t)
	dir := t.TempDir()
	addr, maddr := freeAddr(t), freeAddr(t)
	in := instance{url: "http://" + addr, open: storeOpener(Config{DataDir: dir})}
	key := in.newAccount(t, "pro")
	cmd := exec.Command(bin, "-target=all", "-data-dir", dir, "-addr", addr, "-metrics-addr", maddr, "-log-level", "warn", "-render.browsers=1")
	cmd.Env = append(os.Environ(), "TMPDIR="+t.TempDir())
	var logs syncBuffer
	cmd.Stdout, cmd.Stderr = &logs, &logs
	if err := cmd.Start(); err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() {
		cmd.Process.Signal(os.Interrupt)
		cmd.Wait()
		if t.Failed() {
			t.Logf("chartd logs:\n%s", logs.String())
		}
	})
	deadline := time.Now().Add(60 * time.Second)
	for {
		resp, err := http.Get("http://" + addr + "/readyz")
		if err == nil {
			resp.Body.Close()
			if resp.StatusCode == 200 {
				break
			}
		}
		if time.Now().After(deadline) {
			t.Fatal("chartd not ready")
		}
		time.Sleep(50 * time.Millisecond)
	}
	c := newClient(t, in.url, key)
	body := map[string]any{"type": "bar", "data": salesCSV, "scale": 2}
	render := func() {
		if a := c.do("POST", "/api/v1/render", body); a.status != 200 || !strings.HasPrefix(a.header.Get("Content-Type"), "image/png") {
			t.Fatalf("render: %d %s", a.status, a.header.Get("Content-Type"))
		}
	}
	render()
	// The PNG reaches the on-disk cache off the request's path: wait for
	// its bytes to count, then draw it again, from the cache.
	metrics := "http://" + maddr + "/metrics"
	for {
		g := scrapeURL(t, metrics)["chartd_render_image_cache_size_bytes"]
		if g != nil && g.Metric[0].GetGauge().GetValue() > 0 {
			break
		}
		if time.Now().After(deadline) {
			t.Fatal("the image cache's bytes never showed on /metrics")
		}
		time.Sleep(20 * time.Millisecond)
	}
	render()
	return scrapeURL(t, metrics), addr
}

// scrapeURL reads one Prometheus text exposition.
func scrapeURL(t *testing.T, url string) map[string]*dto.MetricFamily {
	t.Helper()
	resp, err := http.Get(url)
	if err != nil {
		t.Fatal(err)
	}
	defer resp.Body.Close()
	if resp.StatusCode != 200 {
		b, _ := io.ReadAll(resp.Body)
		t.Fatalf("%s: %d %s", url, resp.StatusCode, b)
	}
	parser := expfmt.NewTextParser(model.UTF8Validation)
	fams, err := parser.TextToMetricFamilies(resp.Body)
	if err != nil {
		t.Fatalf("%s: %v", url, err)
	}
	return fams
}

// labelNames answers the label names each series of a family carries.
func labelNames(f *dto.MetricFamily) []string {
	var names []string
	for _, m := range f.Metric {
		for _, l := range m.Label {
			if !slices.Contains(names, l.GetName()) {
				names = append(names, l.GetName())
			}
		}
	}
	return names
}

// TestMetrics scrapes a running chartd once; the subtests check what it
// serves and that the monitoring assets query only what it serves.
func TestMetrics(t *testing.T) {
	fams, addr := scrape(t)
	t.Run("render fleet series", func(t *testing.T) { checkFleetSeries(t, fams, addr) })
	t.Run("dashboard and alerts", func(t *testing.T) { checkMonitoringAssets(t, fams) })
}

// checkFleetSeries: a running chartd serves the render fleet's series
// on -metrics-addr through the OTel Prometheus exporter — queue, tabs,
// restarts by cause, Chromium's memory per browser and version, busy
// 429s, cache bytes — beside the HTTP metrics, whose server series carry
// http.route; the public port has no /metrics and /readyz tells no
// version.
func checkFleetSeries(t *testing.T, fams map[string]*dto.MetricFamily, addr string) {
	for path, refuse := range map[string]string{"/metrics": "", "/readyz": "Chrome"} {
		resp, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		b, _ := io.ReadAll(resp.Body)
		resp.Body.Close()
		if (refuse == "" && resp.StatusCode != 404) || (refuse != "" && strings.Contains(string(b), refuse)) {
			t.Errorf("public %s: %d %s", path, resp.StatusCode, b)
		}
	}
	for name, labels := range render.FleetSeries {
		f := fams[name]
		if f == nil {
			t.Errorf("no series %s", name)
			continue
		}
		for _, l := range labels {
			if !slices.Contains(labelNames(f), l) {
				t.Errorf("%s lacks label %s: has %v", name, l, labelNames(f))
			}
		}
	}
	value := func(name string, labels ...string) float64 {
		f := fams[name]
		if f == nil {
			return -1
		}
	series:
		for _, m := range f.Metric {
			for i := 0; i < len(labels); i += 2 {
				if !slices.ContainsFunc(m.Label, func(l *dto.LabelPair) bool { return l.GetName() == labels[i] && l.GetValue() == labels[i+1] }) {
					continue series
				}
			}
			switch {
			case m.Gauge != nil:
				return m.Gauge.GetValue()
			case m.Counter != nil:
				return m.Counter.GetValue()
			}
		}
		return -1
	}
	if v := value("chartd_render_tabs_warm"); v != 1 {
		t.Errorf("warm tabs %v, want 1", v)
	}
	if v := value("chartd_render_chromium_memory_bytes", "browser", "0"); v < 10<<20 {
		t.Errorf("browser 0 memory %v", v)
	}
	if v := value("chartd_render_image_cache_total", "result", "hit"); v != 1 {
		t.Errorf("cache hits %v, want 1", v)
	}
	if v := value("chartd_render_browser_restarts_total", "cause", "crash"); v != 0 {
		t.Errorf("crash restarts %v, want 0", v)
	}
	f := fams["chartd_render_chromium_info"]
	if f == nil || !strings.Contains(f.Metric[0].Label[slices.IndexFunc(f.Metric[0].Label, func(l *dto.LabelPair) bool { return l.GetName() == "version" })].GetValue(), "Chrome/") {
		t.Errorf("chromium info %v", f)
	}
	routes := map[string]bool{}
	if d := fams["http_server_request_duration_seconds"]; d != nil {
		for _, m := range d.Metric {
			for _, l := range m.Label {
				if l.GetName() == "http_route" {
					routes[l.GetValue()] = true
				}
			}
		}
	}
	if !routes["/api/v1/render"] {
		t.Errorf("no http_route=/api/v1/render on the server duration; routes %v", routes)
	}
}
