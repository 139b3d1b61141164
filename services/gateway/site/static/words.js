// The site's words for what the API says. The API keeps its wording: it
// speaks to programs and assistants and names ops, fields and JSON. The
// pages speak to people: lint problems are said by their id, notices and
// refusals by their code, and anything else goes through plain(), which
// keeps only the sentences free of op names, field paths and JSON.
"use strict";
window.chartdWords = (function () {
  // lint: by lint id, what is wrong (keep: the API's first sentence says it
  // plainly, with the chart's own names and numbers) and what to do here.
  var lint = {
    "missing-required-role": { say: "The chart type needs a column the chart does not draw yet.", todo: "Apply the suggested columns, or choose a chart type that fits the data." },
    "no-data": { say: "The chart has no data rows.", todo: "Paste data under Data." },
    "empty-after-steps": { say: "The chart's data steps leave no rows to draw.", todo: "Duplicate the chart and start again from its data, or replace the data." },
    "missing-title": { say: "The chart has no title.", todo: "Type a title that says what the chart shows.", field: "title" },
    "pie-too-many-slices": { keep: true, todo: "Keep the five largest slices and add up the rest as “Other”, or show the values as bars." },
    "pie-negative-values": { keep: true, todo: "Keep only the positive rows, or show the values as bars." },
    "faint-color": { say: "A series colour is too faint to see well against the white background.", todo: "Pick a darker colour for it under Series colours, or choose another palette.", field: "palette" },
    "similar-colors": { say: "Two series have colours too alike to tell apart.", todo: "Give one of them another colour under Series colours, or choose the colour-blind-safe palette.", field: "palette" },
    "bar-axis-not-zero": { keep: true, todo: "Start the value axis at zero, or draw the values as dots." },
    "log-axis-non-positive": { keep: true, todo: "Turn the logarithmic axis off, or keep only the positive rows." },
    "too-many-series": { say: "The chart has more series than a reader can match to the legend.", todo: "Show fewer series, or give the few that matter a strong colour and the rest grey." },
    "too-many-categories": { keep: true, todo: "Keep the largest bars, or leave rows out of the data." },
    "long-category-labels": { say: "Long category labels crowd or tilt under vertical bars.", todo: "Draw the bars across, so the labels have room." },
    "unsorted-line-x": { say: "The rows are not in the order of the x axis.", todo: "Sort the rows, so that labels follow the line." },
    "line-duplicate-x": { say: "Some x values occur more than once, so the line jumps up and down.", todo: "Add the values up for each x, or put each series in its own column." },
    "line-unordered-categories": { say: "The line joins categories that follow no order, so its ups and downs between them mean nothing.", todo: "Draw the values as bars." },
    "scatter-overplotting": { keep: true, todo: "Make the points smaller and see-through." },
    "radar-too-many-axes": { keep: true, todo: "Keep the largest spokes, or compare the values as bars." },
    "labels-hidden": { say: "Some value labels were left out where they would have overlapped.", todo: "Show fewer series or rows, so the labels that matter have room." },
    "needs-room": { keep: true, todo: "Shorten the text or show fewer rows, or draw the chart at the size named." },
    "sankey-cycle": { say: "Some flows loop back, and a sankey can only flow one way.", todo: "Remove the looping flow from the data, or show the flows as a heatmap." },
    "histogram-bins": { keep: true, todo: "Use the suggested number of bins." },
    "histogram-outlier": { say: "A few values lie so far from the rest that the other bars are squeezed together.", todo: "Leave the far values out and say so in the footer notes, or show the spread as a box plot." },
    "percent-stack-negative": { say: "Bars stacked to 100 % have values below zero, which have no share of a total.", todo: "Stack the amounts instead, or set the bars side by side." },
    "annotations-not-drawn": { say: "Some notes, lines or ranges are not drawn on this kind of chart.", todo: "Switch back to a chart type that draws them, or remove them." },
    "too-many-notes": { say: "The chart has so many notes that they compete with the data.", todo: "Keep the few notes that tell the story." },
    "note-covers": { say: "A note found no free place and covers a mark or another text.", todo: "Shorten the note, move it to another side, or make the chart larger." },
    "heatmap-wide-data": { say: "The data is a wide table, but the heatmap reads it as one row per cell, so most cells are empty.", todo: "Apply the suggested columns: rows by columns." },
    "highlight-all-or-none": { say: "The highlight names everything or nothing, so nothing stands out.", todo: "Tick only the one or two that matter, or clear the highlight." },
    "facet-panels-too-small": { say: "The small multiples are too small for their titles, ticks and names.", todo: "Make the chart larger, or show fewer panels." },
    "dark-faint-color": { say: "A colour is too faint against the dark background.", todo: "Give that series a lighter colour." },
    "look-not-drawn": { say: "This chart type does not draw the highlight or small multiples kept from another type.", todo: "Clear them, or switch back to a type that draws them." },
  };

  // notices: by notice code, a fixed sentence; other codes go through plain().
  var notices = {
    roles_repicked: "The new data lacks some of the chart's columns, so the columns it draws were picked again. Look at the preview.",
    step_dropped: "A data step no longer fitted the new data and was removed.",
    roles_guessed: null,
  };

  // errors: by error code; null means the API's message, made plain.
  var errors = {
    invalid_request: null,
    invalid_ops: null,
    unauthorized: "Your session has ended. Sign in again in another tab, then try again.",
    rate_limited: "Too many requests at once. Wait a few seconds and try again.",
    internal: "Something went wrong on our side. Try again in a moment.",
    not_found: "This chart is no longer there; it may have been deleted elsewhere.",
    chart_limit_reached: "You have as many charts as your plan allows. Delete one to make another.",
    conflict: "The chart changed elsewhere. It has been reloaded; make your change again.",
    too_large: "That is more data than a chart can hold. Send fewer rows or columns.",
    render_limit_reached: "You have drawn as many charts today as your plan allows; the count starts again tomorrow.",
    image_limit_reached: "You have made as many images this month as your plan allows.",
    forbidden_plan: "That needs the Pro plan.",
  };

  // fields: the API's field names in op errors, as the page labels them.
  var fields = {
    title: "Title", subtitle: "Subtitle", footer: "Footer", notes: "Footer notes", source: "Source", byline: "Byline",
    palette: "Palette", colors: "Palette", color: "Series colour", series: "Series colour", type: "Chart type",
    min: "Y axis from", max: "Y axis to", log: "Logarithmic Y axis", text: "Axis title", axis: "Axes",
    data: "Data", name: "Name",
  };

  // opish finds what a person should not read: JSON, op names (setTitle),
  // API operation names (get_chart) and field paths (ops[0].title).
  var opish = /[{}\[\]]|\b(?:set|add|update|remove|clear|get|list|apply|render|create|query|delete|duplicate)_?[A-Z_a-z]*[A-Z_]\w*|\b[a-z]+_[a-z_]+\b|\bops\b|\bop\b|\bJSON\b/;

  function clean(s) {
    // Quoted names (a column's, a value's) are the person's own words.
    return !opish.test(s.replace(/"[^"]*"|“[^”]*”/g, "x"));
  }

  function sentence(s) {
    s = s.trim().replace(/[;,:]$/, "");
    if (!s) return "";
    s = s.charAt(0).toUpperCase() + s.slice(1);
    return /[.!?]$/.test(s) ? s : s + ".";
  }

  // plain keeps the sentences and clauses of an API message that a person
  // can read; fallback when none is left.
  function plain(msg, fallback) {
    // No field path or field name in front, no column ids: a column is
    // called by its name ("c2 (Sales)" and "\"Sales\" (c2)" say Sales).
    msg = String(msg || "").replace(/^(?:ops|steps)\[\d+\]\.?[\w.\[\]]*:\s*/, "").replace(/^[a-z]\w*:\s+/, "")
      .replace(/\bc[0-9]+ \(([^)]*)\)/g, "$1").replace(/\s*\(c[0-9]+\)/g, "");
    var parts = msg.split(/(?<=[.;])\s+|;\s+|\s+—\s+/), out = [];
    parts.forEach(function (p) {
      if (p.trim() && clean(p)) out.push(sentence(p));
    });
    return out.length ? out.join(" ") : fallback || "That was not accepted.";
  }

  // first is the first sentence of an API message, when it reads plainly.
  function first(msg) {
    var s = String(msg || "").split(/(?<=\.)\s+/)[0];
    return clean(s) ? sentence(s) : "";
  }

  // fixLabel says what applying a suggested op does.
  function fixLabel(op) {
    switch (op.op) {
      case "setType": return "Show as " + (op.type === "bar" ? "bars" : op.type === "dotplot" ? "dots" : "a " + op.type + " chart");
      case "setPalette": return "Use the colour-blind-safe palette";
      case "setAxis": return op.log === false ? "Use a linear axis" : "Start the axis at zero";
      case "setVariants": return "Change how it is drawn";
      case "setMapping": return "Use the suggested columns";
      case "setSeriesColor": return "Use the suggested colour";
      case "addTransform":
        var t = op.transform || {};
        if (t.type === "topN") return "Keep the " + t.n + " largest";
        if (t.type === "sort") return "Sort the rows";
        if (t.type === "aggregate") return "Add up the values per x";
        if (t.type === "filter") return "Leave those rows out";
        return "Change the data as suggested";
    }
    return "Apply the suggested fix";
  }

  return {
    // lint answers {text, todo, field} for a lint problem.
    lint: function (p) {
      var w = lint[p.id] || {};
      var say = w.keep ? first(p.message) || w.say : w.say;
      if (!say) say = plain(p.message, "The chart has a problem a reader may notice.");
      return { text: say, todo: w.todo || "", field: w.field || "" };
    },
    notice: function (n) {
      var t = notices[n.code];
      return t || plain(n.message, "The data was read with a remark.");
    },
    // error answers what to say for a refused call: e.code, e.field and
    // e.message as the API sent them.
    error: function (e) {
      var t = e.code ? errors[e.code] : undefined;
      if (t) return t;
      var m = /^ops\[\d+\]\.(\w+)/.exec(e.message || "");
      var f = fields[e.field] || (m && fields[m[1]]);
      if (!e.code && !/^the server answered/.test(e.message || "")) return "The server could not be reached. Check the connection and try again.";
      var said = plain(e.message, "That change cannot be made to this chart.");
      return f ? f + ": " + said : said;
    },
    fixLabel: fixLabel,
    // lintIDs are the lint checks the site has words for.
    lintIDs: Object.keys(lint),
    plain: plain,
    clean: clean,
  };
})();
