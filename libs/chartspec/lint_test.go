package chartspec

import (
	"fmt"
	"math"
	"strings"
	"testing"

	colorful "github.com/lucasb-eyer/go-colorful"
)

// lintCase builds a chart from CSV and ops and says whether check id must
// fire (and at which level) or stay quiet.
type lintCase struct {
	name        string
	typ         string
	csv         string
	ops         []string
	transparent bool
	id          string
	level       string // "" = must not fire
	contains    string // text the message must hold when it fires
}

func TestLintChecksFireAndStayQuiet(t *testing.T) {
	f := newFixture(t)
	longLabels := rowsCSV("Product,Sales", 5, func(i int) string {
		return fmt.Sprintf("An unusually long product name %d,%d", i, i+3)
	})
	points := func(n int) string {
		return rowsCSV("X,Y", n, func(i int) string { return fmt.Sprintf("%d,%d", (i*37)%100, (i*61)%100) })
	}
	outlier := rowsCSV("Income", 61, func(i int) string {
		if i == 60 {
			return "5000"
		}
		return fmt.Sprint(20 + i)
	})
	const corrCSV = "Var,A,B,C\nR0,1,0.42,-0.9\nR1,0.42,1,-0.5\nR2,-0.9,-0.5,1\nR3,0.1,0.3,-0.2\n"
	normal := func(n int) string {
		return rowsCSV("Value", n, func(i int) string { return fmt.Sprintf("%.3f", math.Sin(float64(i))*float64(i%17)) })
	}
	cases := []lintCase{
		{name: "missing role fires", typ: "bar", csv: "A,B\nx,y\nz,w\n", id: CheckMissingRole, level: Warn, contains: "set_data"},
		{name: "missing role quiet", typ: "bar", csv: salesCSV, id: CheckMissingRole},
		{name: "no data fires", typ: "bar", csv: "Country,Sales\n", id: CheckNoData, level: Warn, contains: "set_data"},
		{name: "empty after steps fires", typ: "bar", csv: salesCSV,
			ops: []string{`{"op":"addTransform","transform":{"type":"filter","column":"c2","operator":"gt","value":1000}}`},
			id:  CheckEmptyAfterSteps, level: Warn, contains: "updateTransform"},
		{name: "empty after steps quiet", typ: "bar", csv: salesCSV,
			ops: []string{`{"op":"addTransform","transform":{"type":"filter","column":"c2","operator":"gt","value":6}}`},
			id:  CheckEmptyAfterSteps},
		{name: "missing title fires", typ: "bar", csv: salesCSV, id: CheckMissingTitle, level: Info, contains: `"op":"setTitle"`},
		{name: "missing title quiet", typ: "bar", csv: salesCSV, ops: []string{`{"op":"setTitle","title":{"text":"Sales"}}`}, id: CheckMissingTitle},
		{name: "pie slices fire", typ: "pie", csv: wideCSV(8, 1), id: CheckPieTooManySlices, level: Warn,
			contains: `{"op":"addTransform","transform":{"type":"topN","n":5}}`},
		{name: "pie slices quiet after topN 5", typ: "pie", csv: wideCSV(8, 1),
			ops: []string{`{"op":"addTransform","transform":{"type":"topN","n":5}}`}, id: CheckPieTooManySlices},
		{name: "pie negative fires", typ: "pie", csv: "L,V\na,3\nb,-2\nc,4\n", id: CheckPieNegative, level: Warn, contains: `"operator":"gt"`},
		{name: "pie negative quiet", typ: "pie", csv: "L,V\na,3\nb,2\n", id: CheckPieNegative},
		{name: "faint colour warns", typ: "bar", csv: salesCSV, ops: []string{`{"op":"setSeriesColor","series":"c2","color":"#FFE066"}`},
			id: CheckFaintColor, level: Warn, contains: `{"op":"setSeriesColor","series":"c2","color":"#`},
		{name: "slightly faint colour is info", typ: "bar", csv: salesCSV, ops: []string{`{"op":"setPalette","colors":["#F08A24"]}`},
			id: CheckFaintColor, level: Info, contains: "2.5:1"},
		{name: "faint colour quiet when dark", typ: "bar", csv: salesCSV, ops: []string{`{"op":"setPalette","colors":["#1F4E99"]}`}, id: CheckFaintColor},
		{name: "faint colour quiet when transparent", typ: "bar", csv: salesCSV, transparent: true,
			ops: []string{`{"op":"setPalette","colors":["#FFE066"]}`}, id: CheckFaintColor},
		{name: "similar colours warn", typ: "bar", csv: salesCSV, ops: []string{`{"op":"setPalette","colors":["#2F6FDB","#3573E0"]}`},
			id: CheckSimilarColors, level: Warn, contains: "setSeriesColor"},
		{name: "same colour twice warns", typ: "bar", csv: wideCSV(3, 3), ops: []string{`{"op":"setSeriesColor","series":"c2","color":"#1F4E99"}`, `{"op":"setSeriesColor","series":"c3","color":"#1f4e99"}`},
			id: CheckSimilarColors, level: Warn, contains: "share the colour #1F4E99"},
		{name: "series past the palette get colours of their own, no clash", typ: "bar", csv: wideCSV(3, 4), ops: []string{`{"op":"setPalette","colors":["#1F4E99","#B2182B"]}`},
			id: CheckSimilarColors},
		{name: "eight series past a palette of two, no clash", typ: "line", csv: "Year" + wideHeader(8) + "\n2020" + strings.Repeat(",1", 8) + "\n2021" + strings.Repeat(",2", 8) + "\n",
			ops: []string{`{"op":"setPalette","colors":["#1F3A93","#F28C28"]}`}, id: CheckSimilarColors},
		{name: "generated colours are not faint", typ: "line", csv: "Year" + wideHeader(8) + "\n2020" + strings.Repeat(",1", 8) + "\n2021" + strings.Repeat(",2", 8) + "\n",
			ops: []string{`{"op":"setPalette","colors":["#1F3A93","#C8610C"]}`}, id: CheckFaintColor},
		{name: "a highlight, the rest in the Other grey, is no clash", typ: "bar", csv: wideCSV(3, 4),
			ops: []string{`{"op":"setSeriesColor","series":"c3","color":"#8B949E"}`, `{"op":"setSeriesColor","series":"c4","color":"#8B949E"}`, `{"op":"setSeriesColor","series":"c5","color":"#8B949E"}`},
			id:  CheckSimilarColors},
		{name: "similar under deuteranopia is info", typ: "bar", csv: wideCSV(3, 2),
			ops: []string{`{"op":"setPalette","colors":["#2F6FDB","#7B5CD6"]}`}, id: CheckSimilarColors, level: Info, contains: "deuteranopia"},
		{name: "similar under protanopia is info", typ: "bar", csv: wideCSV(3, 2),
			ops: []string{`{"op":"setPalette","colors":["#E15759","#9C755F"]}`}, id: CheckSimilarColors, level: Info, contains: "protanopia"},
		{name: "similar colours quiet with okabe-ito", typ: "bar", csv: wideCSV(3, 7),
			ops: []string{`{"op":"setPalette","palette":"okabe-ito"}`}, id: CheckSimilarColors},
		{name: "line across unordered products fires", typ: "line", csv: rowsCSV("Product,Sales", 25, func(i int) string { return fmt.Sprintf("%s,%d", products[i], 10+i%7) }),
			id: CheckLineUnordered, level: Warn, contains: `{"op":"setType","type":"bar"}`},
		{name: "line across weekdays quiet", typ: "line", csv: "Day,Visits\nMonday,3\nTuesday,4\nWednesday,2\nThursday,5\nFriday,6\nSaturday,1\n", id: CheckLineUnordered},
		{name: "line across a rating scale quiet", typ: "line", csv: "Answer,Share\nStrongly disagree,3\nDisagree,4\nNeutral,2\nAgree,5\nStrongly agree,6\n", id: CheckLineUnordered},
		{name: "line across numbered stages quiet", typ: "line", csv: "Stage,Share\nQ1,3\nQ2,4\nQ3,2\nQ4,5\nQ5,6\n", id: CheckLineUnordered},
		{name: "line across four names quiet", typ: "line", csv: "Fruit,Sales\nApples,3\nPears,4\nPlums,2\nFigs,5\n", id: CheckLineUnordered},
		{name: "bar axis not zero fires", typ: "bar", csv: salesCSV, ops: []string{`{"op":"setAxis","axis":"y","min":4}`},
			id: CheckBarAxisNotZero, level: Warn, contains: `{"op":"setAxis","axis":"y","min":null}`},
		{name: "bar log axis fires", typ: "bar", csv: salesCSV, ops: []string{`{"op":"setAxis","axis":"y","log":true}`},
			id: CheckBarAxisNotZero, level: Warn, contains: `"log":false`},
		{name: "bar axis from zero quiet", typ: "bar", csv: salesCSV, ops: []string{`{"op":"setAxis","axis":"y","min":0,"max":20}`}, id: CheckBarAxisNotZero},
		{name: "dot plot axis not zero quiet", typ: "dotplot", csv: salesCSV, ops: []string{`{"op":"setAxis","axis":"y","min":4}`}, id: CheckBarAxisNotZero},
		{name: "log axis with zero fires", typ: "scatter", csv: "X,Y\n1,0\n2,5\n3,9\n", ops: []string{`{"op":"setAxis","axis":"y","log":true}`},
			id: CheckLogAxisNonPositive, level: Warn, contains: `"axis":"y","log":false`},
		{name: "log axis positive quiet", typ: "scatter", csv: "X,Y\n1,1\n2,5\n3,9\n", ops: []string{`{"op":"setAxis","axis":"y","log":true}`}, id: CheckLogAxisNonPositive},
		{name: "too many series fires", typ: "line", csv: "Year" + wideHeader(10) + "\n2020" + strings.Repeat(",1", 10) + "\n2021" + strings.Repeat(",2", 10) + "\n",
			id: CheckTooManySeries, level: Warn, contains: `{"op":"setMapping","mapping":{"values":["c2","c3","c4"]}}`},
		{name: "too many series suggests a highlight", typ: "line", csv: "Year" + wideHeader(10) + "\n2020" + strings.Repeat(",1", 10) + "\n2021" + strings.Repeat(",2", 10) + "\n",
			id: CheckTooManySeries, level: Warn, contains: `{"op":"setHighlight","highlight":{"series":["c2"]}}`},
		{name: "too many series suggests small multiples", typ: "bar", csv: wideCSV(3, 9),
			id: CheckTooManySeries, level: Warn, contains: "small multiples"},
		{name: "eight series quiet", typ: "bar", csv: wideCSV(3, 8), id: CheckTooManySeries},
		{name: "too many series quiet", typ: "bar", csv: wideCSV(3, 3), id: CheckTooManySeries},
		{name: "too many scatter groups fires", typ: "scatter", csv: rowsCSV("X,Y,G", 40, func(i int) string { return fmt.Sprintf("%d,%d,g%d", i, i, i%10) }),
			id: CheckTooManySeries, level: Warn, contains: `"group":null`},
		{name: "too many scatter groups suggests a highlight", typ: "scatter", csv: rowsCSV("X,Y,G", 40, func(i int) string { return fmt.Sprintf("%d,%d,g%d", i, i, i%10) }),
			id: CheckTooManySeries, level: Warn, contains: `{"op":"setHighlight","highlight":{"categories":["g0"]}}`},
		{name: "too many scatter groups suggests small multiples", typ: "scatter", csv: rowsCSV("X,Y,G", 40, func(i int) string { return fmt.Sprintf("%d,%d,g%d", i, i, i%10) }),
			id: CheckTooManySeries, level: Warn, contains: `{"op":"setFacet","facet":{"column":"c3","scales":"shared"}}`},
		{name: "a highlight of every category fires", typ: "bar", csv: salesCSV, ops: []string{`{"op":"setHighlight","highlight":{"categories":["France","Spain","Italy"]}}`},
			id: CheckHighlightAllOrNone, level: Warn, contains: `{"op":"setHighlight","highlight":null}`},
		{name: "a highlight of nothing fires", typ: "bar", csv: salesCSV, ops: []string{`{"op":"setHighlight","highlight":{"categories":[]}}`},
			id: CheckHighlightAllOrNone, level: Warn, contains: "names nothing"},
		{name: "a highlight of every series fires", typ: "line", csv: wideCSV(3, 2), ops: []string{`{"op":"setMapping","mapping":{"values":["c2","c3"]}}`, `{"op":"setHighlight","highlight":{"series":["c2","c3"]}}`},
			id: CheckHighlightAllOrNone, level: Warn, contains: "every series"},
		{name: "a highlight of one quiet", typ: "bar", csv: salesCSV, ops: []string{`{"op":"setHighlight","highlight":{"categories":["Spain"]}}`}, id: CheckHighlightAllOrNone},
		{name: "36 panels at 800×600 fire", typ: "bar", csv: rowsCSV("Shop,Day,Visits", 72, func(i int) string { return fmt.Sprintf("S%d,D%d,%d", i%36, i/36, i) }),
			ops: []string{`{"op":"setMapping","mapping":{"category":"c2","values":["c3"]}}`, `{"op":"setFacet","facet":{"column":"c1"}}`},
			id:  CheckFacetCrowded, level: Warn, contains: `{"op":"setSize","width":`},
		{name: "12 panels at 800×600 quiet", typ: "bar", csv: rowsCSV("Shop,Day,Visits", 24, func(i int) string { return fmt.Sprintf("S%d,D%d,%d", i%12, i/12, i) }),
			ops: []string{`{"op":"setMapping","mapping":{"category":"c2","values":["c3"]}}`, `{"op":"setFacet","facet":{"column":"c1"}}`}, id: CheckFacetCrowded},
		{name: "a dark blue on a dark page fires", typ: "bar", csv: salesCSV, ops: []string{`{"op":"setTheme","theme":"dark"}`, `{"op":"setSeriesColor","series":"c2","color":"#1F4E99"}`},
			id: CheckDarkFaintColor, level: Warn, contains: `{"op":"setSeriesColor","series":"c2","color":"#`},
		{name: "the default palette on a dark page quiet", typ: "line", csv: wideCSV(3, 8), ops: []string{`{"op":"setTheme","theme":"dark"}`}, id: CheckDarkFaintColor},
		{name: "a dark page is not judged against white", typ: "bar", csv: salesCSV, ops: []string{`{"op":"setTheme","theme":"dark"}`, `{"op":"setPalette","colors":["#FFE066"]}`}, id: CheckFaintColor},
		{name: "a facet kept on a heatmap is not drawn", typ: "bar", csv: "Region,Month,Sales\nN,Jan,1\nS,Feb,2\n", ops: []string{`{"op":"setFacet","facet":{"column":"c1"}}`, `{"op":"setType","type":"heatmap"}`},
			id: CheckLookNotDrawn, level: Warn, contains: `{"op":"setFacet","facet":null}`},
		{name: "too many bars fires", typ: "bar", csv: wideCSV(40, 1), id: CheckTooManyCategories, level: Warn, contains: `"type":"topN","n":20`},
		{name: "thirty bars quiet", typ: "bar", csv: wideCSV(30, 1), id: CheckTooManyCategories},
		{name: "long labels fire under columns asked for", typ: "bar", csv: longLabels, id: CheckLongLabels, level: Info,
			ops:      []string{`{"op":"setVariants","variants":{"bar":{"orientation":"vertical"}}}`},
			contains: `{"op":"setVariants","variants":{"bar":{"orientation":"horizontal"}}}`},
		// auto (a new chart's) turns columns of long names into bars itself
		{name: "long labels quiet when auto", typ: "bar", csv: longLabels, id: CheckLongLabels},
		{name: "long labels quiet when horizontal", typ: "bar", csv: longLabels,
			ops: []string{`{"op":"setVariants","variants":{"bar":{"orientation":"horizontal"}}}`}, id: CheckLongLabels},
		{name: "short labels quiet", typ: "bar", csv: salesCSV, id: CheckLongLabels},
		{name: "unsorted line fires", typ: "line", csv: "Year,V\n2021,1\n2020,2\n2022,3\n", id: CheckUnsortedLineX, level: Info,
			contains: `{"op":"addTransform","transform":{"type":"sort","column":"c1"}}`},
		{name: "sorted line quiet", typ: "line", csv: "Year,V\n2020,1\n2021,2\n2022,3\n", id: CheckUnsortedLineX},
		{name: "sorted line quiet after sort step", typ: "line", csv: "Year,V\n2021,1\n2020,2\n2022,3\n",
			ops: []string{`{"op":"addTransform","transform":{"type":"sort","column":"c1"}}`}, id: CheckUnsortedLineX},
		{name: "repeated x fires", typ: "line", csv: "Year,V\n2020,1\n2020,2\n2021,3\n", id: CheckDuplicateLineX, level: Warn, contains: `"type":"aggregate"`},
		{name: "distinct x quiet", typ: "line", csv: "Year,V\n2020,1\n2021,2\n", id: CheckDuplicateLineX},
		{name: "overplotting fires", typ: "scatter", csv: points(10000), id: CheckOverplotting, level: Warn, contains: `"opacity":0.25`},
		{name: "few points quiet", typ: "scatter", csv: points(50), id: CheckOverplotting},
		{name: "overplotting quiet when light", typ: "scatter", csv: points(10000),
			ops: []string{`{"op":"setVariants","variants":{"scatter":{"pointSize":2,"opacity":0.2}}}`}, id: CheckOverplotting},
		{name: "radar spokes fire", typ: "radar", csv: wideCSV(12, 2), id: CheckRadarAxes, level: Warn, contains: `"type":"topN"`},
		{name: "radar spokes quiet", typ: "radar", csv: wideCSV(6, 2), id: CheckRadarAxes},
		{name: "sankey cycle fires", typ: "sankey", csv: "From,To,V\nA,B,5\nB,C,3\nC,A,1\n", id: CheckSankeyCycle, level: Warn, contains: "A → B → C → A"},
		{name: "sankey self loop fires", typ: "sankey", csv: "From,To,V\nA,B,5\nB,B,3\n", id: CheckSankeyCycle, level: Warn, contains: "B → B"},
		{name: "sankey chain quiet", typ: "sankey", csv: "From,To,V\nA,B,5\nB,C,3\nA,C,1\n", id: CheckSankeyCycle},
		{name: "too few bins fire", typ: "histogram", csv: normal(1000), ops: []string{`{"op":"setVariants","variants":{"histogram":{"bins":3}}}`},
			id: CheckHistogramBins, level: Warn, contains: `{"op":"setVariants","variants":{"histogram":{"bins":11}}}`},
		{name: "too many bins fire", typ: "histogram", csv: normal(50), ops: []string{`{"op":"setVariants","variants":{"histogram":{"bins":60}}}`},
			id: CheckHistogramBins, level: Warn, contains: "too many"},
		{name: "sensible bins quiet", typ: "histogram", csv: normal(1000), ops: []string{`{"op":"setVariants","variants":{"histogram":{"bins":12}}}`}, id: CheckHistogramBins},
		{name: "automatic bins quiet", typ: "histogram", csv: normal(50), id: CheckHistogramBins},
		{name: "one outlier squashing a histogram fires", typ: "histogram", csv: outlier, id: CheckHistogramOutlier, level: Warn,
			contains: `{"op":"addTransform","transform":{"type":"filter","column":"c1","operator":"lte","value":79}}`},
		{name: "outlier quiet once filtered", typ: "histogram", csv: outlier,
			ops: []string{`{"op":"addTransform","transform":{"type":"filter","column":"c1","operator":"lte","value":79}}`}, id: CheckHistogramOutlier},
		{name: "a long tail is no outlier", typ: "histogram", csv: rowsCSV("Size", 60, func(i int) string { return fmt.Sprint(i * i) }), id: CheckHistogramOutlier},
		{name: "normal values quiet", typ: "histogram", csv: normal(1000), id: CheckHistogramOutlier},
		{name: "percent stack of negatives fires", typ: "bar", csv: "Q,A,B\nQ1,10,-5\nQ2,12,4\nQ3,-3,8\n",
			ops: []string{`{"op":"setVariants","variants":{"bar":{"stack":"percent"}}}`}, id: CheckPercentNegative, level: Warn, contains: `"stack":"stacked"`},
		{name: "stacked negatives quiet", typ: "bar", csv: "Q,A,B\nQ1,10,-5\nQ2,12,4\n",
			ops: []string{`{"op":"setVariants","variants":{"bar":{"stack":"stacked"}}}`}, id: CheckPercentNegative},
		{name: "percent stack of positives quiet", typ: "bar", csv: "Q,A,B\nQ1,10,5\nQ2,12,4\n",
			ops: []string{`{"op":"setVariants","variants":{"bar":{"stack":"percent"}}}`}, id: CheckPercentNegative},
		{name: "wide heatmap read as long fires", typ: "heatmap", csv: corrCSV,
			ops: []string{`{"op":"setMapping","mapping":{"x":"c1","y":"c2","value":"c3"}}`}, id: CheckHeatmapWide, level: Warn,
			contains: `{"op":"setMapping","mapping":{"y":"c1","value":["c2","c3","c4"],"x":null}}`},
		{name: "six notes fire", typ: "bar", csv: salesCSV, ops: sixNotes[:6], id: CheckTooManyNotes, level: Info, contains: `{"op":"removeAnnotation","index":5}`},
		{name: "five notes quiet", typ: "bar", csv: salesCSV, ops: sixNotes[:5], id: CheckTooManyNotes},
		{name: "a line kept through setType pie fires", typ: "bar", csv: salesCSV,
			ops: []string{`{"op":"addReferenceLine","line":{"axis":"y","value":8}}`, `{"op":"setType","type":"pie"}`}, id: CheckAnnotationsNotDrawn, level: Info,
			contains: `1 reference line is not drawn on a pie chart; reference lines are drawn on bar, line, scatter, histogram, boxplot, dotplot charts. {"op":"setType","type":"bar"} draws them again; {"op":"clearAnnotations"} removes them.`},
		{name: "a line on bars quiet", typ: "bar", csv: salesCSV, ops: []string{`{"op":"addReferenceLine","line":{"axis":"y","value":8}}`}, id: CheckAnnotationsNotDrawn},
		{name: "wide heatmap as rows × columns quiet", typ: "heatmap", csv: corrCSV, id: CheckHeatmapWide},
		{name: "long heatmap quiet", typ: "heatmap", csv: "Day,Hour,Visits\nMon,9,3\nMon,10,4\nTue,9,5\nTue,10,2\n", id: CheckHeatmapWide},
	}
	ids := map[string]bool{}
	for _, c := range Checks() {
		ids[c.ID] = true
	}
	fired := map[string]bool{}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tab := parseCSV(t, tc.csv)
			spec := f.apply(t, f.newSpec(t, tc.typ, tab), tab, tc.ops...)
			problems := Lint(spec, afterSteps(t, spec, tab), LintEnv{Catalog: f.cat, Transparent: tc.transparent})
			var got *Problem
			for i, p := range problems {
				if !ids[p.ID] {
					t.Errorf("problem id %q is not listed by Checks()", p.ID)
				}
				if !namesAFix(p.Message) {
					t.Errorf("%s: message names no op: %s", p.ID, p.Message)
				}
				if p.ID == tc.id && got == nil {
					got = &problems[i]
				}
			}
			if tc.level == "" {
				if got != nil {
					t.Errorf("%s fired: %s", tc.id, got.Message)
				}
				return
			}
			if got == nil {
				t.Fatalf("%s did not fire; problems: %+v", tc.id, problems)
			}
			fired[tc.id] = true
			if got.Level != tc.level {
				t.Errorf("level %s, want %s: %s", got.Level, tc.level, got.Message)
			}
			if !strings.Contains(got.Message, tc.contains) {
				t.Errorf("message lacks %q: %s", tc.contains, got.Message)
			}
		})
	}
	for id := range ids {
		// needs-room and labels-hidden come from drawing
		// (TestLayoutProblems, and the chartd tests against a running
		// render service), not from Lint.
		if !fired[id] && id != CheckNeedsRoom && id != CheckLabelsHidden && id != CheckNoteCovers {
			t.Errorf("no case shows %s firing", id)
		}
	}
}

// sixNotes are six notes on salesCSV's countries.
var sixNotes = []string{
	`{"op":"addAnnotation","annotation":{"text":"a","x":"France"}}`, `{"op":"addAnnotation","annotation":{"text":"b","x":"Spain"}}`,
	`{"op":"addAnnotation","annotation":{"text":"c","x":"Italy"}}`, `{"op":"addAnnotation","annotation":{"text":"d","x":"France","series":"c3"}}`,
	`{"op":"addAnnotation","annotation":{"text":"e","x":"Spain","series":"c3"}}`, `{"op":"addAnnotation","annotation":{"text":"f","x":"Italy","series":"c3"}}`,
}

// wideHeader writes ",S1,…,Sk".
func wideHeader(k int) string {
	var b strings.Builder
	for j := 1; j <= k; j++ {
		fmt.Fprintf(&b, ",S%d", j)
	}
	return b.String()
}

// namesAFix reports whether a message names an op or endpoint that fixes it.
func namesAFix(msg string) bool {
	for _, w := range []string{`"op":`, "setMapping", "set_data", "updateTransform", "setSeriesColor", "setPalette", "addTransform"} {
		if strings.Contains(msg, w) {
			return true
		}
	}
	return false
}

func TestLintMissingRoleNamesTheStaleColumn(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, salesCSV)
	spec := f.newSpec(t, "bar", tab)
	spec.Mapping["values"] = Many("c9") // e.g. stored before set_data replaced the data
	var got []Problem
	for _, p := range Lint(spec, tab, LintEnv{Catalog: f.cat}) {
		if p.ID == CheckMissingRole {
			got = append(got, p)
		}
	}
	want := `The bar chart maps c9, which the data after steps lacks or cannot use, to values. Map one or more number columns with {"op":"setMapping","mapping":{"values":["c2"]}}; the candidates are c2 (Sales), c3 (Profit).`
	if len(got) != 1 || got[0].Message != want || got[0].Level != Warn {
		t.Errorf("got %+v\nwant %s", got, want)
	}
}

func TestLintAnswersAnEmptyListAndWarnsFirst(t *testing.T) {
	f := newFixture(t)
	tab := parseCSV(t, salesCSV)
	spec := f.apply(t, f.newSpec(t, "bar", tab), tab,
		`{"op":"setTitle","title":{"text":"Sales"}}`, `{"op":"setPalette","colors":["#1F4E99","#B2182B"]}`)
	if p := Lint(spec, tab, LintEnv{Catalog: f.cat}); p == nil || len(p) != 0 {
		t.Errorf("clean chart: %#v, want an empty non-nil list", p)
	}
	spec = f.apply(t, spec, tab, `{"op":"setTitle","title":{"text":""}}`, `{"op":"setAxis","axis":"y","min":3}`)
	p := Lint(spec, tab, LintEnv{Catalog: f.cat})
	if len(p) != 2 || p[0].Level != Warn || p[1].Level != Info {
		t.Errorf("problems %+v, want the warn before the info", p)
	}
}

func TestColourScience(t *testing.T) {
	hex := func(s string) colorful.Color {
		c, _, ok := ParseColor(s)
		if !ok {
			t.Fatalf("parse %s", s)
		}
		return c
	}
	if r := Contrast(hex("#000000"), hex("#FFFFFF")); math.Abs(r-21) > 0.01 {
		t.Errorf("black on white %.3f, want 21", r)
	}
	// WebAIM's checker gives #767676 on white 4.54:1.
	if r := Contrast(hex("#767676"), hex("#FFF")); math.Abs(r-4.54) > 0.01 {
		t.Errorf("#767676 on white %.3f, want 4.54", r)
	}
	// Sharma, Wu & Dalal (2005) test data, pair 1: ΔE00 = 2.0425.
	if d := DeltaE(colorful.Lab(0.50, 0.026772, -0.797751), colorful.Lab(0.50, 0, -0.827485)); math.Abs(d-2.0425) > 0.001 {
		t.Errorf("CIEDE2000 pair 1 = %.4f, want 2.0425", d)
	}
	// Red and green collapse for a deuteranope; blue and yellow do not.
	if d := DeltaE(Simulate(hex("#D9415B"), Deuteranopia), Simulate(hex("#1FA67A"), Deuteranopia)); d > 12 {
		t.Errorf("red/green under deuteranopia ΔE %.1f, want small", d)
	}
	if d := DeltaE(Simulate(hex("#0072B2"), Protanopia), Simulate(hex("#F0E442"), Protanopia)); d < 40 {
		t.Errorf("blue/yellow under protanopia ΔE %.1f, want large", d)
	}
	if got := Simulate(hex("#808080"), Deuteranopia); DeltaE(got, hex("#808080")) > 1 {
		t.Errorf("grey changes under simulation: %s", got.Hex())
	}
	dark, ok := darkenTo(hex("#FFE066"), hex("#FFFFFF"), 3.1)
	if !ok || Contrast(dark, hex("#FFFFFF")) < 3.1 {
		t.Errorf("darkenTo gave %s (%v)", dark.Hex(), ok)
	}
	if _, h, ok := ParseColor("#abc"); !ok || h != "#AABBCC" {
		t.Errorf("ParseColor(#abc) = %s %v", h, ok)
	}
	for _, bad := range []string{"", "red", "#12345", "#GGGGGG", "123456"} {
		if _, _, ok := ParseColor(bad); ok {
			t.Errorf("ParseColor(%q) accepted", bad)
		}
	}
}

func TestFindCycle(t *testing.T) {
	cases := []struct {
		adj  [][]int
		want string
	}{
		{[][]int{{1}, {2}, nil}, ""},
		{[][]int{{1}, {2}, {0}}, "[0 1 2 0]"},
		{[][]int{{1, 2}, {2}, {3}, {1}}, "[1 2 3 1]"},
		{[][]int{{0}}, "[0 0]"},
		{nil, ""},
	}
	for _, tc := range cases {
		got := findCycle(tc.adj)
		s := ""
		if got != nil {
			s = fmt.Sprint(got)
		}
		if s != tc.want {
			t.Errorf("findCycle(%v) = %s, want %s", tc.adj, s, tc.want)
		}
	}
}

// products are 25 unrelated product names, a text x with no order.
var products = [...]string{"Kettle", "Toaster", "Blender", "Juicer", "Mixer", "Grill", "Fryer", "Oven", "Scale", "Lamp",
	"Fan", "Heater", "Iron", "Vacuum", "Radio", "Speaker", "Router", "Camera", "Drone", "Tablet", "Monitor", "Printer",
	"Scanner", "Keyboard", "Mouse"}
