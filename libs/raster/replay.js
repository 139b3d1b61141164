// replay draws an SVG as libs/draw writes it straight onto a 2D canvas,
// skipping Blink's SVG image document (parse, style, layout and a paint
// record per picture), which is about half of an image's drawing time.
// It knows the vocabulary libs/draw uses: svg, g, rect, circle, line,
// path, text and tspan (positioned lines and styled runs), linear
// gradients in a shape's own box, with presentation attributes. Anything
// else (patterns, clip paths, styled runs with right-to-left letters, CSS)
// throws Unsupported and the caller draws the picture as an image instead,
// so a picture is never drawn wrong, only slower. The parsed document is
// inert: DOMParser runs no script and loads nothing.
class Unsupported extends Error {}
// rpRTL matches right-to-left letters (Hebrew, Arabic, Syriac, Thaana,
// NKo, Samaritan, Mandaic and their presentation forms, the historic RTL
// scripts) and the bidi embedding and override controls.
const rpRTL = /[\u0590-\u08FF\uFB1D-\uFDFF\uFE70-\uFEFF\u200F\u202B\u202E\u2067\u{10800}-\u{10FFF}\u{1E800}-\u{1EFFF}]/u;
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
// rpPaintValue is a fill or stroke: a colour, or a linear gradient of
// defs (an object) named by url(#id).
function rpPaintValue(v, defs) {
  const m = /^url\(#([^)]+)\)$/.exec(v.trim());
  if (m && defs.has(m[1])) return defs.get(m[1]);
  if (v.startsWith("url(") || v == "currentColor" || v == "inherit") throw new Unsupported("the paint " + v);
  return v;
}
// rpGradients reads the defs: linear gradients in the shape's own box
// (objectBoundingBox), with plain stops; anything else in defs (patterns,
// other units, stop opacity) is left to the image path.
function rpGradients(root) {
  const defs = new Map();
  for (const d of root.getElementsByTagName("defs")) {
    for (const el of d.children) {
      if (el.tagName != "linearGradient") throw new Unsupported("a " + el.tagName + " in defs");
      for (const a of el.attributes) {
        if (!["id", "x1", "y1", "x2", "y2", "gradientUnits"].includes(a.name)) throw new Unsupported("a gradient's " + a.name);
      }
      const units = el.getAttribute("gradientUnits");
      if (units && units != "objectBoundingBox") throw new Unsupported("gradient units " + units);
      const stops = [];
      let prev = 0;
      for (const st of el.children) {
        if (st.tagName != "stop") throw new Unsupported("a " + st.tagName + " in a gradient");
        for (const a of st.attributes) if (a.name != "offset" && a.name != "stop-color") throw new Unsupported("a stop's " + a.name);
        // SVG clamps each offset into [0, 1] and to at least the one before.
        prev = Math.max(prev, Math.min(1, Math.max(0, rpNum(st.getAttribute("offset") ?? "0", 1))));
        stops.push([prev, rpPaintValue(st.getAttribute("stop-color") ?? "black", new Map())]);
      }
      const n = (a, d) => rpNum(el.getAttribute(a) ?? d, 1);
      defs.set(el.id, {x1: n("x1", "0"), y1: n("y1", "0"), x2: n("x2", "1"), y2: n("y2", "0"), stops});
    }
  }
  return defs;
}
// rpStyle is a canvas fill style for paint over the box [x, y, w, h].
function rpStyle(ctx, paint, box) {
  if (typeof paint == "string") return paint;
  if (!box) throw new Unsupported("a gradient on a shape without a box");
  const [x, y, w, h] = box;
  const g = ctx.createLinearGradient(x + paint.x1 * w, y + paint.y1 * h, x + paint.x2 * w, y + paint.y2 * h);
  for (const [o, c] of paint.stops) g.addColorStop(o, c);
  return g;
}
// rpState is s with el's presentation attributes applied, as SVG
// inherits them.
function rpState(el, s) {
  const n = Object.assign({}, s);
  for (const a of el.attributes) {
    if (!rpAttrs.has(a.name)) throw new Unsupported("the attribute " + a.name);
    const v = a.value;
    switch (a.name) {
      case "fill": n.fill = rpPaintValue(v, s.defs); break;
      case "stroke": n.stroke = rpPaintValue(v, s.defs); if (typeof n.stroke != "string") throw new Unsupported("a gradient stroke"); break;
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
function rpShape(ctx, s, p, box) {
  if (s.fill != "none") {
    ctx.globalAlpha = s.fo;
    ctx.fillStyle = rpStyle(ctx, s.fill, box);
    ctx.fill(p, s.rule);
  }
  if (rpStroked(s)) {
    rpSetStroke(ctx, s);
    ctx.stroke(p);
  }
}
// rpFont sets the context's font, direction and alignment for state s,
// skipping what is already set (setting a font parses it).
function rpFont(ctx, s, align, r) {
  const font = (s.fw == "normal" ? "" : s.fw + " ") + s.fs + "px " + s.ff;
  if (font != r.font) { ctx.font = font; r.font = font; }
  if (s.dir != r.dir) { ctx.direction = s.dir; r.dir = s.dir; }
  if (align != r.align) { ctx.textAlign = align; r.align = align; }
}
function rpPaintText(ctx, s, t, x, y) {
  const stroked = rpStroked(s), first = stroked && s.po.trim().startsWith("stroke");
  if (first) { rpSetStroke(ctx, s); ctx.strokeText(t, x, y); }
  if (s.fill != "none") { ctx.globalAlpha = s.fo; ctx.fillStyle = rpStyle(ctx, s.fill, null); ctx.fillText(t, x, y); }
  if (stroked && !first) { rpSetStroke(ctx, s); ctx.strokeText(t, x, y); }
}
// rpText draws a text element as SVG lays it out: text chunks, each
// begun by the element or by a tspan with its own x or y (libs/draw's
// wrapped lines), anchored as a whole; within a chunk, runs of their own
// style (a bold name, a normal value) follow one another. White space
// collapses across the runs as CSS collapses it.
function rpText(ctx, el, s, r) {
  const chunks = [];
  let chunk = null;
  const at = (x, y) => { chunk = {x: rpNum(x, 0), y: rpNum(y, 0), runs: []}; chunks.push(chunk); };
  at(el.getAttribute("x"), el.getAttribute("y"));
  for (const c of el.childNodes) {
    if (c.nodeType == Node.TEXT_NODE) {
      chunk.runs.push([s, c.data]);
    } else if (c.nodeType == Node.ELEMENT_NODE) {
      if (c.tagName != "tspan") throw new Unsupported("a " + c.tagName + " in text");
      for (const g of c.childNodes) if (g.nodeType != Node.TEXT_NODE) throw new Unsupported("markup in a tspan");
      for (const a of ["transform", "text-anchor", "direction", "dx", "dy"]) if (c.hasAttribute(a)) throw new Unsupported("a tspan's " + a);
      const st = rpState(c, s);
      if (c.hasAttribute("x") || c.hasAttribute("y")) at(c.getAttribute("x") ?? chunk.x, c.getAttribute("y") ?? chunk.y);
      chunk.runs.push([st, c.textContent]);
    }
  }
  // Collapse white space: runs of it become one space, none at the start
  // of the text or after a space, none at the end.
  let space = true, last = null;
  for (const ch of chunks) {
    for (const run of ch.runs) {
      let t = run[1].replace(/\s+/g, " ");
      if (space && t.startsWith(" ")) t = t.slice(1);
      run[1] = t;
      if (t) { space = t.endsWith(" "); last = run; }
    }
  }
  if (last && last[1].endsWith(" ")) last[1] = last[1].slice(0, -1);
  const align = s.ta == "middle" ? "center" : s.ta;
  for (const ch of chunks) {
    const runs = ch.runs.filter((q) => q[1]);
    if (runs.length == 1) {
      rpFont(ctx, runs[0][0], align, r);
      rpPaintText(ctx, runs[0][0], runs[0][1], ch.x, ch.y);
    } else if (runs.length > 1) {
      // The bidi algorithm orders a chunk as one paragraph: right-to-left
      // letters in one run can move a number in the next (a Hebrew name
      // and its value). Runs drawn one after another cannot, so such a
      // chunk is left to the image path.
      if (s.dir != "ltr" || runs.some((q) => q[0].dir != "ltr" || rpRTL.test(q[1]))) throw new Unsupported("styled runs right to left");
      const widths = runs.map(([st, t]) => { rpFont(ctx, st, "left", r); return ctx.measureText(t).width; });
      const total = widths.reduce((a, b) => a + b, 0);
      let x = ch.x - (s.ta == "middle" ? total / 2 : s.ta == "end" ? total : 0);
      runs.forEach(([st, t], k) => { rpFont(ctx, st, "left", r); rpPaintText(ctx, st, t, x, ch.y); x += widths[k]; });
    }
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
      case "defs":
        break; // read by rpGradients before the walk
      case "rect": {
        const x = rpNum(el.getAttribute("x"), vw), y = rpNum(el.getAttribute("y"), vh);
        const w = rpNum(el.getAttribute("width"), vw), h = rpNum(el.getAttribute("height"), vh);
        const rx = rpNum(el.getAttribute("rx"), vw);
        if (w <= 0 || h <= 0) break;
        if (!(rx > 0)) {
          // A plain rectangle goes through fillRect, whose edges Skia
          // covers exactly, as the SVG's rect is; a path's edges are
          // covered in quarter steps (0.87 of a pixel drawn as 0.75).
          if (st.fill != "none") {
            ctx.globalAlpha = st.fo;
            ctx.fillStyle = rpStyle(ctx, st.fill, [x, y, w, h]);
            ctx.fillRect(x, y, w, h);
          }
          if (rpStroked(st)) {
            rpSetStroke(ctx, st);
            ctx.strokeRect(x, y, w, h);
          }
          break;
        }
        const p = new Path2D();
        p.roundRect(x, y, w, h, Math.min(rx, w / 2, h / 2));
        rpShape(ctx, st, p, [x, y, w, h]);
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
    ff: "serif", fs: 16, fw: "normal", ta: "start", dir: "ltr", po: "normal", defs: rpGradients(root)});
  ctx.save();
  try {
    ctx.setTransform(w / vb[2], 0, 0, h / vb[3], -vb[0] * w / vb[2], -vb[1] * h / vb[3]);
    ctx.textBaseline = "alphabetic";
    rpWalk(ctx, root, s, vb[2], vb[3], {font: "", dir: "", align: ""});
  } finally {
    ctx.restore();
  }
}
