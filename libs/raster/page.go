package raster

import (
	"encoding/json"
	"net/url"
	"strconv"
)

// pageHTML is the one document every tab loads, once, when it starts. The
// chart is never put into this document: render() loads the SVG as a data:
// image, which runs no script and fetches nothing, draws it onto a canvas at
// the requested pixel size and encodes the PNG in the page. No navigation
// and no compositor frame per render (DESIGN §4). The CSP is belt and
// braces: the page itself may load images only from data: URLs.
const pageHTML = `<!doctype html><html><head><meta charset="utf-8">
<meta http-equiv="Content-Security-Policy" content="default-src 'none'; img-src data:; script-src 'unsafe-inline'">
</head><body><script>
"use strict";
const canvases = new Map();
async function render(svg, w, h) {
  const img = new Image(w, h);
  img.src = "data:image/svg+xml;charset=utf-8," + encodeURIComponent(svg);
  try { await img.decode(); } catch (e) { throw new Error("svg: the picture cannot be decoded"); }
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
  ctx.clearRect(0, 0, w, h);
  ctx.drawImage(img, 0, 0, w, h);
  const blob = await c.convertToBlob({type: "image/png"});
  const u = await new Promise((ok, fail) => {
    const r = new FileReader();
    r.onload = () => ok(r.result);
    r.onerror = () => fail(new Error("png: the encoded picture cannot be read"));
    r.readAsDataURL(blob);
  });
  return u.slice(u.indexOf(",") + 1);
}
// tidy drops the kept canvases (the pool's tidy, with a collection).
function tidy() { canvases.clear(); return true; }
</script></body></html>`

// pageURL is pageHTML as a data: URL the tab navigates to once.
func pageURL() string {
	return "data:text/html;charset=utf-8," + url.PathEscape(pageHTML)
}

// renderCall is the expression that draws svg at w×h pixels. The SVG goes
// in as a JSON string literal, which is valid JavaScript.
func renderCall(svg []byte, w, h int) (string, error) {
	lit, err := json.Marshal(string(svg))
	if err != nil {
		return "", err
	}
	return "render(" + string(lit) + "," + strconv.Itoa(w) + "," + strconv.Itoa(h) + ")", nil
}
