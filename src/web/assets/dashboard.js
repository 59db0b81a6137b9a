// sitescan dashboard enhancements. Everything works without this file; it adds the copy buttons
// next to a secret shown once, keeps the recent scans live while any of them is queued or
// running (the page itself, fetched again every few seconds; without JS a Refresh link does it),
// and streams one scan's progress on its page until its report replaces it.
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
(function () {
  "use strict";
  // One scan's page while it runs: follows the scan's events (`/scans/{id}/events`) and, once it
  // ends, puts its report in place without reloading. Without JS a meta refresh does the same.
  var live = document.querySelector("[data-scan-live]");
  if (!live || !window.EventSource || !window.fetch || !window.DOMParser) { return; }
  function byId(id) { return document.getElementById(id); }
  function text(id, value) { var el = byId(id); if (el && el.textContent !== String(value)) { el.textContent = value; } }
  function badge(severity) {
    var b = document.createElement("span");
    b.className = "badge sev-" + severity;
    b.textContent = severity;
    return b;
  }
  function update(p) {
    var status = byId("scan-status");
    if (status) { status.className = "status status-" + p.status; status.textContent = p.status; }
    text("live-phase", p.phase);
    text("live-done", p.pages_done);
    text("live-found", p.pages_found);
    text("live-total", p.total);
    var bar = byId("live-bar");
    if (bar && p.pages_found > 0) { bar.max = p.pages_found; bar.value = p.pages_done; bar.textContent = p.percent + "%"; }
    p.counts.forEach(function (c) {
      var n = live.querySelector("[data-severity='" + c[0] + "']");
      if (n) { n.textContent = c[1]; }
    });
    var list = byId("live-latest");
    if (list) {
      var items = p.latest.map(function (f) {
        var li = document.createElement("li");
        var code = document.createElement("code");
        code.textContent = f.check_id;
        li.append(badge(f.severity), " ", code, " " + f.title);
        var url = f.evidence && f.evidence.url;
        if (url) {
          var on = document.createElement("span");
          on.className = "muted";
          on.textContent = "on " + url;
          li.append(" ", on);
        }
        return li;
      });
      list.replaceChildren.apply(list, items);
    }
  }
  // A busy server may answer one fetch with an error: the report is asked for again after 1, 2
  // and 4 seconds before the page falls back to reloading itself.
  function showReport(attempt) {
    attempt = attempt || 0;
    fetch(window.location.href, { credentials: "same-origin", headers: { "Accept": "text/html" } })
      .then(function (r) { return r.ok ? r.text() : Promise.reject(r.status); })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        if (!doc.getElementById("report") && doc.querySelector("[data-scan-live]") && attempt < 3) {
          // The page still says running (a replica behind in its reads): ask again shortly.
          return Promise.reject("still running");
        }
        return html;
      })
      .then(function (html) {
        var doc = new DOMParser().parseFromString(html, "text/html");
        var fresh = doc.querySelector("main");
        var main = document.querySelector("main");
        if (!fresh || !main) { return; }
        main.replaceChildren.apply(main, Array.prototype.slice.call(fresh.childNodes).map(function (n) { return document.importNode(n, true); }));
        document.title = doc.title;
        // The report's severity filter, wired to the report now in place.
        var s = document.createElement("script");
        var loaded = document.querySelector("script[src^='/assets/report.js']");
        s.src = loaded ? loaded.getAttribute("src") : "/assets/report.js";
        document.body.appendChild(s);
        var h = main.querySelector("h1");
        if (h) { h.setAttribute("tabindex", "-1"); }
        var note = document.createElement("p");
        note.className = "visually-hidden";
        note.setAttribute("role", "status");
        main.prepend(note);
        window.setTimeout(function () { note.textContent = "The scan has ended: its report is below."; }, 50);
      })
      .catch(function () {
        if (attempt < 3) { window.setTimeout(function () { showReport(attempt + 1); }, 1000 * Math.pow(2, attempt)); }
        else { window.location.reload(); }
      });
  }
  var note = byId("live-note");
  if (note) { note.textContent = "This page follows the scan as it runs, and shows the report when it ends."; }
  var source = new EventSource(live.getAttribute("data-scan-live"));
  source.addEventListener("progress", function (e) {
    try { update(JSON.parse(e.data)); } catch (err) { /* a malformed message changes nothing */ }
  });
  source.addEventListener("end", function () {
    source.close();
    showReport();
  });
  // Refused (the viewer is at a cap on live views): the server answered 429 and EventSource
  // gave up. Say so, and fall back to refreshing the page as it would without JavaScript.
  source.addEventListener("error", function () {
    if (source.readyState !== EventSource.CLOSED || byId("live-paused")) { return; }
    var every = parseInt(live.getAttribute("data-refresh"), 10) || 5;
    var line = document.createElement("p");
    line.className = "alert paused";
    line.id = "live-paused";
    line.setAttribute("role", "status");
    line.textContent = "Live updates are paused: too many live views are open; this page refreshes every " + every + " s.";
    var heading = byId("h-live");
    if (heading) { heading.after(line); }
    window.setTimeout(function () { window.location.reload(); }, every * 1000);
  });
})();
