package charts

import _ "embed" // the font files below are embedded in the binary

// FontFamily is the first family of the font stack every chart is measured
// and drawn with (libs/fontstack): Roboto, whose figures are tabular (all
// ten digits share one advance, no OpenType feature needed). DejaVu Sans
// follows it and draws what Roboto lacks (Hebrew, the basic Arabic
// letters, arrows, geometric shapes, emoticons); the Noto families after
// them come from Debian packages. SVGs name every family of the stack
// explicitly so Chromium never substitutes another sans-serif.
const FontFamily = "Roboto"

// The embedded faces and their licences, kept as strings so they are
// immutable; Fonts hands out copies.
var (
	//go:embed fonts/Roboto-Regular.ttf
	robotoRegular string
	//go:embed fonts/Roboto-Bold.ttf
	robotoBold string
	//go:embed fonts/LICENSE-Roboto
	robotoLicense string
	//go:embed fonts/DejaVuSans.ttf
	dejavuRegular string
	//go:embed fonts/DejaVuSans-Bold.ttf
	dejavuBold string
	//go:embed fonts/LICENSE-DejaVu
	dejavuLicense string
)

// FontSet is one embedded font family. The embedded families open the font
// stack (libs/fontstack): libs/draw measures text with them and the render
// service installs the same files for Chromium, so measured text is drawn
// text.
type FontSet struct {
	// Family is the family name the faces declare ("Roboto").
	Family string
	// Regular and Bold are TrueType files (bold is drawn with font-weight="bold").
	Regular []byte
	Bold    []byte
	// RegularFile and BoldFile are the faces' file names, for writing them
	// into a fontconfig directory.
	RegularFile string
	BoldFile    string
	// License is the family's licence text, to ship next to the files
	// under the name LicenseFile.
	License     string
	LicenseFile string
}

// Fonts returns the embedded font families in stack order: Roboto (Apache
// 2.0, from Debian's fonts-roboto-unhinted), then DejaVu Sans (from
// fonts-dejavu-core). Each call copies the font bytes (about 2 MB), so
// callers load them once at start.
func Fonts() []FontSet {
	return []FontSet{{
		Family:      FontFamily,
		Regular:     []byte(robotoRegular),
		Bold:        []byte(robotoBold),
		RegularFile: "Roboto-Regular.ttf",
		BoldFile:    "Roboto-Bold.ttf",
		License:     robotoLicense,
		LicenseFile: "LICENSE-Roboto.txt",
	}, {
		Family:      "DejaVu Sans",
		Regular:     []byte(dejavuRegular),
		Bold:        []byte(dejavuBold),
		RegularFile: "DejaVuSans.ttf",
		BoldFile:    "DejaVuSans-Bold.ttf",
		License:     dejavuLicense,
		LicenseFile: "LICENSE-DejaVu.txt",
	}}
}
