package render

import (
	"context"
	"encoding/json"

	"github.com/go-json-experiment/json/jsontext"

	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/clients"
)

// SketchRequest is the body of the internal sketch call: a chart type
// and data, drawn as create_chart would make the chart.
type SketchRequest struct {
	Type       string            `json:"type"`
	Data       jsontext.Value    `json:"data"`
	DataFormat *string           `json:"data_format"`
	Ops        []json.RawMessage `json:"ops"`
}

// sketch draws data as a chart of one type, small and as SVG, for the
// site's new-chart page (which type suits this data?), and answers the
// roles the chart was given and its lint problems. Like a thumbnail it counts toward no
// allowance: choosing a type is not drawing charts; the gateway limits
// the site's calls per client address.
func (s *Service) sketch(ctx context.Context, p auth.Principal, req SketchRequest) (clients.Sketch, error) {
	spec, t, err := s.newFromData(ctx, req.Type, req.Data, req.DataFormat)
	if err != nil {
		return clients.Sketch{}, err
	}
	if spec, err = s.deps.Ops.ApplyRequest(ctx, spec, req.Ops, t, s.deps.Brand.PaletteOf(p)); err != nil {
		return clients.Sketch{}, err
	}
	o := imageOptions{format: "svg", scale: 1, name: "sketch", fonts: fontsEmbedded}
	o.width, o.height = thumbnailSize(spec)
	pic, err := s.makePicture(ctx, pictureJob{p: p, spec: spec, table: t, o: o})
	if err != nil {
		return clients.Sketch{}, err
	}
	// The checks the chart would get on create_chart (no steps yet, so
	// the table as read is the table drawn).
	warnings, err := chartspec.LintContext(ctx, spec, t, chartspec.LintEnv{Catalog: s.deps.Catalog})
	if err != nil {
		return clients.Sketch{}, err
	}
	return clients.Sketch{SVG: string(pic.body), Mapping: spec.Mapping, Warnings: warnings}, nil
}

// PreviewRequest is the body of the internal preview call: ops tried on
// a saved chart and not saved.
type PreviewRequest struct {
	ID  string            `path:"id" json:"-"`
	Ops []json.RawMessage `json:"ops"`
}

// preview draws a saved chart with ops applied and nothing saved, as SVG
// with its fonts embedded at the chart's own size, for the editor's live
// preview: every edit is drawn before the person saves it. It counts
// toward no allowance (a person editing is not drawing charts; saved
// pictures and downloads count as before).
func (s *Service) preview(ctx context.Context, p auth.Principal, req PreviewRequest) (clients.Sketch, error) {
	spec, t, err := s.loadSaved(ctx, p, req.ID)
	if err != nil {
		return clients.Sketch{}, err
	}
	if spec, err = s.deps.Ops.ApplyRequest(ctx, spec, req.Ops, t, s.deps.Brand.PaletteOf(p)); err != nil {
		return clients.Sketch{}, err
	}
	pic, err := s.makePicture(ctx, pictureJob{p: p, spec: spec, table: t, o: imageOptions{format: "svg", scale: 1, name: "preview", fonts: fontsEmbedded}})
	if err != nil {
		return clients.Sketch{}, err
	}
	return clients.Sketch{SVG: string(pic.body)}, nil
}
