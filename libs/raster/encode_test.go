package raster

import (
	"bytes"
	"context"
	"fmt"
	"image"
	"image/color"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"testing"
)

// TestWasmEncoderMatchesChromium encodes pictures with the page's wasm
// encoder and with Chromium's own (convertToBlob) and holds them to the
// same pixels, exactly, at no more than pngBytesGrowth times the bytes;
// a render that names no encoder is the pool's (Config.Encoder). The
// pictures: a sample of libs/draw's goldens at scales 1 and 2, a
// transparent one (RGBA), and sizes whose rows end off the 16-byte SIMD
// step.
func TestWasmEncoderMatchesChromium(t *testing.T) {
	cfg := smallConfig()
	cfg.Encoder = EncoderWasm
	p := startPool(t, cfg)
	type pic struct {
		name        string
		svg         []byte
		w, h, scale int
		wantOpaque  bool
	}
	pics := []pic{
		{"transparent", fmt.Appendf(nil, squareSVG, 100, 50), 100, 50, 2, false},
		{"odd size", fmt.Appendf(nil, squareSVG, 101, 47), 101, 47, 1, false},
		{"bars", bars30(), 800, 600, 1, true},
		{"bars scale 2", bars30(), 800, 600, 2, true},
	}
	files, err := filepath.Glob("../draw/testdata/*.svg")
	if err != nil || len(files) < 100 {
		t.Fatalf("want libs/draw's golden SVGs, found %d (%v)", len(files), err)
	}
	for i := 0; i < len(files); i += len(files) / 12 {
		svg, err := os.ReadFile(files[i])
		if err != nil {
			t.Fatal(err)
		}
		m := svgSize.FindSubmatch(svg)
		if m == nil {
			t.Fatalf("%s: no width and height on the root", files[i])
		}
		w, _ := strconv.Atoi(string(m[1]))
		h, _ := strconv.Atoi(string(m[2]))
		pics = append(pics, pic{filepath.Base(files[i]), svg, w, h, 1 + i%2, true})
	}
	var wasmBytes, blobBytes int
	for _, pc := range pics {
		t.Run(pc.name, func(t *testing.T) {
			ctx := context.Background()
			j := Job{SVG: pc.svg, Width: pc.w, Height: pc.h, Scale: pc.scale}
			render := func(enc string) []byte {
				j.encoder = enc
				b, err := p.Render(ctx, j)
				if err != nil {
					t.Fatalf("encoder %q: %v", enc, err)
				}
				return b
			}
			wasm, blob, pool := render(EncoderWasm), render(EncoderChromium), render("")
			if !bytes.Equal(pool, wasm) {
				t.Errorf("the pool's encoder (wasm) made a PNG of %d bytes, not the wasm one's %d", len(pool), len(wasm))
			}
			gi, bi := decodePNG(t, wasm), decodePNG(t, blob)
			if gi.Bounds() != bi.Bounds() {
				t.Fatalf("size %v, Chromium's %v", gi.Bounds(), bi.Bounds())
			}
			if diff := firstDiff(gi, bi); diff != "" {
				t.Errorf("the wasm PNG's pixels differ from Chromium's: %s", diff)
			}
			if _, rgb := gi.(*image.RGBA); rgb != pc.wantOpaque {
				t.Errorf("decoded as %T: an opaque picture is written as RGB, a transparent one as RGBA", gi)
			}
			if float64(len(wasm)) > pngBytesGrowth*float64(len(blob)) {
				t.Errorf("wasm PNG %d bytes, Chromium's %d: more than %.1f×", len(wasm), len(blob), pngBytesGrowth)
			}
			wasmBytes += len(wasm)
			blobBytes += len(blob)
		})
	}
	t.Logf("PNG bytes: wasm %d, Chromium %d (%.2f×)", wasmBytes, blobBytes, float64(wasmBytes)/float64(blobBytes))
}

// pngBytesGrowth is how much bigger than Chromium's the wasm encoder's
// PNG may be (issue 37: at most 1.3×).
const pngBytesGrowth = 1.3

// TestPNGWasmRebuilds rebuilds the page's PNG encoder from its sources
// (pngwasm/build.sh, Debian's clang 14 and lld) and holds the checked-in
// png.wasm to the build, byte for byte: the binary is what its sources
// make.
func TestPNGWasmRebuilds(t *testing.T) {
	out := filepath.Join(t.TempDir(), "png.wasm")
	cmd := exec.Command("sh", "pngwasm/build.sh", out)
	if b, err := cmd.CombinedOutput(); err != nil {
		t.Fatalf("pngwasm/build.sh (needs clang-14 and lld: apt-get install clang lld, or tools/ci/render-deps.sh): %v\n%s", err, b)
	}
	built, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	if !bytes.Equal(built, pngWasm) {
		t.Errorf("pngwasm/png.wasm (%d bytes) is not what pngwasm/build.sh makes of its sources (%d bytes): run sh libs/raster/pngwasm/build.sh and commit png.wasm", len(pngWasm), len(built))
	}
}

// firstDiff names the first pixel where a and b differ in NRGBA, or "".
func firstDiff(a, b image.Image) string {
	r := a.Bounds()
	for y := r.Min.Y; y < r.Max.Y; y++ {
		for x := r.Min.X; x < r.Max.X; x++ {
			ga := color.NRGBAModel.Convert(a.At(x, y)).(color.NRGBA)
			gb := color.NRGBAModel.Convert(b.At(x, y)).(color.NRGBA)
			if ga != gb {
				return fmt.Sprintf("at (%d, %d) %v, Chromium's %v", x, y, ga, gb)
			}
		}
	}
	return ""
}
