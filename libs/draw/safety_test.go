package draw

import (
	"bytes"
	"encoding/xml"
	"fmt"
	"io"
	"strconv"
	"strings"
	"testing"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// hostile strings a person might put in titles, column names or cells.
func hostile() []string {
	return []string{
		`<script>alert(1)</script>`,
		`"/><image href="http://evil.example/x.png"/><text x="`,
		`'><foreignObject><iframe src="https://evil.example"></iframe></foreignObject>`,
		`]]><!ENTITY x SYSTEM "file:///etc/passwd">&x;`,
		"tab\tnew\nline\r\x00nul\x01\x1f\x7f\u0085 \uFFFE \uFFFF end",
		"bad utf8 \xff\xfe\xed\xa0\x80 end",
		`url(http://evil.example/font.woff) @import "http://evil.example/x.css";`,
		`&amp; &lt; &#x3C; &unknown;`,
	}
}

// everyType is one spec per chart type, mapped onto the hostile table.
func everyType() []*chartspec.Spec {
	var out []*chartspec.Spec
	for _, typ := range []string{"bar", "line", "pie", "scatter", "histogram", "boxplot", "dotplot", "sankey", "radar", "heatmap"} {
		out = append(out, testSpec(typ, nil, nil))
	}
	return out
}

// TestHostileStringsNeverBecomeMarkup puts hostile text in every place a
// person controls and checks the output has exactly the markup we write:
// well-formed, no script, no foreign elements, no external reference, and
// the text comes back as text.
func TestHostileStringsNeverBecomeMarkup(t *testing.T) {
	f := fonts(t)
	for _, bad := range hostile() {
		for _, s := range everyType() {
			s.Style.Title = chartspec.Text{Show: true, Text: bad}
			s.Style.Subtitle = chartspec.Text{Show: true, Text: bad}
			s.Style.XAxisTitle = &chartspec.AxisTitle{Text: bad}
			s.Style.YAxisTitle = &chartspec.AxisTitle{Text: bad}
			s.Style.Labels.Show = true
			s.Style.Legend.Show = chartspec.On
			s.Style.NumberFormat = &chartspec.NumberFormat{Prefix: bad[:min(len(bad), 6)], Suffix: bad}
			s.Style.Palette = []string{bad, "#123456"}
			s.Style.SeriesColors = map[string]string{"c2": bad, bad: bad}
			s.Style.Legend.Position = chartspec.Position{X: bad, Y: bad}
			s.Options = map[string]any{"orientation": bad, "curve": bad, "stack": bad, "colorScale": bad, "nodeSort": bad}
			tbl := table(
				txt("c1", bad, bad, "b"+bad, "plain", bad+"c"),
				txt("c2", "to "+bad, "x", bad, "y", "z"+bad),
				num("c3", bad, 3, 5, 2, 7),
				num("c4", "n "+bad, 1, 4, 6, 2),
			)
			t.Run(s.Type, func(t *testing.T) {
				out, err := SVG(Input{Spec: s, Table: tbl, Fonts: f, Watermark: true})
				if err != nil {
					t.Fatalf("SVG: %v", err)
				}
				checkDocument(t, out)
				checkOnlyOurElements(t, out)
				if !containsText(t, out, strings.ToValidUTF8(strings.Map(keepXMLChar, bad), "\uFFFD")) {
					t.Errorf("hostile title does not come back as text")
				}
			})
		}
	}
}

// keepXMLChar mirrors appendEscaped: whitespace controls become spaces,
// other characters XML forbids disappear.
func keepXMLChar(r rune) rune {
	switch {
	case r == '\t' || r == '\n' || r == '\r':
		return ' '
	case r < 0x20 || r == 0x7F || (r >= 0x80 && r <= 0x9F) || r == 0xFFFE || r == 0xFFFF:
		return -1
	}
	return r
}

// checkOnlyOurElements lists every element and attribute name in the
// document against what this package writes.
func checkOnlyOurElements(t *testing.T, svg []byte) {
	t.Helper()
	elements := map[string]bool{"svg": true, "title": true, "desc": true, "rect": true, "g": true, "path": true, "text": true,
		"tspan": true, "circle": true, "line": true, "clipPath": true, "defs": true, "linearGradient": true, "stop": true, "pattern": true}
	attrs := map[string]bool{"xmlns": true, "version": true, "width": true, "height": true, "viewBox": true, "role": true,
		"aria-labelledby": true, "font-family": true, "font-size": true, "font-weight": true, "id": true, "x": true, "y": true,
		"fill": true, "fill-opacity": true, "stroke": true, "stroke-width": true, "stroke-opacity": true, "stroke-linecap": true,
		"stroke-linejoin": true, "stroke-dasharray": true, "shape-rendering": true, "d": true, "text-anchor": true, "transform": true,
		"cx": true, "cy": true, "r": true, "x1": true, "x2": true, "y1": true, "y2": true, "rx": true, "class": true,
		"clip-path": true, "offset": true, "stop-color": true, "fill-rule": true,
		"paint-order": true, "patternUnits": true, "patternTransform": true, "direction": true}
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var root *xml.StartElement
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			return
		}
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		el, ok := tok.(xml.StartElement)
		if !ok {
			continue
		}
		if root == nil {
			root = &el
		}
		if !elements[el.Name.Local] && !(el.Name.Local == "style" && autoRoot(root)) {
			t.Fatalf("unexpected element <%s>", el.Name.Local)
		}
		for _, a := range el.Attr {
			if !attrs[a.Name.Local] {
				t.Fatalf("unexpected attribute %s=%q on <%s>", a.Name.Local, a.Value, el.Name.Local)
			}
			if strings.Contains(a.Value, "url(") && !strings.HasPrefix(a.Value, "url(#") {
				t.Fatalf("external url in %s=%q", a.Name.Local, a.Value)
			}
			if (a.Name.Local == "fill" || a.Name.Local == "stroke" || a.Name.Local == "stop-color") &&
				!(strings.HasPrefix(a.Value, "#") && len(a.Value) == 7 || a.Value == "none" || strings.HasPrefix(a.Value, "url(#")) {
				t.Fatalf("colour attribute %s=%q is not one we write", a.Name.Local, a.Value)
			}
		}
	}
}

// containsText reports whether any text node (or the title) holds s
// after XML decoding.
func containsText(t *testing.T, svg []byte, s string) bool {
	t.Helper()
	dec := xml.NewDecoder(bytes.NewReader(svg))
	var all strings.Builder
	for {
		tok, err := dec.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("parse: %v", err)
		}
		if cd, ok := tok.(xml.CharData); ok {
			all.Write(cd)
			all.WriteByte('\n')
		}
	}
	return strings.Contains(all.String(), s)
}

// FuzzSVG draws charts whose text and numbers come from the fuzzer; every
// output must be a well-formed document with only our elements, and no
// input may panic. nums is a comma-separated list of number cells, read
// twice: by strconv.ParseFloat straight into a number column (so "NaN",
// "Inf" and overflowing "1e999" reach the drawing as the values a step's
// arithmetic can make), and as CSV data through the data layer (where such
// text makes a text column). One field makes one-value columns.
func FuzzSVG(f *testing.F) {
	for _, h := range hostile() {
		f.Add(h, h, "bar", 3.5, "")
	}
	f.Add("Sales", "Germany", "pie", -1.0, "")
	f.Add("", "", "sankey", 0.0, "")
	for _, typ := range []string{"bar", "line", "pie", "scatter", "histogram", "boxplot", "dotplot", "sankey", "radar", "heatmap"} {
		for _, nums := range []string{"1e98", "1e308,1e308", "-1e308,1e308", "-1.7976931348623157e308,1.7976931348623157e308,5",
			"5e-324,1e-300", "NaN,nan,Infinity,-Inf", "1e999,-1e999,2", "1e15,1.000000000000001e15", "7", "0,-0"} {
			f.Add("Extreme "+typ, "x", typ, 1e308, nums)
		}
	}
	fnts, err := testFonts()
	if err != nil {
		f.Fatal(err)
	}
	types := map[string]bool{"bar": true, "line": true, "pie": true, "scatter": true, "histogram": true, "boxplot": true, "dotplot": true, "sankey": true, "radar": true, "heatmap": true}
	f.Fuzz(func(t *testing.T, title, cell, typ string, v float64, nums string) {
		if !types[typ] {
			typ = "bar"
		}
		s := testSpec(typ, nil, nil)
		s.Style.Title = chartspec.Text{Show: true, Text: title}
		s.Style.Labels.Show = true
		tables := []*dataset.Table{table(txt("c1", title, cell, title, cell+"2"), txt("c2", cell, title, cell, "z"), num("c3", cell, v, 2, v*3), num("c4", title, 1, v, 3))}
		if nums != "" {
			fields := strings.Split(nums, ",")
			if len(fields) > 200 {
				fields = fields[:200]
			}
			a, b, names, to := make([]float64, len(fields)), make([]float64, len(fields)), make([]string, len(fields)), make([]string, len(fields))
			var csv strings.Builder
			csv.WriteString("name,to,a,b\n")
			for i, fl := range fields {
				a[i], _ = strconv.ParseFloat(strings.TrimSpace(fl), 64)
				b[i] = -a[i] * v
				names[i], to[i] = cell+strconv.Itoa(i), "t"+strconv.Itoa(i%3)
				fmt.Fprintf(&csv, "%s,%s,%s,%s\n", names[i], to[i], strings.TrimSpace(fl), strconv.FormatFloat(b[i], 'g', -1, 64))
			}
			tables = append(tables, table(txt("c1", "name", names...), txt("c2", "to", to...), num("c3", "a", a...), num("c4", "b", b...)))
			if parsed, _, err := dataset.Parse(csv.String(), "csv"); err == nil {
				tables = append(tables, parsed)
			}
		}
		for _, tbl := range tables {
			out, err := SVG(Input{Spec: s, Table: tbl, Fonts: fnts})
			if err != nil && !strings.Contains(err.Error(), "needs") {
				t.Fatalf("SVG: %v", err)
			}
			if err != nil {
				continue
			}
			checkDocument(t, out)
			checkOnlyOurElements(t, out)
		}
	})
}

// TestNoExternalReferencesInGoldens double-checks the committed pictures.
func TestNoExternalReferencesInGoldens(t *testing.T) {
	f := fonts(t)
	for _, tc := range goldenCases(f) {
		out, err := SVG(tc.in)
		if err != nil {
			t.Fatalf("%s: %v", tc.name, err)
		}
		checkOnlyOurElements(t, out)
	}
}

// TestEscapeTable pins the escaping rules.
func TestEscapeTable(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{`<a href="x">`, `&lt;a href=&quot;x&quot;&gt;`},
		{`Tom & Jerry's`, `Tom &amp; Jerry&#39;s`},
		{"a\tb\nc", "a b c"},
		{"nul\x00bel\x07", "nulbel"},
		{"bad\xffbyte", "bad\uFFFDbyte"},
		{"東京 🚀", "東京 🚀\uFE0F"},
		{"\uFFFE\uFFFFok", "ok"},
		// issue 32 item 17: a lone emoji asks for its colour form, one
		// that picks its form or belongs to a sequence is kept whole
		{"😀😐😢😡🤷", "😀\uFE0F😐\uFE0F😢\uFE0F😡\uFE0F🤷\uFE0F"},
		{"Mood: 😀 up", "Mood: 😀\uFE0F up"},
		{"😀\uFE0F 😀\uFE0E ⭐", "😀\uFE0F 😀\uFE0E ⭐\uFE0F"},
		{"❤ ☺ 1", "❤ ☺ 1"}, // text presentation by default
		{"👍🏽 🇩🇪 👨\u200d👩\u200d👧 🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F", "👍🏽 🇩🇪 👨\u200d👩\u200d👧 🏴\U000E0067\U000E0062\U000E0065\U000E006E\U000E0067\U000E007F"},
	} {
		if got := string(appendEscaped(nil, tc.in)); got != tc.want {
			t.Errorf("appendEscaped(%q) = %q, want %q", tc.in, got, tc.want)
		}
		if got := string(appendEscaped(nil, []byte(tc.in))); got != tc.want {
			t.Errorf("appendEscaped(%q) = %q, want %q", tc.in, got, tc.want)
		}
	}
}

// TestBadColoursFallBack keeps unparseable colours out of the document.
func TestBadColoursFallBack(t *testing.T) {
	c := newColors([]string{"red", "#12345", "#abc", "#A1B2C3"}, map[string]string{"c1": "javascript:x", "c2": "#0f0"})
	if want := []string{"#AABBCC", "#A1B2C3"}; strings.Join(c.palette, ",") != strings.Join(want, ",") {
		t.Errorf("palette = %v, want %v", c.palette, want)
	}
	if got := c.of("c1", 0); got != "#AABBCC" {
		t.Errorf("bad pinned colour used: %q", got)
	}
	if got := c.of("c2", 0); got != "#00FF00" {
		t.Errorf("pinned #0f0 = %q, want #00FF00", got)
	}
	def := newColors(nil, nil)
	if got := def.of("x", 1); got != defaultPalette()[1] {
		t.Errorf("empty palette falls back to default, got %q", got)
	}
}
