package chartspec

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"chartd.dev/charts"
	"chartd.dev/libs/dataset"
)

// Fits reports whether column c can fill role r: its kind is one the role
// takes, or the role takes numbers and c is a year column (a date column
// of whole years, dataset.Column.IsYears), which serves as the years
// themselves. A year column is a date axis where a chart runs along time
// (a line's or a scatter's x) and a number wherever a role needs one.
func Fits(r charts.Role, c *dataset.Column) bool {
	return slices.Contains(r.Kinds, string(c.Kind)) || (r.Numeric && c.IsYears())
}

// columnsFor lists the columns of t that fit role r.
func columnsFor(t *dataset.Table, r charts.Role) []*dataset.Column {
	var out []*dataset.Column
	for _, c := range t.Columns {
		if Fits(r, c) {
			out = append(out, c)
		}
	}
	return out
}

// idWords are last words of a column name that name identifiers
// ("Customer ID", "Order no.", "Postcode").
var idWords = [...]string{"id", "ids", "identifier", "uuid", "guid", "no", "nr", "nº", "#",
	"code", "sku", "isbn", "zip", "zipcode", "postcode", "fips", "serial"}

// idNames are names that are identifiers only standing alone: "Index"
// is a row number, "Price index" a measure.
var idNames = [...]string{"index", "idx", "key", "row", "rownum", "#"}

// rowWords are names that, standing alone, are a measure as often as an
// id: a poll's "No" beside "Yes", a stock "Index", a "Key" figure. Such a
// column is an id only when its values count the rows (RowCount).
var rowWords = [...]string{"index", "idx", "key", "row", "rownum", "#", "no", "nr", "nº", "code"}

// IDLike reports a column name that names identifiers rather than a
// measure: "ID", "Customer ID", "user_id", "userId", "No.", "#", "Index".
// It allocates nothing: drawing asks it of every column.
func IDLike(name string) bool {
	id, _ := idName(name)
	return id
}

// idName reports whether name names identifiers, and whether it is one
// of rowWords standing alone, a name that is as often a measure.
func idName(name string) (id, rowWord bool) {
	name = strings.TrimSpace(name)
	// camel case: "userId", "customerID"
	if n := len(name); n > 2 && (strings.HasSuffix(name, "Id") || strings.HasSuffix(name, "ID")) {
		if r, _ := utf8.DecodeLastRuneInString(name[:n-2]); unicode.IsLower(r) {
			return true, false
		}
	}
	words, last := 0, ""
	inWord := false
	start := 0
	for i, r := range name {
		word := unicode.IsLetter(r) || unicode.IsDigit(r) || r == '#'
		switch {
		case word && !inWord:
			start, inWord = i, true
			words++
		case !word && inWord:
			last, inWord = name[start:i], false
		}
	}
	if inWord {
		last = name[start:]
	}
	if words == 0 {
		return false, false
	}
	equal := func(w string) bool { return strings.EqualFold(last, w) }
	alone := words == 1 && slices.ContainsFunc(rowWords[:], equal)
	if words == 1 && slices.ContainsFunc(idNames[:], equal) {
		return true, alone
	}
	return slices.ContainsFunc(idWords[:], equal), alone
}

// Identifier reports a number column that names rows rather than
// measuring them ("ID", "Customer no."): automatic picks take it as a
// category, never as a measure, while another number column is left.
// The name alone never decides: the values must be whole numbers, and a
// name that is as often a measure ("Index", "Key", "No") must count the
// rows (RowCount), so a poll's "No" or a stock index is data.
func Identifier(c *dataset.Column) bool {
	if c.Kind != dataset.Number {
		return false
	}
	id, rowWord := idName(c.Name)
	switch {
	case !id:
		return false
	case rowWord:
		return RowCount(c)
	}
	for _, v := range c.Num {
		if !math.IsNaN(v) && v != math.Trunc(v) {
			return false
		}
	}
	return true
}

// RowCount reports a number column whose values count the rows: whole
// numbers, none blank, each one more than the row before (1, 2, 3 … or
// 0, 1, 2 …), at least two of them.
func RowCount(c *dataset.Column) bool {
	if c.Kind != dataset.Number || len(c.Num) < 2 {
		return false
	}
	for i, v := range c.Num {
		if math.IsNaN(v) || v != math.Trunc(v) || (i > 0 && v != c.Num[i-1]+1) {
			return false
		}
	}
	return true
}

// HeatmapMapping picks a heatmap's roles from t by the shape of the data.
// A wide table, a column naming the rows (each row its own) beside two or
// more number columns (a correlation matrix, one column per month), is
// rows × columns: y is the row names and value lists every number
// column, each a column of the grid. Otherwise the data is long, one row
// per cell: the two category columns go to x and y in the data's order
// and the first number column left to value, unless x's names would not
// fit side by side: then the two swap (acrossFirst), so long names (30
// weather stations) go down the side and never turn, and short ones (12
// months) go across. A single category column with one number is one
// column of cells, a row per name.
func HeatmapMapping(t *dataset.Table) Mapping {
	if label, measures := wideHeatmap(t); label != nil {
		ids := make([]string, len(measures))
		for i, c := range measures {
			ids[i] = c.ID
		}
		return Mapping{"y": One(label.ID), "value": Many(ids...)}
	}
	var cats, measures []*dataset.Column
	for _, c := range t.Columns {
		if c.Kind != dataset.Number && len(cats) < 2 {
			cats = append(cats, c)
		}
	}
	for _, c := range t.Columns {
		if Identifier(c) && len(cats) < 2 {
			cats = append(cats, c)
		} else if c.Kind == dataset.Number && !Identifier(c) {
			measures = append(measures, c)
		}
	}
	// numbers as categories (Hour beside Day) while one is left for value
	for len(cats) < 2 && len(measures) > 1 {
		cats, measures = append(cats, measures[0]), measures[1:]
	}
	m := Mapping{}
	if len(measures) > 0 {
		m["value"] = Many(measures[0].ID)
	}
	switch len(cats) {
	case 1:
		m["y"] = One(cats[0].ID) // one column of cells, a row per name
	case 2:
		x, y := cats[0], cats[1]
		if acrossFirst(y, x, t.Rows) {
			x, y = y, x
		}
		m["x"], m["y"] = One(x.ID), One(y.ID)
	}
	return m
}

// acrossFirst reports whether a should run along x instead of b, which
// the data's order puts there: when b's names would not sit side by side
// on a chart of the usual width (about acrossChars characters for all of
// them) and a's take less room, as 12 months beside 30 weather stations.
func acrossFirst(a, b *dataset.Column, rows int) bool {
	nb := acrossNeed(b, rows)
	return nb > acrossChars && acrossNeed(a, rows) < nb
}

// acrossChars is about how many characters of names fit side by side
// along the x axis of a chart of the usual 800 pixels.
const acrossChars = 80

// acrossNeed is the room c's names need side by side, in characters:
// each distinct name at the length of the longest, plus a gap.
func acrossNeed(c *dataset.Column, rows int) int {
	seen := make(map[string]struct{}, min(rows, 256))
	longest := 0
	for i := range rows {
		v := c.Format(i)
		seen[v] = struct{}{}
		longest = max(longest, utf8.RuneCountInString(v))
	}
	return len(seen) * (longest + 2)
}

// wideHeatmap answers, for a table in wide form, the column naming the
// rows and the number columns that are the grid's columns; nil when the
// table is not wide. The row names are the first text or date column
// whose values are all different (else an identifier column's), and at
// least two number columns (identifiers aside) must be left.
func wideHeatmap(t *dataset.Table) (label *dataset.Column, measures []*dataset.Column) {
	for _, c := range t.Columns {
		if c.Kind == dataset.Number && !Identifier(c) {
			measures = append(measures, c)
		}
	}
	if len(measures) < 2 {
		return nil, nil
	}
	for _, ok := range []func(*dataset.Column) bool{
		func(c *dataset.Column) bool { return c.Kind != dataset.Number },
		Identifier,
	} {
		for _, c := range t.Columns {
			if ok(c) && allDifferent(c, t.Rows) {
				return c, measures
			}
		}
	}
	return nil, nil
}

// allDifferent reports a column whose non-blank cells all differ, with at
// least two of them: each row names a row of its own.
func allDifferent(c *dataset.Column, rows int) bool {
	seen := make(map[string]struct{}, rows)
	for i := range rows {
		v := c.Format(i)
		if v == "" {
			continue
		}
		if _, dup := seen[v]; dup {
			return false
		}
		seen[v] = struct{}{}
	}
	return len(seen) >= 2
}

// WideHeatmap reports a heatmap mapping in wide form, rows × columns:
// several value columns, or no x; each value column is then a column of
// the grid and x, if mapped, is not used. With one value column and an x
// the data is long, one row per cell.
func WideHeatmap(m Mapping) bool { return len(m.Cols("value")) > 1 || m.Col("x") == "" }
