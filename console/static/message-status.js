// Progressive enhancement of a message's page: while its status may still change, fetch the status
// section again every few seconds and swap it in. Without JavaScript, a reload shows the same.
(function () {
  var script = document.getElementById("message-status-script");
  if (!script || !window.fetch || !window.DOMParser) return;
  var url = script.getAttribute("data-status-url");
  var timer = null;
  function isFinal() {
    var section = document.getElementById("message-status");
    return !section || section.getAttribute("data-final") === "true";
  }
  function refresh() {
    if (isFinal()) { window.clearInterval(timer); return; }
    if (document.hidden) return;
    fetch(url, {credentials: "same-origin"}).then(function (response) {
      return response.ok ? response.text() : null;
    }).then(function (html) {
      if (!html) return;
      var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("message-status");
      var shown = document.getElementById("message-status");
      if (fresh && shown) shown.replaceWith(fresh);
    }).catch(function () {});
  }
  if (!isFinal()) timer = window.setInterval(refresh, 2000);
})();
