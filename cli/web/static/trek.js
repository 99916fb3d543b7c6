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

  var toastTimer = null;
  function toast(text, bad) {
    var box = document.getElementById("toast");
    if (!box) { return; }
    box.textContent = text;
    box.className = "toast" + (bad ? " bad" : "");
    box.hidden = false;
    clearTimeout(toastTimer);
    toastTimer = setTimeout(function () { box.hidden = true; }, bad ? 8000 : 4000);
  }

  // A write (a command, a measure, a request): its answer as {ok, status, body}, a sentence
  // when it fails.
  function post(path, payload) {
    return fetch(api + path, {
      method: "POST",
      headers: {"Authorization": "Bearer " + key, "Content-Type": "application/json"},
      body: JSON.stringify(payload || {})
    }).then(function (response) {
      return response.json().catch(function () { return {error: "The server gave no answer."}; })
        .then(function (body) { return {ok: response.ok, status: response.status, body: body}; });
    }, function () { return {ok: false, status: 0, body: {error: "The server cannot be reached."}}; });
  }

  // What the page's other scripts (seats.js) share with this one.
  window.trekPage = {view: view, slug: slug, key: key, api: api, post: post, toast: toast};

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
  var afterSwap = [];
  document.body.addEventListener("htmx:afterSwap", function () {
    setLive(connected ? "live" : "reconnecting…", connected);
    meters();
    afterSwap.forEach(function (then) { then(); });
  });

  function meters() {
    document.querySelectorAll(".meter-fill").forEach(function (fill) {
      var budget = Number(fill.dataset.budget) || 0;
      var left = Number(fill.dataset.remaining) || 0;
      fill.style.width = (budget ? Math.min(100, 100 * left / budget) : 0) + "%";
    });
  }
  meters();

  // Many events arriving together (a reconnect's catching up) redraw the page once.
  var redraw = null;
  function refreshSoon() {
    if (redraw === null) {
      redraw = setTimeout(function () { redraw = null; refresh(); }, 50);
    }
  }

  // Each message's id is its event's seq. The stream starts after the last event this page
  // was drawn with, so nothing recorded before it opened is missed; when the connection drops,
  // the browser reconnects sending the last id it got (Last-Event-ID) and is sent what it
  // missed, once, each message redrawing the page.
  var seen = app.dataset.seq || "0";
  function listen() {
    var stream = new EventSource(api + "/events?key=" + encodeURIComponent(key) +
                                 "&last_event_id=" + encodeURIComponent(seen));
    stream.onopen = function () {
      connected = true;
      setLive("live", true);
    };
    stream.onerror = function () {
      connected = false;
      setLive("reconnecting…", false);
      // Given up by the browser (the server answered with an error, not a stream): a new
      // stream a little later, from the last event seen.
      if (stream.readyState === EventSource.CLOSED) { setTimeout(listen, 3000); }
    };
    stream.onmessage = function (message) {
      if (message.lastEventId) { seen = message.lastEventId; }
      refreshSoon();
    };
  }
  listen();

  if (view !== "gm") { return; }

  function command(argv, preview) {
    return post("/commands", {argv: argv, preview: !!preview});
  }

  function told(body) {
    var events = Array.isArray(body) ? body : [];
    return events.map(function (e) {
      if (e.cancels) { return "#" + e.seq + ": undo of " + e.cancels.join(", "); }
      if (e.restores) { return "#" + e.seq + ": redo of " + e.restores.join(", "); }
      return "#" + e.seq + " " + e.type;
    }).join(", ");
  }

  // The party picker (a campaign split into parties): the party the day's actions, the
  // command line and the ruler act on, kept in the store as `trek party use` keeps it.
  document.addEventListener("change", function (event) {
    var picker = event.target.closest("[data-party-picker]");
    if (!picker) { return; }
    post("/party", {party: picker.value}).then(function (result) {
      if (result.ok) { toast("Commands now act on party " + picker.value + "."); refresh(); }
      else { toast(refusal(result.body), true); }
    });
  });

  // The server's sentences are the command line's ("run `trek day end` first"). On the page a
  // command is named as the page offers it: by its button where there is one ("press “End
  // day” first"), else by the words the command box takes.
  function buttonFor(words) {
    if (words === "undo") { return "Undo latest"; }
    var found = null;
    document.querySelectorAll("[data-argv]").forEach(function (button) {
      var argv = [];
      try { argv = JSON.parse(button.dataset.argv); } catch (e) { argv = []; }
      if (found === null && argv.join(" ") === words) { found = button.textContent.trim(); }
    });
    return found;
  }

  function pageWords(text) {
    return String(text)
      // The page has no --help to offer (the command box refuses it).
      .replace(/ \(`trek [^`]+ --help` lists every option it takes\)/g, "")
      .replace(/\b(run|use|try) `trek ([^`]+)`|`trek ([^`]+)`/g,
        function (all, verb, asked, named) {
          var words = asked || named;
          var label = buttonFor(words);
          if (label !== null) { return (verb ? "press " : "") + "“" + label + "”"; }
          return verb ? "type “" + words + "” in the command box" : "“" + words + "”";
        });
  }

  function refusal(body) { return pageWords((body && body.error) || "Refused."); }

  function record(argv) {
    return command(argv, false).then(function (result) {
      if (result.ok) { toast("Recorded " + told(result.body) + "."); refresh(); }
      else { toast(refusal(result.body), true); }
      return result;
    });
  }

  // -- the ruler: click a square (overland) or pick a combatant and point at a cell (a fight),
  // see the path, its cost and what would remain; click again or confirm to record ------------
  var ruler = document.getElementById("ruler");
  var target = null;      // "x,y" the ruler measures to
  var pinned = false;     // a clicked cell: hovering no longer moves the ruler
  var measured = null;    // the fight ruler's last answer (its argv is what a click records)
  var mover = null;       // the combatant the fight ruler measures for
  var band = null;        // the kind of move the GM chose (null: the nearest the rules allow)
  var bands = [];         // the ruleset's kinds of move, as the last answer named them
  var hoverTimer = null;

  function clearPath() {
    document.querySelectorAll(".ruler-path, .ruler-target").forEach(function (n) { n.remove(); });
  }

  function centreOf(cell) {
    if (cell.tagName.toLowerCase() === "rect") {
      return [Number(cell.getAttribute("x")) + Number(cell.getAttribute("width")) / 2,
              Number(cell.getAttribute("y")) + Number(cell.getAttribute("height")) / 2];
    }
    var box = cell.getBBox();
    return [box.x + box.width / 2, box.y + box.height / 2];
  }

  function centre(where, x, y) {
    var cell = document.querySelector(where + ' .cell[data-x="' + x + '"][data-y="' + y + '"]');
    return cell ? centreOf(cell) : null;
  }

  function drawPath(where, path, tone) {
    var svg = document.querySelector(where + " svg");
    if (!svg || !path || !path.length) { return; }
    var points = path.map(function (sq) {
      return Array.isArray(sq) ? centre(where, sq[0], sq[1]) : centre(where, sq.x, sq.y);
    }).filter(Boolean);
    var line = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
    line.setAttribute("class", "ruler-path" + (tone === undefined ? "" : " " + tone));
    line.setAttribute("points", points.map(function (p) { return p.join(","); }).join(" "));
    svg.appendChild(line);
  }

  function markTarget(where, x, y, tone) {
    var svg = document.querySelector(where + " svg");
    var c = centre(where, x, y);
    if (!svg || !c) { return; }
    var ring = document.createElementNS("http://www.w3.org/2000/svg", "circle");
    ring.setAttribute("class", "ruler-target" + (tone === undefined ? "" : " " + tone));
    ring.setAttribute("cx", c[0]); ring.setAttribute("cy", c[1]); ring.setAttribute("r", 15);
    svg.appendChild(ring);
  }

  function closeRuler() {
    // A measure still waiting for the pointer to rest would open the ruler again.
    clearTimeout(hoverTimer);
    ruler.hidden = true; target = null; pinned = false; measured = null; band = null;
    clearPath();
    ruler.className = "ruler";
    document.getElementById("ruler-bands").hidden = true;
  }

  // A chip for each kind of move of the ruleset: the one measured is pressed; another
  // measures that kind instead.
  function showBands(chosen) {
    var box = document.getElementById("ruler-bands");
    box.replaceChildren();
    box.hidden = bands.length < 2;
    bands.forEach(function (label, tone) {
      var chip = document.createElement("button");
      chip.type = "button";
      chip.className = "chip band-" + tone + (label === chosen ? " on" : "");
      chip.dataset.band = label;
      chip.textContent = label;
      chip.setAttribute("aria-pressed", label === chosen ? "true" : "false");
      box.appendChild(chip);
    });
  }

  function showRuler(title, words, bad) {
    document.getElementById("ruler-target").textContent = title;
    var text = document.getElementById("ruler-text");
    text.textContent = words;
    text.className = "ruler-text" + (bad ? " bad" : "");
    document.getElementById("ruler-confirm").disabled = true;
    ruler.hidden = false;
  }

  function preview(x, y) {
    target = x + "," + y;
    clearPath();
    markTarget("#map", x, y);
    showRuler(target, "Working out the path…", false);
    var text = document.getElementById("ruler-text");
    var confirm = document.getElementById("ruler-confirm");
    var asked = target;
    return command(["move", "--to", target], true).then(function (result) {
      if (asked !== target) { return result; }
      if (!result.ok) {
        text.textContent = refusal(result.body);
        text.className = "ruler-text bad";
        return result;
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
      drawPath("#map", event && event.path);
      confirm.disabled = false;
      return result;
    });
  }

  // The fight ruler asks the server, which previews the ruleset's kinds of move nearest first.
  function pickMover(name) {
    mover = mover === name ? null : name;
    bands = [];
    closeRuler();
    markMover();
  }

  function markMover() {
    document.querySelectorAll("#fight g.combatant, .round-panel tr[data-name]").forEach(
      function (node) { node.classList.toggle("selected", mover !== null && node.dataset.name === mover); });
    var hint = document.getElementById("fight-hint");
    if (hint) {
      hint.textContent = mover === null
        ? "Pick a combatant (its token or its row) to measure a move."
        : "Moving " + mover + ": point at a cell to measure; click to record what the ruler " +
          "shows (a click on a cell not yet measured measures it first). Esc lets go.";
    }
  }
  afterSwap.push(function () {
    if (mover !== null && !document.querySelector('.round-panel tr[data-name]')) { mover = null; }
    markMover();
    if (target && measured) { redrawFight(); }
  });

  function redrawFight() {
    clearPath();
    var xy = target.split(",");
    var tone = measured.ok ? "band-" + measured.body.tone : "refused";
    if (measured.ok) { drawPath("#fight", measured.body.path, tone); }
    markTarget("#fight", xy[0], xy[1], tone);
  }

  function measure(x, y, pin) {
    if (mover === null) { return; }
    if (pin) { clearTimeout(hoverTimer); }
    target = x + "," + y;
    pinned = pin;
    measured = null;
    clearPath();
    markTarget("#fight", x, y);
    showRuler(mover + " to " + target, "Measuring…", false);
    var asked = target, who = mover;
    return ask(who, x, y)
      .then(function (result) {
        if (asked !== target || who !== mover) { return result; }
        measured = result;
        ruler.className = "ruler " + (result.ok ? "band-" + result.body.tone : "refused");
        var text = document.getElementById("ruler-text");
        text.textContent = result.ok ? result.body.words : refusal(result.body);
        text.className = "ruler-text" + (result.ok ? "" : " bad");
        document.getElementById("ruler-confirm").disabled = !result.ok;
        if (result.ok) { bands = result.body.bands; }
        showBands(result.ok ? result.body.band : band);
        redrawFight();
        return result;
      });
  }

  // The ruler's answers for the table as it is now, by combatant, kind of move and cell: a
  // cell pointed at again, or one asked for ahead of a drag, is answered without the server.
  // Any redraw of the page (something recorded) forgets them.
  var answers = {};
  function ask(who, x, y) {
    var key = who + "\u0000" + (band || "") + "\u0000" + x + "," + y;
    if (!answers[key]) {
      answers[key] = post("/ruler", {name: who, to: [Number(x), Number(y)], band: band});
    }
    return answers[key];
  }
  afterSwap.push(function () { answers = {}; });

  function recordMeasured() {
    if (!measured || !measured.ok) { return; }
    var argv = measured.body.argv;
    document.getElementById("ruler-confirm").disabled = true;
    record(argv).then(closeRuler);
  }

  function fightCell(cell) {
    var xy = cell.dataset.x + "," + cell.dataset.y;
    // A cell already measured (pointed at or clicked) records on a click; else it is measured
    // and the ruler held there.
    if (target === xy && measured && measured.ok) { recordMeasured(); return; }
    measure(cell.dataset.x, cell.dataset.y, true);
  }

  app.addEventListener("mouseover", function (event) {
    if (mover === null || pinned) { return; }
    var cell = event.target.closest("#fight .cell");
    if (!cell) { return; }
    clearTimeout(hoverTimer);
    hoverTimer = setTimeout(function () {
      if (!pinned && (cell.dataset.x + "," + cell.dataset.y) !== target) {
        measure(cell.dataset.x, cell.dataset.y, false);
      }
    }, 120);
  });

  document.getElementById("ruler-bands").addEventListener("click", function (event) {
    var chip = event.target.closest("[data-band]");
    if (!chip || !target) { return; }
    band = chip.dataset.band;
    var xy = target.split(",");
    measure(xy[0], xy[1], true);
  });
  document.getElementById("ruler-cancel").addEventListener("click", closeRuler);
  document.getElementById("ruler-confirm").addEventListener("click", function () {
    if (measured) { recordMeasured(); return; }
    if (!target) { return; }
    var to = target;
    document.getElementById("ruler-confirm").disabled = true;
    record(["move", "--to", to]).then(closeRuler);
  });
  markMover();

  // What the map table (table.js) drives when a token or the party's marker is dragged: the
  // same ruler, the same preview, the same door.
  window.trekRuler = {
    choose: function (name) { if (mover !== name) { pickMover(name); } },
    measure: function (x, y) { return measure(String(x), String(y), true); },
    // The answer for a cell the pointer is heading for, asked before it gets there.
    ahead: function (x, y) { if (mover !== null) { ask(mover, String(x), String(y)); } },
    preview: function (x, y) { return preview(String(x), String(y)); },
    recordMeasured: function () { return measured && measured.ok ? record(measured.body.argv).then(closeRuler) : null; },
    moveParty: function (x, y) { return record(["move", "--to", x + "," + y]).then(closeRuler); },
    close: closeRuler
  };

  // Every undo asks why, the same way: the reason is kept in the log for the audit; Enter
  // with none records the undo without one, Cancel (or Esc) records nothing.
  function undo(seq) {
    var what = seq === null ? "Undo the latest event" : "Undo #" + seq;
    var reason = window.prompt(what + ": why? (kept in the log for the audit; Enter to skip)",
                               "");
    if (reason === null) { return; }
    var argv = seq === null ? ["undo"] : ["undo", String(seq)];
    if (reason.trim()) { argv.push("--reason", reason.trim()); }
    record(argv);
  }

  function undoLatest() { undo(null); }

  app.addEventListener("click", function (event) {
    var token = event.target.closest("#fight g.combatant");
    if (token) { pickMover(token.dataset.name); return; }
    // A door opens or closes with a click (recorded like any command; it moves nobody).
    var door = event.target.closest("#fight g.door");
    if (door) {
      var named = door.dataset.door.charAt(0) === "-" ? ["--", door.dataset.door]
        : [door.dataset.door];
      record(["encounter", "door"].concat(named,
              [door.dataset.closed === "true" ? "open" : "close"]));
      return;
    }
    var row = event.target.closest(".round-panel tr[data-name] td.label, .round-panel tr[data-name] td.name");
    if (row) { pickMover(row.closest("tr").dataset.name); return; }
    var fight = event.target.closest("#fight .cell");
    if (fight) { fightCell(fight); return; }
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
    if (event.key === "Escape") {
      if (!ruler.hidden) { closeRuler(); } else if (mover !== null) { pickMover(mover); }
    }
  });
})();
