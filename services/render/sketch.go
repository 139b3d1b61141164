package render

import (
	"encoding/json"
	"net/http"

	"github.com/go-json-experiment/json/jsontext"
	"github.com/gorilla/mux"

	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/httpx"
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
func (s *Service) sketch(w http.ResponseWriter, r *http.Request) error {
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	var req SketchRequest
	if err := httpx.DecodeJSON(r, &req); err != nil {
		return err
	}
	spec, t, err := s.newFromData(r.Context(), req.Type, req.Data, req.DataFormat)
	if err != nil {
		return err
	}
	if spec, err = s.deps.Ops.ApplyRequest(r.Context(), spec, req.Ops, t, s.deps.Brand.PaletteOf(p)); err != nil {
		return err
	}
	o := imageOptions{format: "svg", scale: 1, name: "sketch", fonts: fontsEmbedded}
	o.width, o.height = thumbnailSize(spec)
	pic, err := s.makePicture(r.Context(), pictureJob{p: p, spec: spec, table: t, o: o})
	if err != nil {
		return err
	}
	// The checks the chart would get on create_chart (no steps yet, so
	// the table as read is the table drawn).
	warnings, err := chartspec.LintContext(r.Context(), spec, t, chartspec.LintEnv{Catalog: s.deps.Catalog})
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, clients.Sketch{SVG: string(pic.body), Mapping: spec.Mapping, Warnings: warnings})
	return nil
}

// PreviewRequest is the body of the internal preview call: ops tried on
// a saved chart and not saved.
type PreviewRequest struct {
	Ops []json.RawMessage `json:"ops"`
}

// preview draws a saved chart with ops applied and nothing saved, as SVG
// with its fonts embedded at the chart's own size, for the editor's live
// preview: every edit is drawn before the person saves it. It counts
// toward no allowance (a person editing is not drawing charts; saved
// pictures and downloads count as before).
func (s *Service) preview(w http.ResponseWriter, r *http.Request) error {
	p, err := auth.Require(r.Context())
	if err != nil {
		return err
	}
	var req PreviewRequest
	if err := httpx.DecodeJSON(r, &req); err != nil {
		return err
	}
	spec, t, err := s.loadSaved(r.Context(), p, mux.Vars(r)["id"])
	if err != nil {
		return err
	}
	if spec, err = s.deps.Ops.ApplyRequest(r.Context(), spec, req.Ops, t, s.deps.Brand.PaletteOf(p)); err != nil {
		return err
	}
	pic, err := s.makePicture(r.Context(), pictureJob{p: p, spec: spec, table: t, o: imageOptions{format: "svg", scale: 1, name: "preview", fonts: fontsEmbedded}})
	if err != nil {
		return err
	}
	httpx.WriteJSON(w, http.StatusOK, clients.Sketch{SVG: string(pic.body)})
	return nil
}
