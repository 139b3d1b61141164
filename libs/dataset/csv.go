package dataset

import (
	"strings"
)

// span locates one cell of the record being read inside the source text.
// A cell that had to be unescaped ("" inside quotes) lives in a side list
// instead: its end is sideMark and off is the index into that list.
type span struct{ off, end uint32 }

const sideMark = ^uint32(0)

// maxTextInput keeps offsets inside uint32; the service limits are far lower.
const maxTextInput = 1<<31 - 1

// rawCol holds one column's cells as read, before kinds are detected.
// Delimited text fills starts: each cell is the offset where it starts in
// src (its end is found again on reading, which costs less than storing
// it), or, with sideFlag set, an index into side for cells that had to be
// unescaped. JSON fills strs and, for cells that were JSON numbers, nums
// (NaN where the cell was not a number).
type rawCol struct {
	src    string
	delim  byte
	starts []uint32
	side   *[]string
	strs   []string
	nums   []float64
}

// sideFlag marks a start that indexes the side list.
const sideFlag = 1 << 31

// cell returns cell i as read (quotes removed, white space around an
// unquoted cell dropped); a JSON number is written out from its value.
func (r *rawCol) cell(i int) string {
	if r.starts == nil {
		if r.nums != nil && r.nums[i] == r.nums[i] {
			return formatNumber(r.nums[i])
		}
		return r.strs[i]
	}
	off := r.starts[i]
	if off&sideFlag != 0 {
		return (*r.side)[off&^sideFlag]
	}
	s, k := r.src, int(off)
	if k >= len(s) {
		return ""
	}
	if s[k] == '"' {
		q := strings.IndexByte(s[k+1:], '"')
		return s[k+1 : k+1+q]
	}
	end := k
	for end < len(s) {
		c := s[end]
		if c == r.delim || c == '\n' || c == '\r' {
			break
		}
		end++
	}
	for end > k && isSpace(s[end-1], r.delim) {
		end--
	}
	return s[k:end]
}

// native returns the value of a cell that was a JSON number.
func (r *rawCol) native(i int) (float64, bool) {
	if r.nums == nil {
		return 0, false
	}
	v := r.nums[i]
	return v, v == v
}

// csvScanner reads delimited text record by record, one pass over the bytes.
type csvScanner struct {
	s     string
	delim byte
	i     int
	line  int // 1-based line of the next record's start
	// per record, reused
	fields []span
	starts []uint32 // what a rawCol stores for each field
	quoted []bool
	side   []string
}

func isSpace(c byte, delim byte) bool {
	return c == ' ' || (c == '\t' && delim != '\t')
}

// record reads the next record into sc.fields. It returns false at the end.
func (sc *csvScanner) record() (bool, error) {
	s, n, delim := sc.s, len(sc.s), sc.delim
	if sc.i >= n {
		return false, nil
	}
	sc.fields = sc.fields[:0]
	sc.starts = sc.starts[:0]
	sc.quoted = sc.quoted[:0]
	startLine := sc.line
	i := sc.i
	for {
		k := i
		for k < n && isSpace(s[k], delim) {
			k++
		}
		if k < n && s[k] == '"' {
			k++
			start := k
			esc := false
			for {
				q := strings.IndexByte(s[k:], '"')
				if q < 0 {
					return false, dataErrorf("a quoted cell that starts on line %d is never closed; end it with a double quote", startLine)
				}
				k += q
				if k+1 < n && s[k+1] == '"' {
					esc = true
					k += 2
					continue
				}
				break
			}
			end := k
			sc.line += strings.Count(s[start:end], "\n")
			k++
			for k < n && isSpace(s[k], delim) {
				k++
			}
			if k < n && s[k] != delim && s[k] != '\n' && s[k] != '\r' {
				return false, dataErrorf("line %d, cell %d: text follows the closing quote; write a double quote inside a quoted cell as \"\"", sc.line, len(sc.fields)+1)
			}
			if esc {
				sc.side = append(sc.side, strings.ReplaceAll(s[start:end], `""`, `"`))
				sc.fields = append(sc.fields, span{uint32(len(sc.side) - 1), sideMark})
			} else {
				sc.fields = append(sc.fields, span{uint32(start), uint32(end)})
			}
			sc.starts = append(sc.starts, uint32(start-1))
			sc.quoted = append(sc.quoted, true)
			i = k
		} else {
			start := k
			for k < n {
				c := s[k]
				if c == delim || c == '\n' || c == '\r' {
					break
				}
				k++
			}
			end := k
			for end > start && isSpace(s[end-1], delim) {
				end--
			}
			sc.fields = append(sc.fields, span{uint32(start), uint32(end)})
			sc.starts = append(sc.starts, uint32(start))
			sc.quoted = append(sc.quoted, false)
			i = k
		}
		if i >= n {
			break
		}
		c := s[i]
		i++
		if c == delim {
			continue
		}
		if c == '\r' && i < n && s[i] == '\n' {
			i++
		}
		sc.line++
		break
	}
	sc.i = i
	return true, nil
}

// blank reports whether the last record was an empty line.
func (sc *csvScanner) blank() bool {
	return len(sc.fields) == 1 && !sc.quoted[0] && sc.fields[0].off == sc.fields[0].end
}

// text returns field j of the last record.
func (sc *csvScanner) text(j int) string {
	sp := sc.fields[j]
	if sp.end == sideMark {
		return sc.side[sp.off]
	}
	return sc.s[sp.off:sp.end]
}

// detectDelimiter picks the delimiter that splits the first lines into the
// same, largest number of fields. format "tsv" forces a tab.
func detectDelimiter(s string, format string) byte {
	if format == "tsv" {
		return '\t'
	}
	best, bestCount, bestConsistent := byte(','), 1, false
	for _, d := range []byte{'\t', ';', ','} {
		counts := fieldCounts(s, d, 20)
		if len(counts) == 0 || counts[0] < 2 {
			continue
		}
		consistent := true
		for _, c := range counts[1:] {
			if c != counts[0] {
				consistent = false
				break
			}
		}
		switch {
		case consistent && !bestConsistent,
			consistent == bestConsistent && counts[0] > bestCount:
			best, bestCount, bestConsistent = d, counts[0], consistent
		}
	}
	return best
}

// fieldCounts counts fields per record for the first maxLines non-empty
// records, honouring quotes.
func fieldCounts(s string, d byte, maxLines int) []int {
	var counts []int
	fields, inQuote, empty := 1, false, true
	for i := 0; i < len(s) && len(counts) < maxLines; i++ {
		c := s[i]
		switch {
		case c == '"':
			inQuote = !inQuote
			empty = false
		case inQuote:
		case c == d:
			fields++
			empty = false
		case c == '\n' || c == '\r':
			if !empty {
				counts = append(counts, fields)
			}
			fields, empty = 1, true
		case c != ' ':
			empty = false
		}
	}
	if !empty && len(counts) < maxLines {
		counts = append(counts, fields)
	}
	return counts
}

// parseDelimited reads CSV or TSV text with a header row into raw columns.
// More header cells than lim allows is a *ColumnLimitError; lim's context
// ending stops the reading.
func parseDelimited(s string, format string, lim limits) (names []string, cols []*rawCol, rows int, notices []Notice, err error) {
	s = strings.TrimPrefix(s, "\ufeff")
	if len(s) > maxTextInput {
		return nil, nil, 0, nil, dataErrorf("data is larger than 2 GiB")
	}
	if strings.TrimSpace(s) == "" {
		return nil, nil, 0, nil, dataErrorf("data is empty; send a header row and data rows")
	}
	if format == "" {
		if t := strings.TrimLeft(s, " \t\r\n"); t[0] == '[' || t[0] == '{' {
			notices = append(notices, Notice{Code: NoticeLooksLikeJSON,
				Message: `the data looks like JSON but was read as CSV; send "format": "json" to read it as JSON`})
		}
	}
	sc := &csvScanner{s: s, delim: detectDelimiter(s, format), line: 1}
	// skip blank lines before the header
	for {
		ok, err := sc.record()
		if err != nil {
			return nil, nil, 0, nil, err
		}
		if !ok {
			return nil, nil, 0, nil, dataErrorf("data is empty; send a header row and data rows")
		}
		if !sc.blank() {
			break
		}
	}
	ncols := len(sc.fields)
	if err := lim.columns(ncols); err != nil {
		return nil, nil, 0, nil, err
	}
	names = make([]string, ncols)
	for j := range names {
		names[j] = sc.text(j)
	}
	// Pre-size the columns. A row of ncols cells takes at least ncols bytes,
	// which bounds the estimate (and the memory) for very wide headers.
	est := min(strings.Count(s[sc.i:], "\n")+1, (len(s)-sc.i)/ncols+1)
	cols = make([]*rawCol, ncols)
	for j := range cols {
		cols[j] = &rawCol{src: s, delim: sc.delim, starts: make([]uint32, 0, est), side: &sc.side}
	}
	pendingBlank, skipped := 0, 0
	for {
		line := sc.line
		ok, err := sc.record()
		if err != nil {
			return nil, nil, 0, nil, err
		}
		if !ok {
			break
		}
		if err := lim.every(rows); err != nil {
			return nil, nil, 0, nil, err
		}
		if sc.blank() {
			pendingBlank++
			continue
		}
		if pendingBlank > 0 {
			if ncols == 1 {
				for ; pendingBlank > 0; pendingBlank-- {
					cols[0].starts = append(cols[0].starts, uint32(len(s))) // reads as ""

					rows++
				}
			} else {
				skipped += pendingBlank
			}
			pendingBlank = 0
		}
		if len(sc.fields) != ncols {
			return nil, nil, 0, nil, dataErrorf("row %d (line %d) has %d cells, the header has %d", rows+skipped+1, line, len(sc.fields), ncols)
		}
		for j, sp := range sc.fields {
			if sp.end == sideMark {
				cols[j].starts = append(cols[j].starts, sp.off|sideFlag)
			} else {
				cols[j].starts = append(cols[j].starts, sc.starts[j])
			}
		}
		rows++
	}
	if skipped > 0 {
		notices = append(notices, Notice{Code: NoticeBlankLines,
			Message: plural(skipped, "blank line was", "blank lines were") + " skipped"})
	}
	return names, cols, rows, notices, nil
}
