package site

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/http"
	"strconv"

	"github.com/google/uuid"
	"golang.org/x/sync/errgroup"

	"chartd.dev/charts"
	"chartd.dev/libs/apierr"
	"chartd.dev/libs/auth"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/people"
)

// The new-chart page (/charts/new) reads data the way the API does
// (libs/dataset, the engine behind create_chart), shows it as read, draws
// it as each chart type through the render service without counting, and
// leaves the making of the chart to create_chart, called by the page with
// the session and its CSRF header like the editor's calls.

// maxUpload bounds an uploaded file (XLSX) and a sent data value.
const maxUpload = 5 << 20

// xlsxUnzipLimit bounds what an XLSX may unzip to (every part, declared
// sizes, which archive/zip holds the parts to): a small file that unzips
// to gigabytes is refused before it is read. Parts stay in memory.
const xlsxUnzipLimit = 64 << 20

// previewRows is how many rows the data step shows.
const previewRows = 20

// jsonVisit answers the signed-in person of a JSON call from the site's
// own pages: same origin, the session's CSRF token in X-CSRF-Token.
func (s *Site) jsonVisit(r *http.Request) (visit, error) {
	if o := r.Header.Get("Origin"); o != "" && o != s.origin {
		return visit{}, siteErr(http.StatusForbidden, "This was sent from another site; open the page here and try again.")
	}
	v, ok, err := s.visitor(r)
	if err != nil {
		return visit{}, err
	}
	if !ok {
		return visit{}, siteErr(http.StatusUnauthorized, "You are signed out; sign in again and retry.")
	}
	if !people.CheckCSRF(v.token, r.Header.Get("X-CSRF-Token")) {
		return visit{}, siteErr(http.StatusForbidden, "This page has expired; reload it and try again.")
	}
	return v, nil
}

func siteErr(status int, msg string) error { return &pageError{status: status, msg: msg} }

// writeJSON answers v as JSON.
func writeJSON(w http.ResponseWriter, status int, v any) {
	w.Header().Set("Content-Type", "application/json")
	w.Header().Set("Cache-Control", "no-store")
	w.WriteHeader(status)
	_ = json.NewEncoder(w).Encode(v)
}

// jsonFail answers err as {error:{message}}: the site's own refusals in
// people's words, the API's with their code for the page to say.
func (s *Site) jsonFail(w http.ResponseWriter, r *http.Request, err error) {
	var pe *pageError
	var ae *apierr.Error
	var mb *http.MaxBytesError
	switch {
	case errors.As(err, &pe):
		writeJSON(w, pe.status, map[string]any{"error": map[string]string{"message": pe.msg}})
	case errors.As(err, &mb):
		writeJSON(w, http.StatusRequestEntityTooLarge, map[string]any{"error": map[string]string{"message": fmt.Sprintf("This is over %d MB; send a smaller file or fewer rows.", maxUpload>>20)}})
	case errors.As(err, &ae):
		// The API's code and words: the page says them in its own
		// (static/words.js, the one place that does).
		writeJSON(w, ae.Status(), map[string]any{"error": map[string]string{"code": string(ae.Code), "message": ae.Message}})
	default:
		s.deps.Log.ErrorContext(r.Context(), "site call failed", "path", r.URL.Path, "err", err)
		writeJSON(w, http.StatusInternalServerError, map[string]any{"error": map[string]string{"message": "Something went wrong on our side; try again in a moment."}})
	}
}

// jsonHandler adapts a JSON call's handler: errors become JSON answers.
func jsonHandler(h func(*Site, http.ResponseWriter, *http.Request) error) func(*Site, http.ResponseWriter, *http.Request) error {
	return func(s *Site, w http.ResponseWriter, r *http.Request) error {
		if err := h(s, w, r); err != nil {
			s.jsonFail(w, r, err)
		}
		return nil
	}
}

// welcomePath is where a confirmed sign-up lands: New chart, with a
// line of welcome.
const welcomePath = "/charts/new?welcome=1"

// newChartData is the new-chart page: whether it welcomes a person who
// has just signed up.
type newChartData struct {
	Welcome bool
}

// newChart is the new-chart page; the script does the rest.
func (s *Site) newChart(w http.ResponseWriter, r *http.Request) error {
	v, ok, err := s.mustVisit(w, r)
	if err != nil || !ok {
		return err
	}
	s.render(w, r, http.StatusOK, "new", view{Title: "New chart", SignedIn: true, Email: v.user.Email, CSRF: people.CSRFToken(v.token),
		Data: newChartData{Welcome: r.URL.Query().Get("welcome") == "1"}})
	return nil
}

// readRequest is data to read as the API would.
type readRequest struct {
	Data      json.RawMessage `json:"data"`
	Format    string          `json:"format"`
	Transpose bool            `json:"transpose"`
	// Kinds are the kinds the person chose for columns (id → text,
	// number or date), read again as kind steps.
	Kinds map[string]string `json:"kinds"`
}

// readColumn is a column as the data step shows it.
type readColumn struct {
	ID   string `json:"id"`
	Name string `json:"name"`
	Kind string `json:"kind"`
}

// readAnswer is data as read: what to send to create_chart (data and
// format; the transposed table when asked), its columns and first rows,
// and what reading it noticed, in people's words.
type readAnswer struct {
	Data    json.RawMessage `json:"data"`
	Format  string          `json:"format"`
	Columns []readColumn    `json:"columns"`
	Rows    [][]any         `json:"rows"`
	Total   int             `json:"total"`
	// Notices are what reading noticed, as the API says them (code and
	// message); the page words them.
	Notices []dataset.Notice `json:"notices"`
	// Steps are the kind steps that make the chosen kinds, for
	// create_chart's ops (addTransform) and the sketches.
	Steps []json.RawMessage `json:"steps"`
}

// decodeBody reads a JSON body of at most maxUpload bytes into v.
func decodeBody(w http.ResponseWriter, r *http.Request, v any) error {
	dec := json.NewDecoder(http.MaxBytesReader(w, r.Body, maxUpload+4096))
	dec.DisallowUnknownFields()
	if err := dec.Decode(v); err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return err
		}
		return siteErr(http.StatusBadRequest, "The page sent something this site cannot read; reload it and try again.")
	}
	return nil
}

// checkFormat accepts the formats the API reads.
func checkFormat(f string) error {
	switch f {
	case "", "csv", "tsv", "json":
		return nil
	}
	return siteErr(http.StatusBadRequest, "Choose CSV, TSV or JSON.")
}

// readData parses data as create_chart would.
func readData(ctx context.Context, raw json.RawMessage, format string) (*dataset.Table, []dataset.Notice, error) {
	if len(bytes.TrimSpace(raw)) == 0 || string(bytes.TrimSpace(raw)) == `""` || string(bytes.TrimSpace(raw)) == "null" {
		return nil, nil, siteErr(http.StatusBadRequest, "There is no data yet: paste a table with a header row, or choose a file.")
	}
	if err := checkFormat(format); err != nil {
		return nil, nil, err
	}
	return dataset.ParseRequestContext(ctx, raw, format)
}

func (s *Site) readNew(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.jsonVisit(r); err != nil {
		return err
	}
	var req readRequest
	if err := decodeBody(w, r, &req); err != nil {
		return err
	}
	t, notices, err := readData(r.Context(), req.Data, req.Format)
	if err != nil {
		return err
	}
	data, format := req.Data, req.Format
	if req.Transpose {
		grid := Transpose(tableGrid(t))
		if data, err = json.Marshal(grid); err != nil {
			return fmt.Errorf("encode transposed data: %w", err)
		}
		format = ""
		if t, notices, err = readData(r.Context(), data, ""); err != nil {
			return err
		}
	}
	steps, err := kindSteps(t, req.Kinds)
	if err != nil {
		return err
	}
	if t, err = applySteps(t, steps); err != nil {
		return err
	}
	a := readAnswer{Data: data, Format: format, Rows: dataset.Rows(t, previewRows), Total: t.Rows, Notices: append([]dataset.Notice{}, notices...), Steps: steps}
	for _, c := range t.Columns {
		a.Columns = append(a.Columns, readColumn{ID: c.ID, Name: c.Name, Kind: string(c.Kind)})
	}
	writeJSON(w, http.StatusOK, a)
	return nil
}

// kindSteps are the kind steps for the kinds chosen, in column order;
// a kind the column already has needs none.
func kindSteps(t *dataset.Table, kinds map[string]string) ([]json.RawMessage, error) {
	steps := []json.RawMessage{}
	for _, c := range t.Columns {
		k, ok := kinds[c.ID]
		if !ok || k == string(c.Kind) {
			continue
		}
		raw, err := json.Marshal(dataset.KindStep{Column: c.ID, Kind: dataset.Kind(k)})
		if err != nil {
			return nil, fmt.Errorf("encode kind step: %w", err)
		}
		steps = append(steps, raw)
	}
	for id := range kinds {
		if _, ok := t.Column(id); !ok {
			return nil, siteErr(http.StatusBadRequest, "The data has changed since the kinds were chosen; choose them again.")
		}
	}
	return steps, nil
}

// applySteps runs steps on t as the chart will; a step the data refuses
// is refused as the API would (invalid_request with the step's words).
func applySteps(t *dataset.Table, steps []json.RawMessage) (*dataset.Table, error) {
	for _, raw := range steps {
		st, err := dataset.DecodeStep(raw)
		if err != nil {
			return nil, apierr.New(apierr.InvalidRequest, "%s", err.Error())
		}
		if t, err = st.Apply(t, dataset.Defaults{}); err != nil {
			return nil, apierr.New(apierr.InvalidRequest, "%s", err.Error())
		}
	}
	return t, nil
}

// tableGrid is t as text cells, the header first: numbers as written
// plainly, dates as ISO dates, blanks empty.
func tableGrid(t *dataset.Table) [][]string {
	grid := make([][]string, 0, t.Rows+1)
	head := make([]string, len(t.Columns))
	for j, c := range t.Columns {
		head[j] = c.Name
	}
	grid = append(grid, head)
	for _, row := range dataset.Rows(t, 0) {
		cells := make([]string, len(row))
		for j, v := range row {
			switch x := v.(type) {
			case nil:
			case float64:
				cells[j] = strconv.FormatFloat(x, 'f', -1, 64)
			case string:
				cells[j] = x
			default:
				cells[j] = fmt.Sprint(x)
			}
		}
		grid = append(grid, cells)
	}
	return grid
}

// Transpose swaps a grid's rows and columns: the first column's cells
// become the header, each other column a row named by its header. A
// ragged grid is read with empty cells where rows are short.
func Transpose(grid [][]string) [][]string {
	width := 0
	for _, row := range grid {
		width = max(width, len(row))
	}
	out := make([][]string, width)
	for j := range out {
		out[j] = make([]string, len(grid))
		for i, row := range grid {
			if j < len(row) {
				out[j][i] = row[j]
			}
		}
	}
	return out
}

// sketchRole is a role of a chart type and the columns that fit it.
type sketchRole struct {
	Role     string   `json:"role"`
	Label    string   `json:"label"`
	Required bool     `json:"required"`
	Multi    bool     `json:"multi"`
	Columns  []string `json:"columns"`
}

// sketchAnswer is the data drawn as one chart type.
type sketchAnswer struct {
	Type    string            `json:"type"`
	Label   string            `json:"label"`
	SVG     string            `json:"svg,omitempty"`
	Mapping chartspec.Mapping `json:"mapping,omitempty"`
	Roles   []sketchRole      `json:"roles"`
	// Error is why this data does not make the type, as the API says it
	// (the page words it).
	Error string `json:"error,omitempty"`
	// Checks are the chart's lint problems as the API states them, which
	// the page says by their ids, as the editor's Checks panel does.
	Checks []sketchCheck `json:"checks"`
}

// sketchCheck is one lint problem of a sketched chart.
type sketchCheck struct {
	ID      string `json:"id"`
	Level   string `json:"level"`
	Message string `json:"message"`
}

// sketchRequest is data to draw as every chart type, or as one type with
// the roles the person chose.
type sketchRequest struct {
	Data    json.RawMessage `json:"data"`
	Format  string          `json:"format"`
	Type    string          `json:"type"`
	Mapping map[string]any  `json:"mapping"`
	// Steps are the read answer's kind steps, run before drawing.
	Steps []json.RawMessage `json:"steps"`
}

// sketchNew draws the data as each of the ten chart types (or one, with
// chosen roles), small, through the render service without counting.
func (s *Site) sketchNew(w http.ResponseWriter, r *http.Request) error {
	v, err := s.jsonVisit(r)
	if err != nil {
		return err
	}
	var req sketchRequest
	if err := decodeBody(w, r, &req); err != nil {
		return err
	}
	t, _, err := readData(r.Context(), req.Data, req.Format)
	if err != nil {
		return err
	}
	if t, err = applySteps(t, req.Steps); err != nil {
		return err
	}
	types := charts.SpecTypes()
	if req.Type != "" {
		types = []string{req.Type}
	}
	p := auth.Principal{AccountID: v.account.ID, Plan: v.account.Plan}
	out := make([]sketchAnswer, len(types))
	g, ctx := errgroup.WithContext(r.Context())
	g.SetLimit(3)
	for i, typ := range types {
		ct, ok := s.catalog.Type(typ)
		if !ok {
			return siteErr(http.StatusBadRequest, "Choose one of the chart types shown.")
		}
		a := sketchAnswer{Type: typ, Label: ct.Label, Checks: []sketchCheck{}}
		for _, role := range ct.Roles {
			sr := sketchRole{Role: role.Role, Label: role.Label, Required: role.Required, Multi: role.Multi, Columns: []string{}}
			for _, c := range t.Columns {
				if chartspec.Fits(role, c) {
					sr.Columns = append(sr.Columns, c.ID)
				}
			}
			a.Roles = append(a.Roles, sr)
		}
		out[i] = a
		ops := make([]any, 0, len(req.Steps)+1)
		for _, st := range req.Steps {
			ops = append(ops, map[string]any{"op": "addTransform", "transform": st})
		}
		switch {
		case req.Mapping != nil:
			ops = append(ops, map[string]any{"op": "setMapping", "mapping": req.Mapping})
		case len(req.Steps) > 0:
			// The roles the API would choose for the data with the kinds
			// chosen, not for the data as first read.
			ops = append(ops, map[string]any{"op": "setMapping", "mapping": chartspec.AutoMapping(ct, t)})
		}
		g.Go(func() error {
			sk, err := s.deps.Renders.Sketch(ctx, p, typ, req.Data, req.Format, ops)
			var ae *apierr.Error
			switch {
			case errors.As(err, &ae):
				out[i].Error = ae.Message
			case err != nil:
				return fmt.Errorf("sketch %s: %w", typ, err)
			default:
				out[i].SVG, out[i].Mapping = sk.SVG, sk.Mapping
				for _, w := range sk.Warnings {
					out[i].Checks = append(out[i].Checks, sketchCheck{ID: w.ID, Level: w.Level, Message: w.Message})
				}
			}
			return nil
		})
	}
	if err := g.Wait(); err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, map[string]any{"sketches": out})
	return nil
}

// previewRequest is ops to try on a saved chart.
type previewRequest struct {
	Ops []any `json:"ops"`
}

// previewChart draws one of the person's charts with the editor's
// unsaved edits, as SVG with its fonts, without counting a render.
func (s *Site) previewChart(w http.ResponseWriter, r *http.Request) error {
	v, err := s.jsonVisit(r)
	if err != nil {
		return err
	}
	id := r.PathValue("id")
	if uuid.Validate(id) != nil {
		return siteErr(http.StatusNotFound, "There is no such chart here.")
	}
	var req previewRequest
	if err := decodeBody(w, r, &req); err != nil {
		return err
	}
	sk, err := s.deps.Renders.Preview(r.Context(), auth.Principal{AccountID: v.account.ID, Plan: v.account.Plan}, id, req.Ops)
	var ae *apierr.Error
	if errors.As(err, &ae) && ae.Code == apierr.NotFound {
		return siteErr(http.StatusNotFound, "There is no such chart here.")
	}
	if err != nil {
		return err
	}
	h := w.Header()
	h.Set("Content-Type", "image/svg+xml")
	h.Set("Cache-Control", "no-store")
	h.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; font-src data:; sandbox")
	w.WriteHeader(http.StatusOK)
	_, _ = io.WriteString(w, sk.SVG)
	return nil
}

// xlsxAnswer is a workbook's sheet as rows of text, and its sheets.
type xlsxAnswer struct {
	Sheets []string   `json:"sheets"`
	Sheet  string     `json:"sheet"`
	Data   [][]string `json:"data"`
}

// readXLSX reads an uploaded workbook's sheet (the first, or the one
// named) into rows of text, bounded in size and unzipped size.
func (s *Site) readXLSX(w http.ResponseWriter, r *http.Request) error {
	if _, err := s.jsonVisit(r); err != nil {
		return err
	}
	r.Body = http.MaxBytesReader(w, r.Body, maxUpload+64<<10)
	if err := r.ParseMultipartForm(1 << 20); err != nil {
		var mb *http.MaxBytesError
		if errors.As(err, &mb) {
			return siteErr(http.StatusRequestEntityTooLarge, fmt.Sprintf("This file is over %d MB; save a smaller part of it, or paste the rows you need.", maxUpload>>20))
		}
		return siteErr(http.StatusBadRequest, "Choose a file to upload.")
	}
	defer func() { _ = r.MultipartForm.RemoveAll() }()
	f, _, err := r.FormFile("file")
	if err != nil {
		return siteErr(http.StatusBadRequest, "Choose a file to upload.")
	}
	defer f.Close()
	sheets, sheet, grid, err := ReadWorkbook(f, r.FormValue("sheet"))
	if err != nil {
		return err
	}
	writeJSON(w, http.StatusOK, xlsxAnswer{Sheets: sheets, Sheet: sheet, Data: grid})
	return nil
}
