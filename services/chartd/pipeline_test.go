package main

import (
	"fmt"
	"testing"
)

// TestOverQuotaSkipsChromium: a free account that sends 110 different
// PNG renders gets its 100 pictures and 10 image_limit_reached refusals,
// and Chromium draws at most the 100 it answered: the picture is counted
// before it is rasterized (services/render/pipeline.go).
func TestOverQuotaSkipsChromium(t *testing.T) {
	in := startAll(t)
	c := newClient(t, in.url, in.newAccount(t, "free"))
	before := in.app.raster.Stats().Renders
	ok, refused := 0, 0
	for i := range 110 {
		csv := fmt.Sprintf("Country,Sales\nGermany,%d\nFrance,%d\n", 100+i, 50+i)
		a := c.do("POST", "/api/v1/render", map[string]any{"type": "bar", "data": csv, "format": "png"})
		switch {
		case a.status == 200:
			ok++
		case a.status == 429 && a.errCode(t) == "image_limit_reached":
			refused++
		default:
			t.Fatalf("render %d: answer %d %.300s", i+1, a.status, a.body)
		}
	}
	rasterized := in.app.raster.Stats().Renders - before
	t.Logf("110 renders: %d answered, %d refused, %d rasterized", ok, refused, rasterized)
	if ok != 100 || refused != 10 {
		t.Errorf("answers: %d × 200 and %d × 429, want 100 and 10", ok, refused)
	}
	if rasterized > 100 {
		t.Errorf("%d rasterizations for 100 pictures answered: refused renders ran Chromium", rasterized)
	}
}
