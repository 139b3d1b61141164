package dataset

import (
	"math"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// floatKey maps a float64 to a uint64 whose unsigned order is the numeric
// order (-0 and 0 share a key).
func floatKey(v float64) uint64 {
	if v == 0 {
		v = 0
	}
	b := math.Float64bits(v)
	if b>>63 == 1 {
		return ^b
	}
	return b | 1<<63
}

// radixSort sorts keys ascending, carrying idx along; it is stable. It
// reorders both slices in place and skips byte positions all keys share.
func radixSort(keys []uint64, idx []int32) {
	n := len(keys)
	if n < 2 {
		return
	}
	if n < 256 {
		insertionSort(keys, idx)
		return
	}
	var counts [8][256]int
	for _, k := range keys {
		for d := 0; d < 8; d++ {
			counts[d][byte(k>>(8*d))]++
		}
	}
	tmpK := make([]uint64, n)
	tmpI := make([]int32, n)
	src, dst := keys, tmpK
	srcI, dstI := idx, tmpI
	for d := 0; d < 8; d++ {
		c := &counts[d]
		if c[byte(src[0]>>(8*d))] == n {
			continue
		}
		var off [256]int
		sum := 0
		for b := 0; b < 256; b++ {
			off[b] = sum
			sum += c[b]
		}
		shift := uint(8 * d)
		for i, k := range src {
			b := byte(k >> shift)
			p := off[b]
			off[b]++
			dst[p] = k
			dstI[p] = srcI[i]
		}
		src, dst = dst, src
		srcI, dstI = dstI, srcI
	}
	if &src[0] != &keys[0] {
		copy(keys, src)
		copy(idx, srcI)
	}
}

func insertionSort(keys []uint64, idx []int32) {
	for i := 1; i < len(keys); i++ {
		k, x := keys[i], idx[i]
		j := i
		for j > 0 && keys[j-1] > k {
			keys[j], idx[j] = keys[j-1], idx[j-1]
			j--
		}
		keys[j], idx[j] = k, x
	}
}

// compareText orders text for people: case-insensitively first, then by
// bytes so the order is total.
func compareText(a, b string) int {
	for i, j := 0, 0; ; {
		if i == len(a) || j == len(b) {
			switch {
			case i == len(a) && j == len(b):
				return strings.Compare(a, b)
			case i == len(a):
				return -1
			default:
				return 1
			}
		}
		ca, cb := a[i], b[j]
		if ca < utf8.RuneSelf && cb < utf8.RuneSelf {
			if 'A' <= ca && ca <= 'Z' {
				ca += 'a' - 'A'
			}
			if 'A' <= cb && cb <= 'Z' {
				cb += 'a' - 'A'
			}
			if ca != cb {
				if ca < cb {
					return -1
				}
				return 1
			}
			i, j = i+1, j+1
			continue
		}
		ra, wa := utf8.DecodeRuneInString(a[i:])
		rb, wb := utf8.DecodeRuneInString(b[j:])
		ra, rb = unicode.ToLower(ra), unicode.ToLower(rb)
		if ra != rb {
			if ra < rb {
				return -1
			}
			return 1
		}
		i, j = i+wa, j+wb
	}
}

// textRanks gives every row of a text column the rank (from 1) of its value
// in compareText order; blanks get 0.
func textRanks(vals []string) (ranks []uint32, distinct []string) {
	ids := make(map[string]uint32)
	ranks = make([]uint32, len(vals))
	last, lastID := "", uint32(0)
	for i, v := range vals {
		if v == "" {
			continue
		}
		if v == last {
			ranks[i] = lastID
			continue
		}
		id, ok := ids[v]
		if !ok {
			distinct = append(distinct, v)
			id = uint32(len(distinct))
			ids[v] = id
		}
		ranks[i], last, lastID = id, v, id
	}
	order := make([]int, len(distinct))
	for i := range order {
		order[i] = i
	}
	slices.SortFunc(order, func(a, b int) int { return compareText(distinct[a], distinct[b]) })
	rankOf := make([]uint32, len(distinct)+1)
	for r, i := range order {
		rankOf[i+1] = uint32(r + 1)
	}
	for i, id := range ranks {
		ranks[i] = rankOf[id]
	}
	return ranks, distinct
}

// sortedOrder returns row indices ordered by column c (stable; blanks last
// in either direction).
func sortedOrder(c *Column, rows int, desc bool) []int32 {
	keys := make([]uint64, 0, rows)
	idx := make([]int32, 0, rows)
	var blanks []int32
	if c.Kind == Text {
		ranks, _ := textRanks(c.Text[:rows])
		for i, r := range ranks {
			if r == 0 {
				blanks = append(blanks, int32(i))
				continue
			}
			k := uint64(r)
			if desc {
				k = ^k
			}
			keys = append(keys, k)
			idx = append(idx, int32(i))
		}
	} else {
		for i, v := range c.Num[:rows] {
			if v != v {
				blanks = append(blanks, int32(i))
				continue
			}
			k := floatKey(v)
			if desc {
				k = ^k
			}
			keys = append(keys, k)
			idx = append(idx, int32(i))
		}
	}
	radixSort(keys, idx)
	return append(idx, blanks...)
}

// gatherColumn copies the rows idx of c into a new column with c's id and metadata.
func gatherColumn(c *Column, idx []int32) *Column {
	out := *c
	if c.Kind == Text {
		out.Text = make([]string, len(idx))
		for k, i := range idx {
			out.Text[k] = c.Text[i]
		}
		out.Num = nil
	} else {
		out.Num = make([]float64, len(idx))
		for k, i := range idx {
			out.Num[k] = c.Num[i]
		}
		out.Text = nil
	}
	return &out
}

// gather builds the table of rows idx of t, columns and ids unchanged.
func gather(t *Table, idx []int32) *Table {
	out := derive(t, len(idx))
	out.Columns = make([]*Column, len(t.Columns))
	for j, c := range t.Columns {
		out.Columns[j] = gatherColumn(c, idx)
	}
	return out
}
