package render

import (
	"testing"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/draw"
)

// TestNoticeCodesAgree: lint turns the drawing's needs_more_room notices
// into needs-room problems by code; chartspec repeats draw's code (draw
// imports chartspec), so the two must stay equal.
func TestNoticeCodesAgree(t *testing.T) {
	if chartspec.NoticeNeedsRoom != draw.NoticeNeedsRoom {
		t.Fatalf("chartspec.NoticeNeedsRoom %q, draw.NoticeNeedsRoom %q", chartspec.NoticeNeedsRoom, draw.NoticeNeedsRoom)
	}
	if chartspec.NoticeLabelsHidden != draw.NoticeLabelsHidden {
		t.Fatalf("chartspec.NoticeLabelsHidden %q, draw.NoticeLabelsHidden %q", chartspec.NoticeLabelsHidden, draw.NoticeLabelsHidden)
	}
}
