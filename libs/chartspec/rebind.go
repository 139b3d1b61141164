package chartspec

import (
	"encoding/json"
	"slices"

	"chartd.dev/charts"
	"chartd.dev/libs/dataset"
)

// Rebinding is the outcome of moving a spec onto new data.
type Rebinding struct {
	Spec *Spec
	// Kept tells whether roles, steps and colours all carried over by
	// column name (spec §3 rule 2).
	Kept bool
	// DroppedSteps are the indexes (in the old spec) of steps that no longer
	// apply to the new data.
	DroppedSteps []int
}

// Rebind moves spec onto newData (spec §3 rule 2): columns are matched by
// name, so every column id in the mapping, the steps and the series colours
// is rewritten to the new data's id of the same name. When every reference
// carries over and the steps still run, Kept is true. Otherwise roles are
// picked again, steps that fail are dropped and colours of vanished columns
// forgotten.
func Rebind(spec *Spec, ct charts.ChartType, oldCols []dataset.Column, newData *dataset.Table) Rebinding {
	newByName := map[string]string{}
	for _, c := range newData.Columns {
		if _, dup := newByName[c.Name]; !dup {
			newByName[c.Name] = c.ID
		}
	}
	idMap := map[string]string{}
	oldIDs := map[string]bool{}
	for _, c := range oldCols {
		oldIDs[c.ID] = true
		if id, ok := newByName[c.Name]; ok {
			idMap[c.ID] = id
		}
	}
	kept := true
	rewrite := func(id string) string {
		if n, ok := idMap[id]; ok {
			return n
		}
		if oldIDs[id] {
			kept = false // a data column the new data lacks
		}
		return id // a derived column, or missing
	}
	out := spec.Clone()
	if out.Mapping == nil {
		out.Mapping = Mapping{}
	}
	for role, ref := range out.Mapping {
		ids := make([]string, len(ref.IDs))
		for i, id := range ref.IDs {
			ids[i] = rewrite(id)
		}
		out.Mapping[role] = Ref{IDs: ids, Multi: ref.Multi}
	}
	colors := map[string]string{}
	for k, v := range out.Style.SeriesColors {
		if n, ok := idMap[k]; ok {
			colors[n] = v
		} else if !oldIDs[k] {
			colors[k] = v // a category value, not a column
		}
	}
	out.Style.SeriesColors = colors
	// Rewrite and run the steps in order; drop the ones that fail on the
	// new data.
	t := newData
	var keptSteps []json.RawMessage
	var dropped []int
	for i, raw := range out.Steps {
		re, ok := rewriteStep(raw, rewrite)
		st, err := dataset.DecodeStep(re)
		if !ok || err != nil {
			dropped = append(dropped, i)
			continue
		}
		next, err := st.Apply(t, dataset.Defaults{ValueColumn: out.ValueColumn()})
		if err != nil {
			dropped = append(dropped, i)
			continue
		}
		t = next
		keptSteps = append(keptSteps, re)
	}
	out.Steps = keptSteps
	if len(dropped) > 0 {
		kept = false
	}
	for _, ref := range out.Mapping {
		if slices.Contains(t.ColumnsByID(ref.IDs), nil) {
			kept = false
		}
	}
	if !kept {
		out.Mapping = AutoMapping(ct, t)
	}
	return Rebinding{Spec: out, Kept: kept, DroppedSteps: dropped}
}

// rewriteStep rewrites the column ids a step names (column, columns,
// groupBy, measures[].column). ok is false when the step is not an object.
func rewriteStep(raw json.RawMessage, rewrite func(string) string) (json.RawMessage, bool) {
	var obj map[string]any
	if err := json.Unmarshal(raw, &obj); err != nil {
		return raw, false
	}
	for _, key := range []string{"column", "columns", "groupBy"} {
		obj[key] = rewriteIDs(obj[key], rewrite)
		if obj[key] == nil {
			delete(obj, key)
		}
	}
	if ms, ok := obj["measures"].([]any); ok {
		for _, m := range ms {
			if mm, ok := m.(map[string]any); ok {
				if v := rewriteIDs(mm["column"], rewrite); v != nil {
					mm["column"] = v
				}
			}
		}
	}
	b, err := json.Marshal(obj)
	if err != nil {
		return raw, false
	}
	return b, true
}

func rewriteIDs(v any, rewrite func(string) string) any {
	switch x := v.(type) {
	case string:
		return rewrite(x)
	case []any:
		out := make([]any, len(x))
		for i, e := range x {
			if s, ok := e.(string); ok {
				out[i] = rewrite(s)
			} else {
				out[i] = e
			}
		}
		return out
	}
	return v
}
