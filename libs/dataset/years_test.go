package dataset

import (
	"encoding/json"
	"math"
	"testing"
)

// TestYearsByValue: four-digit whole numbers in a regular series are years
// whatever the header says, amounts in the same range are not.
func TestYearsByValue(t *testing.T) {
	for _, tc := range []struct {
		csv      string
		kind     Kind
		noticeOK bool
	}{
		{"年,売上\n2015,120\n2016,135\n2017,128\n2018,150", Date, false}, // 年 is a year word
		{",Sales\n2015,120\n2016,135\n2017,128\n2018,150", Date, true},
		{"FY,Sales\n2019,1\n2019,2\n2020,3\n2021,4\n2022,5", Date, false},
		{"Anno fiscale,Sales\n2010,1\n2012,2\n2014,3\n2016,4", Date, false},
		{"Periodo,Sales\n2010,1\n2012,2\n2014,3\n2016,4", Date, true},
		{"Price,Sales\n2015,120\n2016,135\n2017,128\n2018,150", Number, false},
		{"Score,Sales\n1999,1\n2044,2\n1850,3", Number, false},
		{"Code,Sales\n2015,1\n2016,2", Number, false},
		{"Height,Sales\n1890,1\n1897,2\n1901,3\n1923,4", Number, false},
	} {
		raw, _ := json.Marshal(tc.csv)
		tbl, notices, err := ParseRequest(raw, "csv")
		if err != nil {
			t.Fatalf("%q: %v", tc.csv, err)
		}
		if got := tbl.Columns[0].Kind; got != tc.kind {
			t.Errorf("%q: kind %s, want %s", tc.csv, got, tc.kind)
		}
		if tc.kind == Date && tbl.Columns[0].DateUnit != UnitYear {
			t.Errorf("%q: unit %s, want year", tc.csv, tbl.Columns[0].DateUnit)
		}
		found := false
		for _, n := range notices {
			found = found || n.Code == NoticeYearsByValue
		}
		if found != tc.noticeOK {
			t.Errorf("%q: years_by_value notice %v, want %v (%v)", tc.csv, found, tc.noticeOK, notices)
		}
	}
}

// TestYearHeaders: headers that name a year or the year of an event make
// four-digit integers years; the same words further back, or amounts in
// the same range, do not.
func TestYearHeaders(t *testing.T) {
	for _, tc := range []struct {
		header string
		kind   Kind
	}{
		{"Year joined", Date},
		{"Jahr", Date},
		{"Founded", Date},
		{"Founded in", Date},
		{"Baujahr", Date},
		{"Geburtsjahr", Date},
		{"Bouwjaar", Date},
		{"Accounts opened", Number},
		{"Tasks completed", Number},
		{"Sales", Number},
	} {
		raw, _ := json.Marshal(tc.header + ",Count\n1848,1\n1903,2\n1976,3\n1850,4")
		tbl, _, err := ParseRequest(raw, "csv")
		if err != nil {
			t.Fatalf("%q: %v", tc.header, err)
		}
		if got := tbl.Columns[0].Kind; got != tc.kind {
			t.Errorf("%q: kind %s, want %s", tc.header, got, tc.kind)
		}
	}
}

// TestAsYearNumbers: a year column taken as numbers holds the years,
// blanks kept, marked Years; other columns come back as they are.
func TestAsYearNumbers(t *testing.T) {
	raw, _ := json.Marshal("Founded,Name\n1848,a\n,b\n2024,c\n1066,d")
	tbl, _, err := ParseRequest(raw, "csv")
	if err != nil {
		t.Fatal(err)
	}
	c := tbl.Columns[0]
	if !c.IsYears() {
		t.Fatalf("kind %s unit %s, want a year column", c.Kind, c.DateUnit)
	}
	n := c.AsYearNumbers()
	if n.Kind != Number || !n.Years || n.ID != c.ID || n.Name != c.Name {
		t.Fatalf("got %+v", n)
	}
	want := []float64{1848, math.NaN(), 2024, 1066}
	for i, w := range want {
		if g := n.Num[i]; g != w && !(math.IsNaN(g) && math.IsNaN(w)) {
			t.Errorf("row %d: %v, want %v", i, g, w)
		}
	}
	if n.Format(0) != "1848" {
		t.Errorf("formats as %q", n.Format(0))
	}
	if o := tbl.Columns[1]; o.AsYearNumbers() != o || o.IsYears() {
		t.Error("a text column changed")
	}
}
