package chartspec

import (
	"fmt"
	"slices"
)

// Lint checks of notes, reference lines and ranges.
const (
	// CheckAnnotationsNotDrawn: the chart's type draws some of its
	// annotations not at all (a reference line kept through setType pie).
	CheckAnnotationsNotDrawn = "annotations-not-drawn"
	// CheckTooManyNotes: more than MaxNotes notes, which compete with the
	// data instead of pointing at it.
	CheckTooManyNotes = "too-many-notes"
	// CheckNoteCovers: a note found no free place and covers a mark or
	// another text. Only drawing knows, so it comes from the drawing's
	// notices (LayoutProblems), like CheckNeedsRoom.
	CheckNoteCovers = "note-covers"
)

// MaxNotes is the most notes a chart carries before the lint asks for fewer.
const MaxNotes = 5

// NoticeNoteCovers is the code of the drawing's notice that a note covers
// something (draw.NoticeNoteCovers, repeated as NoticeNeedsRoom is).
const NoticeNoteCovers = "note_covers"

// annotationChecks are the checks of this file, for Checks.
func annotationChecks() []Check {
	return []Check{
		{CheckAnnotationsNotDrawn, Info, "notes, reference lines or ranges the chart type does not draw (kept through setType); setType back draws them, clearAnnotations removes them"},
		{CheckTooManyNotes, Info, fmt.Sprintf("more than %d notes, which compete with the data; removeAnnotation keeps the ones that tell the story", MaxNotes)},
		{CheckNoteCovers, Warn, "a note with no free place that covers a mark or another text; found by drawing the chart, like needs-room"},
	}
}

// annotations lints the spec's notes, lines and ranges.
func (c *lintCtx) annotations() {
	if msg := AnnotationsNotDrawn(c.spec); msg != "" {
		kind := ""
		for _, a := range c.spec.Annotations {
			if !slices.Contains(AnnotationTypes(a.Type), c.spec.Type) {
				kind = a.Type
				break
			}
		}
		c.add(CheckAnnotationsNotDrawn, Info, "%s. {\"op\":\"setType\",\"type\":%q} draws them again; {\"op\":\"clearAnnotations\"} removes them.",
			upperFirst(msg), AnnotationTypes(kind)[0])
	}
	var notes []int
	for i, a := range c.spec.Annotations {
		if a.Type == KindNote {
			notes = append(notes, i)
		}
	}
	if len(notes) > MaxNotes {
		c.add(CheckTooManyNotes, Info, "The chart has %d notes; more than %d compete with the data instead of pointing at it. Keep the ones that tell the story: {\"op\":\"removeAnnotation\",\"index\":%d} removes the last.",
			len(notes), MaxNotes, notes[len(notes)-1])
	}
}
