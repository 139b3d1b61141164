package chartspec

import (
	"fmt"
	"testing"

	"chartd.dev/charts"
	"chartd.dev/libs/dataset"
)

func TestAutoMapping(t *testing.T) {
	cat, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	table := func(csv string) *dataset.Table {
		tb, _, err := dataset.Parse(csv, "")
		if err != nil {
			t.Fatal(err)
		}
		return tb
	}
	for _, tc := range []struct {
		typ, csv, want string
	}{
		{"bar", "Country,Sales,Profit\nDE,1,2\n", "map[category:[c1] values:[c2 c3]]"},
		{"line", "Visits,Month,Orders\n1,2024-01,3\n", "map[values:[c1 c3] x:[c2]]"},
		{"line", "Step,Loss\n1,0.5\n2,0.4\n", "map[values:[c2] x:[c1]]"},
		{"pie", "Browser,Share\nChrome,65\n", "map[label:[c1] value:[c2]]"},
		{"scatter", "Name,Weight,MPG,HP\na,1,2,3\nb,2,3,4\n", "map[x:[c2] y:[c3]]"},
		{"scatter", "Make,Weight,MPG\nvw,1,2\nvw,2,3\nbmw,3,1\n", "map[group:[c1] x:[c2] y:[c3]]"},
		{"histogram", "City,Minutes\na,12\n", "map[value:[c2]]"},
		{"boxplot", "Dept,Salary\na,10\na,12\nb,9\n", "map[group:[c1] value:[c2]]"},
		{"boxplot", "Salary\n10\n", "map[value:[c1]]"},
		{"sankey", "From,To,Amount\na,b,3\n", "map[source:[c1] target:[c2] value:[c3]]"},
		{"heatmap", "Day,Hour,Visits\nMon,06:00,3\n", "map[value:[c3] x:[c1] y:[c2]]"},
		{"radar", "Skill,Ann,Bob\nSpeed,3,4\n", "map[axis:[c1] values:[c2 c3]]"},
		{"bar", "Only,Words\na,b\n", "map[category:[c1]]"},
	} {
		ct, _ := cat.Type(tc.typ)
		m := AutoMapping(ct, table(tc.csv))
		got := map[string][]string{}
		for k, v := range m {
			got[k] = v.IDs
		}
		if fmt.Sprint(got) != tc.want {
			t.Errorf("%s on %q: %v, want %s", tc.typ, tc.csv, got, tc.want)
		}
	}
}

func TestKeepMapping(t *testing.T) {
	cat, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	tb, _, err := dataset.Parse("Country,Sales,Profit\nDE,1,2\n", "")
	if err != nil {
		t.Fatal(err)
	}
	bar, _ := cat.Type("bar")
	pie, _ := cat.Type("pie")
	// values c3 only, as a person chose; a pie keeps nothing of a bar's
	// roles by name and picks its own.
	m := KeepMapping(Mapping{"category": One("c1"), "values": Many("c3"), "bogus": One("c2")}, bar, tb)
	if fmt.Sprint(m["values"].IDs) != "[c3]" || m.Col("category") != "c1" || len(m) != 2 {
		t.Fatalf("bar kept %v", m)
	}
	m = KeepMapping(Mapping{"category": One("c1"), "values": Many("c3")}, pie, tb)
	if m.Col("label") != "c1" || m.Col("value") != "c2" {
		t.Fatalf("pie got %v", m)
	}
	// A column of the wrong kind for the role is not kept.
	m = KeepMapping(Mapping{"values": Many("c1")}, bar, tb)
	if fmt.Sprint(m["values"].IDs) != "[c2 c3]" {
		t.Fatalf("text column kept as values: %v", m)
	}
}
