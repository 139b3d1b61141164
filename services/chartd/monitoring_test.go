package main

import (
	"encoding/json"
	"maps"
	"os"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/VictoriaMetrics/metricsql"
	dto "github.com/prometheus/client_model/go"
	"sigs.k8s.io/yaml"

	"chartd.dev/services/render"
)

const monitoringDir = "../../helm/chartd/monitoring/"

// targetLabels are the labels Prometheus adds to every scraped series
// from its target (the Prometheus Operator's PodMonitor: namespace, pod,
// container, endpoint, job, instance): queries may use them though
// /metrics does not carry them.
var targetLabels = []string{"namespace", "pod", "container", "endpoint", "job", "instance", "service"}

// alertRules is the part of the rule file the checks read.
type alertRules struct {
	Groups []struct {
		Name  string `json:"name"`
		Rules []struct {
			Alert       string            `json:"alert"`
			Expr        string            `json:"expr"`
			For         string            `json:"for"`
			Labels      map[string]string `json:"labels"`
			Annotations map[string]string `json:"annotations"`
		} `json:"rules"`
	} `json:"groups"`
}

// dashboardExprs answers every query of a Grafana dashboard: its panels'
// targets (rows' nested panels too) and its template variables', with the
// variables replaced as Grafana would.
func dashboardExprs(t *testing.T, file string) map[string]string {
	t.Helper()
	raw, err := os.ReadFile(file)
	if err != nil {
		t.Fatal(err)
	}
	var d struct {
		Panels     []dashPanel `json:"panels"`
		Templating struct {
			List []struct {
				Name  string `json:"name"`
				Query any    `json:"query"`
			} `json:"list"`
		} `json:"templating"`
	}
	if err := json.Unmarshal(raw, &d); err != nil {
		t.Fatalf("%s: %v", file, err)
	}
	vars := strings.NewReplacer("$__rate_interval", "5m", "$namespace", ".*", "${datasource}", "x")
	out := map[string]string{}
	var walk func([]dashPanel)
	walk = func(ps []dashPanel) {
		for _, p := range ps {
			for _, tg := range p.Targets {
				out["panel "+p.Title+" "+tg.RefID] = vars.Replace(tg.Expr)
			}
			walk(p.Panels)
		}
	}
	walk(d.Panels)
	labelValues := regexp.MustCompile(`^label_values\(([^,]+),\s*(\w+)\)$`)
	for _, v := range d.Templating.List {
		q, ok := v.Query.(map[string]any)
		if !ok {
			continue
		}
		s, _ := q["query"].(string)
		if m := labelValues.FindStringSubmatch(s); m != nil {
			// label_values(selector, label) is Grafana's: check it as a
			// grouping of the selector by the label.
			out["variable "+v.Name] = "count by (" + m[2] + ") (" + m[1] + ")"
		} else if s != "" {
			t.Errorf("variable %s: query %q is not label_values(selector, label)", v.Name, s)
		}
	}
	return out
}

type dashPanel struct {
	Title   string `json:"title"`
	Targets []struct {
		RefID string `json:"refId"`
		Expr  string `json:"expr"`
	} `json:"targets"`
	Panels []dashPanel `json:"panels"`
}

// checkQuery parses expr as PromQL and checks that every metric it
// selects is served, with every label it filters or groups on, and that
// a filter's value matches a served series.
func checkQuery(t *testing.T, where, expr string, fams map[string]*dto.MetricFamily) {
	t.Helper()
	e, err := metricsql.Parse(expr)
	if err != nil {
		t.Errorf("%s: %v\n%s", where, err, expr)
		return
	}
	// served answers the family of a series name and whether it is a
	// histogram's _bucket (whose le label is the exposition's own).
	served := func(name string) (*dto.MetricFamily, bool) {
		if f := fams[name]; f != nil {
			return f, false
		}
		for _, suffix := range []string{"_bucket", "_sum", "_count"} {
			if base, ok := strings.CutSuffix(name, suffix); ok && fams[base] != nil && fams[base].GetType() == dto.MetricType_HISTOGRAM {
				return fams[base], suffix == "_bucket"
			}
		}
		return nil, false
	}
	var used []*dto.MetricFamily
	var grouped []string
	bucket := false
	metricsql.VisitAll(e, func(x metricsql.Expr) {
		switch x := x.(type) {
		case *metricsql.MetricExpr:
			for _, lfs := range x.LabelFilterss {
				name := ""
				for _, lf := range lfs {
					if lf.Label == "__name__" {
						name = lf.Value
					}
				}
				f, isBucket := served(name)
				if f == nil {
					t.Errorf("%s: metric %q is not served by chartd", where, name)
					continue
				}
				used = append(used, f)
				bucket = bucket || isBucket
				for _, lf := range lfs {
					if lf.Label == "__name__" || slices.Contains(targetLabels, lf.Label) {
						continue
					}
					if !seriesMatch(f, lf) {
						t.Errorf("%s: no series of %s has %s %q (labels %v)", where, f.GetName(), lf.Label, lf.Value, labelNames(f))
					}
				}
			}
		case *metricsql.ModifierExpr:
			grouped = append(grouped, x.Args...)
		}
	})
	for _, l := range grouped {
		if slices.Contains(targetLabels, l) || (l == "le" && bucket) {
			continue
		}
		if !slices.ContainsFunc(used, func(f *dto.MetricFamily) bool { return slices.Contains(labelNames(f), l) }) {
			t.Errorf("%s: groups by %q, which none of its metrics carry", where, l)
		}
	}
}

// seriesMatch says whether some series of f satisfies the filter.
func seriesMatch(f *dto.MetricFamily, lf metricsql.LabelFilter) bool {
	if !slices.Contains(labelNames(f), lf.Label) {
		return false
	}
	if lf.IsNegative {
		return true
	}
	re, err := regexp.Compile("^(?:" + lf.Value + ")$")
	if err != nil {
		return false
	}
	for _, m := range f.Metric {
		for _, l := range m.Label {
			if l.GetName() == lf.Label && ((lf.IsRegexp && re.MatchString(l.GetValue())) || (!lf.IsRegexp && l.GetValue() == lf.Value)) {
				return true
			}
		}
	}
	return false
}

// checkMonitoringAssets: every query of the dashboard and the alerts is
// PromQL over series and labels a running chartd serves, and every alert
// has its runbook in docs/runbooks.md (and every runbook its alert).
func checkMonitoringAssets(t *testing.T, fams map[string]*dto.MetricFamily) {
	raw, err := os.ReadFile(monitoringDir + "alerts.yaml")
	if err != nil {
		t.Fatal(err)
	}
	var rules alertRules
	if err := yaml.UnmarshalStrict(raw, &rules); err != nil {
		t.Fatalf("alerts.yaml: %v", err)
	}
	book, err := os.ReadFile("../../docs/runbooks.md")
	if err != nil {
		t.Fatal(err)
	}
	headings := map[string]bool{}
	for _, l := range strings.Split(string(book), "\n") {
		if h, ok := strings.CutPrefix(l, "## "); ok {
			headings[strings.ToLower(h)] = false
		}
	}
	alerts := 0
	for _, g := range rules.Groups {
		for _, r := range g.Rules {
			alerts++
			checkQuery(t, "alert "+r.Alert, r.Expr, fams)
			anchor, ok := strings.CutPrefix(r.Annotations["runbook_url"], "docs/runbooks.md#")
			if _, have := headings[anchor]; !ok || !have || anchor != strings.ToLower(r.Alert) {
				t.Errorf("alert %s: runbook_url %q is not its heading in docs/runbooks.md", r.Alert, r.Annotations["runbook_url"])
			}
			headings[anchor] = true
			if r.Annotations["summary"] == "" {
				t.Errorf("alert %s has no summary", r.Alert)
			}
		}
	}
	for h, used := range headings {
		if !used {
			t.Errorf("runbook %q has no alert", h)
		}
	}
	exprs := dashboardExprs(t, monitoringDir+"dashboard.json")
	for where, expr := range exprs {
		checkQuery(t, where, expr, fams)
	}
	if alerts < 5 || len(exprs) < 10 {
		t.Fatalf("%d alerts and %d dashboard queries: the files were not read whole", alerts, len(exprs))
	}
	// The render fleet's every series is on the dashboard.
	for name := range render.FleetSeries {
		if !slices.ContainsFunc(slices.Collect(maps.Values(exprs)), func(e string) bool { return strings.Contains(e, name) }) {
			t.Errorf("no dashboard panel shows %s", name)
		}
	}
}
