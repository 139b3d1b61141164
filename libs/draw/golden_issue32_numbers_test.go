package draw

import (
	"regexp"
	"slices"
	"strings"
	"testing"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// issue32NumberCases are the goldens of issue 32's number, direction,
// colour and emoji items (9, 10, 11, 12, 17): each shows its defect fixed
// on data of its own, and each would have shown the defect on the old code.
func issue32NumberCases(f *Fonts) []goldenCase {
	var cases []goldenCase
	add := caseAdder(f, &cases)
	title := func(t string) func(*Input) {
		return style(func(s *chartspec.Style) { s.Title = chartspec.Text{Show: true, Text: t} })
	}
	// item 17: every emoji in colour, in the subtitle and on the axis (😀😐😢😡
	// were DejaVu Sans outlines beside a colour 🤷)
	add("emoji-colour-everywhere", testSpec("bar", nil, nil),
		table(txt("c1", "Mood", "😀 Happy", "😐 Neutral", "😢 Sad", "😡 Angry", "🤷 Unsure"), num("c2", "Staff", 42, 31, 12, 6, 9)),
		title("How staff feel"), style(func(s *chartspec.Style) { s.Subtitle = chartspec.Text{Show: true, Text: "😀 😐 😢 😡 🤷"} }))
	labels := style(func(s *chartspec.Style) { s.Labels.Show = true })
	// item 9: one unit and one precision per label set and per axis
	add("numbers32-labels-axis-unit", testSpec("bar", nil, nil),
		table(txt("c1", "Region", "North", "East", "South", "West"), num("c2", "Households", 1050000, 800000, 420000, 215000)),
		labels, title("Labels in the axis's unit: 0.80M beside 1.05M, never 800k"))
	add("numbers32-labels-one-precision", testSpec("bar", nil, nil),
		table(txt("c1", "Store", "Leeds", "York", "Hull", "Bath"), num("c2", "Visitors", 12780, 12830, 11400, 6308)),
		labels, title("One precision: never 11.4k beside 12.78k and 6.308k"))
	add("numbers32-axis-top-unit", testSpec("line", nil, nil),
		table(dates("c1", "Year", dataset.UnitYear, "2019", "2020", "2021", "2022", "2023", "2024"),
			num("c2", "Streams", 0, 150e6, 340e6, 610e6, 820e6, 980e6)),
		labels, title("One unit on the axis: 0 … 800M, 1,000M, never 1B at the top"))
	// item 10: compact numbers as the locale writes them, and the locale
	// the chart's script implies when none is set
	add("numbers32-locale-de-compact", testSpec("bar", nil, nil),
		table(txt("c1", "Land", "Deutschland", "Österreich", "Schweiz", "Liechtenstein"), num("c2", "Einwohner", 84482267, 9104772, 8815385, 39584)),
		labels, style(func(s *chartspec.Style) { s.NumberFormat = &chartspec.NumberFormat{Locale: "de"} }), title("Einwohner: Mio. statt M"))
	add("numbers32-inferred-zh", testSpec("bar", nil, nil),
		table(txt("c1", "城市", "上海", "北京", "深圳", "广州"), num("c2", "常住人口", 24870895, 21893095, 17560061, 18676605)),
		labels, title("四城常住人口"))
	add("numbers32-inferred-ja", testSpec("bar", nil, nil),
		table(txt("c1", "都道府県", "東京都", "神奈川県", "大阪府", "愛知県"), num("c2", "人口", 14047594, 9237337, 8837685, 7542415)),
		labels, title("都道府県の人口（ランキング）"))
	// item 11: a right-to-left chart mirrored as a whole: the value axis
	// on the right, legend and footer anchored right, the locale's digits
	footer := style(func(s *chartspec.Style) {
		s.Footer = &chartspec.Footer{Source: "المصدر: البنك الدولي", Notes: "الأرقام بالمليار دولار"}
	})
	add("rtl32-arabic-line-footer", testSpec("line", nil, nil),
		table(dates("c1", "السنة", dataset.UnitYear, "2018", "2019", "2020", "2021", "2022", "2023"),
			num("c2", "الصادرات", 294, 262, 174, 276, 411, 322), num("c3", "الواردات", 137, 153, 138, 152, 190, 207)),
		title("صادرات المملكة وواردتها"), footer)
	add("rtl32-hebrew-bar-footer", testSpec("bar", nil, nil),
		table(txt("c1", "עיר", "ירושלים", "תל אביב", "חיפה", "באר שבע"), num("c2", "תושבים", 981711, 474530, 285316, 214162)),
		labels, title("תושבים לפי עיר"), style(func(s *chartspec.Style) {
			s.Footer = &chartspec.Footer{Source: "מקור: הלמ\"ס", Notes: "2023"}
		}))
	return cases
}

// compactNumber reads a label or tick written in English marks: its
// decimals and its compact unit ("0.80M" → 2, "M").
var compactNumber = regexp.MustCompile(`^[−$€£]*[\d,]+(?:\.(\d+))?([kMBT]?)%?$`)

// TestOneNumberStyle: every value label of a chart, and every tick of its
// value axis, is written in one unit with one number of decimals (zero,
// written "0", aside), and the labels use the axis's unit (issue 32
// item 9): never "0.2M … 0.8M" ticks with an "800k" label, never "11.4k"
// beside "12.78k", never "800M, 1B" on one axis.
func TestOneNumberStyle(t *testing.T) {
	f := fonts(t)
	byName := map[string]goldenCase{}
	for _, c := range issue32NumberCases(f) {
		byName[c.name] = c
	}
	for _, tc := range []struct {
		golden string
		labels []string // all present among the value labels
		ticks  []string // all present among the axis texts
		never  []string
	}{
		{"numbers32-labels-axis-unit", []string{"1.05M", "0.80M", "0.42M", "0.22M"}, []string{"1.2M"}, []string{"800k", "420k"}},
		{"numbers32-labels-one-precision", []string{"12.78k", "12.83k", "11.40k", "6.31k"}, nil, []string{"11.4k", "6.308k"}},
		{"numbers32-axis-top-unit", []string{"980M", "150M"}, []string{"1,000M", "800M"}, []string{"1B"}},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			svg, err := SVG(byName[tc.golden].in)
			if err != nil {
				t.Fatal(err)
			}
			labels, axes := checkTexts(t, svg, tc.labels, tc.ticks, tc.never)
			// one style: the labels' decimals and units, and the value
			// ticks' units, one each; the labels' unit the ticks'
			style := func(set []string) (decimals map[int]bool, units map[string]bool) {
				decimals, units = map[int]bool{}, map[string]bool{}
				for _, s := range set {
					m := compactNumber.FindStringSubmatch(s)
					if m == nil || s == "0" || strings.HasPrefix(s, "20") && len(s) == 4 {
						continue // zero, a year, a name
					}
					decimals[len(m[1])] = true
					units[m[2]] = true
				}
				return decimals, units
			}
			ld, lu := style(labels)
			if len(ld) > 1 {
				t.Errorf("labels with different decimals: %q", labels)
			}
			_, au := style(axes)
			if len(lu) > 1 || len(au) > 1 {
				t.Errorf("more than one unit: labels %q, ticks %q", labels, axes)
			}
			for u := range lu {
				if !au[u] {
					t.Errorf("labels in unit %q, ticks in %v: labels %q, ticks %q", u, au, labels, axes)
				}
			}
		})
	}
}

// TestCompactPerLocale: compact numbers follow the locale's CLDR short
// decimal formats (issue 32 item 10): German Mio./Mrd. after a space and
// no thousands form, French k/M/Md, Japanese 万/億, Korean 천/만, Chinese
// 万/亿, Hindi लाख; English keeps k/M/B.
func TestCompactPerLocale(t *testing.T) {
	auto := numFormat{decimals: -1, scale: 1}
	compact := numFormat{decimals: -1, scale: 1, compact: true}
	for _, tc := range []struct {
		tag  string
		v    float64
		f    numFormat
		want string
	}{
		{"en", 84.5e6, auto, "84.5M"},
		{"de", 84.5e6, auto, "84,5\u00a0Mio."},
		{"de", 2.5e9, auto, "2,5\u00a0Mrd."},
		{"de", 39584, auto, "39.584"},
		{"de-AT", 7.1e9, auto, "7,1\u00a0Mrd."},
		{"fr", 2.5e9, auto, "2,5\u00a0Md"},
		{"es", 45000, auto, "45\u00a0mil"},
		{"ja", 123456789, auto, "1.23億"},
		{"ko", 5400, compact, "5.4천"},
		{"zh", 24870895, auto, "2487万"},
		{"zh-TW", 24870895, auto, "2487萬"},
		{"hi", 2.5e6, auto, "25\u00a0लाख"},
		{"ru", 3.2e6, auto, "3,2\u00a0млн"},
	} {
		f := tc.f
		f.loc = newNumLocale(tc.tag)
		if got := formatValue(tc.v, f); got != tc.want {
			t.Errorf("%s: %v reads %q, want %q", tc.tag, tc.v, got, tc.want)
		}
	}
}

// TestLocaleFromScript: with no locale set, a chart whose words are Han
// writes 万/亿, with kana 万/億, and the answer's notices say so; a
// chart in Latin script, or with its locale set, gets no such notice
// (issue 32 item 10).
func TestLocaleFromScript(t *testing.T) {
	f := fonts(t)
	byName := map[string]goldenCase{}
	for _, c := range issue32NumberCases(f) {
		byName[c.name] = c
	}
	for _, tc := range []struct {
		golden string
		labels []string
		notice bool
	}{
		{"numbers32-inferred-zh", []string{"2487万", "2189万", "1756万", "1868万"}, true},
		{"numbers32-inferred-ja", []string{"1405万", "924万", "884万", "754万"}, true},
		{"numbers32-locale-de-compact", []string{"84,5\u00a0Mio.", "9,1\u00a0Mio.", "8,8\u00a0Mio.", "39.584"}, false},
		{"numbers32-labels-axis-unit", []string{"1.05M"}, false},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			res, err := Render(byName[tc.golden].in)
			if err != nil {
				t.Fatal(err)
			}
			labels := texts(t, res.SVG, "labels")
			for _, w := range tc.labels {
				if !slices.Contains(labels, w) {
					t.Errorf("label %q missing; labels: %q", w, labels)
				}
			}
			said := slices.ContainsFunc(res.Notices, func(n dataset.Notice) bool { return n.Code == NoticeNumberLocale })
			if said != tc.notice {
				t.Errorf("notice %s given: %v, want %v; notices %v", NoticeNumberLocale, said, tc.notice, res.Notices)
			}
		})
	}
}

// TestRightToLeftMirrored: a chart in Arabic or Hebrew is mirrored as a
// whole (issue 32 item 11): its value ticks stand right of the plot's
// middle, starting at the plot's right edge; its footer is anchored at the
// right; an Arabic chart writes every number and year of its axes in
// Arabic-Indic digits, as CLDR's "ar" numbering system says. A chart in
// Latin script keeps its value axis on the left.
func TestRightToLeftMirrored(t *testing.T) {
	f := fonts(t)
	byName := map[string]goldenCase{}
	for _, c := range issue32NumberCases(f) {
		byName[c.name] = c
	}
	for _, tc := range []struct {
		golden       string
		mirrored     bool
		arabicDigits bool
		// fromRight: the categories along the bottom, in data order, run
		// from the right (text categories of a right-to-left chart; time
		// keeps running left to right)
		fromRight bool
	}{
		{"rtl32-arabic-line-footer", true, true, false},
		{"rtl32-hebrew-bar-footer", true, false, true},
		{"numbers32-labels-axis-unit", false, false, false},
	} {
		t.Run(tc.golden, func(t *testing.T) {
			in := byName[tc.golden].in
			svg, err := SVG(in)
			if err != nil {
				t.Fatal(err)
			}
			w, _ := in.Spec.Style.Dimensions()
			mid := float64(w) / 2
			ticks := 0
			var along []float64
			for _, e := range textsOf(t, svg) {
				switch {
				case e.group == "axes" && !e.rotate:
					if e.anchor == "middle" {
						if tc.arabicDigits && strings.ContainsAny(e.text, "0123456789") {
							t.Errorf("axis label %q in ASCII digits", e.text)
						}
						along = append(along, e.x)
						continue // along the bottom
					}
					ticks++
					if right := e.x > mid; right != tc.mirrored {
						t.Errorf("value tick %q at x %.0f of %d: on the right %v, want %v", e.text, e.x, w, right, tc.mirrored)
					}
					if tc.arabicDigits && strings.ContainsAny(e.text, "0123456789") {
						t.Errorf("value tick %q in ASCII digits", e.text)
					}
				case e.group == "footer":
					if right := e.x > mid; right != tc.mirrored {
						t.Errorf("footer %q at x %.0f of %d: on the right %v, want %v", e.text, e.x, w, right, tc.mirrored)
					}
				}
			}
			if ticks < 3 {
				t.Errorf("%d value ticks found", ticks)
			}
			if len(along) < 3 {
				t.Fatalf("%d labels along the bottom", len(along))
			}
			for i := 1; i < len(along); i++ {
				if fromRight := along[i] < along[i-1]; fromRight != tc.fromRight {
					t.Errorf("bottom labels at x %v: from the right %v, want %v", along, fromRight, tc.fromRight)
					break
				}
			}
		})
	}
}
