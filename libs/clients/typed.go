package clients

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"

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

// Data is the data service's internal API: it owns the datasets table.
type Data struct{ Base }

// Dataset is a chart's data as sent: its format and the raw `data` JSON
// value (a JSON string of CSV/TSV/JSON, an array of objects or of arrays).
type Dataset struct {
	Format string          `json:"format"`
	Raw    json.RawMessage `json:"raw"`
}

// PutDataset stores (or replaces) a chart's data.
func (c Data) PutDataset(ctx context.Context, p auth.Principal, chartID string, d Dataset) error {
	return c.Do(ctx, p, http.MethodPut, "/internal/v1/datasets/"+url.PathEscape(chartID), d, nil)
}

// GetDataset loads a chart's data; not_found when the chart has none.
func (c Data) GetDataset(ctx context.Context, p auth.Principal, chartID string) (Dataset, error) {
	var d Dataset
	err := c.Do(ctx, p, http.MethodGet, "/internal/v1/datasets/"+url.PathEscape(chartID), nil, &d)
	return d, err
}

// ChartSpec is a saved chart's spec as the chart service holds it.
type ChartSpec struct {
	Spec      json.RawMessage `json:"spec"`
	UpdatedAt string          `json:"updated_at"`
}

// GetSpec loads a chart's spec (for the data service's summaries and queries).
func (c Chart) GetSpec(ctx context.Context, p auth.Principal, chartID string) (ChartSpec, error) {
	var s ChartSpec
	err := c.Do(ctx, p, http.MethodGet, "/internal/v1/charts/"+url.PathEscape(chartID)+"/spec", nil, &s)
	return s, err
}

// Brand is the brand service's internal API.
type Brand struct{ Base }

// BrandPalette is an account's brand colours; nil when none are saved.
type BrandPalette struct {
	Colors []string `json:"colors"`
}

// Palette answers p's account's brand colours (nil when none).
func (c Brand) Palette(ctx context.Context, p auth.Principal) ([]string, error) {
	var out BrandPalette
	err := c.Do(ctx, p, http.MethodGet, "/internal/v1/brand-palette", nil, &out)
	return out.Colors, err
}
