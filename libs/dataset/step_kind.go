package dataset

import (
	"encoding/json"
	"math"
	"strings"
)

// KindStep reads one column again as another kind: numbers written as
// codes ("0451") become text, a text column of amounts becomes numbers,
// years read as numbers become dates. Every cell is read from its text as
// it shows; a cell that does not read as the kind asked refuses the step
// (naming the row), so nothing is silently dropped. Blank cells and the
// common written blanks ("-", "n/a", "NA") stay blank.
type KindStep struct {
	Type   string `json:"type"`
	Column string `json:"column"`
	Kind   Kind   `json:"kind"`
}

// StepType is "kind".
func (s *KindStep) StepType() string { return "kind" }

// MarshalJSON writes the step with its type set.
func (s KindStep) MarshalJSON() ([]byte, error) {
	type plain KindStep
	s.Type = "kind"
	return json.Marshal(plain(s))
}

// kindNames are the kinds a column can be read as, for messages and schemas.
func kindNames() []string { return []string{string(Text), string(Number), string(Date)} }

// Validate checks the column exists and the kind is one of text, number, date.
func (s *KindStep) Validate(t *Table) error {
	if _, err := needColumn(t, "column", s.Column); err != nil {
		return err
	}
	switch s.Kind {
	case Text, Number, Date:
		return nil
	}
	return fieldErrorf("kind", "must be one of %s; got %q", strings.Join(kindNames(), ", "), s.Kind)
}

// writtenBlank reports cells that people write for "no value".
func writtenBlank(s string) bool {
	switch strings.ToLower(s) {
	case "", "-", "–", "—", "n/a", "na", "n.a.", "null", "none", "?":
		return true
	}
	return false
}

// shownText is cell i of c as it shows: numbers with their percent sign
// or currency, dates in the unit they were written in.
func shownText(c *Column, i int) string {
	if c.Kind == Number && c.Num[i] == c.Num[i] {
		s := formatNumber(c.Num[i])
		if c.Percent {
			s += "%"
		}
		if c.Currency != "" {
			s = c.Currency + s
		}
		return s
	}
	return c.Format(i)
}

// Apply answers t with the column read as the kind; the other columns
// share t's storage.
func (s *KindStep) Apply(t *Table, _ Defaults) (*Table, error) {
	if err := s.Validate(t); err != nil {
		return nil, err
	}
	c, _ := t.Column(s.Column)
	if c.Kind == s.Kind && !(s.Kind == Number && c.Years) {
		return t, nil
	}
	cells := make([]string, t.Rows)
	for i := range cells {
		if v := trimCell(shownText(c, i)); !writtenBlank(v) {
			cells[i] = v
		}
	}
	rc := &rawCol{strs: cells}
	col := &Column{ID: c.ID, Name: c.Name}
	switch s.Kind {
	case Text:
		textColumn(col, rc, t.Rows)
	case Number:
		st := scanColumn(rc, t.Rows, false)
		eu := st.euOnly > 0 && st.usOnly == 0
		numberColumn(col, rc, t.Rows, eu)
		if row := unread(cells, col.Num); row >= 0 {
			return nil, fieldErrorf("kind", "column %s cannot be read as numbers: row %d holds %q, which is not a number", describeColumn(c.ID, c.Name), row+1, cells[row])
		}
		col.Percent = st.pct*2 >= st.total && st.total > 0
		if !st.mixedCurrency {
			col.Currency = st.currency
		}
	case Date:
		st := scanColumn(rc, t.Rows, true)
		dayFirst := chooseDayFirst(&st)
		for i, v := range cells {
			if _, _, ok := cellDate(rc, i, true, dayFirst); v != "" && !ok {
				return nil, fieldErrorf("kind", "column %s cannot be read as dates: row %d holds %q, which is not a date", describeColumn(c.ID, c.Name), i+1, v)
			}
		}
		dateColumn(col, rc, t.Rows, true, dayFirst)
	}
	out := derive(t, t.Rows)
	out.Columns = make([]*Column, len(t.Columns))
	for j, tc := range t.Columns {
		if tc == c {
			tc = col
		}
		out.Columns[j] = tc
	}
	return out, nil
}

// unread is the first row whose written cell did not read as a number, or -1.
func unread(cells []string, num []float64) int {
	for i, v := range cells {
		if v != "" && math.IsNaN(num[i]) {
			return i
		}
	}
	return -1
}
