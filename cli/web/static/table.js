/* The map table: pan and zoom on every page's map (wheel, pinch, drag; "Fit" shows it whole),
   the grid's opacity over a picture, and on the GM's page a token or the party's marker dragged
   with mouse or finger, the ruler following it cell by cell and a drop recording the move. On a
   seat's page its own tokens drag the same way, and the drop asks the GM (a trusted seat's
   records): the ruler there is seats.js's, behind the same window.trekRuler. Esc lets go.
   Panning and zooming is the vendored Panzoom (static/VENDORED.md). */
(function () {
  "use strict";
  var app = document.getElementById("app");
  if (!app || !window.Panzoom) { return; }
  var gm = app.dataset.view === "gm";
  var tables = {};    // each map's svg and its Panzoom, by the map's id ("map", "fight")
  // A seat drags only the tokens of the characters it plays.
  var mine = app.dataset.seat ? JSON.parse(app.dataset.seat).characters : null;
  var drag = null;    // the drag under way: what is dragged, from where, the cell it is over
  var THUMB = 44;     // a finger's smallest target, in CSS px
  var touch = window.matchMedia("(pointer: coarse)").matches || window.innerWidth <= 600;

  function button(label, title, then) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "button map-tool";
    b.textContent = label;
    b.title = title;
    b.addEventListener("click", then);
    return b;
  }

  function centreOfBox(node) {
    var box = node.getBoundingClientRect();
    return [box.left + box.width / 2, box.top + box.height / 2];
  }

  // What a phone's map opens on: the seat's own token, the token picked, one of the party's
  // side, or the party's marker.
  var own = [];
  try { own = JSON.parse(app.dataset.seat || "{}").characters || []; } catch (e) { own = []; }
  function focusOf(svg) {
    var mine = Array.prototype.find.call(svg.querySelectorAll("g.combatant"), function (t) {
      return own.indexOf(t.dataset.name) >= 0;
    });
    return mine || svg.querySelector("g.combatant.selected") ||
      svg.querySelector("g.combatant:not(.enemy)") || svg.querySelector("g.combatant") ||
      svg.querySelector("circle.party");
  }

  // On a touch screen a map whose cells (or tokens) are drawn smaller than a finger opens
  // zoomed in so they are a finger's size, centred on what the page is about; Fit shows the
  // whole map. Worked out before Panzoom takes the map, as its start.
  function thumbSized(port, svg) {
    var start = {startScale: 1, startX: 0, startY: 0};
    var cell = svg.querySelector(".cell");
    if (!touch || !cell) { return start; }
    var box = cell.getBoundingClientRect();
    var across = Math.min(box.width, box.height);
    var token = svg.querySelector("g.combatant .token-shape");
    if (token) {
      var drawn = token.getBoundingClientRect();
      across = Math.min(across, drawn.width, drawn.height);
    }
    if (!(across > 0) || across >= THUMB) { return start; }
    var scale = start.startScale = Math.min(10, (THUMB + 2) / across);
    // The zoomed map is given room: as tall as it is drawn, up to 60 % of the screen.
    var whole = svg.getBoundingClientRect().height * scale;
    var room = Math.min(window.innerHeight * 0.6, whole);
    if (room > port.getBoundingClientRect().height) { port.style.height = room + "px"; }
    var focus = focusOf(svg);
    if (focus) {
      // Panzoom scales about the map's centre and translates inside its scale (a pan of d
      // moves a point by d × scale): the pan that brings the focus to the viewport's middle.
      var here = centreOfBox(focus), middle = centreOfBox(port), mid = centreOfBox(svg);
      start.startX = (middle[0] - mid[0]) / scale - (here[0] - mid[0]);
      start.startY = (middle[1] - mid[1]) / scale - (here[1] - mid[1]);
      // Near the map's edge, no further than keeps the viewport covered by the map.
      var drawn = svg.getBoundingClientRect(), frame = port.getBoundingClientRect();
      start.startX = within(start.startX, frame.left, frame.right, mid[0], drawn.width, scale);
      start.startY = within(start.startY, frame.top, frame.bottom, mid[1], drawn.height,
                            scale);
    }
    return start;
  }

  // A pan along one axis kept to those that leave the frame (`from`–`to`) covered by the map
  // (`size` wide about `mid`, zoomed `scale` times about its middle), where it can be.
  function within(pan, from, to, mid, size, scale) {
    var least = (to - mid) / scale - size / 2, most = (from - mid) / scale + size / 2;
    return least <= most ? Math.min(most, Math.max(least, pan)) : pan;
  }

  function tableOf(port, svg, start) {
    var zoom = window.Panzoom(svg, {
      minScale: 0.5, maxScale: 10, step: 0.25, cursor: "grab",
      startScale: start.startScale, startX: start.startX, startY: start.startY,
      // A token and the party's marker are dragged, not the map under them.
      excludeClass: "draggable"
    });
    port.addEventListener("wheel", function (event) { zoom.zoomWithWheel(event); },
                          {passive: false});
    // A press that panned the map is no click on the cell it started on.
    var down = null, panned = false;
    port.addEventListener("pointerdown", function (event) {
      down = [event.clientX, event.clientY]; panned = false;
    }, true);
    port.addEventListener("pointermove", function (event) {
      if (down && Math.hypot(event.clientX - down[0], event.clientY - down[1]) > 6) {
        panned = true;
      }
    }, true);
    port.addEventListener("pointerup", function () { down = null; }, true);
    port.addEventListener("click", function (event) {
      if (panned) { event.stopPropagation(); event.preventDefault(); panned = false; }
    }, true);
    return zoom;
  }

  function toolsFor(port, table) {
    var tools = document.createElement("div");
    tools.className = "map-tools";
    tools.appendChild(button("Fit", "Show the whole map", function () {
      table.zoom.reset({startScale: 1, startX: 0, startY: 0, animate: false});
    }));
    tools.appendChild(button("+", "Zoom in", function () { table.zoom.zoomIn(); }));
    tools.appendChild(button("−", "Zoom out", function () { table.zoom.zoomOut(); }));
    if (table.svg.classList.contains("pictured")) {
      var label = document.createElement("label");
      label.className = "grid-opacity";
      label.textContent = "Grid ";
      var range = document.createElement("input");
      range.type = "range"; range.min = "0"; range.max = "100";
      // The viewport keeps its opacity across live updates (it is never swapped).
      var set = port.style.getPropertyValue("--grid-opacity");
      range.value = set ? String(Math.round(Number(set) * 100)) : "30";
      range.setAttribute("aria-label", "The grid's opacity over the picture");
      range.addEventListener("input", function () {
        port.style.setProperty("--grid-opacity", String(Number(range.value) / 100));
      });
      label.appendChild(range);
      tools.appendChild(label);
    }
    return tools;
  }

  // On a phone the map's key starts folded (a tap on "Key" opens it); kept as the GM left it.
  var keyOpen = window.innerWidth > 600;
  function setUp() {
    document.querySelectorAll("details.key").forEach(function (key) {
      key.open = keyOpen;
      key.addEventListener("toggle", function () { keyOpen = key.open; });
    });
    document.querySelectorAll(".viewport").forEach(function (port) {
      var svg = port.querySelector("svg");
      if (!svg) { return; }
      var id = port.dataset.map || "map";
      var table = tables[id];
      if (!table || table.svg !== svg) {
        table = tables[id] = {svg: svg, zoom: null};
        // Its tools go above it first, so the page around the map is laid out as it stays.
        port.parentNode.insertBefore(toolsFor(port, table), port);
        table.zoom = tableOf(port, svg, thumbSized(port, svg));
      }
      var before = port.previousElementSibling;
      if (!before || !before.classList.contains("map-tools")) {
        port.parentNode.insertBefore(toolsFor(port, table), port);
      }
      if (gm) {
        svg.querySelectorAll("g.combatant, svg.route-map .party:not(.other-party)").forEach(function (node) {
          node.classList.add("draggable");
        });
      } else if (mine) {
        svg.querySelectorAll("g.combatant").forEach(function (node) {
          node.classList.toggle("draggable", mine.indexOf(node.dataset.name) >= 0);
        });
      }
    });
  }
  setUp();
  document.body.addEventListener("htmx:afterSwap", setUp);

  // -- a live update: only what changed on top of the picture ---------------------------------
  // The viewport is kept by htmx (hx-preserve): its svg, the picture in it and the pan and
  // zoom stay the same nodes. Before the swap each layer of the new map that differs from the
  // one drawn replaces it; the picture is only re-pointed if the map's picture changed.
  function isRuler(node) {
    return node.classList.contains("ruler-path") || node.classList.contains("ruler-target");
  }

  function sameAttributes(from, to, keep) {
    Array.prototype.slice.call(to.attributes).forEach(function (a) {
      if (keep.indexOf(a.name) < 0 && !from.hasAttribute(a.name)) { to.removeAttribute(a.name); }
    });
    Array.prototype.slice.call(from.attributes).forEach(function (a) {
      if (keep.indexOf(a.name) < 0 && to.getAttribute(a.name) !== a.value) {
        to.setAttribute(a.name, a.value);
      }
    });
  }

  function patch(old, fresh) {
    sameAttributes(fresh, old, ["style", "data-table"]);
    var drawn = Array.prototype.filter.call(old.children, function (n) { return !isRuler(n); });
    var pool = {};
    drawn.forEach(function (n) { (pool[n.outerHTML] = pool[n.outerHTML] || []).push(n); });
    var picture = old.querySelector(":scope > image.map-picture");
    var wanted = Array.prototype.map.call(fresh.children, function (n) {
      if (picture && n.matches("image.map-picture")) {
        sameAttributes(n, picture, []);
        return picture;
      }
      var same = pool[n.outerHTML];
      return same && same.length ? same.shift() : document.importNode(n, true);
    });
    drawn.forEach(function (n) { if (wanted.indexOf(n) < 0) { old.removeChild(n); } });
    var prev = null;
    wanted.forEach(function (n) {
      var at = prev ? prev.nextElementSibling : old.firstElementChild;
      while (at && isRuler(at)) { at = at.nextElementSibling; }
      if (at !== n) { old.insertBefore(n, at); }
      prev = n;
    });
  }

  document.body.addEventListener("htmx:beforeSwap", function (event) {
    // A live update that arrives while a token is held waits for the drop, so the token
    // under the finger is not swapped away; the page is then drawn afresh.
    if (drag) { event.detail.shouldSwap = false; heldBack = true; return; }
    if (event.detail.target !== app || !event.detail.shouldSwap) { return; }
    var text = event.detail.serverResponse;
    if (typeof text !== "string" || text.indexOf("viewport") < 0) { return; }
    var fresh = new DOMParser().parseFromString(text, "text/html");
    document.querySelectorAll(".viewport[id]").forEach(function (port) {
      var now = fresh.getElementById(port.id);
      var old = port.querySelector("svg"), svg = now && now.querySelector("svg");
      if (old && svg) { patch(old, svg); }
    });
  });
  var heldBack = false;

  if (!gm && !mine) { return; }

  // -- dragging a token (a fight) or the party's marker (overland) ------------------------------

  function cellAt(event, where) {
    var found = document.elementsFromPoint(event.clientX, event.clientY);
    for (var i = 0; i < found.length; i++) {
      var cell = found[i].closest && found[i].closest(where + " .cell");
      if (cell) { return cell; }
    }
    return null;
  }

  function cellCentre(cell) {
    var box = cell.getBBox();
    return [box.x + box.width / 2, box.y + box.height / 2];
  }

  function follow(cell) {
    // The token is drawn over the cell it would be dropped on.
    var here = cellCentre(cell);
    drag.node.setAttribute("transform", "translate(" + (here[0] - drag.origin[0]) + " " +
                           (here[1] - drag.origin[1]) + ")");
  }


  function endDrag(cancelled) {
    if (!drag) { return; }
    var was = drag;
    drag = null;
    if (heldBack) {
      heldBack = false;
      setTimeout(function () { window.htmx.trigger(document.body, "trek:changed"); }, 0);
    }
    was.node.classList.remove("dragging");
    if (cancelled) {
      was.node.removeAttribute("transform");
      window.trekRuler.close();
    }
    return was;
  }

  app.addEventListener("pointerdown", function (event) {
    // Only a token this page may take, and only the marker of the party in use: the ruler and
    // the day's actions act on that one.
    var node = event.target.closest(
      "#fight g.combatant.draggable, #map .party.draggable:not(.other-party)");
    if (!node || !window.trekRuler || event.button > 0) { return; }
    var fight = node.matches("g.combatant");
    var where = fight ? "#fight" : "#map";
    var start = cellAt(event, where);
    if (!start) { return; }
    event.preventDefault();
    node.setPointerCapture(event.pointerId);
    node.classList.add("dragging");
    drag = {node: node, fight: fight, where: where, pointer: event.pointerId,
            start: start.dataset.x + "," + start.dataset.y, over: null, asked: null,
            origin: cellCentre(start), moved: false,
            last: [Number(start.dataset.x), Number(start.dataset.y)]};
  });

  // A press that dragged is no click (a click on a token picks it for the ruler).
  var swallow = false;
  document.addEventListener("click", function (event) {
    if (swallow) { swallow = false; event.stopPropagation(); event.preventDefault(); }
  }, true);

  app.addEventListener("pointermove", function (event) {
    if (!drag || event.pointerId !== drag.pointer) { return; }
    var cell = cellAt(event, drag.where);
    if (!cell) { return; }
    var xy = cell.dataset.x + "," + cell.dataset.y;
    if (xy === drag.over) { return; }
    drag.over = xy;
    if (xy !== drag.start && !drag.moved) {
      drag.moved = true;
      if (drag.fight) { window.trekRuler.choose(drag.node.dataset.name); }
    }
    follow(cell);
    if (xy === drag.start) { window.trekRuler.close(); drag.asked = null; return; }
    // Each new cell is measured at once: path, cost and what remains, or the refusal.
    drag.asked = {xy: xy, answer: drag.fight
      ? window.trekRuler.measure(cell.dataset.x, cell.dataset.y)
      : window.trekRuler.preview(cell.dataset.x, cell.dataset.y)};
    // And the next cell along the way the pointer is going, so it is answered on arrival (the
    // GM's ruler keeps its answers; a seat's asks for each cell it is on).
    var x = Number(cell.dataset.x), y = Number(cell.dataset.y);
    if (drag.fight && drag.last && window.trekRuler.ahead) {
      window.trekRuler.ahead(x + Math.sign(x - drag.last[0]), y + Math.sign(y - drag.last[1]));
    }
    drag.last = [x, y];
  });

  function drop(event) {
    if (!drag || event.pointerId !== drag.pointer) { return; }
    var was = endDrag(false);
    swallow = was.moved;
    setTimeout(function () { swallow = false; }, 0);
    if (!was.asked || was.over === was.start || event.type === "pointercancel") {
      was.node.removeAttribute("transform");
      window.trekRuler.close();
      return;
    }
    var asked = was.asked;
    asked.answer.then(function (result) {
      if (!result || !result.ok) {
        // The refusal stays in the ruler; nothing is recorded.
        was.node.removeAttribute("transform");
        return;
      }
      if (was.fight && !gm) {
        // A seat's token goes back to its cell: the move is the GM's to record (the page is
        // drawn afresh when it is).
        was.node.removeAttribute("transform");
        window.trekRuler.recordMeasured();
      } else if (was.fight) {
        window.trekRuler.recordMeasured();
      } else {
        var xy = asked.xy.split(",");
        window.trekRuler.moveParty(xy[0], xy[1]);
      }
    });
  }
  app.addEventListener("pointerup", drop);
  app.addEventListener("pointercancel", drop);

  document.addEventListener("keydown", function (event) {
    if (event.key === "Escape" && drag) { endDrag(true); }
  }, true);
})();
