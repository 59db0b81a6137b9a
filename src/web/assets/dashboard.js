// sitescan dashboard enhancements. Everything works without this file; it adds the copy buttons
// next to a secret shown once, and keeps the recent scans live while any of them is queued or
// running (the page itself, fetched again every few seconds; without JS a Refresh link does it).
(function () {
  "use strict";
  document.querySelectorAll("button[data-copy]").forEach(function (button) {
    var target = document.getElementById(button.getAttribute("data-copy"));
    var status = button.parentNode.querySelector(".copy-status");
    if (!target || !navigator.clipboard) { return; }
    button.hidden = false;
    button.addEventListener("click", function () {
      navigator.clipboard.writeText(target.textContent.trim()).then(function () {
        if (status) { status.textContent = "Copied."; }
      }, function () {
        if (status) { status.textContent = "Copy failed: select the text and copy it."; }
      });
    });
  });
})();
(function () {
  "use strict";
  var EVERY_MS = 4000;
  var recent = document.querySelector("section[data-live]");
  if (!recent || !window.fetch || !window.DOMParser) { return; }
  function pending(root) {
    return root.querySelector(".status-queued, .status-running") !== null;
  }
  function poll() {
    if (!pending(recent)) { return; }
    window.setTimeout(function () {
      fetch(window.location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
        .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
        .then(function (html) {
          var fresh = new DOMParser().parseFromString(html, "text/html").querySelector("section[data-live]");
          if (!fresh) { return; }
          var focused = recent.contains(document.activeElement);
          recent.innerHTML = fresh.innerHTML;
          if (!pending(recent)) {
            var note = document.getElementById("live-note");
            if (note) { note.textContent = "All scans have finished."; }
          }
          if (focused) { recent.querySelector("h2").focus(); }
          poll();
        })
        .catch(function () { /* keep the page as it is; the Refresh link still works */ });
    }, EVERY_MS);
  }
  poll();
})();
