package draw

import (
	"bytes"
	"context"
	"encoding/base64"
	"errors"
	"os"
	"os/exec"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"
	"time"

	"golang.org/x/image/font/sfnt"

	"chartd.dev/libs/chartspec"
	"chartd.dev/libs/fontstack"
	fontsubset "chartd.dev/libs/subset"
)

// TestUsedFaces: every character of every <text> and <tspan> goes to the
// face that draws it, bold where font-weight says so; title and desc are
// not drawn.
func TestUsedFaces(t *testing.T) {
	f := fonts(t)
	type want struct {
		family string
		bold   bool
		runes  string
	}
	for _, tc := range []struct {
		name string
		svg  string
		want []want
	}{
		{"latin regular and bold",
			`<svg><title>Qz</title><desc>Qz</desc><text x="1">Ab b</text><text font-weight="bold">Ab</text></svg>`,
			[]want{{"Roboto", false, " Ab"}, {"Roboto", true, "Ab"}}},
		{"tspans take and give back weight",
			`<svg><text font-weight="bold">Net <tspan font-weight="normal">gain</tspan> up<tspan x="3">!</tspan></text></svg>`,
			[]want{{"Roboto", false, "agin"}, {"Roboto", true, " !Netpu"}}},
		{"entities are characters",
			`<svg><text>&lt;R&amp;D&gt; &quot;&#39;&#x20AC;&#8364;</text></svg>`,
			[]want{{"Roboto", false, " \"&'<>DR€"}}},
		{"each cluster to the first face that has it",
			`<svg><text>東京 Cairo القاهرة</text></svg>`,
			[]want{{"Roboto", false, " Caior"}, {"DejaVu Sans", false, "القاهرة"}, {"Noto Sans CJK SC", false, "京東"}}},
		{"emoji sequence in the colour face",
			`<svg><text>🚀 Go 👍🏽</text></svg>`,
			[]want{{"Roboto", false, " Go"}, {"Noto Color Emoji", false, "👍🏽🚀"}}},
		{"no text, no faces", `<svg><rect/><textPath>x</textPath></svg>`, nil},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := f.UsedFaces([]byte(tc.svg))
			var norm []want
			for _, ft := range got {
				norm = append(norm, want{ft.Family, ft.Bold, string(ft.Runes)})
				if !slices.IsSorted(ft.Runes) {
					t.Errorf("%s: runes not sorted: %q", ft.Family, string(ft.Runes))
				}
				if ft.Face.Family != ft.Family || ft.Face.Bold != ft.Bold {
					t.Errorf("%s bold=%v: face %s %q bold=%v", ft.Family, ft.Bold, ft.Face.File, ft.Face.Family, ft.Face.Bold)
				}
			}
			for i := range tc.want {
				r := []rune(tc.want[i].runes)
				slices.Sort(r)
				tc.want[i].runes = string(slices.Compact(r))
			}
			if !slices.Equal(norm, tc.want) {
				t.Errorf("got  %+v\nwant %+v", norm, tc.want)
			}
		})
	}
}

// testSubsets is the subsetter of the tests: hb-subset and
// woff2_compress behind a cache, as the render service runs them.
var testSubsets = sync.OnceValues(func() (*fontsubset.Cache, error) {
	tool, err := fontsubset.NewTool(2)
	if err != nil {
		return nil, err
	}
	return fontsubset.NewCache(tool, 64<<20, time.Minute), nil
})

func subsetTool(t testing.TB) *fontsubset.Tool {
	t.Helper()
	tool, err := fontsubset.NewTool(2)
	if err != nil {
		t.Fatal(err)
	}
	return tool
}

func subsets(t testing.TB) *fontsubset.Cache {
	t.Helper()
	c, err := testSubsets()
	if err != nil {
		t.Fatal(err)
	}
	return c
}

var fontFace = regexp.MustCompile(`@font-face\{font-family:'([^']+)';font-weight:(\d+);src:url\(data:font/woff2;base64,([A-Za-z0-9+/=]+)\) format\('woff2'\)\}`)

// embedded is one @font-face of an SVG, its font decoded from WOFF2.
type embedded struct {
	family string
	bold   bool
	font   *sfnt.Font
	size   int // bytes of the WOFF2 file
}

// embeddedFaces reads the @font-face rules of an SVG, decoding each font
// with woff2_decompress (Debian woff2) and parsing it.
func embeddedFaces(t *testing.T, svg []byte) []embedded {
	t.Helper()
	var out []embedded
	for _, m := range fontFace.FindAllSubmatch(svg, -1) {
		woff2, err := base64.StdEncoding.DecodeString(string(m[3]))
		if err != nil {
			t.Fatal(err)
		}
		dir := t.TempDir()
		in := filepath.Join(dir, "f.woff2")
		if err := os.WriteFile(in, woff2, 0o644); err != nil {
			t.Fatal(err)
		}
		if msg, err := exec.Command("woff2_decompress", in).CombinedOutput(); err != nil {
			t.Fatalf("woff2_decompress: %v: %s", err, msg)
		}
		raw, err := os.ReadFile(filepath.Join(dir, "f.ttf"))
		if err != nil {
			t.Fatal(err)
		}
		fnt, err := sfnt.Parse(raw)
		if err != nil {
			t.Fatalf("%s: parse the embedded font: %v", m[1], err)
		}
		out = append(out, embedded{family: string(m[1]), bold: string(m[2]) == "700", font: fnt, size: len(woff2)})
	}
	return out
}

// TestEmbedFontsSubsetsExactlyTheUsedCharacters draws charts, embeds their
// fonts and reads the fonts back: each holds every character its face
// draws and no other (of the characters the whole face has), and the
// drawing is unchanged around the style.
func TestEmbedFontsSubsetsExactlyTheUsedCharacters(t *testing.T) {
	f := fonts(t)
	sub := subsets(t)
	nonLatin := Input{Spec: testSpec("bar", nil, nil), Fonts: f,
		Table: table(txt("c1", "都市", "東京", "北京市", "서울특별시", "القاهرة", "Москва", "🚀 Launch", "São Paulo", "नई दिल्ली"),
			num("c2", "人口", 37400000, 21500000, 9700000, 21300000, 12600000, 500000, 22400000, 32900000))}
	nonLatin.Spec.Style.Title = chartspec.Text{Show: true, Text: "世界の都市 — 人口 🌍"}
	for _, tc := range []struct {
		name     string
		in       Input
		families []string
	}{
		{"bar30", bar30(f), []string{"Roboto", "Roboto"}},
		{"non-latin", nonLatin, []string{"Roboto", "DejaVu Sans", "Noto Sans CJK SC", "Noto Sans Devanagari", "Noto Color Emoji", "Roboto", "Noto Sans CJK SC"}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			svg, err := SVG(tc.in)
			if err != nil {
				t.Fatal(err)
			}
			out, err := f.EmbedFonts(context.Background(), svg, sub)
			if err != nil {
				t.Fatal(err)
			}
			start := bytes.Index(out, []byte("<defs><style>"))
			end := bytes.Index(out, []byte("</style></defs>"))
			if start < 0 || end < start {
				t.Fatalf("no style in %.300s", out)
			}
			primers := out[end+len("</style></defs>"):]
			primers = primers[:bytes.Index(primers, []byte("</g>"))+len("</g>")]
			if n := bytes.Count(primers, []byte("<text ")); n != len(f.UsedFaces(svg)) {
				t.Errorf("%d primers, want one a face: %s", n, primers)
			}
			if rest := append(slices.Clone(out[:start]), out[end+len("</style></defs>")+len(primers):]...); !bytes.Equal(rest, svg) {
				t.Errorf("the drawing changed around the style")
			}
			if !bytes.HasSuffix(out[:start], []byte("</desc>")) {
				t.Errorf("the style is not right after the description")
			}
			used := f.UsedFaces(svg)
			faces := embeddedFaces(t, out)
			var fams []string
			for _, e := range faces {
				fams = append(fams, e.family)
			}
			if len(faces) != len(used) {
				t.Fatalf("%d @font-face rules, want %d (%v)", len(faces), len(used), fams)
			}
			slices.Sort(fams)
			want := slices.Clone(tc.families)
			slices.Sort(want)
			if !slices.Equal(fams, want) {
				t.Errorf("families %v, want %v", fams, want)
			}
			for i, u := range used {
				e := faces[i]
				if e.family != u.Family || e.bold != u.Bold {
					t.Fatalf("rule %d is %s bold=%v, want %s bold=%v", i, e.family, e.bold, u.Family, u.Bold)
				}
				full := fullFace(t, u)
				var buf sfnt.Buffer
				for _, r := range u.Runes {
					if gi, err := e.font.GlyphIndex(&buf, r); err != nil || gi == 0 {
						t.Errorf("%s bold=%v: drawn character %q (%U) has no glyph in the subset", e.family, e.bold, r, r)
					}
				}
				// Every character the whole face has and the text does
				// not use is absent from the subset.
				extra := 0
				for r := rune(0x20); r < 0x3000; r++ {
					if slices.Contains(u.Runes, r) {
						continue
					}
					if gi, _ := full.GlyphIndex(&buf, r); gi == 0 {
						continue
					}
					if gi, _ := e.font.GlyphIndex(&buf, r); gi != 0 {
						extra++
						if extra < 5 {
							t.Errorf("%s bold=%v: unused character %q (%U) is in the subset", e.family, e.bold, r, r)
						}
					}
				}
				t.Logf("%s bold=%v: %d characters, %d bytes WOFF2", e.family, e.bold, len(u.Runes), e.size)
			}
			t.Logf("%d bytes, %d with fonts (+%d)", len(svg), len(out), len(out)-len(svg))
		})
	}
}

// fullFace parses the whole face a subset was cut from.
func fullFace(t *testing.T, u FaceText) *sfnt.Font {
	t.Helper()
	data, err := u.Face.Data()
	if err != nil {
		t.Fatal(err)
	}
	col, err := sfnt.ParseCollection(data)
	if err != nil {
		t.Fatalf("%s: %v", u.Face.File, err)
	}
	fnt, err := col.Font(u.Face.Index)
	if err != nil {
		t.Fatal(err)
	}
	return fnt
}

// TestEmbedFontsNoTextIsUnchanged: a picture without text needs no fonts.
func TestEmbedFontsNoTextIsUnchanged(t *testing.T) {
	svg := []byte(`<svg xmlns="http://www.w3.org/2000/svg"><rect width="1" height="1"/></svg>`)
	out, err := fonts(t).EmbedFonts(context.Background(), svg, failingSubsetter{})
	if err != nil || !bytes.Equal(out, svg) {
		t.Errorf("got %q, %v; want the SVG as it was", out, err)
	}
}

// TestEmbedFontsFailureSaysWhich: a subsetter's failure fails the
// embedding with its cause.
func TestEmbedFontsFailureSaysWhich(t *testing.T) {
	_, err := fonts(t).EmbedFonts(context.Background(), []byte(`<svg><text>x</text></svg>`), failingSubsetter{})
	if err == nil || !strings.Contains(err.Error(), "no subsetter here") {
		t.Errorf("err %v", err)
	}
}

// failingSubsetter fails every subset.
type failingSubsetter struct{}

func (failingSubsetter) Subset(context.Context, fontstack.Face, []rune) ([]byte, error) {
	return nil, errors.New("no subsetter here")
}
