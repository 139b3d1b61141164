// The editor's Notes and Reference lines panels: notes, lines and ranges
// go in and out through the public API's ops (addAnnotation,
// addReferenceLine, addRange, removeAnnotation) under the editor's
// conflict rule, and the editor redraws after each (chartd:refresh).
"use strict";
(function () {
  var root = document.getElementById("editor");
  if (!root) return;
  var id = root.getAttribute("data-id");
  var csrf = document.querySelector('meta[name="csrf-token"]').getAttribute("content");
  var $ = function (x) { return document.getElementById(x); };
  var cur = null;
  // The chart types that draw notes, and lines and ranges (as the op
  // catalog says; other types refuse the ops).
  var noteTypes = ["bar", "line", "scatter", "dotplot"];
  var lineTypes = ["bar", "line", "scatter", "histogram", "boxplot", "dotplot"];
  var xRole = { bar: "category", dotplot: "category", line: "x", scatter: "x", histogram: "value", boxplot: "group" };
  var valueRole = { scatter: "y", histogram: "value", boxplot: "value" };

  function say(msg, isError) {
    var s = $("story-status");
    s.textContent = msg;
    s.className = isError ? "error" : "";
  }

  function ids(ref) { return ref == null ? [] : Array.isArray(ref) ? ref : [ref]; }

  // apply sends ops to the chart and asks the editor to redraw.
  function apply(ops, done) {
    var body = { ops: ops };
    if (cur && cur.chart) body.expected_updated_at = cur.chart.updated_at;
    return fetch("/api/v1/charts/" + id + "/ops", { method: "POST", credentials: "same-origin",
      headers: { "Content-Type": "application/json", "X-CSRF-Token": csrf }, body: JSON.stringify(body) }).then(function (r) {
      return r.json().then(function (j) {
        if (!r.ok) throw new Error(j.error ? j.error.message : "the server answered " + r.status);
        say(done, false);
        document.dispatchEvent(new CustomEvent("chartd:refresh"));
      });
    }).catch(function (e) { say(e.message, true); });
  }

  function option(sel, value, label) {
    var o = document.createElement("option");
    o.value = value;
    o.textContent = label;
    sel.appendChild(o);
  }

  // column finds a column of the spec's data by id: its name and cells.
  function column(cid) {
    var data = cur.spec && cur.spec.data;
    if (!data) return null;
    for (var i = 0; i < data.columns.length; i++) {
      if (data.columns[i].id === cid) {
        return { name: data.columns[i].name, cells: data.rows.map(function (r) { return r[i]; }) };
      }
    }
    return null;
  }

  function fill() {
    var st = cur.state, type = st.type;
    var takesNotes = noteTypes.indexOf(type) >= 0, takesLines = lineTypes.indexOf(type) >= 0;
    $("note-form").hidden = !takesNotes;
    $("line-form").hidden = $("range-form").hidden = !takesLines;
    $("notes-hint").textContent = takesNotes ? "Click a bar or point in the preview to choose where a note points, or pick it here." :
      "A " + type + " chart has no notes; bar, line, scatter and dot plot charts do.";
    var x = column(ids(st.mapping[xRole[type]])[0]);
    var sel = $("note-x"), keep = sel.value;
    sel.textContent = "";
    var seen = {};
    if (x) x.cells.forEach(function (c) {
      if (c == null || c === "" || seen[c]) return;
      seen[c] = true;
      option(sel, String(c), String(c));
    });
    if (seen[keep]) sel.value = keep;
    var series = $("note-series");
    series.textContent = "";
    ids(st.mapping[valueRole[type] || "values"]).forEach(function (cid) {
      var c = column(cid);
      option(series, cid, c ? c.name : cid);
    });
    series.disabled = series.options.length < 2;
    list();
  }

  // list shows the chart's notes, lines and ranges, each with its remove button.
  function list() {
    var notes = $("notes-list"), lines = $("lines-list");
    notes.textContent = "";
    lines.textContent = "";
    (cur.state.annotations || []).forEach(function (a, i) {
      var what;
      if (a.type === "note") what = "Note “" + a.text + "” at " + a.x;
      else if (a.type === "line") what = "Line at " + a.value + (a.label ? " (" + a.label + ")" : "");
      else what = "Range " + a.from + " to " + a.to + (a.label ? " (" + a.label + ")" : "");
      var li = document.createElement("li");
      var span = document.createElement("span");
      span.textContent = what + " ";
      var b = document.createElement("button");
      b.type = "button";
      b.className = "secondary";
      b.textContent = "Remove";
      b.setAttribute("aria-label", "Remove " + what.charAt(0).toLowerCase() + what.slice(1));
      b.addEventListener("click", function () { apply([{ op: "removeAnnotation", index: i }], "Removed."); });
      li.appendChild(span);
      li.appendChild(b);
      (a.type === "note" ? notes : lines).appendChild(li);
    });
  }

  // place reads a typed place: a number when it is one, else the text.
  function place(s) {
    s = s.trim();
    var n = Number(s);
    return s !== "" && isFinite(n) ? n : s;
  }

  $("note-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var note = { text: $("note-text").value.trim(), x: place($("note-x").value) };
    if ($("note-series").value) note.series = $("note-series").value;
    apply([{ op: "addAnnotation", annotation: note }], "Note added.").then(function () { $("note-text").value = ""; });
  });
  $("line-at").addEventListener("change", function () { $("line-value").disabled = $("line-at").value !== "value"; });
  $("line-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var at = $("line-at").value;
    var line = { axis: cur.state.type === "histogram" ? "x" : "y", value: at === "value" ? place($("line-value").value) : at };
    if ($("line-label").value.trim()) line.label = $("line-label").value.trim();
    apply([{ op: "addReferenceLine", line: line }], "Line added.");
  });
  $("range-form").addEventListener("submit", function (ev) {
    ev.preventDefault();
    var r = { axis: cur.state.type === "histogram" ? "x" : "y", from: place($("range-from").value), to: place($("range-to").value) };
    if ($("range-label").value.trim()) r.label = $("range-label").value.trim();
    apply([{ op: "addRange", range: r }], "Range added.");
  });

  // A click on the preview picks the category whose name is drawn nearest
  // the click along the bottom (the picture's own axis labels).
  $("preview").addEventListener("click", function (ev) {
    var probe = window.chartdEditor, img = ev.currentTarget;
    if (!probe || !probe.svg || $("note-form").hidden) return;
    probe.svg.text().then(function (text) {
      var doc = new DOMParser().parseFromString(text, "image/svg+xml");
      var svg = doc.documentElement;
      var scale = Number(svg.getAttribute("width")) / img.clientWidth;
      var x = ev.offsetX * scale, y = ev.offsetY * scale;
      var names = {}, best = null, bestD = Infinity;
      [].forEach.call($("note-x").options, function (o) { names[o.value] = true; });
      [].forEach.call(doc.querySelectorAll("text"), function (t) {
        var name = t.textContent;
        if (!names[name]) return;
        var tx = Number(t.getAttribute("x")), ty = Number(t.getAttribute("y"));
        var d = t.getAttribute("text-anchor") === "end" ? Math.abs(ty - y) : Math.abs(tx - x);
        if (d < bestD) { best = name; bestD = d; }
      });
      if (best == null) return;
      $("note-x").value = best;
      $("note-text").focus();
      say("The note will point at " + best + ". Type its text.", false);
    });
  });

  document.addEventListener("chartd:state", function (ev) {
    cur = ev.detail;
    fill();
  });
})();
