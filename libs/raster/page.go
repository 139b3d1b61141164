package raster

import (
	_ "embed"
	"encoding/base64"
	"encoding/json"
	"net/url"
	"strconv"
)

// replayJS draws libs/draw's SVG vocabulary straight onto a canvas (see
// the file's own comment); render falls back to an image for the rest.
//
//go:embed replay.js
var replayJS string

// pngWasm is the page's PNG encoder: pngwasm/png.c and libdeflate built
// to WebAssembly by pngwasm/build.sh (TestPNGWasmRebuilds holds the two
// equal).
//
//go:embed pngwasm/png.wasm
var pngWasm []byte

// pngLevel is the encoder's libdeflate level: 1, the fastest.
const pngLevel = 1

// pageScript is the page's own part: render, the image path and tidy.
// render returns [path, base64 PNG], path "replay" or "image", so the
// pool can count which one drew.
const pageScript = `
const canvases = new Map();
function canvasFor(w, h) {
  // One canvas per size, reused: allocating and freeing a bitmap per
  // render costs more than clearing it. Big canvases (over 4 Mpx, 16 MB
  // of pixels each) are used once and dropped.
  const key = w + "x" + h;
  let c = canvases.get(key);
  if (!c) {
    c = new OffscreenCanvas(w, h);
    if (w * h <= 4000000) {
      if (canvases.size >= 8) canvases.clear();
      canvases.set(key, c);
    }
  }
  const ctx = c.getContext("2d");
  ctx.setTransform(1, 0, 0, 1, 0, 0);
  ctx.clearRect(0, 0, w, h);
  return [c, ctx];
}
async function drawAsImage(ctx, svg, w, h) {
  const img = new Image(w, h);
  img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svg);
  try { await img.decode(); } catch (e) { throw new Error("svg: the picture cannot be decoded"); }
  ctx.drawImage(img, 0, 0, w, h);
}
// The encoder (pngwasm): compiled on a page's first wasm encode, and
// instantiated again after a tidy, which drops the memory a big picture
// grew it to (a wasm memory never shrinks).
let pngCompiled = null, pngInst = null;
function pngEncoder() {
  pngCompiled ??= WebAssembly.compile(Uint8Array.from(atob(pngWasmB64), (ch) => ch.charCodeAt(0)));
  pngInst ??= pngCompiled.then((m) => WebAssembly.instantiate(m)).then((i) => {
    if (!i.exports.init(pngLevel)) throw new Error("png: the encoder cannot start");
    return i.exports;
  });
  return pngInst;
}
// encodeWasm reads the pixels once (getImageData) and encodes them in the
// wasm module; it answers null when the module is out of memory, and the
// caller encodes with Chromium's encoder instead.
async function encodeWasm(c, ctx) {
  const e = await pngEncoder();
  const w = c.width, h = c.height, n = w * h * 4;
  const img = ctx.getImageData(0, 0, w, h);
  const at = e.pixels(n);
  if (!at) return null;
  new Uint8Array(e.memory.buffer, at, n).set(img.data);
  const len = e.encode(w, h);
  if (!len) return null;
  return new Uint8Array(e.memory.buffer, e.output(), len).toBase64();
}
// encodeBlob is Chromium's own PNG encoder (Skia's), read as base64.
async function encodeBlob(c) {
  const blob = await c.convertToBlob({type: "image/png"});
  const u = await new Promise((ok, fail) => {
    const r = new FileReader();
    r.onload = () => ok(r.result);
    r.onerror = () => fail(new Error("png: the encoded picture cannot be read"));
    r.readAsDataURL(blob);
  });
  return u.slice(u.indexOf(",") + 1);
}
async function encode(c, ctx, enc) {
  if (enc == "wasm") {
    const b64 = await encodeWasm(c, ctx);
    if (b64 != null) return b64;
  }
  return encodeBlob(c);
}
// render draws by replay when it can and as an image when not; a
// replay that fails for any reason starts over as an image.
async function render(svg, w, h, path, enc) {
  let [c, ctx] = canvasFor(w, h);
  let used = "image";
  if (path != "image") {
    try {
      replay(ctx, svg, w, h);
      used = "replay";
    } catch (e) {
      if (path == "replay") throw e;
      [c, ctx] = canvasFor(w, h);
    }
  }
  if (used == "image") await drawAsImage(ctx, svg, w, h);
  return [used, await encode(c, ctx, enc)];
}
// tidy drops the kept canvases and the encoder's memory (the pool's
// tidy, with a collection).
function tidy() { canvases.clear(); pngInst = null; return true; }
`

// pageHTML is the one document every tab loads, once, when it starts. The
// chart is never put into this document: render() replays the SVG onto a
// canvas, or loads it as a data: image, which runs no script and fetches
// nothing, at the requested pixel size and encodes the PNG in the page. No
// navigation and no compositor frame per render (DESIGN §4). The CSP is
// belt and braces: the page itself may load images only from data: URLs,
// and compile WebAssembly (its PNG encoder, which comes in the page).
func pageHTML() string {
	return `<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; script-src 'unsafe-inline' 'wasm-unsafe-eval'">
</head><body><script>
"use strict";
const pngWasmB64 = "` + base64.StdEncoding.EncodeToString(pngWasm) + `";
const pngLevel = ` + strconv.Itoa(pngLevel) + `;
` + replayJS + pageScript + `</script></body></html>`
}

// pageURL is pageHTML as a data: URL the tab navigates to once.
func pageURL() string {
	return "data:text/html;charset=utf-8," + url.PathEscape(pageHTML())
}

// Paths a render may be asked to take: either (replay when it can), or
// one of them only (tests compare the two).
const (
	pathEither = ""
	pathReplay = "replay"
	pathImage  = "image"
)

// The PNG encoders of the page (Config.Encoder): Chromium's own
// (convertToBlob, Skia's encoder), or the page's WebAssembly one
// (pngwasm), which falls back to Chromium's when it runs out of memory.
const (
	EncoderChromium = "chromium"
	EncoderWasm     = "wasm"
)

// renderCall is the expression that draws svg at w×h pixels by path and
// encodes it with enc. The SVG goes in as a JSON string literal, which is
// valid JavaScript.
func renderCall(svg []byte, w, h int, path, enc string) (string, error) {
	lit, err := json.Marshal(string(svg))
	if err != nil {
		return "", err
	}
	return "render(" + string(lit) + "," + strconv.Itoa(w) + "," + strconv.Itoa(h) + ",\"" + path + "\",\"" + enc + "\")", nil
}
