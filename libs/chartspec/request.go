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
