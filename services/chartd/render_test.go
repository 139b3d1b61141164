package main

import (
	"bytes"
	"context"
	"encoding/base64"
	"encoding/binary"
	"encoding/xml"
	"image"
	"image/png"
	"io"
	"strings"
	"testing"

	"chartd.dev/libs/quota"
)

// wellFormed fails unless b is one well-formed XML document with an <svg> root.
func wellFormed(t *testing.T, b []byte) {
	t.Helper()
	d := xml.NewDecoder(bytes.NewReader(b))
	root := ""
	for {
		tok, err := d.Token()
		if err == io.EOF {
			break
		}
		if err != nil {
			t.Fatalf("not XML: %v", err)
		}
		if se, ok := tok.(xml.StartElement); ok && root == "" {
			root = se.Name.Local
		}
	}
	if root != "svg" {
		t.Fatalf("root element %q", root)
	}
}

func accountUsage(t *testing.T, c *client) (renders, images int) {
	t.Helper()
	var a struct {
		Renders      struct{ Left int } `json:"renders"`
		ImageRenders struct{ Left int } `json:"image_renders"`
	}
	c.do("GET", "/api/v1/account", nil).json(t, &a)
	return a.Renders.Left, a.ImageRenders.Left
}

func renderScenario(t *testing.T, in instance) {
	pro := newClient(t, in.url, in.newAccount(t, "pro"))
	free := newClient(t, in.url, in.newAccount(t, "free"))
	ch, _ := createChart(t, pro, map[string]any{"type": "bar", "data": salesCSV, "ops": []any{
		map[string]any{"op": "setTitle", "title": map[string]any{"text": `<script>alert(1)</script>"/><image href="http://evil">`}},
	}})

	t.Run("render_chart svg", func(t *testing.T) {
		rendersBefore, _ := accountUsage(t, pro)
		a := pro.do("GET", "/api/v1/charts/"+ch.ID+"/render.svg", nil)
		if a.status != 200 || a.header.Get("Content-Type") != "image/svg+xml" {
			t.Fatalf("%d %s %s", a.status, a.header.Get("Content-Type"), a.body)
		}
		wellFormed(t, a.body)
		body := string(a.body)
		if strings.Contains(body, "<script") || strings.Contains(body, "<image") || strings.Contains(body, "http://evil") && !strings.Contains(body, "&quot;") {
			t.Fatalf("hostile title became markup: %s", body[:min(len(body), 600)])
		}
		if !strings.Contains(body, `role="img"`) || !strings.Contains(body, "<title") || !strings.Contains(body, "<desc") {
			t.Fatal("the picture is not accessible")
		}
		if after, _ := accountUsage(t, pro); after != rendersBefore-1 {
			t.Fatalf("renders left %d → %d", rendersBefore, after)
		}
		a = pro.do("GET", "/api/v1/charts/"+ch.ID+"/render.svg?transparent=true", nil)
		if a.status != 200 {
			t.Fatalf("transparent: %d", a.status)
		}
		for _, bad := range []string{"render.svg?scale=2", "render.svg?scale=3", "render.gif", "render.svg?transparent=maybe", "render.svg?width=300", "render.svg?fonts=maybe"} {
			if a := pro.do("GET", "/api/v1/charts/"+ch.ID+"/"+bad, nil); a.errCode(t) != "invalid_request" {
				t.Fatalf("%s: %d %s", bad, a.status, a.body)
			}
		}
		if a := free.do("GET", "/api/v1/charts/"+ch.ID+"/render.svg", nil); a.status != 404 || a.errCode(t) != "not_found" {
			t.Fatalf("another account: %d", a.status)
		}
	})

	// An SVG answered to a client carries its fonts (DESIGN §7, "SVG
	// fonts"); fonts=system leaves them out; both are one picture.
	t.Run("svg carries its fonts", func(t *testing.T) {
		const face = `@font-face{font-family:'Roboto';font-weight:400;src:url(data:font/woff2;base64,`
		a := pro.do("GET", "/api/v1/charts/"+ch.ID+"/render.svg", nil)
		sys := pro.do("GET", "/api/v1/charts/"+ch.ID+"/render.svg?fonts=system", nil)
		if a.status != 200 || sys.status != 200 {
			t.Fatalf("%d %d", a.status, sys.status)
		}
		wellFormed(t, a.body)
		if !bytes.Contains(a.body, []byte(face)) || !bytes.Contains(a.body, []byte(`@font-face{font-family:'Roboto';font-weight:700;`)) {
			t.Fatalf("no embedded Roboto regular and bold (the title) in %.400s", a.body)
		}
		if bytes.Contains(sys.body, []byte("@font-face")) || len(sys.body) >= len(a.body) {
			t.Fatalf("fonts=system: %d bytes against %d, @font-face %v", len(sys.body), len(a.body), bytes.Contains(sys.body, []byte("@font-face")))
		}
		if csp := a.header.Get("Content-Security-Policy"); !strings.Contains(csp, "font-src data:") || !strings.Contains(csp, "sandbox") {
			t.Errorf("CSP %q: the picture's own fonts must load, nothing else", csp)
		}
		if p := pro.do("GET", "/api/v1/charts/"+ch.ID+"/render.png?fonts=system", nil); p.status != 200 || p.header.Get("Content-Type") != "image/png" {
			t.Errorf("png with fonts=system: %d %s", p.status, p.body)
		}
		_, before := accountUsage(t, pro)
		data := "Team,Goals\nAlpha,3\nBeta,5\nGamma,2\n"
		b := pro.do("POST", "/api/v1/render", map[string]any{"type": "bar", "data": data, "format": "svg"})
		bs := pro.do("POST", "/api/v1/render", map[string]any{"type": "bar", "data": data, "format": "svg", "fonts": "system"})
		if b.status != 200 || bs.status != 200 || !bytes.Contains(b.body, []byte(face)) || bytes.Contains(bs.body, []byte("@font-face")) {
			t.Fatalf("render_image: %d %d, embedded %v, system %v", b.status, bs.status, bytes.Contains(b.body, []byte(face)), bytes.Contains(bs.body, []byte("@font-face")))
		}
		if _, after := accountUsage(t, pro); after != before-1 {
			t.Errorf("image renders left %d → %d: with and without its fonts an SVG is one picture", before, after)
		}
		if e := pro.do("POST", "/api/v1/render", map[string]any{"type": "bar", "data": data, "format": "svg", "fonts": "web"}); e.errCode(t) != "invalid_request" || !strings.Contains(string(e.body), "embedded") {
			t.Errorf("fonts web: %d %s", e.status, e.body)
		}
	})

	t.Run("free pictures carry the service mark", func(t *testing.T) {
		fch, _ := createChart(t, free, map[string]any{"type": "bar", "data": salesCSV})
		a := free.do("GET", "/api/v1/charts/"+fch.ID+"/render.svg", nil)
		b := pro.do("POST", "/api/v1/render", map[string]any{"type": "bar", "data": salesCSV, "format": "svg"})
		if a.status != 200 || b.status != 200 {
			t.Fatalf("%d %d", a.status, b.status)
		}
		if !bytes.Contains(a.body, []byte("chartd")) || bytes.Contains(b.body, []byte(">chartd<")) {
			t.Fatal("service mark: free must have it, pro must not")
		}
	})

	t.Run("render_image", func(t *testing.T) {
		_, imagesBefore := accountUsage(t, pro)
		a := pro.do("POST", "/api/v1/render", map[string]any{"type": "line", "data": "Month,Visits\n2024-01,10\n2024-02,14\n2024-03,9\n", "format": "svg", "width": 640, "height": 360, "name": "visits"})
		if a.status != 200 || !strings.Contains(a.header.Get("Content-Disposition"), `filename=visits.svg`) {
			t.Fatalf("%d %v %s", a.status, a.header, a.body)
		}
		wellFormed(t, a.body)
		if !bytes.Contains(a.body, []byte(`width="640"`)) {
			t.Fatal("width not applied")
		}
		// The same picture again costs nothing; a different one costs one.
		pro.do("POST", "/api/v1/render", map[string]any{"type": "line", "data": "Month,Visits\n2024-01,10\n2024-02,14\n2024-03,9\n", "format": "svg", "width": 640, "height": 360, "name": "visits"})
		if _, after := accountUsage(t, pro); after != imagesBefore-1 {
			t.Fatalf("image renders left %d → %d after one picture twice", imagesBefore, after)
		}
		var js struct {
			Image, Type, Name    string
			Width, Height, Bytes int
		}
		a = pro.do("POST", "/api/v1/render", map[string]any{"type": "pie", "data": [][]any{{"k", "v"}, {"a", 1}, {"b", 2}}, "format": "svg"}, "Accept", "application/json")
		a.json(t, &js)
		img, err := base64.StdEncoding.DecodeString(js.Image)
		if err != nil || js.Type != "image/svg+xml" || js.Bytes != len(img) || js.Width != 800 || js.Height != 600 || js.Name != "chart.svg" {
			t.Fatalf("json form: %+v %v", js, err)
		}
		wellFormed(t, img)
		if _, after := accountUsage(t, pro); after != imagesBefore-2 {
			t.Fatalf("image renders left %d → %d", imagesBefore, after)
		}
	})

	t.Run("png", func(t *testing.T) { pngScenario(t, pro, free, ch.ID) })

	t.Run("render_image from a spec draws what render_chart draws", func(t *testing.T) {
		var g struct {
			Spec map[string]any `json:"spec"`
		}
		pro.do("GET", "/api/v1/charts/"+ch.ID+"?include=spec", nil).json(t, &g)
		a := pro.do("POST", "/api/v1/render", map[string]any{"spec": g.Spec, "format": "svg"})
		b := pro.do("GET", "/api/v1/charts/"+ch.ID+"/render.svg", nil)
		if a.status != 200 || !bytes.Equal(a.body, b.body) {
			t.Fatalf("spec render differs: %d %d bytes vs %d", a.status, len(a.body), len(b.body))
		}
		g.Spec["advanced"] = map[string]any{"vega": true}
		if a := pro.do("POST", "/api/v1/render", map[string]any{"spec": g.Spec, "format": "svg"}); a.errCode(t) != "invalid_request" {
			t.Fatalf("advanced: %s", a.body)
		}
	})

	t.Run("render_image of a type alone draws the type's sample like create_chart", func(t *testing.T) {
		sample, _ := createChart(t, pro, map[string]any{"type": "radar"})
		a := pro.do("POST", "/api/v1/render", map[string]any{"type": "radar", "format": "svg"})
		b := pro.do("GET", "/api/v1/charts/"+sample.ID+"/render.svg", nil)
		if a.status != 200 || b.status != 200 || !bytes.Equal(a.body, b.body) {
			t.Fatalf("sample pictures differ: %d %d", a.status, b.status)
		}
	})

	t.Run("render_image refusals", func(t *testing.T) {
		for _, tc := range []struct {
			body any
			code string
		}{
			{map[string]any{"format": "svg"}, "invalid_request"},
			{map[string]any{"type": "bar", "data": salesCSV, "format": "svg", "width": 50}, "invalid_request"},
			{map[string]any{"type": "bar", "data": salesCSV, "format": "svg", "colour": "red"}, "invalid_request"},
			{map[string]any{"type": "bar", "data": salesCSV, "scale": 4, "width": 1200}, "invalid_request"},
			{map[string]any{"type": "bar", "data": salesCSV, "scale": 3}, "invalid_request"},
			{map[string]any{"type": "bar", "data": salesCSV, "format": "gif"}, "invalid_request"},
			{map[string]any{"type": "bar", "data": salesCSV, "format": "svg", "ops": []any{map[string]any{"op": "setTitle"}}}, "invalid_ops"},
			{map[string]any{"type": "bar", "data": strings.Repeat("1,", 1100) + "1\n" + strings.Repeat(strings.Repeat("1,", 1100)+"1\n", 1000), "format": "svg"}, "too_large"},
		} {
			if a := pro.do("POST", "/api/v1/render", tc.body); a.errCode(t) != tc.code {
				t.Fatalf("%v: %d %s", tc.body, a.status, a.body)
			}
		}
	})

	t.Run("render_template", func(t *testing.T) {
		a := pro.do("POST", "/api/v1/charts/"+ch.ID+"/render", map[string]any{"data": "Profit,Sales,Country\n1,300,Peru\n2,200,Chad\n", "format": "svg"})
		if a.status != 200 {
			t.Fatalf("%d %s", a.status, a.body)
		}
		wellFormed(t, a.body)
		if !bytes.Contains(a.body, []byte("Peru")) || bytes.Contains(a.body, []byte("Germany")) {
			t.Fatal("the picture does not show the sent data")
		}
		a = pro.do("POST", "/api/v1/charts/"+ch.ID+"/render", map[string]any{"data": "Country,Revenue\nPeru,1\n", "format": "svg"})
		if a.errCode(t) != "invalid_request" || !strings.Contains(string(a.body), `\"Sales\"`) || !strings.Contains(string(a.body), `\"Profit\"`) {
			t.Fatalf("missing columns: %s", a.body)
		}
		var sum struct{ Rows int }
		pro.do("GET", "/api/v1/charts/"+ch.ID+"/data/summary", nil).json(t, &sum)
		if sum.Rows != 4 {
			t.Fatal("render_template changed the saved chart")
		}
		if a := pro.do("POST", "/api/v1/charts/"+ch.ID+"/render", map[string]any{"format": "svg"}); a.errCode(t) != "invalid_request" {
			t.Fatalf("no data: %s", a.body)
		}
	})

	t.Run("image allowance", func(t *testing.T) {
		c := newClient(t, in.url, in.newAccount(t, "free"))
		for i := 0; i < 100; i++ {
			a := c.do("POST", "/api/v1/render", map[string]any{"type": "pie", "format": "svg", "data": [][]any{{"k", "v"}, {"a", i + 1}, {"b", 1}}})
			if a.status != 200 {
				t.Fatalf("picture %d: %d %s", i+1, a.status, a.body)
			}
		}
		a := c.do("POST", "/api/v1/render", map[string]any{"type": "pie", "format": "svg", "data": [][]any{{"k", "v"}, {"a", 1000}, {"b", 1}}})
		if a.status != 429 || a.errCode(t) != "image_limit_reached" {
			t.Fatalf("101st picture: %d %s", a.status, a.body)
		}
		if a := c.do("POST", "/api/v1/render", map[string]any{"type": "pie", "format": "svg", "data": [][]any{{"k", "v"}, {"a", 1}, {"b", 1}}}); a.status != 200 {
			t.Fatalf("a picture drawn before must stay free: %d %s", a.status, a.body)
		}
	})

	if in.app != nil {
		t.Run("daily render allowance", func(t *testing.T) {
			c := newClient(t, in.url, in.newAccount(t, "free"))
			fch, _ := createChart(t, c, map[string]any{"type": "bar", "data": salesCSV})
			// Spend 499 of the 500 daily renders directly in the counter.
			owner := accountOf(t, in, c.key)
			if _, err := in.app.counter.Add(context.Background(), "renders:"+owner, quota.Day, 499); err != nil {
				t.Fatal(err)
			}
			if a := c.do("GET", "/api/v1/charts/"+fch.ID+"/render.svg", nil); a.status != 200 {
				t.Fatalf("500th render: %d %s", a.status, a.body)
			}
			if a := c.do("GET", "/api/v1/charts/"+fch.ID+"/render.svg", nil); a.status != 429 || a.errCode(t) != "render_limit_reached" {
				t.Fatalf("501st render: %d %s", a.status, a.body)
			}
		})
	}
}

func TestRenderEmbedded(t *testing.T) {
	renderScenario(t, startAll(t))
}

func TestRenderPostgresRedis(t *testing.T) {
	renderScenario(t, startAll(t, clusterFlags(t)...))
}

// ihdr answers a PNG's size from its header, failing when b is no PNG.
func ihdr(t *testing.T, b []byte) (w, h int) {
	t.Helper()
	if len(b) < 24 || !bytes.Equal(b[:8], []byte("\x89PNG\r\n\x1a\n")) || string(b[12:16]) != "IHDR" {
		t.Fatalf("not a PNG: %q", b[:min(len(b), 24)])
	}
	return int(binary.BigEndian.Uint32(b[16:20])), int(binary.BigEndian.Uint32(b[20:24]))
}

func decodePNG(t *testing.T, b []byte) image.Image {
	t.Helper()
	img, err := png.Decode(bytes.NewReader(b))
	if err != nil {
		t.Fatalf("PNG does not decode: %v", err)
	}
	return img
}

// pngScenario checks PNG through every render endpoint: sizes by scale,
// transparency, the JSON form, the size limit and the free-plan mark.
func pngScenario(t *testing.T, pro, free *client, id string) {
	for _, tc := range []struct {
		query string
		w, h  int
	}{{"", 800, 600}, {"?scale=2", 1600, 1200}, {"?scale=4", 3200, 2400}} {
		a := pro.do("GET", "/api/v1/charts/"+id+"/render.png"+tc.query, nil)
		if a.status != 200 || a.header.Get("Content-Type") != "image/png" {
			t.Fatalf("render.png%s: %d %s %.200s", tc.query, a.status, a.header.Get("Content-Type"), a.body)
		}
		if w, h := ihdr(t, a.body); w != tc.w || h != tc.h {
			t.Fatalf("render.png%s: %d×%d, want %d×%d", tc.query, w, h, tc.w, tc.h)
		}
		if _, _, _, al := decodePNG(t, a.body).At(1, 1).RGBA(); al != 0xffff {
			t.Fatalf("render.png%s: an opaque picture has corner alpha %d", tc.query, al)
		}
	}
	a := pro.do("GET", "/api/v1/charts/"+id+"/render.png?transparent=true", nil)
	if _, _, _, al := decodePNG(t, a.body).At(1, 1).RGBA(); al != 0 {
		t.Fatalf("transparent corner alpha %d, want 0", al)
	}

	// The POST bodies draw PNG by default; JSON gives the size after scale.
	a = pro.do("POST", "/api/v1/render", map[string]any{"type": "bar", "data": salesCSV, "width": 640, "height": 400})
	if w, h := ihdr(t, a.body); a.status != 200 || w != 640 || h != 400 || !strings.Contains(a.header.Get("Content-Disposition"), "chart.png") {
		t.Fatalf("render_image png: %d %d×%d %v", a.status, w, h, a.header)
	}
	var js struct {
		Image, Type, Name    string
		Width, Height, Bytes int
	}
	pro.do("POST", "/api/v1/charts/"+id+"/render", map[string]any{"data": "Profit,Sales,Country\n1,300,Peru\n", "scale": 2, "width": 500, "height": 300}, "Accept", "application/json").json(t, &js)
	raw, err := base64.StdEncoding.DecodeString(js.Image)
	if err != nil || js.Type != "image/png" || js.Width != 1000 || js.Height != 600 || js.Bytes != len(raw) || js.Name != "chart.png" {
		t.Fatalf("json form: %+v %v", js, err)
	}
	if w, h := ihdr(t, raw); w != 1000 || h != 600 {
		t.Fatalf("json image %d×%d", w, h)
	}

	// Past 4,000 pixels a side the answer names the limit.
	a = pro.do("POST", "/api/v1/render", map[string]any{"type": "bar", "data": salesCSV, "width": 1001, "scale": 4})
	if a.errCode(t) != "invalid_request" || !strings.Contains(string(a.body), "4000") {
		t.Fatalf("over the limit: %d %s", a.status, a.body)
	}

	// The free plan's mark is drawn: the same picture on both plans differs
	// only near the bottom right corner, where the mark sits.
	body := map[string]any{"type": "bar", "data": salesCSV}
	fp := decodePNG(t, free.do("POST", "/api/v1/render", body).body)
	pp := decodePNG(t, pro.do("POST", "/api/v1/render", body).body)
	diff, box := 0, image.Rectangle{}
	for y := range 600 {
		for x := range 800 {
			r1, g1, b1, _ := fp.At(x, y).RGBA()
			r2, g2, b2, _ := pp.At(x, y).RGBA()
			if r1 != r2 || g1 != g2 || b1 != b2 {
				diff++
				box = box.Union(image.Rect(x, y, x+1, y+1))
			}
		}
	}
	if diff < 30 || box.Min.X < 400 || box.Min.Y < 500 {
		t.Fatalf("free-plan mark: %d pixels differ in %v; want a visible mark in the bottom right", diff, box)
	}
}
