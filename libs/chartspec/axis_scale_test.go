package chartspec

import (
	"strings"
	"testing"
)

// TestSetAxisScale: setAxis takes scale "log" or "linear" (issue 32 item
// 8), kept in the style so the drawing leaves a scale the person chose
// alone, and "" hands it back to the drawing.
func TestSetAxisScale(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, "Turnover,Staff\n1200,400\n45000,9000\n880000,120000\n")
	tests := []struct {
		name   string
		ops    []string
		want   *Axis // nil: the axis is left automatic
		refuse string
	}{
		{name: "log", ops: []string{`{"op":"setAxis","axis":"x","scale":"log"}`}, want: &Axis{Log: true, Scale: "log"}},
		{name: "linear", ops: []string{`{"op":"setAxis","axis":"x","scale":"linear"}`}, want: &Axis{Scale: "linear"}},
		{name: "back to automatic", ops: []string{`{"op":"setAxis","axis":"x","scale":"log"}`, `{"op":"setAxis","axis":"x","scale":""}`}},
		{name: "unknown scale", ops: []string{`{"op":"setAxis","axis":"x","scale":"cubic"}`}, refuse: `ops[0].scale: must be one of "log", "linear"`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			spec := f.newSpec(t, "scatter", tab)
			out, err := f.ops.Apply(spec, raws(tt.ops...), Env{Table: tab})
			if tt.refuse != "" {
				if err == nil || !strings.HasPrefix(err.Error(), tt.refuse) {
					t.Fatalf("error %v, want %s…", err, tt.refuse)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			got := out.Style.XAxis
			if (got == nil) != (tt.want == nil) || got != nil && (got.Log != tt.want.Log || got.Scale != tt.want.Scale) {
				t.Errorf("x axis %+v, want %+v", got, tt.want)
			}
		})
	}
}
