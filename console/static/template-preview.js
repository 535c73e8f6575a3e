// Live preview of the template editor: a moment after typing stops, post the form to the preview
// endpoint and swap in the fragment it answers. Without JavaScript, the Preview button does the same.
(function () {
  var form = document.getElementById("template-form");
  var target = document.getElementById("template-preview");
  if (!form || !target || !window.fetch || !window.FormData) return;
  var url = form.getAttribute("data-preview-url");
  var timer = null;
  var sent = 0;
  function refresh() {
    var number = ++sent;
    fetch(url, {method: "POST", body: new FormData(form), credentials: "same-origin"}).then(function (response) {
      return response.ok ? response.text() : null;
    }).then(function (html) {
      // An answer to an older request never replaces a newer one.
      if (html !== null && number === sent) target.innerHTML = html;
    }).catch(function () {});
  }
  function later() {
    window.clearTimeout(timer);
    timer = window.setTimeout(refresh, 300);
  }
  form.addEventListener("input", later);
  form.addEventListener("change", later);
})();
