// replay draws an SVG as libs/draw writes it straight onto a 2D canvas,
// skipping Blink's SVG image document (parse, style, layout and a paint
// record per picture), which is about half of an image's drawing time.
// It knows the small vocabulary libs/draw uses: svg, g, rect, circle,
// line, path, text and tspan (position only), with presentation
// attributes. Anything else (gradients, patterns, clip paths, styled
// tspans, CSS) throws Unsupported and the caller draws the picture as an
// image instead, so a picture is never drawn wrong, only slower. The
// parsed document is inert: DOMParser runs no script and loads nothing.
class Unsupported extends Error {}
const rpSkip = new Set(["title", "desc"]);
const rpAttrs = new Set(["xmlns", "version", "width", "height", "viewBox", "role", "aria-labelledby", "aria-hidden", "id", "class",
  "x", "y", "rx", "cx", "cy", "r", "d", "x1", "x2", "y1", "y2", "fill", "stroke", "stroke-width", "fill-opacity", "stroke-opacity",
  "stroke-linejoin", "stroke-linecap", "stroke-dasharray", "fill-rule", "font-family", "font-size", "font-weight", "text-anchor",
  "direction", "paint-order", "shape-rendering", "transform"]);
function rpNum(v, rel) {
  if (v == null) return 0;
  const n = v.endsWith("%") ? parseFloat(v) / 100 * rel : Number(v);
  if (!Number.isFinite(n)) throw new Unsupported("the number " + v);
  return n;
}
function rpPaintValue(v) {
  if (v.startsWith("url(") || v == "currentColor" || v == "inherit") throw new Unsupported("the paint " + v);
  return v;
}
// rpState is s with el's presentation attributes applied, as SVG
// inherits them.
function rpState(el, s) {
  const n = Object.assign({}, s);
  for (const a of el.attributes) {
    if (!rpAttrs.has(a.name)) throw new Unsupported("the attribute " + a.name);
    const v = a.value;
    switch (a.name) {
      case "fill": n.fill = rpPaintValue(v); break;
      case "stroke": n.stroke = rpPaintValue(v); break;
      case "stroke-width": n.sw = rpNum(v, 0); break;
      case "fill-opacity": n.fo = rpNum(v, 0); break;
      case "stroke-opacity": n.so = rpNum(v, 0); break;
      case "stroke-linejoin": n.lj = v; break;
      case "stroke-linecap": n.lc = v; break;
      case "stroke-dasharray": n.dash = v == "none" ? [] : v.trim().split(/[\s,]+/).map((d) => rpNum(d, 0)); break;
      case "fill-rule": n.rule = v; break;
      case "font-family": n.ff = v; break;
      case "font-size": n.fs = rpNum(v, 0); break;
      case "font-weight": n.fw = v; break;
      case "text-anchor": n.ta = v; break;
      case "direction": n.dir = v; break;
      case "paint-order": n.po = v; break;
      case "shape-rendering": if (v != "crispEdges" && v != "auto" && v != "geometricPrecision") throw new Unsupported("shape-rendering " + v); break;
    }
  }
  return n;
}
function rpTransform(ctx, t) {
  const m = /^rotate\(\s*(-?[\d.]+)[\s,]+(-?[\d.]+)[\s,]+(-?[\d.]+)\s*\)$/.exec(t.trim());
  if (!m) throw new Unsupported("the transform " + t);
  const a = Number(m[1]) * Math.PI / 180, cx = Number(m[2]), cy = Number(m[3]);
  ctx.translate(cx, cy);
  ctx.rotate(a);
  ctx.translate(-cx, -cy);
}
function rpStroked(s) { return s.stroke != "none" && s.sw > 0; }
function rpSetStroke(ctx, s) {
  ctx.globalAlpha = s.so;
  ctx.strokeStyle = s.stroke;
  ctx.lineWidth = s.sw;
  ctx.lineJoin = s.lj;
  ctx.lineCap = s.lc;
  ctx.setLineDash(s.dash);
}
function rpShape(ctx, s, p) {
  if (s.fill != "none") {
    ctx.globalAlpha = s.fo;
    ctx.fillStyle = s.fill;
    ctx.fill(p, s.rule);
  }
  if (rpStroked(s)) {
    rpSetStroke(ctx, s);
    ctx.stroke(p);
  }
}
// rpText draws a text element: its own characters at x, y, or each
// tspan at its own x, y (libs/draw's wrapped lines), anchored as SVG
// anchors a text chunk. A stroke painted first is a label's halo.
function rpText(ctx, el, s, r) {
  const font = (s.fw == "normal" ? "" : s.fw + " ") + s.fs + "px " + s.ff;
  if (font != r.font) { ctx.font = font; r.font = font; }
  if (s.dir != r.dir) { ctx.direction = s.dir; r.dir = s.dir; }
  const align = s.ta == "middle" ? "center" : s.ta;
  if (align != r.align) { ctx.textAlign = align; r.align = align; }
  const x0 = el.getAttribute("x"), y0 = el.getAttribute("y");
  const runs = [];
  for (const c of el.childNodes) {
    if (c.nodeType == Node.TEXT_NODE) {
      const t = c.data.replace(/\s+/g, " ").trim();
      if (t) runs.push([rpNum(x0, 0), rpNum(y0, 0), t]);
    } else if (c.nodeType == Node.ELEMENT_NODE) {
      if (c.tagName != "tspan") throw new Unsupported("a " + c.tagName + " in text");
      for (const a of c.attributes) if (a.name != "x" && a.name != "y") throw new Unsupported("a tspan's " + a.name);
      for (const g of c.childNodes) if (g.nodeType != Node.TEXT_NODE) throw new Unsupported("markup in a tspan");
      const t = c.textContent.replace(/\s+/g, " ").trim();
      if (t) runs.push([rpNum(c.getAttribute("x") ?? x0, 0), rpNum(c.getAttribute("y") ?? y0, 0), t]);
    }
  }
  const stroked = rpStroked(s), first = stroked && s.po.trim().startsWith("stroke");
  for (const [x, y, t] of runs) {
    if (first) { rpSetStroke(ctx, s); ctx.strokeText(t, x, y); }
    if (s.fill != "none") { ctx.globalAlpha = s.fo; ctx.fillStyle = s.fill; ctx.fillText(t, x, y); }
    if (stroked && !first) { rpSetStroke(ctx, s); ctx.strokeText(t, x, y); }
  }
}
function rpWalk(ctx, node, s, vw, vh, r) {
  for (const el of node.children) {
    const tag = el.tagName;
    if (rpSkip.has(tag)) continue;
    const st = el.attributes.length ? rpState(el, s) : s;
    const t = el.getAttribute("transform");
    if (t) { ctx.save(); rpTransform(ctx, t); }
    switch (tag) {
      case "g":
        rpWalk(ctx, el, st, vw, vh, r);
        break;
      case "rect": {
        const x = rpNum(el.getAttribute("x"), vw), y = rpNum(el.getAttribute("y"), vh);
        const w = rpNum(el.getAttribute("width"), vw), h = rpNum(el.getAttribute("height"), vh);
        const rx = rpNum(el.getAttribute("rx"), vw);
        if (w <= 0 || h <= 0) break;
        const p = new Path2D();
        if (rx > 0) p.roundRect(x, y, w, h, Math.min(rx, w / 2, h / 2)); else p.rect(x, y, w, h);
        rpShape(ctx, st, p);
        break;
      }
      case "circle": {
        const rad = rpNum(el.getAttribute("r"), 0);
        if (rad <= 0) break;
        const p = new Path2D();
        p.arc(rpNum(el.getAttribute("cx"), vw), rpNum(el.getAttribute("cy"), vh), rad, 0, 2 * Math.PI);
        rpShape(ctx, st, p);
        break;
      }
      case "line": {
        const p = new Path2D();
        p.moveTo(rpNum(el.getAttribute("x1"), vw), rpNum(el.getAttribute("y1"), vh));
        p.lineTo(rpNum(el.getAttribute("x2"), vw), rpNum(el.getAttribute("y2"), vh));
        rpShape(ctx, Object.assign({}, st, {fill: "none"}), p);
        break;
      }
      case "path":
        rpShape(ctx, st, new Path2D(el.getAttribute("d") || ""));
        break;
      case "text":
        rpText(ctx, el, st, r);
        break;
      default:
        throw new Unsupported("the element " + tag);
    }
    if (t) { ctx.restore(); r.font = r.dir = r.align = ""; }
  }
}
// replay draws svg onto ctx at w×h pixels or throws (Unsupported for
// what it does not know).
function replay(ctx, svg, w, h) {
  const doc = new DOMParser().parseFromString(svg, "image/svg+xml");
  const root = doc.documentElement;
  if (root.tagName != "svg" || root.namespaceURI != "http://www.w3.org/2000/svg" || doc.getElementsByTagName("parsererror").length) {
    throw new Unsupported("not an SVG document");
  }
  const vb = (root.getAttribute("viewBox") || "").trim().split(/[\s,]+/).map(Number);
  if (vb.length != 4 || !vb.every(Number.isFinite) || vb[2] <= 0 || vb[3] <= 0) throw new Unsupported("no viewBox");
  // An image is stretched to w×h from its own width and height, into
  // which the viewBox is fitted: the same mapping only when the three
  // agree in shape.
  const iw = Number(root.getAttribute("width")), ih = Number(root.getAttribute("height"));
  if (!(iw > 0 && ih > 0) || Math.abs(iw / ih - vb[2] / vb[3]) > 1e-6 || Math.abs(w / h - vb[2] / vb[3]) > 0.01) {
    throw new Unsupported("a size unlike the viewBox");
  }
  const s = rpState(root, {fill: "black", stroke: "none", sw: 1, fo: 1, so: 1, lj: "miter", lc: "butt", dash: [], rule: "nonzero",
    ff: "serif", fs: 16, fw: "normal", ta: "start", dir: "ltr", po: "normal"});
  ctx.save();
  try {
    ctx.setTransform(w / vb[2], 0, 0, h / vb[3], -vb[0] * w / vb[2], -vb[1] * h / vb[3]);
    ctx.textBaseline = "alphabetic";
    rpWalk(ctx, root, s, vb[2], vb[3], {font: "", dir: "", align: ""});
  } finally {
    ctx.restore();
  }
}
