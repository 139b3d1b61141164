package brand

import (
	"bytes"
	"encoding/binary"
	"fmt"
	"image"
	"image/color"
	"image/gif"
	"image/jpeg"
	"image/png"
	"math"
	"sort"
	"strings"

	"golang.org/x/image/bmp"
	"golang.org/x/image/webp"
)

// Decoding limits. Icons and logos are small; a 1 MiB PNG can still claim
// to be 30000×30000, so dimensions are checked before decoding.
const (
	maxImageSide   = 8192
	maxImagePixels = 4 << 20
	maxSamples     = 16384 // pixels sampled for clustering
	clusterK       = 6
	minShare       = 0.05 // clusters below this share of opaque pixels are edges and noise
	whiteFloor     = 245  // a pixel with every channel at least this is white (embeddedClusters)
)

// imageWeight is the base weight of an image's colours by role.
func imageWeight(r Role) (Kind, float64) {
	switch r {
	case RoleLogo:
		return KindLogoImage, 8
	case RoleAppleTouchIcon:
		return KindAppleTouchIcon, 5
	case RoleHero:
		return KindHeroImage, 3
	default:
		return KindFavicon, 5
	}
}

// scanImage adds the dominant colours of an icon or logo. Unreadable
// images are skipped.
func (e *extractor) scanImage(body []byte, ctype, src string, r Role) {
	if len(body) == 0 {
		return
	}
	k, base := imageWeight(r)
	if isSVG(body, ctype) {
		p := &palette{}
		e.svgPaint(body, p)
		p.mergeNear()
		_, sum := p.total()
		shares := make([]float64, len(p.c))
		for i := range p.c {
			shares[i] = p.area[i] / sum
		}
		ws := markWeights(p.c, shares, shares, base)
		for i, c := range p.c {
			e.addMark(c, k, src, fmt.Sprintf("%s SVG fill, %d use(s), %.0f%% of the painted area", src, p.n[i], shares[i]*100), ws[i], true)
		}
		return
	}
	cls, ok := e.rasterClusters(body)
	if !ok {
		return
	}
	cs, shares, flats := make([]rgb, len(cls)), make([]float64, len(cls)), make([]float64, len(cls))
	for i, cl := range cls {
		cs[i], shares[i], flats[i] = cl.c, cl.share, cl.flat
	}
	// A gradient's spread of shades counts by the pixels of its one
	// colour, as a flat fill does: a logo's flat navy is its colour more
	// than the many teals of a gradient that together cover more pixels.
	ws := markWeights(cs, shares, flats, base)
	for i, cl := range cls {
		where := fmt.Sprintf("%s %.0f%% of pixels, %.0f%% flat", src, cl.share*100, cl.flat*100)
		e.addMark(cl.c, k, src, where, ws[i], cl.isFlat())
	}
}

// svgPaint adds an SVG's painted shapes and the rasters it embeds to p.
func (e *extractor) svgPaint(doc []byte, p *palette) {
	d := parseSVG(doc)
	d.paint(p)
	d.paintImages(p, embeddedClusters)
}

// markFullShare is the share of an image its main chromatic colour needs
// to count fully.
const markFullShare = 0.25

// markWeights weighs an image's colours: its main chromatic colour counts
// the role's full weight, however many other colours the mark has (a
// three-colour logo's main colour is no less the brand's than a
// one-colour logo's); the others count by the square root of their
// share relative to it. Which colour is main, and the relative shares,
// come from rel (a raster's flat shares, an SVG's painted areas); the
// size of the chromatic part from shares. A chromatic part smaller than
// markFullShare of the image counts less: a grey mark with a small
// coloured dot is not a coloured mark.
func markWeights(cs []rgb, shares, rel []float64, base float64) []float64 {
	maxC, maxR := 0.0, 0.0
	for i, c := range cs {
		if toneOf(c.lab()) == chromatic {
			maxC = math.Max(maxC, shares[i])
			maxR = math.Max(maxR, rel[i])
		}
	}
	ws := make([]float64, len(cs))
	for i := range cs {
		if maxC == 0 || maxR == 0 {
			ws[i] = base * math.Sqrt(shares[i])
			continue
		}
		ws[i] = base * math.Sqrt(math.Min(1, rel[i]/maxR)) * math.Sqrt(math.Min(1, maxC/markFullShare))
	}
	return ws
}

func isSVG(body []byte, ctype string) bool {
	if strings.Contains(strings.ToLower(ctype), "svg") {
		return true
	}
	head := body
	if len(head) > 1024 {
		head = head[:1024]
	}
	head = trimSpace(bytes.TrimPrefix(head, []byte("\xef\xbb\xbf")))
	return len(head) > 0 && head[0] == '<' && containsFold(head, "<svg")
}

// rasterClusters answers an image's dominant colours. The same bytes
// fetched twice (a logo that is also the favicon) are decoded once. A
// large PNG is decoded to only the pixels dominant samples (samplePNG),
// with the same result as decoding it whole.
func (e *extractor) rasterClusters(body []byte) ([]cluster, bool) {
	for _, r := range e.rasters {
		if bytes.Equal(r.body, body) {
			return r.cls, r.ok
		}
	}
	cls, ok := decodeClusters(body)
	e.rasters = append(e.rasters, rasterMemo{body, cls, ok})
	return cls, ok
}

// rasterMemo is one decoded image's answer, for rasterClusters.
type rasterMemo struct {
	body []byte
	cls  []cluster
	ok   bool
}

func decodeClusters(body []byte) (cls []cluster, ok bool) {
	return decodeClustersOn(body, false)
}

// embeddedClusters answers the dominant colours of a raster an SVG embeds,
// its white left out as an SVG's white paints are (svgDoc.paint): white
// is the ground the mark sits on, and counted it would push a
// wordmark logo's small coloured parts under minShare.
func embeddedClusters(body []byte) ([]cluster, bool) {
	return decodeClustersOn(body, true)
}

// decodeClustersOn decodes a raster and answers its dominant colours,
// without its white pixels when skipWhite.
func decodeClustersOn(body []byte, skipWhite bool) (cls []cluster, ok bool) {
	if bytes.HasPrefix(body, []byte("\x89PNG\r\n\x1a\n")) {
		if cfg, err := png.DecodeConfig(bytes.NewReader(body)); err == nil && sizeOK(cfg.Width, cfg.Height) {
			if step := sampleStep(cfg.Width, cfg.Height); step > 1 {
				if img, ok := safeSamplePNG(body, step); ok {
					return dominantOf(img, 1, skipWhite), true
				}
			}
		}
	}
	img, ok := decodeRaster(body)
	if !ok {
		return nil, false
	}
	b := img.Bounds()
	return dominantOf(img, sampleStep(b.Dx(), b.Dy()), skipWhite), true
}

// safeSamplePNG is samplePNG on hostile bytes: a panic is a skip, and the
// caller falls back to image/png, which then refuses them.
func safeSamplePNG(body []byte, step int) (img *image.NRGBA, ok bool) {
	defer func() {
		if recover() != nil {
			img, ok = nil, false
		}
	}()
	return samplePNG(body, step)
}

// sampleStep is the sampling stride that keeps an image's samples within
// maxSamples.
func sampleStep(w, h int) int {
	step := 1
	for (w/step)*(h/step) > maxSamples {
		step++
	}
	return step
}

// decodeRaster sniffs and decodes PNG, JPEG, GIF, WebP, BMP and ICO/CUR.
// Decoders run on hostile bytes, so a panic in one is turned into a skip.
func decodeRaster(b []byte) (img image.Image, ok bool) {
	defer func() {
		if recover() != nil {
			img, ok = nil, false
		}
	}()
	type codec struct {
		config func([]byte) (image.Config, error)
		decode func([]byte) (image.Image, error)
	}
	wrap := func(cf func(r *bytes.Reader) (image.Config, error), df func(r *bytes.Reader) (image.Image, error)) codec {
		return codec{
			func(b []byte) (image.Config, error) { return cf(bytes.NewReader(b)) },
			func(b []byte) (image.Image, error) { return df(bytes.NewReader(b)) },
		}
	}
	var c codec
	switch {
	case bytes.HasPrefix(b, []byte("\x89PNG\r\n\x1a\n")):
		c = wrap(func(r *bytes.Reader) (image.Config, error) { return png.DecodeConfig(r) },
			func(r *bytes.Reader) (image.Image, error) { return png.Decode(r) })
	case bytes.HasPrefix(b, []byte("\xff\xd8\xff")):
		c = wrap(func(r *bytes.Reader) (image.Config, error) { return jpeg.DecodeConfig(r) },
			func(r *bytes.Reader) (image.Image, error) { return jpeg.Decode(r) })
	case bytes.HasPrefix(b, []byte("GIF8")):
		c = wrap(func(r *bytes.Reader) (image.Config, error) { return gif.DecodeConfig(r) },
			func(r *bytes.Reader) (image.Image, error) { return gif.Decode(r) })
	case len(b) >= 12 && string(b[:4]) == "RIFF" && string(b[8:12]) == "WEBP":
		c = wrap(func(r *bytes.Reader) (image.Config, error) { return webp.DecodeConfig(r) },
			func(r *bytes.Reader) (image.Image, error) { return webp.Decode(r) })
	case bytes.HasPrefix(b, []byte("BM")):
		c = wrap(func(r *bytes.Reader) (image.Config, error) { return bmp.DecodeConfig(r) },
			func(r *bytes.Reader) (image.Image, error) { return bmp.Decode(r) })
	case len(b) >= 6 && b[0] == 0 && b[1] == 0 && (b[2] == 1 || b[2] == 2) && b[3] == 0:
		return decodeICO(b)
	default:
		return nil, false
	}
	cfg, err := c.config(b)
	if err != nil || !sizeOK(cfg.Width, cfg.Height) {
		return nil, false
	}
	img, err = c.decode(b)
	if err != nil {
		return nil, false
	}
	return img, true
}

func sizeOK(w, h int) bool {
	return w > 0 && h > 0 && w <= maxImageSide && h <= maxImageSide && w*h <= maxImagePixels
}

// decodeICO picks the largest image in an ICO/CUR file and decodes it,
// whether it is a PNG or a BMP (DIB) entry.
func decodeICO(b []byte) (image.Image, bool) {
	n := int(binary.LittleEndian.Uint16(b[4:]))
	if n > 64 {
		n = 64
	}
	best, bestScore := -1, -1
	for i := 0; i < n; i++ {
		off := 6 + 16*i
		if off+16 > len(b) {
			break
		}
		ent := b[off : off+16]
		w, h := int(ent[0]), int(ent[1])
		if w == 0 {
			w = 256
		}
		if h == 0 {
			h = 256
		}
		size := int(binary.LittleEndian.Uint32(ent[8:]))
		at := int(binary.LittleEndian.Uint32(ent[12:]))
		if size <= 0 || at < 0 || at > len(b) || size > len(b)-at {
			continue
		}
		bpp := int(binary.LittleEndian.Uint16(ent[6:]))
		score := w*h*64 + bpp
		if score > bestScore {
			best, bestScore = i, score
		}
	}
	if best < 0 {
		return nil, false
	}
	ent := b[6+16*best:]
	size := int(binary.LittleEndian.Uint32(ent[8:]))
	at := int(binary.LittleEndian.Uint32(ent[12:]))
	data := b[at : at+size]
	if bytes.HasPrefix(data, []byte("\x89PNG\r\n\x1a\n")) {
		return decodeRaster(data)
	}
	return decodeDIB(data)
}

// decodeDIB decodes the BITMAPINFOHEADER image of an ICO entry: its height
// counts the colour rows and the 1-bit AND transparency mask below them.
func decodeDIB(d []byte) (image.Image, bool) {
	if len(d) < 40 {
		return nil, false
	}
	le32 := func(o int) int { return int(int32(binary.LittleEndian.Uint32(d[o:]))) }
	hdr := le32(0)
	w, hh := le32(4), le32(8)
	bpp := int(binary.LittleEndian.Uint16(d[14:]))
	comp := le32(16)
	used := le32(32)
	if hdr < 40 || hdr > len(d) || w <= 0 || w > 1024 || comp != 0 && comp != 3 {
		return nil, false
	}
	topDown := hh < 0
	if topDown {
		hh = -hh
	}
	h := hh / 2
	if h <= 0 || h > 1024 {
		return nil, false
	}
	palOff := hdr
	if comp == 3 && hdr == 40 {
		palOff += 12
	}
	var pal []color.NRGBA
	if bpp <= 8 {
		switch bpp {
		case 1, 4, 8:
		default:
			return nil, false
		}
		nc := 1 << bpp
		if used > 0 && used < nc {
			nc = used
		}
		if palOff+4*nc > len(d) {
			return nil, false
		}
		pal = make([]color.NRGBA, nc)
		for i := range pal {
			p := d[palOff+4*i:]
			pal[i] = color.NRGBA{p[2], p[1], p[0], 255}
		}
	} else if bpp != 16 && bpp != 24 && bpp != 32 {
		return nil, false
	}
	xorOff := palOff + 4*len(pal)
	xorStride := (w*bpp + 31) / 32 * 4
	andOff := xorOff + xorStride*h
	andStride := (w + 31) / 32 * 4
	if andOff > len(d) {
		return nil, false
	}
	hasMask := andOff+andStride*h <= len(d)
	img := image.NewNRGBA(image.Rect(0, 0, w, h))
	anyAlpha := false
	for y := 0; y < h; y++ {
		sy := h - 1 - y
		if topDown {
			sy = y
		}
		row := d[xorOff+sy*xorStride:]
		for x := 0; x < w; x++ {
			var c color.NRGBA
			switch bpp {
			case 32:
				p := row[4*x:]
				c = color.NRGBA{p[2], p[1], p[0], p[3]}
				if p[3] != 0 {
					anyAlpha = true
				}
			case 24:
				p := row[3*x:]
				c = color.NRGBA{p[2], p[1], p[0], 255}
			case 16:
				v := binary.LittleEndian.Uint16(row[2*x:])
				c = color.NRGBA{uint8(int(v>>10&31) * 255 / 31), uint8(int(v>>5&31) * 255 / 31), uint8(int(v&31) * 255 / 31), 255}
			default:
				bit := x * bpp
				idx := int(row[bit/8]>>(8-bpp-bit%8)) & (1<<bpp - 1)
				if idx < len(pal) {
					c = pal[idx]
				}
			}
			img.SetNRGBA(x, y, c)
		}
	}
	if bpp == 32 && anyAlpha {
		return img, true
	}
	if hasMask {
		for y := 0; y < h; y++ {
			sy := h - 1 - y
			if topDown {
				sy = y
			}
			row := d[andOff+sy*andStride:]
			for x := 0; x < w; x++ {
				c := img.NRGBAAt(x, y)
				if row[x/8]>>(7-x%8)&1 == 1 {
					c.A = 0
				} else {
					c.A = 255
				}
				img.SetNRGBA(x, y, c)
			}
		}
	} else if bpp == 32 {
		for i := 3; i < len(img.Pix); i += 4 {
			img.Pix[i] = 255
		}
	}
	return img, true
}

// cluster is one dominant colour of an image.
type cluster struct {
	c     rgb     // the most common exact pixel colour of the cluster
	share float64 // of the image's opaque pixels
	// flat is the share of the image's opaque pixels within flatTolerance
	// of c: a flat fill keeps most of its cluster, a gradient little.
	flat float64
}

// flatTolerance is how far (per channel) a pixel may stray from a fill's
// colour and still be that fill. Logos are lossless PNG, GIF or SVG: a
// flat fill is one exact value, while a gradient's neighbouring shades,
// however close, are the gradient.
const flatTolerance = 0

// flatFill is the share of its cluster a fill's exact colour needs to be a
// flat fill, trusted as exactly as a vector mark's fill.
const flatFill = 0.5

func (cl cluster) isFlat() bool { return cl.share > 0 && cl.flat >= flatFill*cl.share }

type bin struct {
	r, g, b, n int
}

// pixelReader returns a fast per-pixel NRGBA accessor for the common image
// types and a generic one for the rest.
func pixelReader(img image.Image) func(x, y int) (uint8, uint8, uint8, uint8) {
	switch m := img.(type) {
	case *image.NRGBA:
		return func(x, y int) (uint8, uint8, uint8, uint8) {
			i := m.PixOffset(x, y)
			p := m.Pix[i : i+4 : i+4]
			return p[0], p[1], p[2], p[3]
		}
	case *image.RGBA:
		return func(x, y int) (uint8, uint8, uint8, uint8) {
			i := m.PixOffset(x, y)
			p := m.Pix[i : i+4 : i+4]
			a := p[3]
			if a == 0 || a == 255 {
				return p[0], p[1], p[2], a
			}
			un := func(v uint8) uint8 { return uint8(min(255, int(v)*255/int(a))) }
			return un(p[0]), un(p[1]), un(p[2]), a
		}
	case *image.YCbCr:
		return func(x, y int) (uint8, uint8, uint8, uint8) {
			r, g, b := color.YCbCrToRGB(m.Y[m.YOffset(x, y)], m.Cb[m.COffset(x, y)], m.Cr[m.COffset(x, y)])
			return r, g, b, 255
		}
	case *image.Paletted:
		pal := make([]color.NRGBA, len(m.Palette))
		for i, c := range m.Palette {
			pal[i] = color.NRGBAModel.Convert(c).(color.NRGBA)
		}
		return func(x, y int) (uint8, uint8, uint8, uint8) {
			idx := int(m.Pix[m.PixOffset(x, y)])
			if idx >= len(pal) {
				return 0, 0, 0, 0
			}
			c := pal[idx]
			return c.R, c.G, c.B, c.A
		}
	}
	return func(x, y int) (uint8, uint8, uint8, uint8) {
		c := color.NRGBAModel.Convert(img.At(x, y)).(color.NRGBA)
		return c.R, c.G, c.B, c.A
	}
}

// dominant finds an image's main colours: opaque pixels are sampled,
// binned, and the bins clustered by weighted k-means in CIELAB. Each
// cluster is represented by its most common bin, so a flat logo colour
// comes out exact rather than averaged with its anti-aliased edges.
func dominant(img image.Image) []cluster {
	b := img.Bounds()
	return dominantStep(img, sampleStep(b.Dx(), b.Dy()))
}

// dominantStep is dominant sampling every step-th pixel of every step-th
// row (1 for an image samplePNG has sampled already).
func dominantStep(img image.Image, step int) []cluster {
	return dominantOf(img, step, false)
}

// dominantOf is dominantStep, leaving out white pixels (whiteFloor) when
// skipWhite: shares are then of the opaque pixels that are not white.
func dominantOf(img image.Image, step int, skipWhite bool) []cluster {
	b := img.Bounds()
	w, h := b.Dx(), b.Dy()
	if w <= 0 || h <= 0 {
		return nil
	}
	at := pixelReader(img)
	bins := make([]bin, 0, 256)
	index := make(map[uint16]int, 256)
	exact := make(map[rgb]int, 256)
	shift := uint(3)
	for y := b.Min.Y; y < b.Max.Y; y += step {
		for x := b.Min.X; x < b.Max.X; x += step {
			r, g, bl, a := at(x, y)
			if a < 128 || skipWhite && min(r, g, bl) >= whiteFloor {
				continue
			}
			exact[rgb{r, g, bl}]++
			key := uint16(r>>shift)<<10 | uint16(g>>shift)<<5 | uint16(bl>>shift)
			i, ok := index[key]
			if !ok {
				i = len(bins)
				index[key] = i
				bins = append(bins, bin{})
			}
			bn := &bins[i]
			bn.r += int(r)
			bn.g += int(g)
			bn.b += int(bl)
			bn.n++
		}
	}
	total := 0
	for _, bn := range bins {
		total += bn.n
	}
	if total == 0 {
		return nil
	}
	// Photos make thousands of bins; keep the heaviest so clustering stays
	// cheap. Brand colours are flat areas, which are heavy bins.
	sort.SliceStable(bins, func(i, j int) bool { return bins[i].n > bins[j].n })
	if len(bins) > 1024 {
		bins = bins[:1024]
	}
	type point struct {
		l, a, b, w float64
		c          rgb
	}
	pts := make([]point, len(bins))
	binOf := make(map[uint16]int, len(bins)) // quantised key → point
	for i, bn := range bins {
		c := rgb{uint8(bn.r / bn.n), uint8(bn.g / bn.n), uint8(bn.b / bn.n)}
		binOf[uint16(c.R>>shift)<<10|uint16(c.G>>shift)<<5|uint16(c.B>>shift)] = i
		l, a, bb := c.lab()
		pts[i] = point{l, a, bb, float64(bn.n), c}
	}
	k := min(clusterK, len(pts))
	type centre struct{ l, a, b float64 }
	cs := make([]centre, 0, k)
	cs = append(cs, centre{pts[0].l, pts[0].a, pts[0].b}) // heaviest bin
	d2 := func(p point, c centre) float64 {
		return (p.l-c.l)*(p.l-c.l) + (p.a-c.a)*(p.a-c.a) + (p.b-c.b)*(p.b-c.b)
	}
	for len(cs) < k { // deterministic k-means++: farthest weighted point
		best, bestV := -1, 0.0
		for i, p := range pts {
			m := math.Inf(1)
			for _, c := range cs {
				m = math.Min(m, d2(p, c))
			}
			if v := p.w * m; v > bestV {
				best, bestV = i, v
			}
		}
		if best < 0 {
			break
		}
		cs = append(cs, centre{pts[best].l, pts[best].a, pts[best].b})
	}
	assign := make([]int, len(pts))
	for iter := 0; iter < 12; iter++ {
		changed := iter == 0
		for i, p := range pts {
			bi, bd := 0, math.Inf(1)
			for j, c := range cs {
				if d := d2(p, c); d < bd {
					bi, bd = j, d
				}
			}
			if assign[i] != bi {
				assign[i], changed = bi, true
			}
		}
		if !changed {
			break
		}
		sums := make([]point, len(cs))
		for i, p := range pts {
			s := &sums[assign[i]]
			s.l += p.l * p.w
			s.a += p.a * p.w
			s.b += p.b * p.w
			s.w += p.w
		}
		for j, s := range sums {
			if s.w > 0 {
				cs[j] = centre{s.l / s.w, s.a / s.w, s.b / s.w}
			}
		}
	}
	// Each cluster is represented by its most common exact pixel colour,
	// so a flat logo colour comes out exact rather than averaged with its
	// anti-aliased edges, and its flatness says whether it is a fill or a
	// gradient's spread.
	clusterOf := func(c rgb) int {
		i, ok := binOf[uint16(c.R>>shift)<<10|uint16(c.G>>shift)<<5|uint16(c.B>>shift)]
		if !ok {
			return -1 // a light bin dropped above
		}
		return assign[i]
	}
	modes := make([]rgb, len(cs))
	modeN := make([]int, len(cs))
	for c, n := range exact {
		j := clusterOf(c)
		if j >= 0 && (n > modeN[j] || n == modeN[j] && lessRGB(c, modes[j])) {
			modes[j], modeN[j] = c, n
		}
	}
	flatN := make([]int, len(cs))
	for c, n := range exact {
		if j := clusterOf(c); j >= 0 && near(c, modes[j], flatTolerance) {
			flatN[j] += n
		}
	}
	out := make([]cluster, 0, len(cs))
	for j := range cs {
		weight := 0.0
		for i, p := range pts {
			if assign[i] == j {
				weight += p.w
			}
		}
		share := weight / float64(total)
		if modeN[j] == 0 || share < minShare {
			continue
		}
		out = append(out, cluster{modes[j], share, float64(flatN[j]) / float64(total)})
	}
	sort.SliceStable(out, func(i, j int) bool { return out[i].share > out[j].share })
	return out
}

// near reports whether two colours differ by at most tol in every channel.
func near(a, b rgb, tol int) bool {
	d := func(x, y uint8) bool { return int(x)-int(y) <= tol && int(y)-int(x) <= tol }
	return d(a.R, b.R) && d(a.G, b.G) && d(a.B, b.B)
}
