package main

import (
	"bytes"
	"encoding/base64"
	"image/png"
	"strconv"
	"strings"
	"testing"
)

// TestRenderGrowsToNameEveryRow: 50 horizontal bars with no height asked
// for come out taller than 600 px, every row named, and the PNG, the JSON
// form's size and the notices all say the size drawn; with a height
// given the picture keeps it (issue 32 item 5).
func TestRenderGrowsToNameEveryRow(t *testing.T) {
	in := startAll(t)
	c := newClient(t, in.url, in.newAccount(t, "pro"))
	tests := []struct {
		name     string
		height   int // 0: none asked for
		wantTall bool
	}{
		{name: "no height", wantTall: true},
		{name: "height 600", height: 600},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			body := map[string]any{"type": "bar", "data": rowsCSV(50), "ops": []any{horizontal}}
			if tt.height != 0 {
				body["height"] = tt.height
			}
			a := c.doPatient("POST", "/api/v1/render", body)
			if a.status != 200 {
				t.Fatalf("png: %d %s", a.status, a.body)
			}
			cfg, err := png.DecodeConfig(bytes.NewReader(a.body))
			if err != nil {
				t.Fatal(err)
			}
			notices := a.header.Get("X-Chartd-Notices")
			if tt.wantTall != (cfg.Height > 600) || cfg.Width != 800 {
				t.Fatalf("PNG %d×%d (notices %s), want taller than 600: %v", cfg.Width, cfg.Height, notices, tt.wantTall)
			}
			if tt.wantTall != strings.Contains(notices, "grown_to_fit") {
				t.Errorf("notices %s: want grown_to_fit %v", notices, tt.wantTall)
			}
			body["format"] = "svg"
			var js struct {
				Image         string
				Width, Height int
			}
			c.do("POST", "/api/v1/render", body, "Accept", "application/json").json(t, &js)
			img, err := base64.StdEncoding.DecodeString(js.Image)
			if err != nil {
				t.Fatal(err)
			}
			if js.Width != cfg.Width || js.Height != cfg.Height || !bytes.Contains(img, []byte(`height="`+strconv.Itoa(cfg.Height)+`"`)) {
				t.Errorf("JSON form %d×%d, PNG %d×%d: want the same size, the SVG's own", js.Width, js.Height, cfg.Width, cfg.Height)
			}
		})
	}
}
