package chartspec

import (
	"cmp"
	"math"
	"slices"
	"strconv"
	"strings"

	"chartd.dev/libs/dataset"
)

// BlankGroup names the group of rows whose group cell is blank.
const BlankGroup = "(blank)"

// ScatterGroups answers a scatter chart's groups as it draws, colours and
// lists them: the names (label(i) names row i's group; a blank one is
// BlankGroup) of the rows that have a point (x and y, and size when
// given, finite), in GroupOrder, and for each group its rows in data
// order. Without a group column there is one group, named "". The
// columns are those of the roles x, y, size and group (size and group
// may be nil) over rows rows.
func ScatterGroups(spec *Spec, x, y, size, group *dataset.Column, rows int, label func(int) string) ([]string, [][]int) {
	point := func(c *dataset.Column, i int) bool {
		if c == nil {
			return true
		}
		if c.Num == nil {
			return false
		}
		v := c.Num[i]
		return !math.IsNaN(v) && !math.IsInf(v, 0)
	}
	if x == nil || y == nil {
		return nil, nil
	}
	index := map[string]int{}
	var names []string
	var groups [][]int
	g, last := -1, ""
	for i := 0; i < rows; i++ {
		if !point(x, i) || !point(y, i) || !point(size, i) {
			continue
		}
		name := ""
		if group != nil {
			if name = label(i); name == "" {
				name = BlankGroup
			}
		}
		if g < 0 || name != last {
			var ok bool
			if g, ok = index[name]; !ok {
				g = len(names)
				index[name] = g
				names = append(names, name)
				groups = append(groups, nil)
				if group == nil {
					groups[g] = make([]int, 0, rows)
				}
			}
			last = name
		}
		groups[g] = append(groups[g], i)
	}
	if group == nil || len(names) < 2 {
		return names, groups
	}
	first := make([]int, len(names))
	for k := range names {
		first[k] = groups[k][0]
	}
	order := GroupOrder(spec, group, names, first)
	outNames := make([]string, len(order))
	outGroups := make([][]int, len(order))
	for k, o := range order {
		outNames[k], outGroups[k] = names[o], groups[o]
	}
	return outNames, outGroups
}

// GroupOrder answers the order in which a chart draws, colours and lists
// the groups of col, given their names in order of first appearance and
// the row each first appears on (first[k] for names[k]); the answer lists
// indices into names.
//
//   - When the steps put the rows in col's order (the last sort or topN
//     step is a sort by col), that order is the user's, and it is kept.
//   - Number and date groups go from low to high.
//   - Text groups whose names differ only in their numbers ("6 cylinders",
//     "4 cylinders", "8 cylinders"; "Q3 2024", "Q1 2025") go in natural
//     order: 4, 6, 8 cylinders.
//   - Other text keeps the order of first appearance, which may well be
//     meaningful ("Low", "Medium", "High").
//
// Blank groups come last in the sorted orders.
func GroupOrder(spec *Spec, col *dataset.Column, names []string, first []int) []int {
	order := make([]int, len(names))
	for k := range order {
		order[k] = k
	}
	if len(names) < 2 || spec.sortedBy(col.ID) {
		return order
	}
	blank := func(k int) bool { return names[k] == BlankGroup || names[k] == "" }
	switch {
	case col.Kind != dataset.Text && col.Num != nil:
		slices.SortStableFunc(order, func(a, b int) int {
			va, vb := col.Num[first[a]], col.Num[first[b]]
			if na, nb := math.IsNaN(va) || blank(a), math.IsNaN(vb) || blank(b); na || nb {
				return cmpBool(na, nb)
			}
			return cmp.Compare(va, vb)
		})
	case sameShape(names, blank):
		slices.SortStableFunc(order, func(a, b int) int {
			if ba, bb := blank(a), blank(b); ba || bb {
				return cmpBool(ba, bb)
			}
			return NaturalCompare(names[a], names[b])
		})
	}
	return order
}

// cmpBool orders false before true.
func cmpBool(a, b bool) int {
	switch {
	case a == b:
		return 0
	case a:
		return 1
	}
	return -1
}

// sortedBy reports whether the spec's steps leave the rows in the order of
// column id: its last step that orders rows (sort or topN) is a sort by id.
func (s *Spec) sortedBy(id string) bool {
	for i := len(s.Steps) - 1; i >= 0; i-- {
		st, err := dataset.DecodeStep(s.Steps[i])
		if err != nil {
			continue
		}
		switch st := st.(type) {
		case *dataset.SortStep:
			return st.Column == id
		case *dataset.TopNStep:
			return false
		}
	}
	return false
}

// sameShape reports whether the names (blanks aside, at least two) are one
// text with different numbers in it: equal once every number is replaced
// by a placeholder, and holding a number.
func sameShape(names []string, blank func(int) bool) bool {
	shape, n := "", 0
	for k, name := range names {
		if blank(k) {
			continue
		}
		sh, nums := numberShape(name)
		if nums == 0 || n > 0 && sh != shape {
			return false
		}
		shape = sh
		n++
	}
	return n >= 2
}

// numberShape replaces each number in s (digits, with one decimal point
// between digits) by '#', and counts them.
func numberShape(s string) (string, int) {
	var b strings.Builder
	n := 0
	for i := 0; i < len(s); {
		if j := numberEnd(s, i); j > i {
			b.WriteByte('#')
			n++
			i = j
			continue
		}
		b.WriteByte(s[i])
		i++
	}
	return b.String(), n
}

// numberEnd answers where the number starting at s[i] ends (i when none
// starts there): digits, optionally a point and more digits.
func numberEnd(s string, i int) int {
	j := i
	for j < len(s) && s[j] >= '0' && s[j] <= '9' {
		j++
	}
	if j == i {
		return i
	}
	if j+1 < len(s) && s[j] == '.' && s[j+1] >= '0' && s[j+1] <= '9' {
		j++
		for j < len(s) && s[j] >= '0' && s[j] <= '9' {
			j++
		}
	}
	return j
}

// NaturalCompare orders strings as a person reads them: numbers inside
// them by value ("4 cylinders" < "10 cylinders", "v2.5" < "v10"), the text
// between them as bytes.
func NaturalCompare(a, b string) int {
	i, j := 0, 0
	for i < len(a) && j < len(b) {
		ei, ej := numberEnd(a, i), numberEnd(b, j)
		if ei > i && ej > j {
			va, _ := strconv.ParseFloat(a[i:ei], 64)
			vb, _ := strconv.ParseFloat(b[j:ej], 64)
			if c := cmp.Compare(va, vb); c != 0 {
				return c
			}
			i, j = ei, ej
			continue
		}
		if a[i] != b[j] {
			return cmp.Compare(a[i], b[j])
		}
		i++
		j++
	}
	return cmp.Compare(len(a)-i, len(b)-j)
}
