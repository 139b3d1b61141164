// The home page's try-it box: draws the pasted table with POST /try and
// shows the picture (an SVG that carries its fonts) as an image, or the
// reason it cannot, beside the button.
"use strict";
(function () {
  var form = document.getElementById("try-form");
  if (!form) return;
  var status = document.getElementById("try-status");
  var result = document.getElementById("try-result");
  var img = document.getElementById("try-picture");
  var url = "";
  window.chartdTry = {drawn: 0, failed: 0};
  form.addEventListener("submit", function (e) {
    e.preventDefault();
    status.textContent = "Drawing…";
    var body = JSON.stringify({type: document.getElementById("try-type").value, data: document.getElementById("try-data").value});
    fetch("/try", {method: "POST", headers: {"Content-Type": "application/json"}, body: body})
      .then(function (r) { return r.json().then(function (j) { return {ok: r.ok, j: j}; }); })
      .then(function (a) {
        if (!a.ok) {
          status.textContent = (a.j.error && a.j.error.message) || "The chart could not be drawn.";
          window.chartdTry.failed++;
          return;
        }
        if (url) URL.revokeObjectURL(url);
        url = URL.createObjectURL(new Blob([a.j.svg], {type: "image/svg+xml"}));
        img.onload = function () {
          status.textContent = "Drawn.";
          window.chartdTry.drawn++;
        };
        img.alt = a.j.description || "Your chart";
        img.src = url;
        result.hidden = false;
      })
      .catch(function () {
        status.textContent = "The chart could not be drawn; check your connection and try again.";
        window.chartdTry.failed++;
      });
  });
})();
