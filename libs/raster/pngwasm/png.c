/*
 * png.c: the render page's PNG encoder, compiled to WebAssembly (build.sh).
 *
 * The page reads a canvas's pixels once (getImageData, unpremultiplied
 * RGBA), copies them to pixels(), and calls encode(). A picture with no
 * transparent pixel is written as RGB, the rest as RGBA, 8 bits a
 * channel. Each row takes the filter (None, Sub, Up, Paeth) whose bytes
 * have the smallest sum of magnitudes, the usual heuristic; the filtered
 * rows are compressed as one zlib stream by libdeflate (MIT, vendored at
 * v1.25 in libdeflate/) and written as one IDAT chunk.
 *
 * There is no libc: memory is a bump arena over the module's memory,
 * reset by every pixels() call; the compressor is made once, by init,
 * below the arena's mark.
 */
#include <stddef.h>
#include <stdint.h>
#include <wasm_simd128.h>

#include "libdeflate/libdeflate.h"

extern unsigned char __heap_base;

static size_t arena_top;  /* the next free byte */
static size_t arena_mark; /* what pixels() resets to */

static void *arena_alloc(size_t n)
{
	size_t at, end, have;

	if (arena_top == 0)
		arena_top = (size_t)&__heap_base;
	at = (arena_top + 63) & ~(size_t)63;
	end = at + n;
	if (end < at)
		return NULL;
	have = __builtin_wasm_memory_size(0) * 65536;
	if (end > have &&
	    __builtin_wasm_memory_grow(0, (end - have + 65535) / 65536) == (size_t)-1)
		return NULL;
	arena_top = end;
	return (void *)at;
}

static void arena_free(void *p) { (void)p; }

static struct libdeflate_compressor *compressor;
static uint8_t *pix;      /* the RGBA pixels */
static size_t pix_len;
static uint8_t *out;      /* the PNG */

/* pixels answers a buffer of n bytes for the RGBA pixels of the next
 * encode, or 0 when memory runs out. */
__attribute__((export_name("pixels"))) uint8_t *pixels(uint32_t n)
{
	arena_top = arena_mark;
	pix = arena_alloc(n);
	pix_len = pix ? n : 0;
	return pix;
}

/* output is where the last encode wrote its PNG. */
__attribute__((export_name("output"))) uint8_t *output(void) { return out; }

static void put32(uint8_t *p, uint32_t v)
{
	p[0] = v >> 24;
	p[1] = v >> 16;
	p[2] = v >> 8;
	p[3] = v;
}

/* chunk writes a chunk of type and n bytes of data at p, whose data is
 * already in place at p+8, and answers its end. */
static uint8_t *chunk(uint8_t *p, const char *type, uint32_t n)
{
	put32(p, n);
	p[4] = type[0];
	p[5] = type[1];
	p[6] = type[2];
	p[7] = type[3];
	put32(p + 8 + n, libdeflate_crc32(0, p + 4, n + 4));
	return p + 12 + n;
}

static inline uint32_t mag(uint8_t v) { return v < 128 ? v : 256 - v; }

/* paeth is the Paeth predictor of a (left), b (up) and c (up left). */
static inline uint8_t paeth(uint8_t a, uint8_t b, uint8_t c)
{
	int pa = b > c ? b - c : c - b;
	int pb = a > c ? a - c : c - a;
	int pc = a + b - 2 * c;

	pc = pc < 0 ? -pc : pc;
	return (pa <= pb && pa <= pc) ? a : (pb <= pc ? b : c);
}

/* paeth8 is paeth of eight 16-bit lanes. */
static inline v128_t paeth8(v128_t a, v128_t b, v128_t c)
{
	v128_t pa = wasm_i16x8_abs(wasm_i16x8_sub(b, c));
	v128_t pb = wasm_i16x8_abs(wasm_i16x8_sub(a, c));
	v128_t pc = wasm_i16x8_abs(wasm_i16x8_sub(wasm_i16x8_add(a, b), wasm_i16x8_add(c, c)));
	v128_t ua = wasm_v128_and(wasm_i16x8_le(pa, pb), wasm_i16x8_le(pa, pc));
	v128_t ub = wasm_i16x8_le(pb, pc);

	return wasm_v128_bitselect(a, wasm_v128_bitselect(b, c, ub), ua);
}

/* sum16 adds the magnitudes of 16 filtered bytes to the four 32-bit
 * lanes of acc. */
static inline v128_t sum16(v128_t acc, v128_t d)
{
	return wasm_i32x4_add(acc, wasm_u32x4_extadd_pairwise_u16x8(
		wasm_u16x8_extadd_pairwise_u8x16(wasm_i8x16_abs(d))));
}

static inline uint32_t lanes(v128_t v)
{
	return wasm_i32x4_extract_lane(v, 0) + wasm_i32x4_extract_lane(v, 1) +
	       wasm_i32x4_extract_lane(v, 2) + wasm_i32x4_extract_lane(v, 3);
}

/* filter writes row filtered against prev into dst (a filter byte, then
 * rb bytes): of None, Sub, Up and Paeth, the one whose bytes have the
 * smallest sum of magnitudes, the usual heuristic. row and prev have bpp
 * zero bytes before them (the left of the first pixel); cand holds three
 * rows of scratch, for Sub, Up and Paeth. Sixteen bytes a step in SIMD,
 * the rest one by one. */
static void filter(uint8_t *dst, const uint8_t *row, const uint8_t *prev,
		   size_t rb, size_t bpp, uint8_t *cand[3])
{
	v128_t s0 = wasm_i32x4_splat(0), s1 = s0, s2 = s0, s3 = s0;
	uint32_t sum[4];
	size_t i, best = 0;

	for (i = 0; i + 16 <= rb; i += 16) {
		v128_t x = wasm_v128_load(row + i), a = wasm_v128_load(row + i - bpp);
		v128_t b = wasm_v128_load(prev + i), c = wasm_v128_load(prev + i - bpp);
		v128_t sub = wasm_i8x16_sub(x, a), up = wasm_i8x16_sub(x, b);
		v128_t lo = paeth8(wasm_u16x8_extend_low_u8x16(a), wasm_u16x8_extend_low_u8x16(b), wasm_u16x8_extend_low_u8x16(c));
		v128_t hi = paeth8(wasm_u16x8_extend_high_u8x16(a), wasm_u16x8_extend_high_u8x16(b), wasm_u16x8_extend_high_u8x16(c));
		v128_t pae = wasm_i8x16_sub(x, wasm_u8x16_narrow_i16x8(lo, hi));

		wasm_v128_store(cand[0] + i, sub);
		wasm_v128_store(cand[1] + i, up);
		wasm_v128_store(cand[2] + i, pae);
		s0 = sum16(s0, x);
		s1 = sum16(s1, sub);
		s2 = sum16(s2, up);
		s3 = sum16(s3, pae);
	}
	sum[0] = lanes(s0);
	sum[1] = lanes(s1);
	sum[2] = lanes(s2);
	sum[3] = lanes(s3);
	for (; i < rb; i++) {
		cand[0][i] = row[i] - row[i - bpp];
		cand[1][i] = row[i] - prev[i];
		cand[2][i] = row[i] - paeth(row[i - bpp], prev[i], prev[i - bpp]);
		sum[0] += mag(row[i]);
		sum[1] += mag(cand[0][i]);
		sum[2] += mag(cand[1][i]);
		sum[3] += mag(cand[2][i]);
	}
	for (i = 1; i < 4; i++)
		if (sum[i] < sum[best])
			best = i;
	dst[0] = best == 3 ? 4 : (uint8_t)best; /* Paeth is filter type 4 */
	__builtin_memcpy(dst + 1, best == 0 ? row : cand[best - 1], rb);
}

/* opaque answers whether none of the n RGBA pixels is transparent. */
static int opaque(const uint8_t *px, size_t n)
{
	v128_t acc = wasm_i32x4_splat(-1);
	uint8_t a = 255;
	size_t i;

	for (i = 0; i + 4 <= n; i += 4)
		acc = wasm_v128_and(acc, wasm_v128_load(px + i * 4));
	for (; i < n; i++)
		a &= px[i * 4 + 3];
	acc = wasm_v128_and(acc, wasm_i32x4_splat((int32_t)0xFF000000));
	return a == 255 && wasm_i32x4_all_true(wasm_i32x4_eq(acc, wasm_i32x4_splat((int32_t)0xFF000000)));
}

/* rgb packs w RGBA pixels into RGB at dst, which has 4 bytes to spare. */
static void rgb(uint8_t *dst, const uint8_t *src, size_t w)
{
	const v128_t pick = wasm_i8x16_make(0, 1, 2, 4, 5, 6, 8, 9, 10, 12, 13, 14, -1, -1, -1, -1);
	size_t i;

	for (i = 0; i + 4 <= w; i += 4)
		wasm_v128_store(dst + i * 3, wasm_i8x16_swizzle(wasm_v128_load(src + i * 4), pick));
	for (; i < w; i++) {
		dst[i * 3] = src[i * 4];
		dst[i * 3 + 1] = src[i * 4 + 1];
		dst[i * 3 + 2] = src[i * 4 + 2];
	}
}

/* init makes the compressor, at libdeflate's level (1 fastest … 12), once
 * before the first picture; it answers 0 when it cannot. */
__attribute__((export_name("init"))) int init(int level)
{
	struct libdeflate_options o = {sizeof(o), arena_alloc, arena_free};

	if (compressor)
		return 0;
	compressor = libdeflate_alloc_compressor_ex(level, &o);
	arena_mark = arena_top;
	return compressor != NULL;
}

/* encode writes the w×h pixels as a PNG and answers its length, or 0 on
 * failure (no memory, no init, a size the pixels do not hold). output()
 * is where it is. */
__attribute__((export_name("encode"))) uint32_t encode(uint32_t w, uint32_t h)
{
	size_t n, y, bpp = 3, rb, flen, bound, z;
	uint8_t *rows, *prev, *cur, *filtered, *cand[3], *p;

	n = (size_t)w * h;
	if (w == 0 || h == 0 || n / w != h || n > (SIZE_MAX - 64) / 4 || pix_len != n * 4)
		return 0;
	if (!compressor)
		return 0;
	if (!opaque(pix, n))
		bpp = 4;
	rb = (size_t)w * bpp;
	flen = (rb + 1) * h;
	/* Two rows, each with 16 zero bytes before it (the left of its first
	 * pixel) and 16 after (rgb's overrun). */
	rows = arena_alloc(2 * (rb + 32));
	filtered = arena_alloc(flen);
	cand[0] = arena_alloc(rb * 3);
	if (!rows || !filtered || !cand[0])
		return 0;
	__builtin_memset(rows, 0, 2 * (rb + 32));
	cand[1] = cand[0] + rb;
	cand[2] = cand[1] + rb;
	prev = rows + 16;
	cur = prev + rb + 32;
	for (y = 0; y < h; y++) {
		const uint8_t *src = pix + y * (size_t)w * 4;
		uint8_t *t;

		if (bpp == 4)
			__builtin_memcpy(cur, src, rb);
		else
			rgb(cur, src, w);
		filter(filtered + y * (rb + 1), cur, prev, rb, bpp, cand);
		t = prev;
		prev = cur;
		cur = t;
	}
	bound = libdeflate_zlib_compress_bound(compressor, flen);
	out = arena_alloc(8 + 25 + 12 + bound + 12);
	if (!out)
		return 0;
	p = out;
	__builtin_memcpy(p, "\x89PNG\r\n\x1a\n", 8);
	p += 8;
	put32(p + 8, w);
	put32(p + 12, h);
	p[16] = 8;                  /* bits a channel */
	p[17] = bpp == 4 ? 6 : 2;   /* RGBA or RGB */
	p[18] = p[19] = p[20] = 0;  /* deflate, adaptive filters, no interlace */
	p = chunk(p, "IHDR", 13);
	z = libdeflate_zlib_compress(compressor, filtered, flen, p + 8, bound);
	if (z == 0)
		return 0;
	p = chunk(p, "IDAT", z);
	p = chunk(p, "IEND", 0);
	return (uint32_t)(p - out);
}
