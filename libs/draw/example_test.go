package draw_test

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"

	"chartd.dev/charts"
	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/dataset"
	"chartd.dev/libs/draw"
	"chartd.dev/libs/fontstack"
)

// Render draws a spec and its table (after steps) as one self-contained
// SVG, laid out with the metrics of the fonts Chromium draws the PNG with.
// The fonts are loaded once at start and shared by every render.
func ExampleRender() {
	stack, err := fontstack.Find()
	if err != nil {
		panic(err)
	}
	fonts, err := draw.LoadFonts(stack)
	if err != nil {
		panic(err)
	}
	cat, err := charts.Load()
	if err != nil {
		panic(err)
	}
	ops, err := chartspec.NewOps(cat)
	if err != nil {
		panic(err)
	}
	tab, _, err := dataset.Parse("Country,Sales\nGermany,120\nFrance,95\nSpain,60", "csv")
	if err != nil {
		panic(err)
	}
	bar, _ := cat.Type("bar")
	spec, err := ops.Apply(chartspec.New(bar, tab, cat.DefaultPalette().Colors), []json.RawMessage{
		json.RawMessage(`{"op":"setTitle","title":{"text":"Sales by country"}}`),
	}, chartspec.Env{Table: tab})
	if err != nil {
		panic(err)
	}

	r, err := draw.Render(draw.Input{Spec: spec, Table: tab, Width: 640, Height: 400, Fonts: fonts})
	if err != nil {
		panic(err)
	}
	fmt.Println(bytes.HasPrefix(r.SVG, []byte("<svg")), len(r.Notices), "notices")
	// The picture describes itself for screen readers: <title>, then <desc>.
	title := regexp.MustCompile(`<title[^>]*>([^<]*)</title>`).FindSubmatch(r.SVG)
	fmt.Printf("title: %s\n", title[1])

	_, err = draw.Render(draw.Input{Spec: spec, Table: tab, Width: 50, Height: 400, Fonts: fonts})
	fmt.Println(err)
	// Output:
	// true 0 notices
	// title: Sales by country
	// draw: size 50×400: width and height must be 100 to 4000 pixels
}
