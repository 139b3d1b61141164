package draw

import (
	"math"
	"slices"
	"strings"
	"testing"

	"chartd.dev/libs/chartspec"
)

// TestColorsNeverRepeat: series past the palette get colours generated in
// its style, each distinct and none grey, the very colours lint judges
// (chartspec.ExtendPalette), whether or not the chart reserved them.
func TestColorsNeverRepeat(t *testing.T) {
	pal := []string{"#112233", "#445566"}
	ext := chartspec.ExtendPalette(pal, 12)
	for _, reserved := range []bool{false, true} {
		c := newColors(pal, map[string]string{"pinned": "#778899"})
		if reserved {
			c.reserve(12)
		}
		seen := map[string]string{}
		for i := range 12 {
			key := string(rune('a' + i))
			got := c.of(key, i)
			if got != ext[i] {
				t.Errorf("reserved %v: of(%q, %d) = %s, lint judges %s", reserved, key, i, got, ext[i])
			}
			if got == otherColor {
				t.Errorf("reserved %v: series %d is the Other grey", reserved, i)
			}
			if prev, ok := seen[got]; ok {
				t.Errorf("reserved %v: series %s and %s share %s", reserved, prev, key, got)
			}
			seen[got] = key
		}
		if got := c.of("pinned", 5); got != "#778899" {
			t.Errorf("pinned series = %s", got)
		}
	}
}

// TestDivergingPalette reads the red-blue preset by its ends and middle,
// and no qualitative or sequential palette as diverging.
func TestDivergingPalette(t *testing.T) {
	for _, tc := range []struct {
		name string
		pal  []string
		want bool
	}{
		{"red-blue", []string{"#B2182B", "#EF8A62", "#FDDBC7", "#F7F7F7", "#D1E5F0", "#67A9CF", "#2166AC"}, true},
		{"even diverging", []string{"#B2182B", "#FDDBC7", "#D1E5F0", "#2166AC"}, true},
		{"default", defaultPalette(), false},
		{"viridis", []string{"#440154", "#482878", "#3E4A89", "#31688E", "#26828E", "#1F9E89", "#35B779", "#6DCD59", "#B4DE2C", "#FDE725"}, false},
		{"grayscale", []string{"#252525", "#525252", "#737373", "#969696", "#BDBDBD"}, false},
		{"two colours", []string{"#B2182B", "#2166AC"}, false},
	} {
		stops, ok := divergingPalette(tc.pal)
		if ok != tc.want {
			t.Errorf("%s: diverging %v, want %v", tc.name, ok, tc.want)
			continue
		}
		if !ok {
			continue
		}
		s := newDivergingPalette(stops, -0.9, 0.9)
		lo, hi := s.at(-0.9), s.at(0.9)
		if d := lo.DistanceCIEDE2000(hi); d < 0.3 {
			t.Errorf("%s: -0.9 and +0.9 are alike (ΔE %.2f)", tc.name, d)
		}
		if l, _, _ := s.at(0).Lab(); l < 0.85 {
			t.Errorf("%s: the centre is not light (L %.2f)", tc.name, l)
		}
	}
}

// TestNiceBins: a set count gives round edges (multiples of a step led by
// 1, 1.5, 2, 2.5, 3, 4, 5, 6 or 8) covering the data, that many bins where
// such a step gives them, else about that many (the notice says which).
func TestNiceBins(t *testing.T) {
	for _, tc := range []struct {
		name  string
		vals  []float64
		count int
		step  float64
	}{
		{"0.05 to 2.55 in 8", []float64{0.05, 0.7, 1.3, 2.55}, 8, 0.4},
		{"ages in 10", []float64{18, 25, 33, 47, 61, 79}, 10, 6},
		{"thousands in 5", []float64{1200, 3400, 9800}, 5, 2000},
		{"max on an edge", []float64{0, 25, 50, 75, 100}, 4, 25},
	} {
		edges, rule := histogramBins(tc.vals, tc.count)
		if rule != ruleSet {
			t.Errorf("%s: rule %s", tc.name, rule)
		}
		for i, e := range edges {
			if r := e / tc.step; math.Abs(r-math.Round(r)) > 1e-9 {
				t.Errorf("%s: edge %d = %v is not a multiple of %v", tc.name, i, e, tc.step)
			}
		}
		if edges[0] > tc.vals[0] || edges[len(edges)-1] < tc.vals[len(tc.vals)-1] {
			t.Errorf("%s: edges %v do not cover the data", tc.name, edges)
		}
		if n := len(edges) - 1; n < tc.count/2 || n > tc.count*2 {
			t.Errorf("%s: %d bins for %d asked", tc.name, n, tc.count)
		}
	}
	if _, rule := histogramBins([]float64{7, 7, 7}, 0); rule != ruleOne {
		t.Errorf("one value: rule %s", rule)
	}
}

// TestPieGroupsAndSays: many unsorted slices are sorted, the smallest
// summed into a grey Other, negatives left out, and both said in notices
// and on the chart.
func TestPieGroupsAndSays(t *testing.T) {
	f := fonts(t)
	names := make([]string, 25)
	vals := make([]float64, 25)
	for i := range vals {
		names[i] = "Region " + string(rune('A'+i))
		vals[i] = float64(100 + (i*37)%90)
	}
	vals[3], vals[7] = 5000, -20
	res, err := Render(Input{Spec: testSpec("pie", nil, nil), Table: table(txt("c1", "Region", names...), num("c2", "Sales", vals...)), Fonts: f})
	if err != nil {
		t.Fatal(err)
	}
	codes := []string{}
	for _, n := range res.Notices {
		codes = append(codes, n.Code)
	}
	if !slices.Contains(codes, NoticeAggregated) || !slices.Contains(codes, NoticePieNegative) {
		t.Fatalf("notices %v", res.Notices)
	}
	svg := string(res.SVG)
	if !strings.Contains(svg, `fill="`+otherColor+`"`) || !containsText(t, res.SVG, "Other (16 slices)") {
		t.Error("no grey Other slice of the 16 smallest")
	}
	if !strings.Contains(svg, `<g class="note">`) || !containsText(t, res.SVG, "Region H") {
		t.Error("the chart does not say why (note under the pie)")
	}
	if strings.Contains(svg, "more</text>") {
		t.Error("the legend still ends in +N more")
	}
	first := strings.Index(svg, `<path fill="`)
	if first < 0 || svg[first+12:first+19] != defaultPalette()[0] {
		t.Error("the first slice drawn is not the largest in the first colour")
	}
}

// TestRadarGapAndRings: a blank value breaks the outline (two moves), and
// every ring but the centre is labelled.
func TestRadarGapAndRings(t *testing.T) {
	f := fonts(t)
	s := testSpec("radar", map[string]any{"fill": false}, nil)
	s.Style = chartspec.DefaultStyle(defaultPalette())
	out, err := SVG(Input{Spec: s, Table: table(txt("c1", "Axis", "a", "b", "c", "d", "e", "f"), num("c2", "S", 50, 80, nan, 60, 90, 40)), Fonts: f})
	if err != nil {
		t.Fatal(err)
	}
	doc := string(out)
	i := strings.Index(doc, `stroke-linecap="round" d="`)
	if i < 0 {
		t.Fatal("no outline")
	}
	d := doc[i : i+strings.Index(doc[i:], `"/>`)]
	if strings.Count(d, "M") != 1 || strings.Contains(d, "Z") {
		t.Errorf("outline with one blank must be one open run: %s", d)
	}
	ticks := doc[strings.Index(doc, `<g class="ticks"`):]
	ticks = ticks[:strings.Index(ticks, "</g>")]
	if n := strings.Count(ticks, "<text"); n < 3 {
		t.Errorf("%d rings labelled, want every ring", n)
	}
}

// TestSankeyFlowsPassBetweenNodes: a flow that skips a column passes
// through a stop of its own, never over a node of that column, and the
// first and last columns' names sit outside the flows.
func TestSankeyFlowsPassBetweenNodes(t *testing.T) {
	f := fonts(t)
	tbl := table(txt("c1", "From", "A", "A", "B", "B"), txt("c2", "To", "B", "D", "C", "D"), num("c3", "V", 10, 8, 6, 4))
	in := Input{Spec: testSpec("sankey", nil, nil), Table: tbl, Fonts: f}
	c := newCanvas(in, 800, 600)
	k := newSankey(c, roleColumns{"source": {tbl.Columns[0]}, "target": {tbl.Columns[1]}, "value": {tbl.Columns[2]}})
	k.draw(c, rect{16, 16, 768, 568})
	stops := 0
	for _, it := range k.items {
		if it.node >= 0 {
			continue
		}
		stops++
		for _, other := range k.itemLayers[it.layer] {
			o := k.items[other]
			if o.node >= 0 && it.y0 < o.y1 && o.y0 < it.y1 {
				t.Errorf("the stop at %v–%v overlaps node %s at %v–%v", it.y0, it.y1, k.nodes[o.node].name, o.y0, o.y1)
			}
		}
	}
	if stops != 1 {
		t.Errorf("%d stops, want 1 (A → D passes column 2)", stops)
	}
}
