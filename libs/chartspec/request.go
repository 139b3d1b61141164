package chartspec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"

	"chartd.dev/libs/apierr"
	"chartd.dev/libs/dataset"
)

// ApplyRequest applies the ops of an API request to spec against t (the
// data before steps). brand is asked for the account's brand palette only
// when an op names it. A refused op is invalid_ops with the op's message.
func (o *Ops) ApplyRequest(ctx context.Context, spec *Spec, ops []json.RawMessage, t *dataset.Table, brand func(context.Context) ([]string, error)) (*Spec, error) {
	if len(ops) == 0 {
		return spec, nil
	}
	env := Env{Table: t}
	if brand != nil {
		for _, op := range ops {
			if bytes.Contains(op, []byte(`"brand"`)) {
				b, err := brand(ctx)
				if err != nil {
					return nil, fmt.Errorf("brand palette: %w", err)
				}
				env.Brand = b
				break
			}
		}
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
