package chartspec

import (
	"encoding/json"
	"strings"
	"testing"
)

// TestAnnotationOps applies the five annotation ops and checks the spec's
// annotations list after each, as the chart state carries it.
func TestAnnotationOps(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, "Month,Sales,Costs\n2024-01-01,80,50\n2024-02-01,95,60\n2024-03-05,120,70\n")
	for _, tc := range []struct {
		name string
		typ  string
		ops  []string
		want string // the annotations list as JSON
	}{
		{"note on a date of a line", "line", []string{`{"op":"addAnnotation","annotation":{"text":"Launch day","x":"2024-03-05","series":"c2"}}`},
			`[{"type":"note","text":"Launch day","x":"2024-03-05","series":"c2"}]`},
		{"note in data space with its placement", "line", []string{`{"op":"addAnnotation","annotation":{"text":"Here","x":"2024-02-10","y":100,"position":"below","arrow":false}}`},
			`[{"type":"note","text":"Here","x":"2024-02-10","y":100,"position":"below","arrow":false}]`},
		{"auto position is the default, not stored", "bar", []string{`{"op":"addAnnotation","annotation":{"text":"Peak","x":"2024-03-05","position":"auto"}}`},
			`[{"type":"note","text":"Peak","x":"2024-03-05"}]`},
		{"reference lines by value and mean", "bar", []string{
			`{"op":"addReferenceLine","line":{"axis":"y","value":100,"label":"Target"}}`,
			`{"op":"addReferenceLine","line":{"axis":"y","value":"mean"}}`},
			`[{"type":"line","axis":"y","value":100,"label":"Target"},{"type":"line","axis":"y","value":"mean"}]`},
		{"range on a time axis", "line", []string{`{"op":"addRange","range":{"axis":"x","from":"2024-01-15","to":"2024-02-20","label":"Promo"}}`},
			`[{"type":"range","axis":"x","from":"2024-01-15","to":"2024-02-20","label":"Promo"}]`},
		{"remove by place in the order added", "line", []string{
			`{"op":"addReferenceLine","line":{"axis":"y","value":100}}`,
			`{"op":"addRange","range":{"axis":"y","from":60,"to":90}}`,
			`{"op":"addReferenceLine","line":{"axis":"y","value":"median"}}`,
			`{"op":"removeAnnotation","index":1}`},
			`[{"type":"line","axis":"y","value":100},{"type":"line","axis":"y","value":"median"}]`},
		{"clear", "line", []string{
			`{"op":"addReferenceLine","line":{"axis":"y","value":100}}`,
			`{"op":"clearAnnotations"}`},
			`null`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out := f.apply(t, f.newSpec(t, tc.typ, tab), tab, tc.ops...)
			got := string(mustJSON(t, out.Annotations))
			if got != tc.want {
				t.Errorf("annotations\n got %s\nwant %s", got, tc.want)
			}
			// the stored spec reads back the same (the state's round trip)
			var back Spec
			if err := json.Unmarshal(mustJSON(t, out), &back); err != nil {
				t.Fatal(err)
			}
			if again := string(mustJSON(t, back.Annotations)); again != got {
				t.Errorf("round trip: %s, want %s", again, got)
			}
		})
	}
}

// TestAnnotationRefusals holds the refusals to their messages: the types
// that take the op, the categories that exist, the index range.
func TestAnnotationRefusals(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, "Country,Sales,Profit\nFrance,10,2\nSpain,5,1\nItaly,7,3\n")
	for _, tc := range []struct {
		name string
		typ  string
		ops  []string
		want string
	}{
		{"x names no category", "bar", []string{`{"op":"addAnnotation","annotation":{"text":"x","x":"Peru"}}`},
			`ops[0].annotation.x: "Peru" names no category in c1 (Country); the categories there are France, Spain, Italy`},
		{"series not drawn", "bar", []string{`{"op":"addAnnotation","annotation":{"text":"x","x":"Spain","series":"c9"}}`},
			`ops[0].annotation.series: "c9" is not a drawn value column; the drawn ones are c2, c3`},
		{"series and y both", "bar", []string{`{"op":"addAnnotation","annotation":{"text":"x","x":"Spain","series":"c2","y":3}}`},
			`ops[0].annotation.y: give series (a point of that series) or y (a point in data space), not both`},
		{"reference line on a pie", "pie", []string{`{"op":"addReferenceLine","line":{"axis":"y","value":5}}`},
			`ops[0].line: reference lines are drawn on bar, line, scatter, histogram, boxplot, dotplot charts, not on a pie chart; setType first`},
		{"note on a sankey", "sankey", []string{`{"op":"addAnnotation","annotation":{"text":"x","x":"France"}}`},
			`ops[0].annotation: notes are drawn on bar, line, scatter, dotplot charts, not on a sankey chart; setType first`},
		{"range on a pie", "pie", []string{`{"op":"addRange","range":{"axis":"y","from":1,"to":2}}`},
			`ops[0].range: ranges are drawn on bar, line, scatter, histogram, boxplot, dotplot charts, not on a pie chart; setType first`},
		{"value that is no number", "bar", []string{`{"op":"addReferenceLine","line":{"axis":"y","value":"lots"}}`},
			`ops[0].line.value: "lots" is not a number; the value axis takes a number, "mean" or "median"`},
		{"mean range", "bar", []string{`{"op":"addRange","range":{"axis":"y","from":"mean","to":9}}`},
			`ops[0].range.from: a range runs between two numbers or dates; "mean" is for addReferenceLine`},
		{"x range on a missing category", "bar", []string{`{"op":"addRange","range":{"axis":"x","from":"France","to":"Peru"}}`},
			`ops[0].range.to: "Peru" names no category in c1 (Country); the categories there are France, Spain, Italy`},
		{"remove from none", "bar", []string{`{"op":"removeAnnotation","index":0}`},
			`ops[0].index: the chart has no notes, lines or ranges to remove`},
		{"remove past the end", "bar", []string{`{"op":"addReferenceLine","line":{"axis":"y","value":5}}`, `{"op":"removeAnnotation","index":3}`},
			`ops[1].index: no annotation at index 3; the chart has 1 (0 to 0, in the order added)`},
		{"bad position", "bar", []string{`{"op":"addAnnotation","annotation":{"text":"x","x":"Spain","position":"top"}}`},
			`ops[0].annotation.position: must be …`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := f.ops.Apply(f.newSpec(t, tc.typ, tab), raws(tc.ops...), Env{Table: tab})
			if err == nil {
				t.Fatalf("applied; want %s", tc.want)
			}
			if want, prefix := strings.CutSuffix(tc.want, "…"); prefix {
				if !strings.HasPrefix(err.Error(), want) {
					t.Errorf("got  %s\nwant %s…", err, want)
				}
			} else if err.Error() != tc.want {
				t.Errorf("got  %s\nwant %s", err, tc.want)
			}
		})
	}
}

// TestSetTypeKeepsAnnotations: a later setType to a type that does not
// draw them keeps the annotations, and the lint says what is not drawn.
func TestSetTypeKeepsAnnotations(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, salesCSV)
	out := f.apply(t, f.newSpec(t, "bar", tab), tab,
		`{"op":"addReferenceLine","line":{"axis":"y","value":8,"label":"Target"}}`,
		`{"op":"addAnnotation","annotation":{"text":"Best","x":"France"}}`,
		`{"op":"setType","type":"pie"}`)
	if len(out.Annotations) != 2 {
		t.Fatalf("setType left %d annotations, want 2", len(out.Annotations))
	}
	want := "1 reference line and 1 note are not drawn on a pie chart; reference lines are drawn on bar, line, scatter, histogram, boxplot, dotplot charts"
	if got := AnnotationsNotDrawn(out); got != want {
		t.Errorf("AnnotationsNotDrawn\n got %s\nwant %s", got, want)
	}
	back := f.apply(t, out, tab, `{"op":"setType","type":"bar"}`)
	if got := AnnotationsNotDrawn(back); got != "" {
		t.Errorf("back on bars: %q, want every annotation drawn", got)
	}
}
