package draw

import (
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"

	"chartd.dev/libs/dataset"
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
		// grown is the notice code a picture grown taller must carry;
		// the answer's size is then taller than 600 and the SVG's own
		grown bool
		// notices are codes the answer must carry
		notices []string
		// mostLabels bounds the texts drawn in the value labels' group
		// (a label on a line has a halo copy under it)
		mostLabels int
		// wantNot are substrings the SVG must not hold
		wantNot []string
	}{
		// item 6: columns of long names left to the drawing turn into bars
		// and name them flat and whole
		{golden: "layout-bar-party-names", notices: []string{NoticeTurned}, want: []string{">Sozialdemokratische Partei Deutschlands<", ">Freie Demokratische Partei<"},
			wantNot: []string{"rotate(", "…"}},
		// item 6: columns asked for keep them, names wrapped flat
		{golden: "layout-bar-party-names-vertical", want: []string{">Sozialdemokratische<"}, wantNot: []string{"rotate(", "…", NoticeTurned}},
		// item 7: 12 lines × 15 points label each line's end, high and low
		{golden: "layout-line-12x15-labels", notices: []string{NoticeLabelsHidden}, mostLabels: 2 * 3 * 12},
		// item 8: a far outlier leaves the scale, said on the picture
		{golden: "layout-scatter-1e9", want: []string{">Turnover: 1 value off the scale: 1,000,000,000.<"}, notices: []string{NoticeOffScale}},
		{golden: "layout-histogram-5m-income", want: []string{">1 value off the scale: 5,000,000.<"}, notices: []string{NoticeOffScale}},
		// item 8: positive data over five orders of magnitude: log axes
		{golden: "layout-scatter-log-auto", want: []string{">1k<", ">10k<", ">100k<", ">1M<"}, notices: []string{NoticeLogScale}},
		// item 5: with no height given the chart grows to name every row
		{golden: "layout-bar-50-rows-grow", grown: true, want: []string{">Station 2<", ">Station 50<"}},
		{golden: "layout-heatmap-60-rows-grow", grown: true, want: []string{">Sensor 02<", ">Sensor 59<"}},
		{golden: "layout-dotplot-45-rows-grow", grown: true, want: []string{">Team 2<", ">Team 44<"}},
		// item 5: at a fixed height, names thinned out are said on the picture
		{golden: "layout-bar-50-rows-fixed", want: []string{">Only every 2nd of the 50 bars is named.<", `height="400"`}},
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
			res, err := Render(in)
			if err != nil {
				t.Fatal(err)
			}
			s := string(res.SVG)
			grown := slices.ContainsFunc(res.Notices, func(n dataset.Notice) bool { return n.Code == NoticeGrown })
			if grown != tt.grown || tt.grown && (res.Height <= 600 || !strings.Contains(s, ` height="`+strconv.Itoa(res.Height)+`"`)) {
				t.Errorf("answer %d×%d, notices %v: want grown %v, the size the SVG's own", res.Width, res.Height, res.Notices, tt.grown)
			}
			for _, code := range tt.notices {
				if !slices.ContainsFunc(res.Notices, func(n dataset.Notice) bool { return n.Code == code }) {
					t.Errorf("notices %v lack %s", res.Notices, code)
				}
			}
			for _, w := range tt.want {
				if !strings.Contains(s, w) {
					t.Errorf("the picture lacks %q", w)
				}
			}
			for _, w := range tt.wantNot {
				if strings.Contains(s, w) || slices.ContainsFunc(res.Notices, func(n dataset.Notice) bool { return n.Code == w }) {
					t.Errorf("the picture has %q", w)
				}
			}
			if tt.mostLabels > 0 {
				_, group, _ := strings.Cut(s, `<g class="labels">`)
				group, _, _ = strings.Cut(group, `</g>`)
				if n := strings.Count(group, "<text"); n > tt.mostLabels {
					t.Errorf("%d value label texts, want %d at most", n, tt.mostLabels)
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
