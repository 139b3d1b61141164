package brand

import (
	"bytes"
	"compress/flate"
	"encoding/binary"
	"image"
	"io"
)

// samplePNG decodes a non-interlaced PNG to only the pixels dominant
// samples: every step-th pixel of every step-th row, as an image of
// ⌈w/step⌉×⌈h/step⌉. Every row is still inflated and unfiltered (PNG
// filters refer to the row above), but no full-size image is allocated
// or converted, which is most of the cost of a 2–4 MP logo. It answers
// false for what it does not handle (interlaced images), and the caller
// falls back to image/png.
func samplePNG(b []byte, step int) (*image.NRGBA, bool) {
	const sig = "\x89PNG\r\n\x1a\n"
	if !bytes.HasPrefix(b, []byte(sig)) || step < 1 {
		return nil, false
	}
	var (
		w, h              int
		depth, ctype      byte
		interlace         byte
		plte, trns        []byte
		idat              [][]byte
		sawHeader, sawEnd bool
	)
	for p := b[len(sig):]; len(p) >= 12 && !sawEnd; {
		n := int(binary.BigEndian.Uint32(p))
		if n < 0 || n > len(p)-12 {
			return nil, false
		}
		typ, data := string(p[4:8]), p[8:8+n]
		switch typ {
		case "IHDR":
			if n < 13 {
				return nil, false
			}
			w, h = int(binary.BigEndian.Uint32(data)), int(binary.BigEndian.Uint32(data[4:]))
			depth, ctype, interlace = data[8], data[9], data[12]
			sawHeader = true
		case "PLTE":
			plte = data
		case "tRNS":
			trns = data
		case "IDAT":
			idat = append(idat, data)
		case "IEND":
			sawEnd = true
		}
		p = p[12+n:]
	}
	if !sawHeader || interlace != 0 || len(idat) == 0 || !sizeOK(w, h) {
		return nil, false
	}
	var channels int
	switch ctype {
	case 0, 3:
		channels = 1
	case 2:
		channels = 3
	case 4:
		channels = 2
	case 6:
		channels = 4
	default:
		return nil, false
	}
	switch {
	case depth == 8 || depth == 16 && ctype != 3:
	case (depth == 1 || depth == 2 || depth == 4) && (ctype == 0 || ctype == 3):
	default:
		return nil, false
	}
	bitsPP := channels * int(depth)
	bpp := max(1, bitsPP/8) // bytes per complete pixel, for the filters
	rowLen := (w*bitsPP + 7) / 8
	// The zlib stream's 2-byte header is checked and skipped and its
	// Adler-32 trailer left unread: a colour count needs no checksum, and
	// a corrupt stream still fails to inflate.
	src := &chunksReader{chunks: idat}
	var hdr [2]byte
	if _, err := io.ReadFull(src, hdr[:]); err != nil || hdr[0]&0x0f != 8 || (uint16(hdr[0])<<8|uint16(hdr[1]))%31 != 0 || hdr[1]&0x20 != 0 {
		return nil, false
	}
	zr := flate.NewReader(src)
	defer zr.Close()
	ow, oh := (w+step-1)/step, (h+step-1)/step
	out := image.NewNRGBA(image.Rect(0, 0, ow, oh))
	cur, prev := make([]byte, 1+rowLen), make([]byte, 1+rowLen)
	pal := paletteNRGBA(plte, trns)
	for y := 0; y < h; y++ {
		if _, err := io.ReadFull(zr, cur); err != nil {
			return nil, false
		}
		if !unfilter(cur[0], cur[1:], prev[1:], bpp) {
			return nil, false
		}
		if y%step == 0 {
			row := out.Pix[(y/step)*out.Stride:]
			for x, ox := 0, 0; x < w; x, ox = x+step, ox+1 {
				px := row[4*ox : 4*ox+4 : 4*ox+4]
				pixelAt(cur[1:], x, ctype, depth, pal, trns, px)
			}
		}
		cur, prev = prev, cur
	}
	return out, true
}

// chunksReader reads the IDAT chunks' data as one stream.
type chunksReader struct {
	chunks [][]byte
}

func (r *chunksReader) Read(p []byte) (int, error) {
	for len(r.chunks) > 0 && len(r.chunks[0]) == 0 {
		r.chunks = r.chunks[1:]
	}
	if len(r.chunks) == 0 {
		return 0, io.EOF
	}
	n := copy(p, r.chunks[0])
	r.chunks[0] = r.chunks[0][n:]
	return n, nil
}

// unfilter reverses a row's PNG filter in place, given the previous
// (unfiltered) row; it reports false for an unknown filter type.
func unfilter(ft byte, cur, prev []byte, bpp int) bool {
	switch ft {
	case 0:
	case 1:
		for i := bpp; i < len(cur); i++ {
			cur[i] += cur[i-bpp]
		}
	case 2:
		addBytes(cur, prev[:len(cur)])
	case 3:
		for i := 0; i < bpp && i < len(cur); i++ {
			cur[i] += prev[i] / 2
		}
		for i := bpp; i < len(cur); i++ {
			cur[i] += uint8((int(cur[i-bpp]) + int(prev[i])) / 2)
		}
	case 4:
		paethRow(cur, prev, bpp)
	default:
		return false
	}
	return true
}

// addBytes adds src to dst bytewise (mod 256), eight bytes at a time:
// the low seven bits of each byte add without carrying into the next, and
// the top bit is their sum's parity.
func addBytes(dst, src []byte) {
	const lo, hi = 0x7f7f7f7f7f7f7f7f, 0x8080808080808080
	i := 0
	for ; i+8 <= len(dst); i += 8 {
		x, y := binary.LittleEndian.Uint64(dst[i:]), binary.LittleEndian.Uint64(src[i:])
		binary.LittleEndian.PutUint64(dst[i:], (x&lo)+(y&lo)^(x^y)&hi)
	}
	for ; i < len(dst); i++ {
		dst[i] += src[i]
	}
}

// paethRow reverses the Paeth filter, one channel at a time so that the
// left neighbour stays in a register (the loop of image/png's
// filterPaeth, BSD licence, The Go Authors).
func paethRow(cur, prev []byte, bpp int) {
	for i := 0; i < bpp; i++ {
		a, c := 0, 0
		for j := i; j < len(cur); j += bpp {
			b := int(prev[j])
			pa, pb := b-c, a-c
			pc := absInt(pa + pb)
			pa, pb = absInt(pa), absInt(pb)
			switch {
			case pa <= pb && pa <= pc:
			case pb <= pc:
				a = b
			default:
				a = c
			}
			a = (a + int(cur[j])) & 0xff
			cur[j] = uint8(a)
			c = b
		}
	}
}

func absInt(v int) int {
	if v < 0 {
		return -v
	}
	return v
}

// paletteNRGBA turns PLTE and its tRNS alphas into NRGBA entries.
func paletteNRGBA(plte, trns []byte) [][4]byte {
	pal := make([][4]byte, 256)
	for i := 0; i+2 < len(plte) && i/3 < 256; i += 3 {
		a := byte(255)
		if i/3 < len(trns) {
			a = trns[i/3]
		}
		pal[i/3] = [4]byte{plte[i], plte[i+1], plte[i+2], a}
	}
	return pal
}

// pixelAt writes pixel x of an unfiltered row as NRGBA (16-bit samples
// keep their high byte, low bit depths are scaled to 0–255), as image/png
// and color.NRGBAModel would.
func pixelAt(row []byte, x int, ctype, depth byte, pal [][4]byte, trns []byte, px []byte) {
	if depth < 8 {
		per := 8 / int(depth)
		v := row[x/per] >> (8 - int(depth)*(x%per+1)) & (1<<depth - 1)
		if ctype == 3 {
			c := pal[v]
			copy(px, c[:])
			return
		}
		g := v * (255 / (1<<depth - 1))
		a := byte(255)
		if len(trns) >= 2 && uint16(v) == binary.BigEndian.Uint16(trns) {
			a = 0
		}
		px[0], px[1], px[2], px[3] = g, g, g, a
		return
	}
	if ctype == 3 {
		c := pal[row[x]]
		copy(px, c[:])
		return
	}
	bs := int(depth) / 8 // bytes per sample
	s := func(i int) byte { return row[(x*channelsOf(ctype)+i)*bs] }
	key := func(i int) uint16 { // a sample as tRNS states it
		if bs == 2 {
			return binary.BigEndian.Uint16(row[(x*channelsOf(ctype)+i)*2:])
		}
		return uint16(row[x*channelsOf(ctype)+i])
	}
	switch ctype {
	case 0:
		g := s(0)
		a := byte(255)
		if len(trns) >= 2 && key(0) == binary.BigEndian.Uint16(trns) {
			a = 0
		}
		px[0], px[1], px[2], px[3] = g, g, g, a
	case 2:
		a := byte(255)
		if len(trns) >= 6 && key(0) == binary.BigEndian.Uint16(trns) &&
			key(1) == binary.BigEndian.Uint16(trns[2:]) && key(2) == binary.BigEndian.Uint16(trns[4:]) {
			a = 0
		}
		px[0], px[1], px[2], px[3] = s(0), s(1), s(2), a
	case 4:
		g := s(0)
		px[0], px[1], px[2], px[3] = g, g, g, s(1)
	case 6:
		px[0], px[1], px[2], px[3] = s(0), s(1), s(2), s(3)
	}
}

func channelsOf(ctype byte) int {
	switch ctype {
	case 2:
		return 3
	case 4:
		return 2
	case 6:
		return 4
	}
	return 1
}
