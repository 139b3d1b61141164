package chartspec

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"chartd.dev/libs/apierr"
)

func TestOpSchemasHaveTheContractShape(t *testing.T) {
	f := newFixture(t)
	schemas := f.ops.OpSchemas()
	if len(schemas) < 18 {
		t.Fatalf("%d ops, want the 17 of the issue and setFooter", len(schemas))
	}
	for _, want := range []string{"setTitle", "setSubtitle", "setFooter", "setType", "setVariants", "setMapping", "addTransform",
		"updateTransform", "removeTransform", "clearTransforms", "setPalette", "setSeriesColor", "setLegend",
		"setLabels", "setAxisTitle", "setAxis", "setNumberFormat", "setSize"} {
		if !slices.Contains(f.ops.Names(), want) {
			t.Errorf("op %s missing", want)
		}
	}
	for _, s := range schemas {
		sch := s.Schema
		if sch["type"] != "object" || sch["additionalProperties"] != false {
			t.Errorf("%s: type %v additionalProperties %v, want object and false", s.Op, sch["type"], sch["additionalProperties"])
		}
		props, _ := sch["properties"].(map[string]any)
		opProp, _ := props["op"].(map[string]any)
		if opProp["const"] != s.Op {
			t.Errorf("%s: properties.op.const = %v", s.Op, opProp["const"])
		}
		req, _ := sch["required"].([]string)
		if !slices.Contains(req, "op") {
			t.Errorf("%s: required %v lacks op", s.Op, req)
		}
		if d, _ := sch["description"].(string); d == "" {
			t.Errorf("%s: no description", s.Op)
		}
		for name, p := range props {
			if d, _ := p.(map[string]any)["description"].(string); d == "" {
				t.Errorf("%s.%s: no description", s.Op, name)
			}
		}
		// Served schemas are fresh copies: changing one changes nothing.
		sch["type"] = "changed"
	}
	if f.ops.OpSchemas()[0].Schema["type"] != "object" {
		t.Error("OpSchemas answers shared maps")
	}
}

// TestCatalogGolden keeps the served catalog text and schemas under review.
func TestCatalogGolden(t *testing.T) {
	f := newFixture(t)
	schemas, err := json.MarshalIndent(f.ops.OpSchemas(), "", "  ")
	if err != nil {
		t.Fatal(err)
	}
	for name, got := range map[string][]byte{
		"catalog.txt":     []byte(f.ops.CatalogText()),
		"op_schemas.json": append(schemas, '\n'),
	} {
		path := filepath.Join("testdata", name)
		if *update {
			if err := os.MkdirAll("testdata", 0o755); err != nil {
				t.Fatal(err)
			}
			if err := os.WriteFile(path, got, 0o644); err != nil {
				t.Fatal(err)
			}
		}
		want, err := os.ReadFile(path)
		if err != nil {
			t.Fatalf("read golden (run with -update to create): %v", err)
		}
		if !bytes.Equal(got, want) {
			t.Errorf("%s differs from the golden file; run go test -run TestCatalogGolden -update and review the diff", name)
		}
	}
}

func TestCatalogTextHasALinePerOpWithAWorkingExample(t *testing.T) {
	f := newFixture(t)
	text := f.ops.CatalogText()
	lines := strings.Split(text, "\n")
	for _, name := range f.ops.Names() {
		var line string
		for _, l := range lines {
			if strings.HasPrefix(l, name+" {") {
				line = l
			}
		}
		if line == "" {
			t.Errorf("catalog has no line for %s", name)
			continue
		}
		ex, _ := f.ops.Example(name)
		if !strings.Contains(line, "e.g. "+ex) {
			t.Errorf("%s line lacks its example: %s", name, line)
		}
		op, err := f.ops.Decode(json.RawMessage(ex))
		if err != nil {
			t.Errorf("%s example %s is refused: %v", name, ex, err)
		} else if op.Name() != name {
			t.Errorf("%s example decodes as %s", name, op.Name())
		}
	}
	for _, want := range []string{"bar: orientation", "histogram: bins int 2..100|0", "bar: category, values[]", "topN {n, column?}"} {
		if !strings.Contains(text, want) {
			t.Errorf("catalog lacks %q", want)
		}
	}
}

// TestEveryOpChangesTheState applies each op's catalog example to a chart
// it fits and checks the stored spec changed.
func TestEveryOpChangesTheState(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, salesCSV+"Germany,8,2\n")
	base := f.apply(t, f.newSpec(t, "bar", tab), tab,
		`{"op":"setMapping","mapping":{"values":["c2"]}}`,
		`{"op":"addTransform","transform":{"type":"limit","n":100}}`,
		`{"op":"addReferenceLine","line":{"axis":"y","value":"mean"}}`)
	for _, name := range f.ops.Names() {
		t.Run(name, func(t *testing.T) {
			ex, _ := f.ops.Example(name)
			before := mustJSON(t, base)
			out := f.apply(t, base, tab, ex)
			if bytes.Equal(mustJSON(t, out), before) {
				t.Errorf("%s changed nothing: %s", ex, before)
			}
			if !bytes.Equal(mustJSON(t, base), before) {
				t.Errorf("%s changed the input spec", ex)
			}
		})
	}
}

func TestApplyRefusals(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, "Country,Sales\nFrance,10\nSpain,5\n")
	cases := []struct {
		name string
		ops  []string
		want string // the whole error, or a prefix ending in "…"
	}{
		{"bad step column names op, field and columns",
			[]string{`{"op":"setTitle","title":{"text":"ok"}}`, `{"op":"addTransform","transform":{"type":"sort","column":"c9"}}`},
			"ops[1].transform.column: no column c9; the columns are c1 (Country), c2 (Sales)"},
		{"unknown mapping column",
			[]string{`{"op":"setMapping","mapping":{"values":["c9"]}}`},
			"ops[0].mapping.values: no column c9; the columns are c1 (Country), c2 (Sales)"},
		{"role the type lacks",
			[]string{`{"op":"setMapping","mapping":{"x":"c1"}}`},
			`ops[0].mapping.x: a bar chart has no role "x"; its roles are category, values[]`},
		{"role of the wrong kind",
			[]string{`{"op":"setMapping","mapping":{"values":"c1"}}`},
			"ops[0].mapping.values: c1 (Country) is a text column; values takes one or more number columns: c2 (Sales)"},
		{"single role given two columns",
			[]string{`{"op":"setMapping","mapping":{"category":["c1","c2"]}}`},
			"ops[0].mapping.category: category takes one column; got 2 (c1, c2)"},
		{"required role cleared",
			[]string{`{"op":"setMapping","mapping":{"values":null}}`},
			"ops[0].mapping.values: values is required for a bar chart; map one or more number columns from c2 (Sales)"},
		{"option the type lacks",
			[]string{`{"op":"setVariants","variants":{"bar":{"donut":0.5}}}`},
			`ops[0].variants.bar.donut: a bar chart has no option "donut"; its options are orientation, stack…`},
		{"option value out of range",
			[]string{`{"op":"setVariants","variants":{"histogram":{"bins":1}}}`},
			`ops[0].variants.histogram.bins: option "bins": 1 is not allowed; use an integer from 2 to 100, or 0…`},
		{"unknown chart type in variants",
			[]string{`{"op":"setVariants","variants":{"pie3d":{"donut":1}}}`},
			`ops[0].variants.pie3d: no chart type "pie3d"; the types are bar, line, pie…`},
		{"unknown op with a suggestion",
			[]string{`{"op":"setTitel","title":{"text":"x"}}`},
			`ops[0].op: unknown op "setTitel"; did you mean setTitle? the ops are…`},
		{"missing op", []string{`{"title":{"text":"x"}}`}, "ops[0].op: required: the op's name…"},
		{"not an object", []string{`"setTitle"`}, "ops[0]: an op must be a JSON object…"},
		{"broken JSON", []string{`{"op":`}, "ops[0]: an op must be one JSON object…"},
		{"unknown field", []string{`{"op":"setLabels","show":true,"colour":"red"}`}, "ops[0].colour: unknown field; setLabels takes show…"},
		{"missing field", []string{`{"op":"setSize","width":800}`}, "ops[0].height: required: the height in pixels…"},
		{"wrong type", []string{`{"op":"setLabels","show":"yes"}`}, `ops[0].show: must be true to write each value on its mark (bool); got "yes"…`},
		{"size out of range", []string{`{"op":"setSize","width":50,"height":600}`}, "ops[0].width: must be from 100 to 4000; got 50…"},
		{"palette and colors both", []string{`{"op":"setPalette","palette":"dark2","colors":["#000000"]}`}, "ops[0]: give exactly one of palette, colors…"},
		{"bad colour", []string{`{"op":"setPalette","colors":["red"]}`}, `ops[0].colors[0]: must be a colour as #RRGGBB or #RGB…`},
		{"unknown preset", []string{`{"op":"setPalette","palette":"rainbow"}`}, `ops[0].palette: no preset palette "rainbow"; the presets are default, okabe-ito…`},
		{"brand without a saved palette", []string{`{"op":"setPalette","palette":"brand"}`},
			"ops[0].palette: no brand palette is saved; save one first with set_brand_palette…"},
		{"unknown series", []string{`{"op":"setSeriesColor","series":"Peru","color":"#FF0000"}`},
			`ops[0].series: no series "Peru"; use a value column (c2 (Sales)) or a category such as "France", "Spain"`},
		{"axis range upside down", []string{`{"op":"setAxis","axis":"y","min":10,"max":5}`},
			"ops[0].min: must be below max; the y axis would run from 10 to 5"},
		{"log axis from zero", []string{`{"op":"setAxis","axis":"y","min":0,"log":true}`},
			"ops[0].min: a log axis cannot start at 0; give a min above 0, or null for automatic"},
		{"number beyond float64", []string{`{"op":"setAxis","axis":"y","max":1e400}`},
			"ops[0].max: number 1e400 is out of range for float64…"},
		{"axis op that changes nothing", []string{`{"op":"setAxis","axis":"y"}`},
			"ops[0]: changes nothing; give at least one of min, max, log, scale, tickFormat…"},
		{"axes on a pie", []string{`{"op":"setType","type":"pie"}`, `{"op":"setAxisTitle","axis":"x","text":"x"}`},
			"ops[1].axis: a pie chart has no x or y axis…"},
		{"step index out of range", []string{`{"op":"addTransform","transform":{"type":"limit","n":1}}`, `{"op":"removeTransform","index":3}`},
			"ops[1].index: no step 3; the chart has 1 step, numbered 0 to 0"},
		{"no steps to remove", []string{`{"op":"removeTransform","index":0}`},
			"ops[0].index: the chart has no steps; add one with addTransform"},
		{"bad step field", []string{`{"op":"addTransform","transform":{"type":"topN","n":0}}`},
			"ops[0].transform.n: must be a whole number from 1 to 100000000; got 0"},
		{"footer source too long", []string{`{"op":"setFooter","footer":{"source":"` + strings.Repeat("s", 201) + `"}}`},
			"ops[0].footer.source: must be at most 200 characters; got 201…"},
		{"footer notes too long", []string{`{"op":"setFooter","footer":{"notes":"` + strings.Repeat("n", 501) + `"}}`},
			"ops[0].footer.notes: must be at most 500 characters; got 501…"},
		{"footer byline too long", []string{`{"op":"setFooter","footer":{"byline":"` + strings.Repeat("b", 101) + `"}}`},
			"ops[0].footer.byline: must be at most 100 characters; got 101…"},
		{"empty footer", []string{`{"op":"setFooter","footer":{}}`},
			"ops[0].footer: must not be empty; give at least one of source, notes, byline…"},
		{"unknown footer field", []string{`{"op":"setFooter","footer":{"credit":"x"}}`},
			"ops[0].footer.credit: unknown field; footer takes source, notes, byline…"},
		{"footer field not text", []string{`{"op":"setFooter","footer":{"source":42}}`},
			`ops[0].footer.source: must be where the data comes from…`},
		{"shown title without text", []string{`{"op":"setTitle","title":{"text":"","show":true}}`},
			"ops[0].title.text: is empty, so there is nothing to show; give a text or set show to false"},
		{"removing a step a later one needs", []string{
			`{"op":"addTransform","transform":{"type":"aggregate","groupBy":["c1"],"measures":[{"column":"c2","fn":"sum"}]}}`,
			`{"op":"addTransform","transform":{"type":"sort","column":"c3","direction":"desc"}}`,
			`{"op":"removeTransform","index":0}`},
			"ops[2]: removing it breaks step 0 (sort), which uses what it changes: column: no column c3…"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			spec := f.newSpec(t, "bar", tab)
			before := mustJSON(t, spec)
			out, err := f.ops.Apply(spec, raws(tc.ops...), Env{Table: tab})
			if err == nil {
				t.Fatalf("applied, want refusal %q", tc.want)
			}
			if out != nil {
				t.Error("a refusal also answered a spec")
			}
			var oe *OpError
			if !errors.As(err, &oe) {
				t.Fatalf("error %T, want *OpError", err)
			}
			got := err.Error()
			if prefix, ok := strings.CutSuffix(tc.want, "…"); ok {
				if !strings.HasPrefix(got, prefix) {
					t.Errorf("got  %s\nwant %s", got, tc.want)
				}
			} else if got != tc.want {
				t.Errorf("got  %s\nwant %s", got, tc.want)
			}
			if !bytes.Equal(mustJSON(t, spec), before) {
				t.Error("a refused batch changed the input spec")
			}
		})
	}
}

func TestApplyIsAllOrNothing(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, salesCSV)
	spec := f.apply(t, f.newSpec(t, "bar", tab), tab,
		`{"op":"setAxis","axis":"y","min":0,"max":20}`,
		`{"op":"setNumberFormat","decimals":2}`,
		`{"op":"setSeriesColor","series":"c2","color":"#112233"}`)
	before := mustJSON(t, spec)
	_, err := f.ops.Apply(spec, raws(
		`{"op":"setVariants","variants":{"bar":{"orientation":"horizontal"},"pie":{"donut":0.4}}}`,
		`{"op":"setAxis","axis":"y","max":30}`,
		`{"op":"setNumberFormat","decimals":3}`,
		`{"op":"setSeriesColor","series":"c2","color":"#445566"}`,
		`{"op":"setPalette","colors":["#000000"]}`,
		`{"op":"addTransform","transform":{"type":"sort","column":"c2"}}`,
		`{"op":"setType","type":"pie"}`,
		`{"op":"setSize","width":99,"height":600}`,
	), Env{Table: tab})
	var oe *OpError
	if !errors.As(err, &oe) || oe.Index != 7 || oe.Field != "width" {
		t.Fatalf("err = %v, want a refusal of ops[7].width", err)
	}
	if !bytes.Equal(mustJSON(t, spec), before) {
		t.Errorf("input changed:\n%s\n%s", before, mustJSON(t, spec))
	}
}

func TestSetTypeRemapsAndRemembersOptions(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, "Country,Sales,Profit,Year\nFrance,10,2,2020\nSpain,5,1,2021\nItaly,7,3,2022\n")
	bar := f.apply(t, f.newSpec(t, "bar", tab), tab,
		`{"op":"setMapping","mapping":{"category":"c1","values":["c2","c3"]}}`,
		`{"op":"setVariants","variants":{"bar":{"orientation":"horizontal"},"pie":{"donut":0.5}}}`)

	pie := f.apply(t, bar, tab, `{"op":"setType","type":"pie"}`)
	if got := mustJSON(t, pie.Mapping); string(got) != `{"label":"c1","value":"c2"}` {
		t.Errorf("bar → pie mapping %s, want label c1, value c2", got)
	}
	if pie.Options["donut"] != 0.5 {
		t.Errorf("pie options %v, want the donut set earlier", pie.Options)
	}
	if pie.Variants["bar"]["orientation"] != "horizontal" {
		t.Errorf("variants %v do not keep the bar's orientation", pie.Variants)
	}

	back := f.apply(t, pie, tab, `{"op":"setType","type":"bar"}`)
	if back.Options["orientation"] != "horizontal" || back.Options["stack"] != "none" {
		t.Errorf("bar options after switching back: %v", back.Options)
	}
	if got := mustJSON(t, back.Mapping); string(got) != `{"category":"c1","values":["c2"]}` {
		t.Errorf("pie → bar mapping %s", got)
	}

	scatter := f.apply(t, bar, tab, `{"op":"setType","type":"scatter"}`)
	if scatter.Mapping.Col("x") != "c2" || scatter.Mapping.Col("y") != "c3" {
		t.Errorf("bar → scatter mapping %s, want x c2, y c3", mustJSON(t, scatter.Mapping))
	}

	line := f.apply(t, bar, tab, `{"op":"setType","type":"line"}`)
	if line.Mapping.Col("x") != "c4" || !slices.Equal(line.Mapping.Cols("values"), []string{"c2", "c3"}) {
		t.Errorf("bar → line mapping %s, want x c4 (the only date/number column left), values c2, c3", mustJSON(t, line.Mapping))
	}
	if _, ok := line.Options["curve"]; !ok || line.Options["orientation"] != nil {
		t.Errorf("line options %v", line.Options)
	}
}

func TestTransformsKeepTheMappingUsable(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, "Country,Region,Sales\nFrance,EU,10\nSpain,EU,5\nPeru,SA,7\n")
	spec := f.apply(t, f.newSpec(t, "bar", tab), tab,
		`{"op":"addTransform","transform":{"type":"aggregate","groupBy":["c2"],"measures":[{"column":"c3","fn":"sum"}]}}`)
	after := afterSteps(t, spec, tab)
	if after.Rows != 2 {
		t.Fatalf("aggregate gave %d rows", after.Rows)
	}
	for _, id := range append(spec.Mapping.Cols("category"), spec.Mapping.Cols("values")...) {
		if _, ok := after.Column(id); !ok {
			t.Errorf("mapping %s names %s, which the data after steps lacks", mustJSON(t, spec.Mapping), id)
		}
	}
	cleared := f.apply(t, spec, tab, `{"op":"clearTransforms"}`)
	if len(cleared.Steps) != 0 || cleared.Mapping.Col("category") != "c2" || cleared.Mapping.Col("values") != "c3" {
		t.Errorf("after clearTransforms: steps %s mapping %s", mustJSON(t, cleared.Steps), mustJSON(t, cleared.Mapping))
	}
	// A mapping op after a step names the step's new columns.
	f.apply(t, spec, tab, `{"op":"setMapping","mapping":{"category":"c2"}}`)

	upd := f.apply(t, spec, tab, `{"op":"updateTransform","index":0,"transform":{"type":"filter","column":"c2","operator":"eq","value":"EU"}}`)
	if string(upd.Steps[0]) != `{"type":"filter","column":"c2","operator":"eq","value":"EU"}` {
		t.Errorf("updated step %s", upd.Steps[0])
	}
}

func TestPaletteAndSeriesColors(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, salesCSV)
	spec := f.newSpec(t, "pie", tab)
	out, err := f.ops.Apply(spec, raws(
		`{"op":"setPalette","palette":"brand"}`,
		`{"op":"setSeriesColor","series":"Spain","color":"#abc"}`,
	), Env{Table: tab, Brand: func() ([]string, error) { return []string{"#123", "#a1b2c3"}, nil }})
	if err != nil {
		t.Fatal(err)
	}
	if !slices.Equal(out.Style.Palette, []string{"#112233", "#A1B2C3"}) {
		t.Errorf("brand palette applied as %v", out.Style.Palette)
	}
	if out.Style.SeriesColors["Spain"] != "#AABBCC" {
		t.Errorf("series colours %v", out.Style.SeriesColors)
	}
	out = f.apply(t, out, tab, `{"op":"setSeriesColor","series":"Spain","color":null}`, `{"op":"setPalette","palette":"okabe-ito"}`)
	if len(out.Style.SeriesColors) != 0 || out.Style.Palette[0] != "#E69F00" {
		t.Errorf("after unpinning and a preset: %v %v", out.Style.SeriesColors, out.Style.Palette)
	}
}

func TestStyleOpsMergeAndClear(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, salesCSV)
	spec := f.apply(t, f.newSpec(t, "bar", tab), tab,
		`{"op":"setAxis","axis":"y","min":1,"max":50,"log":true,"tickFormat":"compact"}`,
		`{"op":"setAxis","axis":"y","min":null}`,
		`{"op":"setLegend","position":{"x":"left"}}`,
		`{"op":"setNumberFormat","prefix":"$","decimals":2}`,
		`{"op":"setNumberFormat","decimals":null}`,
		`{"op":"setAxisTitle","axis":"x","text":"Country"}`,
		`{"op":"setSubtitle","subtitle":{"text":"2024"}}`,
	)
	ax := spec.Style.YAxis
	if ax == nil || ax.Min != nil || ax.Max == nil || *ax.Max != 50 || !ax.Log || ax.TickFormat != "compact" {
		t.Errorf("y axis %s", mustJSON(t, ax))
	}
	if spec.Style.Legend.Position != (Position{X: "left", Y: "top"}) || spec.Style.Legend.Show != Auto {
		t.Errorf("legend %+v", spec.Style.Legend)
	}
	if nf := spec.Style.NumberFormat; nf == nil || nf.Prefix != "$" || nf.Decimals != nil {
		t.Errorf("number format %s", mustJSON(t, nf))
	}
	if spec.Style.XAxisTitle == nil || spec.Style.XAxisTitle.Text != "Country" || !spec.Style.Subtitle.Show {
		t.Errorf("titles %s", mustJSON(t, spec.Style))
	}
	spec = f.apply(t, spec, tab,
		`{"op":"setAxis","axis":"y","max":null,"log":false,"tickFormat":"auto"}`,
		`{"op":"setAxisTitle","axis":"x","text":null}`,
		`{"op":"setNumberFormat","prefix":null}`,
		`{"op":"setTitle","title":{"text":""}}`,
	)
	if spec.Style.XAxisTitle != nil || spec.Style.NumberFormat != nil || spec.Style.Title.Show {
		t.Errorf("cleared style %s", mustJSON(t, spec.Style))
	}
	if ax := spec.Style.YAxis; ax == nil || ax.TickFormat != "auto" || ax.Log || ax.Max != nil {
		t.Errorf("y axis after reset %s", mustJSON(t, ax))
	}
}

// TestNumberFormatCompactAndLocale: compact is three-way (true, false,
// null for automatic) and survives a round trip as false; a locale is
// stored in its canonical form, refused when it names no language, and
// cleared with null.
func TestNumberFormatCompactAndLocale(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, salesCSV)
	spec := f.apply(t, f.newSpec(t, "bar", tab), tab, `{"op":"setNumberFormat","compact":false,"decimals":0,"locale":"DE-ch"}`)
	nf := spec.Style.NumberFormat
	if nf == nil || nf.Compact == nil || *nf.Compact || nf.Locale != "de-CH" {
		t.Fatalf("number format %s", mustJSON(t, nf))
	}
	if js := string(mustJSON(t, nf)); !strings.Contains(js, `"compact":false`) {
		t.Errorf("compact:false is lost in JSON: %s", js)
	}
	var back Spec
	if err := json.Unmarshal(mustJSON(t, spec), &back); err != nil || back.Style.NumberFormat.Compact == nil || *back.Style.NumberFormat.Compact {
		t.Errorf("round trip: %v %s", err, mustJSON(t, back.Style.NumberFormat))
	}
	spec = f.apply(t, spec, tab, `{"op":"setNumberFormat","compact":null,"locale":null}`)
	if nf := spec.Style.NumberFormat; nf == nil || nf.Compact != nil || nf.Locale != "" || nf.Decimals == nil {
		t.Errorf("after null: %s", mustJSON(t, nf))
	}
	for _, bad := range []string{"xx-nonsense", "und", "12"} {
		_, err := f.ops.Apply(spec, raws(`{"op":"setNumberFormat","locale":"`+bad+`"}`), Env{Table: tab})
		if err == nil || !strings.Contains(err.Error(), "ops[0].locale:") {
			t.Errorf("locale %q: %v", bad, err)
		}
	}
}

// TestSetFooterMergesAndClears sets the footer field by field: fields
// left out keep their value, null or an empty text clears one, and a
// footer with nothing left is gone from the spec.
func TestSetFooterMergesAndClears(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, salesCSV)
	spec := f.newSpec(t, "bar", tab)
	if spec.Style.Footer != nil || bytes.Contains(mustJSON(t, spec.Style), []byte("footer")) {
		t.Fatalf("a new chart has a footer: %s", mustJSON(t, spec.Style))
	}
	spec = f.apply(t, spec, tab,
		`{"op":"setFooter","footer":{"source":"  Eurostat  ","notes":"Provisional."}}`,
		`{"op":"setFooter","footer":{"byline":"Data desk"}}`,
	)
	want := Footer{Source: "Eurostat", Notes: "Provisional.", Byline: "Data desk"}
	if spec.Style.Footer == nil || *spec.Style.Footer != want {
		t.Fatalf("footer %s, want %+v", mustJSON(t, spec.Style.Footer), want)
	}
	if got := string(mustJSON(t, spec.Style.Footer)); got != `{"source":"Eurostat","notes":"Provisional.","byline":"Data desk"}` {
		t.Errorf("footer JSON %s", got)
	}
	c := spec.Clone()
	c.Style.Footer.Source = "changed"
	if spec.Style.Footer.Source != "Eurostat" {
		t.Error("the clone shares the footer")
	}
	spec = f.apply(t, spec, tab, `{"op":"setFooter","footer":{"notes":null,"byline":""}}`)
	if spec.Style.Footer == nil || *spec.Style.Footer != (Footer{Source: "Eurostat"}) {
		t.Fatalf("after clearing notes and byline: %s", mustJSON(t, spec.Style.Footer))
	}
	spec = f.apply(t, spec, tab, `{"op":"setFooter","footer":{"source":"   "}}`)
	if spec.Style.Footer != nil {
		t.Fatalf("an all-empty footer stays: %s", mustJSON(t, spec.Style.Footer))
	}
	// 200 characters of source, counted as characters, not bytes.
	long := strings.Repeat("é", MaxFooterSource)
	spec = f.apply(t, spec, tab, `{"op":"setFooter","footer":{"source":"`+long+`"}}`)
	if spec.Style.Footer == nil || spec.Style.Footer.Source != long {
		t.Fatal("a source of exactly the limit is refused or changed")
	}
}

func TestOptionalRoleCanBeCleared(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, "A,B,C,G\n1,2,3,x\n4,5,6,y\n")
	spec := f.apply(t, f.newSpec(t, "scatter", tab), tab, `{"op":"setMapping","mapping":{"size":"c3"}}`)
	if spec.Mapping.Col("size") != "c3" {
		t.Fatalf("size not mapped: %s", mustJSON(t, spec.Mapping))
	}
	spec = f.apply(t, spec, tab, `{"op":"setMapping","mapping":{"size":null,"group":null}}`)
	if _, ok := spec.Mapping["size"]; ok {
		t.Errorf("size still mapped: %s", mustJSON(t, spec.Mapping))
	}
	if _, ok := spec.Mapping["group"]; ok {
		t.Errorf("group still mapped: %s", mustJSON(t, spec.Mapping))
	}
}

func TestApplyUnknownSpecType(t *testing.T) {
	f := newFixture(t)
	_, err := f.ops.Apply(&Spec{Type: "pie3d"}, raws(`{"op":"setLabels","show":true}`), Env{})
	if err == nil || !strings.Contains(err.Error(), "pie3d") {
		t.Errorf("err = %v", err)
	}
}

func TestCloneIsDeep(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, salesCSV)
	spec := f.apply(t, f.newSpec(t, "bar", tab), tab,
		`{"op":"setAxis","axis":"x","min":1}`, `{"op":"setNumberFormat","decimals":1}`,
		`{"op":"setAxisTitle","axis":"y","text":"t"}`, `{"op":"setVariants","variants":{"pie":{"donut":0.2}}}`,
		`{"op":"addTransform","transform":{"type":"limit","n":2}}`)
	before := mustJSON(t, spec)
	c := spec.Clone()
	*c.Style.XAxis.Min = 9
	*c.Style.NumberFormat.Decimals = 9
	c.Style.YAxisTitle.Text = "changed"
	c.Variants["pie"]["donut"] = 0.9
	c.Options["stack"] = "percent"
	c.Mapping["values"].IDs[0] = "c9"
	c.Steps[0][0] = '['
	c.Style.Palette[0] = "#000000"
	c.Style.SeriesColors["x"] = "#000000"
	if !bytes.Equal(mustJSON(t, spec), before) {
		t.Error("changing the clone changed the original")
	}
}

func FuzzApplyOp(f *testing.F) {
	fx := newFixture(f)
	tab := parseCSV(f, salesCSV)
	for _, name := range fx.ops.Names() {
		ex, _ := fx.ops.Example(name)
		f.Add([]byte(ex))
	}
	f.Add([]byte(`{"op":"setMapping","mapping":{"values":[1]}}`))
	f.Add([]byte(`{"op":"setVariants","variants":{"histogram":{"bins":1.5}}}`))
	f.Add([]byte(`{"op":"setAxis","axis":"y","min":1e400}`))
	spec := fx.newSpec(f, "bar", tab)
	before := mustJSON(f, spec)
	f.Fuzz(func(t *testing.T, op []byte) {
		out, err := fx.ops.Apply(spec, []json.RawMessage{op}, Env{Table: tab})
		if (out == nil) == (err == nil) {
			t.Fatalf("out %v err %v: exactly one must be set", out, err)
		}
		if err != nil {
			var oe *OpError
			if !errors.As(err, &oe) || oe.Message == "" {
				t.Fatalf("refusal %v is not a worded *OpError", err)
			}
		} else if _, err := json.Marshal(out); err != nil {
			t.Fatalf("result does not marshal: %v", err)
		}
		if !bytes.Equal(mustJSON(t, spec), before) {
			t.Fatal("input spec changed")
		}
	})
}

func TestOpsAreSafeForConcurrentUse(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, salesCSV)
	spec := f.newSpec(t, "bar", tab)
	done := make(chan error, 8)
	for g := 0; g < 8; g++ {
		go func() {
			var err error
			for i := 0; i < 50 && err == nil; i++ {
				_, err = f.ops.Apply(spec, raws(
					`{"op":"setVariants","variants":{"bar":{"stack":"stacked"}}}`,
					`{"op":"addTransform","transform":{"type":"sort","column":"c2"}}`,
					`{"op":"setType","type":"pie"}`), Env{Table: tab})
				if _, bad := f.ops.Apply(spec, raws(`{"op":"setSize","width":1}`), Env{Table: tab}); bad == nil {
					err = errors.New("a bad op was applied")
				}
			}
			done <- err
		}()
	}
	for g := 0; g < 8; g++ {
		if err := <-done; err != nil {
			t.Fatal(err)
		}
	}
}

func TestBrandReadOnlyForBrandPalette(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, salesCSV)
	spec := f.newSpec(t, "pie", tab)
	calls := 0
	brand := func(context.Context) ([]string, error) { calls++; return []string{"#112233"}, nil }
	if _, err := f.ops.ApplyRequest(context.Background(), spec, raws(`{"op":"setTitle","title":{"text":"Our \"brand\" palette"}}`), tab, brand); err != nil {
		t.Fatal(err)
	}
	if calls != 0 {
		t.Fatalf("a title mentioning \"brand\" read the brand palette %d times", calls)
	}
	out, err := f.ops.ApplyRequest(context.Background(), spec, raws(`{"op":"setPalette","palette":"brand"}`), tab, brand)
	if err != nil || calls != 1 || out.Style.Palette[0] != "#112233" {
		t.Fatalf("setPalette brand: calls %d, err %v", calls, err)
	}
	failing := func(context.Context) ([]string, error) { return nil, errors.New("brand service down") }
	_, err = f.ops.ApplyRequest(context.Background(), spec, raws(`{"op":"setPalette","palette":"brand"}`), tab, failing)
	var ae *apierr.Error
	if err == nil || errors.As(err, &ae) {
		t.Fatalf("a brand service failure must be an internal error, got %v", err)
	}
}
