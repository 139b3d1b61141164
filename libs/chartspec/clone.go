package chartspec

import (
	"encoding/json"
	"maps"
	"slices"
)

// Clone answers a deep copy of the spec, so an edit can be abandoned
// without touching the original (apply_ops is all or nothing).
func (s *Spec) Clone() *Spec {
	out := &Spec{Type: s.Type, Options: maps.Clone(s.Options), DataVersion: s.DataVersion}
	if s.Variants != nil {
		out.Variants = make(map[string]map[string]any, len(s.Variants))
		for k, v := range s.Variants {
			out.Variants[k] = maps.Clone(v)
		}
	}
	if s.Mapping != nil {
		out.Mapping = make(Mapping, len(s.Mapping))
		for k, r := range s.Mapping {
			out.Mapping[k] = Ref{IDs: slices.Clone(r.IDs), Multi: r.Multi}
		}
	}
	if s.Steps != nil {
		out.Steps = make([]json.RawMessage, len(s.Steps))
		for i, st := range s.Steps {
			out.Steps[i] = slices.Clone(st)
		}
	}
	out.Style = s.Style.clone()
	out.Annotations = cloneAnnotations(s.Annotations)
	out.Highlight, out.Facet, out.Theme = s.Highlight.clone(), s.Facet.clone(), s.Theme
	return out
}

// clone deep-copies the style's pointers, slices and maps.
func (st Style) clone() Style {
	out := st
	if st.XAxisTitle != nil {
		t := *st.XAxisTitle
		out.XAxisTitle = &t
	}
	if st.YAxisTitle != nil {
		t := *st.YAxisTitle
		out.YAxisTitle = &t
	}
	out.Palette = slices.Clone(st.Palette)
	out.SeriesColors = maps.Clone(st.SeriesColors)
	if st.XAxis != nil {
		a := cloneAxis(*st.XAxis)
		out.XAxis = &a
	}
	if st.YAxis != nil {
		a := cloneAxis(*st.YAxis)
		out.YAxis = &a
	}
	if st.NumberFormat != nil {
		nf := *st.NumberFormat
		if nf.Decimals != nil {
			d := *nf.Decimals
			nf.Decimals = &d
		}
		if nf.Compact != nil {
			c := *nf.Compact
			nf.Compact = &c
		}
		out.NumberFormat = &nf
	}
	if st.Footer != nil {
		f := *st.Footer
		out.Footer = &f
	}
	return out
}

// cloneAxis copies an axis with its bounds.
func cloneAxis(a Axis) Axis {
	if a.Min != nil {
		v := *a.Min
		a.Min = &v
	}
	if a.Max != nil {
		v := *a.Max
		a.Max = &v
	}
	return a
}
