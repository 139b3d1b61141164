package dataset

import (
	"encoding/json"
	"math"
	"math/bits"
	"sort"
)

// TopValue is one frequent value of a text column and how often it occurs.
type TopValue struct {
	Value string `json:"value"`
	Count int    `json:"count"`
}

// ColumnSummary describes one column for describe_data: text columns carry
// distinct and top; number columns min, max and mean; date columns min and
// max (as ISO text in JSON).
type ColumnSummary struct {
	ID       string     `json:"id"`
	Name     string     `json:"name"`
	Kind     Kind       `json:"kind" enum:"text,number,date"`
	Blanks   int        `json:"blanks"`
	Distinct *int       `json:"distinct,omitempty"`
	Top      []TopValue `json:"top,omitempty"`
	Min      *float64   `json:"min,omitempty"`
	Max      *float64   `json:"max,omitempty"`
	Mean     *float64   `json:"mean,omitempty"`
	// DateUnit lets dates render at the column's precision; not in JSON.
	DateUnit string `json:"-"`
}

// MarshalJSON writes the fields that apply to the kind: a text column
// always has distinct and top (possibly empty), a number column always has
// min, max and mean (null without values), a date column min and max as ISO text.
func (s ColumnSummary) MarshalJSON() ([]byte, error) {
	base := struct {
		ID     string `json:"id"`
		Name   string `json:"name"`
		Kind   Kind   `json:"kind"`
		Blanks int    `json:"blanks"`
	}{s.ID, s.Name, s.Kind, s.Blanks}
	switch s.Kind {
	case Text:
		distinct := 0
		if s.Distinct != nil {
			distinct = *s.Distinct
		}
		top := s.Top
		if top == nil {
			top = []TopValue{}
		}
		return json.Marshal(struct {
			ID       string     `json:"id"`
			Name     string     `json:"name"`
			Kind     Kind       `json:"kind"`
			Blanks   int        `json:"blanks"`
			Distinct int        `json:"distinct"`
			Top      []TopValue `json:"top"`
		}{base.ID, base.Name, base.Kind, base.Blanks, distinct, top})
	case Number:
		return json.Marshal(struct {
			ID     string   `json:"id"`
			Name   string   `json:"name"`
			Kind   Kind     `json:"kind"`
			Blanks int      `json:"blanks"`
			Min    *float64 `json:"min"`
			Max    *float64 `json:"max"`
			Mean   *float64 `json:"mean"`
		}{base.ID, base.Name, base.Kind, base.Blanks, s.Min, s.Max, s.Mean})
	case Date:
		var lo, hi *string
		if s.Min != nil {
			v := formatDate(*s.Min, s.DateUnit)
			lo = &v
		}
		if s.Max != nil {
			v := formatDate(*s.Max, s.DateUnit)
			hi = &v
		}
		return json.Marshal(struct {
			ID     string  `json:"id"`
			Name   string  `json:"name"`
			Kind   Kind    `json:"kind"`
			Blanks int     `json:"blanks"`
			Min    *string `json:"min"`
			Max    *string `json:"max"`
		}{base.ID, base.Name, base.Kind, base.Blanks, lo, hi})
	}
	return json.Marshal(base)
}

// Describe summarizes every column for describe_data.
func Describe(t *Table) []ColumnSummary {
	out := make([]ColumnSummary, len(t.Columns))
	for j, c := range t.Columns {
		s := ColumnSummary{ID: c.ID, Name: c.Name, Kind: c.Kind, DateUnit: c.DateUnit}
		if c.Kind == Text {
			counts := map[string]int{}
			var order []string
			for _, v := range c.Text[:t.Rows] {
				if v == "" {
					s.Blanks++
					continue
				}
				if counts[v] == 0 {
					order = append(order, v)
				}
				counts[v]++
			}
			distinct := len(order)
			s.Distinct = &distinct
			sort.SliceStable(order, func(a, b int) bool { return counts[order[a]] > counts[order[b]] })
			if len(order) > 10 {
				order = order[:10]
			}
			s.Top = make([]TopValue, len(order))
			for k, v := range order {
				s.Top[k] = TopValue{Value: v, Count: counts[v]}
			}
		} else {
			lo, hi, sum, n := math.Inf(1), math.Inf(-1), 0.0, 0
			for _, v := range c.Num[:t.Rows] {
				if v != v {
					s.Blanks++
					continue
				}
				lo, hi, sum, n = math.Min(lo, v), math.Max(hi, v), sum+v, n+1
			}
			if n > 0 {
				s.Min, s.Max = finiteOrNil(lo), finiteOrNil(hi)
				if c.Kind == Number {
					s.Mean = finiteOrNil(mean(c.Num[:t.Rows], sum, n))
				}
			}
		}
		out[j] = s
	}
	return out
}

// mean is the mean of the n non-blank values of vals, whose plain sum is
// sum. When that sum overflows (values near ±1.8e308), the values are
// summed again scaled down by a power of two at least n, which no sum of
// n finite values can overflow, and the mean is scaled back: exact
// scaling, so the answer is what sum/n would be with unbounded exponents.
func mean(vals []float64, sum float64, n int) float64 {
	if !math.IsInf(sum, 0) {
		return sum / float64(n)
	}
	k := bits.Len(uint(n))
	scaled := 0.0
	for _, v := range vals {
		if v == v {
			scaled += math.Ldexp(v, -k)
		}
	}
	return math.Ldexp(scaled/float64(n), k)
}

// finiteOrNil is v, or nil (JSON null) when v is infinite: a statistic of
// values that are themselves infinite (a step's sum that overflowed) has
// no number JSON can carry.
func finiteOrNil(v float64) *float64 {
	if math.IsInf(v, 0) || math.IsNaN(v) {
		return nil
	}
	return &v
}

// Rows gives up to limit rows of t (all when limit ≤ 0) as JSON-friendly
// cells for query_data: numbers as float64, dates as ISO text at the
// column's unit, blanks as nil. (A function, since Table.Rows is the count.)
func Rows(t *Table, limit int) [][]any {
	n := t.Rows
	if limit > 0 && limit < n {
		n = limit
	}
	out := make([][]any, n)
	cells := make([]any, n*len(t.Columns))
	for i := range out {
		row := cells[i*len(t.Columns) : (i+1)*len(t.Columns) : (i+1)*len(t.Columns)]
		for j, c := range t.Columns {
			switch {
			case c.IsBlank(i):
			case c.Kind == Text:
				row[j] = c.Text[i]
			case c.Kind == Number:
				if !math.IsInf(c.Num[i], 0) {
					row[j] = c.Num[i]
				}
			default:
				row[j] = formatDate(c.Num[i], c.DateUnit)
			}
		}
		out[i] = row
	}
	return out
}

// Cells is rows × columns, the measure the size limit is checked against.
func Cells(t *Table) int { return t.Rows * len(t.Columns) }
