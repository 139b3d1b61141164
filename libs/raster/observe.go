package raster

import (
	"context"
	"strconv"
	"strings"

	cdpbrowser "github.com/chromedp/cdproto/browser"
	"github.com/chromedp/cdproto/cdp"
	"github.com/chromedp/chromedp"
	"go.opentelemetry.io/otel/attribute"
	"go.opentelemetry.io/otel/codes"
	"go.opentelemetry.io/otel/trace"
)

// Causes are why browsers restart, the keys of Stats.RestartsBy: a
// crash or exit nobody asked for, recycling after RecycleRenders or past
// RecycleMiB, and a render or tidy that failed or was abandoned on it.
var Causes = [...]string{"crash", "recycle_renders", "recycle_memory", "failure"}

// causeOf maps retire's reason to its index in Causes.
func causeOf(why string) int {
	switch {
	case why == "exited":
		return 0
	case why == "recycled after its renders":
		return 1
	case why == "recycled for its memory":
		return 2
	default:
		return 3
	}
}

// endSpan ends s, marking it failed with err.
func endSpan(s trace.Span, err error) {
	if err != nil {
		s.RecordError(err)
		s.SetStatus(codes.Error, strings.SplitN(err.Error(), "\n", 2)[0])
	}
	s.End()
}

func browserAttr(id int) attribute.KeyValue {
	return attribute.String("chromium.browser", strconv.Itoa(id))
}

// readVersion asks a started browser its product string once.
func (b *browser) readVersion() {
	if b.p.Version() != "" {
		return
	}
	v, err := chromedp.Run(b.ctx, func(ctx context.Context, t *chromedp.Target) (cdpbrowser.GetVersionResult, error) {
		return cdp.Call(ctx, t, cdpbrowser.GetVersion, cdp.Empty{})
	})
	if err != nil {
		b.p.log.Debug("Chromium version unread", "err", err)
		return
	}
	b.p.version.Store(v.Product)
}
