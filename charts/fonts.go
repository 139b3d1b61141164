package charts

import _ "embed" // the font files below are embedded in the binary

// FontFamily is the first family of the font stack every chart is measured
// and drawn with (libs/fontstack): DejaVu Sans draws Latin, Greek, Cyrillic,
// Hebrew and the basic Arabic letters; the Noto families that follow it come
// from Debian packages. SVGs name every family of the stack explicitly so
// Chromium never substitutes another sans-serif.
const FontFamily = "DejaVu Sans"

// The DejaVu Sans faces and their licence, kept as strings so they are
// immutable; Fonts hands out copies.
var (
	//go:embed fonts/DejaVuSans.ttf
	fontRegular string
	//go:embed fonts/DejaVuSans-Bold.ttf
	fontBold string
	//go:embed fonts/LICENSE
	fontLicense string
)

// FontSet is the embedded font family, the first of the font stack
// (libs/fontstack): libs/draw measures text with it and the render service
// installs the same files for Chromium, so measured text is drawn text.
type FontSet struct {
	// Family is the family name the faces declare ("DejaVu Sans").
	Family string
	// Regular and Bold are TrueType files (bold is drawn with font-weight="bold").
	Regular []byte
	Bold    []byte
	// RegularFile and BoldFile are the faces' file names, for writing them
	// into a fontconfig directory.
	RegularFile string
	BoldFile    string
	// License is the fonts' licence text, to ship next to the files.
	License string
}

// Fonts returns the embedded font family. Each call copies the font bytes
// (about 1.5 MB), so callers load it once at start.
func Fonts() FontSet {
	return FontSet{
		Family:      FontFamily,
		Regular:     []byte(fontRegular),
		Bold:        []byte(fontBold),
		RegularFile: "DejaVuSans.ttf",
		BoldFile:    "DejaVuSans-Bold.ttf",
		License:     fontLicense,
	}
}
