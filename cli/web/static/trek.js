/* Trek's pages: the live stream, and on the GM's page the ruler, the actions and undo.
   No inline script anywhere (the Content-Security-Policy allows none): all of it is here. */
(function () {
  "use strict";
  var app = document.getElementById("app");
  if (!app) { return; }
  var view = app.dataset.view;
  var slug = app.dataset.slug;
  var key = new URLSearchParams(window.location.search).get("key") || "";
  var api = "/api/campaigns/" + encodeURIComponent(slug);

  // Every request the page makes (htmx's too) carries the secret in a header, never a cookie.
  document.body.addEventListener("htmx:configRequest", function (event) {
    event.detail.headers["Authorization"] = "Bearer " + key;
  });

  function refresh() { window.htmx.trigger(document.body, "trek:changed"); }

  function setLive(text, on) {
    var live = document.getElementById("live");
    if (live) { live.textContent = text; live.className = "live " + (on ? "on" : "off"); }
  }
  var connected = false;
  document.body.addEventListener("htmx:afterSwap", function () {
    setLive(connected ? "live" : "reconnecting…", connected);
    meters();
  });

  function meters() {
    document.querySelectorAll(".meter-fill").forEach(function (fill) {
      var budget = Number(fill.dataset.budget) || 0;
      var left = Number(fill.dataset.remaining) || 0;
      fill.style.width = (budget ? Math.min(100, 100 * left / budget) : 0) + "%";
    });
  }
  meters();

  var stream = new EventSource(api + "/events?key=" + encodeURIComponent(key));
  var dropped = false;
  stream.onopen = function () {
    connected = true;
    setLive("live", true);
    // Back after a drop: what was recorded meanwhile is drawn now.
    if (dropped) { dropped = false; refresh(); }
  };
  stream.onerror = function () {
    connected = false;
    dropped = true;
    setLive("reconnecting…", false);
  };
  stream.onmessage = function () { refresh(); };

  if (view !== "gm") { return; }

  var toastTimer = null;
  function toast(text, bad) {
    var box = document.getElementById("toast");
    box.textContent = text;
    box.className = "toast" + (bad ? " bad" : "");
    box.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () { box.hidden = true; }, bad ? 8000 : 4000);
  }

  function command(argv, preview) {
    return fetch(api + "/commands", {
      method: "POST",
      headers: {"Authorization": "Bearer " + key, "Content-Type": "application/json"},
      body: JSON.stringify({argv: argv, preview: !!preview})
    }).then(function (response) {
      return response.json().catch(function () { return {error: "The server gave no answer."}; })
        .then(function (body) { return {ok: response.ok, body: body}; });
    }, function () { return {ok: false, body: {error: "The server cannot be reached."}}; });
  }

  function told(body) {
    var events = Array.isArray(body) ? body : [];
    return events.map(function (e) {
      if (e.cancels) { return "#" + e.seq + ": undo of " + e.cancels.join(", "); }
      if (e.restores) { return "#" + e.seq + ": redo of " + e.restores.join(", "); }
      return "#" + e.seq + " " + e.type;
    }).join(", ");
  }

  function record(argv) {
    return command(argv, false).then(function (result) {
      if (result.ok) { toast("Recorded " + told(result.body) + "."); refresh(); }
      else { toast(result.body.error || "Refused.", true); }
      return result;
    });
  }

  // -- the ruler: click a square, see the path and its cost, confirm to record ---------------
  var ruler = document.getElementById("ruler");
  var target = null;

  function clearPath() {
    document.querySelectorAll(".ruler-path, .ruler-target").forEach(function (n) { n.remove(); });
  }

  function centre(x, y) {
    var cell = document.querySelector('#map rect.cell[data-x="' + x + '"][data-y="' + y + '"]');
    if (!cell) { return null; }
    return [Number(cell.getAttribute("x")) + Number(cell.getAttribute("width")) / 2,
            Number(cell.getAttribute("y")) + Number(cell.getAttribute("height")) / 2];
  }

  function drawPath(path) {
    var svg = document.querySelector("#map svg");
    if (!svg || !path || !path.length) { return; }
    var points = path.map(function (sq) {
      return Array.isArray(sq) ? centre(sq[0], sq[1]) : centre(sq.x, sq.y);
    }).filter(Boolean);
    var line = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
    line.setAttribute("class", "ruler-path");
    line.setAttribute("points", points.map(function (p) { return p.join(","); }).join(" "));
    svg.appendChild(line);
  }

  function markTarget(x, y) {
    var svg = document.querySelector("#map svg");
    var c = centre(x, y);
    if (!svg || !c) { return; }
    var ring = document.createElementNS("http://www.w3.org/2000/svg", "circle");
    ring.setAttribute("class", "ruler-target");
    ring.setAttribute("cx", c[0]); ring.setAttribute("cy", c[1]); ring.setAttribute("r", 15);
    svg.appendChild(ring);
  }

  function closeRuler() { ruler.hidden = true; target = null; clearPath(); }

  function preview(x, y) {
    target = x + "," + y;
    clearPath();
    markTarget(x, y);
    document.getElementById("ruler-target").textContent = target;
    var text = document.getElementById("ruler-text");
    var confirm = document.getElementById("ruler-confirm");
    text.textContent = "Working out the path…";
    text.className = "ruler-text";
    confirm.disabled = true;
    ruler.hidden = false;
    var asked = target;
    command(["move", "--to", target], true).then(function (result) {
      if (asked !== target) { return; }
      if (!result.ok) {
        text.textContent = result.body.error || "Refused.";
        text.className = "ruler-text bad";
        return;
      }
      var event = Array.isArray(result.body) ? result.body[0] : result.body;
      var fill = document.querySelector(".meter-fill");
      var left = fill ? Number(fill.dataset.remaining) : NaN;
      var steps = event && event.path ? event.path.length - 1 : null;
      var words = [];
      if (steps !== null) { words.push(steps + (steps === 1 ? " square" : " squares")); }
      if (event && event.cost !== undefined) {
        words.push("cost " + event.cost);
        if (!isNaN(left)) { words.push((left - event.cost) + " left today after it"); }
      }
      text.textContent = words.length ? words.join(" · ") : (event ? event.type : "");
      drawPath(event && event.path);
      confirm.disabled = false;
    });
  }

  document.getElementById("ruler-cancel").addEventListener("click", closeRuler);
  document.getElementById("ruler-confirm").addEventListener("click", function () {
    if (!target) { return; }
    var to = target;
    document.getElementById("ruler-confirm").disabled = true;
    record(["move", "--to", to]).then(closeRuler);
  });

  function undo(seq) {
    var reason = window.prompt("Undo #" + seq + ": why? (kept in the log for the audit)", "");
    if (reason === null) { return; }
    var argv = ["undo", String(seq)];
    if (reason.trim()) { argv.push("--reason", reason.trim()); }
    record(argv);
  }

  function undoLatest() { record(["undo"]); }

  app.addEventListener("click", function (event) {
    var cell = event.target.closest("#map rect.cell");
    if (cell) { preview(cell.dataset.x, cell.dataset.y); return; }
    var button = event.target.closest("[data-argv]");
    if (button) { record(JSON.parse(button.dataset.argv)); return; }
    var undoButton = event.target.closest("[data-undo]");
    if (undoButton) { undo(undoButton.dataset.undo); return; }
    var redoButton = event.target.closest("[data-redo]");
    if (redoButton) { record(["redo", redoButton.dataset.redo]); return; }
    if (event.target.closest("[data-undo-latest]")) { undoLatest(); }
  });

  // The words of any command, split as a shell would (quotes keep a name with spaces whole).
  function words(line) {
    var found = [], word = null, quote = null;
    for (var i = 0; i < line.length; i++) {
      var ch = line[i];
      if (quote) {
        if (ch === quote) { quote = null; } else { word += ch; }
      } else if (ch === '"' || ch === "'") {
        quote = ch; word = word === null ? "" : word;
      } else if (/\s/.test(ch)) {
        if (word !== null) { found.push(word); word = null; }
      } else {
        word = (word === null ? "" : word) + ch;
      }
    }
    if (word !== null) { found.push(word); }
    if (found[0] === "trek") { found.shift(); }
    return found;
  }

  app.addEventListener("submit", function (event) {
    if (!event.target.closest("#command-form")) { return; }
    event.preventDefault();
    var input = document.getElementById("command-words");
    var argv = words(input.value);
    if (!argv.length) { return; }
    record(argv).then(function (result) { if (result.ok) { input.value = ""; } });
  });

  document.addEventListener("keydown", function (event) {
    if ((event.ctrlKey || event.metaKey) && !event.shiftKey && event.key.toLowerCase() === "z") {
      var tag = (event.target.tagName || "").toLowerCase();
      if (tag === "input" || tag === "textarea") { return; }
      event.preventDefault();
      undoLatest();
    }
    if (event.key === "Escape" && !ruler.hidden) { closeRuler(); }
  });
})();
