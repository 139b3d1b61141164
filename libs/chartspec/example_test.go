package chartspec_test

import (
	"encoding/json"
	"errors"
	"fmt"

	"chartd.dev/charts"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// Applying ops: a fresh spec for the data, then a list of ops applied
// together. Apply answers a new spec and leaves the old one as it was; a
// wrong op refuses the whole list with an *OpError that names the op, the
// field and what to do.
func ExampleOps_Apply() {
	cat, err := charts.Load()
	if err != nil {
		panic(err)
	}
	ops, err := chartspec.NewOps(cat)
	if err != nil {
		panic(err)
	}
	tab, _, err := dataset.Parse("Country,Sales\nGermany,120\nFrance,95", "csv")
	if err != nil {
		panic(err)
	}
	bar, _ := cat.Type("bar")
	spec := chartspec.New(bar, tab, cat.DefaultPalette().Colors)

	edited, err := ops.Apply(spec, []json.RawMessage{
		json.RawMessage(`{"op":"setTitle","title":{"text":"Sales by country"}}`),
		json.RawMessage(`{"op":"setSize","width":800,"height":450}`),
	}, chartspec.Env{Table: tab})
	if err != nil {
		panic(err)
	}
	fmt.Printf("%q %s, before: %q %s\n", edited.Style.Title.Text, edited.Style.Size, spec.Style.Title.Text, spec.Style.Size)

	_, err = ops.Apply(edited, []json.RawMessage{
		json.RawMessage(`{"op":"setTitle","title":{"text":"Kept?"}}`),
		json.RawMessage(`{"op":"addTransform","transform":{"type":"sort","column":"c9"}}`),
	}, chartspec.Env{Table: tab})
	var opErr *chartspec.OpError
	fmt.Println(errors.As(err, &opErr), opErr.Index, err)
	// Output:
	// "Sales by country" 800×450, before: "" 800×600
	// true 1 ops[1].transform.column: no column c9; the columns are c1 (Country), c2 (Sales)
}
