// embed.js: the one script a page that embeds chartd charts loads beside
// their frames. Each frame tells its height with
// postMessage({"chartd-height": {"<chart id>": px}}); this sets the height
// of the frame that sent it, so the host page never shows a scroll bar
// inside the frame. It reads messages from chartd's own origin only.
(function () {
  "use strict";
  if (window.chartdEmbeds) return;
  window.chartdEmbeds = true;
  var me = document.currentScript && document.currentScript.src;
  var origin = me ? new URL(me).origin : "";
  window.addEventListener("message", function (e) {
    if (e.origin !== origin || !e.data || typeof e.data !== "object") return;
    var heights = e.data["chartd-height"];
    if (!heights || typeof heights !== "object") return;
    var frames = document.querySelectorAll("iframe[data-chartd-embed]");
    for (var i = 0; i < frames.length; i++) {
      var f = frames[i];
      if (f.contentWindow !== e.source) continue;
      var h = heights[f.getAttribute("data-chartd-embed")];
      if (typeof h === "number" && h > 0 && h < 20000) f.style.height = Math.ceil(h) + "px";
    }
  });
})();
