package render

import (
	"context"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"math"
	"mime"
	"net/http"
	"strconv"
	"strings"
	"time"
	"unicode/utf16"

	"github.com/go-json-experiment/json/jsontext"

	"chartd.dev/libs/aggregate"
	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/clients"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/draw"
	"chartd.dev/libs/httpx"
)

// imageOptions are the picture settings shared by the render endpoints.
type imageOptions struct {
	format      string
	scale       int
	width       int
	height      int
	transparent bool
	name        string
	// fonts is embedded or system (see fontsEmbedded).
	fonts string
	// theme overrides the chart's theme for this picture (draw.Input.Theme):
	// "" keeps the spec's, else light, dark or auto (drawn light as a PNG).
	theme string
	// marks lists the marks in the SVG for an embed's tooltips, and
	// minText is the smallest type in px (draw.Input.MinText).
	marks   bool
	minText float64
}

// checkTheme accepts the render-time themes.
func checkTheme(th string) error {
	switch th {
	case "", chartspec.ThemeLight, chartspec.ThemeDark, chartspec.ThemeAuto:
		return nil
	}
	return apierr.New(apierr.InvalidRequest, "theme %q: use light, dark or auto", th)
}

// drawTheme is the theme a picture is drawn in: a PNG has no CSS, so an
// auto chart is resolved to light unless the render asked for dark.
func drawTheme(spec *chartspec.Spec, o imageOptions) string {
	if o.format == "png" && chartspec.EffectiveTheme(spec, o.theme) == chartspec.ThemeAuto {
		return chartspec.ThemeLight
	}
	return o.theme
}

// checkFormat accepts png and svg.
func checkFormat(f string) error {
	switch f {
	case "svg", "png":
		return nil
	}
	return apierr.New(apierr.InvalidRequest, "format %q: use png or svg", f)
}

func checkScale(scale int, format string) error {
	if scale != 1 && scale != 2 && scale != 4 {
		return apierr.New(apierr.InvalidRequest, "scale %d: use 1, 2 or 4", scale)
	}
	if scale != 1 && format == "svg" {
		return apierr.New(apierr.InvalidRequest, "scale applies to PNG only; an SVG scales by itself, so leave scale out or set width and height")
	}
	return nil
}

func checkSide(name string, v *int) (int, error) {
	if v == nil {
		return 0, nil
	}
	if *v < draw.MinSide || *v > draw.MaxSide {
		return 0, apierr.New(apierr.InvalidRequest, "%s %d: use %d to %d pixels", name, *v, draw.MinSide, draw.MaxSide)
	}
	return *v, nil
}

// BodyOptions are the picture fields of the render bodies (spec §4).
type BodyOptions struct {
	Format      *string `json:"format" enum:"png,svg"`
	Scale       *int    `json:"scale" enum:"1,2,4"`
	Width       *int    `json:"width"`
	Height      *int    `json:"height"`
	Transparent *bool   `json:"transparent"`
	Name        *string `json:"name"`
	Fonts       *string `json:"fonts" enum:"embedded,system"`
	// Theme draws this picture light, dark or auto instead of the chart's
	// own theme.
	Theme *string `json:"theme" enum:"light,dark,auto"`
}

func (b BodyOptions) options() (imageOptions, error) {
	o := imageOptions{format: "png", scale: 1, name: "chart", fonts: fontsEmbedded}
	if b.Theme != nil {
		o.theme = *b.Theme
	}
	if err := checkTheme(o.theme); err != nil {
		return o, err
	}
	if b.Fonts != nil {
		o.fonts = *b.Fonts
	}
	if err := checkFonts(o.fonts); err != nil {
		return o, err
	}
	if b.Format != nil {
		o.format = *b.Format
	}
	if err := checkFormat(o.format); err != nil {
		return o, err
	}
	if b.Scale != nil {
		o.scale = *b.Scale
	}
	if err := checkScale(o.scale, o.format); err != nil {
		return o, err
	}
	var err error
	if o.width, err = checkSide("width", b.Width); err != nil {
		return o, err
	}
	if o.height, err = checkSide("height", b.Height); err != nil {
		return o, err
	}
	if b.Transparent != nil {
		o.transparent = *b.Transparent
	}
	if b.Name != nil {
		n := strings.TrimSpace(*b.Name)
		if n == "" || len(n) > 200 || strings.ContainsAny(n, "/\\\"\r\n\x00") {
			return o, apierr.New(apierr.InvalidRequest, "name %q: use 1 to 200 characters without slashes, quotes or line breaks", *b.Name)
		}
		o.name = n
	}
	return o, nil
}

// picture is a drawn image and its size in pixels (after scale).
type picture struct {
	body          []byte
	contentType   string
	width, height int
	// svg is the drawing with system fonts, and cssWidth/cssHeight its
	// size before scale: what the rasterizer turns into a PNG, and what
	// identifies the picture (body may carry the fonts besides).
	svg                 []byte
	cssWidth, cssHeight int
	// notices say what the picture simplified (rows aggregated to fit its
	// pixels); they travel in the X-Chartd-Notices header.
	notices []dataset.Notice
	// lint is the ids of the chart's lint warnings, for the Chartd-Lint
	// header (chartspec.WarnIDs).
	lint []string
	// marks are the marks listed for an embed (imageOptions.marks).
	marks []draw.Mark
	// hash is the picture hash (pictureHash), set by the pipeline;
	// notModified says the caller has the picture already (no body).
	hash        string
	notModified bool
}

// pictureHash identifies a picture for "each different picture counts once
// a month": everything that determines the image is in its bytes and format.
// (transparent is in the SVG bytes; an SVG with or without its fonts is
// the same picture). It is also the PNG's key in the
// image cache.
func pictureHash(pic picture, o imageOptions) string {
	h := sha256.New()
	h.Write(pic.svg)
	fmt.Fprintf(h, "|%s|%d", o.format, o.scale)
	if o.theme != "" {
		// written only when asked for, so a picture's hash is what it was
		// before themes (the monthly count and the image cache keep it)
		fmt.Fprintf(h, "|%s", o.theme)
	}
	return hex.EncodeToString(h.Sum(nil))
}

func resetIn(d time.Duration) string {
	h := d.Hours()
	if h >= 48 {
		return strconv.Itoa(int(h/24)) + " days"
	}
	return strconv.Itoa(int(h)+1) + " hours"
}

// ImageJSON is the image answer as JSON (DESIGN §7).
type ImageJSON struct {
	Image  string `json:"image"`
	Type   string `json:"type" enum:"image/png,image/svg+xml"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
	Bytes  int    `json:"bytes"`
	Name   string `json:"name"`
}

// writePicture answers the image itself, or JSON when asked and allowed.
func writePicture(w http.ResponseWriter, r *http.Request, pic picture, o imageOptions, jsonAllowed bool) {
	file := o.name + "." + o.format
	setNotices(w.Header(), pic)
	if jsonAllowed && wantsJSON(r) {
		httpx.WriteJSON(w, http.StatusOK, ImageJSON{Image: base64.StdEncoding.EncodeToString(pic.body), Type: pic.contentType,
			Width: pic.width, Height: pic.height, Bytes: len(pic.body), Name: file})
		return
	}
	h := w.Header()
	h.Set("Content-Type", pic.contentType)
	h.Set("Content-Length", strconv.Itoa(len(pic.body)))
	h.Set("Content-Disposition", mime.FormatMediaType("inline", map[string]string{"filename": file}))
	h.Set("Cache-Control", "private, no-cache")
	h.Set("X-Content-Type-Options", "nosniff")
	// A picture is a document of its own: no script, no fetch, ever.
	h.Set("Content-Security-Policy", PictureCSP)
	w.WriteHeader(http.StatusOK)
	w.Write(pic.body)
}

// PictureCSP is the Content-Security-Policy of a picture answered as a
// document of its own: no script and no fetch, only its inline style and
// the fonts it carries as data: URLs.
const PictureCSP = "default-src 'none'; style-src 'unsafe-inline'; font-src data:; sandbox"

// HeaderNotices carries what a picture simplified, as the JSON list of
// notices ({code, message}) that create_chart and set_data answer, written
// in ASCII (\u escapes) since a header holds nothing else. Absent when the
// picture shows every row.
const HeaderNotices = "X-Chartd-Notices"

// HeaderLint lists the ids of the chart's lint warnings, comma-separated
// ("bar-axis-not-zero, needs-room"): a caller who gets only the image
// still learns what the chart's JSON answer would warn about. Absent when
// there are none.
const HeaderLint = "Chartd-Lint"

// setNotices writes what a picture tells besides the image: its notices
// (HeaderNotices) and its lint warnings (HeaderLint).
func setNotices(h http.Header, pic picture) {
	if len(pic.lint) > 0 {
		h.Set(HeaderLint, strings.Join(pic.lint, ", "))
	}
	if len(pic.notices) == 0 {
		return
	}
	raw, err := json.Marshal(pic.notices)
	if err != nil {
		return
	}
	h.Set(HeaderNotices, asciiJSON(raw))
}

// asciiJSON escapes every non-ASCII character of a JSON text as \uXXXX
// (surrogate pairs beyond the BMP); the text means the same.
func asciiJSON(raw []byte) string {
	var b strings.Builder
	for _, r := range string(raw) {
		switch {
		case r < 0x80:
			b.WriteRune(r)
		case r > 0xFFFF:
			r1, r2 := utf16.EncodeRune(r)
			fmt.Fprintf(&b, "\\u%04x\\u%04x", r1, r2)
		default:
			fmt.Fprintf(&b, "\\u%04x", r)
		}
	}
	return b.String()
}

func wantsJSON(r *http.Request) bool {
	for _, part := range strings.Split(r.Header.Get("Accept"), ",") {
		mt, _, err := mime.ParseMediaType(strings.TrimSpace(part))
		if err == nil && mt == "application/json" {
			return true
		}
	}
	return false
}

// loadSaved reads a saved chart's spec and parsed data (before steps).
func (s *Service) loadSaved(ctx context.Context, p auth.Principal, id string) (*chartspec.Spec, *dataset.Table, error) {
	l, err := s.charts.Load(ctx, p, id, aggregate.WithTable)
	if err != nil {
		return nil, nil, err
	}
	return l.Spec, l.Table, nil
}

// ThumbnailWidth is the width thumbnails are drawn at: twice the chart
// list's card, so they are sharp on a high-density screen. The height keeps
// the chart's own proportions.
const ThumbnailWidth = 480

// thumbnailSize is the canvas of a chart's thumbnail: ThumbnailWidth wide
// (or the chart's own width when narrower) at the chart's aspect ratio.
func thumbnailSize(spec *chartspec.Spec) (w, h int) {
	cw, ch := spec.Style.Dimensions()
	if cw <= ThumbnailWidth {
		return cw, ch
	}
	h = int(math.Round(float64(ch) * ThumbnailWidth / float64(cw)))
	return ThumbnailWidth, min(max(h, draw.MinSide), draw.MaxSide)
}

// thumbnail draws a saved chart small, as SVG, for the site's chart list
// (an internal call made for the account's signed-in person). It counts
// toward no allowance: a list of thumbnails is not the account drawing
// charts. The chart is loaded for p's account only, as every render is.
func (s *Service) thumbnail(ctx context.Context, p auth.Principal, req ChartID) (clients.Thumbnail, error) {
	spec, t, err := s.loadSaved(ctx, p, req.ID)
	if err != nil {
		return clients.Thumbnail{}, err
	}
	o := imageOptions{format: "svg", scale: 1, name: "thumbnail", fonts: fontsEmbedded}
	o.width, o.height = thumbnailSize(spec)
	pic, err := s.makePicture(ctx, pictureJob{p: p, spec: spec, table: t, o: o})
	if err != nil {
		return clients.Thumbnail{}, err
	}
	return clients.Thumbnail{SVG: string(pic.body)}, nil
}

// ChartID is the request of the internal endpoints that name a chart only.
type ChartID struct {
	ID string `path:"id" json:"-"`
}

// renderChart draws a saved chart (GET /charts/{id}/render.{format}); it
// counts toward the daily renders.
// RenderChartRequest is the render_chart request.
type RenderChartRequest struct {
	ID          string  `path:"id" json:"-"`
	Format      string  `path:"format" json:"-" enum:"png,svg"`
	Scale       *string `query:"scale" json:"-" enum:"1,2,4"`
	Transparent *string `query:"transparent" json:"-"`
	Fonts       *string `query:"fonts" json:"-" enum:"embedded,system"`
	Theme       *string `query:"theme" json:"-" enum:"light,dark,auto"`
}

func (s *Service) renderChart(w http.ResponseWriter, r *http.Request, p auth.Principal, req RenderChartRequest) error {
	var err error
	o := imageOptions{format: req.Format, name: "chart", fonts: fontsEmbedded}
	if req.Fonts != nil {
		o.fonts = *req.Fonts
	}
	if err := checkFonts(o.fonts); err != nil {
		return err
	}
	if req.Theme != nil {
		o.theme = *req.Theme
	}
	if err := checkTheme(o.theme); err != nil {
		return err
	}
	if err := checkFormat(o.format); err != nil {
		return err
	}
	if o.scale, err = httpx.IntParam("scale", req.Scale, 1, 1, 4); err != nil {
		return err
	}
	if err := checkScale(o.scale, o.format); err != nil {
		return err
	}
	if v := req.Transparent; v != nil {
		b, err := strconv.ParseBool(*v)
		if err != nil {
			return apierr.New(apierr.InvalidRequest, "transparent %q: use true or false", *v)
		}
		o.transparent = b
	}
	spec, t, err := s.loadSaved(r.Context(), p, req.ID)
	if err != nil {
		return err
	}
	pic, err := s.makePicture(r.Context(), pictureJob{p: p, spec: spec, table: t, o: o, charge: chargeRender})
	if e := (*apierr.Error)(nil); errors.As(err, &e) && e.Code == apierr.TooLarge {
		// render_chart has no too_large in the contract: the same
		// refusal, as an invalid request.
		e.Code = apierr.InvalidRequest
	}
	if err != nil {
		return err
	}
	writePicture(w, r, pic, o, false)
	return nil
}

// InputSpec is the `spec` of render_image: the include=spec shape.
type InputSpec struct {
	Type    string            `json:"type"`
	Options map[string]any    `json:"options"`
	Mapping chartspec.Mapping `json:"mapping"`
	Steps   []json.RawMessage `json:"steps"`
	Style   *chartspec.Style  `json:"style"`
	// Annotations are the notes, reference lines and ranges to draw.
	Annotations []chartspec.Annotation `json:"annotations"`
	Data        *InputData             `json:"data"`
	Advanced    jsontext.Value         `json:"advanced"`
}

// InputData is a spec's data: columns c1..cN in order and rows of cells.
type InputData struct {
	Format  string           `json:"format"`
	Columns []dataset.Column `json:"columns"`
	Rows    [][]any          `json:"rows"`
}

// RenderImageRequest is the render_image body.
type RenderImageRequest struct {
	BodyOptions
	Type       *string           `json:"type" enum:"$chart_type"`
	Data       jsontext.Value    `json:"data"`
	DataFormat *string           `json:"data_format" enum:"csv,tsv,json"`
	Spec       *InputSpec        `json:"spec"`
	Ops        []json.RawMessage `json:"ops"`
}

// renderImage draws a chart from sent data or a sent spec; nothing is saved.
func (s *Service) renderImage(w http.ResponseWriter, r *http.Request, p auth.Principal, req RenderImageRequest) error {
	o, err := req.options()
	if err != nil {
		return err
	}
	format, err := dataset.CheckFormat("data_format", req.DataFormat)
	if err != nil {
		return err
	}
	var spec *chartspec.Spec
	var t *dataset.Table
	switch {
	case req.Spec != nil && (req.Type != nil || httpx.Present(req.Data) || req.DataFormat != nil):
		return apierr.New(apierr.InvalidRequest, "spec replaces type and data; send either spec, or type with data")
	case req.Spec != nil:
		if spec, t, err = s.fromSpec(req.Spec); err != nil {
			return err
		}
	case req.Type != nil:
		ct, ok := s.deps.Catalog.Type(*req.Type)
		if !ok {
			return apierr.New(apierr.InvalidRequest, "type %q is not a chart type; GET /chart-types lists them", *req.Type)
		}
		if httpx.Present(req.Data) {
			if t, _, err = dataset.ParseRequest(req.Data, format); err != nil {
				return err
			}
			spec = chartspec.New(ct, t, s.deps.Catalog.DefaultPalette().Colors)
			break
		}
		// A type alone draws its sample, as create_chart does.
		if req.DataFormat != nil {
			return apierr.New(apierr.InvalidRequest, "data_format is given without data")
		}
		ex, err := chartspec.Example(s.deps.Catalog, ct, s.deps.Catalog.Sample(ct.Type))
		if err != nil {
			return err
		}
		spec, t = ex.Spec, ex.Table
	default:
		return apierr.New(apierr.InvalidRequest, "send type with data (or type alone for sample data), or a spec as get_chart?include=spec gives it")
	}
	if spec, err = s.deps.Ops.ApplyRequest(r.Context(), spec, req.Ops, t, s.deps.Brand.PaletteOf(p)); err != nil {
		return err
	}
	pic, err := s.makePicture(r.Context(), pictureJob{p: p, spec: spec, table: t, o: o, charge: chargeImage})
	if err != nil {
		return err
	}
	writePicture(w, r, pic, o, true)
	return nil
}

// fromSpec builds the spec and table of a sent spec.
func (s *Service) fromSpec(in *InputSpec) (*chartspec.Spec, *dataset.Table, error) {
	if httpx.Present(in.Advanced) {
		return nil, nil, apierr.New(apierr.InvalidRequest, "spec.advanced must be null to draw the chart")
	}
	ct, ok := s.deps.Catalog.Type(in.Type)
	if !ok {
		return nil, nil, apierr.New(apierr.InvalidRequest, "spec.type %q is not a chart type; GET /chart-types lists them", in.Type)
	}
	if in.Data == nil {
		return nil, nil, apierr.New(apierr.InvalidRequest, "spec.data is required: {columns: [{id, name}], rows: [[…]]} as get_chart?include=spec gives it")
	}
	header := make([]any, len(in.Data.Columns))
	for i, c := range in.Data.Columns {
		if want := "c" + strconv.Itoa(i+1); c.ID != want {
			return nil, nil, apierr.New(apierr.InvalidRequest, "spec.data.columns[%d].id is %q; columns are c1, c2, … in order, so this one is %s", i, c.ID, want)
		}
		header[i] = c.Name
	}
	rows := make([]any, 0, len(in.Data.Rows)+1)
	rows = append(rows, header)
	for _, row := range in.Data.Rows {
		rows = append(rows, row)
	}
	raw, err := json.Marshal(rows)
	if err != nil {
		return nil, nil, fmt.Errorf("encode spec data: %w", err)
	}
	t, _, err := dataset.ParseRequest(raw, "")
	if err != nil {
		return nil, nil, err
	}
	spec := chartspec.New(ct, t, s.deps.Catalog.DefaultPalette().Colors)
	if in.Options != nil {
		if err := ct.ValidateOptions(in.Options); err != nil {
			return nil, nil, apierr.New(apierr.InvalidRequest, "spec.options: %v", err)
		}
		for k, v := range in.Options {
			spec.Options[k] = v
		}
	}
	if in.Mapping != nil {
		spec.Mapping = in.Mapping
	}
	spec.Steps = in.Steps
	if in.Style != nil {
		spec.Style = *in.Style
	}
	spec.Annotations = in.Annotations
	return spec, t, nil
}

// RenderTemplateRequest is the render_template request.
type RenderTemplateRequest struct {
	ID string `path:"id" json:"-"`
	BodyOptions
	Data       jsontext.Value    `json:"data" api:"required"`
	DataFormat *string           `json:"data_format" enum:"csv,tsv,json"`
	Ops        []json.RawMessage `json:"ops"`
}

// renderTemplate draws a saved chart with sent data matched by column
// name; the saved chart is unchanged.
func (s *Service) renderTemplate(w http.ResponseWriter, r *http.Request, p auth.Principal, req RenderTemplateRequest) error {
	if !httpx.Present(req.Data) {
		return apierr.New(apierr.InvalidRequest, "data is required: the rows to draw the chart with, with the chart's column names")
	}
	o, err := req.options()
	if err != nil {
		return err
	}
	format, err := dataset.CheckFormat("data_format", req.DataFormat)
	if err != nil {
		return err
	}
	spec, saved, err := s.loadSaved(r.Context(), p, req.ID)
	if err != nil {
		return err
	}
	spec, t, err := s.withData(spec, saved, req.Data, format)
	if err != nil {
		return err
	}
	if spec, err = s.deps.Ops.ApplyRequest(r.Context(), spec, req.Ops, t, s.deps.Brand.PaletteOf(p)); err != nil {
		return err
	}
	pic, err := s.makePicture(r.Context(), pictureJob{p: p, spec: spec, table: t, o: o, charge: chargeImage})
	if err != nil {
		return err
	}
	writePicture(w, r, pic, o, true)
	return nil
}

// withData rebinds a saved chart to sent data, matching columns by name:
// the data must hold every column the chart is drawn from.
func (s *Service) withData(spec *chartspec.Spec, saved *dataset.Table, data []byte, format string) (*chartspec.Spec, *dataset.Table, error) {
	t, _, err := dataset.ParseRequest(data, format)
	if err != nil {
		return nil, nil, err
	}
	missing, err := missingColumns(spec, saved, t)
	if err != nil {
		return nil, nil, err
	}
	if len(missing) > 0 {
		return nil, nil, apierr.New(apierr.InvalidRequest, "the data lacks the column%s %s that the chart is drawn from; send columns with these names", plural(len(missing)), quoteAll(missing))
	}
	ct, ok := s.deps.Catalog.Type(spec.Type)
	if !ok {
		return nil, nil, fmt.Errorf("type %q is not in the catalog", spec.Type)
	}
	cols := make([]dataset.Column, len(saved.Columns))
	for i, c := range saved.Columns {
		cols[i] = dataset.Column{ID: c.ID, Name: c.Name, Kind: c.Kind}
	}
	return chartspec.Rebind(spec, ct, cols, t).Spec, t, nil
}

// missingColumns names the saved data's columns the chart is drawn from
// (its roles and steps) that the new data lacks by name.
func missingColumns(spec *chartspec.Spec, saved, t *dataset.Table) ([]string, error) {
	have := map[string]bool{}
	for _, c := range t.Columns {
		have[c.Name] = true
	}
	used, err := drawnColumns(spec)
	if err != nil {
		return nil, fmt.Errorf("saved %w", err)
	}
	var missing []string
	for _, c := range saved.Columns {
		if used[c.ID] && !have[c.Name] {
			missing = append(missing, c.Name)
		}
	}
	return missing, nil
}

// stepColumns lists the column ids a step names.
func stepColumns(raw json.RawMessage) ([]string, error) {
	var st struct {
		Column   string   `json:"column"`
		Columns  []string `json:"columns"`
		GroupBy  []string `json:"groupBy"`
		Measures []struct {
			Column string `json:"column"`
		} `json:"measures"`
	}
	if err := json.Unmarshal(raw, &st); err != nil {
		return nil, fmt.Errorf("decode step: %w", err)
	}
	ids := append(append([]string{st.Column}, st.Columns...), st.GroupBy...)
	for _, m := range st.Measures {
		ids = append(ids, m.Column)
	}
	return ids, nil
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}

func quoteAll(names []string) string {
	q := make([]string, len(names))
	for i, n := range names {
		q[i] = strconv.Quote(n)
	}
	return strings.Join(q, ", ")
}
