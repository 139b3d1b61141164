package chartspec

import (
	"fmt"
	"slices"
	"strconv"
	"strings"

	"chartd.dev/charts"
)

// BrandPalette is the palette value that applies the account's saved brand palette.
const BrandPalette = "brand"

// SetPalette sets the series colours: a preset palette, the account's
// brand palette, or explicit colours.
type SetPalette struct {
	Op      string   `json:"op"`
	Palette string   `json:"palette,omitempty"`
	Colors  []string `json:"colors,omitempty"`
}

// Name is "setPalette".
func (SetPalette) Name() string { return "setPalette" }

func (o *SetPalette) apply(st *applyState) *OpError {
	var colors []string
	field := "colors"
	switch {
	case o.Colors != nil:
		colors = o.Colors
	case o.Palette == BrandPalette:
		field = "palette"
		brand, err := st.brand()
		if err != nil {
			st.err = err
			return opErr("palette", "the brand palette could not be read")
		}
		if len(brand) == 0 {
			return opErr("palette", "no brand palette is saved; save one first with set_brand_palette (PUT /brand-palette, Pro plan), or choose a preset: %s", presetList(st.o.cat))
		}
		colors = brand
	default:
		pal, ok := st.o.cat.Palette(o.Palette)
		if !ok {
			return opErr("palette", "no preset palette %q; the presets are %s, or %q for the account's brand palette", o.Palette, presetList(st.o.cat), BrandPalette)
		}
		colors = pal.Colors
	}
	out := make([]string, len(colors))
	for i, c := range colors {
		_, hex, ok := ParseColor(c)
		if !ok {
			return opErr(fmt.Sprintf("%s[%d]", field, i), "%q is not a colour; use #RRGGBB or #RGB, such as #1F77B4", c)
		}
		out[i] = hex
	}
	st.spec.Style.Palette = out
	return nil
}

// presetList names the preset palettes for messages.
func presetList(cat *charts.Catalog) string {
	var ids []string
	for _, p := range cat.Palettes() {
		ids = append(ids, p.ID)
	}
	return strings.Join(ids, ", ")
}

func defSetPalette(cat *charts.Catalog) opDef {
	var presets []string
	for _, p := range cat.Palettes() {
		presets = append(presets, p.ID)
	}
	palette := str(`a preset palette id (` + strings.Join(presets, ", ") + `; see list_palettes) or "brand" for the account's saved brand palette`)
	palette.minLen = 1
	colors := &schema{
		types:    []string{"array"},
		desc:     "explicit series colours, used in order",
		items:    colorString("a colour as #RRGGBB or #RGB, such as #1F77B4"),
		minItems: 1,
		maxItems: 12,
	}
	s := object("Sets the series colours: give palette or colors.", []string{"op"},
		p("op", opConst("setPalette")),
		p("palette", palette),
		p("colors", colors),
	)
	s.oneOf = []*schema{{required: []string{"palette"}}, {required: []string{"colors"}}}
	return opDef{
		name:    "setPalette",
		about:   "series colours: a preset id (okabe-ito is colour-blind safe), \"brand\", or colors; give one of palette, colors",
		schema:  s,
		example: `{"op":"setPalette","palette":"okabe-ito"}`,
		newOp:   func() Op { return &SetPalette{} },
	}
}

// SetSeriesColor pins a colour to one series (a value column) or one
// category (a pie slice, a bar, a scatter group), overriding the palette.
type SetSeriesColor struct {
	Op     string  `json:"op"`
	Series string  `json:"series"`
	Color  *string `json:"color"`
}

// Name is "setSeriesColor".
func (SetSeriesColor) Name() string { return "setSeriesColor" }

func (o *SetSeriesColor) apply(st *applyState) *OpError {
	if oe := checkSeriesKey(st, o.Series); oe != nil {
		return oe
	}
	if st.spec.Style.SeriesColors == nil {
		st.spec.Style.SeriesColors = map[string]string{}
	}
	if o.Color == nil || *o.Color == "" {
		if _, ok := st.spec.Style.SeriesColors[o.Series]; !ok {
			return opErr("color", "series %q has no colour of its own to remove; give a colour such as #D62728", o.Series)
		}
		delete(st.spec.Style.SeriesColors, o.Series)
		return nil
	}
	_, hex, ok := ParseColor(*o.Color)
	if !ok {
		return opErr("color", "%q is not a colour; use #RRGGBB or #RGB, such as #D62728", *o.Color)
	}
	st.spec.Style.SeriesColors[o.Series] = hex
	return nil
}

// checkSeriesKey accepts a column of a number role, or a value of the
// chart's category role.
func checkSeriesKey(st *applyState, key string) *OpError {
	t := st.table()
	var valueCols []string
	for _, r := range st.ct.Roles {
		if r.Numeric {
			ids := st.spec.Mapping.Cols(r.Role)
			if slices.Contains(ids, key) {
				return nil
			}
			for _, c := range t.ColumnsByID(ids) {
				if c != nil {
					valueCols = append(valueCols, colLabel(c))
				}
			}
		}
	}
	var examples []string
	for _, role := range categoryRoles(st.spec.Type) {
		c, ok := t.Column(st.spec.Mapping.Col(role))
		if !ok {
			continue
		}
		seen := map[string]bool{}
		for i := 0; i < t.Rows; i++ {
			v := c.Format(i)
			if v == key {
				return nil
			}
			if len(examples) < 5 && v != "" && !seen[v] {
				seen[v] = true
				examples = append(examples, strconv.Quote(v))
			}
		}
	}
	msg := fmt.Sprintf("no series %q; ", key)
	switch {
	case len(valueCols) > 0 && len(examples) > 0:
		msg += "use a value column (" + strings.Join(valueCols, ", ") + ") or a category such as " + strings.Join(examples, ", ")
	case len(valueCols) > 0:
		msg += "the series are the value columns " + strings.Join(valueCols, ", ")
	case len(examples) > 0:
		msg += "use a category such as " + strings.Join(examples, ", ")
	default:
		msg += "the chart has no mapped value columns yet; map them with setMapping"
	}
	return opErr("series", "%s", msg)
}

// categoryRoles are the roles whose values can carry their own colour.
func categoryRoles(chartType string) []string {
	switch chartType {
	case "bar", "dotplot":
		return []string{"category"}
	case "pie":
		return []string{"label"}
	case "scatter", "boxplot":
		return []string{"group"}
	case "sankey":
		return []string{"source", "target"}
	}
	return nil
}

func defSetSeriesColor() opDef {
	color := nullable(colorString("the colour as #RRGGBB or #RGB; null removes the series' own colour"))
	return opDef{
		name:  "setSeriesColor",
		about: "pin a colour to a value column (\"c2\") or a category value (a bar, slice or group), e.g. to highlight one; null unpins",
		schema: object("Gives one series or category its own colour, overriding the palette.", []string{"op", "series", "color"},
			p("op", opConst("setSeriesColor")),
			p("series", &schema{types: []string{"string"}, minLen: 1, desc: `a value column id such as "c2", or a category value such as "France"`}),
			p("color", color),
		),
		example: `{"op":"setSeriesColor","series":"c2","color":"#D62728"}`,
		newOp:   func() Op { return &SetSeriesColor{} },
	}
}

// PositionInput moves the legend; fields left out keep their value.
type PositionInput struct {
	X string `json:"x,omitempty"`
	Y string `json:"y,omitempty"`
}

// SetLegend shows, hides or moves the legend.
type SetLegend struct {
	Op       string         `json:"op"`
	Show     *Toggle        `json:"show,omitempty"`
	Position *PositionInput `json:"position,omitempty"`
}

// Name is "setLegend".
func (SetLegend) Name() string { return "setLegend" }

func (o *SetLegend) apply(st *applyState) *OpError {
	lg := &st.spec.Style.Legend
	if o.Show != nil {
		lg.Show = *o.Show
	}
	if o.Position != nil {
		if o.Position.X != "" {
			lg.Position.X = o.Position.X
		}
		if o.Position.Y != "" {
			lg.Position.Y = o.Position.Y
		}
	}
	if lg.Show == "" {
		lg.Show = Auto
	}
	return nil
}

func defSetLegend() opDef {
	pos := object("where the legend sits", nil,
		p("x", enumOf("horizontal place", "left", "center", "right")),
		p("y", enumOf("vertical place", "top", "middle", "bottom")),
	)
	pos.minProps = 1
	s := object("Shows, hides or moves the legend.", []string{"op"},
		p("op", opConst("setLegend")),
		p("show", &schema{desc: `"auto" (shown when there is more than one series), true or false`, enum: []any{"auto", true, false}}),
		p("position", pos),
	)
	s.minProps = 2
	return opDef{
		name:    "setLegend",
		about:   "show (\"auto\" = only with several series), hide or move the legend",
		schema:  s,
		example: `{"op":"setLegend","show":true,"position":{"x":"right","y":"top"}}`,
		newOp:   func() Op { return &SetLegend{} },
	}
}

// SetAxis adjusts one axis: range, log scale, tick format. Fields left out
// keep their value; null min or max goes back to automatic.
type SetAxis struct {
	Op         string            `json:"op"`
	Axis       string            `json:"axis"`
	Min        Optional[float64] `json:"min"`
	Max        Optional[float64] `json:"max"`
	Log        *bool             `json:"log,omitempty"`
	Scale      *string           `json:"scale,omitempty"`
	TickFormat *string           `json:"tickFormat,omitempty"`
}

// Name is "setAxis".
func (SetAxis) Name() string { return "setAxis" }

func (o *SetAxis) apply(st *applyState) *OpError {
	if oe := needAxes(st.spec.Type, "setAxis"); oe != nil {
		return oe
	}
	slot := &st.spec.Style.YAxis
	if o.Axis == "x" {
		slot = &st.spec.Style.XAxis
	}
	ax := Axis{}
	if *slot != nil {
		ax = cloneAxis(**slot)
	}
	set := func(opt Optional[float64], dst **float64) {
		if opt.Set {
			*dst = nil
			if !opt.Null {
				v := opt.Value
				*dst = &v
			}
		}
	}
	set(o.Min, &ax.Min)
	set(o.Max, &ax.Max)
	if o.Log != nil {
		ax.Log = *o.Log
	}
	if o.Scale != nil {
		switch *o.Scale {
		case "log", "linear":
			ax.Scale, ax.Log = *o.Scale, *o.Scale == "log"
		default: // "": the drawing chooses
			ax.Scale, ax.Log = "", false
		}
	}
	if o.TickFormat != nil {
		ax.TickFormat = *o.TickFormat
	}
	if ax.Min != nil && ax.Max != nil && *ax.Min >= *ax.Max {
		return opErr("min", "must be below max; the %s axis would run from %s to %s", o.Axis, formatNum(*ax.Min), formatNum(*ax.Max))
	}
	if ax.Log && ax.Min != nil && *ax.Min <= 0 {
		return opErr("min", "a log axis cannot start at %s; give a min above 0, or null for automatic", formatNum(*ax.Min))
	}
	if ax.Min == nil && ax.Max == nil && !ax.Log && ax.Scale == "" && ax.TickFormat == "" {
		*slot = nil
	} else {
		*slot = &ax
	}
	return nil
}

func defSetAxis() opDef {
	bound := func(desc string) *schema { return nullable(number(desc)) }
	s := object("Adjusts the x or y axis: range, log scale, tick format.", []string{"op", "axis"},
		p("op", opConst("setAxis")),
		p("axis", axisSchema()),
		p("min", bound("where the axis starts; null is automatic (value axes of bars start at 0)")),
		p("max", bound("where the axis ends; null is automatic")),
		p("log", boolean("true for a logarithmic scale (every value must be above 0)")),
		p("scale", enumOf("log or linear; empty leaves it to the drawing, which makes a scatter axis of positive values spanning more than 3 orders of magnitude logarithmic", "log", "linear", "")),
		p("tickFormat", enumOf("how tick labels are written", "auto", "number", "compact", "percent", "date")),
	)
	s.minProps = 3
	return opDef{
		name:    "setAxis",
		about:   "axis range (min/max, null = automatic), scale (log or linear), tick format",
		schema:  s,
		example: `{"op":"setAxis","axis":"y","min":0,"max":100,"tickFormat":"percent"}`,
		newOp:   func() Op { return &SetAxis{} },
	}
}

// SetSize sets the canvas size images are drawn at.
type SetSize struct {
	Op     string `json:"op"`
	Width  int    `json:"width"`
	Height int    `json:"height"`
}

// Name is "setSize".
func (SetSize) Name() string { return "setSize" }

func (o *SetSize) apply(st *applyState) *OpError {
	st.spec.Style.Size = FormatSize(o.Width, o.Height)
	return nil
}

func defSetSize() opDef {
	return opDef{
		name:  "setSize",
		about: "canvas size in pixels, 100..4000 each side",
		schema: object("Sets the chart's canvas size in CSS pixels.", []string{"op", "width", "height"},
			p("op", opConst("setSize")),
			p("width", integer("the width in pixels", 100, 4000)),
			p("height", integer("the height in pixels", 100, 4000)),
		),
		example: `{"op":"setSize","width":1200,"height":675}`,
		newOp:   func() Op { return &SetSize{} },
	}
}
