// Package plan holds the allowances of each plan (DESIGN §7), so the
// gateway, the chart service and the render service read one table.
package plan

import (
	"fmt"
	"time"
)

// The plan ids.
const (
	Free = "free"
	Pro  = "pro"
)

// Limits are one plan's allowances.
type Limits struct {
	// RequestsPerMinute is the GCRA allowance per account.
	RequestsPerMinute int
	// DailyRenders counts render_chart calls per UTC day.
	DailyRenders int
	// MonthlyImages counts distinct pictures per UTC month.
	MonthlyImages int
	// SavedCharts is the most charts an account can hold.
	SavedCharts int
	// LinkDesigns is the most distinct designs (a chart's spec and drawn
	// columns) the account's data image links may keep.
	LinkDesigns int
	// DataLinks is the most data image links (links made with data, each
	// a stored row) the account may keep; rotating or revoking its signing
	// key frees the room of the links that key signed.
	DataLinks int
	// BrandLookups is website palette extractions per UTC day (0: not allowed).
	BrandLookups int
	// BrandPalette tells whether the plan may save a brand palette.
	BrandPalette bool
}

// Of answers the limits of a plan id.
func Of(id string) (Limits, error) {
	switch id {
	case Free:
		return Limits{RequestsPerMinute: 120, DailyRenders: 500, MonthlyImages: 100, SavedCharts: 25, LinkDesigns: 250, DataLinks: 1000}, nil
	case Pro:
		return Limits{RequestsPerMinute: 1200, DailyRenders: 10000, MonthlyImages: 1000, SavedCharts: 10000, LinkDesigns: 25000, DataLinks: 100000, BrandLookups: 20, BrandPalette: true}, nil
	}
	return Limits{}, fmt.Errorf("unknown plan %q; the plans are free and pro", id)
}

// LimitsOf is Of for ids already validated (stored accounts); unknown ids get
// the free plan's limits, the safe side.
func LimitsOf(id string) Limits {
	l, err := Of(id)
	if err != nil {
		l, _ = Of(Free)
	}
	return l
}

// Valid tells whether id names a plan.
func Valid(id string) bool {
	_, err := Of(id)
	return err == nil
}

// RequestPeriod is the window of RequestsPerMinute.
const RequestPeriod = time.Minute
