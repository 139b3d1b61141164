package draw

import (
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// scriptCases are the goldens of issue 22's second item: labels, titles
// and legends in the scripts the font stack drew as .notdef boxes
// (Bengali, Tamil, Gujarati, Gurmukhi, Telugu, Kannada, Malayalam,
// Sinhala, Khmer, Myanmar, Ethiopic, Mongolian; symbols such as ₿), and
// right-to-left titles and legends, which align right with each key
// right of its name.
func scriptCases(f *Fonts) []goldenCase {
	var cases []goldenCase
	add := caseAdder(f, &cases)
	labels := style(func(s *chartspec.Style) { s.Labels.Show = true })
	text := func(title, subtitle string) func(*Input) {
		return style(func(s *chartspec.Style) {
			s.Title = chartspec.Text{Show: title != "", Text: title}
			s.Subtitle = chartspec.Text{Show: subtitle != "", Text: subtitle}
		})
	}
	legend := func(x, y string) func(*Input) {
		return style(func(s *chartspec.Style) { s.Legend.Position = chartspec.Position{X: x, Y: y} })
	}

	// Each language named in its own script, the title in Bengali.
	add("scripts-languages-bar", testSpec("bar", map[string]any{"orientation": "horizontal"}, nil),
		table(txt("c1", "Language", "বাংলা", "ਪੰਜਾਬੀ", "తెలుగు", "தமிழ்", "ગુજરાતી", "አማርኛ", "ಕನ್ನಡ", "മലയാളം", "မြန်မာ", "ខ្មែរ", "සිංහල", "ᠮᠣᠩᠭᠣᠯ"),
			num("c2", "Speakers", 237, 113, 83, 79, 57, 57, 44, 37, 33, 17, 16, 5.2)),
		labels, text("মাতৃভাষা: ভাষাভাষীর সংখ্যা", "Speakers by first language, millions · ಕನ್ನಡ · മലയാളം · සිංහල"))
	// ₿ in the title, the unit and the labels; symbol faces in the subtitle.
	add("scripts-bitcoin-symbols", testSpec("bar", nil, nil),
		table(txt("c1", "Fund", "North", "South", "East", "West", "Central"),
			&dataset.Column{ID: "c2", Name: "Holdings", Kind: dataset.Number, Num: []float64{1250, 840, 615, 390, 120}, Currency: "₿"}),
		labels, text("₿ holdings by fund", "≈ ₿3,215 in all · ⚠ unaudited · 🜨 ⚳ ♅"))
	// Titles in Ethiopic and Khmer, series in Myanmar, Sinhala and Tibetan.
	months := []string{"2024-01", "2024-02", "2024-03", "2024-04", "2024-05", "2024-06", "2024-07", "2024-08"}
	add("scripts-line-legend", testSpec("line", nil, nil),
		table(dates("c1", "Month", dataset.UnitMonth, months...),
			num("c2", "ရန်ကုန်", 31, 33, 35, 34, 31, 29, 29, 29),
			num("c3", "කොළඹ", 27, 28, 29, 29, 28, 28, 27, 27),
			num("c4", "ལྷ་ས།", -2, 1, 5, 8, 12, 15, 15, 14)),
		text("የአየር ሙቀት በወር", "សីតុណ្ហភាពជាមធ្យម (°C)"))

	// Right to left: Arabic title, subtitle, categories and series; the
	// legend runs from the right, each key right of its name.
	add("rtl-arabic-grouped", testSpec("bar", nil, chartspec.Mapping{"category": chartspec.One("c1"), "values": chartspec.Many("c2", "c3")}),
		table(txt("c1", "المدينة", "القاهرة", "الرياض", "دبي", "الدار البيضاء", "عمّان"),
			num("c2", "المبيعات", 420, 380, 510, 260, 140), num("c3", "الأرباح", 82, 71, 120, 40, 22)),
		labels, text("المبيعات والأرباح حسب المدينة", "بآلاف الدولارات (2024)"))
	// Hebrew: the legend as a column at the right, keys at its right edge.
	add("rtl-hebrew-legend-column", testSpec("bar", nil, chartspec.Mapping{"category": chartspec.One("c1"), "values": chartspec.Many("c2", "c3", "c4")}),
		table(txt("c1", "רבעון", "רבעון 1", "רבעון 2", "רבעון 3", "רבעון 4"),
			num("c2", "תל אביב", 180, 210, 240, 260), num("c3", "ירושלים", 120, 135, 150, 170), num("c4", "חיפה והצפון", 90, 95, 110, 118)),
		text("הכנסות לפי סניף", "במיליוני ש״ח"), legend("right", "middle"))
	// Hebrew series named at the lines' ends: name, then value, right to
	// left.
	add("rtl-hebrew-line", testSpec("line", nil, nil),
		table(dates("c1", "Month", dataset.UnitMonth, months...),
			num("c2", "תל אביב", 18, 19, 21, 24, 27, 29, 31, 31),
			num("c3", "ירושלים", 11, 12, 15, 19, 23, 25, 27, 27),
			num("c4", "אילת", 21, 22, 26, 30, 34, 37, 40, 40)),
		text("טמפרטורה ממוצעת לפי חודש", "מעלות צלזיוס"))
	// A pie's legend in two rows below, right to left from the right; a
	// Latin title stays at the left.
	add("rtl-arabic-pie-legend-rows", testSpec("pie", nil, nil),
		table(txt("c1", "القطاع", "الزراعة", "الصناعة التحويلية", "الخدمات المالية", "السياحة", "النقل والمواصلات", "البناء والتشييد", "التعليم"),
			num("c2", "الحصة", 12, 18, 22, 9, 11, 16, 12)),
		text("GDP by sector", ""), legend("right", "bottom"),
		style(func(s *chartspec.Style) { s.Legend.Show = chartspec.On }), func(in *Input) { in.Width, in.Height = 460, 400 })
	return cases
}

// TestDirection: a text's direction is its first letter's (Unicode bidi
// class); digits and punctuation do not decide.
func TestDirection(t *testing.T) {
	for _, tc := range []struct {
		s           string
		rtl, strong bool
	}{
		{"Sales", false, true}, {"المبيعات", true, true}, {"2024 المبيعات", true, true}, {"(2024) Sales المبيعات", false, true},
		{"עברית", true, true}, {"ܣܘܪܝܝܐ", true, true}, {"ދިވެހި", true, true}, {"ߒߞߏ", true, true}, {"𞤀𞤣𞤤𞤢𞤥", true, true},
		{"Ελληνικά", false, true}, {"東京", false, true}, {"বাংলা", false, true}, {"(2024) −5 %", false, false}, {"", false, false},
	} {
		if rtl, strong := direction(tc.s); rtl != tc.rtl || strong != tc.strong {
			t.Errorf("direction(%q) = %v, %v; want %v, %v", tc.s, rtl, strong, tc.rtl, tc.strong)
		}
	}
}

// TestRTLAlignsRight: a right-to-left title and subtitle end at the
// right edge of the text area and run right to left; a legend of
// right-to-left names runs from the right, each key right of its name, in
// rows and in a column; left-to-right text stays at the left.
func TestRTLAlignsRight(t *testing.T) {
	f := fonts(t)
	var cases []goldenCase
	for _, c := range scriptCases(f) {
		if strings.HasPrefix(c.name, "rtl-") {
			cases = append(cases, c)
		}
	}
	if len(cases) != 4 {
		t.Fatalf("%d right-to-left goldens, want 4", len(cases))
	}
	textAt := regexp.MustCompile(`<text x="([\d.]+)" y="[\d.]+" font-size="([\d.]+)"( font-weight="bold")?[^>]*?( direction="rtl")?>([^<]*)</text>`)
	// a key is a swatch, or a line's stroke (a mirrored line chart names
	// its lines in a legend, issue 32 item 11)
	keyAt := regexp.MustCompile(`<(?:rect x|line x1)="([\d.]+)" [^>]*/>`)
	for _, c := range cases {
		svg := string(mustSVG(t, c.in))
		w, h := float64(c.in.Width), float64(c.in.Height)
		if w == 0 {
			w, h = 800, 600
		}
		right := w - math.Round(16*textScale(w, h)) // the text area's right edge
		for _, tt := range []chartspec.Text{c.in.Spec.Style.Title, c.in.Spec.Style.Subtitle} {
			if !tt.Show {
				continue
			}
			i := strings.Index(svg, ">"+tt.Text+"</text>")
			if i < 0 {
				t.Fatalf("%s: %q not drawn on one line", c.name, tt.Text)
			}
			m := textAt.FindStringSubmatch(svg[strings.LastIndex(svg[:i], "<text"):])
			x, _ := strconv.ParseFloat(m[1], 64)
			if isRTL(tt.Text) != (m[4] != "") || isRTL(tt.Text) && x != right || !isRTL(tt.Text) && x >= 100 {
				t.Errorf("%s: %q at x=%s%s; want right to left at %g or left to right at the left", c.name, tt.Text, m[1], m[4], right)
			}
		}
		_, legend, ok := strings.Cut(svg, `<g class="legend">`)
		if !ok {
			continue
		}
		legend, _, _ = strings.Cut(legend, "</g>")
		keys, names := keyAt.FindAllStringSubmatch(legend, -1), textAt.FindAllStringSubmatch(legend, -1)
		if len(keys) < 2 || len(keys) != len(names) {
			t.Fatalf("%s: legend of %d keys and %d names", c.name, len(keys), len(names))
		}
		for k := range keys {
			kx, _ := strconv.ParseFloat(keys[k][1], 64)
			nx, _ := strconv.ParseFloat(names[k][1], 64)
			if names[k][4] == "" || kx <= nx {
				t.Errorf("%s: legend name %q ends at %g, its key starts at %g: want the key right of a right-to-left name", c.name, names[k][5], nx, kx)
			}
		}
		// In a row the first item is rightmost; in a column the keys line up.
		k0, _ := strconv.ParseFloat(keys[0][1], 64)
		k1, _ := strconv.ParseFloat(keys[1][1], 64)
		if k1 > k0 || c.in.Spec.Style.Legend.Position.Y == "middle" && k1 != k0 {
			t.Errorf("%s: legend keys at %g then %g", c.name, k0, k1)
		}
	}
}
