// Package gallery draws the pictures the docs and the home page show:
// every example of the catalog (the first of a type, its sample, stands
// for the type) and a before/after pair for the style ops. It is drawn
// once, where the font stack is (the render service), and handed to the
// pages as data: the SVGs name their fonts, and Fonts is one block that
// carries the faces all of them draw with, cut to the characters drawn.
//
// One block and not one per picture: @font-face rules in an inline SVG
// apply to the whole HTML page, so pictures carrying their own subsets of
// the same family would replace each other's faces and lose glyphs.
package gallery

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"sync"
	"time"

	"chartd.dev/charts"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/draw"
)

// Picture sizes in CSS pixels: examples at a card's size, pairs smaller.
const (
	ExampleWidth, ExampleHeight = 480, 300
	PairWidth, PairHeight       = 320, 200
)

// Pair is a style op drawn before and after it applies to one example.
type Pair struct {
	// Op is the op's name, such as "setPalette"; JSON the op as applied.
	Op   string `json:"op"`
	JSON string `json:"json"`
	// Setup are ops (a JSON array) applied before both pictures, for an
	// op that takes something away; empty for none.
	Setup string `json:"setup,omitempty"`
	// Example is the example both pictures draw.
	Example string `json:"example"`
	// Before and After are the SVGs (system fonts, see Gallery.Fonts).
	Before string `json:"before"`
	After  string `json:"after"`
}

// Gallery is every picture, ready to put inline in a page.
type Gallery struct {
	// Examples maps an example id to its SVG.
	Examples map[string]string `json:"examples"`
	// Types maps a chart type to its sample example's id.
	Types map[string]string `json:"types"`
	// Pairs are the style ops' before/after pictures.
	Pairs []Pair `json:"pairs"`
	// Widths are WidthsExample drawn as an embed draws it in a frame of
	// each of EmbedWidths, for the embedding page.
	Widths []Sized `json:"widths"`
	// Fonts is a hidden inline <svg> whose style holds one @font-face per
	// face the pictures draw with; put it once in a page that shows any.
	Fonts string `json:"fonts"`
}

// WidthsExample is the example the embedding page draws at a phone's, a
// tablet's and a desktop's width.
const WidthsExample = "bar-gdp-by-country"

// EmbedWidths are the frame widths the embedding page shows.
func EmbedWidths() []int { return []int{320, 640, 1200} }

// Sized is one picture drawn at a frame's width.
type Sized struct {
	Width  int    `json:"width"`
	Height int    `json:"height"`
	SVG    string `json:"svg"`
}

// pairOps are the style ops drawn as pairs, each on the example it shows
// best on.
func pairOps() []struct{ example, op, setup string } {
	// setup ops, when given, are applied before both pictures: an op that
	// takes something away shows on a chart that has it
	story := `[{"op":"addAnnotation","annotation":{"text":"Best month","x":"2024-12","series":"c2"}},{"op":"addRange","range":{"axis":"x","from":"2024-06","to":"2024-08","label":"Summer"}}]`
	return []struct{ example, op, setup string }{
		{"bar-quarterly-revenue-by-region", `{"op":"setPalette","palette":"okabe-ito"}`, ""},
		{"bar-gdp-by-country", `{"op":"setLabels","show":true}`, ""},
		{"bar-gdp-by-country", `{"op":"setVariants","variants":{"bar":{"orientation":"horizontal"}}}`, ""},
		{"pie-browser-share", `{"op":"setFooter","footer":{"source":"StatCounter","byline":"Data desk"}}`, ""},
		{"line-monthly-sales", `{"op":"addAnnotation","annotation":{"text":"Best month","x":"2024-12","series":"c2"}}`, ""},
		{"bar-gdp-by-country", `{"op":"addReferenceLine","line":{"axis":"y","value":"mean"}}`, ""},
		{"line-monthly-sales", `{"op":"addRange","range":{"axis":"x","from":"2024-06","to":"2024-08","label":"Summer"}}`, ""},
		{"bar-gdp-by-country", `{"op":"setHighlight","highlight":{"categories":["Germany"]}}`, ""},
		{"scatter-life-expectancy-gdp", `{"op":"setFacet","facet":{"column":"c5","scales":"shared"}}`, ""},
		{"line-monthly-sales", `{"op":"setTheme","theme":"dark"}`, ""},
		{"line-monthly-sales", `{"op":"removeAnnotation","index":0}`, story},
		{"line-monthly-sales", `{"op":"clearAnnotations"}`, story},
	}
}

// Draw draws every example and pair with fonts, and embeds the faces they
// use with sub. It is meant to run once, at start.
func Draw(ctx context.Context, cat *charts.Catalog, ops *chartspec.Ops, fonts *draw.Fonts, sub draw.Subsetter) (*Gallery, error) {
	if cat == nil || ops == nil || fonts == nil || sub == nil {
		return nil, fmt.Errorf("gallery: catalog, ops, fonts and subsetter are required")
	}
	g := &Gallery{Examples: map[string]string{}, Types: map[string]string{}}
	var all [][]byte
	for _, ct := range cat.Types() {
		g.Types[ct.Type] = cat.Sample(ct.Type).ID
		for _, ex := range cat.Examples(ct.Type) {
			svg, err := drawExample(cat, ops, ct, ex, draw.Input{Width: ExampleWidth, Height: ExampleHeight, Fonts: fonts})
			if err != nil {
				return nil, err
			}
			g.Examples[ex.ID] = string(svg)
			all = append(all, svg)
		}
	}
	for _, po := range pairOps() {
		ex, ok := cat.Example(po.example)
		if !ok {
			return nil, fmt.Errorf("gallery: pair example %s is not in the catalog", po.example)
		}
		ct, _ := cat.Type(ex.Type)
		pair := draw.Input{Width: PairWidth, Height: PairHeight, Fonts: fonts}
		var setup []string
		if po.setup != "" {
			var list []json.RawMessage
			if err := json.Unmarshal([]byte(po.setup), &list); err != nil {
				return nil, fmt.Errorf("gallery: pair setup %s: %w", po.setup, err)
			}
			for _, op := range list {
				setup = append(setup, string(op))
			}
		}
		before, err := drawExample(cat, ops, ct, ex, pair, setup...)
		if err != nil {
			return nil, err
		}
		after, err := drawExample(cat, ops, ct, ex, pair, append(setup, po.op)...)
		if err != nil {
			return nil, err
		}
		var name struct{ Op string }
		if err := json.Unmarshal([]byte(po.op), &name); err != nil {
			return nil, fmt.Errorf("gallery: pair op %s: %w", po.op, err)
		}
		g.Pairs = append(g.Pairs, Pair{Op: name.Op, JSON: po.op, Setup: po.setup, Example: ex.ID, Before: string(before), After: string(after)})
		all = append(all, before, after)
	}
	widths, err := drawWidths(cat, ops, fonts)
	if err != nil {
		return nil, err
	}
	for _, w := range widths {
		g.Widths = append(g.Widths, w)
		all = append(all, []byte(w.SVG))
	}
	block, err := FontBlock(ctx, fonts, sub, all)
	if err != nil {
		return nil, err
	}
	g.Fonts = block
	return g, nil
}

// PairFor answers the pair of op, if the gallery has one.
func (g *Gallery) PairFor(op string) (Pair, bool) {
	for _, p := range g.Pairs {
		if p.Op == op {
			return p, true
		}
	}
	return Pair{}, false
}

// drawWidths draws WidthsExample in a frame of each of EmbedWidths, at the
// size and smallest type an embed draws it with.
func drawWidths(cat *charts.Catalog, ops *chartspec.Ops, fonts *draw.Fonts) ([]Sized, error) {
	ex, ok := cat.Example(WidthsExample)
	if !ok {
		return nil, fmt.Errorf("gallery: widths example %s is not in the catalog", WidthsExample)
	}
	ct, _ := cat.Type(ex.Type)
	ec, err := chartspec.Example(cat, ct, ex)
	if err != nil {
		return nil, fmt.Errorf("gallery: %w", err)
	}
	var out []Sized
	for _, fw := range EmbedWidths() {
		w, h := draw.SizeAtWidth(ec.Spec, fw)
		svg, err := drawExample(cat, ops, ct, ex, draw.Input{Width: w, Height: h, Fonts: fonts, MinText: draw.ReadingMinText})
		if err != nil {
			return nil, err
		}
		out = append(out, Sized{Width: w, Height: h, SVG: string(svg)})
	}
	return out, nil
}

// drawExample draws example ex of type ct as in says (its size, fonts and
// smallest type), after the ops in apply, in order.
func drawExample(cat *charts.Catalog, ops *chartspec.Ops, ct charts.ChartType, ex charts.Example, in draw.Input, apply ...string) ([]byte, error) {
	ec, err := chartspec.Example(cat, ct, ex)
	if err != nil {
		return nil, fmt.Errorf("gallery: %w", err)
	}
	spec := ec.Spec
	for _, op := range apply {
		if spec, err = ops.Apply(spec, []json.RawMessage{json.RawMessage(op)}, chartspec.Env{Table: ec.Table}); err != nil {
			return nil, fmt.Errorf("gallery: %s on %s: %w", op, ex.ID, err)
		}
	}
	var steps []dataset.Step
	for i, raw := range spec.Steps {
		st, err := dataset.DecodeStep(raw)
		if err != nil {
			return nil, fmt.Errorf("gallery: %s step %d: %w", ex.ID, i, err)
		}
		steps = append(steps, st)
	}
	t, err := dataset.ApplyAll(ec.Table, steps, dataset.Defaults{ValueColumn: spec.ValueColumn()})
	if err != nil {
		return nil, fmt.Errorf("gallery: %s steps: %w", ex.ID, err)
	}
	in.Spec, in.Table = spec, t
	out, err := draw.Render(in)
	if err != nil {
		return nil, fmt.Errorf("gallery: draw %s: %w", ex.ID, err)
	}
	return out.SVG, nil
}

// FontBlock answers a hidden inline <svg> holding the @font-face rules of
// every face the given SVGs draw text with, each cut to the characters
// all of them draw: draw.Fonts.EmbedFonts on one document that holds them
// all, keeping only what it adds.
func FontBlock(ctx context.Context, fonts *draw.Fonts, sub draw.Subsetter, svgs [][]byte) (string, error) {
	head := []byte(`<svg xmlns="http://www.w3.org/2000/svg" width="0" height="0" aria-hidden="true" focusable="false" style="position:absolute;width:0;height:0;overflow:hidden"><desc></desc>`)
	const tail = `</svg>`
	doc := bytes.Join(append([][]byte{head}, svgs...), nil)
	doc = append(doc, tail...)
	out, err := fonts.EmbedFonts(ctx, doc, sub)
	if err != nil {
		return "", fmt.Errorf("gallery: embed fonts: %w", err)
	}
	added := out[len(head) : len(out)-(len(doc)-len(head))]
	return string(head) + string(added) + tail, nil
}

// Source fetches a gallery once and keeps it: pages that show pictures
// ask it, and only the first successful fetch is made (a failed one is
// tried again on the next ask). Its zero value needs Fetch.
type Source struct {
	// Fetch draws or fetches the gallery, such as clients.Render.Gallery.
	Fetch func(context.Context) (*Gallery, error)

	mu sync.Mutex
	g  *Gallery
}

// Get answers the gallery, fetching it the first time.
func (s *Source) Get(ctx context.Context) (*Gallery, error) {
	s.mu.Lock()
	defer s.mu.Unlock()
	if s.g != nil {
		return s.g, nil
	}
	if s.Fetch == nil {
		return nil, fmt.Errorf("gallery: no source")
	}
	g, err := s.Fetch(ctx)
	if err != nil {
		return nil, fmt.Errorf("gallery: %w", err)
	}
	s.g = g
	return g, nil
}

// Has reports whether the gallery is fetched, so a page can be served
// with its pictures without waiting.
func (s *Source) Has() bool {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.g != nil
}

// Warm fetches the gallery at process start, trying again after first,
// then twice as long each time up to a minute, until it has it or ctx
// ends: the first visitor of the docs or the home page finds the
// pictures drawn instead of waiting for them.
func (s *Source) Warm(ctx context.Context, first time.Duration) {
	wait := first
	for {
		if _, err := s.Get(ctx); err == nil {
			return
		}
		t := time.NewTimer(wait)
		select {
		case <-ctx.Done():
			t.Stop()
			return
		case <-t.C:
		}
		wait = min(2*wait, time.Minute)
	}
}

// FontCSS is the font block's @font-face rules as a style sheet, for a
// page whose policy takes styles from files only.
func (g *Gallery) FontCSS() string {
	_, rest, ok := strings.Cut(g.Fonts, "<style>")
	if !ok {
		return ""
	}
	css, _, _ := strings.Cut(rest, "</style>")
	return css
}
