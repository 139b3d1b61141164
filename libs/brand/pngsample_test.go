package brand

import (
	"bytes"
	"fmt"
	"image"
	"image/color"
	"image/png"
	"io/fs"
	"os"
	"path/filepath"
	"reflect"
	"strings"
	"testing"
)

// pngCases are PNGs of every kind image/png writes (palettes of 1, 2, 4
// and 8 bits with transparency, grey, 16-bit, RGB, RGBA), plus every PNG
// under testdata.
func pngCases(t *testing.T) map[string][]byte {
	t.Helper()
	grad := func(x, y int) color.NRGBA {
		return color.NRGBA{uint8(x * 7), uint8(y * 5), uint8(x*y + 40), uint8(255 - (x+y)%3*100)}
	}
	const w, h = 97, 61
	nrgba := image.NewNRGBA(image.Rect(0, 0, w, h))
	rgba := image.NewRGBA(image.Rect(0, 0, w, h))
	gray := image.NewGray(image.Rect(0, 0, w, h))
	gray16 := image.NewGray16(image.Rect(0, 0, w, h))
	n64 := image.NewNRGBA64(image.Rect(0, 0, w, h))
	for y := 0; y < h; y++ {
		for x := 0; x < w; x++ {
			c := grad(x, y)
			nrgba.SetNRGBA(x, y, c)
			rgba.Set(x, y, color.NRGBA{c.R, c.G, c.B, 255})
			gray.SetGray(x, y, color.Gray{c.G})
			gray16.SetGray16(x, y, color.Gray16{uint16(c.G)<<8 | uint16(c.B)})
			n64.SetNRGBA64(x, y, color.NRGBA64{uint16(c.R) << 8, uint16(c.G)<<8 | 0x7f, uint16(c.B) << 8, 0xffff})
		}
	}
	cases := map[string][]byte{
		"nrgba": encodePNG(t, nrgba), "rgb": encodePNG(t, rgba), "gray": encodePNG(t, gray),
		"gray16": encodePNG(t, gray16), "rgb16": encodePNG(t, n64),
	}
	for _, n := range []int{2, 4, 16, 256} {
		pal := make(color.Palette, n)
		for i := range pal {
			pal[i] = color.NRGBA{uint8(i * 37), uint8(255 - i*11), uint8(i * 3), uint8(255 - i%2*255)}
		}
		m := image.NewPaletted(image.Rect(0, 0, w, h), pal)
		for y := 0; y < h; y++ {
			for x := 0; x < w; x++ {
				m.SetColorIndex(x, y, uint8((x*3+y)%n))
			}
		}
		cases[fmt.Sprintf("paletted%d", n)] = encodePNG(t, m)
	}
	err := filepath.WalkDir("testdata", func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".png") {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			cases[p] = b
		}
		return err
	})
	if err != nil {
		t.Fatal(err)
	}
	return cases
}

// TestSamplePNGMatchesDecode: the sampled decode gives exactly the pixels,
// and so the clusters, that image/png's full decode gives at the same
// stride.
func TestSamplePNGMatchesDecode(t *testing.T) {
	for name, b := range pngCases(t) {
		full, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		at := pixelReader(full)
		steps := []int{1, 2, 3, 7}
		if bd := full.Bounds(); bd.Dx()*bd.Dy() > 4*maxSamples {
			steps = []int{sampleStep(bd.Dx(), bd.Dy())} // the stride extraction uses
		}
		if len(b) > 28 && b[28] == 1 { // interlaced: left to image/png by design
			if _, ok := samplePNG(b, steps[0]); ok {
				t.Errorf("%s: an interlaced PNG was sampled", name)
			}
			continue
		}
		for _, step := range steps {
			s, ok := samplePNG(b, step)
			if !ok {
				t.Errorf("%s: not sampled", name)
				break
			}
			bd := full.Bounds()
			for y := 0; y < bd.Dy(); y += step {
				for x := 0; x < bd.Dx(); x += step {
					r, g, bl, a := at(x, y)
					if a == 0 {
						continue
					}
					if got := s.NRGBAAt(x/step, y/step); got != (color.NRGBA{r, g, bl, a}) {
						t.Fatalf("%s step %d: pixel %d,%d = %v, want %v", name, step, x, y, got, color.NRGBA{r, g, bl, a})
					}
				}
			}
			if got, want := dominantStep(s, 1), dominantStep(full, step); !reflect.DeepEqual(got, want) {
				t.Errorf("%s step %d: clusters %v, want %v", name, step, got, want)
			}
		}
	}
}

// TestSamplePNGRefusesWhatItCannotRead: interlaced, truncated and corrupt
// PNGs are refused (the caller then falls back to image/png).
func TestSamplePNGRefusesWhatItCannotRead(t *testing.T) {
	b := encodePNG(t, solid(40, 40, hexColor("#635BFF")))
	if _, ok := samplePNG(b, 2); !ok {
		t.Fatal("a plain PNG is refused")
	}
	inter := bytes.Clone(b)
	inter[8+8+12] = 1 // IHDR interlace method
	for name, bad := range map[string][]byte{
		"interlaced": inter, "truncated": b[:len(b)/2], "header only": b[:33], "empty": nil,
		"huge": append(append(bytes.Clone(b[:16]), 0, 1, 0, 0, 0, 1, 0, 0), b[24:]...),
	} {
		if _, ok := safeSamplePNG(bad, 2); ok {
			t.Errorf("%s: sampled", name)
		}
	}
}

// FuzzSamplePNG runs the sampling decoder on arbitrary bytes: it may refuse
// them, never panic, and what it reads is what image/png reads.
func FuzzSamplePNG(f *testing.F) {
	f.Add(encodePNG(f, solid(9, 7, hexColor("#635BFF"))))
	pal := image.NewPaletted(image.Rect(0, 0, 13, 5), color.Palette{color.NRGBA{1, 2, 3, 255}, color.NRGBA{200, 0, 9, 0}})
	pal.SetColorIndex(3, 2, 1)
	f.Add(encodePNG(f, pal))
	f.Fuzz(func(t *testing.T, b []byte) {
		s, ok := samplePNG(b, 2)
		if !ok {
			return
		}
		full, err := png.Decode(bytes.NewReader(b))
		if err != nil {
			return // image/png checks CRCs and Adler-32, which sampling skips
		}
		if got, want := dominantStep(s, 1), dominantStep(full, 2); !reflect.DeepEqual(got, want) {
			t.Errorf("clusters %v, want %v", got, want)
		}
	})
}
