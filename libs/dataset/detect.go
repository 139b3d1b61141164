package dataset

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
)

// trimCell drops surrounding white space; most cells have none, so the
// check comes first.
func trimCell(s string) string {
	if s == "" {
		return s
	}
	if f, l := s[0], s[len(s)-1]; f > ' ' && f < 0x80 && l > ' ' && l < 0x80 {
		return s
	}
	return strings.TrimSpace(s)
}

// describeColumn names a column in notices: `"Sales" (c2)`.
func describeColumn(id, name string) string {
	return fmt.Sprintf("%q (%s)", name, id)
}

// columnStats is what the first look at a column found.
type columnStats struct {
	total             int // non-blank cells
	usOK, euOK        int
	usOnly, euOnly    int
	firstEUOnly       int // row of the first cell only readable with a decimal comma
	pct               int
	currency          string
	mixedCurrency     bool
	years             int
	dateDef           int
	dmyDF, dmyMF      int // cells readable day-first / month-first
	onlyDF, onlyMF    int
	dmyAmbiguous      int // first row with a != b readable both ways, -1 none
	dmySep            byte
	lzUS, lzEU        int // first row with a leading zero per reading, -1 none
	numFail, dateFail int
	stoppedEarly      bool
	// us holds the cells read with '.' as the decimal mark (NaN where that
	// fails), so a column decided as such needs no second pass.
	us []float64
}

// detectColumn decides the kind of one column and converts its cells.
func detectColumn(rc *rawCol, rows int, id, name string) (*Column, []Notice) {
	col := &Column{ID: id, Name: name}
	yearish := yearishHeader(name)
	if num, lz, ok := fastNumbers(rc, rows); ok {
		switch {
		case num == nil:
			return textColumn(col, rc, rows), nil
		case yearish && allYears(rc, num), yearLike(name, num) && allYears(rc, num):
			var notices []Notice
			if !yearish {
				notices = []Notice{{Code: NoticeYearsByValue, Message: fmt.Sprintf(
					"column %s holds four-digit whole numbers from %.0f to %.0f in even steps and was read as years; name it \"Year\" or change its kind if they are amounts",
					describeColumn(id, name), minOf(num), maxOf(num))}}
			}
			col.Kind, col.Num, col.DateUnit = Date, num, UnitYear
			for i, v := range num {
				if v == v {
					num[i] = float64(daysFromCivil(int(v), 1, 1) * msPerDay)
				}
			}
			return col, notices
		}
		if lz >= 0 {
			return textColumn(col, rc, rows), []Notice{leadingZeroNotice(id, name, rc, lz)}
		}
		col.Kind, col.Num = Number, num
		return col, nil
	}
	if num, unit, ok := fastDates(rc, rows); ok {
		col.Kind, col.Num, col.DateUnit = Date, num, unit
		return col, nil
	}
	st := scanColumn(rc, rows, yearish)
	eu := st.euOnly > 0 && st.usOnly == 0
	numOK := st.usOK
	if eu {
		numOK = st.euOK
	}
	dayFirst := chooseDayFirst(&st)
	dmyOK := st.dmyMF
	if dayFirst {
		dmyOK = st.dmyDF
	}
	dateOK := st.dateDef + dmyOK
	if yearish {
		dateOK += st.years
	}
	var notices []Notice
	switch {
	case st.total == 0:
		return textColumn(col, rc, rows), nil
	case !st.stoppedEarly && numOK == st.total && !(yearish && st.years == st.total):
		lz := st.lzUS
		if eu {
			lz = st.lzEU
		}
		if lz >= 0 {
			return textColumn(col, rc, rows), []Notice{leadingZeroNotice(id, name, rc, lz)}
		}
		if eu || st.us == nil {
			numberColumn(col, rc, rows, eu)
		} else {
			col.Kind, col.Num = Number, st.us
		}
		col.Percent = st.pct*2 >= st.total
		if !st.mixedCurrency {
			col.Currency = st.currency
		}
		if eu {
			cell := trimCell(rc.cell(st.firstEUOnly))
			notices = append(notices, Notice{Code: NoticeDecimalComma, Message: fmt.Sprintf(
				"column %s uses a comma as the decimal mark: %q was read as %s",
				describeColumn(id, name), cell, formatNumber(col.Num[st.firstEUOnly]))})
		}
		return col, notices
	case !st.stoppedEarly && dateOK == st.total:
		dateColumn(col, rc, rows, yearish, dayFirst)
		if st.dmyAmbiguous >= 0 {
			cell := trimCell(rc.cell(st.dmyAmbiguous))
			order := "month/day"
			if dayFirst {
				order = "day/month"
			}
			notices = append(notices, Notice{Code: NoticeAmbiguousDates, Message: fmt.Sprintf(
				"column %s has dates like %q that read either way; read as %s (%s)",
				describeColumn(id, name), cell, order, col.Format(st.dmyAmbiguous))})
		}
		return col, notices
	}
	textColumn(col, rc, rows)
	if st.stoppedEarly {
		return col, nil
	}
	if numOK > 0 && numOK*2 >= st.total && numOK >= dateOK {
		row := firstNonNumber(rc, rows, eu)
		return col, []Notice{{Code: NoticeMixedValues, Message: fmt.Sprintf(
			"column %s was read as text: row %d holds %q, which is not a number",
			describeColumn(id, name), row+1, trimCell(rc.cell(row)))}}
	}
	if dateOK > 0 && dateOK*2 >= st.total {
		row := firstNonDate(rc, rows, yearish, dayFirst)
		return col, []Notice{{Code: NoticeMixedValues, Message: fmt.Sprintf(
			"column %s was read as text: row %d holds %q, which is not a date like the others",
			describeColumn(id, name), row+1, trimCell(rc.cell(row)))}}
	}
	return col, nil
}

// fastNumbers reads a column of plain decimals in one pass. It fails at the
// first cell that needs more (a separator, a symbol, text). A column of
// blanks gives (nil, true). lzRow is the first row written with a leading
// zero ("007"), or -1.
func fastNumbers(rc *rawCol, rows int) (num []float64, lzRow int, ok bool) {
	lzRow = -1
	if rc.starts == nil && rc.nums != nil && allNative(rc, rows) {
		return rc.nums[:rows:rows], -1, true
	}
	for i := 0; i < rows; i++ {
		v, ok := rc.native(i)
		if !ok {
			s := trimCell(rc.cell(i))
			if s == "" {
				if num != nil {
					num[i] = math.NaN()
				}
				continue
			}
			var lz bool
			v, ok, lz = fastNum(s)
			if !ok {
				return nil, -1, false
			}
			if lz && lzRow < 0 {
				lzRow = i
			}
		}
		if num == nil {
			num = make([]float64, rows)
			for k := 0; k < i; k++ {
				num[k] = math.NaN()
			}
		}
		num[i] = v
	}
	return num, lzRow, true
}

// allNative reports whether every non-blank cell was a JSON number, so the
// values read with the JSON can serve as the column as they are.
func allNative(rc *rawCol, rows int) bool {
	for i := 0; i < rows; i++ {
		if v := rc.nums[i]; v != v && trimCell(rc.strs[i]) != "" {
			return false
		}
	}
	return true
}

// yearLike reports a column whose values read as years though its header
// says nothing ("年", "", "FY"): at least three whole numbers from 1800 to
// 2100 whose distinct values, sorted, step by at most 10 and mostly by
// the same step (a regular series of years, not amounts that happen to
// fall in that range), under a header that names no amount.
func yearLike(name string, num []float64) bool {
	if amountHeader(name) {
		return false
	}
	seen := make(map[float64]bool, len(num))
	var vals []float64
	for _, v := range num {
		if v != v {
			continue
		}
		if v != math.Trunc(v) || v < 1800 || v > 2100 {
			return false
		}
		if !seen[v] {
			seen[v] = true
			vals = append(vals, v)
		}
	}
	if len(vals) < 3 {
		return false
	}
	slices.Sort(vals)
	steps := map[float64]int{}
	top := 0
	for i := 1; i < len(vals); i++ {
		d := vals[i] - vals[i-1]
		if d > 10 {
			return false
		}
		steps[d]++
		top = max(top, steps[d])
	}
	return top*4 >= (len(vals)-1)*3
}

// amountWords are header words that make numbers amounts, never years.
var amountWords = [...]string{"price", "cost", "costs", "amount", "total", "sum", "sales", "revenue", "count", "number",
	"value", "score", "points", "population", "weight", "height", "length", "size", "km", "kg", "usd", "eur", "id", "code"}

// amountHeader reports a header naming an amount ("Price", "Total sales").
func amountHeader(name string) bool {
	for _, w := range strings.FieldsFunc(strings.ToLower(name), func(r rune) bool {
		return !(r >= 'a' && r <= 'z')
	}) {
		if slices.Contains(amountWords[:], w) {
			return true
		}
	}
	return false
}

// minOf and maxOf are the smallest and largest values, blanks aside.
func minOf(vs []float64) float64 {
	m := math.Inf(1)
	for _, v := range vs {
		if v == v {
			m = math.Min(m, v)
		}
	}
	return m
}

func maxOf(vs []float64) float64 {
	m := math.Inf(-1)
	for _, v := range vs {
		if v == v {
			m = math.Max(m, v)
		}
	}
	return m
}

// allYears reports whether every value is a year written with four digits.
func allYears(rc *rawCol, num []float64) bool {
	for i, v := range num {
		if v != v {
			continue
		}
		if _, ok := rc.native(i); ok {
			if v != math.Trunc(v) || v < 1000 || v > 2999 {
				return false
			}
			continue
		}
		if _, ok := yearValue(trimCell(rc.cell(i))); !ok {
			return false
		}
	}
	return true
}

func leadingZeroNotice(id, name string, rc *rawCol, row int) Notice {
	return Notice{Code: NoticeLeadingZeros, Message: fmt.Sprintf(
		"column %s was read as text: values like %q have leading zeros that a number would lose",
		describeColumn(id, name), trimCell(rc.cell(row)))}
}

// scanColumn looks at every cell once and counts how each reading fares.
func scanColumn(rc *rawCol, rows int, yearish bool) columnStats {
	st := columnStats{dmyAmbiguous: -1, lzUS: -1, lzEU: -1, firstEUOnly: -1}
	for i := 0; i < rows; i++ {
		if v, ok := rc.native(i); ok {
			st.keepUS(i, v, rows)
			st.total++
			st.usOK++
			st.euOK++
			st.dateFail++
			if v == math.Trunc(v) && v >= 1000 && v <= 2999 {
				st.years++
			}
			continue
		}
		s := trimCell(rc.cell(i))
		if st.us != nil {
			st.us[i] = math.NaN()
		}
		if s == "" {
			continue
		}
		st.total++
		isNum, isDate, isYear := false, false, false
		if sh, ok := parseNumShape(s); ok {
			vU, okU, lzU := interpret(sh.body, false)
			if okU {
				if sh.neg && vU != 0 {
					vU = -vU
				}
				st.keepUS(i, vU, rows)
			}
			_, okE, lzE := interpret(sh.body, true)
			if okU {
				st.usOK++
				if lzU && st.lzUS < 0 {
					st.lzUS = i
				}
			}
			if okE {
				st.euOK++
				if lzE && st.lzEU < 0 {
					st.lzEU = i
				}
			}
			switch {
			case okU && !okE:
				st.usOnly++
			case okE && !okU:
				st.euOnly++
				if st.firstEUOnly < 0 {
					st.firstEUOnly = i
				}
			}
			if okU || okE {
				isNum = true
				if sh.pct {
					st.pct++
				}
				if sh.cur != "" {
					if st.currency != "" && st.currency != sh.cur {
						st.mixedCurrency = true
					}
					st.currency = sh.cur
				}
			}
			if _, ok := yearValue(s); ok {
				st.years++
				isYear = true
			}
		}
		if !isNum {
			if _, _, ok := parseDateDefinite(s); ok {
				st.dateDef++
				isDate = true
			} else if c, ok := parseDMY(s); ok {
				df, mf := c.dayFirstOK(), c.monthFirstOK()
				if df {
					st.dmyDF++
				}
				if mf {
					st.dmyMF++
				}
				switch {
				case df && !mf:
					st.onlyDF++
				case mf && !df:
					st.onlyMF++
				case df && mf && c.a != c.b && st.dmyAmbiguous < 0:
					st.dmyAmbiguous = i
				}
				if st.dmySep == 0 {
					st.dmySep = c.sep
				}
				isDate = df || mf
			}
		}
		if !isNum {
			st.numFail++
		}
		if !isDate && !(yearish && isYear) {
			st.dateFail++
		}
		if st.numFail*2 > rows && st.dateFail*2 > rows {
			st.stoppedEarly = true
			return st
		}
	}
	return st
}

// keepUS records the value of row i read with '.' as the decimal mark.
func (st *columnStats) keepUS(i int, v float64, rows int) {
	if st.us == nil {
		st.us = make([]float64, rows)
		for k := range i {
			st.us[k] = math.NaN()
		}
	}
	st.us[i] = v
}

// fastDates reads a column of ISO-like dates (any form parseDateDefinite
// knows) in one pass; it fails at the first cell that is not one.
func fastDates(rc *rawCol, rows int) (num []float64, unit string, ok bool) {
	for i := 0; i < rows; i++ {
		if _, ok := rc.native(i); ok {
			return nil, "", false
		}
		s := trimCell(rc.cell(i))
		if s == "" {
			if num != nil {
				num[i] = math.NaN()
			}
			continue
		}
		ms, u, ok := parseDateDefinite(s)
		if !ok {
			return nil, "", false
		}
		if num == nil {
			num = make([]float64, rows)
			for k := range i {
				num[k] = math.NaN()
			}
		}
		num[i] = float64(ms)
		if unitRank(u) > unitRank(unit) {
			unit = u
		}
	}
	return num, unit, num != nil
}

// chooseDayFirst settles the order of numeric dates from the whole column:
// a cell like 25/03/2024 decides; when none does, dots and dashes read as
// day/month and slashes as month/day.
func chooseDayFirst(st *columnStats) bool {
	switch {
	case st.onlyDF > 0 && st.onlyMF == 0:
		st.dmyAmbiguous = -1
		return true
	case st.onlyMF > 0 && st.onlyDF == 0:
		st.dmyAmbiguous = -1
		return false
	case st.onlyDF > 0 && st.onlyMF > 0:
		st.dmyAmbiguous = -1
		return st.onlyDF >= st.onlyMF
	}
	return st.dmySep != '/'
}

// textColumn fills col with the trimmed cells as text.
func textColumn(col *Column, rc *rawCol, rows int) *Column {
	col.Kind = Text
	if rc.starts == nil && rc.nums == nil {
		// JSON strings: the raw column is ours, trim it in place
		col.Text = rc.strs[:rows:rows]
		for i, v := range col.Text {
			col.Text[i] = trimCell(v)
		}
		return col
	}
	col.Text = make([]string, rows)
	for i := range col.Text {
		col.Text[i] = trimCell(rc.cell(i))
	}
	return col
}

// numberColumn converts every cell with the chosen decimal mark.
func numberColumn(col *Column, rc *rawCol, rows int, eu bool) {
	col.Kind = Number
	col.Num = make([]float64, rows)
	for i := range col.Num {
		col.Num[i] = cellNumber(rc, i, eu)
	}
}

// cellNumber reads cell i as a number; NaN when blank or not a number.
func cellNumber(rc *rawCol, i int, eu bool) float64 {
	if v, ok := rc.native(i); ok {
		return v
	}
	s := trimCell(rc.cell(i))
	sh, ok := parseNumShape(s)
	if !ok {
		return math.NaN()
	}
	v, ok, _ := interpret(sh.body, eu)
	if !ok {
		return math.NaN()
	}
	if sh.neg && v != 0 {
		v = -v
	}
	return v
}

// cellDate reads cell i as a date; ok false when it is not one.
func cellDate(rc *rawCol, i int, yearish, dayFirst bool) (int64, string, bool) {
	if v, ok := rc.native(i); ok {
		if yearish && v == math.Trunc(v) && v >= 1000 && v <= 2999 {
			return daysFromCivil(int(v), 1, 1) * msPerDay, UnitYear, true
		}
		return 0, "", false
	}
	s := trimCell(rc.cell(i))
	if yearish {
		if y, ok := yearValue(s); ok {
			return daysFromCivil(y, 1, 1) * msPerDay, UnitYear, true
		}
	}
	if ms, unit, ok := parseDateDefinite(s); ok {
		return ms, unit, true
	}
	if c, ok := parseDMY(s); ok {
		if (dayFirst && c.dayFirstOK()) || (!dayFirst && c.monthFirstOK()) {
			ms, unit := c.value(dayFirst)
			return ms, unit, true
		}
	}
	return 0, "", false
}

// dateColumn converts every cell to Unix milliseconds and records the
// finest unit seen.
func dateColumn(col *Column, rc *rawCol, rows int, yearish, dayFirst bool) {
	col.Kind = Date
	col.Num = make([]float64, rows)
	unit := ""
	for i := range col.Num {
		if _, ok := rc.native(i); !ok && trimCell(rc.cell(i)) == "" {
			col.Num[i] = math.NaN()
			continue
		}
		ms, u, ok := cellDate(rc, i, yearish, dayFirst)
		if !ok {
			col.Num[i] = math.NaN()
			continue
		}
		col.Num[i] = float64(ms)
		if unitRank(u) > unitRank(unit) {
			unit = u
		}
	}
	if unit == "" {
		unit = UnitDay
	}
	col.DateUnit = unit
}

// firstNonNumber finds the row of the first non-blank cell that is not a number.
func firstNonNumber(rc *rawCol, rows int, eu bool) int {
	for i := 0; i < rows; i++ {
		if _, ok := rc.native(i); ok || trimCell(rc.cell(i)) == "" {
			continue
		}
		if v := cellNumber(rc, i, eu); v != v {
			return i
		}
	}
	return 0
}

// firstNonDate finds the row of the first non-blank cell that is not a date.
func firstNonDate(rc *rawCol, rows int, yearish, dayFirst bool) int {
	for i := 0; i < rows; i++ {
		if _, ok := rc.native(i); !ok && trimCell(rc.cell(i)) == "" {
			continue
		}
		if _, _, ok := cellDate(rc, i, yearish, dayFirst); !ok {
			return i
		}
	}
	return 0
}

// columnID is the id of the n-th column (1-based).
func columnID(n int) string { return "c" + strconv.Itoa(n) }
