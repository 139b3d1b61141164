package deploytest

import (
	"slices"
	"strings"
	"testing"

	autoscalingv2 "k8s.io/api/autoscaling/v2"

	"chartd.dev/services/operator/api/v1alpha1"
)

// TestChartScalingDefaults: with the chart's defaults in distributed
// mode, the render fleet is scaled by the operator on its queue (more
// pods allowed than the minimum, a queue target, a poll and a window
// set), a CPU HorizontalPodAutoscaler scales only the stateless services
// (the render Deployment belongs to the operator, and an HPA on it would
// fight it), and the install notes say how to watch a scale-up.
func TestChartScalingDefaults(t *testing.T) {
	files, err := renderChart(t, distributedBase+inlineSecrets, "scaling")
	if err != nil {
		t.Fatal(err)
	}
	stateless := []string{"chartd-gateway", "chartd-chart", "chartd-data"}
	var fleets []*v1alpha1.RenderFleet
	var scaled []string
	for _, o := range decodeStrict(t, newScheme(t), documents(files)) {
		switch x := o.(type) {
		case *v1alpha1.RenderFleet:
			fleets = append(fleets, x)
		case *autoscalingv2.HorizontalPodAutoscaler:
			scaled = append(scaled, x.Spec.ScaleTargetRef.Name)
			for _, m := range x.Spec.Metrics {
				if m.Resource == nil || m.Resource.Name != "cpu" {
					t.Errorf("HorizontalPodAutoscaler %s scales on %+v, want CPU", x.Name, m)
				}
			}
		}
	}
	if len(fleets) != 1 {
		t.Fatalf("want one RenderFleet, have %d", len(fleets))
	}
	f := fleets[0].Spec
	if f.Replicas != nil || f.MaxReplicas <= f.MinReplicas || f.TargetQueuePerPod < 1 || f.PollInterval.Duration <= 0 || f.ScaleDownStabilization.Duration <= 0 {
		t.Errorf("RenderFleet %+v: want the operator to scale it by its queue (no fixed replicas, max over min, a queue target, a poll and a window)", f)
	}
	slices.Sort(scaled)
	want := slices.Sorted(slices.Values(stateless))
	if !slices.Equal(scaled, want) {
		t.Errorf("HorizontalPodAutoscalers target %v, want exactly the stateless services %v", scaled, want)
	}
	notes := files["chartd/templates/NOTES.txt"]
	for _, s := range []string{
		"kubectl -n scaling get renderfleet chartd-render -w",
		"kubectl -n scaling get deployment chartd-render -w",
		"chartd_render_queue_depth",
	} {
		if !strings.Contains(notes, s) {
			t.Errorf("NOTES.txt does not say %q (how to watch a scale-up):\n%s", s, notes)
		}
	}
}
