package chartspec

import (
	"slices"
	"strings"
	"testing"
)

func TestNaturalCompare(t *testing.T) {
	for _, tc := range []struct {
		a, b string
		want int
	}{
		{"4 cylinders", "10 cylinders", -1},
		{"6 cylinders", "4 cylinders", 1},
		{"v2.5", "v10", -1},
		{"Q1 2025", "Q3 2024", -1},
		{"Group 7", "Group 7", 0},
		{"a", "b", -1},
		{"item", "item 2", -1},
	} {
		if got := NaturalCompare(tc.a, tc.b); got != tc.want {
			t.Errorf("NaturalCompare(%q, %q) = %d, want %d", tc.a, tc.b, got, tc.want)
		}
	}
}

// TestScatterGroupOrder: scatter groups (legend, colours) in the order a
// reader expects: natural for names that differ only in their numbers,
// low to high for numbers, the data's for other text, the user's after a
// sort step by the group column; blanks last.
func TestScatterGroupOrder(t *testing.T) {
	f := newFixture(t)
	cars := "W,MPG,Cyl\n2.6,21,6 cylinders\n2.3,22.8,4 cylinders\n3.4,18.7,8 cylinders\n3.5,18.1,6 cylinders\n1.8,33.9,4 cylinders\n"
	tests := []struct {
		name string
		csv  string
		ops  []string
		want string
	}{
		{"natural order, not the data's 6, 4, 8", cars, nil, "4 cylinders|6 cylinders|8 cylinders"},
		{"a sort step by the group is the user's order", cars,
			[]string{`{"op":"addTransform","transform":{"type":"sort","column":"c3","direction":"desc"}}`}, "8 cylinders|6 cylinders|4 cylinders"},
		{"a later sort by another column is not an order of groups", cars,
			[]string{`{"op":"addTransform","transform":{"type":"sort","column":"c3","direction":"desc"}}`, `{"op":"addTransform","transform":{"type":"sort","column":"c1"}}`},
			"4 cylinders|6 cylinders|8 cylinders"},
		{"numbers low to high", "W,MPG,Cyl\n1,2,6\n2,3,4\n3,4,8\n", nil, "4|6|8"},
		{"other text keeps the data's order", "W,MPG,Level\n1,2,Low\n2,3,High\n3,4,Medium\n", nil, "Low|High|Medium"},
		{"names of different shapes keep the data's order", "W,MPG,Age\n1,2,Under 18\n2,3,65 and over\n3,4,18 to 64\n", nil, "Under 18|65 and over|18 to 64"},
		{"blank last", "W,MPG,Cyl\n1,2,\n2,3,8 cylinders\n3,4,4 cylinders\n", nil, "4 cylinders|8 cylinders|" + BlankGroup},
		{"rows without a point make no group", "W,MPG,Cyl\n1,,2 cylinders\n2,3,8 cylinders\n3,4,4 cylinders\n", nil, "4 cylinders|8 cylinders"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tab := parseCSV(t, tc.csv)
			spec := f.newSpec(t, "scatter", tab)
			spec.Mapping = Mapping{"x": One("c1"), "y": One("c2"), "group": One("c3")}
			spec = f.apply(t, spec, tab, tc.ops...)
			after := afterSteps(t, spec, tab)
			var names []string
			for _, s := range ChartSeries(spec, after, 0) {
				names = append(names, s.Label)
			}
			if got := strings.Join(names, "|"); got != tc.want {
				t.Fatalf("groups %s, want %s", got, tc.want)
			}
		})
	}
}

// TestChartSeriesColours: lint sees the colours drawn: past the palette
// the extended colours (never the Other grey), a pie's Other row grey and
// without a palette colour of its own.
func TestChartSeriesColours(t *testing.T) {
	f := newFixture(t)
	brand := `{"op":"setPalette","colors":["#1F3A93","#F28C28"]}`
	ext := ExtendPalette([]string{"#1F3A93", "#F28C28"}, 5)
	t.Run("bar series past the palette", func(t *testing.T) {
		tab := parseCSV(t, wideCSV(3, 5))
		spec := f.apply(t, f.newSpec(t, "bar", tab), tab, brand)
		var got []string
		for _, s := range ChartSeries(spec, tab, 0) {
			got = append(got, s.Color)
		}
		if !slices.Equal(got, ext) {
			t.Fatalf("colours %v, want %v", got, ext)
		}
		if spec.Style.ColorOf("c6", 4) != ext[4] {
			t.Fatalf("ColorOf(c6, 4) = %s", spec.Style.ColorOf("c6", 4))
		}
	})
	t.Run("pie Other row", func(t *testing.T) {
		tab := parseCSV(t, "L,V\nA,5\nOther,4\nB,3\nC,2\n")
		spec := f.apply(t, f.newSpec(t, "pie", tab), tab, brand)
		var got []string
		for _, s := range ChartSeries(spec, tab, 0) {
			got = append(got, s.Color)
		}
		if want := []string{ext[0], OtherColor, ext[1], ext[2]}; !slices.Equal(got, want) {
			t.Fatalf("colours %v, want %v", got, want)
		}
	})
}
