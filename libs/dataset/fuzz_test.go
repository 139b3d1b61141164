package dataset

import (
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"testing"
)

// FuzzParse feeds arbitrary text to every reading path: it must never
// panic or hang, fail only with *DataError, and return well-formed tables.
func FuzzParse(f *testing.F) {
	files, _ := filepath.Glob("testdata/parse/*")
	for _, path := range files {
		if filepath.Ext(path) == ".golden" {
			continue
		}
		b, err := os.ReadFile(path)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(string(b), uint8(0))
		f.Add(string(b), uint8(5))
	}
	f.Add("a,b\n\"x\"\"y\",1\n", uint8(1))
	f.Add("\"", uint8(0))
	f.Add(`"\ud800"`, uint8(5))
	f.Fuzz(func(t *testing.T, data string, mode uint8) {
		formats := []string{"", "csv", "tsv", "json"}
		format := formats[int(mode)%len(formats)]
		var input any = data
		if mode/4%2 == 1 {
			input = json.RawMessage(data)
		}
		tab, notices, err := Parse(input, format)
		if err != nil {
			var de *DataError
			if !errors.As(err, &de) || tab != nil {
				t.Fatalf("error %v (%T) with table %v", err, err, tab)
			}
			return
		}
		for _, n := range notices {
			if n.Code == "" || n.Message == "" {
				t.Fatalf("empty notice %+v", n)
			}
		}
		for j, c := range tab.Columns {
			if c.ID != columnID(j+1) || c.Name == "" {
				t.Fatalf("column %d: id %q name %q", j, c.ID, c.Name)
			}
			switch c.Kind {
			case Text:
				if len(c.Text) != tab.Rows {
					t.Fatalf("text column %s: %d cells, %d rows", c.ID, len(c.Text), tab.Rows)
				}
			case Number, Date:
				if len(c.Num) != tab.Rows {
					t.Fatalf("column %s: %d cells, %d rows", c.ID, len(c.Num), tab.Rows)
				}
			default:
				t.Fatalf("kind %q", c.Kind)
			}
			for i := 0; i < tab.Rows; i++ {
				_ = c.Format(i)
			}
		}
		if _, err := json.Marshal(Describe(tab)); err != nil {
			t.Fatalf("describe: %v", err)
		}
		if _, err := json.Marshal(Rows(tab, 10)); err != nil {
			t.Fatalf("rows: %v", err)
		}
	})
}

// FuzzDecodeStep decodes arbitrary step JSON: no panic; a decoded step
// re-encodes to JSON that decodes to the same step, and applying it to a
// table gives a table or a *FieldError, never a panic.
func FuzzDecodeStep(f *testing.F) {
	for _, s := range []string{
		`{"type":"sort","column":"c2","direction":"desc"}`,
		`{"type":"topN","n":2}`,
		`{"type":"topN","n":1,"column":"c5"}`,
		`{"type":"filter","column":"c1","operator":"in","value":["France",null,3]}`,
		`{"type":"filter","column":"c3","operator":"gte","value":"2024-02"}`,
		`{"type":"filter","column":"c2","operator":"lt","value":"1,5"}`,
		`{"type":"aggregate","groupBy":["c4","c1"],"measures":[{"column":"c2","fn":"median"},{"fn":"count"}]}`,
		`{"type":"limit","n":3}`,
		`{"type":"unpivot","columns":["c2","c5"],"nameColumn":"k","valueColumn":"v"}`,
		`{"type":"dateBucket","column":"c3","unit":"week"}`,
		`{"type":"sort","column":{"x":1}}`,
		`[]`, `null`, `{"type":null}`,
	} {
		f.Add([]byte(s))
	}
	base, _, err := Parse(fixtureCSV, "")
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, raw []byte) {
		s, err := DecodeStep(raw)
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) || s != nil {
				t.Fatalf("error %v (%T)", err, err)
			}
			return
		}
		enc, err := json.Marshal(s)
		if err != nil {
			t.Fatalf("encode: %v", err)
		}
		again, err := DecodeStep(enc)
		if err != nil {
			t.Fatalf("re-decode %s: %v", enc, err)
		}
		if enc2, _ := json.Marshal(again); string(enc2) != string(enc) {
			t.Fatalf("round trip %s → %s", enc, enc2)
		}
		out, err := s.Apply(base, Defaults{ValueColumn: "c2"})
		if err != nil {
			var fe *FieldError
			if !errors.As(err, &fe) {
				t.Fatalf("apply error %v (%T)", err, err)
			}
			return
		}
		for _, c := range out.Columns {
			if (c.Kind == Text && len(c.Text) != out.Rows) || (c.Kind != Text && len(c.Num) != out.Rows) {
				t.Fatalf("column %s has the wrong length after %s", c.ID, enc)
			}
		}
	})
}
