// Progressive enhancement of the worker dashboard: every few seconds, fetch the page again and
// swap in its #ops-dashboard. Without JavaScript, a plain reload shows the same.
(function () {
  var current = document.getElementById("ops-dashboard");
  if (!current || !window.fetch || !window.DOMParser) return;
  var seconds = parseInt(current.getAttribute("data-refresh-seconds"), 10) || 10;
  function refresh() {
    if (document.hidden) return;
    fetch(window.location.href, {credentials: "same-origin"}).then(function (response) {
      return response.ok ? response.text() : null;
    }).then(function (html) {
      if (!html) return;
      var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("ops-dashboard");
      var shown = document.getElementById("ops-dashboard");
      if (fresh && shown) shown.replaceWith(fresh);
    }).catch(function () {});
  }
  window.setInterval(refresh, seconds * 1000);
})();
