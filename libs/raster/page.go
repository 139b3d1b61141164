package raster

import (
	_ "embed"
	"encoding/json"
	"net/url"
	"strconv"
)

// replayJS draws libs/draw's SVG vocabulary straight onto a canvas (see
// the file's own comment); render falls back to an image for the rest.
//
//go:embed replay.js
var replayJS string

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
async function encode(c) {
  const blob = await c.convertToBlob({type: "image/png"});
  const u = await new Promise((ok, fail) => {
    const r = new FileReader();
    r.onload = () => ok(r.result);
    r.onerror = () => fail(new Error("png: the encoded picture cannot be read"));
    r.readAsDataURL(blob);
  });
  return u.slice(u.indexOf(",") + 1);
}
// render draws by replay when it can and as an image when not; a
// replay that fails for any reason starts over as an image.
async function render(svg, w, h, path) {
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
  return [used, await encode(c)];
}
// tidy drops the kept canvases (the pool's tidy, with a collection).
function tidy() { canvases.clear(); return true; }
`

// pageHTML is the one document every tab loads, once, when it starts. The
// chart is never put into this document: render() replays the SVG onto a
// canvas, or loads it as a data: image, which runs no script and fetches
// nothing, at the requested pixel size and encodes the PNG in the page. No
// navigation and no compositor frame per render (DESIGN §4). The CSP is
// belt and braces: the page itself may load images only from data: URLs.
func pageHTML() string {
	return `<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; script-src 'unsafe-inline'">
</head><body><script>
"use strict";
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

// renderCall is the expression that draws svg at w×h pixels by path. The
// SVG goes in as a JSON string literal, which is valid JavaScript.
func renderCall(svg []byte, w, h int, path string) (string, error) {
	lit, err := json.Marshal(string(svg))
	if err != nil {
		return "", err
	}
	return "render(" + string(lit) + "," + strconv.Itoa(w) + "," + strconv.Itoa(h) + ",\"" + path + "\")", nil
}
