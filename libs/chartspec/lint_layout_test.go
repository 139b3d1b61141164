package chartspec

import (
	"reflect"
	"testing"

	"chartd.dev/libs/dataset"
)

func TestLayoutProblems(t *testing.T) {
	cut := "the title is cut after 3 lines; make the chart 620 px tall or shorten the title"
	rows := "the 50 categories are named in smaller type to fit; make the chart taller (style size 800×1150) to read them at the usual size"
	cases := []struct {
		name    string
		notices []dataset.Notice
		want    []Problem
	}{
		{name: "none", notices: nil, want: nil},
		{name: "other notices are no problems", notices: []dataset.Notice{{Code: "aggregated", Message: "rows"}, {Code: "grown_to_fit", Message: "taller"}}, want: nil},
		{name: "each needs-room notice is a warn, in order", notices: []dataset.Notice{{Code: NoticeNeedsRoom, Message: cut}, {Code: "aggregated", Message: "x"}, {Code: NoticeNeedsRoom, Message: rows}},
			want: []Problem{
				{ID: CheckNeedsRoom, Level: Warn, Message: "The title is cut after 3 lines; make the chart 620 px tall or shorten the title; setSize changes the chart's size."},
				{ID: CheckNeedsRoom, Level: Warn, Message: "The 50 categories are named in smaller type to fit; make the chart taller (style size 800×1150) to read them at the usual size; setSize changes the chart's size."},
			}},
		// issue 32 item 7: the lint says how many labels were dropped
		{name: "labels left out are a note", notices: []dataset.Notice{{Code: NoticeLabelsHidden, Message: "148 of 180 value labels are left out where they would overlap others"}},
			want: []Problem{{ID: CheckLabelsHidden, Level: Info, Message: "148 of 180 value labels are left out where they would overlap others; setSize gives them room, setLabels with show false takes them off."}}},
		// issue 34: a note with no free place is a warn naming what it covers
		{name: "a note that covers something is a warn", notices: []dataset.Notice{{Code: NoticeNoteCovers, Message: "no free place for a note: “Launch” covers a mark"}},
			want: []Problem{{ID: CheckNoteCovers, Level: Warn, Message: "No free place for a note: “Launch” covers a mark. Give it another place with removeAnnotation and addAnnotation with a position, shorten it, or make room with setSize."}}},
		{name: "an empty message is dropped", notices: []dataset.Notice{{Code: NoticeNeedsRoom}}, want: nil},
	}
	listed := false
	for _, c := range Checks() {
		listed = listed || c.ID == CheckNeedsRoom && c.Level == Warn
	}
	if !listed {
		t.Errorf("Checks() does not list %s as a warn", CheckNeedsRoom)
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			if got := LayoutProblems(tc.notices); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v\nwant %+v", got, tc.want)
			}
		})
	}
}
