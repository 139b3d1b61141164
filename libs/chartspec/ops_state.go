package chartspec

import (
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"chartd.dev/charts"
	"chartd.dev/libs/dataset"
)

// MaxSteps bounds the data steps of one chart, so a runaway client cannot
// make every read of the chart slow.
const MaxSteps = 50

// applyState is the spec being edited by one Apply call plus the data
// tables its steps produce, computed lazily and kept per step so that an
// op changing step i reruns only steps i and later.
type applyState struct {
	o    *Ops
	spec *Spec
	ct   charts.ChartType
	env  Env
	// stages[i] is the table after the first i steps (stages[0] the data);
	// stepErrs[i] is why step i could not run (it was skipped), or nil.
	stages   []*dataset.Table
	stepErrs []error
	// stagesValue is the default value column the stages were run with
	// (topN without a column ranks by it).
	stagesValue string
	// err is a failure that is not the op's fault (the brand palette could
	// not be read); Apply answers it as it is.
	err error
}

// brand answers the account's brand palette, or nil when the caller gave
// no reader.
func (st *applyState) brand() ([]string, error) {
	if st.env.Brand == nil {
		return nil, nil
	}
	return st.env.Brand()
}

func newApplyState(o *Ops, spec *Spec, ct charts.ChartType, env Env) *applyState {
	t := env.Table
	if t == nil {
		t = &dataset.Table{}
	}
	if spec.Mapping == nil {
		spec.Mapping = Mapping{}
	}
	if spec.Options == nil {
		spec.Options = ct.DefaultOptions()
	}
	return &applyState{o: o, spec: spec, ct: ct, env: env, stages: []*dataset.Table{t}}
}

// table answers the data after all of the spec's steps; steps that fail
// are skipped, as drawing does.
func (s *applyState) table() *dataset.Table {
	s.runSteps()
	return s.stages[len(s.stages)-1]
}

// runSteps brings the stages up to date with the spec's steps.
func (s *applyState) runSteps() {
	if v := s.spec.ValueColumn(); v != s.stagesValue {
		s.invalidate(0)
		s.stagesValue = v
	}
	d := dataset.Defaults{ValueColumn: s.stagesValue}
	for i := len(s.stages) - 1; i < len(s.spec.Steps); i++ {
		t := s.stages[i]
		st, err := dataset.DecodeStep(s.spec.Steps[i])
		if err == nil {
			var out *dataset.Table
			if out, err = st.Apply(t, d); err == nil {
				t = out
			}
		}
		s.stages = append(s.stages, t)
		s.stepErrs = append(s.stepErrs, err)
	}
}

// invalidate forgets the tables from step i on.
func (s *applyState) invalidate(i int) {
	if i+1 < len(s.stages) {
		s.stages = s.stages[:i+1]
		s.stepErrs = s.stepErrs[:i]
	}
}

// failures snapshots which steps fail now.
func (s *applyState) failures() []bool {
	s.runSteps()
	out := make([]bool, len(s.stepErrs))
	for i, err := range s.stepErrs {
		out[i] = err != nil
	}
	return out
}

// checkSteps reruns the steps from i on after a change and refuses the
// change if step own (the step the op wrote, or -1) fails, or if a step
// that ran before fails now. wasFailing maps a step's new index to
// whether it failed before the change.
func (s *applyState) checkSteps(i, own int, wasFailing func(int) bool, verb string) *OpError {
	s.invalidate(i)
	s.runSteps()
	for j := i; j < len(s.stepErrs); j++ {
		err := s.stepErrs[j]
		if err == nil {
			continue
		}
		if j == own {
			return stepFieldError("transform", err)
		}
		if !wasFailing(j) {
			return opErr("", "%s breaks step %d (%s), which uses what it changes: %s; update or remove that step too", verb, j, stepType(s.spec.Steps[j]), err)
		}
	}
	return nil
}

// stepFieldError words a step's failure under the op field that holds the step.
func stepFieldError(field string, err error) *OpError {
	var fe *dataset.FieldError
	if errors.As(err, &fe) {
		if fe.Field == "" {
			return opErr(field, "%s", fe.Problem)
		}
		return opErr(field+"."+fe.Field, "%s", fe.Problem)
	}
	return opErr(field, "%s", err)
}

// stepType reads a stored step's type for messages.
func stepType(raw json.RawMessage) string {
	var head struct {
		Type string `json:"type"`
	}
	if json.Unmarshal(raw, &head) != nil || head.Type == "" {
		return "a step"
	}
	return head.Type
}

// repairMapping re-picks roles whose columns the steps no longer make,
// keeping the ones that still fit.
func (s *applyState) repairMapping() {
	t := s.table()
	for _, role := range s.ct.Roles {
		for _, c := range t.ColumnsByID(s.spec.Mapping.Cols(role.Role)) {
			if c == nil || !Fits(role, c) {
				s.spec.Mapping = KeepMapping(s.spec.Mapping, s.ct, t)
				return
			}
		}
	}
}

// listedAtMost is how many items a message lists before "… (N in all)".
const listedAtMost = 20

// columnList renders columns for messages: "c1 (Country), c2 (Sales)".
func columnList(cols []*dataset.Column) string {
	if len(cols) == 0 {
		return "none"
	}
	parts := make([]string, 0, min(len(cols), listedAtMost))
	for _, c := range cols[:min(len(cols), listedAtMost)] {
		parts = append(parts, colLabel(c))
	}
	return joinSome(parts, len(cols))
}

// idText renders column ids for messages, at most listedAtMost of them:
// "c2, c3, … (5000 in all)", so a message stays short whatever the data.
func idText(ids []string) string {
	return joinSome(ids[:min(len(ids), listedAtMost)], len(ids))
}

// joinSome joins the first items of a list of n.
func joinSome(first []string, n int) string {
	s := strings.Join(first, ", ")
	if n > len(first) {
		s += fmt.Sprintf(", … (%d in all)", n)
	}
	return s
}

// colLabel renders one column: "c2 (Sales)".
func colLabel(c *dataset.Column) string { return c.ID + " (" + c.Name + ")" }
