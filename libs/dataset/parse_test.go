package dataset

import (
	"bytes"
	"encoding/csv"
	"encoding/json"
	"errors"
	"flag"
	"math"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

var update = flag.Bool("update", false, "rewrite golden files in testdata/")

// goldenColumn is a column as the golden files record it.
type goldenColumn struct {
	ID       string `json:"id"`
	Name     string `json:"name"`
	Kind     Kind   `json:"kind"`
	Unit     string `json:"unit,omitempty"`
	Percent  bool   `json:"percent,omitempty"`
	Currency string `json:"currency,omitempty"`
}

type goldenParse struct {
	Error   string         `json:"error,omitempty"`
	Rows    int            `json:"rows"`
	Columns []goldenColumn `json:"columns,omitempty"`
	Notices []Notice       `json:"notices,omitempty"`
	First   [][]any        `json:"first,omitempty"`
}

// render writes the golden text with one column, notice or row per line.
func (g goldenParse) render(t *testing.T) []byte {
	t.Helper()
	var b bytes.Buffer
	line := func(v any, last bool) {
		j, err := json.Marshal(v)
		if err != nil {
			t.Fatal(err)
		}
		b.WriteString("    ")
		b.Write(j)
		if !last {
			b.WriteByte(',')
		}
		b.WriteByte('\n')
	}
	list := func(name string, n int, item func(int) any) {
		b.WriteString(",\n  \"" + name + "\": [\n")
		for i := 0; i < n; i++ {
			line(item(i), i == n-1)
		}
		b.WriteString("  ]")
	}
	if g.Error != "" {
		e, _ := json.Marshal(g.Error)
		b.WriteString("{\n  \"error\": " + string(e) + "\n}\n")
		return b.Bytes()
	}
	b.WriteString("{\n  \"rows\": " + strconv.Itoa(g.Rows))
	list("columns", len(g.Columns), func(i int) any { return g.Columns[i] })
	list("notices", len(g.Notices), func(i int) any { return g.Notices[i] })
	list("first", len(g.First), func(i int) any { return g.First[i] })
	b.WriteString("\n}\n")
	return b.Bytes()
}

// parseFile reads a testdata file the way its extension says: .csv as text
// with the format left out, .tsv as text with format tsv, .json as the raw
// data JSON value, .jsonstr as text with format json.
func parseFile(t *testing.T, path string) (*Table, []Notice, error) {
	t.Helper()
	b, err := os.ReadFile(path)
	if err != nil {
		t.Fatalf("read %s: %v", path, err)
	}
	switch filepath.Ext(path) {
	case ".csv":
		return Parse(string(b), "")
	case ".tsv":
		return Parse(string(b), "tsv")
	case ".json":
		return Parse(json.RawMessage(b), "")
	case ".jsonstr":
		return Parse(string(b), "json")
	}
	t.Fatalf("no reading rule for %s", path)
	return nil, nil, nil
}

func TestParseGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/parse/*")
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, path := range files {
		if strings.HasSuffix(path, ".golden") {
			continue
		}
		n++
		t.Run(filepath.Base(path), func(t *testing.T) {
			tab, notices, err := parseFile(t, path)
			var got goldenParse
			if err != nil {
				var de *DataError
				if !errors.As(err, &de) {
					t.Fatalf("error %v is %T, want *DataError", err, err)
				}
				got.Error = err.Error()
			} else {
				checkTable(t, tab)
				got.Rows = tab.Rows
				for _, c := range tab.Columns {
					got.Columns = append(got.Columns, goldenColumn{c.ID, c.Name, c.Kind, c.DateUnit, c.Percent, c.Currency})
				}
				got.Notices = notices
				got.First = Rows(tab, 5)
			}
			if strings.HasPrefix(filepath.Base(path), "err_") != (err != nil) {
				t.Errorf("err_ files must fail and others parse; got error %v", err)
			}
			out := got.render(t)
			golden := path + ".golden"
			if *update {
				if err := os.WriteFile(golden, out, 0o644); err != nil {
					t.Fatal(err)
				}
				return
			}
			want, err := os.ReadFile(golden)
			if err != nil {
				t.Fatalf("read golden (run with -update to create): %v", err)
			}
			if !bytes.Equal(out, want) {
				t.Errorf("golden mismatch for %s (run with -update after checking):\n--- got\n%s\n--- want\n%s", path, out, want)
			}
		})
	}
	if n < 20 {
		t.Fatalf("only %d testdata files found", n)
	}
}

// checkTable asserts the invariants every parsed table keeps.
func checkTable(t *testing.T, tab *Table) {
	t.Helper()
	seen := map[string]bool{}
	names := map[string]bool{}
	for j, c := range tab.Columns {
		if c.ID != columnID(j+1) {
			t.Errorf("column %d has id %s", j, c.ID)
		}
		if seen[c.ID] || names[c.Name] || c.Name == "" {
			t.Errorf("column id %s / name %q repeated or empty", c.ID, c.Name)
		}
		seen[c.ID], names[c.Name] = true, true
		switch c.Kind {
		case Text:
			if len(c.Text) != tab.Rows || c.Num != nil {
				t.Errorf("text column %s has %d cells for %d rows", c.ID, len(c.Text), tab.Rows)
			}
		case Number, Date:
			if len(c.Num) != tab.Rows || c.Text != nil {
				t.Errorf("%s column %s has %d cells for %d rows", c.Kind, c.ID, len(c.Num), tab.Rows)
			}
			if c.Kind == Date && unitRank(c.DateUnit) == 0 {
				t.Errorf("date column %s has unit %q", c.ID, c.DateUnit)
			}
		default:
			t.Errorf("column %s has kind %q", c.ID, c.Kind)
		}
	}
}

func TestParseNumbers(t *testing.T) {
	tests := []struct {
		name  string
		cells []string
		want  []float64 // NaN = blank
		kind  Kind
	}{
		{"plain", []string{"1", "-2.5", "+3", "1e3"}, []float64{1, -2.5, 3, 1000}, Number},
		{"us thousands", []string{"1,234", "12,345.5", "-1,000,000"}, []float64{1234, 12345.5, -1000000}, Number},
		{"eu decided by column", []string{"1.234", "2,5"}, []float64{1234, 2.5}, Number},
		{"us when ambiguous", []string{"1.234", "1,234"}, []float64{1.234, 1234}, Number},
		{"eu thousands and decimals", []string{"1.234.567,89", "0,5"}, []float64{1234567.89, 0.5}, Number},
		{"space groups", []string{"1 234,5", "12\u00a0000"}, []float64{1234.5, 12000}, Number},
		{"swiss apostrophe", []string{"1'234.50", "99"}, []float64{1234.5, 99}, Number},
		{"currency", []string{"$12", "€ 3,50", "4,00 €"}, []float64{12, 3.5, 4}, Number},
		{"accounting negative", []string{"(12)", "$(5.5)", "7"}, []float64{-12, math.NaN(), 7}, Text},
		{"minus sign", []string{"\u22125", "5"}, []float64{-5, 5}, Number},
		{"percent kept as written", []string{"12%", "7.5 %"}, []float64{12, 7.5}, Number},
		{"blanks counted", []string{"", " 3 ", ""}, []float64{math.NaN(), 3, math.NaN()}, Number},
		{"bad groups are text", []string{"1,23,4", "5"}, nil, Text},
		{"leading zeros are text", []string{"007", "12"}, nil, Text},
		{"infinity is text", []string{"1e999", "1"}, nil, Text},
		{"mixed conventions are text", []string{"1,234.5", "1.234,5", "3"}, nil, Text},
		{"hex is text", []string{"0x1F", "2"}, nil, Text},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			rows := []any{[]any{"v"}}
			for _, c := range tc.cells {
				rows = append(rows, []any{c})
			}
			tab, _, err := Parse(rows, "")
			if err != nil {
				t.Fatal(err)
			}
			c := tab.Columns[0]
			if c.Kind != tc.kind {
				t.Fatalf("kind %s, want %s (cells %q)", c.Kind, tc.kind, c.Text)
			}
			if tc.kind != Number {
				return
			}
			for i, w := range tc.want {
				if g := c.Num[i]; !(g == w || (g != g && w != w)) {
					t.Errorf("cell %d %q = %v, want %v", i, tc.cells[i], g, w)
				}
			}
		})
	}
}

func TestParseNumberFlags(t *testing.T) {
	tab, _, err := Parse("a,b\n12%,$1\n3%,$2\n", "")
	if err != nil {
		t.Fatal(err)
	}
	if !tab.Columns[0].Percent || tab.Columns[1].Currency != "$" {
		t.Errorf("percent %v currency %q", tab.Columns[0].Percent, tab.Columns[1].Currency)
	}
}

func TestParseDates(t *testing.T) {
	tests := []struct {
		header string
		cells  []string
		want   []string // formatted
		unit   string
	}{
		{"d", []string{"2024-03-01", "2024-3-2"}, []string{"2024-03-01", "2024-03-02"}, UnitDay},
		{"d", []string{"2024/03/01"}, []string{"2024-03-01"}, UnitDay},
		{"d", []string{"2024-03-01T10:00:00+01:00", "2024-03-01"}, []string{"2024-03-01T10:00:00", "2024-03-01T00:00:00"}, UnitTime},
		{"d", []string{"2024-01-01T00:00:00+02:00", "2024-01-02T00:00:00-0500"}, []string{"2024-01-01T00:00:00", "2024-01-02T00:00:00"}, UnitTime},
		{"d", []string{"2024-03-01T10:00:00.250Z"}, []string{"2024-03-01T10:00:00.250"}, UnitTime},
		{"d", []string{"2024-03", "2024-12"}, []string{"2024-03", "2024-12"}, UnitMonth},
		{"Year", []string{"2019", "2020"}, []string{"2019", "2020"}, UnitYear},
		{"Fiscal Jahr", []string{"2019", ""}, []string{"2019", ""}, UnitYear},
		{"d", []string{"25/12/2023", "01/02/2024"}, []string{"2023-12-25", "2024-02-01"}, UnitDay},
		{"d", []string{"12/25/2023", "01/02/2024"}, []string{"2023-12-25", "2024-01-02"}, UnitDay},
		{"d", []string{"01.02.2024", "03.04.24"}, []string{"2024-02-01", "2024-04-03"}, UnitDay},
		{"d", []string{"Mar 2024", "April 2024"}, []string{"2024-03", "2024-04"}, UnitMonth},
		{"d", []string{"1 Mar 2024", "Mar 2, 2024", "03-Mar-24"}, []string{"2024-03-01", "2024-03-02", "2024-03-03"}, UnitDay},
		{"d", []string{"2024-Q1", "Q4 2024"}, []string{"2024-Q1", "2024-Q4"}, UnitQuarter},
		{"d", []string{"3/4/2024 2:30 PM"}, []string{"2024-03-04T14:30:00"}, UnitTime},
	}
	for _, tc := range tests {
		t.Run(strings.Join(tc.cells, "|"), func(t *testing.T) {
			rows := []any{[]any{tc.header}}
			for _, c := range tc.cells {
				rows = append(rows, []any{c})
			}
			tab, _, err := Parse(rows, "")
			if err != nil {
				t.Fatal(err)
			}
			c := tab.Columns[0]
			if c.Kind != Date || c.DateUnit != tc.unit {
				t.Fatalf("kind %s unit %q, want date %q", c.Kind, c.DateUnit, tc.unit)
			}
			for i, w := range tc.want {
				if g := c.Format(i); g != w {
					t.Errorf("cell %q formats as %q, want %q", tc.cells[i], g, w)
				}
			}
		})
	}
	notDates := [][]string{
		{"2024-02-30"},               // no such day
		{"2019", "2020"},             // years need a header that says so
		{"13/13/2024"},               // neither order
		{"25/12/2023", "12/25/2023"}, // orders conflict
	}
	for _, cells := range notDates {
		rows := []any{[]any{"x"}}
		for _, c := range cells {
			rows = append(rows, []any{c})
		}
		tab, _, err := Parse(rows, "")
		if err != nil {
			t.Fatal(err)
		}
		if tab.Columns[0].Kind == Date {
			t.Errorf("%q read as dates", cells)
		}
	}
}

func TestParseFormats(t *testing.T) {
	tests := []struct {
		name   string
		data   any
		format string
		cols   []string
		rows   int
		errHas string
	}{
		{"csv string", "a,b\n1,2\n", "", []string{"a", "b"}, 1, ""},
		{"csv forced", "a;b\n1;2\n", "csv", []string{"a", "b"}, 1, ""},
		{"tsv forced keeps commas", "a,x\tb\n1,5\t2\n", "tsv", []string{"a,x", "b"}, 1, ""},
		{"json text", `[{"b":1,"a":2}]`, "json", []string{"b", "a"}, 1, ""},
		{"raw objects keep order", json.RawMessage(`[{"z":1,"a":2},{"m":3}]`), "", []string{"z", "a", "m"}, 2, ""},
		{"raw csv string", json.RawMessage(`"a,b\n1,2"`), "csv", []string{"a", "b"}, 1, ""},
		{"raw json string", json.RawMessage(`"[[\"h\"],[1]]"`), "json", []string{"h"}, 1, ""},
		{"go maps sorted", []any{map[string]any{"b": 1.0, "a": "x"}}, "", []string{"a", "b"}, 1, ""},
		{"go arrays numbers", []any{[]any{"h", "k"}, []any{json.Number("1"), 2.0}}, "json", []string{"h", "k"}, 1, ""},
		{"typed maps", []map[string]any{{"a": 1}}, "", []string{"a"}, 1, ""},
		{"bad format", "a\n1", "xml", nil, 0, `format must be csv, tsv or json; got "xml"`},
		{"array with csv", []any{[]any{"a"}}, "csv", nil, 0, `format "csv" needs data as a string`},
		{"raw array with tsv", json.RawMessage(`[["a"]]`), "tsv", nil, 0, `format "tsv" needs data as a string`},
		{"nil", nil, "", nil, 0, "data is missing"},
		{"number", 12, "", nil, 0, "got a number"},
		{"raw null", json.RawMessage(`null`), "", nil, 0, "data is null"},
		{"raw object", json.RawMessage(`{"a":1}`), "", nil, 0, "data is an object"},
		{"empty array", []any{}, "", nil, 0, "empty array"},
		{"json text not rows", `"x"`, "json", nil, 0, "holds a string"},
		{"trailing garbage", json.RawMessage(`[[1]] x`), "", nil, 0, "expected the end of the data"},
		{"nested go", []any{map[string]any{"a": []any{1}}}, "", nil, 0, `row 1, key "a": a cell must be`},
		{"ragged go", []any{[]any{"a", "b"}, []any{1}}, "", nil, 0, "row 1 has 1 cells, the header has 2"},
		{"blank lines only", "\n\n  \n", "", nil, 0, "data is empty"},
		{"csv with format json", "a,b\n1,2", "json", nil, 0, "invalid JSON at line 1, column 1: expected an array of rows"},
		{"objects without keys", json.RawMessage(`[{}, {}]`), "", nil, 0, "data has no columns"},
		{"header only arrays", json.RawMessage(`[["a","b"]]`), "", []string{"a", "b"}, 0, ""},
		{"late keys pad earlier rows", []any{map[string]any{"a": 1}, map[string]any{"b": 2}}, "", []string{"a", "b"}, 2, ""},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			tab, _, err := Parse(tc.data, tc.format)
			if tc.errHas != "" {
				var de *DataError
				if err == nil || !errors.As(err, &de) || !strings.Contains(err.Error(), tc.errHas) {
					t.Fatalf("error %v, want a *DataError containing %q", err, tc.errHas)
				}
				return
			}
			if err != nil {
				t.Fatal(err)
			}
			checkTable(t, tab)
			var names []string
			for _, c := range tab.Columns {
				names = append(names, c.Name)
			}
			if strings.Join(names, "|") != strings.Join(tc.cols, "|") || tab.Rows != tc.rows {
				t.Errorf("columns %q rows %d, want %q %d", names, tab.Rows, tc.cols, tc.rows)
			}
		})
	}
}

// TestCSVMatchesEncodingCSV writes random text tables with encoding/csv
// (quotes, delimiters, line breaks inside cells) and reads them back.
func TestCSVMatchesEncodingCSV(t *testing.T) {
	r := rand.New(rand.NewPCG(11, 12))
	pieces := []string{"a", "b c", ",", ";", "\"", "\n", "\r\n", "x\"y", "é", "\t", "1", "-"}
	for round := 0; round < 200; round++ {
		cols, rows := 1+r.IntN(5), r.IntN(6)
		want := make([][]string, rows+1)
		for i := range want {
			want[i] = make([]string, cols)
			for j := range want[i] {
				cell := "h" + strconv.Itoa(j)
				if i > 0 {
					cell = "v"
					for k := r.IntN(4); k > 0; k-- {
						cell += pieces[r.IntN(len(pieces))]
					}
					cell += "z"
				}
				want[i][j] = cell
			}
		}
		var buf bytes.Buffer
		w := csv.NewWriter(&buf)
		w.UseCRLF = round%2 == 0
		if err := w.WriteAll(want); err != nil {
			t.Fatal(err)
		}
		tab, _, err := Parse(buf.String(), "csv")
		if err != nil {
			t.Fatalf("round %d: %v\n%q", round, err, buf.String())
		}
		if tab.Rows != rows || len(tab.Columns) != cols {
			t.Fatalf("round %d: %d×%d, want %d×%d\n%q", round, tab.Rows, len(tab.Columns), rows, cols, buf.String())
		}
		for j, c := range tab.Columns {
			if c.Name != want[0][j] || c.Kind != Text {
				t.Fatalf("round %d: column %d is %q %s", round, j, c.Name, c.Kind)
			}
			for i := 0; i < rows; i++ {
				w := want[i+1][j]
				if w = strings.ReplaceAll(w, "\r\n", "\n"); !w2(c.Text[i], w) {
					t.Fatalf("round %d: cell %d,%d = %q, want %q\n%q", round, i, j, c.Text[i], w, buf.String())
				}
			}
		}
	}
}

// w2 compares a read cell with the written one; encoding/csv's writer keeps
// \r\n inside quoted cells, which a reader may see as written.
func w2(got, want string) bool {
	return got == want || strings.ReplaceAll(got, "\r\n", "\n") == want
}
