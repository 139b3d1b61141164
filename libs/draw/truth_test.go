package draw

import (
	"encoding/json"
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// fromCSV parses csv as a request does and maps the roles as a new chart
// does (chartspec.AutoMapping), with opts set.
func fromCSV(t testing.TB, typ, csv string, opts map[string]any) (*chartspec.Spec, *dataset.Table) {
	t.Helper()
	raw, _ := json.Marshal(csv)
	tb, _, err := dataset.ParseRequest(raw, "csv")
	if err != nil {
		t.Fatalf("parse: %v", err)
	}
	cat, err := catalog()
	if err != nil {
		t.Fatal(err)
	}
	ct, _ := cat.Type(typ)
	return testSpec(typ, opts, chartspec.AutoMapping(ct, tb)), tb
}

// truth data of issue 32's misstatements, shared by the goldens and the
// tests that assert on them.
const (
	indexCSV = "Date,Index,Benchmark\n2023-01,100,100\n2023-02,103.2,101.1\n2023-03,101.8,101.9\n2023-04,106.4,102.6\n2023-05,104.9,103.0\n2023-06,109.7,104.2\n"
	pollCSV  = "Question,Yes,No,Undecided\nNew stadium,41,47,12\nLonger opening hours,58,30,12\nCity tram,49,38,13\n"
	scoreCSV = "Team,Score\nAlpha,982\nBeta,994\nGamma,988\nDelta,975\n"
	teamsCSV = "Team,2023,2024\nLions,41,41\nHawks,38,44\nBears,35,35.1\nWolves,47,39\nFoxes,30,33\n"
)

// truthCases are the goldens of issue 32's misstatements (items 1–4, 15,
// 16, 19): each drew a chart that said less or other than its data, with
// no word on the picture, on the code before.
func truthCases(f *Fonts) []goldenCase {
	var cases []goldenCase
	add := caseAdder(f, &cases)
	must := func(typ, csv string, opts map[string]any) (*chartspec.Spec, *dataset.Table) {
		return fromCSV(panicTB{}, typ, csv, opts)
	}
	title := func(t string) func(*Input) {
		return style(func(s *chartspec.Style) { s.Title = chartspec.Text{Show: true, Text: t} })
	}
	// item 1: a column named Index, Key or No is data unless its values count the rows
	s, t := must("line", indexCSV, nil)
	add("truth-index-benchmark", s, t, title("Index vs benchmark"))
	s, t = must("line", indexCSV, nil)
	s.Mapping = chartspec.Mapping{"x": chartspec.One("c1"), "values": chartspec.Many("c3")}
	add("truth-index-left-out", s, t, title("Index vs benchmark"))
	s, t = must("bar", pollCSV, nil)
	add("truth-poll-yes-no", s, t, title("Should the city build it?"))
	// item 4: bars from a set min are cut, and say so
	s, t = must("bar", scoreCSV, nil)
	add("truth-bar-axis-970", s, t, title("Scores"), style(func(s *chartspec.Style) { s.YAxis = &chartspec.Axis{Min: ptr(970)} }))
	s, t = must("bar", scoreCSV, map[string]any{"orientation": "horizontal"})
	add("truth-bar-axis-970-horizontal", s, t, title("Scores"), style(func(s *chartspec.Style) { s.YAxis = &chartspec.Axis{Min: ptr(970)} }))
	s, t = must("bar", "Country,GDP (US$ million)\nTuvalu,62\nIceland,31000\nPortugal,287000\nGermany,4460000\n", nil)
	add("truth-bar-log-scale", s, t, title("GDP, 2023"), style(func(s *chartspec.Style) { s.YAxis = &chartspec.Axis{Log: true} }))
	// item 2: missing quarters break the line as a blank cell does
	add("truth-line-missing-quarters", testSpec("line", nil, nil), quarterTable(), title("Orders per quarter"))
	// item 3: tied dots side by side
	s, t = must("dotplot", teamsCSV, nil)
	add("truth-dotplot-ties", s, t, title("Points per game"))
	// item 15: the bins asked are drawn, or the notice says which
	r := rng()
	spread := make([]float64, 60)
	for i := range spread {
		spread[i] = math.Round(r.Float64()*1000) / 10
	}
	add("truth-histogram-7-bins", testSpec("histogram", map[string]any{"bins": 7.0}, nil), table(num("c1", "Delivery time (min)", spread...)), title("Delivery times"))
	add("truth-histogram-20-bins-children", testSpec("histogram", map[string]any{"bins": 20.0}, nil),
		table(num("c1", "Children", 0, 1, 1, 2, 2, 2, 3, 3, 4, 5, 6)), title("Children per household"))
	return cases
}

// panicTB is the testing.TB of golden case lists, built outside a test:
// a failure there is a broken test table.
type panicTB struct{ testing.TB }

func (panicTB) Helper()                        {}
func (panicTB) Fatalf(format string, a ...any) { panic(format) }
func (panicTB) Fatal(a ...any)                 { panic(a) }

// TestColumnsNotDrawnSaid: a column the picture leaves out is named in a
// notice with the reason, and one the values make data is drawn (issue 32
// item 1: "Index" beside a benchmark vanished without a word).
func TestColumnsNotDrawnSaid(t *testing.T) {
	f := fonts(t)
	for _, tc := range []struct {
		name, typ, csv string
		mapping        chartspec.Mapping
		drawn          []string // series names the legend or labels show
		notice         string   // in the notices and the description; "" for none
	}{
		{"index is data", "line", indexCSV, nil, []string{"Index", "Benchmark"}, ""},
		{"index mapped out", "line", indexCSV, chartspec.Mapping{"x": chartspec.One("c1"), "values": chartspec.Many("c3")}, []string{"Benchmark"},
			`c2 ("Index") is not drawn: not in the mapping`},
		{"poll's No is data", "bar", pollCSV, nil, []string{"Yes", "No", "Undecided"}, ""},
		{"key is data", "line", "Month,Key,Target\n2024-01,12,10\n2024-02,15,10\n2024-03,9,10\n", nil, []string{"Key", "Target"}, ""},
		{"row numbers are no measure", "line", "Date,Index,Sales\n2024-01,1,100\n2024-02,2,101\n2024-03,3,104\n", nil, []string{"Sales"},
			`c2 ("Index") is not drawn: ids of the rows`},
		{"a column of the wrong kind", "bar", "Country,Sales,Note\nDE,3,a\nFR,4,b\n", chartspec.Mapping{"category": chartspec.One("c1"), "values": chartspec.Many("c2", "c3")}, []string{"Sales"},
			`c3 ("Note") is not drawn: the values takes number columns, not text`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, tb := fromCSV(t, tc.typ, tc.csv, nil)
			if tc.mapping != nil {
				s.Mapping = tc.mapping
			}
			res, err := Render(Input{Spec: s, Table: tb, Fonts: f})
			if err != nil {
				t.Fatal(err)
			}
			var said []string
			for _, n := range res.Notices {
				if n.Code == NoticeColumnNotDrawn {
					said = append(said, n.Message)
				}
			}
			if tc.notice == "" && len(said) > 0 || tc.notice != "" && (len(said) != 1 || !strings.Contains(said[0], tc.notice)) {
				t.Fatalf("column notices %q, want %q", said, tc.notice)
			}
			if tc.notice != "" && !containsText(t, res.SVG, said[0]) {
				t.Errorf("the description does not repeat %q", said[0])
			}
			_, desc := descOf(t, res.SVG)
			for _, name := range tc.drawn {
				if !strings.Contains(desc, name) {
					t.Errorf("%s is not drawn: %s", name, desc)
				}
			}
		})
	}
}

var descRE = regexp.MustCompile(`<title id="[^"]*">([^<]*)</title><desc id="[^"]*">([^<]*)</desc>`)

// descOf answers a picture's title and description, as written.
func descOf(t *testing.T, svg []byte) (title, desc string) {
	t.Helper()
	m := descRE.FindSubmatch(svg)
	if m == nil {
		t.Fatal("no title and desc")
	}
	return string(m[1]), string(m[2])
}

// TestBarAxisBreak: bars on an axis the person starts above zero are cut
// with a zigzag and the break sign, and a notice says so; bars from zero
// have neither (issue 32 item 4: 982 drawn as half of 994 in silence).
func TestBarAxisBreak(t *testing.T) {
	f := fonts(t)
	for _, tc := range []struct {
		name       string
		min        *float64
		horizontal bool
		broken     bool
	}{
		{"from zero", nil, false, false},
		{"min 970", ptr(970), false, true},
		{"min 970 horizontal", ptr(970), true, true},
		{"min below zero", ptr(-100), false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := map[string]any{}
			if tc.horizontal {
				opts["orientation"] = "horizontal"
			}
			s, tb := fromCSV(t, "bar", scoreCSV, opts)
			s.Style.YAxis = &chartspec.Axis{Min: tc.min}
			res, err := Render(Input{Spec: s, Table: tb, Fonts: f})
			if err != nil {
				t.Fatal(err)
			}
			cut := strings.Contains(string(res.SVG), `class="axis-break"`)
			said := false
			for _, n := range res.Notices {
				said = said || n.Code == NoticeAxisBreak && strings.Contains(n.Message, "starts at 970, not 0")
			}
			if cut != tc.broken || said != tc.broken {
				t.Errorf("break drawn %v, notice %v; want %v (%v)", cut, said, tc.broken, res.Notices)
			}
		})
	}
}

// TestLogBarsSaySo: bars on a log scale the person asked for say so under
// the chart, since a bar twice as long is then not twice as large; bars on
// the usual scale carry no such note.
func TestLogBarsSaySo(t *testing.T) {
	f := fonts(t)
	for _, log := range []bool{false, true} {
		s, tb := fromCSV(t, "bar", "Country,GDP\nA,20\nB,3000\nC,450000\n", nil)
		s.Style.YAxis = &chartspec.Axis{Log: log}
		res, err := Render(Input{Spec: s, Table: tb, Fonts: f})
		if err != nil {
			t.Fatal(err)
		}
		if said := strings.Contains(string(res.SVG), logBarsNote); said != log {
			t.Errorf("log %v: the note under the chart %v", log, said)
		}
	}
}

// TestDescriptionPunctuation: the description joins its parts without
// stray marks: "…of 10 kg. Source: …", never "…10 kg.; Source: …" (issue
// 32 item 19).
func TestDescriptionPunctuation(t *testing.T) {
	for _, tc := range []struct{ desc, s, want string }{
		{"Bar chart of Sales", "Source: X", "Bar chart of Sales; Source: X"},
		{"Prices are for crates of 10 kg.", "Source: X", "Prices are for crates of 10 kg. Source: X"},
		{"Is it so?", "Source: X", "Is it so? Source: X"},
		{"Wait…", "Source: X", "Wait… Source: X"},
		{"A list;", "Source: X", "A list; Source: X"},
		{"A list: ", "Source: X", "A list; Source: X"},
		{"2023年末常住人口。", "来源：国家统计局", "2023年末常住人口。来源：国家统计局"},
		{"Bar chart", "", "Bar chart"},
		{"", "Source: X", "Source: X"},
	} {
		if got := clause(tc.desc, tc.s); got != tc.want {
			t.Errorf("clause(%q, %q) = %q, want %q", tc.desc, tc.s, got, tc.want)
		}
	}
	f := fonts(t)
	s, tb := fromCSV(t, "bar", "Fruit,Price\nApples,12\nPears,14\n", nil)
	s.Style.Footer = &chartspec.Footer{Notes: "Prices are for crates of 10 kg.", Source: "Market report"}
	svg, err := SVG(Input{Spec: s, Table: tb, Fonts: f})
	if err != nil {
		t.Fatal(err)
	}
	_, desc := descOf(t, svg)
	if strings.Contains(desc, ".;") || !strings.Contains(desc, "crates of 10 kg. Source: Market report") {
		t.Errorf("description %q", desc)
	}
}

// TestHistogramBinsAsked: a histogram asked for n bins draws n on round
// edges, or a notice says which bins it drew and why (issue 32 item 15:
// 7 asked, 10 drawn in silence).
func TestHistogramBinsAsked(t *testing.T) {
	f := fonts(t)
	r := rng()
	spread := make([]float64, 60)
	for i := range spread {
		spread[i] = math.Round(r.Float64()*1000) / 10 // 0.0 to 100.0
	}
	kids := []float64{0, 1, 1, 2, 2, 2, 3, 3, 4, 5, 6}
	for _, tc := range []struct {
		name   string
		vals   []float64
		asked  float64
		drawn  int
		notice string // "" when the bins asked are drawn
	}{
		{"7 of 0–100", spread, 7, 7, ""},
		{"10 of 0–100", spread, 10, 10, ""},
		{"8 of 0–100", spread, 8, 7, "8 bins were asked; 7 are drawn, 15 wide from 0 to 105, since no round bin width gives 8"},
		{"12 of 0–100", spread, 12, 13, "12 bins were asked; 13 are drawn, 8 wide from 0 to 104, since no round bin width gives 12"},
		{"3 of 0–100", spread, 3, 3, ""},
		{"20 of children 0–6", kids, 20, 7, "20 bins were asked; 7 are drawn, 1 wide from −0.5 to 6.5, since whole numbers are not split into parts"},
		{"1 of 0–100", spread, 1, 2, "1 bin was asked; 2 are drawn"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testSpec("histogram", map[string]any{"bins": tc.asked}, nil)
			res, err := Render(Input{Spec: s, Table: table(num("c1", "Value", tc.vals...)), Fonts: f})
			if err != nil {
				t.Fatal(err)
			}
			bars := strings.Count(string(res.SVG), `<rect class="bin"`)
			_, desc := descOf(t, res.SVG)
			if !strings.Contains(desc, " in "+itoa(tc.drawn)+" bins") {
				t.Errorf("want %d bins: %s (%d bars)", tc.drawn, desc, bars)
			}
			var said string
			for _, n := range res.Notices {
				if n.Code == NoticeBins {
					said = n.Message
				}
			}
			if tc.notice == "" && said != "" || !strings.HasPrefix(said, tc.notice) {
				t.Errorf("notice %q, want %q", said, tc.notice)
			}
		})
	}
}

var circleRE = regexp.MustCompile(`<circle cx="([^"]+)" cy="([^"]+)" r="[^"]+"/>`)

// TestDotplotTies: dots of equal values in a row are set side by side, so
// neither hides the other, and a notice names them (issue 32 item 3: a
// team's equal 2023 and 2024 read as one year missing).
func TestDotplotTies(t *testing.T) {
	f := fonts(t)
	for _, tc := range []struct {
		name       string
		csv        string
		horizontal bool
		ties       bool
	}{
		{"ties across rows", teamsCSV, true, true},
		{"ties, vertical", teamsCSV, false, true},
		{"no ties", "Team,2023,2024\nLions,41,30\nHawks,38,44\nBears,25,35\n", true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			opts := map[string]any{}
			if !tc.horizontal {
				opts["orientation"] = "vertical"
			}
			s, tb := fromCSV(t, "dotplot", tc.csv, opts)
			res, err := Render(Input{Spec: s, Table: tb, Fonts: f})
			if err != nil {
				t.Fatal(err)
			}
			// no two dots closer than a radius: each is seen
			var pts [][2]float64
			for _, m := range circleRE.FindAllStringSubmatch(string(res.SVG), -1) {
				pts = append(pts, [2]float64{atof(t, m[1]), atof(t, m[2])})
			}
			if len(pts) != 2*tb.Rows {
				t.Fatalf("%d dots for %d rows of 2 series", len(pts), tb.Rows)
			}
			for i := range pts {
				for j := i + 1; j < len(pts); j++ {
					if d := math.Hypot(pts[i][0]-pts[j][0], pts[i][1]-pts[j][1]); d < 5 {
						t.Errorf("dots %v and %v are %.1f px apart: one hides the other", pts[i], pts[j], d)
					}
				}
			}
			said := ""
			for _, n := range res.Notices {
				if n.Code == NoticeTies {
					said = n.Message
				}
			}
			if tc.ties != (said != "") || tc.ties && !strings.HasPrefix(said, "2 rows hold dots of equal or nearly equal values (such as Lions: 2023 and 2024)") {
				t.Errorf("notice %q", said)
			}
		})
	}
}

func atof(t *testing.T, s string) float64 {
	t.Helper()
	v, err := strconv.ParseFloat(s, 64)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

// quarterTable is quarterly data from 2020 to 2023 with four quarters
// absent (Q2 2021 to Q1 2022) and, in the second series, a blank cell
// (Q3 2020).
func quarterTable() *dataset.Table {
	var qs []string
	var a, b []float64
	for y := 2020; y <= 2023; y++ {
		for q := 0; q < 4; q++ {
			if y == 2021 && q >= 1 || y == 2022 && q == 0 {
				continue
			}
			qs = append(qs, fmt.Sprintf("%d-%02d", y, 1+3*q))
			a = append(a, float64(100+len(qs)*4+q*7))
			v := float64(80 + len(qs)*3)
			if y == 2020 && q == 2 {
				v = nan
			}
			b = append(b, v)
		}
	}
	return table(dates("c1", "Quarter", dataset.UnitQuarter, qs...), num("c2", "Online", a...), num("c3", "In store", b...))
}

var linePathRE = regexp.MustCompile(`<path fill="none" stroke="(#[0-9A-Fa-f]{6})" stroke-width="[^"]+" stroke-linejoin="round" stroke-linecap="round" d="([^"]*)"`)

// TestMissingPeriodsBreakTheLine: one gap rule — a regular date series
// breaks where periods are missing, as it does at a blank cell, and says
// so (issue 32 item 2: four absent quarters were bridged by a straight
// segment while a blank cell broke the line).
func TestMissingPeriodsBreakTheLine(t *testing.T) {
	f := fonts(t)
	daily := table(dates("c1", "Day", dataset.UnitDay, "2024-03-01", "2024-03-04", "2024-03-05", "2024-03-06", "2024-03-07", "2024-03-08", "2024-03-11"),
		num("c2", "Close", 10, 11, 12, 11, 13, 12, 14))
	yearly := table(dates("c1", "Year", dataset.UnitYear, "2015", "2016", "2017", "2020", "2021", "2022"), num("c2", "Visitors", 5, 6, 7, 2, 4, 6))
	for _, tc := range []struct {
		name   string
		t      *dataset.Table
		runs   []int // subpaths of each series' line
		notice string
	}{
		{"quarters missing and a blank cell", quarterTable(), []int{2, 3}, "the line breaks where 4 quarters are missing from the data (1 gap, the first between Q1 2021 and Q2 2022)"},
		{"years missing", yearly, []int{2}, "the line breaks where 2 years are missing from the data (1 gap, the first between 2017 and 2020)"},
		{"trading days: weekends are no gap", daily, []int{1}, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := Render(Input{Spec: testSpec("line", nil, nil), Table: tc.t, Fonts: f})
			if err != nil {
				t.Fatal(err)
			}
			var runs []int
			for _, m := range linePathRE.FindAllStringSubmatch(string(res.SVG), -1) {
				runs = append(runs, strings.Count(m[2], "M"))
			}
			if fmt.Sprint(runs) != fmt.Sprint(tc.runs) {
				t.Errorf("line runs %v, want %v", runs, tc.runs)
			}
			said := ""
			for _, n := range res.Notices {
				if n.Code == NoticePeriodGaps {
					said = n.Message
				}
			}
			if tc.notice == "" && said != "" || !strings.HasPrefix(said, tc.notice) {
				t.Errorf("notice %q, want %q", said, tc.notice)
			}
		})
	}
}
