package draw

import (
	"encoding/json"
	"math"
	"strings"

	"chartd.dev/libs/dataset"
)

// optString reads an enum option, def when unset or not one of allowed.
func optString(opts map[string]any, name, def string, allowed ...string) string {
	s, ok := opts[name].(string)
	if !ok {
		return def
	}
	for _, a := range allowed {
		if s == a {
			return s
		}
	}
	return def
}

// optBool reads a boolean option.
func optBool(opts map[string]any, name string, def bool) bool {
	if b, ok := opts[name].(bool); ok {
		return b
	}
	return def
}

// optNumber reads a number option clamped to [lo, hi].
func optNumber(opts map[string]any, name string, def, lo, hi float64) float64 {
	var v float64
	switch x := opts[name].(type) {
	case float64:
		v = x
	case float32:
		v = float64(x)
	case int:
		v = float64(x)
	case int64:
		v = float64(x)
	case json.Number:
		f, err := x.Float64()
		if err != nil {
			return def
		}
		v = f
	default:
		return def
	}
	if math.IsNaN(v) {
		return def
	}
	return math.Max(lo, math.Min(v, hi))
}

// seriesNames joins column names for descriptions: "Sales", "Sales and
// Profit", "Sales, Profit and Cost", "Sales, Profit and 3 more".
func seriesNames(cols []*dataset.Column) string {
	names := make([]string, len(cols))
	for i, c := range cols {
		names[i] = c.Name
	}
	return joinNames(names)
}

// joinNames writes a list the way a sentence would.
func joinNames(names []string) string {
	switch n := len(names); {
	case n == 0:
		return ""
	case n == 1:
		return names[0]
	case n <= 3:
		return strings.Join(names[:n-1], ", ") + " and " + names[n-1]
	default:
		return strings.Join(names[:2], ", ") + " and " + itoa(n-2) + " more"
	}
}

func itoa(n int) string {
	return string(appendInt(nil, n))
}

// plural writes "1 bar", "10 bars".
func plural(n int, one, many string) string {
	if n == 1 {
		return "1 " + one
	}
	return itoa(n) + " " + many
}

// isBlank reports a value that must not be drawn.
func isBlank(v float64) bool { return math.IsNaN(v) || math.IsInf(v, 0) }
