package clients

import (
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"time"

	"chartd.dev/libs/aggregate"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/gallery"
	"chartd.dev/libs/store"
)

// Chart is the chart service's internal API: it owns each chart aggregate
// (record, spec and data).
type Chart struct{ Base }

var _ aggregate.Source = Chart{}

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

// Dataset is a chart's data as sent: its format and the raw `data` JSON
// value (a JSON string of CSV/TSV/JSON, an array of objects or of arrays).
type Dataset struct {
	Format string          `json:"format"`
	Raw    json.RawMessage `json:"raw"`
}

// ChartAggregate is a saved chart on the internal API: its record, its spec
// and, unless the caller holds that version already, its data.
type ChartAggregate struct {
	ID        string          `json:"id"`
	Name      string          `json:"name"`
	Type      string          `json:"type"`
	Spec      json.RawMessage `json:"spec"`
	Data      *Dataset        `json:"data"`
	CreatedAt time.Time       `json:"created_at"`
	UpdatedAt time.Time       `json:"updated_at"`
}

// AggregateOf is the wire form of a stored chart.
func AggregateOf(c store.Chart) ChartAggregate {
	out := ChartAggregate{ID: c.ID, Name: c.Name, Type: c.Type, Spec: c.Spec, CreatedAt: c.CreatedAt, UpdatedAt: c.UpdatedAt}
	if c.Data != nil {
		out.Data = &Dataset{Format: c.Data.Format, Raw: c.Data.Raw}
	}
	return out
}

// LoadChart loads one of p's charts in one call (see aggregate.Source).
func (c Chart) LoadChart(ctx context.Context, p auth.Principal, id, have string) (store.Chart, *chartspec.Spec, error) {
	if !aggregate.ValidID(id) {
		return store.Chart{}, nil, aggregate.NotFound(id)
	}
	path := "/internal/v1/charts/" + url.PathEscape(id)
	if have != "" {
		path += "?have=" + url.QueryEscape(have)
	}
	var a ChartAggregate
	if err := c.Do(ctx, p, http.MethodGet, path, nil, &a); err != nil {
		return store.Chart{}, nil, err
	}
	sc := store.Chart{ID: a.ID, AccountID: p.AccountID, Name: a.Name, Type: a.Type, Spec: a.Spec, CreatedAt: a.CreatedAt, UpdatedAt: a.UpdatedAt}
	if a.Data != nil {
		sc.Data = &store.Dataset{Format: a.Data.Format, Raw: a.Data.Raw}
	}
	spec, err := aggregate.DecodeSpec(sc)
	if err != nil {
		return store.Chart{}, nil, err
	}
	return sc, spec, nil
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

// Thumbnail is a saved chart drawn small for the site's chart list.
type Thumbnail struct {
	// SVG is the picture.
	SVG string `json:"svg"`
}

// Thumbnail draws one of p's charts small, as SVG, for the site's chart
// list; it counts toward none of the account's render allowances. Another
// account's chart is not_found, as on the API.
func (c Render) Thumbnail(ctx context.Context, p auth.Principal, id string) (Thumbnail, error) {
	if !aggregate.ValidID(id) {
		return Thumbnail{}, aggregate.NotFound(id)
	}
	var out Thumbnail
	err := c.Do(ctx, p, http.MethodGet, "/internal/v1/charts/"+url.PathEscape(id)+"/thumbnail", nil, &out)
	return out, err
}

// Layout is what drawing a saved chart at its own size had to cut or
// shrink: the drawing's notices (draw's codes, such as needs_more_room),
// which only the render service, holding the fonts, can measure.
type Layout struct {
	// UpdatedAt is the version of the chart drawn (its updated_at), so a
	// caller can tell a layout of the version it holds from a newer one.
	UpdatedAt time.Time `json:"updated_at"`
	// Notices are the drawing's notices, in the order it made them; empty
	// when everything fits.
	Notices []dataset.Notice `json:"notices"`
}

// Layout draws one of p's saved charts at its own size, as a render of it
// would, and answers the drawing's notices; it counts toward none of the
// account's render allowances. Another account's chart is not_found.
func (c Render) Layout(ctx context.Context, p auth.Principal, id string) (Layout, error) {
	if !aggregate.ValidID(id) {
		return Layout{}, aggregate.NotFound(id)
	}
	var out Layout
	err := c.Do(ctx, p, http.MethodGet, "/internal/v1/charts/"+url.PathEscape(id)+"/layout", nil, &out)
	return out, err
}

// Gallery answers the pictures of every example and style-op pair, drawn
// once by the render service with its font stack, for the docs and the
// home page.
func (c Render) Gallery(ctx context.Context) (*gallery.Gallery, error) {
	var out gallery.Gallery
	if err := c.Do(ctx, auth.Principal{}, http.MethodGet, "/internal/v1/gallery", nil, &out); err != nil {
		return nil, err
	}
	return &out, nil
}

// TryRequest is a drawing of pasted data for the home page's try-it box:
// a chart type and the data, as create_chart reads them.
type TryRequest struct {
	Type       string          `json:"type"`
	Data       json.RawMessage `json:"data"`
	DataFormat *string         `json:"data_format,omitempty"`
}

// TryAnswer is the try-it picture: an SVG carrying its fonts, and its
// description for alt text.
type TryAnswer struct {
	SVG         string `json:"svg"`
	Description string `json:"description"`
}

// Try draws pasted data for a visitor who has not signed in; the render
// service counts it toward no account (the site limits it per address).
func (c Render) Try(ctx context.Context, req TryRequest) (TryAnswer, error) {
	var out TryAnswer
	err := c.Do(ctx, auth.Principal{}, http.MethodPost, "/internal/v1/try", req, &out)
	return out, err
}

// Sketch is a chart drawn as SVG for the site and not saved: a new
// chart's type picture, or the editor's live preview.
type Sketch struct {
	// SVG is the picture, with its fonts embedded.
	SVG string `json:"svg"`
	// Mapping is the roles the chart was given (sketches of new data).
	Mapping chartspec.Mapping `json:"mapping,omitempty"`
	// Warnings are the lint problems of the chart sketched.
	Warnings []chartspec.Problem `json:"warnings,omitempty"`
}

// Sketch draws data as a chart of type typ with ops, small, for the
// site's new-chart page; nothing is saved and no allowance counts. data
// is the API's data value (a string of CSV or TSV, or rows).
func (c Render) Sketch(ctx context.Context, p auth.Principal, typ string, data any, format string, ops []any) (Sketch, error) {
	in := map[string]any{"type": typ, "data": data}
	if format != "" {
		in["data_format"] = format
	}
	if len(ops) > 0 {
		in["ops"] = ops
	}
	var out Sketch
	err := c.Do(ctx, p, http.MethodPost, "/internal/v1/sketch", in, &out)
	return out, err
}

// Preview draws one of p's charts with ops applied, at its own size,
// without saving them, for the editor's live preview; no allowance counts.
func (c Render) Preview(ctx context.Context, p auth.Principal, id string, ops []any) (Sketch, error) {
	if !aggregate.ValidID(id) {
		return Sketch{}, aggregate.NotFound(id)
	}
	if ops == nil {
		ops = []any{}
	}
	var out Sketch
	err := c.Do(ctx, p, http.MethodPost, "/internal/v1/charts/"+url.PathEscape(id)+"/preview", map[string]any{"ops": ops}, &out)
	return out, err
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

// PaletteOf is the reader of p's brand palette that ops call only when one
// names it (chartspec.Ops.ApplyRequest).
func (c Brand) PaletteOf(p auth.Principal) func(context.Context) ([]string, error) {
	return func(ctx context.Context) ([]string, error) { return c.Palette(ctx, p) }
}
