package clients

import (
	"context"
	"net/http"

	"chartd.dev/libs/auth"
)

// Chart is the chart service's internal API.
type Chart struct{ Base }

// ChartCount is the answer of the chart count call.
type ChartCount struct {
	Used int `json:"used"`
}

// CountCharts answers how many charts p's account holds.
func (c Chart) CountCharts(ctx context.Context, p auth.Principal) (int, error) {
	var out ChartCount
	err := c.Do(ctx, p, http.MethodGet, "/internal/v1/charts/count", nil, &out)
	return out.Used, err
}

// Render is the render service's internal API.
type Render struct{ Base }

// Usage is an account's render counters in their current windows.
type Usage struct {
	// Renders counts render_chart calls today (UTC).
	Renders int `json:"renders"`
	// ImageRenders counts distinct pictures this month (UTC).
	ImageRenders int `json:"image_renders"`
}

// Usage answers p's account's render counters.
func (c Render) Usage(ctx context.Context, p auth.Principal) (Usage, error) {
	var out Usage
	err := c.Do(ctx, p, http.MethodGet, "/internal/v1/usage", nil, &out)
	return out, err
}
