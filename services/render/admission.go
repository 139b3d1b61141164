package render

import (
	"context"
	"errors"
	"sync/atomic"
	"time"

	"golang.org/x/sync/semaphore"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/draw"
)

// admission bounds the memory of the drawings in flight. Each render
// estimates what its steps and drawing will hold (drawCost) and takes that
// many MiB from a weighted semaphore of -render.draw-budget-mib before it
// starts, so a burst of large charts is drawn a few at a time instead of
// all at once (8 renders of a 1M-cell chart peaked at 1.3 GB), while small
// charts, which cost 1 MiB, pass as before.
type admission struct {
	sem      *semaphore.Weighted
	capacity int64
	// wait bounds the time a render waits for its share; past it the
	// answer is the busy fleet's 429.
	wait time.Duration
	// busy counts the renders refused for want of draw memory.
	busy atomic.Int64
}

func newAdmission(budgetMiB int, wait time.Duration) *admission {
	capacity := int64(max(budgetMiB, 1))
	return &admission{sem: semaphore.NewWeighted(capacity), capacity: capacity, wait: wait}
}

// drawCost is the estimated peak, in MiB, of drawing table t: the table
// once more for the steps' output, and again for what drawing derives from
// it (sorted values, labels, row indexes), plus the document itself, which
// draw keeps near the canvas's size whatever the rows, plus its marks: a
// chart draws up to one mark per numeric cell, aggregation keeping each
// column to about its pixels (at most draw.MaxSide), and a mark holds ~160 bytes while
// the SVG is built (measured: a 1000×1000-cell bar chart, 641,000 bars,
// peaked 190 MB above idle; eight at once 880 MB when counted by their
// tables alone).
func drawCost(t *dataset.Table) int64 {
	bytes, numeric := int64(0), int64(0)
	for _, c := range t.Columns {
		if c.Kind != dataset.Text {
			bytes += 8 * int64(t.Rows)
			numeric++
			continue
		}
		for _, s := range c.Text[:t.Rows] {
			bytes += 16 + int64(len(s))
		}
	}
	const mib = 1 << 20
	marks := min(int64(t.Rows), draw.MaxSide) * numeric
	return (3*bytes + 160*marks + 2*mib + mib - 1) / mib
}

// acquire takes cost MiB (at most the whole budget, so the largest render
// still runs, alone) and answers the function that gives them back.
func (a *admission) acquire(ctx context.Context, cost int64) (func(), error) {
	w := min(max(cost, 1), a.capacity)
	wctx, cancel := context.WithTimeout(ctx, a.wait)
	defer cancel()
	if err := a.sem.Acquire(wctx, w); err != nil {
		if ctx.Err() != nil {
			return nil, ctx.Err()
		}
		if errors.Is(err, context.DeadlineExceeded) {
			a.busy.Add(1)
			return nil, &apierr.Error{Code: apierr.RateLimited, RetryAfter: busyRetry,
				Message: "the render fleet is busy drawing large charts; try again in a few seconds"}
		}
		return nil, err
	}
	return func() { a.sem.Release(w) }, nil
}
