/* Seats and requests on the pages (RULES §14): on a seat's page the ruler that asks the GM,
   and the seat's own requests; on the GM's page the requests as they come (each path a ghost
   on the map), Approve / Reject / Approve all, A and R, the pause switch and the Seats panel.
   Every text a seat sent is set as text, never as markup. */
(function () {
  "use strict";
  var app = document.getElementById("app");
  var page = window.trekPage;
  if (!app || !page) { return; }
  var view = page.view;
  var key = page.key;
  var api = page.api;
  var post = page.post;
  var toast = page.toast;
  var gm = view === "gm";
  var seat = app.dataset.seat ? JSON.parse(app.dataset.seat) : null;
  var requests = [];
  var paused = false;

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) { node.className = cls; }
    if (text !== undefined) { node.textContent = text; }
    return node;
  }

  function asked(request) {
    var argv = request.argv;
    if (Array.isArray(argv)) { return argv.join(" "); }
    return argv && argv.type ? argv.type : "";
  }

  function pathOf(doc) {
    if (!doc) { return null; }
    if (Array.isArray(doc.path)) { return doc.path; }
    return null;
  }

  // -- drawing a path (the seat's ruler, the GM's ghosts) -------------------------------------
  function centre(where, x, y) {
    var cell = document.querySelector(where + ' .cell[data-x="' + x + '"][data-y="' + y + '"]');
    if (!cell) { return null; }
    if (cell.tagName.toLowerCase() === "rect") {
      return [Number(cell.getAttribute("x")) + Number(cell.getAttribute("width")) / 2,
              Number(cell.getAttribute("y")) + Number(cell.getAttribute("height")) / 2];
    }
    var box = cell.getBBox();
    return [box.x + box.width / 2, box.y + box.height / 2];
  }

  function draw(path, cls) {
    var where = document.querySelector("#fight svg") ? "#fight" : "#map";
    var svg = document.querySelector(where + " svg");
    if (!svg || !path || !path.length) { return; }
    var points = path.map(function (sq) {
      return Array.isArray(sq) ? centre(where, sq[0], sq[1]) : centre(where, sq.x, sq.y);
    }).filter(Boolean);
    var line = document.createElementNS("http://www.w3.org/2000/svg", "polyline");
    line.setAttribute("class", cls);
    line.setAttribute("points", points.map(function (p) { return p.join(","); }).join(" "));
    svg.appendChild(line);
  }

  function clear(cls) {
    document.querySelectorAll("." + cls).forEach(function (n) { n.remove(); });
  }

  // -- the requests, live ---------------------------------------------------------------------
  function showRequests() {
    var list = document.getElementById("request-list");
    if (!list) { return; }
    var tag = document.getElementById("paused-tag");
    if (tag) { tag.hidden = !paused; }
    var toggle = document.getElementById("pause-switch");
    if (toggle) { toggle.checked = paused; }
    var shown = gm ? requests.filter(function (r) { return r.status === "pending"; })
                      .concat(requests.filter(function (r) { return r.status !== "pending"; })
                      .slice(-8).reverse())
                   : requests.slice().reverse();
    list.replaceChildren();
    if (!shown.length) { list.appendChild(el("li", "empty", "None yet.")); }
    shown.forEach(function (r) {
      var row = el("li", "request " + r.status);
      row.dataset.request = r.request;
      var what = el("div", "what");
      what.appendChild(el("strong", "", gm ? r.seat : "#" + r.request));
      what.appendChild(document.createTextNode(" " + asked(r)));
      row.appendChild(what);
      var cost = r.preview && r.preview.cost !== undefined ? " · cost " + r.preview.cost : "";
      var said = r.status + cost + (r.reason ? ": " + r.reason : "");
      row.appendChild(el("div", "state", said));
      if (gm && r.status === "pending") {
        var buttons = el("div", "decide");
        var yes = el("button", "button primary", "Approve");
        yes.type = "button"; yes.dataset.approve = r.request;
        var no = el("button", "button", "Reject");
        no.type = "button"; no.dataset.reject = r.request;
        buttons.appendChild(yes); buttons.appendChild(no);
        row.appendChild(buttons);
      }
      list.appendChild(row);
    });
    var all = document.getElementById("approve-all");
    if (all) { all.disabled = !pending().length; }
    ghosts();
  }

  function pending() { return requests.filter(function (r) { return r.status === "pending"; }); }

  // The GM sees each pending request's path on the map, as a ghost with its cost.
  function ghosts() {
    if (!gm) { return; }
    clear("ghost-path");
    pending().forEach(function (r) { draw(pathOf(r.preview), "ghost-path"); });
  }

  document.body.addEventListener("htmx:afterSwap", function () { ghosts(); if (seat) { markMine(); } });

  function listen() {
    var stream = new EventSource(api + "/events?requests=1&key=" + encodeURIComponent(key));
    stream.addEventListener("requests", function (message) {
      var table = JSON.parse(message.data);
      requests = table.requests;
      paused = table.paused;
      showRequests();
    });
    stream.addEventListener("ended", function () {
      stream.close();
      toast("This seat was removed by the GM: its key no longer works.", true);
      var live = document.getElementById("live");
      if (live) { live.textContent = "seat removed"; live.className = "live off"; }
    });
  }
  listen();

  // -- the GM: decide, pause, seats ------------------------------------------------------------
  function decide(number, approve) {
    var path = "/requests/" + number + (approve ? "/approve" : "/reject");
    var payload = {};
    if (!approve) {
      var reason = window.prompt("Reject request " + number + ": why? (the seat sees it; " +
                                 "Enter to skip)", "");
      if (reason === null) { return Promise.resolve(null); }
      if (reason.trim()) { payload.reason = reason.trim(); }
    }
    return post(path, payload).then(function (result) {
      if (result.ok) { toast((approve ? "Approved " : "Rejected ") + "request " + number + "."); }
      else { toast((result.body && result.body.error) || "Refused.", true); }
      return result;
    });
  }

  if (gm) {
    document.getElementById("requests").addEventListener("click", function (event) {
      var yes = event.target.closest("[data-approve]");
      if (yes) { decide(yes.dataset.approve, true); return; }
      var no = event.target.closest("[data-reject]");
      if (no) { decide(no.dataset.reject, false); return; }
      if (event.target.closest("#approve-all")) {
        pending().reduce(function (done, r) {
          return done.then(function () { return decide(r.request, true); });
        }, Promise.resolve());
      }
    });
    document.getElementById("pause-switch").addEventListener("change", function (event) {
      post("/table", {paused: event.target.checked}).then(function (result) {
        if (!result.ok) { toast(result.body.error || "Refused.", true); }
      });
    });
    document.addEventListener("keydown", function (event) {
      var tag = (event.target.tagName || "").toLowerCase();
      if (tag === "input" || tag === "textarea" || event.ctrlKey || event.metaKey || event.altKey) {
        return;
      }
      var oldest = pending()[0];
      if (!oldest) { return; }
      if (event.key === "a" || event.key === "A") { event.preventDefault(); decide(oldest.request, true); }
      if (event.key === "r" || event.key === "R") { event.preventDefault(); decide(oldest.request, false); }
    });

    var seatList = document.getElementById("seat-list");
    var links = {};  // the link of each seat made on this page (a key is shown once)
    function showSeats() {
      fetch(api + "/seats", {headers: {"Authorization": "Bearer " + key}})
        .then(function (response) { return response.json(); })
        .then(function (seats) {
          seatList.replaceChildren();
          (Array.isArray(seats) ? seats : []).forEach(function (s) {
            var row = el("li", "seat-row");
            row.appendChild(el("strong", "", s.seat));
            row.appendChild(el("span", "muted", " " + s.characters.join(", ")));
            var trust = el("button", "button", s.trusted ? "Trusted ✓" : "Trust");
            trust.type = "button"; trust.dataset.trust = s.seat; trust.dataset.on = s.trusted ? "" : "1";
            var remove = el("button", "button", "Remove");
            remove.type = "button"; remove.dataset.remove = s.seat;
            row.appendChild(trust); row.appendChild(remove);
            if (links[s.seat]) {
              var box = el("div", "seat-link");
              var img = el("img", "qr"); img.src = links[s.seat].qr;
              img.alt = "QR code of seat " + s.seat + "'s link";
              var a = el("a", "", links[s.seat].link); a.href = links[s.seat].link;
              box.appendChild(img); box.appendChild(a);
              row.appendChild(box);
            }
            seatList.appendChild(row);
          });
        });
    }
    document.getElementById("seat-form").addEventListener("submit", function (event) {
      event.preventDefault();
      var name = document.getElementById("seat-name").value.trim();
      var characters = document.getElementById("seat-characters").value.split(",")
        .map(function (c) { return c.trim(); }).filter(Boolean);
      post("/seats", {seat: name, characters: characters,
                      trusted: document.getElementById("seat-trusted").checked})
        .then(function (result) {
          if (!result.ok) { toast(result.body.error || "Refused.", true); return; }
          links[result.body.seat] = {link: result.body.link, qr: result.body.qr};
          event.target.reset();
          toast("Seat " + result.body.seat + " made: its link is shown once, here.");
          showSeats();
        });
    });
    seatList.addEventListener("click", function (event) {
      var trust = event.target.closest("[data-trust]");
      if (trust) {
        post("/seats/" + encodeURIComponent(trust.dataset.trust) + "/trust",
             {trusted: !!trust.dataset.on}).then(showSeats);
        return;
      }
      var remove = event.target.closest("[data-remove]");
      if (remove && window.confirm("Remove seat " + remove.dataset.remove + "? Its key stops at once.")) {
        delete links[remove.dataset.remove];
        post("/seats/" + encodeURIComponent(remove.dataset.remove) + "/remove").then(showSeats);
      }
    });
    showSeats();
    return;
  }

  // -- a seat: tap a token of its own, then a cell; or a square overland ----------------------
  var mine = seat ? seat.characters : [];
  var mover = null;
  var measured = null;   // {argv, preview}: what Ask the GM sends
  var ruler = document.getElementById("ruler");
  var asking = 0;   // which measuring is the latest: an older answer is not shown

  // A phone's map opens zoomed on the seat's own token (table.js), every cell a thumb's size.
  markMine();

  function markMine() {
    document.querySelectorAll("#fight g.combatant").forEach(function (token) {
      token.classList.toggle("mine", mine.indexOf(token.dataset.name) >= 0);
      token.classList.toggle("selected", token.dataset.name === mover);
    });
  }

  function showRuler(title, words, bad, ready) {
    document.getElementById("ruler-target").textContent = title;
    var text = document.getElementById("ruler-text");
    text.textContent = words;
    text.className = "ruler-text" + (bad ? " bad" : "");
    document.getElementById("ruler-confirm").disabled = !ready;
    ruler.hidden = false;
  }

  function closeRuler() {
    // A measuring still under way is not shown when it answers.
    asking += 1;
    ruler.hidden = true; measured = null; clear("ruler-path");
  }

  function fightCell(x, y) {
    if (mover === null) { toast("Tap one of your tokens first.", true); return Promise.resolve(null); }
    clear("ruler-path");
    measured = null;
    showRuler(mover + " to " + x + "," + y, "Measuring…", false, false);
    var who = mover, mark = ++asking;
    return post("/ruler", {name: who, to: [Number(x), Number(y)]}).then(function (result) {
      if (who !== mover || mark !== asking) { return result; }
      if (!result.ok) { measured = null; showRuler(who + " to " + x + "," + y, result.body.error, true, false); return result; }
      measured = {argv: result.body.argv};
      clear("ruler-path");
      draw(result.body.path, "ruler-path");
      showRuler(who + " to " + x + "," + y, result.body.words, false, true);
      return result;
    });
  }

  // A seat whose characters travel in two parties picks the one its tap moves; the pick is
  // kept across live updates.
  var pickedParty = null;
  function partyPicker() {
    var pick = document.getElementById("seat-party");
    if (pick && pickedParty !== null) { pick.value = pickedParty; }
    return pick;
  }
  app.addEventListener("change", function (event) {
    if (event.target.id === "seat-party") { pickedParty = event.target.value; closeRuler(); }
  });
  document.body.addEventListener("htmx:afterSwap", partyPicker);

  function mapCell(x, y) {
    var argv = ["move", "--to", x + "," + y];
    var pick = partyPicker();
    if (pick) { argv.push("--party", pick.value); }
    clear("ruler-path");
    showRuler("The party to " + x + "," + y, "Working out the path…", false, false);
    var mark = ++asking;
    post("/requests", {argv: argv, preview: true}).then(function (result) {
      if (mark !== asking) { return; }
      if (!result.ok) { measured = null; showRuler("The party to " + x + "," + y, result.body.error, true, false); return; }
      var event = result.body.preview;
      var words = [];
      if (event && event.path) { words.push((event.path.length - 1) + " squares"); }
      if (event && event.cost !== undefined) { words.push("cost " + event.cost); }
      var fill = document.querySelector(".meter-fill");
      var left = fill ? Number(fill.dataset.remaining) : NaN;
      if (event && event.cost !== undefined && !isNaN(left)) { words.push((left - event.cost) + " left today after it"); }
      measured = {argv: argv};
      draw(pathOf(event), "ruler-path");
      showRuler("The party to " + x + "," + y, words.join(" · ") || "A legal move", false, true);
    });
  }

  app.addEventListener("click", function (event) {
    var token = event.target.closest("#fight g.combatant");
    if (token) {
      if (mine.indexOf(token.dataset.name) < 0) { toast(token.dataset.name + " is not yours to move.", true); return; }
      mover = mover === token.dataset.name ? null : token.dataset.name;
      closeRuler(); markMine();
      return;
    }
    var cell = event.target.closest("#fight .cell");
    if (cell) { fightCell(cell.dataset.x, cell.dataset.y); return; }
    var square = event.target.closest("#map rect.cell");
    if (square && !document.querySelector("#fight")) { mapCell(square.dataset.x, square.dataset.y); }
  });

  // Ask the GM for what the ruler shows (a trusted seat: record it).
  function askMeasured() {
    if (!measured) { return null; }
    var argv = measured.argv;
    document.getElementById("ruler-confirm").disabled = true;
    return post("/requests", {argv: argv}).then(function (result) {
      if (result.status === 202) { toast("Asked the GM (request " + result.body.request + ")."); }
      else if (result.ok) { toast("Moved: recorded as #" + result.body.event.seq + "."); }
      else { toast(result.body.error || "Refused.", true); }
      closeRuler();
      return result;
    });
  }

  document.getElementById("ruler-cancel").addEventListener("click", closeRuler);
  document.getElementById("ruler-confirm").addEventListener("click", askMeasured);
  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && !ruler.hidden) { closeRuler(); }
  });

  // What the map table (table.js) drives when the seat drags one of its own tokens: the same
  // ruler, and a drop asks the GM as the button does.
  window.trekRuler = {
    choose: function (name) {
      if (mine.indexOf(name) >= 0 && mover !== name) { mover = name; closeRuler(); markMine(); }
    },
    measure: function (x, y) { return fightCell(String(x), String(y)); },
    preview: function (x, y) { return Promise.resolve(null); },
    recordMeasured: askMeasured,
    moveParty: function () { return null; },
    close: closeRuler
  };
})();
