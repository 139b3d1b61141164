package draw

import (
	"regexp"
	"strings"
	"testing"

	"chartd.dev/libs/chartspec"
)

func TestSegmentCrosses(t *testing.T) {
	b := box{10, 10, 20, 20}
	for _, c := range []struct {
		name string
		s    segment
		want bool
	}{
		{"through the middle", segment{point{0, 15}, point{30, 15}}, true},
		{"diagonal through", segment{point{0, 0}, point{30, 30}}, true},
		{"one end inside", segment{point{15, 15}, point{40, 40}}, true},
		{"wholly inside", segment{point{12, 12}, point{18, 18}}, true},
		{"above, level", segment{point{0, 5}, point{30, 5}}, false},
		{"left, upright", segment{point{5, 0}, point{5, 30}}, false},
		{"stops short", segment{point{0, 15}, point{9, 15}}, false},
		{"passes the corner", segment{point{0, 25}, point{25, 0}}, true},
		{"misses the corner", segment{point{0, 9}, point{9, 0}}, false},
		{"a point outside", segment{point{5, 5}, point{5, 5}}, false},
	} {
		if got := c.s.crosses(b); got != c.want {
			t.Errorf("%s: crosses = %v, want %v", c.name, got, c.want)
		}
	}
}

func TestPlaceOff(t *testing.T) {
	bounds := box{0, 0, 200, 200}
	above, below := box{40, 40, 60, 50}, box{40, 70, 60, 80}
	line := segment{point{0, 45}, point{200, 45}} // strikes through above
	t.Run("a free place off the line wins over an earlier one on it", func(t *testing.T) {
		p := newPlacer(bounds, 1.5)
		p.avoid(2, line)
		if i, on := p.placeOff(above, below); i != 1 || on {
			t.Fatalf("placeOff = %d, %v; want 1 (below), off the line", i, on)
		}
	})
	t.Run("every place on a line: the first free one, flagged", func(t *testing.T) {
		p := newPlacer(bounds, 1.5)
		p.avoid(2, line, segment{point{0, 75}, point{200, 75}})
		if i, on := p.placeOff(above, below); i != 0 || !on {
			t.Fatalf("placeOff = %d, %v; want 0 (above), on a line", i, on)
		}
	})
	t.Run("a line's stroke and the pad count", func(t *testing.T) {
		p := newPlacer(bounds, 1.5)
		p.avoid(4, segment{point{0, 52}, point{200, 52}}) // 2 px under above's box
		if i, on := p.placeOff(above, below); i != 1 || on {
			t.Fatalf("placeOff = %d, %v; want 1: a 4 px stroke 2 px away touches", i, on)
		}
	})
	t.Run("long segments far to the left are still found", func(t *testing.T) {
		p := newPlacer(bounds, 1.5)
		p.avoid(2, segment{point{150, 0}, point{160, 10}}, segment{point{0, 45}, point{190, 46}})
		if i, on := p.placeOff(above, below); i != 1 || on {
			t.Fatalf("placeOff = %d, %v; want 1", i, on)
		}
	})
	t.Run("taken places are still taken", func(t *testing.T) {
		p := newPlacer(bounds, 1.5)
		p.avoid(2, line)
		p.block(below)
		if i, on := p.placeOff(above, below); i != 0 || !on {
			t.Fatalf("placeOff = %d, %v; want 0 on the line: below is taken", i, on)
		}
		if i, _ := p.placeOff(below); i != -1 || p.hidden != 1 {
			t.Fatalf("placeOff = %d, hidden %d; want -1 and one hidden", i, p.hidden)
		}
	})
}

var labelText = regexp.MustCompile(`<text [^>]*>[^<]*</text>`)

// labelsOf lists the value labels' text elements of a line chart.
func labelsOf(t *testing.T, svg string) []string {
	t.Helper()
	_, rest, ok := strings.Cut(svg, `<g class="labels">`)
	if !ok {
		t.Fatal("no labels group")
	}
	group, _, _ := strings.Cut(rest, `</g>`)
	return labelText.FindAllString(group, -1)
}

// TestLineLabelsKeepOffLines draws a U-shaped line whose every point has a
// free side: each label is shown, beside its point, with no halo (a halo
// marks a label that had to sit on a line).
func TestLineLabelsKeepOffLines(t *testing.T) {
	// (a step has no free side at its lowest point: the riser is above it)
	for _, curve := range []string{"linear", "smooth"} {
		t.Run(curve, func(t *testing.T) {
			s := testSpec("line", map[string]any{"markers": true, "curve": curve}, nil)
			s.Style.Labels.Show = true
			in := Input{Spec: s, Fonts: fonts(t), Table: table(num("c1", "Speed", 10, 20, 30, 40, 50, 60, 70, 80, 90, 100, 110, 120),
				num("c2", "Fuel", 9.1, 6.8, 5.6, 5.0, 4.7, 4.6, 4.8, 5.2, 5.9, 6.7, 7.6, 8.7))}
			out, err := SVG(in)
			if err != nil {
				t.Fatal(err)
			}
			labels := labelsOf(t, string(out))
			if len(labels) != 12 {
				t.Errorf("%d labels, want all 12: %q", len(labels), labels)
			}
			for _, l := range labels {
				if strings.Contains(l, "stroke=") {
					t.Errorf("label on a line (halo): %s", l)
				}
			}
		})
	}
}

// TestLineLabelsNotRepeated: the value a line's direct label gives at its
// end is not written again beside the last point.
func TestLineLabelsNotRepeated(t *testing.T) {
	s := testSpec("line", nil, chartspec.Mapping{"x": chartspec.One("c1"), "values": chartspec.Many("c2", "c3")})
	s.Style.Labels.Show = true
	in := Input{Spec: s, Fonts: fonts(t), Table: table(txt("c1", "Quarter", "Q1", "Q2", "Q3", "Q4", "Q5"),
		num("c2", "North", 410, 420, 433, 451, 777), num("c3", "South", 300, 290, 310, 305, 555))}
	out, err := SVG(in)
	if err != nil {
		t.Fatal(err)
	}
	svg := string(out)
	labels := labelsOf(t, svg)
	for _, v := range []string{"777", "555"} {
		if !strings.Contains(svg, "<tspan font-weight=\"normal\" fill=\"#3D444D\"> "+v+"</tspan>") {
			t.Errorf("the direct label does not give %s", v)
		}
		for _, l := range labels {
			if strings.Contains(l, ">"+v+"<") {
				t.Errorf("%s is written again beside the point: %s", v, l)
			}
		}
	}
	if len(labels) != 8 {
		t.Errorf("%d value labels, want 8 (every point but the two ends): %q", len(labels), labels)
	}
}
