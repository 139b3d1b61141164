package draw

import (
	"regexp"
	"strings"
	"testing"
)

// TestLayoutItems checks issue 32's layout goldens for what each picture
// must say or must no longer do; each failed on the code before.
func TestLayoutItems(t *testing.T) {
	byName := map[string]Input{}
	for _, tc := range layoutCases(fonts(t)) {
		byName[tc.name] = tc.in
	}
	tests := []struct {
		golden string
		want   []string // substrings of the SVG
		count  map[string]int
	}{
		// item 13: groups of 4 values or fewer show their points and n
		{golden: "layout-boxplot-small-n", want: []string{">n = 3<", ">n = 4<", ">n = 2<"}, count: map[string]int{`>n = `: 3}},
		// item 14: a bubble scatter names its size column in a key
		{golden: "layout-scatter-bubbles", want: []string{">Population<", ">5M<", ">20M<", ">100M<"}},
		// item 18: pies carry their shares on the slices
		{golden: "layout-pie-shares", want: []string{`<g class="shares">`, ">30%<", ">26%<"}},
		{golden: "layout-donut-shares", want: []string{`<g class="shares">`, ">64%<", ">19%<"}},
	}
	for _, tt := range tests {
		t.Run(tt.golden, func(t *testing.T) {
			in, ok := byName[tt.golden]
			if !ok {
				t.Fatalf("no layout case %s", tt.golden)
			}
			svg, err := SVG(in)
			if err != nil {
				t.Fatal(err)
			}
			s := string(svg)
			for _, w := range tt.want {
				if !strings.Contains(s, w) {
					t.Errorf("the picture lacks %q", w)
				}
			}
			for sub, n := range tt.count {
				if got := len(regexp.MustCompile(regexp.QuoteMeta(sub)).FindAllStringIndex(s, -1)); got != n {
					t.Errorf("%q appears %d times, want %d", sub, got, n)
				}
			}
		})
	}
}
