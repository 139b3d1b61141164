package gateway

import (
	"context"
	"fmt"

	"golang.org/x/sync/errgroup"

	"chartd.dev/libs/auth"
	"chartd.dev/libs/plan"
	"chartd.dev/libs/quota"
	"chartd.dev/libs/route"
)

// Allowance is one counted allowance of the account record.
type Allowance struct {
	Limit           int `json:"limit"`
	Left            int `json:"left"`
	ResetsInSeconds int `json:"resets_in_seconds"`
}

// SavedCharts is the saved-chart allowance.
type SavedCharts struct {
	Used  int `json:"used"`
	Limit int `json:"limit"`
}

// AccountRecord is the get_account answer (spec §2 "Account record").
type AccountRecord struct {
	Plan         string      `json:"plan" enum:"free,pro"`
	SavedCharts  SavedCharts `json:"saved_charts"`
	Requests     Allowance   `json:"requests"`
	Renders      Allowance   `json:"renders"`
	ImageRenders Allowance   `json:"image_renders"`
}

// getAccount answers the record from the real counters: the limiter state
// of this very request, the chart service's count and the render service's
// counters.
func (g *Gateway) getAccount(ctx context.Context, _ auth.Principal, _ route.None) (AccountRecord, error) {
	c, ok := ctx.Value(callerKey{}).(caller)
	if !ok {
		return AccountRecord{}, fmt.Errorf("get_account reached without a caller")
	}
	p, res := c.p, c.limit
	lim := plan.LimitsOf(p.Plan)
	var used int
	var usage struct{ renders, images int }
	eg, ctx := errgroup.WithContext(ctx)
	eg.Go(func() error {
		n, err := g.deps.Charts.CountCharts(ctx, p)
		if err != nil {
			return fmt.Errorf("count charts: %w", err)
		}
		used = n
		return nil
	})
	eg.Go(func() error {
		u, err := g.deps.Renders.Usage(ctx, p)
		if err != nil {
			if ctx.Err() != nil {
				return fmt.Errorf("render usage: %w", err)
			}
			// The render service owns the counters; while it is away the
			// usage is unknown for a moment, not an error: the record
			// shows the whole allowance, as before the first render.
			g.log.WarnContext(ctx, "get_account: render usage unknown while the render service is away", "err", err)
			return nil
		}
		usage.renders, usage.images = u.Renders, u.ImageRenders
		return nil
	})
	if err := eg.Wait(); err != nil {
		return AccountRecord{}, err
	}
	now := g.deps.Now()
	return AccountRecord{
		Plan:         p.Plan,
		SavedCharts:  SavedCharts{Used: used, Limit: lim.SavedCharts},
		Requests:     Allowance{Limit: res.Limit, Left: max(res.Remaining, 0), ResetsInSeconds: quota.CeilSeconds(res.ResetAfter)},
		Renders:      Allowance{Limit: lim.DailyRenders, Left: max(lim.DailyRenders-usage.renders, 0), ResetsInSeconds: quota.CeilSeconds(quota.Day.Reset(now))},
		ImageRenders: Allowance{Limit: lim.MonthlyImages, Left: max(lim.MonthlyImages-usage.images, 0), ResetsInSeconds: quota.CeilSeconds(quota.Month.Reset(now))},
	}, nil
}
