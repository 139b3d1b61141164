package chartspec

import (
	"unicode"
	"unicode/utf8"

	"chartd.dev/libs/dataset"
)

// CheckNeedsRoom is the lint check of text the chart is too small for: a
// title cut after its lines, or categories named in smaller type or only
// every nth. Only drawing measures text, so this check is not made by
// Lint: the chart service asks the render service for the layout's
// notices and turns them into problems with LayoutProblems.
const CheckNeedsRoom = "needs-room"

// NoticeNeedsRoom is the code of the drawing's notice that a chart is too
// small for its text (draw.NoticeNeedsRoom; draw imports this package, so
// the code is repeated here and a render service test holds the two equal).
const NoticeNeedsRoom = "needs_more_room"

// CheckLabelsHidden is the lint check of value labels the drawing left
// out where they would overlap: how many, and which kept theirs.
const CheckLabelsHidden = "labels-hidden"

// NoticeLabelsHidden is the code of the drawing's notice that value labels
// were left out (draw.NoticeLabelsHidden, repeated as NoticeNeedsRoom is).
const NoticeLabelsHidden = "labels_hidden"

// LayoutProblems answers a CheckNeedsRoom warning for each needs_more_room
// notice of a drawing and a CheckLabelsHidden note for each labels_hidden
// one, in order; other notices are not lint problems. Each message is the
// notice's own (it names the size that holds the text, or how many labels
// were dropped), with the op that helps.
func LayoutProblems(notices []dataset.Notice) []Problem {
	var out []Problem
	for _, n := range notices {
		switch {
		case n.Message == "":
		case n.Code == NoticeNeedsRoom:
			out = append(out, Problem{ID: CheckNeedsRoom, Level: Warn, Message: upperFirst(n.Message) + "; setSize changes the chart's size."})
		case n.Code == NoticeNoteCovers:
			out = append(out, Problem{ID: CheckNoteCovers, Level: Warn, Message: upperFirst(n.Message) + ". Give it another place with removeAnnotation and addAnnotation with a position, shorten it, or make room with setSize."})
		case n.Code == NoticeLabelsHidden:
			out = append(out, Problem{ID: CheckLabelsHidden, Level: Info, Message: upperFirst(n.Message) + "; setSize gives them room, setLabels with show false takes them off."})
		}
	}
	return out
}

// upperFirst answers s with its first letter in upper case.
func upperFirst(s string) string {
	r, n := utf8.DecodeRuneInString(s)
	if r == utf8.RuneError {
		return s
	}
	return string(unicode.ToUpper(r)) + s[n:]
}
