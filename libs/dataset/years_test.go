package dataset

import (
	"encoding/json"
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
