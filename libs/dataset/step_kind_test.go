package dataset

import (
	"strings"
	"testing"
)

// TestKindStep reads columns again as other kinds, from their cells as
// they show, and refuses a cell that does not read, naming it.
func TestKindStep(t *testing.T) {
	csv := "Code,Sales,Year,Share,When,Note\n0451,\"1,200\",2020,12%,2024-03-05,10\n0012,n/a,2021,7.5%,2024-04-01,x\n0300,980,2022,3%,,12\n"
	tab, _, err := Parse(csv, "csv")
	if err != nil {
		t.Fatal(err)
	}
	kinds := func(t *Table) string {
		var b []string
		for _, c := range t.Columns {
			b = append(b, string(c.Kind))
		}
		return strings.Join(b, ",")
	}
	if got := kinds(tab); got != "text,text,date,number,date,text" {
		t.Fatalf("as read: %s", got)
	}
	cases := []struct {
		col  string
		kind Kind
		want []string // the column's cells after, as they show
		err  string
	}{
		// leading zeros were kept as text; read as numbers they lose them
		{col: "c1", kind: Number, want: []string{"451", "12", "300"}},
		// a written blank stays blank; grouping marks are read
		{col: "c2", kind: Number, want: []string{"1200", "", "980"}},
		// years become numbers and back to text as written
		{col: "c3", kind: Number, want: []string{"2020", "2021", "2022"}},
		{col: "c3", kind: Text, want: []string{"2020", "2021", "2022"}},
		// a percent column as text keeps its sign
		{col: "c4", kind: Text, want: []string{"12%", "7.5%", "3%"}},
		{col: "c5", kind: Text, want: []string{"2024-03-05", "2024-04-01", ""}},
		{col: "c6", kind: Number, err: `kind: column "Note" (c6) cannot be read as numbers: row 2 holds "x", which is not a number`},
		{col: "c1", kind: Date, err: `kind: column "Code" (c1) cannot be read as dates: row 1 holds "0451", which is not a date`},
		{col: "c9", kind: Text, err: "column: no column c9"},
		{col: "c1", kind: "colour", err: `kind: must be one of text, number, date; got "colour"`},
	}
	for _, tc := range cases {
		s := &KindStep{Column: tc.col, Kind: tc.kind}
		out, err := s.Apply(tab, Defaults{})
		if tc.err != "" {
			if err == nil || !strings.Contains(err.Error(), tc.err) {
				t.Errorf("%s → %s: error %v, want %q", tc.col, tc.kind, err, tc.err)
			}
			continue
		}
		if err != nil {
			t.Errorf("%s → %s: %v", tc.col, tc.kind, err)
			continue
		}
		c, _ := out.Column(tc.col)
		if c.Kind != tc.kind {
			t.Errorf("%s → %s: kind %s", tc.col, tc.kind, c.Kind)
		}
		var got []string
		for i := range out.Rows {
			got = append(got, c.Format(i))
		}
		if tc.kind == Text {
			got = c.Text
		}
		if strings.Join(got, "|") != strings.Join(tc.want, "|") {
			t.Errorf("%s → %s: cells %q, want %q", tc.col, tc.kind, got, tc.want)
		}
		// the input is a value: unchanged
		if in, _ := tab.Column(tc.col); in.Kind == tc.kind && tc.col != "c3" {
			t.Errorf("%s: the input table changed", tc.col)
		}
	}
	// text read as dates, then the step round-trips through JSON
	s, err := DecodeStep([]byte(`{"type":"kind","column":"c5","kind":"date"}`))
	if err != nil {
		t.Fatal(err)
	}
	text, _ := (&KindStep{Column: "c5", Kind: Text}).Apply(tab, Defaults{})
	back, err := s.Apply(text, Defaults{})
	if err != nil {
		t.Fatal(err)
	}
	if c, _ := back.Column("c5"); c.Kind != Date || c.Format(1) != "2024-04-01" || c.DateUnit != UnitDay {
		t.Errorf("dates again: %s %q %s", c.Kind, c.Format(1), c.DateUnit)
	}
}
