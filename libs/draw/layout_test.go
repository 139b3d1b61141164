package draw

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"chartd.dev/charts"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"

	"chartd.dev/libs/testserver"
)

func TestFontMetrics(t *testing.T) {
	f := fonts(t)
	if want := "'Roboto', 'DejaVu Sans', 'Noto Sans CJK SC', 'Noto Sans Arabic', 'Noto Sans Hebrew', 'Noto Sans Devanagari', 'Noto Sans Thai', 'Noto Sans', 'Noto Sans Adlam', "; !strings.HasPrefix(f.Family, want) ||
		!strings.HasSuffix(f.Family, ", 'Noto Looped Lao', 'Noto Color Emoji', 'Noto Sans Symbols', 'Noto Sans Symbols2', 'Noto Sans Math', 'Noto Music'") {
		t.Errorf("family %q, want %q…, the serif and looped faces, Noto Color Emoji and the symbol faces", f.Family, want)
	}
	// Roboto: digits are 1151/2048 em (bold 1175/2048), "M" 0.873 em
	// (bold 0.876). CJK takes 1 em in Noto Sans CJK, an emoji 2550/2048 em
	// in Noto Color Emoji, a ZWJ sequence one glyph.
	for _, tc := range []struct {
		s    string
		bold bool
		want float64 // em
	}{
		{"0", false, 0.562}, {"0123456789", false, 5.62}, {"0", true, 0.574}, {"M", false, 0.873}, {"M", true, 0.876},
		{"", false, 0}, {"東京", false, 2}, {"🚀", false, 1.245}, {"👩\u200d💻", false, 1.245}, {"e\u0301", false, 0.530},
	} {
		got := f.Width(tc.s, 1, tc.bold)
		if math.Abs(got-tc.want) > 0.01 {
			t.Errorf("Width(%q, bold=%v) = %.3f em, want %.3f", tc.s, tc.bold, got, tc.want)
		}
	}
	// Tabular figures: every digit takes the same advance, regular and
	// bold, with no OpenType feature to turn on (Roboto's default
	// figures), so columns of numbers line up and a number's width
	// depends only on its digit count.
	for _, bold := range []bool{false, true} {
		zero := f.Width("0", 1, bold)
		for d := '1'; d <= '9'; d++ {
			if w := f.Width(string(d), 1, bold); w != zero {
				t.Errorf("bold=%v: digit %c is %.4f em, 0 is %.4f em: figures are not tabular", bold, d, w, zero)
			}
		}
	}
	// kerning: "AV" is narrower than "A" + "V"
	if kv, sep := f.Width("AV", 100, false), f.Width("A", 100, false)+f.Width("V", 100, false); kv >= sep {
		t.Errorf("no kerning: AV %.1f vs A+V %.1f", kv, sep)
	}
	// the font has Arabic and Cyrillic: measured from glyphs, not the fallback
	if w := f.Width("Москва", 10, false); w <= 0 || math.Abs(w-36) < 0.01 {
		t.Errorf("Cyrillic measured by fallback: %.2f", w)
	}
	if f.CapHeight(10) < 7 || f.CapHeight(10) > 7.5 {
		t.Errorf("cap height %.2f px at 10px", f.CapHeight(10))
	}
}

func TestTruncate(t *testing.T) {
	f := fonts(t)
	for _, tc := range []struct {
		s    string
		max  float64
		want string
	}{
		{"Germany", 200, "Germany"},
		{"Department of Transportation", 70, "Departmen…"},
		{"Department of Transportation", 5, ""},
		{"東京都庁舎ビル", 40, "東京…"},
		{"ab cd", 18, "a…"}, {"ab cd", 25, "ab…"},
	} {
		got := f.Truncate(tc.s, 12, false, tc.max)
		if got != tc.want {
			t.Errorf("Truncate(%q, %v) = %q, want %q", tc.s, tc.max, got, tc.want)
		}
		if w := f.Width(got, 12, false); w > tc.max {
			t.Errorf("Truncate(%q) = %q is %.1f px, over %v", tc.s, got, w, tc.max)
		}
	}
}

// TestNonLatinLayout draws every chart type with CJK, Arabic and emoji
// labels and checks the labels stay inside the canvas by their measured width.
func TestNonLatinLayout(t *testing.T) {
	f := fonts(t)
	labels := []string{"東京都", "القاهرة", "🚀🚀🚀 launch", "서울특별시", "Москва"}
	for _, s := range everyType() {
		tbl := table(txt("c1", "都市", labels...), txt("c2", "目的地", "東京都", "القاهرة", "서울특별시", "Москва", "🚀"), num("c3", "人口", 5, 3, 8, 2, 6), num("c4", "面積", 1, 4, 2, 7, 3))
		s.Style.Labels.Show = true
		out, err := SVG(Input{Spec: s, Table: tbl, Fonts: f})
		if err != nil {
			t.Fatalf("%s: %v", s.Type, err)
		}
		checkDocument(t, out)
		for _, tx := range textsOf(t, out) {
			if tx.rotate || tx.text == "" {
				continue
			}
			w := f.Width(tx.text, tx.size, tx.bold)
			left := tx.x
			switch tx.anchor {
			case "middle":
				left -= w / 2
			case "end":
				left -= w
			}
			if left < -0.5 || left+w > 800.5 {
				t.Errorf("%s: text %q spans %.1f..%.1f, outside the 800px canvas", s.Type, tx.text, left, left+w)
			}
		}
	}
}

func TestNumberFormats(t *testing.T) {
	plain := numFormat{decimals: -1, scale: 1}
	for _, tc := range []struct {
		v    float64
		f    numFormat
		want string
	}{
		{4200000, plain, "4.2M"},
		{4000000, plain, "4M"},
		{12345, plain, "12.3k"},
		{123456, plain, "123k"},
		{9999, plain, "9,999"},
		{1234.56, plain, "1,235"},
		{12.5, plain, "12.5"},
		{0.004256, plain, "0.00426"},
		{-8.25, plain, "−8.25"},
		{-0.0001, numFormat{decimals: 0, scale: 1}, "−0.0001"}, // never 0 for a non-zero value
		{3.2e9, plain, "3.2B"},
		{0, plain, "0"},
		{0.125, numFormat{decimals: -1, scale: 100, suffix: "%"}, "12.5%"},
		{1500, numFormat{decimals: 2, prefix: "$", scale: 1}, "$1,500.00"},
		{1500, numFormat{decimals: -1, prefix: "€", scale: 1, compact: true}, "€1.5k"},
		{25000, numFormat{decimals: -1, scale: 1, plain: true}, "25,000"},
	} {
		if got := string(appendValue(nil, tc.v, tc.f)); got != tc.want {
			t.Errorf("appendValue(%v, %+v) = %q, want %q", tc.v, tc.f, got, tc.want)
		}
	}
}

func TestTickFormats(t *testing.T) {
	plain := numFormat{decimals: -1, scale: 1}
	for _, tc := range []struct {
		lo, hi float64
		f      numFormat
		want   string
	}{
		{0, 4200000, plain, "0 1M 2M 3M 4M 5M"},
		{0, 4.2, plain, "0 1 2 3 4 5"},
		{0, 1.8, plain, "0 0.5 1.0 1.5 2.0"},
		{-20, 30, numFormat{decimals: -1, scale: 1, suffix: "%"}, "−20% −10% 0% 10% 20% 30%"},
		{0, 0.06, numFormat{decimals: 0, scale: 1, suffix: "%"}, "0% 0.01% 0.02% 0.03% 0.04% 0.05% 0.06%"},
		{0, 1, plain.withTickMode("percent"), "0% 20% 40% 60% 80% 100%"},
		{0, 2500, plain, "0 500 1,000 1,500 2,000 2,500"},
	} {
		ticks, step, _, _ := niceTicks(tc.lo, tc.hi, 6)
		tf := newTickFormat(tc.f, ticks, step)
		var parts []string
		for _, v := range ticks {
			parts = append(parts, string(tf.appendTick(nil, v)))
		}
		if got := strings.Join(parts, " "); got != tc.want {
			t.Errorf("ticks %v..%v = %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}

func TestNiceTicks(t *testing.T) {
	for _, tc := range []struct {
		lo, hi float64
		target int
		want   []float64
	}{
		{0, 97, 5, []float64{0, 20, 40, 60, 80, 100}},
		{3, 3, 5, []float64{2.6, 2.8, 3, 3.2, 3.4}},
		{-15.75, 22, 8, []float64{-20, -15, -10, -5, 0, 5, 10, 15, 20, 25}},
		{0.1, 0.7, 3, []float64{0, 0.2, 0.4, 0.6, 0.8}},
		{0, 1, 2, []float64{0, 0.5, 1}},
	} {
		got, step, _, _ := niceTicks(tc.lo, tc.hi, tc.target)
		if !closeAll(got, tc.want) {
			t.Errorf("niceTicks(%v, %v, %d) = %v (step %v), want %v", tc.lo, tc.hi, tc.target, got, step, tc.want)
		}
		// every step is 1, 2 or 5 times a power of ten
		m := step / math.Pow(10, math.Floor(math.Log10(step)))
		if !slices.ContainsFunc([]float64{1, 2, 5}, func(x float64) bool { return math.Abs(x-m) < 1e-9 }) {
			t.Errorf("step %v is not 1-2-5", step)
		}
	}
	lt, _, _ := logTicks(120, 52e6, 3)
	if !closeAll(lt, []float64{100, 1e4, 1e6, 1e8}) {
		t.Errorf("logTicks = %v", lt)
	}
}

func closeAll(a, b []float64) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if math.Abs(a[i]-b[i]) > 1e-9*math.Max(1, math.Abs(b[i])) {
			return false
		}
	}
	return true
}

func TestTimeTicks(t *testing.T) {
	ms := func(s string) float64 {
		tm, err := time.Parse("2006-01-02T15:04", s)
		if err != nil {
			t.Fatal(err)
		}
		return float64(tm.UnixMilli())
	}
	for _, tc := range []struct {
		lo, hi  string
		target  int
		minStep float64
		want    string
	}{
		{"2023-01-01T00:00", "2024-03-01T00:00", 6, 0, "Jan 2023|Apr|Jul|Oct|Jan 2024"},
		{"2015-01-01T00:00", "2024-01-01T00:00", 6, 0, "2016|2018|2020|2022|2024"},
		{"2024-01-01T00:00", "2024-02-29T00:00", 5, 0, "Jan 8, 2024|Jan 22|Feb 5|Feb 19"},
		{"2024-03-05T00:00", "2024-03-06T06:00", 6, 0, "Mar 5 00:00|06:00|12:00|18:00|Mar 6 00:00|06:00"},
		{"2023-12-01T00:00", "2024-02-15T00:00", 4, 0, "Dec 2023|Jan 2024|Feb"},
		// daily data is never labelled by the hour
		{"2024-03-05T00:00", "2024-03-07T00:00", 6, unitStep("day"), "Mar 5, 2024|Mar 6|Mar 7"},
		{"2024-01-01T00:00", "2024-03-01T00:00", 12, unitStep("month"), "Jan 2024|Feb|Mar"},
	} {
		ticks, u := timeTicks(ms(tc.lo), ms(tc.hi), tc.target, tc.minStep)
		var parts []string
		for i, v := range ticks {
			prev := 0.0
			if i > 0 {
				prev = ticks[i-1]
			}
			parts = append(parts, string(appendTimeTick(nil, v, u, prev, i == 0)))
		}
		if got := strings.Join(parts, "|"); got != tc.want {
			t.Errorf("time ticks %s..%s = %q, want %q", tc.lo, tc.hi, got, tc.want)
		}
	}
}

func TestDateCategoryLabels(t *testing.T) {
	c := dates("c1", "Month", dataset.UnitMonth, "2023-11", "2023-12", "2024-01", "", "2024-02")
	if got := strings.Join(dateLabels(c), "|"); got != "Nov 2023|Dec|Jan 2024||Feb" {
		t.Errorf("month labels %q", got)
	}
	q := dates("c1", "Q", dataset.UnitQuarter, "2024-01", "2024-04")
	if got := strings.Join(dateLabels(q), "|"); got != "Q1 2024|Q2" {
		t.Errorf("quarter labels %q", got)
	}
}

func TestHistogramBins(t *testing.T) {
	vals := make([]float64, 1000)
	r := rng()
	for i := range vals {
		vals[i] = 50 + r.NormFloat64()*10
	}
	slices.Sort(vals)
	edges, rule := histogramBins(vals, 0)
	if rule != ruleFD {
		t.Errorf("rule %s, want Freedman–Diaconis", rule)
	}
	width := edges[1] - edges[0]
	if width != 2 && width != 5 {
		t.Errorf("bin width %v, want a 1-2-5 width near 2·IQR/∛n ≈ 2.7", width)
	}
	if edges[0] > vals[0] || edges[len(edges)-1] <= vals[len(vals)-1] {
		t.Errorf("edges %v..%v do not cover %v..%v", edges[0], edges[len(edges)-1], vals[0], vals[len(vals)-1])
	}
	counts := binCounts(vals, edges)
	total := 0
	for _, n := range counts {
		total += n
	}
	if total != len(vals) {
		t.Errorf("counted %d of %d values", total, len(vals))
	}
	// IQR zero → Sturges
	same := []float64{1, 5, 5, 5, 5, 5, 5, 9}
	if _, rule := histogramBins(same, 0); rule != ruleSturges {
		t.Errorf("zero IQR rule %s, want Sturges", rule)
	}
	// a set count gives about that many bins on round edges (TestNiceBins)
	edges, _ = histogramBins(vals, 7)
	if edges[0] > vals[0] || edges[len(edges)-1] < vals[len(vals)-1] || len(edges) < 5 || len(edges) > 12 {
		t.Errorf("set count edges %v", edges)
	}
	if c := binCounts([]float64{0, 1, 2, 3}, []float64{0, 1.5, 3}); !slices.Equal(c, []int{2, 2}) {
		t.Errorf("last bin must include its upper edge: %v", c)
	}
}

func TestTukey(t *testing.T) {
	s := tukey([]float64{1, 2, 3, 4, 5, 6, 7, 8, 9, 40})
	if s.median != 5.5 || s.q1 != 3.25 || s.q3 != 7.75 {
		t.Errorf("quartiles %v %v %v", s.q1, s.median, s.q3)
	}
	if s.whiskLo != 1 || s.whiskHi != 9 || !slices.Equal(s.outliers, []float64{40}) {
		t.Errorf("whiskers %v..%v outliers %v", s.whiskLo, s.whiskHi, s.outliers)
	}
}

func TestAutoMapping(t *testing.T) {
	tbl := table(num("c1", "Year", 2020, 2021), txt("c2", "Country", "A", "B"), num("c3", "Sales", 1, 2), num("c4", "Profit", 3, 4),
		dates("c5", "Day", dataset.UnitDay, "2024-01-01", "2024-01-02"))
	for _, tc := range []struct {
		typ  string
		want string
	}{
		{"bar", "category=c2 values=c1,c3,c4"},
		{"line", "values=c1,c3,c4 x=c5"},
		{"pie", "label=c2 value=c1"},
		{"scatter", "x=c1 y=c3"},
		{"histogram", "value=c1"},
		{"heatmap", "value=c1,c3,c4 y=c2"}, // one row per country: rows × columns
		{"sankey", "source=c2 target=c5 value=c1"},
	} {
		if got := mappingString(AutoMapping(tc.typ, tbl)); got != tc.want {
			t.Errorf("AutoMapping(%s) = %s, want %s", tc.typ, got, tc.want)
		}
	}
	// given roles are kept; unknown or unfit ids are ignored and refilled
	given := chartspec.Mapping{"values": chartspec.Many("c4", "nope", "c2"), "category": chartspec.One("c9")}
	roles, err := resolveRoles("bar", given, tbl)
	if err != nil {
		t.Fatal(err)
	}
	if got := mappingString(roles.mapping("bar")); got != "category=c2 values=c4" {
		t.Errorf("resolved %s", got)
	}
}

func mappingString(m chartspec.Mapping) string {
	var parts []string
	for role, ref := range m {
		parts = append(parts, role+"="+strings.Join(ref.IDs, ","))
	}
	slices.Sort(parts)
	return strings.Join(parts, " ")
}

// TestUndrawableInput: errors only where nothing can be drawn, saying what to fix.
func TestUndrawableInput(t *testing.T) {
	f := fonts(t)
	textOnly := table(txt("c1", "Name", "a", "b"), txt("c2", "City", "x", "y"))
	for _, tc := range []struct {
		name string
		in   Input
		want string
	}{
		{"sankey without numbers", Input{Spec: testSpec("sankey", nil, nil), Table: textOnly, Fonts: f}, `needs a number column for its flow value role (value); the data has "Name" (text), "City" (text)`},
		{"sankey with one text column", Input{Spec: testSpec("sankey", nil, nil), Table: table(txt("c1", "Name", "a"), num("c2", "V", 1)), Fonts: f}, "needs a text or date or number column for its target role"},
		{"unknown type", Input{Spec: testSpec("donut", nil, nil), Table: textOnly, Fonts: f}, `unknown chart type "donut"`},
		{"no fonts", Input{Spec: testSpec("bar", nil, nil), Table: textOnly}, "draw.LoadFonts"},
		{"no table", Input{Spec: testSpec("bar", nil, nil), Fonts: f}, "no table"},
		{"bad size", Input{Spec: testSpec("bar", nil, nil), Table: textOnly, Fonts: f, Width: 5000}, "100 to 4000"},
		{"empty table", Input{Spec: testSpec("pie", nil, nil), Table: &dataset.Table{}, Fonts: f}, "the data has no columns"},
	} {
		_, err := SVG(tc.in)
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%s: error %v, want it to contain %q", tc.name, err, tc.want)
		}
	}
}

// TestSizeAndStyle: the canvas takes the request size over style.size, a
// watermark appears only when asked, transparency drops the background.
func TestSizeAndStyle(t *testing.T) {
	f := fonts(t)
	s := testSpec("bar", nil, nil)
	s.Style.Size = "640×480"
	tbl := table(txt("c1", "C", "a", "b"), num("c2", "V", 1, 2))
	out, _ := SVG(Input{Spec: s, Table: tbl, Fonts: f})
	if !strings.Contains(string(out), `width="640" height="480" viewBox="0 0 640 480"`) {
		t.Error("style.size not used")
	}
	out, _ = SVG(Input{Spec: s, Table: tbl, Fonts: f, Width: 1000, Height: 300, Transparent: true})
	if !strings.Contains(string(out), `width="1000" height="300"`) || strings.Contains(string(out), `fill="#FFFFFF"/>`+"<") && strings.Contains(string(out), `<rect width="100%"`) {
		t.Error("request size or transparency not applied")
	}
	if strings.Contains(string(out), ">chartd</text>") {
		t.Error("watermark drawn without Watermark")
	}
	out, _ = SVG(Input{Spec: s, Table: tbl, Fonts: f, Watermark: true})
	if !strings.Contains(string(out), ">chartd</text>") {
		t.Error("watermark missing")
	}
}

// TestBlanksAreNotZero: a blank value draws no bar, a zero draws a flat one.
func TestBlanksAreNotZero(t *testing.T) {
	f := fonts(t)
	out, err := SVG(Input{Spec: testSpec("bar", nil, nil), Table: table(txt("c1", "C", "a", "b", "c"), num("c2", "V", 5, nan, 0)), Fonts: f})
	if err != nil {
		t.Fatal(err)
	}
	bars := strings.Count(string(out), `<rect x=`)
	if bars != 2 {
		t.Errorf("%d bars drawn for values 5, blank, 0; want 2", bars)
	}
	out, _ = SVG(Input{Spec: testSpec("line", nil, nil), Table: table(num("c1", "x", 1, 2, 3, 4, 5), num("c2", "y", 1, 2, nan, 4, 5)), Fonts: f})
	if n := strings.Count(string(out), "M"); n < 2 {
		t.Errorf("blank must break the line in two, path has %d moves", n)
	}
}

// TestDefaultPaletteMatchesCatalog keeps the fallback palette equal to the catalog's default.
func TestDefaultPaletteMatchesCatalog(t *testing.T) {
	cat, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	if got, want := defaultPalette(), cat.DefaultPalette().Colors; !slices.Equal(got, want) {
		t.Errorf("defaultPalette %v, catalog default %v", got, want)
	}
}

// TestCatalogRolesMatch: draw fills exactly the roles the catalog defines.
func TestCatalogRolesMatch(t *testing.T) {
	cat, err := charts.Load()
	if err != nil {
		t.Fatal(err)
	}
	for _, ct := range cat.Types() {
		rules := roleRules(ct.Type)
		if len(rules) != len(ct.Roles) {
			t.Errorf("%s: draw has %d roles, catalog %d", ct.Type, len(rules), len(ct.Roles))
			continue
		}
		for i, r := range ct.Roles {
			if rules[i].name != r.Role && !slices.ContainsFunc(rules, func(x roleRule) bool { return x.name == r.Role }) {
				t.Errorf("%s: catalog role %s unknown to draw", ct.Type, r.Role)
			}
			for _, x := range rules {
				if x.name == r.Role && (x.multi != r.Multi || x.required != r.Required) {
					t.Errorf("%s.%s: multi/required differ from the catalog", ct.Type, r.Role)
				}
			}
		}
	}
}

// textEl is one <text> element as drawn.
type textEl struct {
	x, y, size float64
	bold       bool
	anchor     string
	rotate     bool
	angle      float64
	text       string
	group      string // class of the enclosing <g>
	// lines are the <tspan> lines of a wrapped label (nil: one line)
	lines []string
}

// widest is the width of the text's longest line.
func (e textEl) widest(f *Fonts) float64 {
	if e.lines == nil {
		return f.Width(e.text, e.size, e.bold)
	}
	w := 0.0
	for _, l := range e.lines {
		w = math.Max(w, f.Width(l, e.size, e.bold))
	}
	return w
}

// textsOf lists the text elements of a picture.
func textsOf(t *testing.T, svg []byte) []textEl {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var out []textEl
	var cur *textEl
	var groups []string
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		switch el := tok.(type) {
		case xml.StartElement:
			if el.Name.Local == "g" {
				class := ""
				for _, a := range el.Attr {
					if a.Name.Local == "class" {
						class = a.Value
					}
				}
				groups = append(groups, class)
			}
			if el.Name.Local == "tspan" && cur != nil {
				cur.lines = append(cur.lines, "")
			}
			if el.Name.Local != "text" {
				continue
			}
			cur = &textEl{}
			if len(groups) > 0 {
				cur.group = groups[len(groups)-1]
			}
			for _, a := range el.Attr {
				v, _ := strconv.ParseFloat(a.Value, 64)
				switch a.Name.Local {
				case "x":
					cur.x = v
				case "y":
					cur.y = v
				case "font-size":
					cur.size = v
				case "font-weight":
					cur.bold = a.Value == "bold"
				case "text-anchor":
					cur.anchor = a.Value
				case "transform":
					cur.rotate = true
					fmt.Sscanf(a.Value, "rotate(%g", &cur.angle)
				}
			}
		case xml.CharData:
			if cur != nil {
				cur.text += string(el)
				if n := len(cur.lines); n > 0 {
					cur.lines[n-1] += string(el)
				}
			}
		case xml.EndElement:
			if el.Name.Local == "g" && len(groups) > 0 {
				groups = groups[:len(groups)-1]
			}
			if el.Name.Local == "text" && cur != nil {
				out = append(out, *cur)
				cur = nil
			}
		}
	}
}

// TestLargeTables draws every type from 10,000 rows: valid documents,
// within a generous time limit.
func TestLargeTables(t *testing.T) {
	pace := testserver.MeasurePace()
	f := fonts(t)
	r := rng()
	n := 10000
	cats, to := make([]string, n), make([]string, n)
	for i := range cats {
		cats[i] = "group " + strconv.Itoa(i%25)
		to[i] = "target " + strconv.Itoa(i%7)
	}
	tbl := table(txt("c1", "Group", cats...), txt("c2", "To", to...), num("c3", "A", series(r, n, 50, 40)...), num("c4", "B", series(r, n, 20, 10)...))
	for _, s := range everyType() {
		start := time.Now()
		out, err := SVG(Input{Spec: s, Table: tbl, Fonts: f})
		if err != nil {
			t.Fatalf("%s: %v", s.Type, err)
		}
		checkDocument(t, out)
		if d := time.Since(start); pace.Over(d, 2*time.Second) {
			t.Errorf("%s with %d rows took %v at %v", s.Type, n, d, pace)
		}
	}
}

// TestMalformedTable refuses tables whose columns do not match their row count.
func TestMalformedTable(t *testing.T) {
	tbl := &dataset.Table{Rows: 3, Columns: []*dataset.Column{txt("c1", "A", "x"), num("c2", "B", 1, 2, 3)}}
	_, err := SVG(Input{Spec: testSpec("bar", nil, nil), Table: tbl, Fonts: fonts(t)})
	if err == nil || !strings.Contains(err.Error(), `column c1 ("A") has 1 cells for 3 rows`) {
		t.Errorf("error %v", err)
	}
}

// TestCategoryLabelsNeverOverlap draws bar charts from 3 to 400 categories
// with short and long names at several sizes and checks the category labels
// as drawn: flat ones do not touch, rotated ones keep a line of space.
func TestCategoryLabelsNeverOverlap(t *testing.T) {
	f := fonts(t)
	names := func(n int, long bool) []string {
		out := countries(n)
		for i := range out {
			if long {
				out[i] = "Republic of " + out[i] + " and territories"
			}
			out[i] += " " + strconv.Itoa(i)
		}
		return out
	}
	for _, size := range [][2]int{{800, 600}, {400, 300}, {1600, 900}} {
		for _, n := range []int{3, 8, 15, 40, 120, 400} {
			for _, long := range []bool{false, true} {
				for _, orient := range []string{"vertical", "horizontal"} {
					s := testSpec("bar", map[string]any{"orientation": orient}, nil)
					vals := make([]float64, n)
					for i := range vals {
						vals[i] = float64(i%7 + 1)
					}
					out, err := SVG(Input{Spec: s, Table: table(txt("c1", "C", names(n, long)...), num("c2", "V", vals...)), Fonts: f, Width: size[0], Height: size[1]})
					if err != nil {
						t.Fatal(err)
					}
					var labels []textEl
					for _, tx := range textsOf(t, out) {
						if tx.group == "axes" && strings.Contains(tx.text, " ") && !strings.ContainsAny(tx.text[:1], "0123456789") {
							labels = append(labels, tx)
						}
					}
					if len(labels) == 0 {
						t.Fatalf("%v n=%d: no category labels found", size, n)
					}
					for i := 1; i < len(labels); i++ {
						a, b := labels[i-1], labels[i]
						var gap, need float64
						switch {
						case orient == "horizontal": // stacked rows on the left
							gap, need = math.Abs(b.y-a.y), a.size
						case a.angle == 0:
							wa, wb := a.widest(f), b.widest(f)
							gap, need = (b.x-wb/2)-(a.x+wa/2), 1
						case a.angle == -45:
							gap, need = (b.x-a.x)*math.Sqrt2/2, a.size
						default:
							gap, need = b.x-a.x, a.size
						}
						if gap < need {
							t.Errorf("%v n=%d long=%v %s: labels %q and %q overlap (gap %.1f < %.1f)", size, n, long, orient, a.text, b.text, gap, need)
						}
					}
				}
			}
		}
	}
}
