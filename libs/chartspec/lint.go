package chartspec

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"chartd.dev/charts"
	"chartd.dev/libs/dataset"
	colorful "github.com/lucasb-eyer/go-colorful"
)

// Problem is a lint finding (spec §2 "Lint problem"). A warn should be
// fixed; an info is a suggestion. Message says what to do and names the op.
type Problem struct {
	ID      string `json:"id"`
	Level   string `json:"level" enum:"warn,info"`
	Message string `json:"message"`
}

// Lint levels.
const (
	Warn = "warn"
	Info = "info"
)

// Lint check ids.
const (
	CheckMissingRole        = "missing-required-role"
	CheckNoData             = "no-data"
	CheckEmptyAfterSteps    = "empty-after-steps"
	CheckMissingTitle       = "missing-title"
	CheckPieTooManySlices   = "pie-too-many-slices"
	CheckPieNegative        = "pie-negative-values"
	CheckFaintColor         = "faint-color"
	CheckSimilarColors      = "similar-colors"
	CheckBarAxisNotZero     = "bar-axis-not-zero"
	CheckLogAxisNonPositive = "log-axis-non-positive"
	CheckTooManySeries      = "too-many-series"
	CheckTooManyCategories  = "too-many-categories"
	CheckLongLabels         = "long-category-labels"
	CheckUnsortedLineX      = "unsorted-line-x"
	CheckDuplicateLineX     = "line-duplicate-x"
	CheckOverplotting       = "scatter-overplotting"
	CheckRadarAxes          = "radar-too-many-axes"
	CheckSankeyCycle        = "sankey-cycle"
	CheckHistogramBins      = "histogram-bins"
	CheckHistogramOutlier   = "histogram-outlier"
	CheckPercentNegative    = "percent-stack-negative"
	CheckHeatmapWide        = "heatmap-wide-data"
	CheckHighlightAllOrNone = "highlight-all-or-none"
	CheckFacetCrowded       = "facet-panels-too-small"
	CheckDarkFaintColor     = "dark-faint-color"
	CheckLookNotDrawn       = "look-not-drawn"
)

// Thresholds of the checks, named so docs and tests can quote them.
const (
	MaxPieSlices     = 6
	MaxSeries        = 8
	MaxBars          = 30
	MaxLabelRunes    = 20
	MaxRadarAxes     = 10
	MinContrast      = 3.0  // WCAG 1.4.11, non-text contrast
	FaintWarnBelow   = 2.0  // below this a faint colour is a warn, above an info
	SimilarDeltaE    = 10.0 // CIEDE2000, normal vision
	SimilarCVDDeltaE = 8.0  // CIEDE2000, simulated deuteranopia/protanopia
	OverplotShare    = 0.3  // share of points hidden under others
	// OutlierIQRs is how many interquartile ranges beyond the quartiles a
	// histogram value lies to count as far out.
	OutlierIQRs = 10.0
	// OutlierSquash is the share of a histogram's axis under which the
	// other values, squeezed by the far ones, no longer show their shape.
	OutlierSquash = 0.2
)

// Check describes one lint check for docs and clients.
type Check struct {
	ID    string `json:"id"`
	Level string `json:"level"`
	About string `json:"about"`
}

// Checks lists every lint check with its usual level.
func Checks() []Check {
	return append([]Check{
		{CheckMissingRole, Warn, "a role the chart type needs has no column; setMapping fixes it"},
		{CheckNoData, Warn, "the chart has no data rows; set_data fixes it"},
		{CheckEmptyAfterSteps, Warn, "the steps leave no rows; updateTransform or removeTransform fixes it"},
		{CheckMissingTitle, Info, "the chart has no title; setTitle fixes it"},
		{CheckPieTooManySlices, Warn, fmt.Sprintf("a pie with more than %d slices; addTransform topN with n = 5 fixes it", MaxPieSlices)},
		{CheckPieNegative, Warn, "a pie with negative values, which slices cannot show; filter them or use a bar chart"},
		{CheckFaintColor, Warn, "a series colour below 3:1 contrast against the background (WCAG 1.4.11); info from 2:1 to 3:1"},
		{CheckSimilarColors, Warn, "two series colours too close to tell apart (CIEDE2000); info when only under deuteranopia or protanopia"},
		{CheckBarAxisNotZero, Warn, "a bar value axis that does not start at zero (or is logarithmic), which exaggerates differences"},
		{CheckLogAxisNonPositive, Warn, "a logarithmic axis with values at or below zero, which it cannot draw"},
		{CheckTooManySeries, Warn, fmt.Sprintf("more than %d series, more colours than a reader can match to the legend; show fewer, highlight a few, or use small multiples", MaxSeries)},
		{CheckTooManyCategories, Warn, fmt.Sprintf("a bar chart with more than %d bars", MaxBars)},
		{CheckLongLabels, Info, fmt.Sprintf("category labels over %d characters under vertical bars; horizontal bars fit them", MaxLabelRunes)},
		{CheckNeedsRoom, Warn, "text the chart is too small for: a title cut after its lines, or categories named in smaller type or only every nth; the message names the size that holds it (setSize). Found by drawing the chart, so it is left out while the render service is away"},
		{CheckLabelsHidden, Info, "value labels the drawing left out where they would overlap others (or, past 4 lines, all but each line's last value, highest and lowest): how many, out of how many. Found by drawing the chart, like needs-room"},
		{CheckUnsortedLineX, Info, "line rows not in x order"},
		{CheckDuplicateLineX, Warn, "a line whose x values repeat, so it zigzags; aggregate per x"},
		{CheckLineUnordered, Warn, unorderedAbout},
		{CheckOverplotting, Warn, "a scatter plot whose points hide each other; lower opacity and point size"},
		{CheckRadarAxes, Warn, fmt.Sprintf("a radar with more than %d spokes", MaxRadarAxes)},
		{CheckSankeyCycle, Warn, "sankey flows that loop back, which a sankey cannot draw"},
		{CheckHistogramBins, Warn, "histogram bins too few or too many for the number of values"},
		{CheckHistogramOutlier, Warn, fmt.Sprintf("a few histogram values so far out (%g interquartile ranges) that the rest are squeezed into a few bars", OutlierIQRs)},
		{CheckPercentNegative, Warn, "bars stacked to 100 % with negative values, which have no share of a total"},
		{CheckHeatmapWide, Warn, "a heatmap of a wide table (a row name and a number column per grid column) mapped as one row per cell, so most cells are empty"},
		{CheckHighlightAllOrNone, Warn, "a highlight that names every category or series, or none, so nothing stands out; setHighlight null or a shorter list fixes it"},
		{CheckFacetCrowded, Warn, fmt.Sprintf("small multiples whose panels are smaller than %d×%d px, too small for their text; setSize or fewer panels fixes it", MinPanelWidth, MinPanelHeight)},
		{CheckDarkFaintColor, Warn, "on a dark or auto theme, a series colour below 3:1 against the dark background; setSeriesColor with a lighter colour fixes it"},
		{CheckLookNotDrawn, Warn, "a highlight or small multiples the chart type does not draw (kept from another type), or a facet column the data no longer has as text"},
	}, annotationChecks()...)
}

// LintEnv is what lint needs besides the spec and the data.
type LintEnv struct {
	// Catalog gives the chart type's roles and options; required.
	Catalog *charts.Catalog
	// Transparent says the chart is drawn without a background, so colour
	// contrast against white is not judged.
	Transparent bool
}

// lintCtx is one lint run.
type lintCtx struct {
	spec *Spec
	t    *dataset.Table
	ct   charts.ChartType
	env  LintEnv
	out  []Problem
}

func (c *lintCtx) add(id, level, format string, args ...any) {
	c.out = append(c.out, Problem{ID: id, Level: level, Message: fmt.Sprintf(format, args...)})
}

// col answers the column of a role when the table has it.
func (c *lintCtx) col(role string) *dataset.Column {
	col, ok := c.t.Column(c.spec.Mapping.Col(role))
	if !ok {
		return nil
	}
	return col
}

// numCol answers the column of a role when it is a number column.
func (c *lintCtx) numCol(role string) *dataset.Column {
	col := c.col(role)
	if col == nil || col.Kind != dataset.Number {
		return nil
	}
	return col
}

// Lint answers the chart's readability problems, warns first; an empty
// (non-nil) list means none were found. t is the data after the steps.
func Lint(spec *Spec, t *dataset.Table, env LintEnv) []Problem {
	out, _ := LintContext(context.Background(), spec, t, env)
	return out
}

// LintContext is Lint that stops between checks once ctx ends (a client
// that has gone), answering ctx's error; each check is linear in the data.
func LintContext(ctx context.Context, spec *Spec, t *dataset.Table, env LintEnv) ([]Problem, error) {
	out := []Problem{}
	if spec == nil || env.Catalog == nil {
		return out, nil
	}
	ct, ok := env.Catalog.Type(spec.Type)
	if !ok {
		return append(out, Problem{ID: CheckMissingRole, Level: Warn, Message: fmt.Sprintf("the chart type %q is unknown; choose one with setType", spec.Type)}), nil
	}
	if t == nil {
		t = &dataset.Table{}
	}
	c := &lintCtx{spec: spec, t: t, ct: ct, env: env, out: out}
	c.missingRoles()
	c.title()
	c.annotations()
	if t.Rows == 0 {
		if len(spec.Steps) > 0 {
			c.add(CheckEmptyAfterSteps, Warn, "The steps leave no rows to draw. Look at what each step keeps with query_data, then fix the step with updateTransform or remove it with removeTransform (or clearTransforms).")
		} else {
			c.add(CheckNoData, Warn, "The chart has no data rows; send data with set_data.")
		}
	} else {
		for _, check := range []func(){c.pie, c.colors, c.axes, c.seriesCount, c.categories, c.line, c.lineCategories, c.scatter, c.radar, c.sankey, c.histogram,
			c.histogramOutlier, c.percentNegative, c.heatmapWide, c.highlight, c.facet, c.darkColors} {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("lint: %w", err)
			}
			check()
		}
	}
	slices.SortStableFunc(c.out, func(a, b Problem) int {
		return cmp.Compare(levelRank(a.Level), levelRank(b.Level))
	})
	return c.out, nil
}

func levelRank(l string) int {
	if l == Warn {
		return 0
	}
	return 1
}

// missingRoles reports required roles without a usable column.
func (c *lintCtx) missingRoles() {
	for _, r := range c.ct.Roles {
		if !r.Required {
			continue
		}
		ids := c.spec.Mapping.Cols(r.Role)
		var bad []string
		for i, col := range c.t.ColumnsByID(ids) {
			if col == nil || !Fits(r, col) {
				bad = append(bad, ids[i])
			}
		}
		if len(ids) > 0 && len(bad) == 0 {
			continue
		}
		cands := columnsFor(c.t, r)
		what := "has no column for"
		if len(bad) > 0 {
			what = "maps " + idText(bad) + ", which the data after steps lacks or cannot use, to"
		}
		if len(cands) == 0 {
			c.add(CheckMissingRole, Warn, "The %s chart %s %s, and the data has no %s column to map. Send data that has one with set_data, or pick a chart type that fits the data with setType.",
				c.ct.Type, what, r.Role, strings.Join(r.Kinds, " or "))
			continue
		}
		v := strconv.Quote(cands[0].ID)
		if r.Multi {
			v = "[" + v + "]"
		}
		c.add(CheckMissingRole, Warn, `The %s chart %s %s. Map %s with {"op":"setMapping","mapping":{%q:%s}}; the candidates are %s.`,
			c.ct.Type, what, r.Role, roleTakes(r), r.Role, v, columnList(cands))
	}
}

func (c *lintCtx) title() {
	if t := c.spec.Style.Title; !t.Show || strings.TrimSpace(t.Text) == "" {
		c.add(CheckMissingTitle, Info, `The chart has no title. Say what it shows with {"op":"setTitle","title":{"text":"…"}}.`)
	}
}

// pie checks slice count and negative values.
func (c *lintCtx) pie() {
	if c.spec.Type != "pie" {
		return
	}
	v := c.numCol("value")
	if v == nil {
		return
	}
	neg, drawn := 0, 0
	for _, x := range v.Num[:c.t.Rows] {
		switch {
		case x < 0:
			neg++
		case x > 0:
			drawn++ // blanks (NaN) and zeros draw no slice
		}
	}
	if drawn > MaxPieSlices {
		c.add(CheckPieTooManySlices, Warn, `This pie has %d slices; a pie reads best with %d or fewer. Keep the five largest and sum the rest into "Other" with {"op":"addTransform","transform":{"type":"topN","n":5}}, or show the values as bars with {"op":"setType","type":"bar"}.`,
			drawn, MaxPieSlices)
	}
	if neg > 0 {
		c.add(CheckPieNegative, Warn, `%d value%s in %s %s negative, and a pie slice cannot show a negative share. Keep the positive rows with {"op":"addTransform","transform":{"type":"filter","column":%q,"operator":"gt","value":0}}, or use bars: {"op":"setType","type":"bar"}.`,
			neg, plural(neg), colLabel(v), isAre(neg), v.ID)
	}
}

func isAre(n int) string {
	if n == 1 {
		return "is"
	}
	return "are"
}

// maxColorSeries bounds how many series the colour checks look at.
const maxColorSeries = 24

// colors checks contrast against the background and pairwise difference.
func (c *lintCtx) colors() {
	series := ChartSeries(c.spec, c.t, maxColorSeries)
	type parsed struct {
		s   Series
		col colorful.Color
	}
	var ps []parsed
	for _, s := range series {
		if col, _, ok := ParseColor(s.Color); ok {
			ps = append(ps, parsed{s, col})
		}
	}
	if len(ps) == 0 {
		return
	}
	if !c.env.Transparent && c.spec.Theme != ThemeDark { // a dark page is judged by darkColors
		white := colorful.Color{R: 1, G: 1, B: 1}
		var faint []string
		worst, worstRatio := -1, math.Inf(1)
		seen := map[string]bool{}
		for i, p := range ps {
			r := Contrast(p.col, white)
			if r >= MinContrast || seen[p.s.Color] {
				continue
			}
			seen[p.s.Color] = true
			faint = append(faint, fmt.Sprintf("%s (%s, %s)", p.s.Label, p.s.Color, formatRatio(r)))
			if r < worstRatio {
				worst, worstRatio = i, r
			}
		}
		if worst >= 0 {
			level := Info
			if worstRatio < FaintWarnBelow {
				level = Warn
			}
			fix := ""
			if dark, ok := darkenTo(ps[worst].col, white, MinContrast+0.1); ok {
				_, hex, _ := ParseColor(dark.Hex())
				fix = fmt.Sprintf(`, for example {"op":"setSeriesColor","series":%q,"color":%q}`, ps[worst].s.Key, hex)
			}
			c.add(CheckFaintColor, level, "Colour%s too faint against the white background, below the 3:1 contrast that WCAG 1.4.11 asks of chart marks: %s. Give %s a darker colour with setSeriesColor%s, or choose another palette with setPalette.",
				pluralS(len(faint)), strings.Join(faint, "; "), itThem(len(faint)), fix)
		}
	}
	// The closest pair decides: one under normal vision first, else one
	// under simulated colour blindness.
	type pair struct {
		a, b   int
		dE     float64
		vision Vision
	}
	var best *pair
	for _, v := range []Vision{NormalVision, Deuteranopia, Protanopia} {
		limit := SimilarDeltaE
		if v != NormalVision {
			limit = SimilarCVDDeltaE
		}
		sim := make([]colorful.Color, len(ps))
		for i, p := range ps {
			sim[i] = Simulate(p.col, v)
		}
		for i := range ps {
			for j := i + 1; j < len(ps); j++ {
				if ps[i].s.Color == ps[j].s.Color && (v != NormalVision || ps[i].s.Color == OtherColor) {
					// The same colour twice is judged once, under
					// normal vision; the Other grey is shared on
					// purpose (a pie's Other slices, or series pushed
					// back to highlight the rest, as too-many-series
					// suggests).
					continue
				}
				d := DeltaE(sim[i], sim[j])
				if d < limit && (best == nil || d < best.dE) {
					best = &pair{i, j, d, v}
				}
			}
		}
		if best != nil {
			break
		}
	}
	if best == nil {
		return
	}
	a, b := ps[best.a].s, ps[best.b].s
	level, how := Warn, "look alike"
	if best.vision != NormalVision {
		level, how = Info, "look alike to people with "+best.vision.String()
	}
	var detail string
	if a.Color == b.Color {
		detail = fmt.Sprintf("%s and %s share the colour %s", a.Label, b.Label, a.Color)
	} else {
		detail = fmt.Sprintf("%s (%s) and %s (%s) %s (ΔE %.1f)", a.Label, a.Color, b.Label, b.Color, how, best.dE)
	}
	c.add(CheckSimilarColors, level, `%s. Give one of them another colour with {"op":"setSeriesColor","series":%q,"color":"#…"}, or use the colour-blind-safe palette: {"op":"setPalette","palette":"okabe-ito"}.`,
		detail, b.Key)
}

func pluralS(n int) string {
	if n == 1 {
		return " is"
	}
	return "s are"
}

func itThem(n int) string {
	if n == 1 {
		return "it"
	}
	return "them"
}

// valueAxisTypes have their values on the y axis and categories on x,
// whatever their orientation (as the drawing code reads style.yAxis).
func valueAxisTypes(t string) bool { return t == "bar" || t == "dotplot" || t == "boxplot" }

// axisColumns answers the number columns drawn along an axis.
func (c *lintCtx) axisColumns(axis string) []*dataset.Column {
	var roles []string
	switch {
	case valueAxisTypes(c.spec.Type) && axis == "y":
		roles = []string{"values", "value"}
	case c.spec.Type == "line" && axis == "y":
		roles = []string{"values"}
	case (c.spec.Type == "line" || c.spec.Type == "scatter") && axis == "x":
		roles = []string{"x"}
	case c.spec.Type == "scatter" && axis == "y":
		roles = []string{"y"}
	case c.spec.Type == "histogram" && axis == "x":
		roles = []string{"value"}
	}
	var out []*dataset.Column
	for _, r := range roles {
		for _, col := range c.t.ColumnsByID(c.spec.Mapping.Cols(r)) {
			if col != nil && col.Kind == dataset.Number {
				out = append(out, col)
			}
		}
	}
	return out
}

// axes checks bar axes that do not start at zero and log axes with
// values they cannot draw.
func (c *lintCtx) axes() {
	st := c.spec.Style
	if c.spec.Type == "bar" && st.YAxis != nil {
		ax := st.YAxis
		switch {
		case ax.Log:
			c.add(CheckBarAxisNotZero, Warn, `The bars' value axis is logarithmic, so bar lengths no longer compare; bars are read from zero. Use a linear axis with {"op":"setAxis","axis":"y","log":false}, or a dot plot for values spanning many magnitudes: {"op":"setType","type":"dotplot"}.`)
		case ax.Min != nil && *ax.Min > 0:
			c.add(CheckBarAxisNotZero, Warn, `The bars' value axis starts at %s, not 0, which exaggerates the differences because bars are read by their length. Start it at zero with {"op":"setAxis","axis":"y","min":null}, or use a dot plot, which need not start at zero: {"op":"setType","type":"dotplot"}.`,
				formatNum(*ax.Min))
		case ax.Max != nil && *ax.Max < 0:
			c.add(CheckBarAxisNotZero, Warn, `The bars' value axis ends at %s, below 0, which exaggerates the differences because bars are read by their length. Reset it with {"op":"setAxis","axis":"y","max":null}.`,
				formatNum(*ax.Max))
		}
	}
	for _, axis := range []string{"x", "y"} {
		ax := st.YAxis
		if axis == "x" {
			ax = st.XAxis
		}
		if ax == nil || !ax.Log {
			continue
		}
		for _, col := range c.axisColumns(axis) {
			n := 0
			for _, v := range col.Num[:c.t.Rows] {
				if v <= 0 {
					n++
				}
			}
			if n > 0 {
				c.add(CheckLogAxisNonPositive, Warn, `The %s axis is logarithmic, but %d value%s in %s %s zero or negative and cannot be drawn on it. Turn the log scale off with {"op":"setAxis","axis":%q,"log":false}, or keep the positive rows with {"op":"addTransform","transform":{"type":"filter","column":%q,"operator":"gt","value":0}}.`,
					axis, n, plural(n), colLabel(col), isAre(n), axis, col.ID)
				break
			}
		}
	}
}

// seriesCount checks the number of colours a reader must match to the
// legend. Past MaxSeries the palette is still extended with distinct
// colours (ExtendPalette), but a reader cannot hold that many in mind:
// the fixes are fewer series, a highlight (the series that matter in
// colour, the rest in the one grey OtherColor) or small multiples.
func (c *lintCtx) seriesCount() {
	switch c.spec.Type {
	case "bar", "line", "dotplot", "radar":
		ids := c.spec.Mapping.Cols("values")
		if len(ids) > MaxSeries {
			keep := idList(ids[:3])
			c.add(CheckTooManySeries, Warn, `%d value columns make %d series, more colours than a reader can match to the legend (%d at most read well). Show fewer with {"op":"setMapping","mapping":{"values":%s}}; or highlight the one that matters and push the rest back in grey with {"op":"setHighlight","highlight":{"series":[%q]}}; or draw the series side by side as small multiples: unpivot them ({"op":"addTransform","transform":{"type":"unpivot","columns":%s}}) and facet by the name column it makes with setFacet.`,
				len(ids), len(ids), MaxSeries, keep, c.leadingSeries(ids), idList(ids))
		}
	case "scatter":
		g := c.col("group")
		if g == nil {
			return
		}
		series := ChartSeries(c.spec, c.t, MaxSeries+1)
		if len(series) > MaxSeries {
			c.add(CheckTooManySeries, Warn, `%s has more than %d groups, more colours than a reader can match to the legend. Drop the grouping with {"op":"setMapping","mapping":{"group":null}}; or keep a few groups with {"op":"addTransform","transform":{"type":"filter","column":%q,"operator":"in","value":["…","…"]}}; or highlight the one that matters with {"op":"setHighlight","highlight":{"categories":[%q]}}; or give each group its own panel (small multiples) with {"op":"setFacet","facet":{"column":%q,"scales":"shared"}}.`,
				colLabel(g), MaxSeries, g.ID, series[0].Key, g.ID)
		}
	}
}

// idList writes ids as a JSON list.
func idList(ids []string) string {
	q := make([]string, len(ids))
	for i, id := range ids {
		q[i] = strconv.Quote(id)
	}
	return "[" + strings.Join(q, ",") + "]"
}

// categories checks bar count and label length.
func (c *lintCtx) categories() {
	if c.spec.Type == "bar" && c.t.Rows > MaxBars {
		c.add(CheckTooManyCategories, Warn, `The chart has %d bars; more than %d are hard to read and label. Keep the largest with {"op":"addTransform","transform":{"type":"topN","n":20}}, or filter the rows with addTransform.`,
			c.t.Rows, MaxBars)
	}
	if !valueAxisTypes(c.spec.Type) {
		return
	}
	role, orientation := "category", "vertical"
	if c.spec.Type == "boxplot" {
		role = "group"
	}
	if o, ok := c.spec.Options["orientation"].(string); ok {
		orientation = o
	} else if c.spec.Type == "dotplot" {
		orientation = "horizontal"
	}
	if orientation != "vertical" {
		return
	}
	col := c.col(role)
	if col == nil || col.Kind != dataset.Text {
		return
	}
	longest, at := 0, -1
	for i, s := range col.Text[:c.t.Rows] {
		if len(s) > MaxLabelRunes && len(s) > longest {
			if n := utf8.RuneCountInString(s); n > MaxLabelRunes && n > longest {
				longest, at = n, i
			}
		}
	}
	if at >= 0 {
		c.add(CheckLongLabels, Info, `Category labels up to %d characters long (such as %q) crowd or tilt under vertical %s. Draw them across instead with {"op":"setVariants","variants":{%q:{"orientation":"horizontal"}}}.`,
			longest, truncate(col.Text[at], 40), marksOf(c.spec.Type), c.spec.Type)
	}
}

func marksOf(chartType string) string {
	switch chartType {
	case "dotplot":
		return "dots"
	case "boxplot":
		return "boxes"
	}
	return "bars"
}

// truncate shortens s to n runes with an ellipsis.
func truncate(s string, n int) string {
	if utf8.RuneCountInString(s) <= n {
		return s
	}
	r := []rune(s)
	return string(r[:n-1]) + "…"
}

// line checks row order and repeated x values.
func (c *lintCtx) line() {
	if c.spec.Type != "line" {
		return
	}
	x := c.col("x")
	if x == nil || x.Kind == dataset.Text {
		return
	}
	vals := x.Num[:c.t.Rows]
	prev, unsorted := math.NaN(), -1
	for i, v := range vals {
		if math.IsNaN(v) {
			continue
		}
		if !math.IsNaN(prev) && v < prev && unsorted < 0 {
			unsorted = i
		}
		prev = v
	}
	seen := make(map[float64]int, len(vals))
	dup, dupAt := 0, -1
	for i, v := range vals {
		if math.IsNaN(v) {
			continue
		}
		seen[v]++
		if seen[v] == 2 {
			dup++
			if dupAt < 0 {
				dupAt = i
			}
		}
	}
	if dupAt >= 0 {
		values := c.spec.Mapping.Cols("values")
		measures := make([]string, 0, len(values))
		for _, id := range values {
			measures = append(measures, fmt.Sprintf(`{"column":%q,"fn":"sum"}`, id))
		}
		c.add(CheckDuplicateLineX, Warn, `%d x value%s of %s occur more than once (such as %s), so the line jumps up and down at one x. If the rows hold several series, put each in its own column; otherwise sum them per x with {"op":"addTransform","transform":{"type":"aggregate","groupBy":[%q],"measures":[%s]}}.`,
			dup, plural(dup), colLabel(x), x.Format(dupAt), x.ID, strings.Join(measures, ","))
	}
	if unsorted >= 0 {
		c.add(CheckUnsortedLineX, Info, `The rows are not in x order (row %d, %s, comes after a later x). The line is drawn in x order, but labels, tooltips and query_data follow the rows; sort them with {"op":"addTransform","transform":{"type":"sort","column":%q}}.`,
			unsorted+1, x.Format(unsorted), x.ID)
	}
}

// scatter estimates how many points hide under others at the drawn size.
func (c *lintCtx) scatter() {
	if c.spec.Type != "scatter" {
		return
	}
	x, y := c.numCol("x"), c.numCol("y")
	if x == nil || y == nil {
		return
	}
	size := optFloat(c.spec.Options, "pointSize", 4)
	opacity := optFloat(c.spec.Options, "opacity", 0.8)
	if opacity <= 0.3 && size <= 2 {
		return // already as light and small as helps
	}
	share, n := overplotShare(x.Num[:c.t.Rows], y.Num[:c.t.Rows], size, c.spec.Style)
	if share <= OverplotShare {
		return
	}
	c.add(CheckOverplotting, Warn, `About %d%% of the %d points lie on top of others, so dense areas look no denser than sparse ones. Make points smaller and see-through with {"op":"setVariants","variants":{"scatter":{"pointSize":2,"opacity":0.25}}}, or show the density as a heatmap or histogram.`,
		int(share*100+0.5), n)
}

// overplotShare bins points into cells one point across on the plot area
// and answers the share of points that fall into an occupied cell.
func overplotShare(xs, ys []float64, pointSize float64, st Style) (float64, int) {
	w, h := st.Dimensions()
	plotW, plotH := float64(w)*0.8, float64(h)*0.75
	cell := math.Max(2*pointSize, 1)
	cols, rows := int(plotW/cell)+1, int(plotH/cell)+1
	x0, x1 := finiteRange(xs)
	y0, y1 := finiteRange(ys)
	if math.IsNaN(x0) || math.IsNaN(y0) {
		return 0, 0
	}
	sx, sy := float64(cols-1)/nonZero(x1-x0), float64(rows-1)/nonZero(y1-y0)
	occupied := make([]bool, cols*rows)
	n, hidden := 0, 0
	for i := range xs {
		if i >= len(ys) || !finite(xs[i]) || !finite(ys[i]) {
			continue
		}
		n++
		k := int((ys[i]-y0)*sy)*cols + int((xs[i]-x0)*sx)
		if occupied[k] {
			hidden++
		}
		occupied[k] = true
	}
	if n == 0 {
		return 0, 0
	}
	return float64(hidden) / float64(n), n
}

func finite(f float64) bool { return !math.IsNaN(f) && !math.IsInf(f, 0) }

func nonZero(f float64) float64 {
	if f == 0 {
		return 1
	}
	return f
}

// finiteRange answers the smallest and largest finite values (NaN when none).
func finiteRange(vs []float64) (lo, hi float64) {
	lo, hi = math.NaN(), math.NaN()
	for _, v := range vs {
		if math.IsNaN(v) || math.IsInf(v, 0) {
			continue
		}
		if math.IsNaN(lo) || v < lo {
			lo = v
		}
		if math.IsNaN(hi) || v > hi {
			hi = v
		}
	}
	return lo, hi
}

// optFloat reads a number option with a fallback.
func optFloat(opts map[string]any, name string, def float64) float64 {
	switch v := opts[name].(type) {
	case float64:
		return v
	case int:
		return float64(v)
	}
	return def
}

// radar checks the number of spokes.
func (c *lintCtx) radar() {
	if c.spec.Type == "radar" && c.t.Rows > MaxRadarAxes {
		c.add(CheckRadarAxes, Warn, `The radar has %d spokes; more than %d crowd the circle and make shapes hard to compare. Keep the largest with {"op":"addTransform","transform":{"type":"topN","n":8}}, or compare the values as bars: {"op":"setType","type":"bar"}.`,
			c.t.Rows, MaxRadarAxes)
	}
}

// sankey looks for flows that loop back to a node they came from.
func (c *lintCtx) sankey() {
	if c.spec.Type != "sankey" {
		return
	}
	src, dst := c.col("source"), c.col("target")
	if src == nil || dst == nil {
		return
	}
	index := map[string]int{}
	var names []string
	node := func(s string) int {
		if i, ok := index[s]; ok {
			return i
		}
		index[s] = len(names)
		names = append(names, s)
		return len(names) - 1
	}
	var adj [][]int
	for i := 0; i < c.t.Rows; i++ {
		a, b := node(src.Format(i)), node(dst.Format(i))
		for len(adj) < len(names) {
			adj = append(adj, nil)
		}
		adj[a] = append(adj[a], b)
	}
	cycle := findCycle(adj)
	if cycle == nil {
		return
	}
	path := make([]string, len(cycle))
	for i, n := range cycle {
		path[i] = names[n]
	}
	last := len(path) - 1
	c.add(CheckSankeyCycle, Warn, `The flows loop back: %s. A sankey flows one way, so a loop cannot be drawn faithfully. Remove the flow %s → %s from the data with set_data (or drop its rows with an addTransform filter on %s or %s), or show the flows as a heatmap: {"op":"setType","type":"heatmap"}.`,
		strings.Join(path, " → "), path[last-1], path[last], colLabel(src), colLabel(dst))
}

// findCycle answers one directed cycle as a node path that ends where it
// starts, or nil. It is an iterative depth-first search.
func findCycle(adj [][]int) []int {
	const (
		white = iota
		grey
		black
	)
	state := make([]int, len(adj))
	parent := make([]int, len(adj))
	next := make([]int, len(adj))
	for start := range adj {
		if state[start] != white {
			continue
		}
		stack := []int{start}
		state[start] = grey
		parent[start] = -1
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			if next[u] == len(adj[u]) {
				state[u] = black
				stack = stack[:len(stack)-1]
				continue
			}
			v := adj[u][next[u]]
			next[u]++
			switch state[v] {
			case grey:
				path := []int{v}
				for w := u; w != v; w = parent[w] {
					path = append(path, w)
				}
				path = append(path, v)
				slices.Reverse(path)
				return path
			case white:
				state[v] = grey
				parent[v] = u
				stack = append(stack, v)
			}
		}
	}
	return nil
}

// histogram checks a fixed bin count against the number of values.
func (c *lintCtx) histogram() {
	if c.spec.Type != "histogram" {
		return
	}
	bins := int(optFloat(c.spec.Options, "bins", 0))
	v := c.numCol("value")
	if bins <= 0 || v == nil {
		return
	}
	n := 0
	for _, x := range v.Num[:c.t.Rows] {
		if !math.IsNaN(x) {
			n++
		}
	}
	if n == 0 {
		return
	}
	sturges := int(math.Ceil(math.Log2(float64(n)))) + 1
	suggest := min(max(sturges, 2), 100)
	switch {
	case n >= 20 && float64(bins) < float64(sturges)/2:
		c.add(CheckHistogramBins, Warn, `%d bins are too few for %d values: the shape of the distribution disappears into a few blocks. Use about %d with {"op":"setVariants","variants":{"histogram":{"bins":%d}}}, or 0 to choose automatically.`,
			bins, n, suggest, suggest)
	case float64(bins) > 2*math.Sqrt(float64(n)) && bins > suggest:
		c.add(CheckHistogramBins, Warn, `%d bins are too many for %d values: most bins hold one or two values, so the shape is noise. Use about %d with {"op":"setVariants","variants":{"histogram":{"bins":%d}}}, or 0 to choose automatically.`,
			bins, n, suggest, suggest)
	}
}
