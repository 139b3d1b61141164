package dataset

import (
	"math"
	"strconv"
	"time"
)

// Kind is a column's value kind.
type Kind string

// Column kinds; every column has exactly one.
const (
	Text   Kind = "text"
	Number Kind = "number"
	Date   Kind = "date"
)

// Date units, finest first, recorded in Column.DateUnit so dates display as written.
const (
	UnitTime  = "time"
	UnitDay   = "day"
	UnitMonth = "month"
	UnitYear  = "year"
)

// Column is one column of a table, stored column-wise for speed.
type Column struct {
	ID   string `json:"id"` // c1..cN in data order; derived columns get fresh ids
	Name string `json:"name"`
	Kind Kind   `json:"kind" enum:"text,number,date"`
	// Num holds values for Number (the value) and Date (milliseconds since 1970-01-01 on the clock as written, read as UTC); NaN = blank. nil for Text.
	Num []float64 `json:"-"`
	// Text holds cells of Text columns; "" = blank. nil for Number/Date.
	Text []string `json:"-"`
	// DateUnit is, for Date columns, the finest unit seen: "year","month","day","time".
	DateUnit string `json:"-"`
	// Percent records that a Number column was written as percentages (12% is stored as 12).
	Percent bool `json:"-"`
	// Currency is the symbol ($ € £ ¥) a Number column's cells were written with, if one.
	Currency string `json:"-"`
	// Years marks a Number column of calendar years (a year column taken
	// as numbers, see AsYearNumbers): written without digit grouping.
	Years bool `json:"-"`
}

// IsYears reports a Date column of whole years ("Year", "Founded"): a
// date axis where a chart runs along time, a number where a role needs one.
func (c *Column) IsYears() bool {
	return c.Kind == Date && c.DateUnit == UnitYear
}

// AsYearNumbers answers a year column (IsYears) as a Number column of the
// same id and name holding the years themselves (1848, 2024), marked
// Years; any other column as it is.
func (c *Column) AsYearNumbers() *Column {
	if !c.IsYears() {
		return c
	}
	out := &Column{ID: c.ID, Name: c.Name, Kind: Number, Years: true, Num: make([]float64, len(c.Num))}
	for i, ms := range c.Num {
		out.Num[i] = math.NaN()
		if !math.IsNaN(ms) {
			y, _, _ := civilFromDays(int64(math.Floor(ms / msPerDay)))
			out.Num[i] = float64(y)
		}
	}
	return out
}

// Table is parsed data: columns of equal length Rows.
type Table struct {
	Columns []*Column
	Rows    int
	// idSeq is the highest column number handed out for this table or the
	// tables it was derived from, so derived columns never reuse an id.
	idSeq int
}

// Column finds a column by id, so steps can resolve the ids callers pass.
// Column cN sits at position N-1 in data as parsed, so that place is
// tried first and most lookups cost O(1); else the columns are scanned.
func (t *Table) Column(id string) (*Column, bool) {
	if i := idPosition(id); i >= 0 && i < len(t.Columns) && t.Columns[i].ID == id {
		return t.Columns[i], true
	}
	for _, c := range t.Columns {
		if c.ID == id {
			return c, true
		}
	}
	return nil, false
}

// idPosition answers N-1 for an id "cN" (N without sign or leading zero),
// -1 for anything else.
func idPosition(id string) int {
	if len(id) < 2 || len(id) > 10 || id[0] != 'c' || id[1] == '0' {
		return -1
	}
	n := 0
	for _, r := range id[1:] {
		if r < '0' || r > '9' {
			return -1
		}
		n = n*10 + int(r-'0')
	}
	return n - 1
}

// indexAbove is the id list length from which ColumnsByID builds a map
// rather than looking each id up.
const indexAbove = 16

// ColumnsByID answers the column of each of ids in order, nil where t has
// none. It stays linear in len(ids)+len(t.Columns) whatever the order of
// t's columns, so resolving a long mapping never costs ids × columns.
func (t *Table) ColumnsByID(ids []string) []*Column {
	out := make([]*Column, len(ids))
	if len(ids) <= indexAbove {
		for i, id := range ids {
			out[i], _ = t.Column(id)
		}
		return out
	}
	var byID map[string]*Column
	for i, id := range ids {
		if p := idPosition(id); p >= 0 && p < len(t.Columns) && t.Columns[p].ID == id {
			out[i] = t.Columns[p]
			continue
		}
		if byID == nil {
			byID = make(map[string]*Column, len(t.Columns))
			for _, c := range t.Columns {
				if _, dup := byID[c.ID]; !dup {
					byID[c.ID] = c
				}
			}
		}
		out[i] = byID[id]
	}
	return out
}

// IsBlank reports whether cell i is empty; blanks are kept, never guessed.
func (c *Column) IsBlank(i int) bool {
	if c.Kind == Text {
		return c.Text[i] == ""
	}
	return math.IsNaN(c.Num[i])
}

// Format renders cell i as display text: numbers without trailing zeros,
// dates as ISO text at the column's DateUnit, blanks as "".
func (c *Column) Format(i int) string {
	switch c.Kind {
	case Text:
		return c.Text[i]
	case Number:
		return formatNumber(c.Num[i])
	case Date:
		return formatDate(c.Num[i], c.DateUnit)
	}
	return ""
}

// Clone returns a deep copy so callers can modify the result without touching t.
func (t *Table) Clone() *Table {
	out := &Table{Rows: t.Rows, Columns: make([]*Column, len(t.Columns)), idSeq: t.idSeq}
	for i, c := range t.Columns {
		out.Columns[i] = c.clone()
	}
	return out
}

func (c *Column) clone() *Column {
	n := *c
	if c.Num != nil {
		n.Num = append([]float64(nil), c.Num...)
	}
	if c.Text != nil {
		n.Text = append([]string(nil), c.Text...)
	}
	return &n
}

// formatNumber prints v in the shortest form that round-trips, without
// exponent notation for everyday magnitudes.
func formatNumber(v float64) string {
	if math.IsNaN(v) {
		return ""
	}
	if math.IsInf(v, 0) {
		if v > 0 {
			return "Infinity"
		}
		return "-Infinity"
	}
	a := math.Abs(v)
	if a != 0 && (a < 1e-6 || a >= 1e21) {
		return strconv.FormatFloat(v, 'g', -1, 64)
	}
	return strconv.FormatFloat(v, 'f', -1, 64)
}

// formatDate prints Unix milliseconds as ISO 8601 at the given unit; a
// time has no zone, as it is the clock the data was written in.
func formatDate(ms float64, unit string) string {
	if math.IsNaN(ms) {
		return ""
	}
	tm := time.UnixMilli(int64(ms)).UTC()
	switch unit {
	case UnitYear:
		return tm.Format("2006")
	case UnitQuarter:
		return tm.Format("2006") + "-Q" + strconv.Itoa((int(tm.Month())+2)/3)
	case UnitMonth:
		return tm.Format("2006-01")
	case UnitTime:
		if tm.Nanosecond() != 0 {
			return tm.Format("2006-01-02T15:04:05.000")
		}
		return tm.Format("2006-01-02T15:04:05")
	default:
		return tm.Format("2006-01-02")
	}
}
