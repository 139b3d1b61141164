package dataset

import (
	"encoding/json"
	"fmt"
	"math"
	"math/rand/v2"
	"strings"
	"testing"
)

var benchCountries = []string{"Germany", "France", "Italy", "Spain", "Poland", "Netherlands",
	"Belgium", "Sweden", "Austria", "Denmark", "Finland", "Norway", "Ireland", "Portugal",
	"Greece", "Czechia", "Hungary", "Romania", "Slovakia", "Croatia"}

// benchCSV builds a real-world-shaped CSV: ids, repeated text, ISO dates,
// decimals, integers, currency, percentages and short flags.
func benchCSV(rows int) string {
	r := rand.New(rand.NewPCG(1, 2))
	var b strings.Builder
	b.WriteString("id,country,city,date,sales,quantity,price,share,rating,flag\n")
	for i := 0; i < rows; i++ {
		c := benchCountries[r.IntN(len(benchCountries))]
		fmt.Fprintf(&b, "%d,%s,%s City %d,2024-%02d-%02d,%.3f,%d,\"$%d,%03d.%02d\",%.1f%%,%.1f,%s\n",
			100000+i, c, c[:4], r.IntN(50), 1+r.IntN(12), 1+r.IntN(28), r.Float64()*100000,
			r.IntN(500), 1+r.IntN(9), r.IntN(1000), r.IntN(100), r.Float64()*100, r.Float64()*5,
			[]string{"yes", "no"}[r.IntN(2)])
	}
	return b.String()
}

func BenchmarkParseCSV(b *testing.B) {
	data := benchCSV(100_000)
	b.SetBytes(int64(len(data)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		t, _, err := Parse(data, "")
		if err != nil || t.Rows != 100_000 || len(t.Columns) != 10 {
			b.Fatalf("parse: %v", err)
		}
	}
	b.ReportMetric(float64(len(data)), "input-bytes")
}

func BenchmarkParseRawJSONString(b *testing.B) {
	enc, err := json.Marshal(benchCSV(100_000))
	if err != nil {
		b.Fatal(err)
	}
	raw := json.RawMessage(enc)
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if _, _, err := Parse(raw, "csv"); err != nil {
			b.Fatal(err)
		}
	}
}

func BenchmarkParseJSONRows(b *testing.B) {
	tab, _, err := Parse(benchCSV(100_000), "")
	if err != nil {
		b.Fatal(err)
	}
	var sb strings.Builder
	sb.WriteString("[")
	for i, row := range Rows(tab, 0) {
		if i > 0 {
			sb.WriteString(",")
		}
		sb.WriteString("{")
		for j, c := range tab.Columns {
			if j > 0 {
				sb.WriteString(",")
			}
			k, _ := json.Marshal(c.Name)
			v, _ := json.Marshal(row[j])
			sb.Write(k)
			sb.WriteString(":")
			sb.Write(v)
		}
		sb.WriteString("}")
	}
	sb.WriteString("]")
	raw := json.RawMessage(sb.String())
	b.SetBytes(int64(len(raw)))
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if t, _, err := Parse(raw, ""); err != nil || t.Rows != 100_000 {
			b.Fatal(err)
		}
	}
}

// benchTable is 1,000,000 rows: a text category, a number and a date.
func benchTable(rows int) *Table {
	r := rand.New(rand.NewPCG(3, 4))
	cat := &Column{ID: "c1", Name: "Country", Kind: Text, Text: make([]string, rows)}
	val := &Column{ID: "c2", Name: "Sales", Kind: Number, Num: make([]float64, rows)}
	day := &Column{ID: "c3", Name: "Day", Kind: Date, DateUnit: UnitDay, Num: make([]float64, rows)}
	for i := 0; i < rows; i++ {
		cat.Text[i] = benchCountries[r.IntN(len(benchCountries))]
		val.Num[i] = math.Round(r.Float64()*1e6) / 100
		day.Num[i] = float64(daysFromCivil(2020, 1, 1)*msPerDay + int64(r.IntN(1500))*msPerDay)
	}
	return &Table{Columns: []*Column{cat, val, day}, Rows: rows}
}

func benchStep(b *testing.B, s Step) {
	t := benchTable(1_000_000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		out, err := s.Apply(t, Defaults{ValueColumn: "c2"})
		if err != nil || out.Rows == 0 {
			b.Fatalf("apply: %v", err)
		}
	}
}

func BenchmarkSort1M(b *testing.B) {
	benchStep(b, &SortStep{Column: "c2", Direction: "desc"})
}

func BenchmarkSortText1M(b *testing.B) {
	benchStep(b, &SortStep{Column: "c1", Direction: "asc"})
}

func BenchmarkTopN1M(b *testing.B) {
	benchStep(b, &TopNStep{N: 5, Column: "c2"})
}

func BenchmarkAggregate1M(b *testing.B) {
	benchStep(b, &AggregateStep{GroupBy: []string{"c1"}, Measures: []Measure{{Column: "c2", Fn: "sum"}, {Column: "c2", Fn: "mean"}, {Fn: "count"}}})
}

func BenchmarkAggregateMedian1M(b *testing.B) {
	benchStep(b, &AggregateStep{GroupBy: []string{"c1"}, Measures: []Measure{{Column: "c2", Fn: "median"}}})
}

func BenchmarkFilter1M(b *testing.B) {
	benchStep(b, &FilterStep{Column: "c2", Operator: "gt", Value: json.Number("5000")})
}

func BenchmarkDescribe1M(b *testing.B) {
	t := benchTable(1_000_000)
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		if s := Describe(t); len(s) != 3 {
			b.Fatal("summary")
		}
	}
}
