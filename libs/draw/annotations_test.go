package draw

import (
	"fmt"
	"math"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
)

// monthBars is twelve monthly bars up to 96.
func monthBars(annotations ...chartspec.Annotation) (*chartspec.Spec, *dataset.Table) {
	s := testSpec("bar", nil, nil)
	s.Annotations = annotations
	return s, table(txt("c1", "Month", "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"),
		num("c2", "Visitors", 62, 58, 71, 90, 84, 77, 45, 52, 80, 88, 86, 96))
}

// tickTexts are the texts drawn at the value axis's ticks (anchored end).
var tickText = regexp.MustCompile(`<text x="[\d.]+" y="([\d.]+)" font-size="[\d.]+" fill="#59636E" text-anchor="end">([^<]+)</text>`)

// gridYs are the y of the horizontal gridlines.
var gridPath = regexp.MustCompile(`<path fill="none" stroke="#E6E9ED"[^>]*d="([^"]+)"`)

// refPath is the reference lines' path.
var refPath = regexp.MustCompile(`<path class="reference-lines"[^>]*d="([^"]+)"`)

// TestReferenceLineExtendsScale: a 120 target on data up to 96 shows 120
// on the value axis, and the line lies where the scale puts 120 (on the
// gridline of that tick); with the axis's range fixed at 100 the scale
// stays and the line is left out of the plot.
func TestReferenceLineExtendsScale(t *testing.T) {
	f := fonts(t)
	s, tab := monthBars(refLine("y", chartspec.Number(120), "Target"))
	svg := string(mustSVG(t, Input{Spec: s, Table: tab, Fonts: f}))
	ticks := map[string]float64{}
	for _, m := range tickText.FindAllStringSubmatch(svg, -1) {
		y, _ := strconv.ParseFloat(m[1], 64)
		ticks[m[2]] = y
	}
	if _, ok := ticks["120"]; !ok {
		t.Fatalf("the value axis does not reach 120: ticks %v", ticks)
	}
	line := refPath.FindStringSubmatch(svg)
	if line == nil {
		t.Fatal("no reference line drawn")
	}
	grid := gridPath.FindStringSubmatch(svg)
	if grid == nil {
		t.Fatal("no gridlines")
	}
	lineY := pathYs(line[1])
	gridY := pathYs(grid[1])
	if len(lineY) != 1 || len(gridY) == 0 {
		t.Fatalf("line ys %v, grid ys %v", lineY, gridY)
	}
	// the top gridline is the 120 tick: the line lies on it (grid lines
	// are put on the pixel grid, half a pixel off at most)
	if d := math.Abs(lineY[0] - slicesMin(gridY)); d > 0.5 {
		t.Errorf("the 120 line at y %.2f, the 120 gridline at %.2f", lineY[0], slicesMin(gridY))
	}

	fixed, tab := monthBars(refLine("y", chartspec.Number(120), "Target"))
	hundred := 100.0
	fixed.Style.YAxis = &chartspec.Axis{Max: &hundred}
	svg = string(mustSVG(t, Input{Spec: fixed, Table: tab, Fonts: f}))
	if strings.Contains(svg, `text-anchor="end">120<`) {
		t.Error("a fixed 0–100 axis was extended to 120")
	}
	if m := refPath.FindStringSubmatch(svg); m != nil && strings.Contains(m[1], "M") {
		t.Errorf("a line beyond a fixed range is drawn: %s", m[1])
	}
}

// pathYs reads the y of each "Mx y" move of a path.
func pathYs(d string) []float64 {
	var out []float64
	for _, m := range regexp.MustCompile(`M[\d.]+ ([\d.]+)`).FindAllStringSubmatch(d, -1) {
		y, _ := strconv.ParseFloat(m[1], 64)
		out = append(out, y)
	}
	return out
}

func slicesMin(vs []float64) float64 {
	m := math.Inf(1)
	for _, v := range vs {
		m = math.Min(m, v)
	}
	return m
}

// TestMeanAndMedianLabels: the label states the computed value in the
// chart's number format.
func TestMeanAndMedianLabels(t *testing.T) {
	f := fonts(t)
	for _, tc := range []struct {
		name string
		vals []float64
		nf   *chartspec.NumberFormat
		line chartspec.Annotation
		want string
	}{
		{"mean", []float64{80, 90, 96.4}, nil, refLine("y", chartspec.Word("mean"), ""), ">Mean 88.8<"},
		{"median with a label", []float64{3, 1, 2, 10}, nil, refLine("y", chartspec.Word("median"), "Typical"), ">Typical 2.5<"},
		{"mean with a unit", []float64{1000, 2000}, &chartspec.NumberFormat{Prefix: "$"}, refLine("y", chartspec.Word("mean"), ""), ">Mean $1,500<"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s := testSpec("bar", nil, nil)
			s.Style.NumberFormat = tc.nf
			s.Annotations = []chartspec.Annotation{tc.line}
			names := make([]string, len(tc.vals))
			for i := range names {
				names[i] = fmt.Sprintf("C%d", i)
			}
			svg := string(mustSVG(t, Input{Spec: s, Table: table(txt("c1", "Name", names...), num("c2", "Value", tc.vals...)), Fonts: f}))
			if !strings.Contains(svg, tc.want) {
				t.Errorf("no %s in the picture", tc.want)
			}
		})
	}
}

// TestNoteQuotesItsValue: {value} in a note is its point's value in the
// chart's number format.
func TestNoteQuotesItsValue(t *testing.T) {
	s, tab := monthBars(note("Peak: {value}", chartspec.Word("Dec"), ""))
	s.Style.NumberFormat = &chartspec.NumberFormat{Prefix: "$", Suffix: "k"}
	svg := string(mustSVG(t, Input{Spec: s, Table: tab, Fonts: fonts(t)}))
	if !strings.Contains(svg, ">Peak: $96k<") {
		t.Errorf("the note does not quote $96k")
	}
}

// TestNoteStandsOnItsLabel: a note on a bar whose value is labelled (a
// highlight names what it keeps, setLabels every bar) stands on the label,
// close and without a connector, instead of a connector striking the
// label through.
func TestNoteStandsOnItsLabel(t *testing.T) {
	textY := regexp.MustCompile(`<text x="([\d.]+)" y="([\d.]+)"[^>]*>([^<]+)</text>`)
	for _, tc := range []struct {
		name   string
		labels bool
	}{{"highlight", false}, {"setLabels", true}} {
		t.Run(tc.name, func(t *testing.T) {
			s, tab := monthBars(note("Best month", chartspec.Word("Dec"), ""))
			if tc.labels {
				s.Style.Labels.Show = true
			} else {
				s.Highlight = &chartspec.Highlight{Categories: []string{"Dec"}}
			}
			svg := string(mustSVG(t, Input{Spec: s, Table: tab, Fonts: fonts(t)}))
			ann := svg[strings.Index(svg, `<g class="annotations">`):]
			if strings.Contains(ann[:strings.Index(ann, "</g>")], "<circle") {
				t.Errorf("the note is joined to its bar by a connector across the label")
			}
			var ly, ny float64
			for _, m := range textY.FindAllStringSubmatch(svg, -1) {
				y, _ := strconv.ParseFloat(m[2], 64)
				switch m[3] {
				case "96":
					ly = y
				case "Best month":
					ny = y
				}
			}
			switch {
			case ly == 0 || ny == 0:
				t.Fatalf("label at %g, note at %g", ly, ny)
			case ny >= ly || ly-ny > 30:
				t.Errorf("the note (y %g) does not stand just above the label (y %g)", ny, ly)
			}
		})
	}
}

// TestAnnotationLayers: ranges lie behind the gridlines, lines above
// them and below the marks, notes and labels over everything.
func TestAnnotationLayers(t *testing.T) {
	f := fonts(t)
	s, tab := monthBars(band("x", chartspec.Word("Jun"), chartspec.Word("Aug"), "Summer"),
		refLine("y", chartspec.Number(70), "Target"), note("Record", chartspec.Word("Dec"), ""))
	svg := string(mustSVG(t, Input{Spec: s, Table: tab, Fonts: f}))
	order := []string{`<g class="ranges"`, `stroke="#E6E9ED"`, `class="reference-lines"`, `<g fill="#`, `<g class="annotations">`}
	last := -1
	for _, mark := range order {
		i := strings.Index(svg, mark)
		if i < 0 {
			t.Fatalf("no %s in the picture", mark)
		}
		if i < last {
			t.Errorf("%s comes before what should lie under it", mark)
		}
		last = i
	}
}

// noteBoxes draws in and answers each note's box, every other box the
// notes had to keep clear of, and the notices.
func noteBoxes(t *testing.T, in Input) (notes, others []box, c *canvas) {
	t.Helper()
	scripts := countScripts(in.Spec, in.Table)
	w, h := in.Spec.Style.Dimensions()
	c, err := drawOnce(in, &scripts, w, h, "")
	if err != nil {
		t.Fatal(err)
	}
	g := c.story.taken
	for i, b := range g.boxes {
		if g.kinds[i] == obstNote {
			notes = append(notes, b)
		} else if g.segOf[i] == 0 {
			others = append(others, b)
		}
	}
	return notes, others, c
}

// TestNotesKeepClear: on every golden with notes, each note lies inside
// the plot, clear of every mark, label and other note, and no notice
// says one covers something.
func TestNotesKeepClear(t *testing.T) {
	f := fonts(t)
	for _, tc := range annotationCases(f) {
		if !strings.HasPrefix(tc.name, "notes-") && tc.name != "story-bar30" {
			continue
		}
		t.Run(tc.name, func(t *testing.T) {
			notes, others, c := noteBoxes(t, tc.in)
			if len(notes) != len(c.story.notes) {
				t.Fatalf("%d notes placed of %d", len(notes), len(c.story.notes))
			}
			for _, n := range c.notices {
				if n.Code == NoticeNoteCovers {
					t.Errorf("notice: %s", n.Message)
				}
			}
			pl := c.story.f.plot
			for i, a := range notes {
				if !inBox(a, box{pl.x, pl.y, pl.right(), pl.bottom()}) {
					t.Errorf("note %d at %v leaves the plot %v", i, a, pl)
				}
				for j, b := range notes[i+1:] {
					if a.overlaps(b, 0) {
						t.Errorf("notes %d and %d overlap: %v %v", i, i+1+j, a, b)
					}
				}
				for _, b := range others {
					if a.overlaps(b, 0) {
						t.Errorf("note %d at %v covers %v", i, a, b)
					}
				}
			}
		})
	}
}

// TestNoteWithoutRoomSaysSo: notes crowded onto three bars still draw,
// and the notice (which the lint repeats) names what each covers.
func TestNoteWithoutRoomSaysSo(t *testing.T) {
	f := fonts(t)
	s := testSpec("bar", nil, nil)
	s.Style.Size = "300×200"
	for i := 0; i < 12; i++ {
		s.Annotations = append(s.Annotations, note(fmt.Sprintf("A rather long note number %d", i), chartspec.Word("B"), ""))
	}
	in := Input{Spec: s, Table: table(txt("c1", "Name", "A", "B", "C"), num("c2", "Value", 3, 5, 4)), Fonts: f}
	r, err := Render(in)
	if err != nil {
		t.Fatal(err)
	}
	if n := strings.Count(string(r.SVG), "A rather long note"); n < 12 {
		t.Errorf("%d of 12 notes drawn", n)
	}
	var msg string
	for _, n := range r.Notices {
		if n.Code == NoticeNoteCovers {
			msg = n.Message
		}
	}
	if !strings.Contains(msg, "“A rather long note number 11” covers") {
		t.Errorf("notice %q does not name the last note and what it covers", msg)
	}
}

// TestNotesDeterministicAndLinear: the same chart gives the same picture,
// and placing four times the notes among four times the marks costs
// about four times the box tests, not sixteen (nothing quadratic).
func TestNotesDeterministicAndLinear(t *testing.T) {
	f := fonts(t)
	in := storyBar30(f)
	a, b := mustSVG(t, in), mustSVG(t, in)
	if string(a) != string(b) {
		t.Error("the same chart drew two pictures")
	}
	cost := func(n int) int {
		in := manyNotes(f, n)
		_, _, c := noteBoxes(t, in)
		return c.story.taken.checks
	}
	small, large := cost(100), cost(400)
	if small == 0 || large > 8*small {
		t.Errorf("box tests: %d for 100 notes on 100 bars, %d for 400 on 400 (quadratic is 16×)", small, large)
	}
}

// manyNotes is n bars with a note on each, on a canvas that grows with n.
func manyNotes(f *Fonts, n int) Input {
	names := make([]string, n)
	vals := make([]float64, n)
	s := testSpec("bar", nil, nil)
	for i := range names {
		names[i] = fmt.Sprintf("R%d", i)
		vals[i] = float64(50 + (i*37)%50)
		s.Annotations = append(s.Annotations, note("n"+strconv.Itoa(i), chartspec.Word(names[i]), ""))
	}
	s.Style.Size = chartspec.FormatSize(min(4000, 10*n), 600)
	return Input{Spec: s, Table: table(txt("c1", "Row", names...), num("c2", "Value", vals...)), Fonts: f}
}

// BenchmarkBar30Story is the 30-bar chart with five notes, a reference
// line and a range (issue 34's target: 100 µs).
func BenchmarkBar30Story(b *testing.B) { benchDraw(b, storyBar30(fonts(b))) }

// BenchmarkBar30StoryPlain is the same chart without its notes, line and
// range: the yardstick the story is compared with.
func BenchmarkBar30StoryPlain(b *testing.B) {
	in := storyBar30(fonts(b))
	in.Spec.Annotations = nil
	benchDraw(b, in)
}

// BenchmarkNotes100 places 100 notes on 100 bars (target: 2 ms).
func BenchmarkNotes100(b *testing.B) { benchDraw(b, manyNotes(fonts(b), 100)) }
