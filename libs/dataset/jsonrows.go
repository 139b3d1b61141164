package dataset

import (
	"encoding/json"
	"math"
	"slices"
	"sort"
	"strconv"
	"strings"
	"unicode/utf8"
)

// jcell is one JSON scalar as read.
type jcell struct {
	s    string  // text of the cell: the string, the number as written, "true"/"false", "" for null
	num  float64 // value when the cell is a JSON number, NaN otherwise
	kind byte    // 's' string, 'n' number, 'b' boolean, '0' null
}

// rowsBuilder gathers JSON rows (objects or arrays) into raw columns.
type rowsBuilder struct {
	names []string
	index map[string]int
	cols  []*rawCol
	rows  int
	// maxColumns, when > 0, is the most columns tooLarge lets through.
	maxColumns int
}

// MaxParseCells bounds rows × columns while reading JSON rows, whose keys
// may differ per row; without it a few megabytes of sparse objects could
// ask for terabytes.
const MaxParseCells = 10_000_000

// tooLarge reports a table past MaxParseCells, or past maxColumns as a
// *ColumnLimitError.
func (b *rowsBuilder) tooLarge() error {
	if b.maxColumns > 0 && len(b.cols) > b.maxColumns {
		return &ColumnLimitError{Columns: len(b.cols), Limit: b.maxColumns}
	}
	if (b.rows+1)*len(b.cols) > MaxParseCells {
		return dataErrorf("data has more than %d cells (%d rows × %d columns so far)", MaxParseCells, b.rows+1, len(b.cols))
	}
	return nil
}

func (b *rowsBuilder) addColumn(name string) int {
	c := &rawCol{strs: make([]string, b.rows)}
	b.cols = append(b.cols, c)
	b.names = append(b.names, name)
	return len(b.cols) - 1
}

// key returns the column for an object key, adding it at first sight so
// columns keep the order in which keys first appear.
func (b *rowsBuilder) key(name string) int {
	if j, ok := b.index[name]; ok {
		return j
	}
	if b.index == nil {
		b.index = map[string]int{}
	}
	j := b.addColumn(name)
	b.index[name] = j
	return j
}

// put stores cell c in column j of the current row; false when the row
// already has a value there (a duplicate key).
func (b *rowsBuilder) put(j int, c jcell) bool {
	col := b.cols[j]
	if len(col.strs) > b.rows {
		return false
	}
	for len(col.strs) < b.rows {
		col.strs = append(grow(col.strs), "")
		if col.nums != nil {
			col.nums = append(grow(col.nums), math.NaN())
		}
	}
	if c.kind == 'n' && col.nums == nil {
		col.nums = make([]float64, len(col.strs), cap(col.strs))
		for i := range col.nums {
			col.nums[i] = math.NaN()
		}
	}
	col.strs = append(grow(col.strs), c.s)
	if col.nums != nil {
		col.nums = append(grow(col.nums), c.num)
	}
	return true
}

// reserve sizes every column for about rows rows.
func (b *rowsBuilder) reserve(rows int) {
	for _, col := range b.cols {
		col.strs = slices.Grow(col.strs, rows-len(col.strs))
		if col.nums != nil {
			col.nums = slices.Grow(col.nums, rows-len(col.nums))
		}
	}
}

// grow makes room for one more cell, doubling (append grows large slices
// by only 1.25×, which allocates five times the final size on the way).
func grow[E any](s []E) []E {
	if len(s) < cap(s) {
		return s
	}
	return slices.Grow(s, max(len(s), 8))
}

// finish pads every column to the row count.
func (b *rowsBuilder) finish() {
	for _, col := range b.cols {
		for len(col.strs) < b.rows {
			col.strs = append(col.strs, "")
			if col.nums != nil {
				col.nums = append(col.nums, math.NaN())
			}
		}
	}
}

// jsonReader is a small strict JSON reader that keeps object keys in order
// and reads only what tables need: rows of scalars. It never recurses.
type jsonReader[T string | []byte] struct {
	b T
	i int
	// intern shares one copy of repeated short strings (keys, categories)
	// when reading bytes; strings read from a Go string are free substrings.
	intern map[string]string
}

// maxInterned bounds the intern table so unique values cannot grow it forever.
const maxInterned = 50_000

// newJSONReader starts reading text; byte input gets an intern table.
func newJSONReader[T string | []byte](text T) *jsonReader[T] {
	r := &jsonReader[T]{b: text}
	if _, ok := any(text).([]byte); ok {
		r.intern = make(map[string]string)
	}
	return r
}

func (r *jsonReader[T]) ws() {
	for r.i < len(r.b) {
		switch r.b[r.i] {
		case ' ', '\t', '\n', '\r':
			r.i++
		default:
			return
		}
	}
}

// syntaxError describes a JSON syntax problem at the reader's position.
func (r *jsonReader[T]) syntaxError(want string) *DataError {
	line, col := 1, 1
	for k := 0; k < r.i && k < len(r.b); k++ {
		if r.b[k] == '\n' {
			line, col = line+1, 1
		} else {
			col++
		}
	}
	if r.i >= len(r.b) {
		return dataErrorf("invalid JSON: the text ends at line %d, column %d; expected %s", line, col, want)
	}
	return dataErrorf("invalid JSON at line %d, column %d: expected %s", line, col, want)
}

func (r *jsonReader[T]) expect(c byte, want string) error {
	r.ws()
	if r.i < len(r.b) && r.b[r.i] == c {
		r.i++
		return nil
	}
	return r.syntaxError(want)
}

func (r *jsonReader[T]) peek() byte {
	r.ws()
	if r.i < len(r.b) {
		return r.b[r.i]
	}
	return 0
}

// str reads a JSON string; the reader stands on its opening quote.
func (r *jsonReader[T]) str() (string, error) {
	r.i++
	start := r.i
	esc := false
	k := start
	for {
		if k >= len(r.b) {
			r.i = k
			return "", r.syntaxError(`a closing " of the string`)
		}
		c := r.b[k]
		if c == '"' {
			break
		}
		if c == '\\' {
			esc = true
			k += 2
			continue
		}
		if c < 0x20 {
			r.i = k
			return "", r.syntaxError(`a string without raw control characters (write a line break as \n)`)
		}
		k++
	}
	if !esc {
		r.i = k + 1
		if r.intern != nil && k-start <= 64 {
			if v, ok := r.intern[string(r.b[start:k])]; ok {
				return v, nil
			}
			v := string(r.b[start:k])
			if len(r.intern) < maxInterned {
				r.intern[v] = v
			}
			return v, nil
		}
		return string(r.b[start:k]), nil
	}
	var sb strings.Builder
	sb.Grow(k - start)
	i := start
	for i < k {
		c := r.b[i]
		if c != '\\' {
			j := i
			for j < k && r.b[j] != '\\' {
				j++
			}
			writeChunk(&sb, r.b[i:j])
			i = j
			continue
		}
		if i+1 >= k {
			r.i = i
			return "", r.syntaxError("an escape sequence")
		}
		switch e := r.b[i+1]; e {
		case '"', '\\', '/':
			sb.WriteByte(e)
		case 'b':
			sb.WriteByte('\b')
		case 'f':
			sb.WriteByte('\f')
		case 'n':
			sb.WriteByte('\n')
		case 'r':
			sb.WriteByte('\r')
		case 't':
			sb.WriteByte('\t')
		case 'u':
			rn, ok := hex4(r.b, i+2, k)
			if !ok {
				r.i = i
				return "", r.syntaxError(`\u followed by four hex digits`)
			}
			i += 6
			if utf16IsHigh(rn) {
				if lo, ok := hex4(r.b, i+2, k); ok && i+1 < k && r.b[i] == '\\' && r.b[i+1] == 'u' && utf16IsLow(lo) {
					rn = 0x10000 + (rn-0xD800)<<10 + (lo - 0xDC00)
					i += 6
				} else {
					rn = utf8.RuneError
				}
			} else if utf16IsLow(rn) {
				rn = utf8.RuneError
			}
			sb.WriteRune(rn)
			continue
		default:
			r.i = i
			return "", r.syntaxError(`a valid escape (\" \\ \/ \b \f \n \r \t \uXXXX)`)
		}
		i += 2
	}
	r.i = k + 1
	return sb.String(), nil
}

// writeChunk appends raw text to sb without an intermediate copy.
func writeChunk[T string | []byte](sb *strings.Builder, s T) {
	switch v := any(s).(type) {
	case string:
		sb.WriteString(v)
	case []byte:
		sb.Write(v)
	}
}

func utf16IsHigh(r rune) bool { return r >= 0xD800 && r < 0xDC00 }
func utf16IsLow(r rune) bool  { return r >= 0xDC00 && r < 0xE000 }

func hex4[T string | []byte](b T, i, end int) (rune, bool) {
	if i+4 > end {
		return 0, false
	}
	var v rune
	for k := i; k < i+4; k++ {
		c := b[k]
		switch {
		case c >= '0' && c <= '9':
			v = v<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			v = v<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			v = v<<4 | rune(c-'A'+10)
		default:
			return 0, false
		}
	}
	return v, true
}

// number reads a JSON number literal.
func (r *jsonReader[T]) number() (T, error) {
	start, k, b := r.i, r.i, r.b
	digits := func() int {
		n := 0
		for k < len(b) && b[k] >= '0' && b[k] <= '9' {
			k++
			n++
		}
		return n
	}
	if k < len(b) && b[k] == '-' {
		k++
	}
	if k < len(b) && b[k] == '0' {
		k++
	} else if digits() == 0 {
		r.i = k
		return r.b[:0], r.syntaxError("a number")
	}
	if k < len(b) && b[k] == '.' {
		k++
		if digits() == 0 {
			r.i = k
			return r.b[:0], r.syntaxError("digits after the decimal point")
		}
	}
	if k < len(b) && (b[k] == 'e' || b[k] == 'E') {
		k++
		if k < len(b) && (b[k] == '+' || b[k] == '-') {
			k++
		}
		if digits() == 0 {
			r.i = k
			return r.b[:0], r.syntaxError("digits in the exponent")
		}
	}
	r.i = k
	return b[start:k], nil
}

func (r *jsonReader[T]) literal(word string) bool {
	if r.i+len(word) <= len(r.b) && string(r.b[r.i:r.i+len(word)]) == word {
		r.i += len(word)
		return true
	}
	return false
}

// scalar reads one cell value; where names it in errors ("row 3, \"Sales\"").
// A number's text is kept only when literal is set (header cells); cells
// keep the value, and rawCol.cell writes it out if ever needed.
func (r *jsonReader[T]) scalar(where func() string, literal bool) (jcell, error) {
	switch c := r.peek(); {
	case c == '"':
		s, err := r.str()
		return jcell{s: s, num: math.NaN(), kind: 's'}, err
	case c == '-' || (c >= '0' && c <= '9'):
		lit, err := r.number()
		if err != nil {
			return jcell{}, err
		}
		v, ok, _ := fastNum(lit)
		if !ok {
			return jcell{}, dataErrorf("%s: the number %s is out of range", where(), string(lit))
		}
		cell := jcell{num: v, kind: 'n'}
		if literal {
			cell.s = string(lit)
		}
		return cell, nil
	case c == 't' && r.literal("true"):
		return jcell{s: "true", num: math.NaN(), kind: 'b'}, nil
	case c == 'f' && r.literal("false"):
		return jcell{s: "false", num: math.NaN(), kind: 'b'}, nil
	case c == 'n' && r.literal("null"):
		return jcell{num: math.NaN(), kind: '0'}, nil
	case c == '{' || c == '[':
		return jcell{}, dataErrorf("%s: a cell must be a string, number, true, false or null, not %s", where(), jsonKindName(c))
	default:
		return jcell{}, r.syntaxError("a value")
	}
}

func jsonKindName(c byte) string {
	switch {
	case c == '{':
		return "an object"
	case c == '[':
		return "an array"
	case c == '"':
		return "a string"
	case c == 't' || c == 'f':
		return "a boolean"
	case c == 'n':
		return "null"
	case c == '-' || (c >= '0' && c <= '9'):
		return "a number"
	}
	return "invalid JSON"
}

// rows reads an array of objects or of arrays; the reader stands on '['.
func (r *jsonReader[T]) rows(lim limits) (*rowsBuilder, error) {
	r.i++
	b := &rowsBuilder{maxColumns: lim.maxColumns}
	first := r.peek()
	if first == ']' {
		return nil, dataErrorf("data is an empty array; send objects (one per row) or arrays (a header row first)")
	}
	if first != '{' && first != '[' {
		return nil, dataErrorf("data[0] is %s; each row must be an object, or an array with the header first", jsonKindName(first))
	}
	objects := first == '{'
	for n := 0; ; n++ {
		if err := lim.every(n); err != nil {
			return nil, err
		}
		c := r.peek()
		start := r.i
		switch {
		case objects && c == '{':
			if err := r.object(b, n+1); err != nil {
				return nil, err
			}
		case !objects && c == '[':
			if err := r.array(b, n); err != nil {
				return nil, err
			}
		case c == 0:
			return nil, r.syntaxError("a row")
		default:
			want := "an object like row 1"
			if !objects {
				want = "an array like the header"
			}
			return nil, dataErrorf("data[%d] is %s; every row must be %s", n, jsonKindName(c), want)
		}
		if (objects && n == 0) || (!objects && n == 1) {
			// Rows tend to look alike: size the columns from the first row.
			b.reserve((len(r.b)-start)/(r.i-start+1) + 1)
		}
		switch r.peek() {
		case ',':
			r.i++
			continue
		case ']':
			r.i++
			b.finish()
			return b, nil
		default:
			return nil, r.syntaxError("',' or ']' after a row")
		}
	}
}

// object reads one row object.
func (r *jsonReader[T]) object(b *rowsBuilder, row int) error {
	r.i++
	if r.peek() == '}' {
		r.i++
		b.rows++
		return nil
	}
	for {
		if r.peek() != '"' {
			return r.syntaxError("a key in double quotes")
		}
		key, err := r.str()
		if err != nil {
			return err
		}
		if err := r.expect(':', "':' after a key"); err != nil {
			return err
		}
		cell, err := r.scalar(func() string { return "row " + strconv.Itoa(row) + ", key " + strconv.Quote(key) }, false)
		if err != nil {
			return err
		}
		if !b.put(b.key(key), cell) {
			return dataErrorf("row %d has the key %q twice", row, key)
		}
		if err := b.tooLarge(); err != nil {
			return err
		}
		switch r.peek() {
		case ',':
			r.i++
		case '}':
			r.i++
			b.rows++
			return nil
		default:
			return r.syntaxError("',' or '}' in an object")
		}
	}
}

// array reads one row array; row 0 is the header.
func (r *jsonReader[T]) array(b *rowsBuilder, row int) error {
	r.i++
	j := 0
	where := func() string {
		if row == 0 {
			return "header cell " + strconv.Itoa(j+1)
		}
		return "row " + strconv.Itoa(row) + ", cell " + strconv.Itoa(j+1)
	}
	if r.peek() != ']' {
		for {
			cell, err := r.scalar(where, row == 0)
			if err != nil {
				return err
			}
			if row == 0 {
				b.addColumn(cell.s)
				if err := b.tooLarge(); err != nil {
					return err
				}
			} else if j < len(b.cols) {
				b.put(j, cell)
			}
			j++
			if r.peek() == ',' {
				r.i++
				continue
			}
			break
		}
	}
	if err := r.expect(']', "',' or ']' in an array"); err != nil {
		return err
	}
	if row == 0 {
		if j == 0 {
			return dataErrorf("the header row (data[0]) is empty; it must name the columns")
		}
		return nil
	}
	if j != len(b.cols) {
		return dataErrorf("row %d has %d cells, the header has %d", row, j, len(b.cols))
	}
	b.rows++
	return nil
}

// parseJSONText reads a JSON value holding the data: an array of rows, or
// (for raw messages only) a string of CSV/TSV or of JSON.
func parseJSONText[T string | []byte](text T, format string, inString bool, lim limits) (names []string, cols []*rawCol, rows int, notices []Notice, err error) {
	r := newJSONReader(text)
	if len(text) >= 3 && string(text[:3]) == "\ufeff" {
		r.i = 3
	}
	c := r.peek()
	var b *rowsBuilder
	switch {
	case c == '[':
		if format == "csv" || format == "tsv" {
			return nil, nil, 0, nil, dataErrorf("format %q needs data as a string of %s text; got an array (leave format out or use \"json\" for rows)", format, strings.ToUpper(format))
		}
		b, err = r.rows(lim)
		if err != nil {
			return nil, nil, 0, nil, err
		}
	case c == '"' && !inString:
		s, err := r.str()
		if err != nil {
			return nil, nil, 0, nil, err
		}
		if err := r.trailing(); err != nil {
			return nil, nil, 0, nil, err
		}
		if format == "json" {
			return parseJSONText(s, format, true, lim)
		}
		return parseDelimited(s, format, lim)
	case c == 0:
		return nil, nil, 0, nil, dataErrorf("data is empty")
	case c == 'n' && !inString:
		return nil, nil, 0, nil, dataErrorf("data is null; send a string of CSV or TSV, an array of objects or an array of arrays")
	case jsonKindName(c) == "invalid JSON":
		return nil, nil, 0, nil, r.syntaxError("an array of rows")
	default:
		if inString {
			return nil, nil, 0, nil, dataErrorf("the JSON data holds %s; it must be an array of objects or an array of arrays", jsonKindName(c))
		}
		return nil, nil, 0, nil, dataErrorf("data is %s; send a string of CSV or TSV, an array of objects or an array of arrays", jsonKindName(c))
	}
	if err := r.trailing(); err != nil {
		return nil, nil, 0, nil, err
	}
	return b.names, b.cols, b.rows, nil, nil
}

func (r *jsonReader[T]) trailing() error {
	if r.peek() != 0 {
		return r.syntaxError("the end of the data")
	}
	return nil
}

// goCell converts a value decoded by encoding/json into a cell.
func goCell(v any, where func() string) (jcell, error) {
	switch x := v.(type) {
	case nil:
		return jcell{num: math.NaN(), kind: '0'}, nil
	case string:
		return jcell{s: x, num: math.NaN(), kind: 's'}, nil
	case bool:
		if x {
			return jcell{s: "true", num: math.NaN(), kind: 'b'}, nil
		}
		return jcell{s: "false", num: math.NaN(), kind: 'b'}, nil
	case json.Number:
		f, err := strconv.ParseFloat(string(x), 64)
		if err != nil {
			return jcell{}, dataErrorf("%s: %q is not a usable number", where(), string(x))
		}
		return jcell{s: string(x), num: f, kind: 'n'}, nil
	case float64:
		return numCell(x, where)
	case float32:
		return numCell(float64(x), where)
	case int:
		return numCell(float64(x), where)
	case int64:
		return numCell(float64(x), where)
	case int32:
		return numCell(float64(x), where)
	case map[string]any:
		return jcell{}, dataErrorf("%s: a cell must be a string, number, true, false or null, not an object", where())
	case []any:
		return jcell{}, dataErrorf("%s: a cell must be a string, number, true, false or null, not an array", where())
	default:
		return jcell{}, dataErrorf("%s: a cell must be a string, number, true, false or null, not %T", where(), v)
	}
}

func numCell(f float64, where func() string) (jcell, error) {
	if math.IsNaN(f) || math.IsInf(f, 0) {
		return jcell{}, dataErrorf("%s: the number is not finite", where())
	}
	return jcell{s: formatNumber(f), num: f, kind: 'n'}, nil
}

// goRows reads rows decoded by encoding/json. Keys of map rows have no
// order left, so new keys of a row are added in sorted order.
func goRows(rows []any, format string, lim limits) (*rowsBuilder, error) {
	if format == "csv" || format == "tsv" {
		return nil, dataErrorf("format %q needs data as a string of %s text; got an array (leave format out or use \"json\" for rows)", format, strings.ToUpper(format))
	}
	if len(rows) == 0 {
		return nil, dataErrorf("data is an empty array; send objects (one per row) or arrays (a header row first)")
	}
	b := &rowsBuilder{maxColumns: lim.maxColumns}
	switch rows[0].(type) {
	case map[string]any:
		for n, row := range rows {
			m, ok := row.(map[string]any)
			if !ok {
				return nil, dataErrorf("data[%d] is %s; every row must be an object like row 1", n, goKindName(row))
			}
			keys := make([]string, 0, len(m))
			for k := range m {
				keys = append(keys, k)
			}
			sort.Strings(keys)
			for _, k := range keys {
				cell, err := goCell(m[k], func() string { return "row " + strconv.Itoa(n+1) + ", key " + strconv.Quote(k) })
				if err != nil {
					return nil, err
				}
				b.put(b.key(k), cell)
			}
			if err := b.tooLarge(); err != nil {
				return nil, err
			}
			b.rows++
		}
	case []any:
		for n, row := range rows {
			a, ok := row.([]any)
			if !ok {
				return nil, dataErrorf("data[%d] is %s; every row must be an array like the header", n, goKindName(row))
			}
			if n == 0 {
				if len(a) == 0 {
					return nil, dataErrorf("the header row (data[0]) is empty; it must name the columns")
				}
				for j, v := range a {
					cell, err := goCell(v, func() string { return "header cell " + strconv.Itoa(j+1) })
					if err != nil {
						return nil, err
					}
					b.addColumn(cell.s)
				}
				if err := b.tooLarge(); err != nil {
					return nil, err
				}
				continue
			}
			if len(a) != len(b.cols) {
				return nil, dataErrorf("row %d has %d cells, the header has %d", n, len(a), len(b.cols))
			}
			for j, v := range a {
				cell, err := goCell(v, func() string { return "row " + strconv.Itoa(n) + ", cell " + strconv.Itoa(j+1) })
				if err != nil {
					return nil, err
				}
				b.put(j, cell)
			}
			b.rows++
		}
	default:
		return nil, dataErrorf("data[0] is %s; each row must be an object, or an array with the header first", goKindName(rows[0]))
	}
	b.finish()
	return b, nil
}

func goKindName(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number, float64, float32, int, int64, int32:
		return "a number"
	case map[string]any:
		return "an object"
	case []any:
		return "an array"
	}
	return "a value of an unsupported type"
}
