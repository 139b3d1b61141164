// The chart editor: every change goes through the public API (the same
// ops, the same conflict rule) with the session cookie and the CSRF
// header; the preview is redrawn after each change.
"use strict";
(function () {
  var root = document.getElementById("editor");
  if (!root) return;
  var id = root.getAttribute("data-id");
  var csrf = document.querySelector('meta[name="csrf-token"]').getAttribute("content");
  var api = "/api/v1";
  var cur = { chart: null, state: null, spec: null, types: [], palettes: [] };
  var words = window.chartdWords;
  var previewURL = null;
  // Exposed for tests and measurement: how the last change went.
  var probe = window.chartdEditor = { ready: false, previews: 0, lastPreviewMs: 0, version: "" };
  var $ = function (x) { return document.getElementById(x); };

  function call(method, path, body) {
    var opts = { method: method, headers: {}, credentials: "same-origin" };
    if (method !== "GET") opts.headers["X-CSRF-Token"] = csrf;
    if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    return fetch(api + path, opts).then(function (r) {
      var ct = r.headers.get("Content-Type") || "";
      if (ct.indexOf("application/json") < 0) {
        if (!r.ok) throw new Error("the server answered " + r.status);
        return r.blob();
      }
      return r.json().then(function (j) {
        if (!r.ok) {
          var e = new Error(j.error ? j.error.message : "the server answered " + r.status);
          e.code = j.error && j.error.code;
          throw e;
        }
        return j;
      });
    });
  }

  // say writes a message into a status line: the page's, or (where) the
  // one beside the control that caused it.
  function say(msg, isError, where) {
    var s = $(where || "status");
    s.textContent = msg;
    s.className = isError ? "error" : "";
  }

  // failAt answers a refusal handler that says, in the site's words and
  // beside the control that caused it, what went wrong.
  function failAt(where) {
    return function (e) {
      say(words.error(e), true, where);
      if (e.code === "conflict") refresh();
    };
  }
  var fail = failAt("status");

  // preview draws the chart as SVG into an image (an image runs no
  // script), and records how long since t0 the new picture took.
  // It draws the saved chart with the form's unsaved edits (ops not yet
  // saved) through the site's preview, which counts no render; a reply
  // older than one already shown is dropped.
  var previewSeq = 0, previewShown = 0, loading = null;
  function preview(t0) {
    var seq = ++previewSeq;
    var ops = cur.state ? pendingOps() : [];
    return fetch("/charts/" + id + "/preview.svg", { method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf }, body: JSON.stringify({ ops: ops }) }).then(function (r) {
      if (!r.ok) {
        return r.json().catch(function () { return {}; }).then(function (j) {
          throw new Error(j.error && j.error.message ? j.error.message : "The preview could not be drawn (" + r.status + ").");
        });
      }
      return r.blob();
    }).then(function (blob) {
      if (seq < previewShown) return;
      previewShown = seq;
      showUnsaved(ops.length > 0, "");
      var img = $("preview");
      var url = URL.createObjectURL(blob);
      return new Promise(function (ok) {
        // A newer picture replaces one still loading: the older one's
        // caller is done (its load event will never come).
        if (loading) { URL.revokeObjectURL(loading.url); loading.ok(); }
        loading = { url: url, ok: ok };
        img.onload = img.onerror = function () {
          loading = null;
          if (previewURL) URL.revokeObjectURL(previewURL);
          previewURL = url;
          probe.previews++;
          probe.svg = blob;
          showAlt();
          probe.lastPreviewMs = performance.now() - t0;
          img.setAttribute("data-version", String(probe.previews));
          ok();
        };
        img.src = url;
      });
    });
  }

  function text(tag, value, cls) {
    var el = document.createElement(tag);
    el.textContent = value == null ? "" : String(value);
    if (cls) el.className = cls;
    return el;
  }

  // footerFields are the setFooter fields and their inputs.
  var footerFields = [
    { name: "notes", input: "footer-notes" },
    { name: "source", input: "footer-source" },
    { name: "byline", input: "footer-byline" },
  ];

  function fillForm() {
    var st = cur.state, style = st.style || {};
    $("title").value = style.title && style.title.show !== false ? style.title.text || "" : "";
    $("subtitle").value = style.subtitle && style.subtitle.show !== false ? style.subtitle.text || "" : "";
    var footer = style.footer || {};
    footerFields.forEach(function (f) { $(f.input).value = footer[f.name] || ""; });
    $("x-title").value = style.xAxisTitle && style.xAxisTitle.text || "";
    $("y-title").value = style.yAxisTitle && style.yAxisTitle.text || "";
    var ya = style.yAxis || {};
    $("y-min").value = ya.min == null ? "" : String(ya.min);
    $("y-max").value = ya.max == null ? "" : String(ya.max);
    $("y-log").checked = !!ya.log;
    $("type").value = st.type;
    $("chart-name").textContent = heading();
    fillPalette();
    $("rename").value = cur.chart.name;
    document.title = cur.chart.name + " · chartd";
    fillSeries();
    fillLooks();
    showControls();
    // what the form shows of the saved chart, to tell edits from it
    cur.filled = formValues();
  }

  // controls are the form's fields each chart type draws with, as the
  // drawing code reads them (libs/draw): the axis fields style.xAxisTitle,
  // yAxisTitle and yAxis (min, max, log); a histogram's counts are never
  // on a log scale; a heat map has no value axis; pie, sankey and radar
  // draw no x or y axis, and the API refuses axis ops for them. series is
  // the role whose columns colour the series (colors.of by column id);
  // first when only its first column does (a heat map's scale, a box
  // plot's boxes). Pie slices, sankey nodes and scatter groups are
  // coloured by their names, not by a column: no column swatch applies.
  var allAxes = ["x-title", "y-title", "y-range", "y-log"];
  var controls = {
    bar: { axes: allAxes, series: "values" },
    line: { axes: allAxes, series: "values" },
    dotplot: { axes: allAxes, series: "values" },
    scatter: { axes: allAxes, series: "y", ungrouped: true },
    histogram: { axes: ["x-title", "y-title", "y-range"], series: "value", first: true },
    boxplot: { axes: allAxes, series: "value", first: true, xNeedsGroup: true },
    heatmap: { axes: ["x-title", "y-title"], series: "value", first: true },
    pie: { axes: [], series: "" },
    sankey: { axes: [], series: "" },
    radar: { axes: [], series: "values" },
  };

  // controlsOf answers the controls of a chart type; an unknown type
  // shows every control.
  function controlsOf(type) { return controls[type] || { axes: allAxes, series: "values" }; }

  // axesShown are the axis fields that apply to the type chosen in the
  // form, with the saved chart's roles (a box plot titles its x axis only
  // when its boxes are grouped).
  function axesShown() {
    var type = $("type").value || cur.state.type, c = controlsOf(type);
    return c.axes.filter(function (a) {
      return !(a === "x-title" && c.xNeedsGroup && type === cur.state.type && !(cur.state.mapping || {}).group);
    });
  }

  // showControls shows only the fields that change the chart of the type
  // chosen in the form; the series colours are the saved type's.
  function showControls() {
    var shown = axesShown();
    [].forEach.call(document.querySelectorAll("[data-axis]"), function (el) {
      el.hidden = shown.indexOf(el.getAttribute("data-axis")) < 0;
    });
    $("axes").hidden = shown.length === 0;
    $("series").hidden = $("type").value !== cur.state.type || !$("series").querySelector("[data-series]");
  }

  // paletteColors are the colours the palette chosen in the form gives
  // the series, in order ("Current colours": the saved ones).
  function paletteColors() {
    var saved = (cur.state.style && cur.state.style.palette) || [];
    var v = $("palette").value;
    if (v === "brand") return cur.brand && cur.brand.length ? cur.brand : saved;
    if (!v && saved.length) return saved;
    var p = cur.palettes.filter(function (x) { return x.id === (v || "default"); })[0];
    return p ? p.colors : saved;
  }

  // lookTypes are the chart types that draw a highlight of categories
  // (by their role) or of series, and small multiples (setHighlight,
  // setFacet; chartspec.HighlightTypes, FacetTypes).
  var lookTypes = {
    categories: { bar: "category", pie: "label", scatter: "group", boxplot: "group" },
    series: ["bar", "line", "dotplot", "radar"],
    facet: ["bar", "line", "scatter", "histogram", "boxplot", "dotplot"],
  };

  // fillLooks fills the highlight, small multiples and theme controls
  // from the saved chart: a box to tick for each category or series,
  // the text columns to draw panels by, the theme.
  function fillLooks() {
    var st = cur.state, mapping = st.mapping || {}, d = cur.spec && cur.spec.data;
    var hl = st.highlight || {}, box = $("highlight-items");
    box.textContent = "";
    var cols = {};
    (st.columns || []).forEach(function (col) { cols[col.id] = col.name; });
    var items = [];
    if (lookTypes.series.indexOf(st.type) >= 0 && [].concat(mapping.values || []).length > 1) {
      [].concat(mapping.values).forEach(function (cid) { items.push({ kind: "series", key: cid, name: cols[cid] || cid }); });
    }
    var role = lookTypes.categories[st.type], cat = role && mapping[role];
    if (cat && d && !items.length) {
      var at = -1;
      d.columns.forEach(function (c, i) { if (c.id === cat) at = i; });
      var seen = {};
      (d.rows || []).forEach(function (row) {
        var v = at >= 0 && row[at] != null ? String(row[at]) : "";
        if (v && !seen[v] && items.length < 36) { seen[v] = true; items.push({ kind: "categories", key: v, name: v }); }
      });
    }
    items.forEach(function (it, i) {
      var lab = document.createElement("label");
      lab.className = "check";
      var inp = document.createElement("input");
      inp.type = "checkbox";
      inp.id = "hl-" + i;
      inp.setAttribute("data-hl-kind", it.kind);
      inp.setAttribute("data-hl-key", it.key);
      inp.checked = (hl[it.kind] || []).indexOf(it.key) >= 0;
      lab.appendChild(inp);
      lab.appendChild(document.createTextNode(" " + it.name));
      box.appendChild(lab);
    });
    $("highlight").hidden = !items.length;
    var fc = $("facet-column");
    while (fc.options.length > 1) fc.remove(1);
    (st.columnsAfterSteps || []).forEach(function (col) {
      if (col.kind !== "text") return;
      var o = document.createElement("option");
      o.value = col.id;
      o.textContent = col.name;
      fc.appendChild(o);
    });
    fc.value = st.facet ? st.facet.column : "";
    $("facet-scales").value = st.facet ? st.facet.scales : "shared";
    $("facet").hidden = lookTypes.facet.indexOf(st.type) < 0;
    $("theme").value = st.theme || "light";
  }

  // looksOps are the highlight, small multiples and theme edits as ops.
  function looksOps() {
    var st = cur.state, ops = [], hl = {}, any = false;
    [].forEach.call(document.querySelectorAll("[data-hl-kind]"), function (inp) {
      if (!inp.checked) return;
      var k = inp.getAttribute("data-hl-kind");
      (hl[k] = hl[k] || []).push(inp.getAttribute("data-hl-key"));
      any = true;
    });
    var want = any ? hl : null, was = st.highlight || null;
    if (JSON.stringify(want) !== JSON.stringify(was)) ops.push({ op: "setHighlight", highlight: want });
    var col = $("facet-column").value, scales = $("facet-scales").value, f = st.facet;
    if (!$("facet").hidden && (col ? !f || f.column !== col || f.scales !== scales : !!f)) {
      ops.push({ op: "setFacet", facet: col ? { column: col, scales: scales } : null });
    }
    if ($("theme").value !== (st.theme || "light")) ops.push({ op: "setTheme", theme: $("theme").value });
    return ops;
  }

  // fillSeries makes a colour swatch for each column that colours a
  // series of the saved chart's type.
  function fillSeries() {
    var st = cur.state, mapping = st.mapping || {};
    var fs = $("series");
    while (fs.children.length > 1) fs.removeChild(fs.lastChild);
    var c = controlsOf(st.type);
    var cols = {};
    (st.columns || []).forEach(function (col) { cols[col.id] = col.name; });
    var ids = c.series && !(c.ungrouped && mapping.group) ? [].concat(mapping[c.series] || []) : [];
    if (c.first) ids = ids.slice(0, 1);
    ids.forEach(function (cid, i) {
      var inputId = "color-" + cid;
      var lab = text("label", (cols[cid] || cid) + " colour");
      lab.setAttribute("for", inputId);
      var inp = document.createElement("input");
      inp.type = "color";
      inp.id = inputId;
      inp.setAttribute("data-series", cid);
      inp.setAttribute("data-index", String(i));
      fs.appendChild(lab);
      fs.appendChild(inp);
    });
    recolour(true);
  }

  // recolour shows each swatch in the colour the chart draws its series
  // in with the palette chosen in the form: its pinned colour, else the
  // palette's. A swatch the person changed keeps their colour, unless
  // all is set (the form filled again from the saved chart).
  function recolour(all) {
    var pal = paletteColors(), pinned = (cur.state.style && cur.state.style.seriesColors) || {};
    [].forEach.call(document.querySelectorAll("[data-series]"), function (inp) {
      if (!all && inp.value !== inp.getAttribute("data-was")) return;
      var cid = inp.getAttribute("data-series"), i = Number(inp.getAttribute("data-index"));
      var color = (pinned[cid] || pal[i % Math.max(1, pal.length)] || "#1f77b4").toLowerCase();
      inp.value = color;
      inp.setAttribute("data-was", color);
    });
  }

  // heading is the chart's title when it shows one, else its name.
  function heading() {
    var t = cur.state && cur.state.style && cur.state.style.title;
    return t && t.show !== false && t.text ? t.text : cur.chart.name;
  }

  // paletteOf finds the preset whose colours the chart uses, or "".
  function paletteOf(colors) {
    var key = (colors || []).join(",").toUpperCase();
    if (!key) return "";
    var hit = cur.palettes.filter(function (p) { return p.colors.join(",").toUpperCase() === key; })[0];
    return hit ? hit.id : "";
  }

  // fillPalette selects the palette in use; colours of no preset (set one
  // by one, or the brand palette) are "Current colours".
  function fillPalette() {
    var id = paletteOf(cur.state.style && cur.state.style.palette);
    cur.palette = id;
    $("palette-current").hidden = id !== "";
    $("palette").value = id;
  }

  function rowsText(n) { return n === 1 ? "1 row" : n + " rows"; }

  // firstRows is how many rows the data table shows until the person
  // asks for all: a long table would push Download and Embed far down.
  var firstRows = 10;

  function fillData() {
    var table = $("data-table");
    table.textContent = "";
    var d = cur.spec && cur.spec.data;
    if (!d) return;
    var head = document.createElement("thead"), tr = document.createElement("tr");
    d.columns.forEach(function (c) {
      var th = text("th", c.name);
      th.scope = "col";
      th.title = c.id + " · " + c.kind;
      tr.appendChild(th);
    });
    head.appendChild(tr);
    table.appendChild(head);
    var body = document.createElement("tbody");
    var rows = d.rows || [], more = rows.length > firstRows, all = more && !!cur.allRows;
    (all ? rows : rows.slice(0, firstRows)).forEach(function (row) {
      var r = document.createElement("tr");
      row.forEach(function (cell) { r.appendChild(text("td", cell)); });
      body.appendChild(r);
    });
    table.appendChild(body);
    // all rows scroll in a box of their own (the keyboard reaches it)
    $("data-scroll").classList.toggle("tall", all);
    $("rows-note").textContent = more && !all ? "The first " + firstRows + " of " + rowsText(rows.length) + "." : rowsText(rows.length) + ".";
    var b = $("rows-all");
    b.hidden = !more;
    b.textContent = all ? "Show the first " + firstRows + " rows" : "Show all " + rowsText(rows.length);
    b.setAttribute("aria-expanded", String(all));
  }
  $("rows-all").addEventListener("click", function () {
    cur.allRows = !cur.allRows;
    fillData();
  });

  // fixOf finds the first op a lint message suggests as JSON, skipping
  // ones with a placeholder for a person to fill in.
  function fixOf(msg) {
    var at = msg.indexOf('{"op"');
    while (at >= 0) {
      var depth = 0, inStr = false;
      for (var i = at; i < msg.length; i++) {
        var ch = msg[i];
        if (inStr) {
          if (ch === "\\") i++;
          else if (ch === '"') inStr = false;
        } else if (ch === '"') inStr = true;
        else if (ch === "{") depth++;
        else if (ch === "}" && --depth === 0) {
          var src = msg.slice(at, i + 1);
          if (src.indexOf("…") < 0) {
            try { return JSON.parse(src); } catch (e) { break; }
          }
          break;
        }
      }
      at = msg.indexOf('{"op"', at + 1);
    }
    return null;
  }

  function fillLint(problems) {
    var ul = $("lint");
    ul.textContent = "";
    if (!problems || !problems.length) {
      ul.appendChild(text("li", "No problems found."));
      return;
    }
    problems.forEach(function (p) {
      var li = document.createElement("li");
      var w = words.lint(p);
      li.setAttribute("data-lint", p.id);
      li.appendChild(text("strong", p.level === "warn" ? "Warning: " : "Suggestion: "));
      li.appendChild(text("span", w.text + (w.todo ? " " + w.todo : "")));
      var fix = fixOf(p.message);
      var b = null;
      if (fix) {
        b = text("button", words.fixLabel(fix));
        b.className = "secondary fix";
        b.addEventListener("click", function () { apply([fix], "Fix applied.", "lint-status", true); });
      } else if (w.field && $(w.field)) {
        var lab = document.querySelector('label[for="' + w.field + '"]');
        b = text("button", "Go to " + (lab ? lab.textContent : w.field));
        b.className = "secondary";
        b.addEventListener("click", function () { $(w.field).focus(); });
      }
      if (b) {
        b.type = "button";
        li.appendChild(document.createTextNode(" "));
        li.appendChild(b);
      }
      ul.appendChild(li);
    });
  }

  // the notes panel asks for a refresh after its ops are saved, and
  // hears of every state loaded, to list what the chart holds
  document.addEventListener("chartd:refresh", function () { refresh().catch(fail); });
  function stateChanged() {
    document.dispatchEvent(new CustomEvent("chartd:state", { detail: { chart: cur.chart, state: cur.state, spec: cur.spec } }));
  }

  function refresh() {
    var t0 = performance.now();
    return Promise.all([
      call("GET", "/charts/" + id + "?include=spec").then(function (j) {
        cur.chart = j.chart;
        cur.state = j.state;
        cur.spec = j.spec;
        fillForm();
        fillData();
        fillLint(j.state.warnings);
        stateChanged();
      }),
      preview(t0),
    ]);
  }

  // formValues are the edit form's fields by id, as now shown.
  // A series swatch counts only when the person changed it: one that
  // shows the chosen palette's colour follows the palette.
  function formValues() {
    var v = {};
    [].forEach.call($("ops-form").elements, function (el) {
      if (!el.id) return;
      if (el.hasAttribute("data-series")) v[el.id] = el.value === el.getAttribute("data-was") ? "" : el.value;
      else v[el.id] = el.type === "checkbox" ? el.checked : el.value;
    });
    return v;
  }

  // restoreEdits puts back the fields the person had changed from what
  // the form showed (filled) to what they typed, after the form is filled
  // again: a fix saves only itself, and edits not yet saved stay.
  function restoreEdits(filled, typed) {
    [].forEach.call($("ops-form").elements, function (el) {
      if (!el.id || !(el.id in typed) || typed[el.id] === filled[el.id]) return;
      if (el.type === "checkbox") el.checked = typed[el.id];
      else el.value = typed[el.id];
    });
    recolour(false);
    showControls();
  }

  // apply sends ops with the version the page shows: a chart changed
  // elsewhere meanwhile is a conflict, never overwritten. keepEdits
  // saves only ops and keeps the form's unsaved edits (a fix from the
  // Checks panel); otherwise the form shows the saved chart.
  function apply(ops, done, where, keepEdits) {
    where = where || "apply-status";
    if (!ops.length) { say("Nothing to change.", false, where); return Promise.resolve(); }
    var filled = cur.filled, typed = formValues(), before = cur.state;
    var t0 = performance.now();
    say("Saving…", false, where);
    return call("POST", "/charts/" + id + "/ops", { ops: ops, expected_updated_at: cur.chart.updated_at })
      .then(function (j) {
        cur.chart = j.chart;
        fillLint(j.warnings);
        // The state first, so the preview sends no edit already saved.
        return call("GET", "/charts/" + id + "?include=spec").then(function (g) {
          cur.chart = g.chart; cur.state = g.state; cur.spec = g.spec;
          return followTitle(before, g.state);
        }).then(function () {
          fillForm(); fillData(); fillLint(cur.state.warnings);
          if (keepEdits && filled) restoreEdits(filled, typed);
          return preview(t0);
        });
      })
      .then(function () { say(done || "Saved.", false, where); }, failAt(where));
  }

  // autoName is the name the API gives a chart it names itself
  // (services/chart defaultName): its title, else "Untitled <type>".
  function autoName(state) {
    var t = shownText(state.style && state.style.title).trim();
    if (t) return Array.from(t).slice(0, 200).join("");
    var ct = cur.types.filter(function (x) { return x.type === state.type; })[0];
    return "Untitled " + (ct ? ct.label : state.type).toLowerCase();
  }

  // followTitle renames the chart after its new title (state after) while
  // its name is still the one its old title gave it (state before), or a
  // copy's of it: the chart list and the downloads show the title until
  // the person renames the chart on purpose.
  function followTitle(before, after) {
    var was = autoName(before), now = autoName(after), name = cur.chart.name;
    if (was === now || (name !== was && name !== "Copy of " + was)) return Promise.resolve();
    return call("PATCH", "/charts/" + id, { name: now }).then(function (j) { cur.chart = j.chart; });
  }

  function num(v) { return v.trim() === "" ? null : Number(v); }

  // pendingOps are the form's edits not yet saved, as ops.
  function pendingOps() {
    var st = cur.state, style = st.style || {}, ops = [];
    var title = $("title").value, sub = $("subtitle").value;
    var oldTitle = style.title && style.title.show !== false ? style.title.text || "" : "";
    var oldSub = style.subtitle && style.subtitle.show !== false ? style.subtitle.text || "" : "";
    if (title !== oldTitle) ops.push({ op: "setTitle", title: { text: title } });
    if (sub !== oldSub) ops.push({ op: "setSubtitle", subtitle: { text: sub } });
    // One setFooter with the fields that changed; an emptied field is null.
    var oldFooter = style.footer || {}, footer = {}, footerChanged = false;
    footerFields.forEach(function (f) {
      var v = $(f.input).value.trim();
      if (v !== (oldFooter[f.name] || "")) {
        footer[f.name] = v === "" ? null : v;
        footerChanged = true;
      }
    });
    if (footerChanged) ops.push({ op: "setFooter", footer: footer });
    if ($("type").value !== st.type) ops.push({ op: "setType", type: $("type").value });
    if ($("palette").value && $("palette").value !== cur.palette) ops.push({ op: "setPalette", palette: $("palette").value });
    [].forEach.call(document.querySelectorAll("[data-series]"), function (inp) {
      if (inp.value !== inp.getAttribute("data-was")) ops.push({ op: "setSeriesColor", series: inp.getAttribute("data-series"), color: inp.value.toUpperCase() });
    });
    // Only the axis fields the chosen type draws with: a hidden field
    // changes nothing.
    var axes = axesShown(), has = function (a) { return axes.indexOf(a) >= 0; };
    var xt = $("x-title").value, yt = $("y-title").value;
    if (has("x-title") && xt !== (style.xAxisTitle && style.xAxisTitle.text || "")) ops.push({ op: "setAxisTitle", axis: "x", text: xt || null });
    if (has("y-title") && yt !== (style.yAxisTitle && style.yAxisTitle.text || "")) ops.push({ op: "setAxisTitle", axis: "y", text: yt || null });
    // One setAxis with what changed from the saved y axis; an emptied
    // bound is null (the data's own).
    var ya = style.yAxis || {}, ax = { op: "setAxis", axis: "y" }, axChanged = false;
    if (has("y-range")) {
      var mn = num($("y-min").value), mx = num($("y-max").value);
      if (mn !== (ya.min == null ? null : ya.min)) { ax.min = mn; axChanged = true; }
      if (mx !== (ya.max == null ? null : ya.max)) { ax.max = mx; axChanged = true; }
    }
    if (has("y-log") && $("y-log").checked !== !!ya.log) { ax.log = $("y-log").checked; axChanged = true; }
    if (axChanged) ops.push(ax);
    return ops.concat(looksOps());
  }

  // showUnsaved says whether the form holds edits not yet saved (the
  // preview shows them), or why the preview could not draw them.
  function showUnsaved(dirty, problem) {
    var m = $("preview-msg");
    m.textContent = problem || (dirty ? "Unsaved changes: the preview shows them; Save keeps them." : "");
    m.className = problem ? "error" : "hint";
  }

  // Live preview: an edit redraws the preview after a short pause in
  // typing (debounced), before Save; focus stays where it is.
  var liveTimer = 0;
  function live() {
    clearTimeout(liveTimer);
    var t0 = performance.now();
    liveTimer = setTimeout(function () {
      preview(t0).catch(function (e) { showUnsaved(true, e.message); });
    }, LIVE_DELAY_MS);
  }
  var LIVE_DELAY_MS = 100;
  $("ops-form").addEventListener("input", live);
  $("ops-form").addEventListener("change", live);
  // The swatches show the chosen palette's colours and the form the
  // chosen type's fields before Save, as the preview does.
  $("palette").addEventListener("change", function () { recolour(false); });
  $("type").addEventListener("change", showControls);
  window.addEventListener("beforeunload", function (e) {
    if (cur.state && pendingOps().length) { e.preventDefault(); e.returnValue = ""; }
  });

  $("ops-form").addEventListener("submit", function (e) {
    e.preventDefault();
    var ops = pendingOps();
    apply(ops);
  });

  // shownText is a title or subtitle as drawn, or "".
  function shownText(t) { return t && t.show !== false ? t.text || "" : ""; }

  // replaceData sends the pasted data; clearTitle also clears the title
  // and subtitle, which were about the old data.
  function replaceData(csv, clearTitle) {
    var t0 = performance.now();
    $("title-ask").hidden = true;
    say("Replacing the data…", false, "data-status");
    call("PUT", "/charts/" + id + "/data", { data: csv, format: "csv" }).then(function (j) {
      var ul = $("notices");
      ul.textContent = "";
      var repicked = false;
      (j.notices || []).forEach(function (n) {
        repicked = repicked || n.code === "roles_repicked";
        ul.appendChild(text("li", words.notice(n)));
      });
      if (!j.mapping_kept && !repicked) ul.appendChild(text("li", "The columns changed, so the columns the chart draws were picked again."));
      $("csv").value = "";
      cur.chart = j.chart;
      var ops = [];
      if (clearTitle) {
        ops.push({ op: "setTitle", title: { text: "" } });
        if (shownText(cur.state.style && cur.state.style.subtitle)) ops.push({ op: "setSubtitle", subtitle: { text: "" } });
      }
      var styled = ops.length ? call("POST", "/charts/" + id + "/ops", { ops: ops, expected_updated_at: j.chart.updated_at }) : Promise.resolve();
      var before = cur.state;
      // the state first, so the preview sends no edit already saved
      return styled.then(function () {
        return call("GET", "/charts/" + id + "?include=spec").then(function (g) {
          cur.chart = g.chart; cur.state = g.state; cur.spec = g.spec;
          return followTitle(before, g.state);
        }).then(function () {
          fillForm(); fillData(); fillLint(cur.state.warnings);
          return preview(t0);
        });
      }).then(function () {
        say("Data replaced: " + rowsText(j.rows) + "." + (clearTitle ? " The title was cleared; give the chart a new one." : ""), false, "data-status");
        if (clearTitle) $("title").focus();
      });
    }).catch(failAt("data-status"));
  }

  // A title written for the old data (a sample's, say) would sit over the
  // new data: ask before keeping it.
  $("data-form").addEventListener("submit", function (e) {
    e.preventDefault();
    var csv = $("csv").value;
    if (!csv.trim()) { say("Paste data with a header row first.", true, "data-status"); return; }
    var title = shownText(cur.state.style && cur.state.style.title);
    if (!title) { replaceData(csv, false); return; }
    $("title-ask-title").textContent = "“" + title + "”";
    $("title-ask").hidden = false;
    say("", false, "data-status");
    $("title-keep").focus();
  });
  $("title-keep").addEventListener("click", function () { replaceData($("csv").value, false); });
  $("title-clear").addEventListener("click", function () { replaceData($("csv").value, true); });

  $("rename-form").addEventListener("submit", function (e) {
    e.preventDefault();
    call("PATCH", "/charts/" + id, { name: $("rename").value }).then(function (j) {
      cur.chart = j.chart;
      $("chart-name").textContent = heading();
      document.title = j.chart.name + " · chartd";
      say("Renamed.");
    }, fail);
  });

  $("duplicate").addEventListener("click", function () {
    call("POST", "/charts/" + id + "/duplicate").then(function (j) { window.location.assign("/charts/" + j.chart.id); }, fail);
  });

  $("delete").addEventListener("click", function () {
    if (!window.confirm("Delete this chart? This cannot be undone; its image links stop working.")) return;
    call("DELETE", "/charts/" + id).then(function () { window.location.assign("/charts"); }, fail);
  });

  // fileName is the chart's name made safe as a file name.
  function fileName(suffix) {
    return (cur.chart.name || "chart").replace(/[\\/:*?"<>|]+/g, "-") + suffix;
  }

  // download draws the saved chart (render_chart: the chart as it is
  // saved, at its own size) and hands the file to the browser.
  function download(btn) {
    var fmt = btn.getAttribute("data-format"), scale = btn.getAttribute("data-scale");
    var path = "/charts/" + id + "/render." + fmt + (fmt === "png" ? "?scale=" + scale : "");
    var name = fileName((scale === "2" ? "@2x" : "") + "." + fmt);
    say("Drawing " + name + "…", false, "dl-status");
    return call("GET", path).then(function (blob) {
      var a = document.createElement("a");
      a.href = URL.createObjectURL(blob);
      a.download = name;
      a.hidden = true;
      document.body.appendChild(a);
      a.click();
      probe.download = { url: api + path, name: name, type: blob.type, size: blob.size };
      setTimeout(function () { URL.revokeObjectURL(a.href); a.remove(); }, 1000);
      say("Downloaded " + name + ".", false, "dl-status");
    }, failAt("dl-status"));
  }
  ["dl-png", "dl-png2", "dl-svg"].forEach(function (b) {
    $(b).addEventListener("click", function () { download($(b)); });
  });

  // described reads the picture's own title and description (the SVG's
  // <title> and <desc>) for the alt text. It parses only the head of the
  // SVG, up to the description: the font <style> after it would be
  // refused by the page's style-src, and each refusal is a CSP report.
  function described() {
    if (!probe.svg) return Promise.resolve({ alt: cur.chart.name });
    return probe.svg.text().then(function (src) {
      var end = src.indexOf("</desc>");
      if (end < 0) return { alt: cur.chart.name };
      var head = src.slice(0, end + "</desc>".length) + "</svg>";
      var doc = new DOMParser().parseFromString(head, "image/svg+xml"), svg = doc.documentElement;
      if (svg.nodeName !== "svg") return { alt: cur.chart.name };
      var t = svg.querySelector("title"), d = svg.querySelector("desc");
      var title = t ? t.textContent.trim() : "", desc = d ? d.textContent.trim() : "";
      var alt = desc && title && desc.indexOf(title) !== 0 ? title + ". " + desc : desc || title || cur.chart.name;
      return { alt: alt, width: svg.getAttribute("width"), height: svg.getAttribute("height") };
    });
  }

  function attr(v) { return String(v).replace(/&/g, "&amp;").replace(/"/g, "&quot;").replace(/</g, "&lt;").replace(/>/g, "&gt;"); }
  function mdText(v) { return String(v).replace(/[\\\[\]]/g, "\\$&").replace(/\s+/g, " "); }

  // embed holds the last links and picture facts; writeEmbed redraws the
  // code from them and the alt text field.
  var embed = null;
  function writeEmbed() {
    if (!embed) return;
    var alt = $("alt-text").value.trim() || embed.alt;
    var size = embed.width && embed.height ? ' width="' + attr(embed.width) + '" height="' + attr(embed.height) + '"' : "";
    $("embed-html").textContent = '<img src="' + attr(embed.url1) + '" srcset="' + attr(embed.url1) + " 1x, " + attr(embed.url2) + ' 2x"' + size + ' alt="' + attr(alt) + '">';
    $("embed-link").textContent = embed.url1;
    $("embed-md").textContent = "![" + mdText(alt) + "](" + embed.url1.replace(/\)/g, "%29") + ")";
    probe.embed = { html: $("embed-html").textContent, link: embed.url1, markdown: $("embed-md").textContent };
  }
  $("alt-text").addEventListener("input", writeEmbed);

  function showAlt() {
    return described().then(function (d) {
      $("alt-auto").textContent = d.alt;
      if (embed && (embed.alt !== d.alt)) {
        embed.alt = d.alt;
        writeEmbed();
      }
      return d;
    });
  }

  // showFrame shows the responsive embed's code and previews it in a
  // frame as wide as the width chosen, scaled down to fit the column.
  var frameURL = "";
  function showFrame(e) {
    frameURL = e.url;
    $("embed-frame").textContent = e.html;
    probe.frame = { html: e.html, url: e.url, oembed: e.oembed_url };
    previewFrame();
  }
  function previewFrame() {
    if (!frameURL) return;
    var w = Number(document.querySelector("input[name=embed-width]:checked").value);
    var box = $("embed-preview");
    var f = box.querySelector("iframe");
    if (!f) {
      f = document.createElement("iframe");
      f.title = "Preview of the responsive embed";
      f.setAttribute("scrolling", "no");
      box.appendChild(f);
    }
    if (f.getAttribute("src") !== frameURL) f.src = frameURL;
    var k = box.clientWidth > 0 ? Math.min(1, box.clientWidth / w) : 1;
    f.style.width = w + "px";
    f.style.transform = "scale(" + k + ")";
    f.dataset.scale = String(k);
    f.dataset.width = String(w);
    box.style.height = Math.ceil((parseFloat(f.style.height) || 400) * k) + "px";
  }
  var widths = document.querySelectorAll("input[name=embed-width]");
  for (var wi = 0; wi < widths.length; wi++) widths[wi].addEventListener("change", previewFrame);
  // the preview frame tells its height as it would to any host page
  window.addEventListener("message", function (e) {
    var f = $("embed-preview").querySelector("iframe");
    if (!f || e.source !== f.contentWindow || e.origin !== location.origin || !e.data || typeof e.data !== "object") return;
    var hs = e.data["chartd-height"];
    if (!hs || typeof hs !== "object") return;
    var h = hs[id];
    if (typeof h !== "number" || h <= 0) return;
    f.style.height = Math.ceil(h) + "px";
    $("embed-preview").style.height = Math.ceil(h * Number(f.dataset.scale || 1)) + "px";
  });

  $("link-form").addEventListener("submit", function (e) {
    e.preventDefault();
    var body = { id: id, format: "png" };
    if ($("link-expiry").value) body.expires_in = Number($("link-expiry").value);
    var at2 = JSON.parse(JSON.stringify(body));
    at2.scale = 2;
    body.scale = 1;
    say("Making the links…", false, "link-status");
    // One after the other: the first link may make the account's signing
    // key, and the second is then signed with the same one.
    call("POST", "/image-urls", body).then(function (one) {
      return Promise.all([one, call("POST", "/image-urls", at2), showAlt(), call("POST", "/charts/" + id + "/embed", { theme: "auto" })]);
    }).then(function (r) {
      embed = { url1: r[0].url, url2: r[1].url, alt: r[2].alt, width: r[2].width, height: r[2].height };
      writeEmbed();
      var a = $("image-link");
      a.href = r[0].url;
      $("link-row").hidden = false;
      showFrame(r[3]);
      say(r[0].expires_at ? "Embed code made; its links expire " + new Date(r[0].expires_at).toUTCString() + "." : "Embed code made; its links last until the signing key is rotated.", false, "link-status");
    }, failAt("link-status"));
  });

  // First load: the reference lists, the chart and its picture at once.
  var t0 = performance.now();
  // The brand palette, for the swatches when it is chosen; none is fine.
  var brand = call("GET", "/brand-palette").then(function (j) { return j.colors || []; }, function () { return []; });
  Promise.all([call("GET", "/chart-types"), call("GET", "/palettes"), call("GET", "/charts/" + id + "?include=spec"), preview(t0), brand]).then(function (r) {
    cur.brand = r[4];
    cur.types = r[0].chart_types;
    cur.types.forEach(function (t) {
      var o = text("option", t.label);
      o.value = t.type;
      $("type").appendChild(o);
    });
    cur.palettes = r[1].palettes;
    r[1].palettes.forEach(function (p) {
      var o = text("option", p.name);
      o.value = p.id;
      $("palette").appendChild(o);
    });
    cur.chart = r[2].chart;
    cur.state = r[2].state;
    cur.spec = r[2].spec;
    fillForm();
    fillData();
    fillLint(r[2].state.warnings);
    showAlt();
    stateChanged();
    probe.readyAt = performance.now();
    probe.ready = true;
    say("");
  }, fail);
})();
