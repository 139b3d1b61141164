package draw

import (
	"slices"
	"strings"
	"testing"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// numberCases are the goldens of issue 22's first item: value labels that
// state their own value (never "0M" for 800), setNumberFormat governing
// labels, ticks and descriptions alike, and number locales.
func numberCases(f *Fonts) []goldenCase {
	var cases []goldenCase
	add := caseAdder(f, &cases)
	labels := style(func(s *chartspec.Style) { s.Labels.Show = true })
	title := func(t string) func(*Input) {
		return style(func(s *chartspec.Style) { s.Title = chartspec.Text{Show: true, Text: t} })
	}
	format := func(nf chartspec.NumberFormat) func(*Input) {
		return style(func(s *chartspec.Style) { s.NumberFormat = &nf })
	}
	yes, no, zero, two := true, false, 0, 2
	cities := func() *dataset.Table {
		return table(txt("c1", "City", "Tokyo", "Delhi", "Monaco", "Vatican City"), num("c2", "Population", 37400000, 32900000, 39000, 800))
	}
	nations := func() *dataset.Table {
		return table(txt("c1", "Country", "India", "China", "United States", "Indonesia", "Pakistan"),
			num("c2", "Population", 1428600000, 1412200000, 334900000, 277500000, 240500000))
	}
	add("numbers-own-unit-labels", testSpec("bar", nil, nil), cities(), labels, title("Every label states its own value: 37.4M, 39k, 800"))
	add("numbers-own-unit-horizontal", testSpec("bar", map[string]any{"orientation": "horizontal"}, nil), cities(), labels)
	add("numbers-neighbours-apart", testSpec("bar", nil, nil), nations(), labels, title("India and China read 1.43B and 1.41B, the top tick 1.5B"))
	add("numbers-plain-decimals-0", testSpec("bar", map[string]any{"orientation": "horizontal"}, nil), nations(), labels,
		format(chartspec.NumberFormat{Compact: &no, Decimals: &zero}), title("compact:false, decimals:0 — every digit on labels and ticks"))
	add("numbers-compact-decimals-0", testSpec("bar", map[string]any{"orientation": "horizontal"}, nil), nations(), labels,
		format(chartspec.NumberFormat{Compact: &yes, Decimals: &zero}))
	add("numbers-fixed-decimals-ticks", testSpec("bar", nil, nil),
		table(txt("c1", "Item", "Rent", "Food", "Travel", "Books"), num("c2", "Cost", 1834.5, 912.25, 420, 35.8)), labels,
		format(chartspec.NumberFormat{Decimals: &two, Prefix: "$"}), title("Labels take 2 decimals, whole ticks none ($2,000)"))
	add("numbers-mixed-magnitudes", testSpec("bar", nil, nil),
		table(txt("c1", "Economy", "World", "Small", "Tiny"), num("c2", "Output (USD)", 4.5e11, 140000, 0.4)), labels)
	add("numbers-line-billion-top", testSpec("line", nil, nil),
		table(dates("c1", "Year", dataset.UnitYear, "2019", "2020", "2021", "2022", "2023"), num("c2", "Revenue", 720e6, 790e6, 880e6, 955e6, 990e6)), labels)
	add("numbers-locale-de", testSpec("bar", nil, nil),
		table(txt("c1", "Land", "Deutschland", "Österreich", "Schweiz", "Liechtenstein"), num("c2", "Einwohner", 84482267, 9104772, 8815385, 39584)),
		labels, format(chartspec.NumberFormat{Locale: "de", Compact: &no}), title("Einwohner 2023"))
	add("numbers-locale-fr-decimals", testSpec("bar", nil, nil),
		table(txt("c1", "Ville", "Paris", "Lyon", "Marseille"), num("c2", "Prix (€)", 10512.5, 5230.25, 3890.75)),
		labels, format(chartspec.NumberFormat{Locale: "fr", Decimals: &two, Compact: &no}))
	add("numbers-locale-hi", testSpec("bar", nil, nil),
		table(txt("c1", "राज्य", "उत्तर प्रदेश", "महाराष्ट्र", "बिहार"), num("c2", "जनसंख्या", 199812341, 112374333, 104099452)),
		labels, format(chartspec.NumberFormat{Locale: "hi", Compact: &no}))
	add("numbers-locale-zh", testSpec("bar", nil, nil),
		table(txt("c1", "城市", "上海", "北京", "深圳", "澳门"), num("c2", "人口", 24870895, 21893095, 17560061, 683218)),
		labels, format(chartspec.NumberFormat{Locale: "zh"}), title("人口（万、亿）"))
	add("numbers-pie-sliver", testSpec("pie", nil, nil),
		table(txt("c1", "Source", "Coal", "Gas", "Solar", "Tidal"), num("c2", "Share", 600, 380, 19.6, 0.4)), labels)
	// item 8: a scatter's labels name its points by the name column,
	// never overlapping
	names := []string{"Norway", "Switzerland", "Ireland", "Germany", "Denmark", "Netherlands", "Austria", "Sweden", "Belgium", "Finland",
		"Portugal", "Poland", "Hungary", "Romania", "Bulgaria", "Greece", "Croatia", "Slovakia", "Czechia", "Spain"}
	gdp := []float64{89.2, 92.1, 103.7, 52.7, 68.0, 57.0, 56.5, 55.4, 51.2, 50.5, 24.5, 18.7, 18.5, 15.8, 13.0, 20.9, 18.4, 21.3, 27.2, 29.7}
	life := []float64{83.1, 83.8, 82.6, 80.6, 81.4, 81.5, 81.1, 83.0, 81.7, 81.2, 81.2, 77.5, 76.2, 75.3, 74.3, 80.7, 77.7, 77.0, 79.0, 83.2}
	add("scatter-named-points", testSpec("scatter", nil, nil),
		table(txt("c1", "Country", names...), num("c2", "GDP per head ($k)", gdp...), num("c3", "Life expectancy (years)", life...)), labels,
		title("Points are named by the Country column, and never overlap"))
	// item 8: a footer in another language keeps its own "Source" word
	add("footer-source-as-written", testSpec("bar", nil, nil),
		table(txt("c1", "省份", "广东", "山东", "河南", "江苏"), num("c2", "人口（万）", 12706, 10123, 9815, 8526)),
		title("各省人口"), style(func(s *chartspec.Style) {
			s.Footer = &chartspec.Footer{Source: "来源：国家统计局", Notes: "2023年末常住人口"}
		}))
	// item 6: text wraps to the room there is before it is cut
	longTitle := "Household energy prices rose faster than wages in every region between 2021 and 2023, and in the north they fell far less once the crisis eased, while the south saw bills return to their 2020 level by the spring of 2024"
	spend := func() *dataset.Table {
		return table(txt("c1", "Category", "Transportation", "Housing and utilities", "Food", "Healthcare", "Entertainment", "Education", "Insurance", "Clothing", "Savings", "Personal care"),
			num("c2", "Share (%)", 16.8, 33.2, 12.9, 8.1, 4.7, 2.6, 11.4, 2.7, 5.2, 1.2))
	}
	add("text-long-title-500x400", testSpec("bar", nil, nil), spend(), title(longTitle), func(in *Input) { in.Width, in.Height = 500, 400 })
	add("text-long-categories-vertical", testSpec("bar", map[string]any{"orientation": "vertical"}, nil), spend(), labels, func(in *Input) { in.Width, in.Height = 600, 400 })
	add("text-long-boxplot-groups", testSpec("boxplot", nil, nil),
		table(txt("c1", "Department", "Transportation", "Administration", "Communications", "Infrastructure", "Transportation", "Administration", "Communications", "Infrastructure", "Transportation", "Administration", "Communications", "Infrastructure"),
			num("c2", "Days", 12, 8, 15, 22, 14, 9, 13, 25, 11, 7, 16, 19)), func(in *Input) { in.Width, in.Height = 500, 400 })
	add("text-sankey-long-names", testSpec("sankey", nil, nil),
		table(txt("c1", "From", "Imported natural gas and liquefied natural gas", "Domestic coal and lignite mining", "Imported natural gas and liquefied natural gas", "Wind, solar and hydroelectric generation", "Electricity from the national grid", "Electricity from the national grid"),
			txt("c2", "To", "Electricity from the national grid", "Electricity from the national grid", "Residential and commercial heating", "Electricity from the national grid", "Industry and manufacturing", "Households and small businesses"),
			num("c3", "TWh", 120, 80, 95, 140, 190, 150)), labels, func(in *Input) { in.Width, in.Height = 700, 450 })
	add("text-radar-long-axes", testSpec("radar", nil, nil),
		table(txt("c1", "Skill", "Customer communication and empathy", "Technical troubleshooting", "Product knowledge", "Time management and prioritisation", "Written documentation quality", "Team collaboration"),
			num("c2", "Ana", 8, 6, 9, 7, 5, 8), num("c3", "Ben", 6, 9, 7, 5, 8, 6)), func(in *Input) { in.Width, in.Height = 420, 320 })
	return cases
}

// texts is every text element's content of a group ("labels", "axes", ""
// for all), in document order.
func texts(t *testing.T, svg []byte, group string) []string {
	t.Helper()
	var out []string
	for _, e := range textsOf(t, svg) {
		if group == "" || e.group == group {
			s := e.text
			if e.lines != nil {
				s = strings.Join(e.lines, " ")
			}
			out = append(out, s)
		}
	}
	return out
}

// TestLabelsStateTheirValue pins what issue 22 found misstated: each label
// in its own unit, neighbours told apart, nothing non-zero written 0, fixed
// decimals on labels and not on whole ticks, locales' marks.
func TestLabelsStateTheirValue(t *testing.T) {
	f := fonts(t)
	byName := map[string]goldenCase{}
	for _, c := range numberCases(f) {
		byName[c.name] = c
	}
	for _, tc := range []struct {
		golden      string
		labels      []string // all present among the value labels
		ticks       []string // all present among the axis texts
		notAnywhere []string
		desc        []string // in the description
	}{
		{golden: "numbers-own-unit-labels", labels: []string{"37.4M", "32.9M", "39k", "800"}, notAnywhere: []string{"0M", "0.04M"}},
		{golden: "numbers-own-unit-horizontal", labels: []string{"37.4M", "39k", "800"}, notAnywhere: []string{"0M"}},
		{golden: "numbers-neighbours-apart", labels: []string{"1.43B", "1.41B", "0.33B", "0.28B", "0.24B"}, ticks: []string{"1.5B"}, notAnywhere: []string{"1,000M", "1,500M"},
			desc: []string{"1.43B"}},
		{golden: "numbers-plain-decimals-0", labels: []string{"1,428,600,000", "1,412,200,000"}, ticks: []string{"1,000,000,000"}, notAnywhere: []string{"1B", "1.4B"},
			desc: []string{"1,428,600,000"}},
		{golden: "numbers-compact-decimals-0", labels: []string{"1.43B", "1.41B", "334.9M"}, notAnywhere: []string{"334.90M"}},
		{golden: "numbers-fixed-decimals-ticks", labels: []string{"$1,834.50", "$912.25", "$420.00", "$35.80"}, ticks: []string{"$2,000"}, notAnywhere: []string{"2,000.00"}},
		{golden: "numbers-mixed-magnitudes", labels: []string{"450B", "140k", "0.4"}, notAnywhere: []string{"0.5T", "0.1M", "0T"}},
		{golden: "numbers-line-billion-top", ticks: []string{"1,000M"}, notAnywhere: []string{"1B"}}, // one unit per axis (issue 32 item 9)
		{golden: "numbers-locale-de", labels: []string{"84.482.267", "39.584"}, desc: []string{"84.482.267"}},
		{golden: "numbers-locale-fr-decimals", labels: []string{"10\u00a0512,50", "3\u00a0890,75"}},
		{golden: "numbers-locale-hi", labels: []string{"19,98,12,341", "10,40,99,452"}},
		{golden: "numbers-locale-zh", labels: []string{"2487万", "68万"}, desc: []string{"2487万"}},
		{golden: "scatter-named-points", labels: []string{"Norway", "Ireland", "Bulgaria", "Switzerland"}, notAnywhere: []string{"83.1", "74.3"}},
		{golden: "footer-source-as-written", notAnywhere: []string{"Source: 来源：国家统计局"}},
		{golden: "text-long-title-500x400", notAnywhere: []string{"…"}},
		{golden: "numbers-pie-sliver", labels: []string{"0.04%"}, notAnywhere: []string{"0%"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			c, ok := byName[tc.golden]
			if !ok {
				t.Fatalf("no golden %s", tc.golden)
			}
			svg, err := SVG(c.in)
			if err != nil {
				t.Fatal(err)
			}
			checkTexts(t, svg, tc.labels, tc.ticks, tc.notAnywhere)
			_, desc := titleAndDesc(t, svg)
			for _, w := range tc.desc {
				if !strings.Contains(desc, w) {
					t.Errorf("description lacks %q: %s", w, desc)
				}
			}
		})
	}
}

// TestNumberLocales pins the marks golang.org/x/text's CLDR data gives.
func TestNumberLocales(t *testing.T) {
	for _, tc := range []struct {
		tag     string
		v       float64
		f       numFormat
		want    string
		isNilEn bool
	}{
		{tag: "en", v: 1234567.5, f: numFormat{decimals: 1, scale: 1, plain: true}, want: "1,234,567.5", isNilEn: true},
		{tag: "de", v: 1234567.5, f: numFormat{decimals: 1, scale: 1, plain: true}, want: "1.234.567,5"},
		{tag: "de-CH", v: 1234567.5, f: numFormat{decimals: 1, scale: 1, plain: true}, want: "1’234’567.5"},
		{tag: "fr", v: -1234.25, f: numFormat{decimals: 2, scale: 1}, want: "−1\u00a0234,25"},
		{tag: "hi", v: 123456789, f: numFormat{decimals: -1, scale: 1, plain: true}, want: "12,34,56,789"},
		{tag: "zh", v: 123456789, f: numFormat{decimals: -1, scale: 1}, want: "1.23亿"},
		{tag: "zh-TW", v: 543210, f: numFormat{decimals: -1, scale: 1}, want: "54.3萬"}, // compact from 10萬 (issue 32 item 10)
		{tag: "ja", v: 2.5e12, f: numFormat{decimals: -1, scale: 1}, want: "2.5兆"},
		{tag: "ko", v: 35000, f: numFormat{decimals: -1, scale: 1}, want: "3.5만"},
		{tag: "ar", v: 1234.5, f: numFormat{decimals: 1, scale: 1}, want: "١٬٢٣٤٫٥"},
		{tag: "zh", v: 9999, f: numFormat{decimals: -1, scale: 1, compact: true}, want: "9,999"},
		{tag: "zh", v: 99999999, f: numFormat{decimals: -1, scale: 1}, want: "1亿"},
	} {
		loc := newNumLocale(tc.tag)
		if (loc == nil) != tc.isNilEn {
			t.Errorf("%s: locale nil = %v", tc.tag, loc == nil)
		}
		tc.f.loc = loc
		if got := formatValue(tc.v, tc.f); got != tc.want {
			t.Errorf("%s: %v reads %q, want %q", tc.tag, tc.v, got, tc.want)
		}
	}
}

// TestLabelSetDigits: a label set gets the digits that tell its values
// apart, and no more than it needs.
func TestLabelSetDigits(t *testing.T) {
	base := numFormat{decimals: -1, scale: 1, compact: true}
	for _, tc := range []struct {
		vals []float64
		f    numFormat
		want []string
	}{
		{[]float64{37.4e6, 39000, 800}, base, []string{"37.4M", "39k", "800"}},
		{[]float64{1.4286e9, 1.4122e9}, base, []string{"1.43B", "1.41B"}},
		{[]float64{1.4286e9, 1.4282e9}, base, []string{"1.429B", "1.428B"}},
		{[]float64{1.41e9, 1.43e9}, numFormat{decimals: 0, scale: 1, compact: true}, []string{"1.41B", "1.43B"}},
		{[]float64{999960, 1000}, base, []string{"1M", "1k"}},
		{[]float64{0.004, 0.2}, numFormat{decimals: 0, scale: 1}, []string{"0.004", "0"}},
	} {
		f := tc.f.forLabels(tc.vals)
		for i, v := range tc.vals {
			got := formatValue(v, f)
			if tc.want[i] == "0" {
				if got == "0" {
					t.Errorf("%v in %v reads 0", v, tc.vals)
				}
				continue
			}
			if got != tc.want[i] {
				t.Errorf("%v in %v reads %q, want %q", v, tc.vals, got, tc.want[i])
			}
		}
	}
}

// TestScatterLabelsNeverOverlap: the named points' labels keep clear of
// each other.
func TestScatterLabelsNeverOverlap(t *testing.T) {
	f := fonts(t)
	for _, c := range numberCases(f) {
		if c.name != "scatter-named-points" {
			continue
		}
		svg, err := SVG(c.in)
		if err != nil {
			t.Fatal(err)
		}
		var boxes []box
		for _, e := range textsOf(t, svg) {
			if e.group == "labels" {
				w := f.Width(e.text, e.size, e.bold)
				boxes = append(boxes, boxAt(e.x, e.y, w, f.CapHeight(e.size), e.anchor))
			}
		}
		if len(boxes) < 12 {
			t.Errorf("only %d of 20 points named", len(boxes))
		}
		for i := range boxes {
			for j := range i {
				if boxes[i].overlaps(boxes[j], 0) {
					t.Errorf("labels %d and %d overlap: %v %v", i, j, boxes[i], boxes[j])
				}
			}
		}
	}
}

// TestNetTotalExplained: a stacked chart with gains and losses names its
// net-total line in the legend and the description, and a net label that
// fits the gap beside its bar sits there, off the line.
func TestNetTotalExplained(t *testing.T) {
	f := fonts(t)
	for _, c := range axesCases(f) {
		if c.name != "bar-stacked-negatives" {
			continue
		}
		svg, err := SVG(c.in)
		if err != nil {
			t.Fatal(err)
		}
		if all := texts(t, svg, ""); !slices.Contains(all, "Net total") {
			t.Errorf("no legend entry names the net-total line: %q", all)
		}
		if _, desc := titleAndDesc(t, svg); !strings.Contains(desc, "net total") {
			t.Errorf("description does not explain the line: %s", desc)
		}
		for _, e := range textsOf(t, svg) {
			if e.text == "−17" && e.anchor == "middle" {
				t.Errorf("Q5's net label sits on its bar (%v), though the gap has room", e)
			}
		}
		return
	}
	t.Fatal("no golden bar-stacked-negatives")
}

// TestNothingCutThatFits: names and titles in the text goldens are wrapped,
// never cut with "…", when the picture has the room.
func TestNothingCutThatFits(t *testing.T) {
	f := fonts(t)
	for _, c := range numberCases(f) {
		if !strings.HasPrefix(c.name, "text-") {
			continue
		}
		svg, err := SVG(c.in)
		if err != nil {
			t.Fatal(err)
		}
		for _, s := range texts(t, svg, "") {
			if strings.Contains(s, "…") {
				t.Errorf("%s: %q is cut", c.name, s)
			}
		}
	}
}

// checkTexts asserts that svg draws every text of labels among its value
// labels and of ticks among its axis texts, and none of never anywhere; it
// answers the value labels and axis texts for further checks.
func checkTexts(t *testing.T, svg []byte, labels, ticks, never []string) (drawnLabels, axes []string) {
	t.Helper()
	drawnLabels, axes, all := texts(t, svg, "labels"), texts(t, svg, "axes"), texts(t, svg, "")
	for _, w := range labels {
		if !slices.Contains(drawnLabels, w) {
			t.Errorf("label %q missing; labels: %q", w, drawnLabels)
		}
	}
	for _, w := range ticks {
		if !slices.Contains(axes, w) {
			t.Errorf("tick %q missing; axis texts: %q", w, axes)
		}
	}
	for _, w := range never {
		if slices.Contains(all, w) {
			t.Errorf("%q is drawn; texts: %q", w, all)
		}
	}
	return drawnLabels, axes
}
