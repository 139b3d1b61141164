package chartspec

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/dataset"
)

// ApplyRequest applies the ops of an API request to spec against t (the
// data before steps). brand is asked for the account's brand palette only
// when a decoded setPalette op names it. A refused op is invalid_ops with the op's message.
func (o *Ops) ApplyRequest(ctx context.Context, spec *Spec, ops []json.RawMessage, t *dataset.Table, brand func(context.Context) ([]string, error)) (*Spec, error) {
	if len(ops) == 0 {
		return spec, nil
	}
	env := Env{Table: t}
	if brand != nil {
		env.Brand = func() ([]string, error) { return brand(ctx) }
	}
	out, err := o.Apply(spec, ops, env)
	if err != nil {
		var oe *OpError
		if errors.As(err, &oe) {
			return nil, apierr.Wrap(apierr.InvalidOps, err, "%s", oe.Error())
		}
		return nil, fmt.Errorf("apply ops: %w", err)
	}
	return out, nil
}

// BrandBeforehand reads the account's brand palette now when one of ops
// is a setPalette naming it, and answers a reader that hands back that
// answer (colours or error) without asking again. Ops applied later, while
// the chart is held for an edit, then wait on no other service or
// database connection. Ops that do not name it leave brand unread.
func BrandBeforehand(ctx context.Context, ops []json.RawMessage, brand func(context.Context) ([]string, error)) func(context.Context) ([]string, error) {
	if brand == nil || !namesBrand(ops) {
		return brand
	}
	colors, err := brand(ctx)
	return func(context.Context) ([]string, error) { return colors, err }
}

// namesBrand tells whether any of ops is a setPalette naming the brand
// palette; ops that do not decode are left for Apply to refuse.
func namesBrand(ops []json.RawMessage) bool {
	for _, raw := range ops {
		var o SetPalette
		if json.Unmarshal(raw, &o) == nil && o.Op == o.Name() && o.Palette == BrandPalette {
			return true
		}
	}
	return false
}
