// Progressive enhancement: without JavaScript the key is still on the page to select and copy.
(function () {
  var button = document.getElementById("copy-key");
  if (!button || !navigator.clipboard) { return; }
  button.hidden = false;
  button.addEventListener("click", function () {
    navigator.clipboard.writeText(document.getElementById("api-key").textContent).then(function () {
      document.getElementById("copy-status").textContent = button.dataset.copied;
    });
  });
})();
