package chart

import (
	"context"
	"errors"
	"time"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/clients"
)

// saved names the stored version of a chart that lint describes: the
// layout problems are those of a drawing of that version.
type saved struct {
	p         auth.Principal
	id        string
	updatedAt time.Time
}

// layoutAnswer is what the render service answered for a layout.
type layoutAnswer struct {
	layout clients.Layout
	err    error
}

// startLayout asks the render service, in the background, to draw the
// saved chart v and answers a function that waits for its layout problems
// (chartspec.LayoutProblems) at most cfg.LayoutTimeout in all. Anything
// short of an answer for v's version (render away, slow, failing, or a
// newer version drawn) is logged and leaves the layout problems out: lint
// is never refused for them.
func (s *Service) startLayout(ctx context.Context, v saved) func() []Problem {
	if s.deps.Layouts == nil || v.id == "" {
		return func() []Problem { return nil }
	}
	ctx, cancel := context.WithTimeout(ctx, s.cfg.LayoutTimeout)
	answers := make(chan layoutAnswer, 1)
	go func() {
		l, err := s.deps.Layouts.Layout(ctx, v.p, v.id)
		answers <- layoutAnswer{l, err}
	}()
	return func() []Problem {
		defer cancel()
		var a layoutAnswer
		select {
		case a = <-answers:
		case <-ctx.Done():
			// The call may not heed ctx (a handler run in this process);
			// its goroutine ends on its own and its answer is dropped.
			a.err = ctx.Err()
		}
		if a.err != nil {
			s.layoutLeftOut(ctx, v, a.err)
			return nil
		}
		if !a.layout.UpdatedAt.Truncate(time.Microsecond).Equal(v.updatedAt.Truncate(time.Microsecond)) {
			s.deps.Log.DebugContext(ctx, "lint: layout problems left out: the render service drew another version of the chart",
				"chart", v.id, "linted", v.updatedAt, "drawn", a.layout.UpdatedAt)
			return nil
		}
		return chartspec.LayoutProblems(a.layout.Notices)
	}
}

// layoutLeftOut logs why lint answers without its layout problems: a
// chart that cannot be drawn (its other problems say why) or is gone
// quietly, the render service away, slow or failing as a warning.
func (s *Service) layoutLeftOut(ctx context.Context, v saved, err error) {
	var ae *apierr.Error
	switch {
	case errors.As(err, &ae) && (ae.Code == apierr.InvalidRequest || ae.Code == apierr.NotFound):
		s.deps.Log.DebugContext(ctx, "lint: layout problems left out: the render service refused the drawing", "chart", v.id, "code", ae.Code, "error", err)
	case errors.Is(err, context.DeadlineExceeded):
		s.deps.Log.WarnContext(ctx, "lint: layout problems left out: the render service did not answer in time", "chart", v.id, "timeout", s.cfg.LayoutTimeout)
	case errors.Is(err, context.Canceled):
		// The client has gone; lint answers nobody.
	default:
		s.deps.Log.WarnContext(ctx, "lint: layout problems left out: the render service is unreachable or failed", "chart", v.id, "error", err)
	}
}
