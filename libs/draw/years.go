package draw

import (
	"math"
	"strconv"

	"chartd.dev/libs/dataset"
)

// allYears reports value columns that all hold calendar years (a year
// column taken as numbers, dataset.Column.Years), so their values and
// ticks are written as years: "1848", never "1,848" or "1.8k".
func allYears(cols []*dataset.Column) bool {
	for _, c := range cols {
		if c == nil || !c.Years {
			return false
		}
	}
	return len(cols) > 0
}

// appendYear writes a year as its digits alone, without grouping: 1848,
// 2024; a fraction (a median between two years) keeps one decimal,
// 1987.5; a year before the common era takes the minus sign.
func appendYear(b []byte, v float64, prefix, suffix string) []byte {
	if math.IsNaN(v) || math.IsInf(v, 0) {
		return append(b, "–"...)
	}
	v = math.Round(v*10) / 10
	if v < 0 {
		b = append(b, minus...)
		v = -v
	}
	b = append(b, prefix...)
	b = strconv.AppendFloat(b, v, 'f', -1, 64)
	return append(b, suffix...)
}
