// Package chartspec is the chart spec: what a chart is (type, options,
// which columns play which role, data steps, style), independent of its data.
// It is stored as JSON by the chart service and drawn by libs/draw.
package chartspec

import (
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"strconv"
	"strings"
)

// Spec is one chart's definition. Its JSON form is the stored form and the
// `spec` member of get_chart?include=spec (with data and advanced added).
type Spec struct {
	Type string `json:"type"`
	// Options are the current type's options (catalog option names), with
	// defaults filled in.
	Options map[string]any `json:"options"`
	// Variants keep options set for other types, so switching type and back
	// restores them (setVariants is keyed by type).
	Variants map[string]map[string]any `json:"variants,omitempty"`
	Mapping  Mapping                   `json:"mapping"`
	// Steps are data steps (libs/dataset step JSON), applied in order.
	Steps []json.RawMessage `json:"steps"`
	Style Style             `json:"style"`
	// Annotations are the chart's notes, reference lines and ranges, in
	// the order added (removeAnnotation names them by place).
	Annotations []Annotation `json:"annotations,omitempty"`
	// Highlight, Facet and Theme shape how the chart tells its story
	// (setHighlight, setFacet, setTheme; looks.go); nil and "" are the
	// plain chart.
	Highlight *Highlight `json:"highlight,omitempty"`
	Facet     *Facet     `json:"facet,omitempty"`
	Theme     string     `json:"theme,omitempty"`
	// DataVersion names the chart's data as stored (a hash of it), so
	// parsed tables can be cached across edits that leave the data alone.
	DataVersion string `json:"dataVersion,omitempty"`
}

// DataVersionOf is the DataVersion of data sent in format.
func DataVersionOf(format string, raw []byte) string {
	h := sha256.New()
	h.Write([]byte(format))
	h.Write([]byte{0})
	h.Write(raw)
	return hex.EncodeToString(h.Sum(nil)[:16])
}

// Mapping assigns columns to roles: role name → column ids.
type Mapping map[string]Ref

// Ref is the column(s) of one role. Multi roles (bar values) are a JSON list,
// single roles a JSON string.
type Ref struct {
	IDs   []string
	Multi bool
}

// One is a single-column reference.
func One(id string) Ref { return Ref{IDs: []string{id}} }

// Many is a multi-column reference.
func Many(ids ...string) Ref { return Ref{IDs: append([]string{}, ids...), Multi: true} }

// MarshalJSON writes a string for single roles and a list for multi roles.
func (r Ref) MarshalJSON() ([]byte, error) {
	if r.Multi {
		if r.IDs == nil {
			return []byte("[]"), nil
		}
		return json.Marshal(r.IDs)
	}
	if len(r.IDs) == 0 {
		return []byte("null"), nil
	}
	return json.Marshal(r.IDs[0])
}

// UnmarshalJSON reads a string, a list of strings, or null.
func (r *Ref) UnmarshalJSON(b []byte) error {
	s := strings.TrimSpace(string(b))
	switch {
	case s == "null":
		*r = Ref{}
	case strings.HasPrefix(s, "["):
		var ids []string
		if err := json.Unmarshal(b, &ids); err != nil {
			return fmt.Errorf("a role takes a column id or a list of column ids: %w", err)
		}
		*r = Ref{IDs: ids, Multi: true}
	default:
		var id string
		if err := json.Unmarshal(b, &id); err != nil {
			return fmt.Errorf("a role takes a column id or a list of column ids: %w", err)
		}
		*r = One(id)
	}
	return nil
}

// Col answers the first column of role, or "".
func (m Mapping) Col(role string) string {
	if r, ok := m[role]; ok && len(r.IDs) > 0 {
		return r.IDs[0]
	}
	return ""
}

// Cols answers every column of role.
func (m Mapping) Cols(role string) []string { return m[role].IDs }

// Style is how the chart looks (spec §2 "style").
type Style struct {
	Title    Text   `json:"title"`
	Subtitle Text   `json:"subtitle"`
	Legend   Legend `json:"legend"`
	Labels   Labels `json:"labels"`
	// XAxisTitle and YAxisTitle are null until set.
	XAxisTitle *AxisTitle `json:"xAxisTitle"`
	YAxisTitle *AxisTitle `json:"yAxisTitle"`
	// Palette holds the series colours, #RRGGBB, used in order.
	Palette []string `json:"palette"`
	// SeriesColors pins a colour to a series: column id (or category value
	// for pie slices) → #RRGGBB.
	SeriesColors map[string]string `json:"seriesColors"`
	// Size is "<width>×<height>" in CSS pixels.
	Size string `json:"size"`
	// XAxis and YAxis adjust the axes (range, log scale, tick format).
	XAxis *Axis `json:"xAxis,omitempty"`
	YAxis *Axis `json:"yAxis,omitempty"`
	// NumberFormat formats values in labels, ticks and tooltips.
	NumberFormat *NumberFormat `json:"numberFormat,omitempty"`
	// Footer is the publication furniture under the chart (source, notes,
	// byline); nil until setFooter gives it a field.
	Footer *Footer `json:"footer,omitempty"`
}

// Text is a title or subtitle.
type Text struct {
	Show bool   `json:"show"`
	Text string `json:"text"`
}

// Footer is the line or lines drawn under the chart, as a graphics desk
// credits a chart: notes, then "Source: …" and "Chart: …". Empty fields
// are left out of the picture.
type Footer struct {
	// Source names where the data comes from, drawn as "Source: …".
	Source string `json:"source,omitempty"`
	// Notes explain the data (definitions, gaps, rounding), drawn above
	// the source line and wrapped to at most three lines.
	Notes string `json:"notes,omitempty"`
	// Byline credits who made the chart, drawn as "Chart: …".
	Byline string `json:"byline,omitempty"`
}

// Legend places the legend. Show is "auto" (shown when there is more than
// one series), "on" or "off"; JSON writes "auto", true or false.
type Legend struct {
	Show     Toggle   `json:"show"`
	Position Position `json:"position"`
}

// Toggle is "auto", "on" or "off".
type Toggle string

// Toggle values.
const (
	Auto Toggle = "auto"
	On   Toggle = "on"
	Off  Toggle = "off"
)

// MarshalJSON writes "auto", true or false.
func (t Toggle) MarshalJSON() ([]byte, error) {
	switch t {
	case On:
		return []byte("true"), nil
	case Off:
		return []byte("false"), nil
	}
	return []byte(`"auto"`), nil
}

// UnmarshalJSON reads "auto", true or false.
func (t *Toggle) UnmarshalJSON(b []byte) error {
	switch strings.TrimSpace(string(b)) {
	case `"auto"`:
		*t = Auto
	case "true":
		*t = On
	case "false":
		*t = Off
	default:
		return fmt.Errorf(`legend show must be "auto", true or false, not %s`, b)
	}
	return nil
}

// Position is where the legend sits: x left|center|right, y top|middle|bottom.
type Position struct {
	X string `json:"x" api:"optional"`
	Y string `json:"y" api:"optional"`
}

// Labels turns data labels on.
type Labels struct {
	Show bool `json:"show"`
}

// AxisTitle is an axis title.
type AxisTitle struct {
	Text string `json:"text"`
}

// Axis adjusts one axis. Nil bounds are automatic.
type Axis struct {
	Min *float64 `json:"min,omitempty"`
	Max *float64 `json:"max,omitempty"`
	Log bool     `json:"log,omitempty"`
	// Scale is "log" or "linear" as the person set it (setAxis scale),
	// empty when left to the drawing, which turns an axis of positive
	// values spanning more than three orders of magnitude logarithmic.
	Scale string `json:"scale,omitempty" enum:"log,linear"`
	// TickFormat is "auto", "number", "compact" (1.2k), "percent" or
	// "date" (dates labelled by their range).
	TickFormat string `json:"tickFormat,omitempty" enum:"auto,number,compact,percent,date"`
}

// NumberFormat formats values.
type NumberFormat struct {
	// Decimals fixes the number of decimals; nil is automatic.
	Decimals *int   `json:"decimals,omitempty"`
	Prefix   string `json:"prefix,omitempty"`
	Suffix   string `json:"suffix,omitempty"`
	// Compact true writes 1.2k and 3.4M, false writes every digit
	// (1,400,000,000); nil leaves it to the data (compact from 10,000 up).
	Compact *bool `json:"compact,omitempty"`
	// Locale is a BCP 47 tag ("de", "fr-CH", "hi-IN", "zh") whose grouping
	// and decimal marks numbers take (CLDR, through golang.org/x/text), and
	// for zh, ja and ko the myriad units 万/亿 instead of k/M/B; empty is
	// English ("1,234.5").
	Locale string `json:"locale,omitempty"`
}

// DefaultWidth and DefaultHeight are the canvas size of a new chart.
const (
	DefaultWidth  = 800
	DefaultHeight = 600
)

// FormatSize writes a size the way style.size holds it.
func FormatSize(w, h int) string { return strconv.Itoa(w) + "×" + strconv.Itoa(h) }

// ParseSize reads "<width>×<height>" (an ASCII x is accepted too).
func ParseSize(s string) (w, h int, err error) {
	a, b, ok := strings.Cut(s, "×")
	if !ok {
		a, b, ok = strings.Cut(strings.ToLower(s), "x")
	}
	if !ok {
		return 0, 0, fmt.Errorf("size %q: want <width>×<height>, e.g. 800×600", s)
	}
	w, err1 := strconv.Atoi(strings.TrimSpace(a))
	h, err2 := strconv.Atoi(strings.TrimSpace(b))
	if err1 != nil || err2 != nil || w < 100 || h < 100 || w > 4000 || h > 4000 {
		return 0, 0, fmt.Errorf("size %q: width and height must be whole pixels from 100 to 4000", s)
	}
	return w, h, nil
}

// Dimensions answers the canvas size of the style, the default when unset.
func (s Style) Dimensions() (w, h int) {
	w, h, err := ParseSize(s.Size)
	if err != nil {
		return DefaultWidth, DefaultHeight
	}
	return w, h
}

// DefaultStyle is a new chart's style with the given palette colours.
func DefaultStyle(palette []string) Style {
	return Style{
		Legend:       Legend{Show: Auto, Position: Position{X: "right", Y: "top"}},
		Palette:      append([]string{}, palette...),
		SeriesColors: map[string]string{},
		Size:         FormatSize(DefaultWidth, DefaultHeight),
	}
}
