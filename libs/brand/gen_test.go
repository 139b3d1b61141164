package brand

import (
	"bytes"
	"encoding/binary"
	"flag"
	"image"
	"image/color"
	"image/jpeg"
	"image/png"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// The corpus icons are generated here so they stay reproducible and tiny.
// Regenerate with:
//
//	go test ./libs/brand/ -run TestGenerateFixtures -update-fixtures
//
// logo.webp needs cwebp (Debian package "webp"); the committed file is
// used when it is missing.
var updateFixtures = flag.Bool("update-fixtures", false, "rewrite generated icons under testdata/sites")

func hexColor(s string) color.NRGBA {
	c, _, ok := parseHex([]byte(s[1:]))
	if !ok {
		panic("bad colour " + s)
	}
	return color.NRGBA{c.R, c.G, c.B, 255}
}

// shape paints an image from a function of pixel centre coordinates.
func shape(w, h int, f func(x, y float64) color.NRGBA) *image.NRGBA {
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			img.SetNRGBA(x, y, f(float64(x)+0.5, float64(y)+0.5))
		}
	}
	return img
}

func roundedSquare(w int, radius float64, fill, glyph color.NRGBA) *image.NRGBA {
	n := float64(w)
	return shape(w, w, func(x, y float64) color.NRGBA {
		cx := math.Max(math.Abs(x-n/2)-(n/2-radius), 0)
		cy := math.Max(math.Abs(y-n/2)-(n/2-radius), 0)
		if math.Hypot(cx, cy) > radius {
			return color.NRGBA{}
		}
		if math.Hypot(x-n/2, y-n/2) < n/5 {
			return glyph
		}
		return fill
	})
}

func ringIcon(w int, fill color.NRGBA) *image.NRGBA {
	n := float64(w)
	white := color.NRGBA{255, 255, 255, 255}
	return shape(w, w, func(x, y float64) color.NRGBA {
		d := math.Hypot(x-n/2, y-n/2)
		if d > n*0.22 && d < n*0.32 {
			return white
		}
		return fill
	})
}

// wordmark draws a block mark and "letters" (bars) of fill on bg.
func wordmark(w, h int, fill, bg color.NRGBA) *image.NRGBA {
	return shape(w, h, func(x, y float64) color.NRGBA {
		if x < float64(h) {
			return fill
		}
		col := int(x-float64(h)) / 12
		if int(x)%12 < 8 && y > float64(h)*0.25 && y < float64(h)*0.75 && col%3 != 2 {
			return fill
		}
		return bg
	})
}

func encodePNG(t testing.TB, img image.Image) []byte {
	var b bytes.Buffer
	enc := png.Encoder{CompressionLevel: png.BestCompression}
	if err := enc.Encode(&b, img); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

func encodeJPEG(t testing.TB, img image.Image, q int) []byte {
	var b bytes.Buffer
	if err := jpeg.Encode(&b, img, &jpeg.Options{Quality: q}); err != nil {
		t.Fatal(err)
	}
	return b.Bytes()
}

// icoEntry is one image of an ICO file: PNG bytes or a DIB.
type icoEntry struct {
	w, h int
	bpp  int
	data []byte
}

func buildICO(entries ...icoEntry) []byte {
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	le(uint16(0))
	le(uint16(1))
	le(uint16(len(entries)))
	off := 6 + 16*len(entries)
	for _, e := range entries {
		b.WriteByte(byte(e.w % 256))
		b.WriteByte(byte(e.h % 256))
		b.WriteByte(0)
		b.WriteByte(0)
		le(uint16(1))
		le(uint16(e.bpp))
		le(uint32(len(e.data)))
		le(uint32(off))
		off += len(e.data)
	}
	for _, e := range entries {
		b.Write(e.data)
	}
	return b.Bytes()
}

// dib32 encodes img as a 32-bit BMP entry with alpha and an AND mask.
func dib32(img *image.NRGBA) icoEntry {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	le(uint32(40))
	le(int32(w))
	le(int32(2 * h))
	le(uint16(1))
	le(uint16(32))
	le(uint32(0))
	le(uint32(0))
	le(int32(0))
	le(int32(0))
	le(uint32(0))
	le(uint32(0))
	for y := h - 1; y >= 0; y-- {
		for x := 0; x < w; x++ {
			c := img.NRGBAAt(x, y)
			b.Write([]byte{c.B, c.G, c.R, c.A})
		}
	}
	writeANDMask(&b, img)
	return icoEntry{w, h, 32, b.Bytes()}
}

// dib8 encodes img as an 8-bit paletted BMP entry; transparency is only in
// the AND mask, as in old favicons.
func dib8(img *image.NRGBA) icoEntry {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	var pal []color.NRGBA
	idx := func(c color.NRGBA) int {
		c.A = 255
		for i, p := range pal {
			if p == c {
				return i
			}
		}
		pal = append(pal, c)
		return len(pal) - 1
	}
	rows := make([][]byte, h)
	stride := (w*8 + 31) / 32 * 4
	for y := 0; y < h; y++ {
		rows[y] = make([]byte, stride)
		for x := 0; x < w; x++ {
			c := img.NRGBAAt(x, y)
			if c.A < 128 {
				c = color.NRGBA{0, 0, 0, 255}
			}
			rows[y][x] = byte(idx(c))
		}
	}
	var b bytes.Buffer
	le := func(v any) { _ = binary.Write(&b, binary.LittleEndian, v) }
	le(uint32(40))
	le(int32(w))
	le(int32(2 * h))
	le(uint16(1))
	le(uint16(8))
	le(uint32(0))
	le(uint32(0))
	le(int32(0))
	le(int32(0))
	le(uint32(len(pal)))
	le(uint32(0))
	for _, p := range pal {
		b.Write([]byte{p.B, p.G, p.R, 0})
	}
	for y := h - 1; y >= 0; y-- {
		b.Write(rows[y])
	}
	writeANDMask(&b, img)
	return icoEntry{w, h, 8, b.Bytes()}
}

func writeANDMask(b *bytes.Buffer, img *image.NRGBA) {
	w, h := img.Bounds().Dx(), img.Bounds().Dy()
	stride := (w + 31) / 32 * 4
	for y := h - 1; y >= 0; y-- {
		row := make([]byte, stride)
		for x := 0; x < w; x++ {
			if img.NRGBAAt(x, y).A < 128 {
				row[x/8] |= 0x80 >> (x % 8)
			}
		}
		b.Write(row)
	}
}

// fixtureImages returns the generated corpus icons by path under
// testdata/sites.
func fixtureImages(t testing.TB) map[string][]byte {
	white := color.NRGBA{255, 255, 255, 255}
	green := hexColor("#2E7D32")
	circle := func(w int, fill color.NRGBA) *image.NRGBA {
		n := float64(w)
		return shape(w, w, func(x, y float64) color.NRGBA {
			if math.Hypot(x-n/2, y-n/2) < n*0.45 {
				return fill
			}
			return color.NRGBA{}
		})
	}
	return map[string][]byte{
		"icon-only-png/favicon-32x32.png":               encodePNG(t, roundedSquare(32, 7, hexColor("#F97316"), white)),
		"apple-touch-icon/apple-touch-icon.png":         encodePNG(t, ringIcon(180, hexColor("#00897B"))),
		"jpeg-logo/fileadmin/templates/images/logo.jpg": encodeJPEG(t, wordmark(240, 60, hexColor("#D32F2F"), white), 88),
		"legacy-bmp-ico/favicon.ico":                    buildICO(dib8(circle(16, green)), dib32(circle(32, green))),
		"png-in-ico/favicon.ico": buildICO(icoEntry{48, 48, 32,
			encodePNG(t, roundedSquare(48, 10, hexColor("#0EA5E9"), white))}),
	}
}

// TestFixtureIcons: the committed icons are what the generator draws, so
// the fixtures' expected colours have a known source. -update-fixtures
// rewrites them (and logo.webp, when cwebp is installed).
func TestFixtureIcons(t *testing.T) {
	for name, data := range fixtureImages(t) {
		p := filepath.Join("testdata", "sites", filepath.FromSlash(name))
		if *updateFixtures {
			if err := os.WriteFile(p, data, 0o644); err != nil {
				t.Fatal(err)
			}
			continue
		}
		have, err := os.ReadFile(p)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(have, data) {
			t.Errorf("%s differs from what the generator draws; run with -update-fixtures", name)
		}
	}
	if !*updateFixtures {
		return
	}
	src := filepath.Join(t.TempDir(), "logo.png")
	if err := os.WriteFile(src, webpSource(t), 0o644); err != nil {
		t.Fatal(err)
	}
	out := filepath.Join("testdata", "sites", "webp-logo", "wp-content", "uploads", "2025", "03", "logo.webp")
	if err := exec.Command("cwebp", "-quiet", "-q", "85", "-alpha_q", "100", src, "-o", out).Run(); err != nil {
		t.Logf("cwebp not available (%v); keeping the committed logo.webp", err)
	}
}

// webpSource is the PNG that cwebp turns into webp-logo/logo.webp.
func webpSource(t testing.TB) []byte {
	return encodePNG(t, wordmark(200, 50, hexColor("#00A86B"), color.NRGBA{}))
}
