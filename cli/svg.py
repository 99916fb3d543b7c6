"""Battle maps as SVG: the grid (squares or flat-topped hexes), walls and terrain, coordinates
on the edges, combatants coloured by side, and this round's paths as arrows.

Hand-written SVG: every text a GM typed goes through `html.escape`, so a character called
`<script>` is drawn as those letters.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from itertools import pairwise
from typing import Any

from cli import render
from cli.drawing import (
    GRID_OPACITY,
    TERRAIN_FILL,
    UNKNOWN_FILL,
    PictureHref,
    picture_under,
    token_labels,
)
from cli.drawing import text as _t
from domain.geometry import Square
from domain.grid import GRIDS

CELL = 40
MARGIN = 28
LEGEND_ROW = 18
# Okabe and Ito's colour-blind-safe palette (bluish green, blue, vermilion), and a shape per
# side as well, so no one tells the sides apart by colour alone.
SIDE_COLOURS = {"party": "#009E73", "ally": "#0072B2", "enemy": "#D55E00"}


def token_shape(side: str, cx: float, cy: float, colour: str, size: float = CELL * 0.36,
                extra: str = ' stroke="white" stroke-width="2"') -> str:
    """A side's token: the party a disc, allies a rounded square, enemies a diamond."""
    if side == "ally":
        half = size * 0.9
        return (f'<rect class="token-shape" x="{cx - half:.1f}" y="{cy - half:.1f}" '
                f'width="{2 * half:.1f}" height="{2 * half:.1f}" rx="{size * 0.2:.1f}" '
                f'fill="{colour}"{extra}/>')
    if side == "enemy":
        reach = size * 1.2
        return (f'<polygon class="token-shape" points="{cx:.1f},{cy - reach:.1f} '
                f'{cx + reach:.1f},{cy:.1f} {cx:.1f},{cy + reach:.1f} {cx - reach:.1f},{cy:.1f}" '
                f'fill="{colour}"{extra}/>')
    return (f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{size:.1f}" class="token-shape" '
            f'fill="{colour}"{extra}/>')

# Each round's paths in their own colour, the latest darkest: earlier rounds cycle through
# these, fainter the older they are.
ROUND_COLOURS = ("#6a1b9a", "#ef6c00", "#00838f", "#ad1457", "#558b2f", "#4527a0")
LATEST_ROUND = "#222222"
# A round's later phases (a ruleset's own, such as a pass) drawn apart: the first solid, then
# these dashes.
PHASE_DASHES = ("", "9 4", "2 4", "12 4 2 4")
STOPPED = "#c62828"


def _round_slot(number: int, rounds: list[int]) -> str:
    return "latest" if number == rounds[-1] else str(rounds.index(number) % len(ROUND_COLOURS))


def _round_style(number: int, rounds: list[int]) -> tuple[str, str]:
    """The stroke colour and opacity of round `number`'s paths among `rounds` (sorted)."""
    if number == rounds[-1]:
        return LATEST_ROUND, "0.85"
    age = rounds[-1] - number
    colour = ROUND_COLOURS[rounds.index(number) % len(ROUND_COLOURS)]
    return colour, f"{max(0.35, 0.8 - 0.1 * age):.2f}"


def _arrow_markers() -> str:
    """One arrowhead per colour a path may have, so each head matches its line."""
    slots = [("latest", LATEST_ROUND)] + [(str(i), c) for i, c in enumerate(ROUND_COLOURS)]
    return "".join(
        f'<marker id="arrow-{slot}" viewBox="0 0 10 10" refX="8" refY="5" markerWidth="6" '
        f'markerHeight="6" orient="auto-start-reverse"><path d="M 0 0 L 10 5 L 0 10 z" '
        f'fill="{colour}"/></marker>' for slot, colour in slots)


def _extent(doc: Mapping[str, Any], margin: int = 1) -> tuple[range, range]:
    battle_map = doc["map"]
    if battle_map is not None:
        return range(battle_map["width"]), range(battle_map["height"])
    points = [(c["position"]["x"], c["position"]["y"]) for c in doc["combatants"].values()]
    for path in doc.get("paths", []):
        points += [(cell["x"], cell["y"]) for cell in path["path"]]
    points = points or [(0, 0)]
    xs = range(min(x for x, _ in points) - margin, max(x for x, _ in points) + margin + 1)
    ys = range(min(y for _, y in points) - margin, max(y for _, y in points) + margin + 1)
    return xs, ys


def _terrain(doc: Mapping[str, Any], x: int, y: int) -> str:
    battle_map = doc["map"]
    if battle_map is None:
        return "open"
    return str(battle_map["legend"][battle_map["rows"][y][x]]["terrain"])


class Layout:
    """Where a cell's centre is drawn, and the outline of a cell."""

    def __init__(self, grid: str, xs: range, ys: range) -> None:
        self.hex = GRIDS[grid].staggered
        self.xs, self.ys = xs, ys
        self.size = CELL / 2 if not self.hex else CELL / math.sqrt(3)

    def centre(self, x: int, y: int) -> tuple[float, float]:
        col, row = x - self.xs.start, y - self.ys.start
        if not self.hex:
            return MARGIN + col * CELL + CELL / 2, MARGIN + row * CELL + CELL / 2
        height = math.sqrt(3) * self.size
        # Odd columns (by map x, as the rules count them) sit half a hex lower.
        return (MARGIN + self.size + col * 1.5 * self.size,
                MARGIN + height / 2 + row * height + (height / 2 if x % 2 else 0))

    def corner(self, x: int, y: int) -> tuple[float, float]:
        """Where grid point (x, y), the top-left corner of square (x, y), is drawn."""
        return MARGIN + (x - self.xs.start) * CELL, MARGIN + (y - self.ys.start) * CELL

    def outline(self, x: int, y: int) -> str:
        cx, cy = self.centre(x, y)
        if not self.hex:
            h = CELL / 2
            corners = [(cx - h, cy - h), (cx + h, cy - h), (cx + h, cy + h), (cx - h, cy + h)]
        else:
            corners = [(cx + self.size * math.cos(math.radians(60 * i)),
                        cy + self.size * math.sin(math.radians(60 * i))) for i in range(6)]
        return " ".join(f"{px:.1f},{py:.1f}" for px, py in corners)

    def size_of_board(self) -> tuple[float, float]:
        cols, rows = len(self.xs), len(self.ys)
        if not self.hex:
            return cols * CELL, rows * CELL
        height = math.sqrt(3) * self.size
        return (1.5 * self.size * (cols - 1) + 2 * self.size,
                rows * height + (height / 2 if cols > 1 else 0))


def _around_tokens(centres: list[tuple[float, float]], move: dict[str, Any],
                   standing: dict[tuple[int, int], str]) -> tuple[list[tuple[float, float]], bool]:
    """A path's points, each one on a cell where someone else now stands moved aside, past the
    edge of that token: an earlier move never runs through another's token as if it were its
    own path. Also whether any point moved."""
    moved = list(centres)
    detoured = False
    for i, cell in enumerate(move["path"]):
        occupant = standing.get((cell["x"], cell["y"]))
        if occupant is None or occupant == move["name"]:
            continue
        (ax, ay) = centres[max(i - 1, 0)]
        (bx, by) = centres[min(i + 1, len(centres) - 1)]
        dx, dy = bx - ax, by - ay
        length = math.hypot(dx, dy) or 1.0
        # Sideways to the way the path runs there, clear of the token's ring.
        cx, cy = centres[i]
        moved[i] = (cx - dy / length * CELL * 0.45, cy + dx / length * CELL * 0.45)
        detoured = True
    return moved, detoured


def _token_marks(cx: float, cy: float, colour: str, words: list[str]) -> str:
    """The words a token wears (the states its ruleset names) as tags inside its cell: the
    first across the foot of the token, any more joined in one across its head. A tag never
    runs past its cell, so it never covers a neighbour's token or tags."""
    rows = [words[0], ", ".join(words[1:])] if len(words) > 1 else words
    out = []
    for row, word in enumerate(rows):
        natural = 4.8 * len(word)
        width = min(natural + 8, CELL - 2)
        top = cy + CELL * 0.2 if row == 0 else cy - CELL * 0.48
        squeeze = (f' textLength="{width - 6:.1f}" lengthAdjust="spacingAndGlyphs"'
                   if natural > width - 6 else "")
        out.append(f'<g class="token-mark" data-mark="{_t(word)}">'
                   f'<rect x="{cx - width / 2:.1f}" y="{top:.1f}" width="{width:.1f}" '
                   f'height="10.5" rx="5" fill="#fff8e1" stroke="{colour}" stroke-width="1"/>'
                   f'<text x="{cx:.1f}" y="{top + 8:.1f}" font-size="8" font-weight="normal" '
                   f'fill="#222"{squeeze}>{_t(word)}</text></g>')
    return "".join(out)


def _facing_arrow(layout: Layout, grid: str, combatant: dict[str, Any], colour: str) -> str:
    """A wedge from the token toward the neighbour it faces (nothing without a facing)."""
    facing = combatant.get("facing")
    if facing is None or facing not in GRIDS[grid].directions:
        return ""
    here = Square(combatant["position"]["x"], combatant["position"]["y"])
    there = GRIDS[grid].step(here, facing)
    cx, cy = layout.centre(here.x, here.y)
    nx, ny = layout.centre(there.x, there.y)
    span = math.hypot(nx - cx, ny - cy) or 1.0
    ux, uy = (nx - cx) / span, (ny - cy) / span
    tip = CELL * 0.6
    base, half = CELL * 0.3, CELL * 0.2
    points = [(cx + ux * tip, cy + uy * tip),
              (cx + ux * base - uy * half, cy + uy * base + ux * half),
              (cx + ux * base + uy * half, cy + uy * base - ux * half)]
    drawn = " ".join(f"{px:.1f},{py:.1f}" for px, py in points)
    return (f'<polygon class="facing" data-facing="{_t(facing)}" points="{drawn}" '
            f'fill="{colour}" stroke="white" stroke-width="1"/>')


def _phased(move: dict[str, Any], paths: list[dict[str, Any]]) -> bool:
    """Whether `move`'s round has a second phase (so its phases are drawn apart)."""
    return any(other.get("phase") and other["round"] == move["round"] for other in paths)


def _stop(layout: Layout, move: dict[str, Any], word: str) -> list[str]:
    """Where a move was cut short: a dashed red line from where it got to back to where the
    mover stands, and a cross there, never an arrow of a move of its own."""
    centres = [layout.centre(cell["x"], cell["y"]) for cell in move["path"]]
    points = " ".join(f"{cx:.1f},{cy:.1f}" for cx, cy in centres)
    sx, sy = centres[-1]
    return [f'<g class="stop" data-name="{_t(move["name"])}" data-round="{move["round"]}">'
            f'<polyline points="{points}" stroke="{STOPPED}" stroke-dasharray="4 3" '
            'stroke-width="2" fill="none"/>'
            f'<text x="{sx:.1f}" y="{sy - CELL * 0.42:.1f}" fill="{STOPPED}" font-size="14" '
            f'font-weight="bold" text-anchor="middle">✕</text>'
            f"<title>{_t(move['name'])}: {_t(word)} here</title></g>"]


WALL_INK = "#212121"
DOOR_FILL = "#8d5524"
# How thick walls and doors are drawn on the lines between squares.
WALL_WIDTH = 5
DOOR_WIDTH = 9


def _edges(layout: Layout, doc: Mapping[str, Any]) -> list[str]:
    """Walls on the lines between squares, each run a line from grid point to grid point, and
    doors as doors (RULES §16): a closed door a solid leaf across its edges, an open one an
    empty frame with its leaf swung open from its first point."""
    battle_map = doc["map"]
    walls = battle_map.get("walls", []) if battle_map is not None else []
    doors = doc.get("doors", [])
    if not walls and not doors:
        return []
    out = [f'<g class="walls" stroke="{WALL_INK}" stroke-width="{WALL_WIDTH}" '
           'stroke-linecap="round">']
    for wall in walls:
        for a, b in pairwise(wall):
            (x1, y1), (x2, y2) = layout.corner(a["x"], a["y"]), layout.corner(b["x"], b["y"])
            out.append(f'<line class="wall" x1="{x1:.1f}" y1="{y1:.1f}" x2="{x2:.1f}" '
                       f'y2="{y2:.1f}"/>')
    out.append("</g>")
    out.append('<g class="doors">')
    for door in doors:
        (x1, y1) = layout.corner(door["from"]["x"], door["from"]["y"])
        (x2, y2) = layout.corner(door["to"]["x"], door["to"]["y"])
        closed = bool(door["closed"])
        left, top = min(x1, x2), min(y1, y2)
        across = x1 == x2
        # The leaf lies along the edges, inset a little so the walls' ends show beside it.
        inset = 3.0
        box: tuple[float, float, float, float]
        if across:
            box = (left - DOOR_WIDTH / 2, top + inset, DOOR_WIDTH, abs(y2 - y1) - 2 * inset)
        else:
            box = (left + inset, top - DOOR_WIDTH / 2, abs(x2 - x1) - 2 * inset, DOOR_WIDTH)
        state = "closed" if closed else "open"
        parts = [f'<g class="door {state}" data-door="{_t(door["name"])}" '
                 f'data-closed="{"true" if closed else "false"}">',
                 f"<title>{_t(door['name'])} ({state})</title>",
                 f'<rect class="leaf-frame" x="{box[0]:.1f}" y="{box[1]:.1f}" '
                 f'width="{box[2]:.1f}" height="{box[3]:.1f}" '
                 + (f'fill="{DOOR_FILL}" stroke="{WALL_INK}" stroke-width="1.5"/>' if closed
                    else f'fill="white" fill-opacity="0.6" stroke="{DOOR_FILL}" '
                         'stroke-width="1.5" stroke-dasharray="3 2"/>')]
        if not closed:
            # The leaf swung a quarter turn about the door's first point.
            length = math.hypot(x2 - x1, y2 - y1)
            ex, ey = (x1 + length, y1) if across else (x1, y1 + length)
            parts.append(f'<line class="leaf" x1="{x1:.1f}" y1="{y1:.1f}" x2="{ex:.1f}" '
                         f'y2="{ey:.1f}" stroke="{DOOR_FILL}" stroke-width="4"/>')
        parts.append("</g>")
        out.append("".join(parts))
    out.append("</g>")
    return out


def _ink_on(fill: str) -> str:
    """Black or white, whichever reads on `fill` (a #rrggbb colour)."""
    red, green, blue = (int(fill[i:i + 2], 16) for i in (1, 3, 5))
    return "white" if 0.299 * red + 0.587 * green + 0.114 * blue < 128 else "black"


def _ground_key_rows(doc: Mapping[str, Any], width: float
                     ) -> list[list[tuple[float, str, str, str]]]:
    """The ground's key laid out in rows that fit `width`: each entry's left edge, mark, words
    and fill (none for an open plain)."""
    battle_map = doc["map"]
    if battle_map is None:
        return []
    rows: list[list[tuple[float, str, str, str]]] = [[]]
    left = float(MARGIN)
    for mark, words, fill in _ground_key(battle_map):
        # About 7 pixels a character at 12 pixels, after the swatch.
        span = 20 + 7 * len(words) + 16
        if rows[-1] and left + span > MARGIN + width:
            rows.append([])
            left = float(MARGIN)
        rows[-1].append((left, mark, words, fill))
        left += span
    return rows


def _ground_key(battle_map: dict[str, Any]) -> list[tuple[str, str, str]]:
    """Each mark the map's ground is drawn with, once: the mark, its words and its fill."""
    terrain_of = {mark: TERRAIN_FILL.get(str(battle_map["legend"][char]["terrain"]),
                                         UNKNOWN_FILL)
                  for char, mark in render.map_marks(battle_map).items()}
    return [(mark, words, terrain_of[mark]) for mark, words in render.map_key(battle_map)]


def _marked(battle_map: Mapping[str, Any], marks: Mapping[str, str]) -> set[str]:
    """The legend characters whose squares show their mark: those that say more than their
    terrain. A name that only repeats the terrain (an imported map's ground named `open`),
    drawn with the terrain's own mark, says nothing a plain square does not: marking each of
    its squares would only cover the picture (and weigh the page by a text a square)."""
    marked = set()
    for char, mark in marks.items():
        entry = battle_map["legend"][char]
        terrain = str(entry["terrain"])
        if not render.says_more(entry):
            continue
        if (entry.get("name") == terrain and not render.says_more(entry, besides=("name",))
                and mark == render.plain_mark(terrain, char)):
            continue
        marked.add(char)
    return marked


def _rounds(doc: Mapping[str, Any]) -> list[int]:
    """The rounds the drawn paths were moved in."""
    return sorted({move.get("round", doc["round"]) for move in doc.get("paths", [])})


def _phases(paths: list[dict[str, Any]]) -> list[int]:
    """The phases (or passes) the drawn paths were moved in, where more than one is told."""
    return sorted({move.get("phase") or 1 for move in paths
                   if not move.get("stopped") and _phased(move, paths)})


def encounter_svg(doc: Mapping[str, Any], *, margin: int = 1,
                  picture_href: PictureHref | None = None, with_key: bool = True) -> str:
    """The encounter document (`encounter status --json` plus `paths`, each with its round)
    as SVG; an open plain is drawn `margin` cells beyond everyone and every path. A map's
    picture is drawn under the grid where `picture_href` gives its address. Without its key
    (`with_key=False`) the picture is the board alone: a page shows the key apart
    (`encounter_key_html`), where zooming the map does not take it off the screen."""
    xs, ys = _extent(doc, margin)
    layout = Layout(doc["grid"], xs, ys)
    board_w, board_h = layout.size_of_board()
    names = list(doc["combatants"]) if with_key else []
    width = max(board_w + 2 * MARGIN, 360) if with_key else board_w + 2 * MARGIN
    rounds = _rounds(doc)
    # The ground's key: each mark the terminal picture draws, once, with what it stands for.
    battle_map = doc["map"]
    ground_marks = render.map_marks(battle_map) if battle_map is not None else {}
    ground = _ground_key_rows(doc, width - 2 * MARGIN) if with_key else []
    paths = doc.get("paths", [])
    phases = _phases(paths) if with_key else []
    stops = [move for move in paths if move.get("stopped")] if with_key else []
    height = board_h + 2 * MARGIN
    if with_key:
        height += 30 + LEGEND_ROW * (
            len(names) + 1 + (1 if rounds else 0) + len(ground)
            + (1 if len(phases) > 1 else 0) + (1 if stops else 0))
    title = f"{doc['name']}, round {doc['round']}"
    under = picture_under(battle_map.get("image") if battle_map else None, picture_href,
                          (MARGIN, MARGIN), CELL, (board_w, board_h))
    pictured = ' class="pictured"' if under else ""
    faint = f' fill-opacity="{GRID_OPACITY}"' if under else ""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
        f'viewBox="0 0 {width:.0f} {height:.0f}" font-family="sans-serif" font-size="12"'
        f"{pictured}>",
        f"<title>{_t(title)}</title>",
        f"<defs>{_arrow_markers()}</defs>",
        f'<rect width="{width:.0f}" height="{height:.0f}" fill="white"/>',
        *under,
        f'<g class="cells" stroke="#999" stroke-width="1"{faint}>',
    ]
    # A row of squares on one line: no text node between two squares for a page to build.
    for y in ys:
        squares = []
        for x in xs:
            terrain = _terrain(doc, x, y)
            squares.append(f'<polygon class="cell {_t(terrain)}" data-x="{x}" data-y="{y}" '
                       f'points="{layout.outline(x, y)}" '
                       f'fill="{TERRAIN_FILL.get(terrain, UNKNOWN_FILL)}"/>')
        out.append("".join(squares))
    out.append("</g>")
    # A legend entry that is more than its terrain (a named scree costing 8) shows its mark.
    marked = _marked(battle_map, ground_marks) if battle_map is not None else set()
    out.append('<g class="ground-marks" fill="#5d4037" text-anchor="middle" font-size="14">')
    for y in ys:
        for x in xs:
            char = battle_map["rows"][y][x] if battle_map is not None else ""
            if char in marked:
                cx, cy = layout.centre(x, y)
                out.append(f'<text class="ground-mark" x="{cx:.1f}" y="{cy + 5:.1f}">'
                           f"{_t(ground_marks[char])}</text>")
    out.append("</g>")
    out.extend(_edges(layout, doc))
    out.append('<g class="coordinates" fill="#555" text-anchor="middle">')
    for x in xs:
        cx, _ = layout.centre(x, ys.start)
        out.append(f'<text x="{cx:.1f}" y="{MARGIN - 8}">{x}</text>')
    for y in ys:
        _, cy = layout.centre(xs.start, y)
        out.append(f'<text x="{MARGIN / 2:.1f}" y="{cy + 4:.1f}">{y}</text>')
    out.append("</g>")
    out.append('<g class="paths" fill="none" stroke-width="3" stroke-linejoin="round">')
    standing = {(c["position"]["x"], c["position"]["y"]): name
                for name, c in doc["combatants"].items()}
    phase_word, stop_word = render.battle_map_words(doc.get("ruleset", ""))
    for move in paths:
        if move.get("stopped"):
            out.extend(_stop(layout, move, stop_word))
            continue
        centres = [layout.centre(cell["x"], cell["y"]) for cell in move["path"]]
        centres, detoured = _around_tokens(centres, move, standing)
        # The arrow stops at the edge of the token it leads to, so its head shows.
        (px, py), (ex, ey) = centres[-2], centres[-1]
        span = math.hypot(ex - px, ey - py) or 1.0
        pull = min(CELL * 0.4, span / 2) / span
        centres[-1] = (ex - (ex - px) * pull, ey - (ey - py) * pull)
        points = " ".join(f"{cx:.1f},{cy:.1f}" for cx, cy in centres)
        number = move.get("round", doc["round"])
        colour, opacity = _round_style(number, rounds)
        phase = (move.get("phase") or 1) if _phased(move, paths) else None
        dash = (f' data-phase="{phase}" stroke-dasharray="{PHASE_DASHES[(phase - 1) % 4]}"'
                if phase is not None and phase > 1 else
                f' data-phase="{phase}"' if phase is not None else "")
        aside = ' data-detour="1"' if detoured else ""
        out.append(f'<polyline class="path" data-name="{_t(move["name"])}" '
                   f'data-round="{number}"{dash}{aside} '
                   f'points="{points}" stroke="{colour}" '
                   f'opacity="{opacity}" marker-end="url(#arrow-{_round_slot(number, rounds)})"/>')
    out.append("</g>")
    for layer in render.battle_map_layers(doc.get("ruleset", "")):
        out.extend(layer(layout, doc))
    out.append('<g class="combatants" text-anchor="middle" font-weight="bold">')
    marks = token_labels(doc["combatants"])
    worn = {name: render.token_marks(doc.get("ruleset", ""), c)
            for name, c in doc["combatants"].items()}
    for name, c in doc["combatants"].items():
        cx, cy = layout.centre(c["position"]["x"], c["position"]["y"])
        colour = SIDE_COLOURS.get(c["side"], "#555")
        mark = marks[name]
        # Three characters still fit inside the token.
        size = 12 if len(mark) < 3 else 10
        out.append(f'<g class="combatant {_t(c["side"])}" data-name="{_t(name)}" '
                   f'data-label="{_t(mark)}">'
                   f'{_facing_arrow(layout, doc["grid"], c, colour)}'
                   f'{token_shape(c["side"], cx, cy, colour)}'
                   f'<text class="label" x="{cx:.1f}" y="{cy + 4:.1f}" font-size="{size}" '
                   f'fill="white">{_t(mark)}</text>'
                   f'{_token_marks(cx, cy, colour, worn[name])}'
                   f"<title>{_t(', '.join([name, *worn[name]]))}</title></g>")
    out.append("</g>")
    if not with_key:
        out.append("</svg>")
        return "\n".join(out) + "\n"
    top = board_h + 2 * MARGIN + 12
    out.append(f'<text class="caption" x="{MARGIN}" y="{top:.0f}" font-weight="bold">'
               f"{_t(title)}</text>")
    for row, (name, c) in enumerate(doc["combatants"].items(), start=1):
        colour = SIDE_COLOURS.get(c["side"], "#555")
        line_y = top + row * LEGEND_ROW
        remaining = "-" if c.get("remaining") is None else c["remaining"]
        out.append(f'<g class="legend-row">'
                   f'{token_shape(c["side"], MARGIN + 6, line_y - 4, colour, 6, "")}'
                   f'<text x="{MARGIN + 18}" y="{line_y}">'
                   f'{_t(marks[name])}: {_t(name)} '
                   f'({_t(c["side"])}) at {c["position"]["x"]},{c["position"]["y"]}: '
                   f'moved {_t(c["moved"])}, {_t(remaining)} left'
                   f'{_t("".join(" · " + word for word in worn[name]))}</text></g>')
    for row, items in enumerate(ground, start=len(names) + 1):
        line_y = top + row * LEGEND_ROW
        out.append('<g class="legend-ground">')
        for left, mark, words, fill in items:
            out.append(f'<rect x="{left:.0f}" y="{line_y - 11}" width="14" height="14" '
                       f'fill="{fill}" stroke="#999"/>'
                       f'<text x="{left + 7:.0f}" y="{line_y}" text-anchor="middle" '
                       f'fill="{_ink_on(fill)}">{_t(mark)}</text>'
                       f'<text x="{left + 20:.0f}" y="{line_y}">{_t(words)}</text>')
        out.append("</g>")
    row = len(names) + 1 + len(ground) + (1 if rounds else 0)
    if len(phases) > 1:
        line_y = top + row * LEGEND_ROW
        out.append('<g class="legend-phases">')
        left = MARGIN
        for phase in phases:
            out.append(f'<line x1="{left}" y1="{line_y - 4}" x2="{left + 22}" y2="{line_y - 4}" '
                       f'stroke="{LATEST_ROUND}" stroke-width="3" '
                       f'stroke-dasharray="{PHASE_DASHES[(phase - 1) % 4]}"/>'
                       f'<text x="{left + 26}" y="{line_y}">{_t(phase_word)} {phase}</text>')
            left += 40 + 7 * len(f"{phase_word} {phase}")
        out.append("</g>")
        row += 1
    if stops:
        line_y = top + row * LEGEND_ROW
        who = ", ".join(dict.fromkeys(str(move["name"]) for move in stops))
        out.append(f'<g class="legend-stops"><text x="{MARGIN + 6}" y="{line_y}" '
                   f'fill="{STOPPED}" text-anchor="middle" font-weight="bold">✕</text>'
                   f'<text x="{MARGIN + 18}" y="{line_y}">{_t(stop_word)}: {_t(who)}</text></g>')
    if rounds:
        line_y = top + (len(names) + 1 + len(ground)) * LEGEND_ROW
        out.append(f'<g class="legend-rounds"><text x="{MARGIN}" y="{line_y}">paths:</text>')
        left = MARGIN + 44
        for number in rounds:
            colour, opacity = _round_style(number, rounds)
            out.append(f'<line x1="{left}" y1="{line_y - 4}" x2="{left + 18}" y2="{line_y - 4}" '
                       f'stroke="{colour}" stroke-width="3" opacity="{opacity}"/>'
                       f'<text x="{left + 22}" y="{line_y}">round {number}</text>')
            left += 84
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


def encounter_key_html(doc: Mapping[str, Any]) -> str:
    """The battle map's key as HTML, for a page (which folds it away on a phone): each mark of
    the ground with what it stands for, the rounds and phases the paths are drawn in, and who
    was stopped; empty where there is nothing to tell (an open plain, no paths). Who stands
    where is the page's round panel; every text a GM typed is escaped."""
    items = []
    battle_map = doc["map"]
    if battle_map is not None:
        for mark, words, fill in _ground_key(battle_map):
            items.append(("ground", f'<rect x="0" y="-11" width="14" height="14" fill="{fill}" '
                          f'stroke="#999"/><text x="7" y="0" text-anchor="middle" '
                          f'font-size="12" fill="{_ink_on(fill)}">{_t(mark)}</text>', words))
    rounds = _rounds(doc)
    for number in rounds:
        colour, opacity = _round_style(number, rounds)
        items.append(("round", f'<line x1="0" y1="-4" x2="20" y2="-4" stroke="{colour}" '
                      f'stroke-width="3" opacity="{opacity}"/>', f"paths of round {number}"))
    paths = doc.get("paths", [])
    phases = _phases(paths)
    phase_word, stop_word = render.battle_map_words(doc.get("ruleset", ""))
    if len(phases) > 1:
        for phase in phases:
            items.append(("phase", f'<line x1="0" y1="-4" x2="20" y2="-4" '
                          f'stroke="{LATEST_ROUND}" stroke-width="3" '
                          f'stroke-dasharray="{PHASE_DASHES[(phase - 1) % 4]}"/>',
                          f"{phase_word} {phase}"))
    stops = [move for move in paths if move.get("stopped")]
    if stops:
        who = ", ".join(dict.fromkeys(str(move["name"]) for move in stops))
        items.append(("stopped", f'<text x="7" y="0" text-anchor="middle" font-size="14" '
                      f'font-weight="bold" fill="{STOPPED}">✕</text>', f"{stop_word}: {who}"))
    if not items:
        return ""
    entries = "".join(
        f'<li data-key="{kind}"><svg width="24" height="16" viewBox="-2 -12 24 16" '
        f'aria-hidden="true">{swatch}</svg> {_t(words)}</li>' for kind, swatch, words in items)
    return f'<ul class="key-entries">{entries}</ul>'
