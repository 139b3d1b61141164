// Package charts is chartd's catalog as data: the ten chart types with their
// roles and options, gallery examples with sample data, preset palettes and
// the reference pages. Everything is embedded in the binary and checked by
// Load, so a service that starts with a catalog can trust every entry in it.
package charts

import (
	"embed"
	"fmt"
	"io/fs"
	"slices"
	"sort"
)

// files holds the catalog's source files. It is read-only: embed.FS cannot change.
//
//go:embed types.json examples.json palettes.json examples/*.csv docs/*.md
var files embed.FS

// Catalog is the loaded, validated catalog. It is immutable: every accessor
// returns copies, so callers may change what they get without affecting others.
type Catalog struct {
	types        []ChartType
	typeIndex    map[string]int
	examples     []Example
	exampleIndex map[string]int
	palettes     []Palette
	paletteIndex map[string]int
	pages        []Page
	pageIndex    map[string]int
}

// SpecTypes lists the chart types the API contract allows, in the contract's
// order; Load refuses a catalog that does not describe exactly these.
func SpecTypes() []string {
	return []string{"bar", "line", "pie", "scatter", "histogram", "boxplot", "dotplot", "sankey", "radar", "heatmap"}
}

// Load parses and validates the embedded catalog. Services call it once at
// start; an error means the catalog shipped in the binary is broken.
func Load() (*Catalog, error) {
	return load(files)
}

// load builds a catalog from any file tree laid out like the embedded one,
// so tests can feed it broken catalogs.
func load(fsys fs.FS) (*Catalog, error) {
	c := &Catalog{}
	var err error
	if c.palettes, err = loadPalettes(fsys); err != nil {
		return nil, fmt.Errorf("load catalog: %w", err)
	}
	if c.types, err = loadTypes(fsys); err != nil {
		return nil, fmt.Errorf("load catalog: %w", err)
	}
	c.typeIndex = indexBy(c.types, func(t ChartType) string { return t.Type })
	c.paletteIndex = indexBy(c.palettes, func(p Palette) string { return p.ID })
	if c.examples, err = loadExamples(fsys, c.typeIndex, c.types, c.paletteIndex); err != nil {
		return nil, fmt.Errorf("load catalog: %w", err)
	}
	c.exampleIndex = indexBy(c.examples, func(e Example) string { return e.ID })
	if err := checkSamples(c); err != nil {
		return nil, fmt.Errorf("load catalog: %w", err)
	}
	if c.pages, err = loadPages(fsys); err != nil {
		return nil, fmt.Errorf("load catalog: %w", err)
	}
	c.pageIndex = indexBy(c.pages, func(p Page) string { return p.Slug })
	return c, nil
}

// indexBy maps each item's key to its position; callers have already checked keys are unique.
func indexBy[T any](items []T, key func(T) string) map[string]int {
	m := make(map[string]int, len(items))
	for i, it := range items {
		m[key(it)] = i
	}
	return m
}

// checkSamples makes sure every type names a sample example of its own type and has at least two examples.
func checkSamples(c *Catalog) error {
	for _, t := range c.types {
		i, ok := c.exampleIndex[t.sample]
		if !ok {
			return fmt.Errorf("type %s: sample example %q does not exist", t.Type, t.sample)
		}
		if c.examples[i].Type != t.Type {
			return fmt.Errorf("type %s: sample example %q is a %s example", t.Type, t.sample, c.examples[i].Type)
		}
		n := 0
		for _, e := range c.examples {
			if e.Type == t.Type {
				n++
			}
		}
		if n < 2 {
			return fmt.Errorf("type %s: has %d examples, want at least 2", t.Type, n)
		}
	}
	return nil
}

// Types lists the chart types in the contract's order.
func (c *Catalog) Types() []ChartType {
	out := make([]ChartType, len(c.types))
	for i, t := range c.types {
		out[i] = t.clone()
	}
	return out
}

// Type finds a chart type by its name (for example "bar").
func (c *Catalog) Type(name string) (ChartType, bool) {
	i, ok := c.typeIndex[name]
	if !ok {
		return ChartType{}, false
	}
	return c.types[i].clone(), true
}

// Examples lists the gallery examples, only those of one chart type when
// typeFilter is not empty. An unknown type gives an empty, non-nil list.
func (c *Catalog) Examples(typeFilter string) []Example {
	out := []Example{}
	for _, e := range c.examples {
		if typeFilter == "" || e.Type == typeFilter {
			out = append(out, e.clone())
		}
	}
	return out
}

// Example finds a gallery example by id.
func (c *Catalog) Example(id string) (Example, bool) {
	i, ok := c.exampleIndex[id]
	if !ok {
		return Example{}, false
	}
	return c.examples[i].clone(), true
}

// Sample is the example whose data and settings create_chart uses when it
// gets a chart type alone. It is the zero Example for an unknown type.
func (c *Catalog) Sample(chartType string) Example {
	i, ok := c.typeIndex[chartType]
	if !ok {
		return Example{}
	}
	e, _ := c.Example(c.types[i].sample)
	return e
}

// Palettes lists the preset palettes; the first is the default one.
func (c *Catalog) Palettes() []Palette {
	out := make([]Palette, len(c.palettes))
	for i, p := range c.palettes {
		out[i] = p.clone()
	}
	return out
}

// Palette finds a preset palette by id (for example "okabe-ito").
func (c *Catalog) Palette(id string) (Palette, bool) {
	i, ok := c.paletteIndex[id]
	if !ok {
		return Palette{}, false
	}
	return c.palettes[i].clone(), true
}

// DefaultPalette is the palette new charts start with (id "default").
func (c *Catalog) DefaultPalette() Palette {
	p, _ := c.Palette(DefaultPaletteID)
	return p
}

// Pages lists the reference pages: "overview" first, the rest by slug.
func (c *Catalog) Pages() []Page {
	return slices.Clone(c.pages)
}

// Page finds a reference page by slug (its file name without ".md", for example "limits").
func (c *Catalog) Page(slug string) (Page, bool) {
	i, ok := c.pageIndex[slug]
	if !ok {
		return Page{}, false
	}
	return c.pages[i], true
}

// sortPages puts the overview first and the others in slug order, so the
// reference reads from the general to the particular.
func sortPages(pages []Page) {
	sort.SliceStable(pages, func(i, j int) bool {
		a, b := pages[i].Slug, pages[j].Slug
		if (a == overviewSlug) != (b == overviewSlug) {
			return a == overviewSlug
		}
		return a < b
	})
}
