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
  // A seat drags only the tokens of the characters it plays.
  var mine = app.dataset.seat ? JSON.parse(app.dataset.seat).characters : null;
  var kept = {};      // each map's view ({scale, x, y}) and grid opacity, kept across updates
  var drag = null;    // the drag under way: what is dragged, from where, the cell it is over

  function keptFor(id) {
    if (!kept[id]) { kept[id] = {scale: 1, x: 0, y: 0, grid: null}; }
    return kept[id];
  }

  function button(label, title, then) {
    var b = document.createElement("button");
    b.type = "button";
    b.className = "button map-tool";
    b.textContent = label;
    b.title = title;
    b.addEventListener("click", then);
    return b;
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
      if (!svg || svg.dataset.table) { return; }
      svg.dataset.table = "1";
      var id = port.dataset.map || "map";
      var view = keptFor(id);
      var zoom = window.Panzoom(svg, {
        minScale: 0.5, maxScale: 10, step: 0.25, cursor: "grab",
        startScale: view.scale, startX: view.x, startY: view.y,
        // A token and the party's marker are dragged, not the map under them.
        excludeClass: "draggable"
      });
      svg.addEventListener("panzoomchange", function (event) {
        view.scale = event.detail.scale; view.x = event.detail.x; view.y = event.detail.y;
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
      var tools = document.createElement("div");
      tools.className = "map-tools";
      tools.appendChild(button("Fit", "Show the whole map", function () {
        zoom.reset({animate: false});
      }));
      tools.appendChild(button("+", "Zoom in", function () { zoom.zoomIn(); }));
      tools.appendChild(button("−", "Zoom out", function () { zoom.zoomOut(); }));
      if (svg.classList.contains("pictured")) {
        var label = document.createElement("label");
        label.className = "grid-opacity";
        label.textContent = "Grid ";
        var range = document.createElement("input");
        range.type = "range"; range.min = "0"; range.max = "100";
        range.value = view.grid === null ? "30" : String(view.grid);
        range.setAttribute("aria-label", "The grid's opacity over the picture");
        range.addEventListener("input", function () {
          view.grid = Number(range.value);
          port.style.setProperty("--grid-opacity", String(view.grid / 100));
        });
        label.appendChild(range);
        tools.appendChild(label);
        if (view.grid !== null) {
          port.style.setProperty("--grid-opacity", String(view.grid / 100));
        }
      }
      port.parentNode.insertBefore(tools, port);
      if (gm) {
        svg.querySelectorAll("g.combatant, circle.party").forEach(function (node) {
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

  // A live update that arrives while a token is held waits for the drop, so the token under
  // the finger is not swapped away; the page is then drawn afresh.
  var heldBack = false;
  document.body.addEventListener("htmx:beforeSwap", function (event) {
    if (drag) { event.detail.shouldSwap = false; heldBack = true; }
  });

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
    var node = event.target.closest("#fight g.combatant.draggable, #map circle.party.draggable");
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
            origin: cellCentre(start), moved: false};
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
