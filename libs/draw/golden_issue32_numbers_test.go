package draw

import (
	"chartd.dev/libs/chartspec"
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
	return cases
}
