package raster

import (
	"os"
	"path/filepath"
	"testing"
)

// scriptGoldens are issue 22's goldens of its second item (scripts drawn
// as boxes, right-to-left titles and legends), SVG goldens of libs/draw
// drawn to PNG at their own size (testdata/png/issue22/name.png).
var scriptGoldens = []string{
	"scripts-languages-bar", "scripts-bitcoin-symbols", "scripts-line-legend",
	"rtl-arabic-grouped", "rtl-hebrew-legend-column", "rtl-hebrew-line", "rtl-arabic-pie-legend-rows",
}

// scriptGoldenPNGs are the TestGoldenPNG cases of scriptGoldens.
func scriptGoldenPNGs() []goldenPNG {
	var out []goldenPNG
	for _, name := range scriptGoldens {
		out = append(out, goldenPNG{name: "issue22/" + name, path: filepath.Join("testdata", "png", "issue22", name+".png"),
			svg: func(t *testing.T) []byte {
				b, err := os.ReadFile(filepath.Join("..", "draw", "testdata", name+".svg"))
				if err != nil {
					t.Fatal(err)
				}
				return b
			}})
	}
	return out
}
