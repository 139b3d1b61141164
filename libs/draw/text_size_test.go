package draw

import "testing"

// TestTextNeverBelowMinimum: no golden sets text smaller than minText
// pixels (issue 22: 50 bars at 800×600 printed 7 px values).
func TestTextNeverBelowMinimum(t *testing.T) {
	f := fonts(t)
	for _, c := range goldenCases(f) {
		svg, err := SVG(c.in)
		if err != nil {
			t.Fatalf("%s: %v", c.name, err)
		}
		for _, e := range textsOf(t, svg) {
			if e.size < minText {
				t.Errorf("%s: %q is set in %.1f px, below %v px", c.name, e.text, e.size, minText)
				break
			}
		}
	}
}
