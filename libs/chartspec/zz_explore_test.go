package chartspec

import (
	"encoding/json"
	"fmt"
	"testing"

	"chartd.dev/charts"
	"chartd.dev/libs/dataset"
)

func TestZZExplore(t *testing.T) {
	cat, _ := charts.Load()
	o, err := NewOps(cat)
	if err != nil {
		t.Fatal(err)
	}
	fmt.Println(o.CatalogText())
	tab, _, _ := dataset.Parse("Country,Sales,Profit\nFrance,10,2\nSpain,5,1\n", "csv")
	ct, _ := cat.Type("bar")
	spec := New(ct, tab, cat.DefaultPalette().Colors)
	for _, op := range []string{
		`{"op":"setTitle"}`, `{"op":"setTitle","title":"x"}`, `{"op":"setTitle","title":{"text":"x","foo":1}}`,
		`{"op":"setTite"}`, `{"op":"setMapping","mapping":{"values":["c9"]}}`, `{"op":"setMapping","mapping":{"values":5}}`,
		`{"op":"setVariants","variants":{"bar":{"orientation":"diagonal"}}}`, `{"op":"setVariants","variants":{"histogram":{"bins":1}}}`,
		`{"op":"setVariants","variants":{"bar":{"color":1}}}`, `{"op":"setVariants","variants":{"pie3d":{}}}`,
		`{"op":"setPalette"}`, `{"op":"setPalette","palette":"x","colors":["#FFF"]}`, `{"op":"setPalette","colors":["red"]}`,
		`{"op":"setPalette","palette":"brand"}`, `{"op":"setSize","width":50,"height":100}`, `{"op":"setAxis","axis":"y"}`,
		`{"op":"addTransform","transform":{"type":"sort","column":"c9"}}`, `{"op":"addTransform","transform":{"type":"sortx"}}`,
		`{"op":"removeTransform","index":0}`, `{"op":"setSeriesColor","series":"Italy","color":"#FF0000"}`,
		`{"op":"setLegend","show":"yes"}`, `[1]`, `{"op":"setNumberFormat","decimals":1.5}`,
	} {
		_, err := o.Apply(spec, []json.RawMessage{json.RawMessage(op)}, Env{Table: tab})
		fmt.Println(op, "\n   →", err)
	}
	b, _ := json.MarshalIndent(o.OpSchemas()[3], "", " ")
	fmt.Println(string(b))
}
