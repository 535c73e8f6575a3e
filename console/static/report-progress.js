// Progressive enhancement of a messages report's page: until the report is ready, fetch the page again
// every two seconds and swap in its progress section. Without JavaScript, the page's refresh link does it.
(function () {
  if (!window.fetch || !window.DOMParser) return;
  var timer = window.setInterval(function () {
    var shown = document.getElementById("report-progress");
    if (!shown || shown.getAttribute("data-ready") === "true") { window.clearInterval(timer); return; }
    fetch(window.location.href, {credentials: "same-origin"}).then(function (response) {
      return response.ok ? response.text() : null;
    }).then(function (html) {
      if (!html) return;
      var fresh = new DOMParser().parseFromString(html, "text/html").getElementById("report-progress");
      var current = document.getElementById("report-progress");
      if (fresh && current) current.replaceWith(fresh);
    }).catch(function () {});
  }, 2000);
})();
