package chartspec

import (
	"context"
	"fmt"
	"slices"

	"chartd.dev/libs/dataset"
)

// WarnIDs answers the ids of the warnings a picture of spec on t (the data
// after steps) goes out with: Lint's problems at level warn and those of
// the drawing's notices (LayoutProblems), each id once, in Lint's order.
// A /render caller gets only the image, so the picture's answer lists
// them (the Chartd-Lint header) where a chart's JSON lists the messages.
// It fails only with ctx's error.
func WarnIDs(ctx context.Context, spec *Spec, t *dataset.Table, env LintEnv, notices []dataset.Notice) ([]string, error) {
	problems, err := LintContext(ctx, spec, t, env)
	if err != nil {
		return nil, fmt.Errorf("lint the picture: %w", err)
	}
	var ids []string
	for _, p := range append(problems, LayoutProblems(notices)...) {
		if p.Level == Warn && !slices.Contains(ids, p.ID) {
			ids = append(ids, p.ID)
		}
	}
	return ids, nil
}
