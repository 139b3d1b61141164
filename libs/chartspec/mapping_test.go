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
		// issue 22: identifiers are no measures, years serve number roles
		{"scatter", "ID,Height,Weight\n1,170,60\n2,180,80\n3,160,55\n", "map[x:[c2] y:[c3]]"},
		{"scatter", "Year,Temp\n1880,13.9\n1890,14.0\n1900,14.1\n", "map[x:[c1] y:[c2]]"},
		{"scatter", "Year,Temp,CO2\n1880,13.9,290\n1890,14.0,294\n", "map[x:[c2] y:[c3]]"},
		{"histogram", "Name,Year joined\nAnn,2001\nBob,2010\n", "map[value:[c2]]"},
		{"histogram", "Customer ID,Spend\n1,20\n2,35\n", "map[value:[c2]]"},
		{"boxplot", "Abteilung,Jahr\na,1990\na,2001\nb,2010\n", "map[group:[c1] value:[c2]]"},
		{"bar", "Company,Founded\nSiemens,1847\nBayer,1863\n", "map[category:[c1] values:[c2]]"},
		{"bar", "Height,ID,Weight\n170,1,60\n180,2,80\n", "map[category:[c2] values:[c1 c3]]"},
		{"dotplot", "Company,Founded\nSiemens,1847\nBayer,1863\n", "map[category:[c1] values:[c2]]"},
		// issue 32: a name alone makes no id; the values must count the rows
		{"line", "Date,Index,Benchmark\n2024-01,100,100\n2024-02,103.5,101.2\n2024-03,98.7,102.9\n", "map[values:[c2 c3] x:[c1]]"},
		{"line", "Date,Key,Target\n2024-01,12,10\n2024-02,15,10\n2024-03,9,10\n", "map[values:[c2 c3] x:[c1]]"},
		{"bar", "Question,Yes,No,Undecided\nQ1,45,38,17\nQ2,52,40,8\nQ3,30,61,9\n", "map[category:[c1] values:[c2 c3 c4]]"},
		{"bar", "Question,No,Yes\nQ1,38,45\nQ2,40,52\n", "map[category:[c1] values:[c2 c3]]"},
		{"line", "Date,Index,Sales\n2024-01,1,100\n2024-02,2,101.2\n2024-03,3,102.9\n", "map[values:[c3] x:[c1]]"},
		{"scatter", "Customer ID,Age,Spend\n5512,30,20\n1203,41,35\n9981,25,12\n", "map[x:[c2] y:[c3]]"},
		{"scatter", "Customer ID,Age,Spend\n5512.5,30,20\n1203,41,35\n9981,25,12\n", "map[x:[c1] y:[c2]]"},
		// heatmaps: a wide table is rows × columns; long names go down the side
		{"heatmap", "Var,A,B,C\nR0,1,0.42,-0.9\nR1,0.42,1,-0.5\nR2,-0.9,-0.5,1\nR3,0.1,0.3,-0.2\n", "map[value:[c2 c3 c4] y:[c1]]"},
		{"heatmap", "Country,2019,2020\nDE,1,2\nFR,3,4\n", "map[value:[c2 c3] y:[c1]]"},
		{"heatmap", "Station,Month,Rain\nAberdeen Dyce Airport,Jan,3\nAberdeen Dyce Airport,Feb,4\nCardiff Rhoose Airport,Jan,5\nDundee Riverside Airport,Jan,5\nEdinburgh Gogarbank Airport,Jan,5\n", "map[value:[c3] x:[c2] y:[c1]]"},
		{"heatmap", "Store,Month,Sales\nA,2024-01,3\nA,2024-02,4\nB,2024-01,5\n", "map[value:[c3] x:[c1] y:[c2]]"},
		{"heatmap", "Day,Hour,Count\nMon,9,3\nMon,10,4\nTue,9,5\n", "map[value:[c3] x:[c1] y:[c2]]"},
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
	// An identifier left unplotted is no candidate for the axes.
	sc, _ := cat.Type("scatter")
	idTable, _, err := dataset.Parse("ID,Height,Weight\n1,170,60\n2,180,80\n", "")
	if err != nil {
		t.Fatal(err)
	}
	if notes := AutoMappingNotices(sc, idTable); len(notes) > 0 {
		t.Errorf("notices %v", notes)
	}
	// A wide heatmap stays wide (no x added); a long one keeps one value.
	heat, _ := cat.Type("heatmap")
	m = KeepMapping(Mapping{"y": One("c1"), "value": Many("c2", "c3")}, heat, tb)
	if _, ok := m["x"]; ok || fmt.Sprint(m["value"].IDs) != "[c2 c3]" {
		t.Fatalf("wide heatmap got %v", m)
	}
	m = KeepMapping(Mapping{"x": One("c1"), "y": One("c2")}, heat, tb)
	if fmt.Sprint(m["value"].IDs) != "[c3]" {
		t.Fatalf("long heatmap got %v", m)
	}
}
