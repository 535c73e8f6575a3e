// Progressive enhancement of a job's page: while the job is sending, fetch the page again every few
// seconds and swap in its #job-progress. Without JavaScript, a plain reload shows the same.
(function () {
  var shown = document.getElementById("job-progress");
  if (!shown || !window.fetch || !window.DOMParser) return;
  function seconds() {
    var current = document.getElementById("job-progress");
    return current ? parseInt(current.getAttribute("data-refresh-seconds"), 10) || 0 : 0;
  }
  function refresh() {
    if (!seconds()) return;
    fetch(window.location.href, {credentials: "same-origin"}).then(function (response) {
      return response.ok ? response.text() : null;
    }).then(function (html) {
      var fresh = html && new DOMParser().parseFromString(html, "text/html").getElementById("job-progress");
      var current = document.getElementById("job-progress");
      if (fresh && current) current.replaceWith(fresh);
    }).catch(function () {}).then(function () {
      if (seconds()) window.setTimeout(refresh, seconds() * 1000);
    });
  }
  if (seconds()) window.setTimeout(refresh, seconds() * 1000);
})();
