// The new-chart page: data in (pasted, a file, an example or a copy of
// a chart), the data as the API reads it, the data drawn as every chart
// type, then create_chart through the public API with the session and
// the CSRF header. Messages show beside the control that caused them.
"use strict";
(function () {
  var root = document.getElementById("newchart");
  if (!root) return;
  var csrf = document.querySelector('meta[name="csrf-token"]').getAttribute("content");
  var $ = function (x) { return document.getElementById(x); };
  var words = window.chartdWords;
  var st = { data: null, format: "", transpose: false, kinds: {}, steps: [], send: null, sendFormat: "", sketches: [], type: "", mapping: null, autoMapping: null, file: null, urls: {} };
  // Exposed for tests: how far the page has come.
  var probe = window.chartdNew = { ready: false, reads: 0, sketches: 0, drawn: 0 };

  function call(method, path, body, raw) {
    var opts = { method: method, headers: {}, credentials: "same-origin" };
    if (method !== "GET") opts.headers["X-CSRF-Token"] = csrf;
    if (raw) opts.body = raw;
    else if (body !== undefined) {
      opts.headers["Content-Type"] = "application/json";
      opts.body = JSON.stringify(body);
    }
    return fetch(path, opts).then(function (r) {
      return r.json().catch(function () { return {}; }).then(function (j) {
        if (r.ok) return j;
        var e = j.error || {};
        // The API's refusals carry a code and are said in the site's
        // words; the site's own are said already.
        throw new Error(e.code ? words.error(e) : e.message || "The server answered " + r.status + "; try again.");
      });
    });
  }

  function say(id, msg, isError) {
    var el = $(id);
    el.textContent = msg || "";
    el.className = "msg" + (isError ? " error" : "");
  }

  function text(tag, value, cls) {
    var el = document.createElement(tag);
    el.textContent = value == null ? "" : String(value);
    if (cls) el.className = cls;
    return el;
  }

  var kindWords = { text: "text", number: "numbers", date: "dates" };

  function showTable(a) {
    var table = $("parsed");
    table.textContent = "";
    var cap = text("caption", "Your data as it was read: each column's name and the kind of values found, which you can change", "sr");
    table.appendChild(cap);
    var head = document.createElement("thead"), tr = document.createElement("tr");
    a.columns.forEach(function (c) {
      var th = text("th", c.name);
      th.scope = "col";
      th.setAttribute("data-kind", c.kind);
      // The kind as read, and a menu to read the column as another kind.
      var sel = document.createElement("select");
      sel.id = "kind-" + c.id;
      sel.className = "kind";
      sel.setAttribute("aria-label", "Kind of values in " + c.name);
      sel.setAttribute("aria-describedby", "data-msg");
      Object.keys(kindWords).forEach(function (k) { var o = text("option", kindWords[k]); o.value = k; sel.appendChild(o); });
      sel.value = c.kind;
      sel.addEventListener("change", function () { changeKind(c.id, c.kind, sel.value); });
      th.appendChild(sel);
      tr.appendChild(th);
    });
    head.appendChild(tr);
    table.appendChild(head);
    var body = document.createElement("tbody");
    a.rows.forEach(function (row) {
      var r = document.createElement("tr");
      row.forEach(function (cell) { r.appendChild(text("td", cell)); });
      body.appendChild(r);
    });
    table.appendChild(body);
    $("data-summary").textContent = a.total + (a.total === 1 ? " row" : " rows") + " and " + a.columns.length + (a.columns.length === 1 ? " column" : " columns") +
      (a.total > a.rows.length ? "; the first " + a.rows.length + " rows are shown." : ".");
    var ul = $("read-notices");
    ul.textContent = "";
    a.notices.forEach(function (n) { ul.appendChild(text("li", words.notice(n))); });
    st.columns = a.columns;
  }

  // newData forgets what was chosen for the data before.
  function newData() {
    st.transpose = false;
    st.kinds = {};
    $("transpose").setAttribute("aria-pressed", "false");
  }

  // changeKind reads a column again as another kind; when its cells do
  // not read that way, the kind stays as it was and the message says why.
  function changeKind(id, was, kind) {
    var before = Object.assign({}, st.kinds);
    st.kinds[id] = kind;
    read("data-msg", true).then(function (ok) {
      if (ok) { var el = $("kind-" + id); if (el) el.focus(); return; }
      st.kinds = before;
      var sel = $("kind-" + id);
      if (sel) sel.value = st.kinds[id] || was;
    });
  }

  // read sends the data to be read as the API reads it, then draws it.
  // It answers whether the data was read.
  function read(msgId, keepMsg) {
    say(msgId, "Reading…");
    return call("POST", "/charts/new/read", { data: st.data, format: st.format, transpose: st.transpose, kinds: st.kinds }).then(function (a) {
      st.send = a.data;
      st.sendFormat = a.format;
      st.steps = a.steps || [];
      probe.reads++;
      showTable(a);
      $("data-step").hidden = false;
      if (!keepMsg) say(msgId, "Read " + a.total + (a.total === 1 ? " row." : " rows."));
      return sketch().then(function () { return true; });
    }).catch(function (e) { say(msgId, e.message, true); return false; });
  }

  function svgURL(key, svg) {
    if (st.urls[key]) URL.revokeObjectURL(st.urls[key]);
    st.urls[key] = URL.createObjectURL(new Blob([svg], { type: "image/svg+xml" }));
    return st.urls[key];
  }

  // sketch draws the data as every chart type.
  function sketch() {
    say("data-msg", "Drawing your data as each chart type…");
    return call("POST", "/charts/new/sketches", { data: st.send, format: st.sendFormat, steps: st.steps }).then(function (a) {
      st.sketches = a.sketches;
      var box = $("types");
      box.textContent = "";
      var pick = "";
      a.sketches.forEach(function (s) {
        var lab = document.createElement("label");
        lab.setAttribute("data-type", s.type);
        var inp = document.createElement("input");
        inp.type = "radio";
        inp.name = "type";
        inp.value = s.type;
        inp.id = "type-" + s.type;
        lab.appendChild(inp);
        var img = document.createElement("img");
        img.alt = "";
        img.width = 240;
        img.height = 180;
        if (s.svg) img.src = svgURL(s.type, s.svg);
        lab.appendChild(img);
        lab.appendChild(text("span", s.label, "name"));
        if (s.error) lab.appendChild(text("span", notMade(s), "why"));
        box.appendChild(lab);
        if (!s.error && !pick) pick = s.type;
        inp.addEventListener("change", function () { choose(s.type); });
      });
      if (st.type && a.sketches.some(function (s) { return s.type === st.type && !s.error; })) pick = st.type;
      if (!pick) pick = a.sketches[0].type;
      $("type-" + pick).checked = true;
      probe.sketches++;
      $("type-step").hidden = false;
      say("data-msg", "");
      choose(pick);
    }).catch(function (e) { say("data-msg", e.message, true); });
  }

  // showChecks lists the chart's readability checks, as the editor will.
  // The title typed here answers the missing-title check.
  function showChecks(checks) {
    var ul = $("checks");
    ul.textContent = "";
    if ($("new-title").value.trim()) checks = (checks || []).filter(function (c) { return c.id !== "missing-title"; });
    if (!checks || !checks.length) { ul.appendChild(text("li", "No problems found.")); return; }
    checks.forEach(function (c) {
      var li = document.createElement("li");
      var w = words.lint(c);
      li.setAttribute("data-lint", c.id);
      li.appendChild(text("strong", c.level === "warn" ? "Warning: " : "Suggestion: "));
      li.appendChild(text("span", w.text + (w.todo ? " " + w.todo : "")));
      ul.appendChild(li);
    });
  }

  // notMade says why the data does not make a sketch's chart type.
  function notMade(s) {
    return "This data does not make a " + s.label.toLowerCase() + ": " + words.plain(s.error, "it lacks the columns this type needs.");
  }

  function sketchOf(type) { return st.sketches.filter(function (s) { return s.type === type; })[0]; }

  function colName(id) {
    var c = (st.columns || []).filter(function (x) { return x.id === id; })[0];
    return c ? c.name : id;
  }

  // choose makes type the chart type and shows its roles as the API chose them.
  function choose(type) {
    st.type = type;
    var s = sketchOf(type);
    st.autoMapping = s.mapping || {};
    st.mapping = JSON.parse(JSON.stringify(st.autoMapping));
    var box = $("role-fields");
    box.textContent = "";
    s.roles.forEach(function (r) {
      var cur = st.mapping[r.role];
      if (r.multi) {
        var fs = document.createElement("fieldset");
        fs.className = "role";
        fs.appendChild(text("legend", r.label));
        r.columns.forEach(function (cid) {
          var lab = document.createElement("label");
          lab.className = "check";
          var cb = document.createElement("input");
          cb.type = "checkbox";
          cb.value = cid;
          cb.setAttribute("data-role", r.role);
          cb.checked = [].concat(cur || []).indexOf(cid) >= 0;
          cb.addEventListener("change", rolesChanged);
          lab.appendChild(cb);
          lab.appendChild(document.createTextNode(" " + colName(cid)));
          fs.appendChild(lab);
        });
        box.appendChild(fs);
        return;
      }
      var div = document.createElement("div");
      div.className = "role";
      var sel = document.createElement("select");
      sel.id = "role-" + r.role;
      sel.setAttribute("data-role", r.role);
      var lab = text("label", r.label);
      lab.setAttribute("for", sel.id);
      if (!r.required) { var none = text("option", "(none)"); none.value = ""; sel.appendChild(none); }
      r.columns.forEach(function (cid) { var o = text("option", colName(cid)); o.value = cid; sel.appendChild(o); });
      sel.value = cur || "";
      sel.addEventListener("change", rolesChanged);
      div.appendChild(lab);
      div.appendChild(sel);
      box.appendChild(div);
    });
    $("roles").hidden = !s.roles.length;
    showChecks(s.checks);
  }

  // rolesChanged redraws the chosen type with the roles as now set.
  function rolesChanged() {
    var s = sketchOf(st.type), m = {};
    s.roles.forEach(function (r) {
      if (r.multi) {
        m[r.role] = [].map.call(document.querySelectorAll('input[data-role="' + r.role + '"]:checked'), function (cb) { return cb.value; });
      } else {
        var v = $("role-" + r.role).value;
        m[r.role] = v || null;
      }
    });
    st.mapping = m;
    var type = st.type;
    say("create-msg", "Redrawing…");
    call("POST", "/charts/new/sketches", { data: st.send, format: st.sendFormat, steps: st.steps, type: type, mapping: m }).then(function (a) {
      var n = a.sketches[0], lab = document.querySelector('#types label[data-type="' + type + '"]');
      var why = lab.querySelector(".why");
      if (why) why.remove();
      if (n.error) {
        lab.appendChild(text("span", notMade(n), "why"));
        say("create-msg", notMade(n), true);
        return;
      }
      lab.querySelector("img").src = svgURL(type, n.svg);
      s.checks = n.checks;
      showChecks(n.checks);
      probe.drawn++;
      say("create-msg", "");
    }).catch(function (e) { say("create-msg", e.message, true); });
  }

  function same(a, b) { return JSON.stringify(a) === JSON.stringify(b); }

  $("paste-form").addEventListener("submit", function (e) {
    e.preventDefault();
    var v = $("paste").value;
    if (!v.trim()) { say("paste-msg", "Paste a table first: a header row, then one row per line.", true); return; }
    st.data = v;
    st.format = "";
    newData();
    read("paste-msg");
  });

  function upload(sheet) {
    var fd = new FormData();
    fd.append("file", st.file);
    if (sheet) fd.append("sheet", sheet);
    say("file-msg", "Reading the workbook…");
    return call("POST", "/charts/new/xlsx", undefined, fd).then(function (a) {
      var sel = $("sheet");
      sel.textContent = "";
      a.sheets.forEach(function (n) { var o = text("option", n); o.value = n; sel.appendChild(o); });
      sel.value = a.sheet;
      $("sheet-row").hidden = a.sheets.length < 2;
      st.data = a.data;
      st.format = "";
      st.kinds = {};
      return read("file-msg");
    }).catch(function (e) { say("file-msg", e.message, true); });
  }

  $("file").addEventListener("change", function () {
    var f = $("file").files[0];
    if (!f) return;
    newData();
    $("sheet-row").hidden = true;
    // The gateway takes bodies of up to 5 MiB, form fields included.
    if (f.size > 5 * 1024 * 1024 - 65536) { say("file-msg", "This file is over 5 MB; save a smaller part of it, or paste the rows you need.", true); return; }
    var name = f.name.toLowerCase();
    if (/\.xlsx$/.test(name)) { st.file = f; upload(""); return; }
    if (/\.(xls|ods|numbers)$/.test(name)) { say("file-msg", "Save this file as .xlsx or CSV first; it cannot be read as it is.", true); return; }
    f.text().then(function (t) {
      st.data = t;
      st.format = /\.json$/.test(name) ? "json" : /\.tsv$/.test(name) ? "tsv" : "";
      read("file-msg");
    }, function () { say("file-msg", "This file cannot be read; choose it again.", true); });
  });

  $("sheet").addEventListener("change", function () { if (st.file) upload($("sheet").value); });

  $("transpose").addEventListener("click", function () {
    var t = !st.transpose;
    newData();
    st.transpose = t;
    $("transpose").setAttribute("aria-pressed", String(st.transpose));
    read("data-msg");
  });

  $("new-title").addEventListener("input", function () { if (st.type) showChecks(sketchOf(st.type).checks); });

  $("create-form").addEventListener("submit", function (e) {
    e.preventDefault();
    var body = { type: st.type, data: st.send };
    if (typeof st.send === "string" && st.sendFormat) body.format = st.sendFormat;
    var ops = st.steps.map(function (s) { return { op: "addTransform", transform: s }; }), title = $("new-title").value.trim();
    // With kinds changed, the roles are the ones drawn, chosen for the
    // data with those kinds.
    if (st.steps.length || !same(st.mapping, st.autoMapping)) ops.push({ op: "setMapping", mapping: st.mapping });
    if (title) ops.push({ op: "setTitle", title: { text: title } });
    if (ops.length) body.ops = ops;
    say("create-msg", "Creating…");
    call("POST", "/api/v1/charts", body).then(function (j) {
      window.location.assign("/charts/" + j.chart.id);
    }, function (err) { say("create-msg", err.message, true); });
  });

  $("example-form").addEventListener("submit", function (e) {
    e.preventDefault();
    say("example-msg", "Creating…");
    call("POST", "/api/v1/charts", { example: $("example").value }).then(function (j) {
      window.location.assign("/charts/" + j.chart.id);
    }, function (err) { say("example-msg", err.message, true); });
  });

  $("dup-form").addEventListener("submit", function (e) {
    e.preventDefault();
    if (!$("dup").value) { say("dup-msg", "You have no charts to copy yet.", true); return; }
    say("dup-msg", "Copying…");
    call("POST", "/api/v1/charts/" + encodeURIComponent($("dup").value) + "/duplicate").then(function (j) {
      window.location.assign("/charts/" + j.chart.id);
    }, function (err) { say("dup-msg", err.message, true); });
  });

  Promise.all([call("GET", "/api/v1/examples"), call("GET", "/api/v1/charts?limit=100")]).then(function (r) {
    r[0].examples.forEach(function (x) {
      var o = text("option", x.label);
      o.value = x.id;
      $("example").appendChild(o);
    });
    var mine = r[1].charts;
    if (!mine.length) {
      var o = text("option", "(no charts yet)");
      o.value = "";
      $("dup").appendChild(o);
    }
    mine.forEach(function (c) { var o = text("option", c.name); o.value = c.id; $("dup").appendChild(o); });
    var from = new URLSearchParams(window.location.search).get("from");
    if (from) $("dup").value = from;
    probe.ready = true;
  }, function (e) { say("example-msg", e.message, true); probe.ready = true; });
})();
