package draw

import (
	"bytes"
	"math"
	"strings"
	"testing"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// footerCases are the goldens of the footer (source, notes, byline): on a
// bar chart, with notes long enough to be cut on a small free-plan
// picture, on a pie with its legend, and under a legend at the bottom.
func footerCases(f *Fonts) []goldenCase {
	var cases []goldenCase
	add := caseAdder(f, &cases)
	titled := style(func(s *chartspec.Style) {
		s.Title = chartspec.Text{Show: true, Text: "Sales by country"}
		s.Subtitle = chartspec.Text{Show: true, Text: "Net sales in euros, 2024"}
	})
	footer := func(ft chartspec.Footer) func(*Input) { return style(func(s *chartspec.Style) { s.Footer = &ft }) }
	c8 := countries(8)
	sales := []float64{4200000, 3100000, 2650000, 2100000, 1500000, 1320000, 990000, 870000}
	profit := []float64{820000, 510000, 600000, 330000, 290000, 250000, 140000, 200000}
	barT := func() *dataset.Table {
		return table(txt("c1", "Country", c8...), num("c2", "Sales", sales...), num("c3", "Profit", profit...))
	}
	one := chartspec.Mapping{"category": chartspec.One("c1"), "values": chartspec.Many("c2")}
	two := chartspec.Mapping{"category": chartspec.One("c1"), "values": chartspec.Many("c2", "c3")}
	full := chartspec.Footer{Source: "Eurostat, national statistics offices", Notes: "Net sales exclude VAT. Figures for Poland are provisional.", Byline: "Data desk"}

	add("footer-bar", testSpec("bar", nil, one), barT(), titled, footer(full))
	long := "Sales are net of value added tax and of returns within 30 days. Germany and France report by calendar year, the others by fiscal year ending in March, " +
		"so their figures are shifted by a quarter. Poland's figures are provisional until the statistics office publishes its revision in the spring, " +
		"and the exchange rate used for the non-euro countries is the average of the year."
	add("footer-long-notes-400x300", testSpec("bar", nil, one), barT(), titled,
		footer(chartspec.Footer{Source: "Eurostat (online data code nama_10_gdp), national statistics offices and company reports", Notes: long, Byline: "Ada Lovelace and the data desk"}),
		func(in *Input) { in.Width, in.Height, in.Watermark = 400, 300, true })
	browsers := table(txt("c1", "Browser", "Chrome", "Safari", "Edge", "Firefox", "Samsung Internet", "Opera", "Other"), num("c2", "Share", 64.7, 18.6, 5.2, 2.8, 2.5, 2.2, 4.0))
	add("footer-pie", testSpec("pie", nil, nil), browsers, style(func(s *chartspec.Style) {
		s.Title = chartspec.Text{Show: true, Text: "Browser share, worldwide"}
	}), footer(chartspec.Footer{Source: "StatCounter Global Stats", Notes: "Share of page views in December 2024, all platforms."}))
	add("footer-legend-bottom", testSpec("bar", map[string]any{"orientation": "horizontal"}, two), barT(), titled,
		style(func(s *chartspec.Style) { s.Legend.Position = chartspec.Position{X: "center", Y: "bottom"} }),
		footer(chartspec.Footer{Source: "Company reports", Byline: "By the data desk"}), func(in *Input) { in.Watermark = true })
	return cases
}

// footerBox is where a picture's footer lines sit.
type footerBox struct {
	lines      []textEl
	top, right float64
}

// footerOf finds the footer's lines; ok is false when there are none.
func footerOf(f *Fonts, texts []textEl) (footerBox, bool) {
	var b footerBox
	b.top = math.Inf(1)
	for _, tx := range texts {
		if tx.group != "footer" {
			continue
		}
		b.lines = append(b.lines, tx)
		b.top = math.Min(b.top, tx.y-f.CapHeight(tx.size))
		b.right = math.Max(b.right, tx.x+tx.widest(f))
	}
	return b, len(b.lines) > 0
}

// TestFooterNeverOverlaps draws every chart type with a long footer at
// several sizes, with and without the free plan's mark, and checks the
// picture as drawn: the footer is inside the canvas, below every other
// text (axis labels, legends, pie labels), clear of the mark, and the
// notes take at most three lines.
func TestFooterNeverOverlaps(t *testing.T) {
	f := fonts(t)
	tbl := table(txt("c1", "Group", "North", "South", "East", "West", "Centre"), txt("c2", "To", "A", "B", "C", "A", "B"),
		num("c3", "Sales", 42, 35, 28, 51, 19), num("c4", "Costs", 30, 22, 25, 33, 12))
	ft := chartspec.Footer{Source: "Eurostat and national statistics offices, own calculations", Byline: "Data desk",
		Notes: strings.Repeat("Figures are provisional and may be revised when the final data are published. ", 6)}
	for _, size := range [][2]int{{800, 600}, {400, 300}, {300, 200}, {1600, 500}, {100, 100}} {
		for _, mark := range []bool{false, true} {
			for _, s := range everyType() {
				s.Style.Title = chartspec.Text{Show: true, Text: "A title"}
				s.Style.Labels.Show = true
				s.Style.Legend.Show = chartspec.On
				s.Style.Legend.Position = chartspec.Position{X: "center", Y: "bottom"}
				s.Style.Footer = &ft
				out, err := SVG(Input{Spec: s, Table: tbl, Fonts: f, Width: size[0], Height: size[1], Watermark: mark})
				if err != nil {
					t.Fatalf("%s %v: %v", s.Type, size, err)
				}
				checkDocument(t, out)
				texts := textsOf(t, out)
				box, ok := footerOf(f, texts)
				if !ok {
					t.Fatalf("%s %v: no footer drawn", s.Type, size)
				}
				notes := 0
				for _, l := range box.lines {
					if strings.Contains(ft.Notes, strings.TrimSuffix(l.text, "…")) {
						notes++
					}
					if l.x < 0 || l.x+l.widest(f) > float64(size[0])+0.5 || l.y > float64(size[1]) {
						t.Errorf("%s %v: footer line %q leaves the canvas", s.Type, size, l.text)
					}
				}
				if notes > footerNotesLines {
					t.Errorf("%s %v: %d lines of notes", s.Type, size, notes)
				}
				if size[0] >= 300 {
					for _, tx := range texts {
						if tx.group == "footer" || tx.text == "chartd" {
							continue
						}
						// the lowest point of other text is its baseline
						// plus descenders (rotated labels hang from theirs)
						if tx.y+0.25*tx.size > box.top {
							t.Errorf("%s %v mark=%v: %q (baseline %.1f) reaches into the footer (top %.1f)", s.Type, size, mark, tx.text, tx.y, box.top)
						}
					}
				}
				if mark {
					markLeft := float64(size[0]) - textScalePad(size)*0.5 - f.Width("chartd", round1(10*textScale(float64(size[0]), float64(size[1]))), true)
					if box.right > markLeft {
						t.Errorf("%s %v: the footer reaches %.1f, into the mark at %.1f", s.Type, size, box.right, markLeft)
					}
				}
			}
		}
	}
}

// textScalePad is the canvas padding at a size, as newCanvas sets it.
func textScalePad(size [2]int) float64 {
	return math.Round(16 * textScale(float64(size[0]), float64(size[1])))
}

// TestFooterShrinksThePlot checks the footer takes its room from the plot
// (the lowest axis label moves up) and that the description reads it.
func TestFooterShrinksThePlot(t *testing.T) {
	f := fonts(t)
	tbl := table(txt("c1", "Country", countries(5)...), num("c2", "Sales", 5, 4, 3, 2, 1))
	lowest := func(svg []byte) float64 {
		y := 0.0
		for _, tx := range textsOf(t, svg) {
			if tx.group != "footer" {
				y = math.Max(y, tx.y)
			}
		}
		return y
	}
	plain := testSpec("bar", nil, nil)
	without, err := SVG(Input{Spec: plain, Table: tbl, Fonts: f})
	if err != nil {
		t.Fatal(err)
	}
	with := testSpec("bar", nil, nil)
	with.Style.Footer = &chartspec.Footer{Source: "Sources: the <b>ministry</b> & co", Notes: "Line one\nand\ttwo", Byline: "Ada"}
	out, err := SVG(Input{Spec: with, Table: tbl, Fonts: f})
	if err != nil {
		t.Fatal(err)
	}
	if lowest(out) >= lowest(without)-10 {
		t.Errorf("the plot did not make room: lowest text at %.1f with a footer, %.1f without", lowest(out), lowest(without))
	}
	box, ok := footerOf(f, textsOf(t, out))
	if !ok || len(box.lines) != 2 {
		t.Fatalf("footer lines %+v", box.lines)
	}
	// a source that names itself gets no second label; notes read as one line
	if box.lines[0].text != "Line one and two" || box.lines[1].text != "Sources: the <b>ministry</b> & co · Chart: Ada" {
		t.Errorf("footer text %q / %q", box.lines[0].text, box.lines[1].text)
	}
	if !bytes.Contains(out, []byte("; Line one and two; Sources: the &lt;b&gt;ministry&lt;/b&gt; &amp; co · Chart: Ada</desc>")) {
		t.Errorf("the description lacks the footer: %s", out[:min(len(out), 600)])
	}
	checkOnlyOurElements(t, out)
	// an empty footer draws as no footer at all
	empty := testSpec("bar", nil, nil)
	empty.Style.Footer = &chartspec.Footer{Notes: " \n "}
	if got, _ := SVG(Input{Spec: empty, Table: tbl, Fonts: f}); !bytes.Equal(got, without) {
		t.Error("an empty footer changes the picture")
	}
}

// TestFooterLabels checks when the footer adds "Source:" and "Chart:".
func TestFooterLabels(t *testing.T) {
	cases := []struct {
		in         chartspec.Footer
		wantCredit string
	}{
		{chartspec.Footer{Source: "Eurostat"}, "Source: Eurostat"},
		{chartspec.Footer{Byline: "Ada"}, "Chart: Ada"},
		{chartspec.Footer{Source: "Eurostat", Byline: "Ada"}, "Source: Eurostat · Chart: Ada"},
		{chartspec.Footer{Source: "Quelle: Destatis", Byline: "By Ada"}, "Quelle: Destatis · By Ada"},
		{chartspec.Footer{Source: "Data: 2024, revised"}, "Data: 2024, revised"},
		{chartspec.Footer{Source: "https://example.org/data"}, "Source: https://example.org/data"},
		{chartspec.Footer{Source: "Note:no space"}, "Source: Note:no space"},
		{chartspec.Footer{Source: "Survey of 1,000 adults: weighted"}, "Source: Survey of 1,000 adults: weighted"},
		{chartspec.Footer{Notes: "only notes"}, ""},
		{chartspec.Footer{Source: "来源：国家统计局"}, "来源：国家统计局"},
		{chartspec.Footer{Source: "स्रोत: भारत की जनगणना"}, "स्रोत: भारत की जनगणना"},
		{chartspec.Footer{Source: "المصدر: البنك الدولي"}, "المصدر: البنك الدولي"},
		{chartspec.Footer{Source: "Fuente de datos: INE"}, "Fuente de datos: INE"},
		{chartspec.Footer{Source: "国家统计局"}, "国家统计局"},
		{chartspec.Footer{Source: "Росстат"}, "Росстат"},
		{chartspec.Footer{Source: "出典：総務省統計局", Byline: "山田"}, "出典：総務省統計局 · 山田"},
		{chartspec.Footer{Source: "2024 census"}, "Source: 2024 census"},
	}
	for _, tc := range cases {
		if _, got := footerText(&tc.in); got != tc.wantCredit {
			t.Errorf("%+v: credit %q, want %q", tc.in, got, tc.wantCredit)
		}
	}
}
