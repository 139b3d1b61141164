package draw

import (
	"time"

	"chartd.dev/libs/dataset"
)

// NoticePeriodGaps is the code of the notice saying a line breaks where
// periods of a regular date series are missing.
const NoticePeriodGaps = "missing_periods"

// periodBreaks applies one gap rule to a line over a regular date series
// (monthly, quarterly, yearly): where periods are missing, the line
// breaks, as it does at a blank cell, instead of bridging them with a
// straight segment that reads as measured. The series' step is its most
// common step in months (1, 3, 12, or 3 for quarters given as months); a
// step of more than 1.5 of it misses periods. It answers, per position
// of order, whether the line breaks before that row, and how many such
// gaps and missing periods there are, with the first gap's ends; nil
// when none, or when x is not such a series (days and times: weekends
// and market holidays are no missing data).
func periodBreaks(x *dataset.Column, order []int) (breaks []bool, gaps, missing int, from, to float64) {
	if x.Kind != dataset.Date || len(order) < 3 {
		return nil, 0, 0, 0, 0
	}
	switch x.DateUnit {
	case dataset.UnitMonth, dataset.UnitQuarter, dataset.UnitYear:
	default:
		return nil, 0, 0, 0, 0
	}
	months := func(k int) int {
		a, b := time.UnixMilli(int64(x.Num[order[k-1]])).UTC(), time.UnixMilli(int64(x.Num[order[k]])).UTC()
		return (b.Year()-a.Year())*12 + int(b.Month()) - int(a.Month())
	}
	count := map[int]int{}
	step, most := 0, 0
	for k := 1; k < len(order); k++ {
		m := months(k)
		if m <= 0 {
			continue
		}
		count[m]++
		if count[m] > most || count[m] == most && m < step {
			step, most = m, count[m]
		}
	}
	if step == 0 {
		return nil, 0, 0, 0, 0
	}
	for k := 1; k < len(order); k++ {
		m := months(k)
		if 2*m <= 3*step {
			continue
		}
		if breaks == nil {
			breaks = make([]bool, len(order))
			from, to = x.Num[order[k-1]], x.Num[order[k]]
		}
		breaks[k] = true
		gaps++
		missing += (m+step/2)/step - 1
	}
	return breaks, gaps, missing, from, to
}
