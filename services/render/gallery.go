package render

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"html"
	"net/http"
	"sync"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/gallery"
	"chartd.dev/libs/httpx"
	"chartd.dev/libs/plan"
	"chartd.dev/libs/route"
)

// galleryOnce holds the gallery's JSON once it is drawn. It is drawn on
// the first ask and kept for the life of the process (the gateway asks
// once, at its first docs or home page); a failed drawing is not kept,
// so the next ask tries again.
type galleryOnce struct {
	mu   sync.Mutex
	body []byte
}

// gallery answers every example and style-op pair drawn with the font
// stack, and the one font block that carries their faces (GET
// /internal/v1/gallery, for the gateway's docs and home page). It counts
// toward no allowance: the pictures are the service's own.
func (s *Service) gallery(w http.ResponseWriter, r *http.Request, _ auth.Principal, _ route.None) error {
	body, err := s.galleryJSON(r.Context())
	if err != nil {
		return err
	}
	w.Header().Set("Content-Type", "application/json")
	_, err = w.Write(body)
	return err
}

func (s *Service) galleryJSON(ctx context.Context) ([]byte, error) {
	s.pictures.mu.Lock()
	defer s.pictures.mu.Unlock()
	if s.pictures.body != nil {
		return s.pictures.body, nil
	}
	g, err := gallery.Draw(ctx, s.deps.Catalog, s.deps.Ops, s.deps.Fonts, s.subsets)
	if err != nil {
		return nil, fmt.Errorf("draw the gallery: %w", err)
	}
	body, err := json.Marshal(g)
	if err != nil {
		return nil, fmt.Errorf("encode the gallery: %w", err)
	}
	s.pictures.body = body
	return body, nil
}

// The try-it picture's canvas.
const tryWidth, tryHeight = 640, 400

// try draws pasted data for a visitor who has not signed in (POST
// /internal/v1/try, for the site). It belongs to no account: the site
// limits it per client address with its own small allowance, and the
// picture carries the free plan's service mark.
func (s *Service) try(ctx context.Context, _ auth.Principal, req clients.TryRequest) (clients.TryAnswer, error) {
	spec, t, err := s.newFromData(ctx, req.Type, req.Data, req.DataFormat)
	if err != nil {
		return clients.TryAnswer{}, err
	}
	o := imageOptions{format: "svg", scale: 1, width: tryWidth, height: tryHeight, name: "try", fonts: fontsEmbedded}
	pic, err := s.makePicture(ctx, pictureJob{p: auth.Principal{Plan: plan.Free}, spec: spec, table: t, o: o})
	if err != nil {
		return clients.TryAnswer{}, err
	}
	return clients.TryAnswer{SVG: string(pic.body), Description: svgDescription(pic.svg)}, nil
}

// newFromData is a new chart of type typ on pasted data, as create_chart
// makes one (the API's roles and default palette), for the site's drawings
// of data not saved: the try-it box and the new-chart page's sketches.
func (s *Service) newFromData(ctx context.Context, typ string, data []byte, dataFormat *string) (*chartspec.Spec, *dataset.Table, error) {
	ct, ok := s.deps.Catalog.Type(typ)
	if !ok {
		return nil, nil, apierr.New(apierr.InvalidRequest, "type %q is not a chart type", typ)
	}
	format, err := dataset.CheckFormat("data_format", dataFormat)
	if err != nil {
		return nil, nil, err
	}
	if !httpx.Present(data) {
		return nil, nil, apierr.New(apierr.InvalidRequest, "data is required")
	}
	t, _, err := dataset.ParseRequestContext(ctx, data, format)
	if err != nil {
		return nil, nil, err
	}
	return chartspec.New(ct, t, s.deps.Catalog.DefaultPalette().Colors), t, nil
}

// svgDescription is the text of the drawing's <desc>.
func svgDescription(svg []byte) string {
	_, rest, ok := bytes.Cut(svg, []byte("<desc"))
	if !ok {
		return ""
	}
	if _, rest, ok = bytes.Cut(rest, []byte(">")); !ok {
		return ""
	}
	d, _, _ := bytes.Cut(rest, []byte("</desc>"))
	return html.UnescapeString(string(d))
}
