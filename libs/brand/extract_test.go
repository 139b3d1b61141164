package brand

import (
	"bytes"
	"encoding/base64"
	"errors"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"reflect"
	"strings"
	"sync"
	"testing"
	"time"

	colorful "github.com/lucasb-eyer/go-colorful"
	"golang.org/x/image/bmp"

	"chartd.dev/libs/testserver"
)

func TestErrNoColors(t *testing.T) {
	for name, s := range map[string]Site{
		"empty":       {},
		"plain":       {URL: "https://x.example/", HTML: []byte("<p>hello</p>")},
		"bad images":  {Images: []Image{{Body: []byte("\x89PNG\r\n\x1a\nbroken")}, {Body: []byte{0, 0, 1, 0, 255, 255}}}},
		"transparent": {Stylesheets: []Doc{{Body: []byte("a{color:transparent;background:rgba(0,0,0,.1)}")}}},
	} {
		res, err := Extract(s)
		if !errors.Is(err, ErrNoColors) || len(res.Colors) != 0 {
			t.Errorf("%s: got %v %v", name, res.Colors, err)
		}
	}
	if !strings.Contains(ErrNoColors.Error(), "no brand colours found") {
		t.Errorf("message %q", ErrNoColors)
	}
}

// TestGreysWhenNothingElse: neutrals come back only when there is no
// chromatic colour, and then white last.
func TestGreysWhenNothingElse(t *testing.T) {
	res, err := Extract(Site{HTML: []byte(`<meta name="theme-color" content="#fff"><style>.btn{background:#222}</style>`)})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Colors, []string{"#222222", "#FFFFFF"}) {
		t.Errorf("got %v", res.Colors)
	}
	res, _ = Extract(Site{HTML: []byte(`<meta name="theme-color" content="#fff"><style>.btn{background:#222} a{color:#c00}</style>`)})
	if !reflect.DeepEqual(res.Colors, []string{"#CC0000"}) {
		t.Errorf("got %v", res.Colors)
	}
}

func TestMergeAndLimit(t *testing.T) {
	var css strings.Builder
	css.WriteString(":root{")
	for i := 0; i < 40; i++ {
		c := fromColorful(colorful.Hsl(float64(i*9), 0.8, 0.5)).hex()
		fmt.Fprintf(&css, "--brand-%d:%s;", i, c)
	}
	css.WriteString("}")
	res, err := Extract(Site{Stylesheets: []Doc{{Body: []byte(css.String())}}})
	if err != nil {
		t.Fatal(err)
	}
	checkResult(t, res)
	if len(res.Colors) != MaxColors {
		t.Errorf("got %d colours", len(res.Colors))
	}
	// Two colours ΔE < 10 apart are one; the better-attested one stays.
	res, _ = Extract(Site{HTML: []byte(`<meta name="theme-color" content="#635bff"><style>:root{--accent:#655dfc}</style>`)})
	if !reflect.DeepEqual(res.Colors, []string{"#635BFF"}) {
		t.Errorf("got %v", res.Colors)
	}
}

// TestPureAndDeterministic: Extract never writes to the Site, gives the same
// answer every time, and is safe to run concurrently on one Site (run with
// -race).
func TestPureAndDeterministic(t *testing.T) {
	names := corpusNames(t)
	for _, name := range names {
		s, _ := loadSite(t, name)
		// Give every buffer spare capacity, where a careless lexer would
		// write its sentinel byte.
		s.HTML = withSpare(s.HTML)
		for i := range s.Stylesheets {
			s.Stylesheets[i].Body = withSpare(s.Stylesheets[i].Body)
		}
		before := snapshot(s)
		first, err1 := Extract(s)
		var wg sync.WaitGroup
		results := make([]Result, 4)
		for i := range results {
			wg.Add(1)
			go func() {
				defer wg.Done()
				results[i], _ = Extract(s)
			}()
		}
		wg.Wait()
		for _, r := range results {
			if !reflect.DeepEqual(r, first) {
				t.Errorf("%s: results differ between runs", name)
			}
		}
		if err1 != nil && !errors.Is(err1, ErrNoColors) {
			t.Errorf("%s: %v", name, err1)
		}
		if !reflect.DeepEqual(snapshot(s), before) {
			t.Errorf("%s: Extract modified its input", name)
		}
	}
}

func withSpare(b []byte) []byte {
	out := make([]byte, len(b), len(b)+16)
	copy(out, b)
	full := out[:cap(out)]
	for i := len(b); i < len(full); i++ {
		full[i] = 'Z'
	}
	return out
}

func snapshot(s Site) []string {
	out := []string{string(s.HTML), string(s.HTML[:cap(s.HTML)]), string(s.Manifest)}
	for _, d := range s.Stylesheets {
		out = append(out, string(d.Body[:cap(d.Body)]))
	}
	for _, im := range s.Images {
		out = append(out, string(im.Body))
	}
	return out
}

func solid(w, h int, c color.NRGBA) *image.NRGBA {
	return shape(w, h, func(x, y float64) color.NRGBA { return c })
}

func TestImageFormats(t *testing.T) {
	purple := hexColor("#635BFF")
	img := roundedSquare(48, 8, purple, color.NRGBA{255, 255, 255, 255})

	var gifBuf, bmpBuf bytes.Buffer
	if err := gif.Encode(&gifBuf, img, nil); err != nil {
		t.Fatal(err)
	}
	if err := bmp.Encode(&bmpBuf, solid(8, 8, purple)); err != nil {
		t.Fatal(err)
	}
	svg := `<svg xmlns="http://www.w3.org/2000/svg"><style><![CDATA[ .a { fill: #635BFF } ]]></style><path class="a" d="M0 0"/><path style="fill:#fff" d="M1 1"/></svg>`
	paletted8 := buildICO(dib8(img))
	cases := map[string][]byte{
		"png":       encodePNG(t, img),
		"jpeg":      encodeJPEG(t, solid(16, 16, purple), 95),
		"gif":       gifBuf.Bytes(),
		"bmp":       bmpBuf.Bytes(),
		"ico-png":   buildICO(icoEntry{48, 48, 32, encodePNG(t, img)}),
		"ico-bmp8":  paletted8,
		"ico-bmp32": buildICO(dib8(solid(16, 16, hexColor("#FF0000"))), dib32(img)),
		"svg":       []byte(svg),
		"svg-bom":   append([]byte("\xef\xbb\xbf  "), svg...),
	}
	for name, body := range cases {
		e := newExtractor("")
		e.scanImage(body, "", name, RoleLogo)
		found := false
		for _, s := range e.signals {
			if deltaE(s.c.hex(), "#635BFF") < 3 {
				found = true
			}
		}
		if !found {
			t.Errorf("%s: no purple in %+v", name, e.signals)
		}
	}
	// The transparent corners of the rounded icon are ignored.
	for _, s := range dominant(img) {
		if s.c == (rgb{}) {
			t.Errorf("transparent pixels counted: %+v", s)
		}
	}
}

func TestDataURLIcons(t *testing.T) {
	svg := `<svg xmlns='http://www.w3.org/2000/svg'><rect fill='%230EA5E9' width='10' height='10'/></svg>`
	png := encodePNG(t, solid(8, 8, hexColor("#E11D48")))
	page := `<link rel="icon" href="data:image/svg+xml,` + strings.ReplaceAll(strings.ReplaceAll(svg, "<", "%3C"), ">", "%3E") + `">
<a href="/"><img src="data:image/png;base64,` + base64.StdEncoding.EncodeToString(png) + `" alt="Logo"></a>`
	res, err := Extract(Site{URL: "https://d.example/", HTML: []byte(page)})
	if err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(res.Colors, []string{"#E11D48", "#0EA5E9"}) {
		t.Errorf("got %v", res.Colors)
	}
}

// TestMalformedImages feeds truncated and lying images to the decoders.
func TestMalformedImages(t *testing.T) {
	good := buildICO(dib32(solid(16, 16, hexColor("#FF0000"))))
	bodies := [][]byte{
		good[:10],
		good[:30],
		good[:len(good)-70],
		buildICO(icoEntry{16, 16, 32, []byte("\x89PNG\r\n\x1a\n")}),
		{0, 0, 1, 0, 1, 0, 16, 16, 0, 0, 1, 0, 32, 0, 255, 255, 255, 127, 22, 0, 0, 0},
		func() []byte { // a DIB that claims 1024 rows but has none
			d := dib32(solid(4, 4, hexColor("#FF0000")))
			d.data[8] = 0
			d.data[9] = 8
			return buildICO(d)
		}(),
		[]byte("RIFF\x10\x00\x00\x00WEBPVP8 "),
		[]byte("\xff\xd8\xff\xe0garbage"),
		[]byte("GIF89a"),
		[]byte("BM"),
	}
	for i, b := range bodies {
		e := newExtractor("")
		e.scanImage(b, "image/x-icon", fmt.Sprint(i), RoleFavicon)
	}
	// A huge declared size is refused before decoding.
	if sizeOK(30000, 30000) || !sizeOK(512, 512) {
		t.Error("sizeOK")
	}
}

func TestExtractInlineSVGLogoVariants(t *testing.T) {
	for name, page := range map[string]string{
		"aria-label": `<svg aria-label="Acme logo"><path fill="#ff6600" d=""/></svg>`,
		"logo div":   `<div class="site-logo"><svg><g style="fill: #ff6600"><path d=""/></g></svg></div>`,
		"gradient":   `<a href="/"><svg><linearGradient><stop offset="0" stop-color="#ff6600"/></linearGradient><path fill="url(#g)" d=""/></svg></a>`,
		"self-close": `<a href="/"><svg fill="#ff6600"/></a>`,
	} {
		res, err := Extract(Site{URL: "https://s.example/", HTML: []byte(page)})
		if err != nil || res.Colors[0] != "#FF6600" {
			t.Errorf("%s: %v %v", name, res.Colors, err)
			continue
		}
		if res.Signals[0].Kind != KindSVGLogo {
			t.Errorf("%s: %+v", name, res.Signals[0])
		}
	}
	// An icon SVG in a header, not in the home link, is not a logo.
	res, _ := Extract(Site{URL: "https://s.example/", HTML: []byte(`<header><button><svg><path fill="#ff6600"/></svg></button></header>`)})
	for _, s := range res.Signals {
		if s.Kind == KindSVGLogo {
			t.Errorf("icon read as logo: %+v", s)
		}
	}
}

// TestHostileInputStaysLinear feeds inputs built to make naive parsers
// quadratic; each must finish quickly.
func TestHostileInputStaysLinear(t *testing.T) {
	pace := testserver.MeasurePace()
	big := func(unit string, n int) []byte { return []byte(strings.Repeat(unit, n)) }
	sites := map[string]Site{
		"nested functions": {Stylesheets: []Doc{{Body: append([]byte("a{color:"), big("f(", 200000)...)}}},
		"nested vars":      {Stylesheets: []Doc{{Body: append([]byte("a{color:"), big("var(--a,", 100000)...)}}},
		"long selector":    {Stylesheets: []Doc{{Body: append(big(".btn-primary a,", 100000), "{color:#f00}"...)}}},
		"deep blocks":      {Stylesheets: []Doc{{Body: big("@media x{", 100000)}}},
		"var chain": {Stylesheets: []Doc{{Body: func() []byte {
			var b strings.Builder
			b.WriteString(":root{")
			for i := 0; i < 20000; i++ {
				fmt.Fprintf(&b, "--brand-%d:var(--brand-%d);", i, i+1)
			}
			b.WriteString("}")
			return []byte(b.String())
		}()}}},
		"stray end tags": {HTML: append(big("<div>", 600), big("</span>", 300000)...)},
		"deep svg":       {URL: "https://x.example/", HTML: append([]byte(`<a href="/"><svg>`), big(`<g fill="#f00">`, 200000)...)},
		"many classes":   {HTML: append([]byte(`<a class="`), append(big("c ", 200000), `">`...)...)},
	}
	for name, s := range sites {
		start := time.Now()
		Extract(s)
		Links("https://x.example/", s.HTML)
		if d := time.Since(start); pace.Over(d, 2*time.Second) {
			t.Errorf("%s took %v at %v", name, d, pace)
		}
	}
}
