// embed-frame.js: an embed's page. It asks the site for the chart's SVG
// at the frame's width and again when the frame is resized, names the
// mark under the pointer (or, from the keyboard, the one the arrow keys
// reach) from the list of marks the picture carries, shows the data
// table on request, and tells the host page its height.
(function () {
  "use strict";
  var root = document.getElementById("chartd-embed");
  var box = document.getElementById("chart");
  var tip = document.getElementById("tip");
  var live = document.getElementById("live");
  var toggle = document.getElementById("data-toggle");
  var data = document.getElementById("data");
  var id = root.getAttribute("data-id");
  var src = root.getAttribute("data-svg");
  var STEP = 20, MIN = 200, MAX = 2400, STOPS = 120;
  var drawn = 0, asked = 0, seq = 0;
  var marks = [], order = [], at = -1, scale = 1;
  var ring = document.createElement("div");
  ring.className = "focus";
  ring.hidden = true;
  box.appendChild(ring);

  // the width a picture is drawn at for this frame (the server snaps too)
  function widthFor(w) {
    w = Math.max(MIN, Math.min(MAX, Math.floor(w)));
    return Math.max(MIN, w - (w % STEP));
  }

  function tellHeight() {
    var h = Math.ceil(document.documentElement.getBoundingClientRect().height);
    var msg = {};
    msg[id] = h;
    window.parent.postMessage({ "chartd-height": msg }, "*");
  }

  function draw() {
    var w = widthFor(box.clientWidth || document.documentElement.clientWidth);
    if (w === drawn || w === asked) return;
    asked = w;
    var mine = ++seq;
    window.performance.mark("chartd-redraw-start");
    fetch(src + "&w=" + w, { credentials: "omit" }).then(function (r) {
      if (!r.ok) throw new Error("HTTP " + r.status);
      return r.text();
    }).then(function (text) {
      if (mine !== seq) return;
      var doc = new DOMParser().parseFromString(text, "image/svg+xml");
      var svg = doc.documentElement;
      if (svg.nodeName !== "svg") throw new Error("not an SVG");
      svg = document.importNode(svg, true);
      var old = box.querySelector("svg");
      if (old) box.replaceChild(svg, old); else box.insertBefore(svg, box.firstChild);
      drawn = w;
      readMarks(svg, w);
      window.performance.mark("chartd-redraw-end");
      window.performance.measure("chartd-redraw", "chartd-redraw-start", "chartd-redraw-end");
      root.setAttribute("data-drawn", String(w));
      tellHeight();
    }).catch(function () {
      if (mine === seq) asked = 0;
    });
  }

  function readMarks(svg, w) {
    marks = [];
    var meta = svg.querySelector("metadata[id$='marks']");
    if (meta) {
      try { marks = JSON.parse(meta.textContent); } catch (e) { marks = []; }
    }
    var vb = svg.viewBox && svg.viewBox.baseVal;
    scale = vb && vb.width ? box.clientWidth / vb.width : 1;
    // the keyboard's stops: left to right, top to bottom, thinned to STOPS
    var all = marks.map(function (m, i) { return i; });
    all.sort(function (a, b) { return marks[a][0] - marks[b][0] || marks[a][1] - marks[b][1]; });
    var every = Math.max(1, Math.ceil(all.length / STOPS));
    order = all.filter(function (_, k) { return k % every === 0; });
    if (marks.length) {
      box.tabIndex = 0;
      box.setAttribute("role", "group");
      box.setAttribute("aria-label", "Chart: " + document.title + ". Arrow keys move from value to value.");
    }
    if (at >= order.length) at = order.length - 1;
    if (at >= 0 && document.activeElement === box) show(order[at], true); else hide();
  }

  function words(m) {
    return m[4] + (m[5] ? " · " + m[5] : "") + ": " + m[6];
  }

  function show(i, say) {
    var m = marks[i];
    if (!m) return hide();
    tip.textContent = words(m);
    tip.hidden = false;
    var x = (m[0] + m[2] / 2) * scale, y = m[1] * scale;
    var left = Math.min(Math.max(4, x - tip.offsetWidth / 2), box.clientWidth - tip.offsetWidth - 4);
    var top = y - tip.offsetHeight - 8;
    if (top < 4) top = (m[1] + m[3]) * scale + 8;
    tip.style.left = left + "px";
    tip.style.top = top + "px";
    ring.hidden = false;
    var pad = m[2] || m[3] ? 2 : 6;
    ring.style.left = (m[0] * scale - pad) + "px";
    ring.style.top = (m[1] * scale - pad) + "px";
    ring.style.width = (m[2] * scale + 2 * pad) + "px";
    ring.style.height = (m[3] * scale + 2 * pad) + "px";
    if (say) live.textContent = tip.textContent;
  }

  function hide() {
    tip.hidden = true;
    ring.hidden = true;
  }

  // the mark under the pointer: the one whose box holds it, else the
  // nearest within 16 px
  function markAt(px, py) {
    var best = -1, bestD = 16 / scale;
    for (var i = 0; i < marks.length; i++) {
      var m = marks[i];
      var dx = Math.max(m[0] - px, 0, px - (m[0] + m[2]));
      var dy = Math.max(m[1] - py, 0, py - (m[1] + m[3]));
      var d = Math.sqrt(dx * dx + dy * dy);
      if (d < bestD || d === 0 && best < 0) { best = i; bestD = d; }
      if (d === 0) break;
    }
    return best;
  }

  box.addEventListener("pointermove", function (e) {
    if (!marks.length) return;
    var r = box.getBoundingClientRect();
    var i = markAt((e.clientX - r.left) / scale, (e.clientY - r.top) / scale);
    if (i < 0) return hide();
    show(i, false);
  });
  box.addEventListener("pointerleave", hide);
  box.addEventListener("focus", function () {
    if (!order.length) return;
    if (at < 0) at = 0;
    show(order[at], true);
  });
  box.addEventListener("blur", hide);
  box.addEventListener("keydown", function (e) {
    if (!order.length) return;
    var next = at;
    switch (e.key) {
      case "ArrowRight": case "ArrowDown": next = Math.min(order.length - 1, at + 1); break;
      case "ArrowLeft": case "ArrowUp": next = Math.max(0, at - 1); break;
      case "Home": next = 0; break;
      case "End": next = order.length - 1; break;
      case "Escape": hide(); return;
      default: return;
    }
    e.preventDefault();
    at = next;
    show(order[at], true);
  });

  toggle.hidden = false;
  toggle.addEventListener("click", function () {
    var open = toggle.getAttribute("aria-expanded") !== "true";
    toggle.setAttribute("aria-expanded", String(open));
    data.classList.toggle("sr", !open);
    tellHeight();
  });

  var pending = false;
  function resized() {
    if (pending) return;
    pending = true;
    window.requestAnimationFrame(function () {
      pending = false;
      var vb = box.querySelector("svg");
      if (vb && vb.viewBox && vb.viewBox.baseVal.width) scale = box.clientWidth / vb.viewBox.baseVal.width;
      draw();
      tellHeight();
    });
  }
  window.addEventListener("resize", resized);
  if (window.ResizeObserver) new ResizeObserver(resized).observe(document.body);
  window.addEventListener("load", tellHeight);
  draw();
  tellHeight();
})();
