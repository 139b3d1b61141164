package dataset

import (
	"encoding/json"
	"math"
	"math/rand/v2"
	"slices"
	"strings"
	"testing"
)

func TestDescribe(t *testing.T) {
	tab, _, err := Parse("Country,Sales,Date,Empty,Blank\nFrance,10,2024-01-15,,\nSpain,30,,,\nfrance,,2024-03-01,,\nFrance,20,2024-02-01,,\n", "")
	if err != nil {
		t.Fatal(err)
	}
	got, err := json.Marshal(Describe(tab))
	if err != nil {
		t.Fatal(err)
	}
	want := `[` +
		`{"id":"c1","name":"Country","kind":"text","blanks":0,"distinct":3,"top":[{"value":"France","count":2},{"value":"Spain","count":1},{"value":"france","count":1}]},` +
		`{"id":"c2","name":"Sales","kind":"number","blanks":1,"min":10,"max":30,"mean":20},` +
		`{"id":"c3","name":"Date","kind":"date","blanks":1,"min":"2024-01-15","max":"2024-03-01"},` +
		`{"id":"c4","name":"Empty","kind":"text","blanks":4,"distinct":0,"top":[]},` +
		`{"id":"c5","name":"Blank","kind":"text","blanks":4,"distinct":0,"top":[]}]`
	if string(got) != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	empty := &Table{Columns: []*Column{{ID: "c1", Name: "v", Kind: Number, Num: []float64{math.NaN()}}}, Rows: 1}
	got, _ = json.Marshal(Describe(empty))
	if string(got) != `[{"id":"c1","name":"v","kind":"number","blanks":1,"min":null,"max":null,"mean":null}]` {
		t.Errorf("all-blank number column: %s", got)
	}
}

func TestDescribeTopTen(t *testing.T) {
	var b strings.Builder
	b.WriteString("v\n")
	for i := 0; i < 15; i++ {
		for k := 0; k <= i; k++ {
			b.WriteString("x" + string(rune('a'+i)) + "\n")
		}
	}
	tab, _, err := Parse(b.String(), "")
	if err != nil {
		t.Fatal(err)
	}
	s := Describe(tab)[0]
	if *s.Distinct != 15 || len(s.Top) != 10 || s.Top[0] != (TopValue{"xo", 15}) || s.Top[9] != (TopValue{"xf", 6}) {
		t.Errorf("summary %+v", s)
	}
}

func TestRowsAndCells(t *testing.T) {
	tab, _, err := Parse("a,b,c\nx,1.5,2024-03\n,,\n", "")
	if err != nil {
		t.Fatal(err)
	}
	got, _ := json.Marshal(Rows(tab, 0))
	if string(got) != `[["x",1.5,"2024-03"],[null,null,null]]` {
		t.Errorf("rows %s", got)
	}
	if got, _ := json.Marshal(Rows(tab, 1)); string(got) != `[["x",1.5,"2024-03"]]` {
		t.Errorf("limited rows %s", got)
	}
	if Cells(tab) != 6 {
		t.Errorf("cells %d", Cells(tab))
	}
}

func TestFormat(t *testing.T) {
	num := &Column{Kind: Number, Num: []float64{1.5, 100, -0.25, 1e21, 1e-7, math.NaN(), 1234567.125, math.Inf(1)}}
	want := []string{"1.5", "100", "-0.25", "1e+21", "1e-07", "", "1234567.125", "Infinity"}
	for i, w := range want {
		if g := num.Format(i); g != w {
			t.Errorf("Format(%v) = %q, want %q", num.Num[i], g, w)
		}
	}
	ms := float64(daysFromCivil(2024, 3, 1) * msPerDay)
	for unit, w := range map[string]string{UnitYear: "2024", UnitQuarter: "2024-Q1", UnitMonth: "2024-03",
		UnitDay: "2024-03-01", UnitTime: "2024-03-01T00:00:00", "": "2024-03-01"} {
		c := &Column{Kind: Date, Num: []float64{ms}, DateUnit: unit}
		if g := c.Format(0); g != w {
			t.Errorf("unit %q: %q, want %q", unit, g, w)
		}
	}
	text := &Column{Kind: Text, Text: []string{"a", ""}}
	if text.Format(0) != "a" || !text.IsBlank(1) || text.IsBlank(0) || !num.IsBlank(5) || num.IsBlank(0) {
		t.Error("text format or blanks wrong")
	}
}

func TestCloneAndColumn(t *testing.T) {
	tab := fixture(t)
	cp := tab.Clone()
	cp.Columns[0].Text[0] = "changed"
	cp.Columns[1].Num[0] = 99
	cp.Columns[1].Name = "renamed"
	if tab.Columns[0].Text[0] != "France" || tab.Columns[1].Num[0] != 10 || tab.Columns[1].Name != "Sales" {
		t.Error("Clone shares storage with the original")
	}
	if c, ok := tab.Column("c3"); !ok || c.Name != "Date" {
		t.Error("Column(c3) not found")
	}
	if _, ok := tab.Column("c99"); ok {
		t.Error("Column(c99) found")
	}
}

func TestCivilRoundTrip(t *testing.T) {
	for days := int64(-800_000); days < 800_000; days += 37 {
		y, m, d := civilFromDays(days)
		if back := daysFromCivil(y, m, d); back != days || !validDate(y, m, d) {
			t.Fatalf("day %d → %d-%d-%d → %d", days, y, m, d, back)
		}
	}
}

func TestMedian(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for n := 1; n < 400; n += 7 {
		for _, dup := range []int{0, 3} {
			b := make([]float64, n)
			for i := range b {
				if dup > 0 {
					b[i] = float64(r.IntN(dup))
				} else {
					b[i] = r.NormFloat64()
				}
			}
			sorted := slices.Clone(b)
			slices.Sort(sorted)
			want := sorted[n/2]
			if n%2 == 0 {
				want = (sorted[n/2-1] + sorted[n/2]) / 2
			}
			if got := median(b); got != want {
				t.Fatalf("n=%d dup=%d: median %v, want %v", n, dup, got, want)
			}
		}
	}
}

// TestDescribeExtremeNumbers keeps every statistic of finite values finite
// (the mean of two 1e308s is 1e308, not +Inf) and answers null for one
// that has no finite value, so the summary always encodes as JSON.
func TestDescribeExtremeNumbers(t *testing.T) {
	for _, tc := range []struct {
		name string
		vals []float64
		want string
	}{
		{"two maxima", []float64{1e308, 1e308}, `"min":1e+308,"max":1e+308,"mean":1e+308`},
		{"largest finite", []float64{math.MaxFloat64, math.MaxFloat64, math.MaxFloat64}, `"min":1.7976931348623157e+308,"max":1.7976931348623157e+308,"mean":1.7976931348623157e+308`},
		{"opposite extremes", []float64{-1e308, 1e308, -1e308, 1e308}, `"min":-1e+308,"max":1e+308,"mean":0`},
		{"overflow then back", []float64{1e308, 1e308, 1e308, -1.5e308, math.NaN()}, `"blanks":1,"min":-1.5e+308,"max":1e+308,"mean":3.75e+307`},
		{"ordinary", []float64{1, 2, 4}, `"min":1,"max":4,"mean":2.3333333333333335`},
		{"infinite after a step", []float64{math.Inf(1), 1}, `"min":1,"max":null,"mean":null`},
		{"both infinities", []float64{math.Inf(-1), math.Inf(1)}, `"min":null,"max":null,"mean":null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			tab := &Table{Columns: []*Column{{ID: "c1", Name: "v", Kind: Number, Num: tc.vals}}, Rows: len(tc.vals)}
			got, err := json.Marshal(Describe(tab))
			if err != nil {
				t.Fatalf("summary does not encode: %v", err)
			}
			if !strings.Contains(string(got), tc.want) {
				t.Errorf("got %s, want %s in it", got, tc.want)
			}
		})
	}
}
