package dataset

import (
	"encoding/json"
	"errors"
	"strings"
	"testing"
)

const fixtureCSV = `Country,Sales,Date,Region,Profit
France,10,2024-01-15,West,1
Spain,30,2024-02-20,South,3
Italy,,2024-02-05,South,2
Germany,20,2024-03-31,West,-1
Poland,5,,East,0
`

const fixtureColumns = "c1 (Country), c2 (Sales), c3 (Date), c4 (Region), c5 (Profit)"

func fixture(t *testing.T) *Table {
	t.Helper()
	tab, notices, err := Parse(fixtureCSV, "")
	if err != nil || len(notices) > 0 {
		t.Fatalf("fixture: %v %v", err, notices)
	}
	return tab
}

// render shows a table as a header line and one line per row.
func render(t *Table) string {
	var b strings.Builder
	for j, c := range t.Columns {
		if j > 0 {
			b.WriteString("|")
		}
		b.WriteString(c.ID + " " + c.Name + " " + string(c.Kind))
	}
	for i := 0; i < t.Rows; i++ {
		b.WriteString("\n")
		for j, c := range t.Columns {
			if j > 0 {
				b.WriteString("|")
			}
			b.WriteString(c.Format(i))
		}
	}
	return b.String()
}

type stepCase struct {
	name string
	step Step
	d    Defaults
	want string // rendered table, or the error text
	err  bool
}

func runStepCases(t *testing.T, cases []stepCase) {
	t.Helper()
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := fixture(t)
			before := render(in)
			verr := tc.step.Validate(in)
			out, err := tc.step.Apply(in, tc.d)
			if render(in) != before {
				t.Fatalf("the step changed its input:\n%s", render(in))
			}
			if tc.err {
				var fe *FieldError
				if err == nil || !errors.As(err, &fe) {
					t.Fatalf("error %v (%T), want *FieldError %q", err, err, tc.want)
				}
				if err.Error() != tc.want {
					t.Errorf("error\n %s\nwant\n %s", err, tc.want)
				}
				if verr != nil && verr.Error() != err.Error() {
					t.Errorf("Validate says %q, Apply says %q", verr, err)
				}
				return
			}
			if err != nil || verr != nil {
				t.Fatalf("apply: %v, validate: %v", err, verr)
			}
			if got := render(out); got != tc.want {
				t.Errorf("got\n%s\nwant\n%s", got, tc.want)
			}
			for _, c := range out.Columns {
				if (c.Kind == Text && len(c.Text) != out.Rows) || (c.Kind != Text && len(c.Num) != out.Rows) {
					t.Errorf("column %s has the wrong length", c.ID)
				}
			}
		})
	}
}

const head = "c1 Country text|c2 Sales number|c3 Date date|c4 Region text|c5 Profit number"

func TestSortStep(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "number desc, blanks last", step: &SortStep{Column: "c2", Direction: "desc"}, want: head + `
Spain|30|2024-02-20|South|3
Germany|20|2024-03-31|West|-1
France|10|2024-01-15|West|1
Poland|5||East|0
Italy||2024-02-05|South|2`},
		{name: "number asc by default, blanks last", step: &SortStep{Column: "c2"}, want: head + `
Poland|5||East|0
France|10|2024-01-15|West|1
Germany|20|2024-03-31|West|-1
Spain|30|2024-02-20|South|3
Italy||2024-02-05|South|2`},
		{name: "text asc", step: &SortStep{Column: "c1", Direction: "asc"}, want: head + `
France|10|2024-01-15|West|1
Germany|20|2024-03-31|West|-1
Italy||2024-02-05|South|2
Poland|5||East|0
Spain|30|2024-02-20|South|3`},
		{name: "text desc is stable", step: &SortStep{Column: "c4", Direction: "desc"}, want: head + `
France|10|2024-01-15|West|1
Germany|20|2024-03-31|West|-1
Spain|30|2024-02-20|South|3
Italy||2024-02-05|South|2
Poland|5||East|0`},
		{name: "date desc", step: &SortStep{Column: "c3", Direction: "desc"}, want: head + `
Germany|20|2024-03-31|West|-1
Spain|30|2024-02-20|South|3
Italy||2024-02-05|South|2
France|10|2024-01-15|West|1
Poland|5||East|0`},
		{name: "no such column", step: &SortStep{Column: "c9"}, err: true,
			want: "column: no column c9; the columns are " + fixtureColumns},
		{name: "column missing", step: &SortStep{}, err: true,
			want: "column: required: a column id; the columns are " + fixtureColumns},
		{name: "bad direction", step: &SortStep{Column: "c1", Direction: "up"}, err: true,
			want: `direction: must be asc or desc; got "up"`},
	})
}

func TestSortTextOrder(t *testing.T) {
	tab, _, err := Parse("name\nbanana\nApple\napple\nÉclair\ncherry\n", "")
	if err != nil {
		t.Fatal(err)
	}
	out, err := (&SortStep{Column: "c1"}).Apply(tab, Defaults{})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(out.Columns[0].Text, ","); got != "Apple,apple,banana,cherry,Éclair" {
		t.Errorf("order %s", got)
	}
}

func TestSortLarge(t *testing.T) {
	tab := benchTable(5000)
	for _, id := range []string{"c1", "c2", "c3"} {
		for _, dir := range []string{"asc", "desc"} {
			out, err := (&SortStep{Column: id, Direction: dir}).Apply(tab, Defaults{})
			if err != nil {
				t.Fatal(err)
			}
			c, _ := out.Column(id)
			for i := 1; i < out.Rows; i++ {
				var cmp int
				if c.Kind == Text {
					cmp = compareText(c.Text[i-1], c.Text[i])
				} else if c.Num[i-1] < c.Num[i] {
					cmp = -1
				} else if c.Num[i-1] > c.Num[i] {
					cmp = 1
				}
				if (dir == "asc" && cmp > 0) || (dir == "desc" && cmp < 0) {
					t.Fatalf("%s %s: rows %d and %d out of order", id, dir, i-1, i)
				}
			}
		}
	}
}

func TestTopNStep(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "top 2 and Other", step: &TopNStep{N: 2, Column: "c2"}, want: head + `
Spain|30|2024-02-20|South|3
Germany|20|2024-03-31|West|-1
Other|15||Other|3`},
		{name: "default value column", step: &TopNStep{N: 3}, d: Defaults{ValueColumn: "c5"}, want: head + `
Spain|30|2024-02-20|South|3
Italy||2024-02-05|South|2
France|10|2024-01-15|West|1
Other|25||Other|-1`},
		{name: "n covers all rows", step: &TopNStep{N: 5, Column: "c2"}, want: head + `
Spain|30|2024-02-20|South|3
Germany|20|2024-03-31|West|-1
France|10|2024-01-15|West|1
Poland|5||East|0
Italy||2024-02-05|South|2`},
		{name: "n zero", step: &TopNStep{N: 0, Column: "c2"}, err: true,
			want: "n: must be a whole number from 1 to 100000000; got 0"},
		{name: "text column", step: &TopNStep{N: 2, Column: "c1"}, err: true,
			want: "column: c1 (Country) is a text column; topN needs a number column: c2 (Sales), c5 (Profit)"},
		{name: "no column anywhere", step: &TopNStep{N: 2}, err: true,
			want: "column: required here: name the number column to rank by, one of c2 (Sales), c5 (Profit)"},
		{name: "default missing", step: &TopNStep{N: 2}, d: Defaults{ValueColumn: "c9"}, err: true,
			want: "column: no column c9; the columns are " + fixtureColumns},
		{name: "no such column", step: &TopNStep{N: 2, Column: "c7"}, err: true,
			want: "column: no column c7; the columns are " + fixtureColumns},
	})
}

func TestFilterStep(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "text eq", step: &FilterStep{Column: "c1", Operator: "eq", Value: "France"}, want: head + `
France|10|2024-01-15|West|1`},
		{name: "text ne", step: &FilterStep{Column: "c4", Operator: "ne", Value: "West"}, want: head + `
Spain|30|2024-02-20|South|3
Italy||2024-02-05|South|2
Poland|5||East|0`},
		{name: "contains ignores case", step: &FilterStep{Column: "c1", Operator: "contains", Value: "AN"}, want: head + `
France|10|2024-01-15|West|1
Germany|20|2024-03-31|West|-1
Poland|5||East|0`},
		{name: "text in", step: &FilterStep{Column: "c1", Operator: "in", Value: []any{"Spain", "Poland", "Peru"}}, want: head + `
Spain|30|2024-02-20|South|3
Poland|5||East|0`},
		{name: "text lt", step: &FilterStep{Column: "c1", Operator: "lt", Value: "Germany"}, want: head + `
France|10|2024-01-15|West|1`},
		{name: "number gt skips blanks", step: &FilterStep{Column: "c2", Operator: "gt", Value: json.Number("10")}, want: head + `
Spain|30|2024-02-20|South|3
Germany|20|2024-03-31|West|-1`},
		{name: "number gte from text", step: &FilterStep{Column: "c2", Operator: "gte", Value: "10"}, want: head + `
France|10|2024-01-15|West|1
Spain|30|2024-02-20|South|3
Germany|20|2024-03-31|West|-1`},
		{name: "number lt", step: &FilterStep{Column: "c2", Operator: "lt", Value: 10.0}, want: head + `
Poland|5||East|0`},
		{name: "number lte", step: &FilterStep{Column: "c5", Operator: "lte", Value: 0}, want: head + `
Germany|20|2024-03-31|West|-1
Poland|5||East|0`},
		{name: "number ne keeps blanks", step: &FilterStep{Column: "c2", Operator: "ne", Value: json.Number("10")}, want: head + `
Spain|30|2024-02-20|South|3
Italy||2024-02-05|South|2
Germany|20|2024-03-31|West|-1
Poland|5||East|0`},
		{name: "eq null finds blanks", step: &FilterStep{Column: "c2", Operator: "eq", Value: nil}, want: head + `
Italy||2024-02-05|South|2`},
		{name: "ne null drops blanks", step: &FilterStep{Column: "c3", Operator: "ne", Value: nil}, want: head + `
France|10|2024-01-15|West|1
Spain|30|2024-02-20|South|3
Italy||2024-02-05|South|2
Germany|20|2024-03-31|West|-1`},
		{name: "number in with null", step: &FilterStep{Column: "c2", Operator: "in", Value: []any{json.Number("30"), nil}}, want: head + `
Spain|30|2024-02-20|South|3
Italy||2024-02-05|South|2`},
		{name: "date gte", step: &FilterStep{Column: "c3", Operator: "gte", Value: "2024-02-05"}, want: head + `
Spain|30|2024-02-20|South|3
Italy||2024-02-05|South|2
Germany|20|2024-03-31|West|-1`},
		{name: "date lt month", step: &FilterStep{Column: "c3", Operator: "lt", Value: "2024-02"}, want: head + `
France|10|2024-01-15|West|1`},
		{name: "bad operator", step: &FilterStep{Column: "c1", Operator: "like", Value: "x"}, err: true,
			want: `operator: must be one of eq, ne, gt, gte, lt, lte, contains, in; got "like"`},
		{name: "contains on numbers", step: &FilterStep{Column: "c2", Operator: "contains", Value: "1"}, err: true,
			want: "operator: contains works on text columns; c2 (Sales) is a number column (use eq, ne, gt, gte, lt, lte or in)"},
		{name: "text for a number", step: &FilterStep{Column: "c2", Operator: "eq", Value: "abc"}, err: true,
			want: `value: c2 (Sales) holds numbers; give a number, got "abc"`},
		{name: "bad date", step: &FilterStep{Column: "c3", Operator: "gt", Value: "soon"}, err: true,
			want: `value: c3 (Date) holds dates; give an ISO date such as "2024-03-01", "2024-03" or "2024", got "soon"`},
		{name: "in needs a list", step: &FilterStep{Column: "c1", Operator: "in", Value: "France"}, err: true,
			want: `value: must be a non-empty array of values for in, such as ["France", "Spain"]`},
		{name: "list for eq", step: &FilterStep{Column: "c1", Operator: "eq", Value: []any{"France"}}, err: true,
			want: "value: must be a single value for eq; only in takes an array"},
		{name: "null for gt", step: &FilterStep{Column: "c2", Operator: "gt", Value: nil}, err: true,
			want: "value: null (a blank cell) works only with eq, ne and in; give a value for gt"},
		{name: "bad list item", step: &FilterStep{Column: "c2", Operator: "in", Value: []any{json.Number("1"), "x"}}, err: true,
			want: `value[1]: c2 (Sales) holds numbers; give a number, got "x"`},
		{name: "object value", step: &FilterStep{Column: "c1", Operator: "eq", Value: map[string]any{}}, err: true,
			want: "value: must be a string, number, boolean or null"},
		{name: "no such column", step: &FilterStep{Column: "c0", Operator: "eq", Value: "x"}, err: true,
			want: "column: no column c0; the columns are " + fixtureColumns},
	})
}

func TestAggregateStep(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "sum and count by region", step: &AggregateStep{GroupBy: []string{"c4"},
			Measures: []Measure{{Column: "c2", Fn: "sum"}, {Fn: "count"}, {Column: "c2", Fn: "count"}}},
			want: `c4 Region text|c6 Sales (sum) number|c7 Count number|c8 Sales (count) number
West|30|2|2
South|30|2|1
East|5|1|1`},
		{name: "mean median min max", step: &AggregateStep{GroupBy: []string{"c4"},
			Measures: []Measure{{Column: "c5", Fn: "mean"}, {Column: "c5", Fn: "median"}, {Column: "c2", Fn: "min"}, {Column: "c3", Fn: "max"}}},
			want: `c4 Region text|c6 Profit (mean) number|c7 Profit (median) number|c8 Sales (min) number|c9 Date (max) date
West|0|0|10|2024-03-31
South|2.5|2.5|30|2024-02-20
East|0|0|5|`},
		{name: "whole table", step: &AggregateStep{Measures: []Measure{{Column: "c2", Fn: "sum"}, {Column: "c2", Fn: "median"}}},
			want: `c6 Sales (sum) number|c7 Sales (median) number
65|15`},
		{name: "two group columns", step: &AggregateStep{GroupBy: []string{"c4", "c5"}, Measures: []Measure{{Fn: "count"}}},
			want: `c4 Region text|c5 Profit number|c6 Count number
West|1|1
South|3|1
South|2|1
West|-1|1
East|0|1`},
		{name: "same measure twice gets unique names", step: &AggregateStep{Measures: []Measure{{Fn: "count"}, {Fn: "count"}}},
			want: `c6 Count number|c7 Count 2 number
5|5`},
		{name: "no such group column", step: &AggregateStep{GroupBy: []string{"c9"}, Measures: []Measure{{Fn: "count"}}}, err: true,
			want: "groupBy[0]: no column c9; the columns are " + fixtureColumns},
		{name: "group column twice", step: &AggregateStep{GroupBy: []string{"c1", "c1"}, Measures: []Measure{{Fn: "count"}}}, err: true,
			want: "groupBy[1]: c1 is listed twice"},
		{name: "no measures", step: &AggregateStep{GroupBy: []string{"c1"}}, err: true,
			want: `measures: must list at least one measure like {"column":"c2","fn":"sum"}`},
		{name: "bad fn", step: &AggregateStep{Measures: []Measure{{Column: "c2", Fn: "avg"}}}, err: true,
			want: `measures[0].fn: must be one of sum, mean, median, count, min, max; got "avg"`},
		{name: "sum of text", step: &AggregateStep{Measures: []Measure{{Fn: "count"}, {Column: "c1", Fn: "sum"}}}, err: true,
			want: "measures[1].column: c1 (Country) is a text column; sum needs a number column (c2 (Sales), c5 (Profit)); use count for any column"},
		{name: "mean of dates", step: &AggregateStep{Measures: []Measure{{Column: "c3", Fn: "mean"}}}, err: true,
			want: "measures[0].column: c3 (Date) is a date column; mean needs a number column (c2 (Sales), c5 (Profit)); use count for any column"},
		{name: "sum without column", step: &AggregateStep{Measures: []Measure{{Fn: "sum"}}}, err: true,
			want: "measures[0].column: required: a column id; the columns are " + fixtureColumns},
		{name: "measure column missing", step: &AggregateStep{Measures: []Measure{{Column: "c12", Fn: "max"}}}, err: true,
			want: "measures[0].column: no column c12; the columns are " + fixtureColumns},
	})
}

func TestLimitStep(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "two rows", step: &LimitStep{N: 2}, want: head + `
France|10|2024-01-15|West|1
Spain|30|2024-02-20|South|3`},
		{name: "more than there are", step: &LimitStep{N: 50}, want: render(fixture(t))},
		{name: "zero", step: &LimitStep{N: 0}, err: true, want: "n: must be a whole number from 1 to 100000000; got 0"},
	})
}

func TestUnpivotStep(t *testing.T) {
	runStepCases(t, []stepCase{
		{name: "default names", step: &UnpivotStep{Columns: []string{"c2", "c5"}}, want: `c1 Country text|c3 Date date|c4 Region text|c6 Series text|c7 Value number
France|2024-01-15|West|Sales|10
France|2024-01-15|West|Profit|1
Spain|2024-02-20|South|Sales|30
Spain|2024-02-20|South|Profit|3
Italy|2024-02-05|South|Sales|
Italy|2024-02-05|South|Profit|2
Germany|2024-03-31|West|Sales|20
Germany|2024-03-31|West|Profit|-1
Poland||East|Sales|5
Poland||East|Profit|0`},
		{name: "own names, text values", step: &UnpivotStep{Columns: []string{"c1", "c4"}, NameColumn: "Field", ValueColumn: "Text"},
			want: `c2 Sales number|c3 Date date|c5 Profit number|c6 Field text|c7 Text text
10|2024-01-15|1|Country|France
10|2024-01-15|1|Region|West
30|2024-02-20|3|Country|Spain
30|2024-02-20|3|Region|South
|2024-02-05|2|Country|Italy
|2024-02-05|2|Region|South
20|2024-03-31|-1|Country|Germany
20|2024-03-31|-1|Region|West
5||0|Country|Poland
5||0|Region|East`},
		{name: "no columns", step: &UnpivotStep{}, err: true,
			want: "columns: must list at least one column id; the columns are " + fixtureColumns},
		{name: "no such column", step: &UnpivotStep{Columns: []string{"c2", "c8"}}, err: true,
			want: "columns[1]: no column c8; the columns are " + fixtureColumns},
		{name: "twice", step: &UnpivotStep{Columns: []string{"c2", "c2"}}, err: true,
			want: "columns[1]: c2 is listed twice"},
		{name: "mixed kinds", step: &UnpivotStep{Columns: []string{"c2", "c1"}}, err: true,
			want: "columns[1]: c1 (Country) is a text column but c2 (Sales) is number; unpivot columns of one kind"},
		{name: "name clash", step: &UnpivotStep{Columns: []string{"c2"}, NameColumn: "Country"}, err: true,
			want: `nameColumn: "Country" is already a column name; choose another`},
		{name: "value clash", step: &UnpivotStep{Columns: []string{"c2"}, ValueColumn: "Region"}, err: true,
			want: `valueColumn: "Region" is already a column name; choose another`},
		{name: "same new names", step: &UnpivotStep{Columns: []string{"c2"}, NameColumn: "X", ValueColumn: "X"}, err: true,
			want: `valueColumn: must differ from nameColumn "X"`},
	})
}

func TestDateBucketStep(t *testing.T) {
	bucket := func(unit string) stepCase {
		return stepCase{name: unit, step: &DateBucketStep{Column: "c3", Unit: unit}}
	}
	cases := []stepCase{bucket("month"), bucket("week"), bucket("quarter"), bucket("year"), bucket("day")}
	want := map[string]string{
		"month":   "2024-01,2024-02,2024-02,2024-03,",
		"week":    "2024-01-15,2024-02-19,2024-02-05,2024-03-25,",
		"quarter": "2024-Q1,2024-Q1,2024-Q1,2024-Q1,",
		"year":    "2024,2024,2024,2024,",
		"day":     "2024-01-15,2024-02-20,2024-02-05,2024-03-31,",
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			in := fixture(t)
			out, err := tc.step.Apply(in, Defaults{})
			if err != nil {
				t.Fatal(err)
			}
			var got []string
			c, _ := out.Column("c3")
			for i := 0; i < out.Rows; i++ {
				got = append(got, c.Format(i))
			}
			if strings.Join(got, ",") != want[tc.name] {
				t.Errorf("got %s, want %s", strings.Join(got, ","), want[tc.name])
			}
			if in.Columns[2].DateUnit != UnitDay || in.Columns[2].Format(1) != "2024-02-20" {
				t.Error("input changed")
			}
		})
	}
	runStepCases(t, []stepCase{
		{name: "text column", step: &DateBucketStep{Column: "c1", Unit: "month"}, err: true,
			want: "column: c1 (Country) is a text column; dateBucket needs a date column: c3 (Date)"},
		{name: "bad unit", step: &DateBucketStep{Column: "c3", Unit: "decade"}, err: true,
			want: `unit: must be one of day, week, month, quarter, year; got "decade"`},
		{name: "missing column", step: &DateBucketStep{Unit: "day"}, err: true,
			want: "column: required: a column id; the columns are " + fixtureColumns},
	})
}

func TestBucketDateNegative(t *testing.T) {
	// 1969-12-31 (a Wednesday) buckets to Monday 1969-12-29.
	ms := float64(daysFromCivil(1969, 12, 31)*msPerDay + 3_600_000)
	if got := formatDate(bucketDate(ms, "week"), UnitDay); got != "1969-12-29" {
		t.Errorf("week of 1969-12-31 = %s", got)
	}
	if got := formatDate(bucketDate(ms, "day"), UnitDay); got != "1969-12-31" {
		t.Errorf("day = %s", got)
	}
}

func TestApplyAllFreshIDs(t *testing.T) {
	steps, err := DecodeSteps([]byte(`[
		{"type":"aggregate","groupBy":["c4"],"measures":[{"column":"c2","fn":"sum"}]},
		{"type":"aggregate","groupBy":["c4"],"measures":[{"column":"c6","fn":"max"}]},
		{"type":"sort","column":"c7","direction":"desc"}
	]`))
	if err != nil {
		t.Fatal(err)
	}
	out, err := ApplyAll(fixture(t), steps, Defaults{})
	if err != nil {
		t.Fatal(err)
	}
	want := `c4 Region text|c7 Sales (sum) (max) number
West|30
South|30
East|5`
	if got := render(out); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	// a derived id is never one of the data's, even after the data's columns are gone
	out2, err := (&UnpivotStep{Columns: []string{"c7"}}).Apply(out, Defaults{})
	if err != nil {
		t.Fatal(err)
	}
	if ids := out2.Columns[1].ID + "," + out2.Columns[2].ID; ids != "c8,c9" {
		t.Errorf("new ids %s, want c8,c9", ids)
	}
}

func TestApplyAllAndTryAll(t *testing.T) {
	steps := []Step{&LimitStep{N: 4}, &SortStep{Column: "c9"}, &TopNStep{N: 1}}
	_, err := ApplyAll(fixture(t), steps, Defaults{ValueColumn: "c2"})
	var se *StepError
	if !errors.As(err, &se) || se.Index != 1 || se.Field != "column" ||
		err.Error() != "steps[1].column: no column c9; the columns are "+fixtureColumns {
		t.Fatalf("ApplyAll error %v", err)
	}
	out, errs := TryAll(fixture(t), steps, Defaults{ValueColumn: "c2"})
	if len(errs) != 1 || errs[0].Index != 1 || errs[0].Message != "column: no column c9; the columns are "+fixtureColumns {
		t.Fatalf("TryAll errors %+v", errs)
	}
	want := head + `
Spain|30|2024-02-20|South|3
Other|30||Other|2`
	if got := render(out); got != want {
		t.Errorf("got\n%s\nwant\n%s", got, want)
	}
	b, _ := json.Marshal(errs[0])
	if string(b) != `{"index":1,"field":"column","message":"column: no column c9; the columns are `+fixtureColumns+`"}` {
		t.Errorf("json %s", b)
	}
}

func TestDecodeStep(t *testing.T) {
	tests := []struct {
		raw  string
		want string // re-encoded step, or error text
		err  bool
	}{
		{raw: `{"type":"sort","column":"c2","direction":"desc"}`, want: `{"type":"sort","column":"c2","direction":"desc"}`},
		{raw: `{"type":"sort","column":"c2"}`, want: `{"type":"sort","column":"c2"}`},
		{raw: `{"type":"topN","n":5}`, want: `{"type":"topN","n":5}`},
		{raw: `{"type":"topN","n":5,"column":null}`, want: `{"type":"topN","n":5}`},
		{raw: `{"type":"topN","n":5.0,"column":"c3"}`, err: true, want: "n: must be a whole number from 1 to 100000000; got 5.0"},
		{raw: `{"type":"filter","column":"c1","operator":"in","value":["a",1,null]}`, want: `{"type":"filter","column":"c1","operator":"in","value":["a",1,null]}`},
		{raw: `{"type":"filter","column":"c1","operator":"eq","value":null}`, want: `{"type":"filter","column":"c1","operator":"eq","value":null}`},
		{raw: `{"type":"aggregate","groupBy":["c1"],"measures":[{"column":"c2","fn":"sum"},{"fn":"count"}]}`,
			want: `{"type":"aggregate","groupBy":["c1"],"measures":[{"column":"c2","fn":"sum"},{"fn":"count"}]}`},
		{raw: `{"type":"limit","n":10}`, want: `{"type":"limit","n":10}`},
		{raw: `{"type":"unpivot","columns":["c2","c3"],"nameColumn":"Year"}`, want: `{"type":"unpivot","columns":["c2","c3"],"nameColumn":"Year"}`},
		{raw: `{"type":"dateBucket","column":"c1","unit":"quarter"}`, want: `{"type":"dateBucket","column":"c1","unit":"quarter"}`},
		{raw: ` {"type":"limit","n":1} `, want: `{"type":"limit","n":1}`},

		{raw: `[1]`, err: true, want: `a step must be a JSON object like {"type":"sort","column":"c2","direction":"desc"}; got an array`},
		{raw: ``, err: true, want: `a step must be a JSON object like {"type":"sort","column":"c2","direction":"desc"}; got nothing`},
		{raw: `{"type":"sort",}`, err: true, want: "a step must be a valid JSON object: invalid character '}' looking for beginning of object key string"},
		{raw: `{"type":"limit","n":1} {}`, err: true, want: "a step must be one JSON object; text follows it"},
		{raw: `{"column":"c2"}`, err: true, want: "type: required: one of sort, topN, filter, aggregate, limit, unpivot, dateBucket, kind"},
		{raw: `{"type":5}`, err: true, want: "type: must be a string, one of sort, topN, filter, aggregate, limit, unpivot, dateBucket, kind; got a number"},
		{raw: `{"type":"sortt"}`, err: true, want: `type: unknown step "sortt"; one of sort, topN, filter, aggregate, limit, unpivot, dateBucket, kind`},
		{raw: `{"type":"sort","colum":"c2"}`, err: true, want: "colum: unknown field; sort takes type, column, direction"},
		{raw: `{"type":"sort"}`, err: true, want: "column: required: a column id such as c1"},
		{raw: `{"type":"sort","column":""}`, err: true, want: "column: must not be empty: a column id such as c1"},
		{raw: `{"type":"sort","column":2}`, err: true, want: "column: must be a string, a column id such as c1; got a number"},
		{raw: `{"type":"sort","column":"c1","direction":"up"}`, err: true, want: `direction: must be one of asc, desc; got "up"`},
		{raw: `{"type":"topN"}`, err: true, want: "n: required: a whole number from 1 to 100000000"},
		{raw: `{"type":"topN","n":"5"}`, err: true, want: "n: must be a whole number from 1 to 100000000; got a string"},
		{raw: `{"type":"topN","n":2.5}`, err: true, want: "n: must be a whole number from 1 to 100000000; got 2.5"},
		{raw: `{"type":"topN","n":0}`, err: true, want: "n: must be a whole number from 1 to 100000000; got 0"},
		{raw: `{"type":"topN","n":3,"by":"c2"}`, err: true, want: "by: unknown field; topN takes type, n, column"},
		{raw: `{"type":"filter","column":"c1","value":1}`, err: true, want: "operator: required: one of eq, ne, gt, gte, lt, lte, contains, in"},
		{raw: `{"type":"filter","column":"c1","operator":"like","value":1}`, err: true, want: `operator: must be one of eq, ne, gt, gte, lt, lte, contains, in; got "like"`},
		{raw: `{"type":"filter","column":"c1","operator":"eq"}`, err: true, want: "value: required: the value to compare with (null matches blank cells with eq and ne)"},
		{raw: `{"type":"filter","column":"c1","operator":"eq","value":{}}`, err: true, want: "value: must be a string, number, boolean or null; got an object"},
		{raw: `{"type":"filter","column":"c1","operator":"eq","value":[1]}`, err: true, want: "value: must be a single value for eq; only in takes an array"},
		{raw: `{"type":"filter","column":"c1","operator":"in","value":1}`, err: true, want: `value: must be an array of values for in, such as ["France", "Spain"]`},
		{raw: `{"type":"filter","column":"c1","operator":"in","value":[]}`, err: true, want: "value: must list at least one value for in"},
		{raw: `{"type":"filter","column":"c1","operator":"in","value":[[1]]}`, err: true, want: "value[0]: must be a string, number, boolean or null"},
		{raw: `{"type":"filter","column":"c1","operator":"lt","value":null}`, err: true, want: "value: null (a blank cell) works only with eq, ne and in; give a value for lt"},
		{raw: `{"type":"aggregate","groupBy":["c1"]}`, err: true, want: `measures: required: an array like [{"column":"c2","fn":"sum"}]`},
		{raw: `{"type":"aggregate","measures":{}}`, err: true, want: `measures: must be an array like [{"column":"c2","fn":"sum"}]; got an object`},
		{raw: `{"type":"aggregate","measures":[]}`, err: true, want: `measures: must list at least one measure like {"column":"c2","fn":"sum"}`},
		{raw: `{"type":"aggregate","measures":["sum"]}`, err: true, want: `measures[0]: must be an object like {"column":"c2","fn":"sum"}; got a string`},
		{raw: `{"type":"aggregate","measures":[{"column":"c2"}]}`, err: true, want: "measures[0].fn: required: one of sum, mean, median, count, min, max"},
		{raw: `{"type":"aggregate","measures":[{"fn":"count"},{"column":"c2","fn":"avg"}]}`, err: true, want: `measures[1].fn: must be one of sum, mean, median, count, min, max; got "avg"`},
		{raw: `{"type":"aggregate","measures":[{"fn":"sum"}]}`, err: true, want: "measures[0].column: required: a column id such as c2"},
		{raw: `{"type":"aggregate","measures":[{"fn":"sum","func":"x","column":"c2"}]}`, err: true, want: "measures[0].func: unknown field; a measure takes column, fn"},
		{raw: `{"type":"aggregate","groupBy":"c1","measures":[{"fn":"count"}]}`, err: true, want: `groupBy: must be an array of column ids such as ["c2", "c3"]; got a string`},
		{raw: `{"type":"aggregate","groupBy":[1],"measures":[{"fn":"count"}]}`, err: true, want: "groupBy[0]: must be a column id such as c1; got a number"},
		{raw: `{"type":"limit","n":-1}`, err: true, want: "n: must be a whole number from 1 to 100000000; got -1"},
		{raw: `{"type":"limit","n":1e12}`, err: true, want: "n: must be a whole number from 1 to 100000000; got 1e12"},
		{raw: `{"type":"unpivot"}`, err: true, want: `columns: required: an array of column ids such as ["c2", "c3"]`},
		{raw: `{"type":"unpivot","columns":[]}`, err: true, want: "columns: must list at least one column id"},
		{raw: `{"type":"unpivot","columns":["c1"],"nameColumn":3}`, err: true, want: "nameColumn: must be a string, a name for the new column of names; got a number"},
		{raw: `{"type":"dateBucket","column":"c1"}`, err: true, want: "unit: required: one of day, week, month, quarter, year"},
		{raw: `{"type":"dateBucket","column":"c1","unit":"hour"}`, err: true, want: `unit: must be one of day, week, month, quarter, year; got "hour"`},
	}
	for _, tc := range tests {
		t.Run(tc.raw, func(t *testing.T) {
			s, err := DecodeStep([]byte(tc.raw))
			if tc.err {
				var fe *FieldError
				if err == nil || !errors.As(err, &fe) {
					t.Fatalf("got %v (%T), want *FieldError %q", err, err, tc.want)
				}
				if err.Error() != tc.want {
					t.Errorf("error\n %s\nwant\n %s", err, tc.want)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			b, err := json.Marshal(s)
			if err != nil || string(b) != tc.want {
				t.Errorf("encoded %s (%v), want %s", b, err, tc.want)
			}
		})
	}
}

func TestDecodeStepsIndex(t *testing.T) {
	_, err := DecodeSteps([]byte(`[{"type":"limit","n":1},{"type":"limit"}]`))
	if err == nil || err.Error() != "steps[1].n: required: a whole number from 1 to 100000000" {
		t.Errorf("error %v", err)
	}
	if _, err := DecodeSteps([]byte(`{}`)); err == nil {
		t.Error("an object is not a list of steps")
	}
}

func TestStepMarshalSetsType(t *testing.T) {
	b, err := json.Marshal([]Step{&TopNStep{N: 5}, &SortStep{Column: "c1"}})
	if err != nil || string(b) != `[{"type":"topN","n":5},{"type":"sort","column":"c1"}]` {
		t.Errorf("%s %v", b, err)
	}
}
