"""Route pictures: the overland map with the party's journey drawn day by day.

`route_svg` draws a route document (`Trek.queries.route`, built in domain/route.py) as hand-written
SVG; `route_html` wraps it in one self-contained page that prints on paper. The picture knows
markers only by their kind slug, through the core's MARKS table below and the `route_marks`
each ruleset's command-line module adds: a kind nobody styled gets a plain marker, and the
drawing code never changes.

A ruleset's own map tables appear as the named paths they give (domain/maps.py `NamedPath`),
drawn as dotted lines with their names and listed in the key.

Every text a GM typed (map, path, feature and member names) goes through `escape`.
"""

from __future__ import annotations

import math
import textwrap
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from cli.drawing import (
    GRID_OPACITY,
    TERRAIN_FILL,
    UNKNOWN_FILL,
    MarkStyle,
    PictureHref,
    named_paths,
    path_style,
    picture_under,
)
from cli.drawing import text as esc
from cli.render import SPARE_MARKS, drawable, legend_words, route_marks, says_more
from domain.maps import NamedPath

CELL = 40
MARGIN = 28
TOP = 48
ROW = 18
KEY_COLUMN = 270
MIN_WIDTH = 600
# A generous width of one character at the picture's 12px font, to keep text inside the box.
CHAR = 6.6
# Named paths run a little above the squares' centres, so a route along one leaves it visible.
PATH_LIFT = 9
NOTES_SHOWN = 40
# How far a note's continuation lines are set in.
NOTE_INDENT = 16

# Ten day colours that stay apart from each other (and from the terrain fills).
DAY_COLOURS = ("#1f77b4", "#d62728", "#2ca02c", "#9467bd", "#ff7f0e", "#17becf", "#8c564b",
               "#e377c2", "#7f7f7f", "#bcbd22")
START_COLOUR = "#2e7d32"
PARTY_COLOUR = "#c62828"

# A campaign split into parties (RULES.md §15) draws each party's route in its own colour
# family, from the Okabe–Ito palette (the tokens' too): its days are shades of the family (the
# colour itself, dark, light, a little dark, in turn), so the hue says whose and the shade
# which day. The first two, blue and vermillion, stay far apart for protan, deutan and tritan
# eyes in every shade; beyond them each party's marker shape and the key tell parties apart.
PARTY_FAMILIES = (("blue", "#0072B2"), ("vermillion", "#D55E00"),
                  ("reddish purple", "#CC79A7"), ("bluish green", "#009E73"))
# How far each day's shade is mixed toward black (below 0) or white (above), in turn.
SHADE_MIXES = (0.0, -0.5, 0.5, -0.25)
# Each party's marker around its square, by the party's place in the campaign's order.
PARTY_SHAPES = ("circle", "square", "diamond", "triangle", "hexagon")
# How far each party's route is drawn aside (in pixels), so two that share squares both show.
PARTY_ASIDE = ((0, 0), (4, 4), (-4, -4), (4, -4), (-4, 4))


# The core's own marker kinds; each ruleset's `CommandLine` adds its own (`route_marks`).
MARKS: dict[str, MarkStyle] = {
    "left-behind": MarkStyle("L", "#546e7a", "someone left behind"),
    "rejoined": MarkStyle("J", "#546e7a", "someone rejoined"),
}


def mark_style(kind: str) -> MarkStyle:
    """The style of a marker kind; an unknown kind gets a plain one named after its slug."""
    return (MARKS.get(kind) or route_marks().get(kind)
            or MarkStyle("*", "#616161", kind.replace("-", " ")))


def day_colour(day: int) -> str:
    return DAY_COLOURS[(day - 1) % len(DAY_COLOURS)]


def _mixed(colour: str, amount: float) -> str:
    """`colour` (#RRGGBB) mixed toward black (amount below 0) or white (above): its hue kept."""
    channels = [int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5)]
    mixed = [c * (1 + amount) if amount < 0 else c + (1 - c) * amount for c in channels]
    return "#" + "".join(f"{round(c * 255):02x}" for c in mixed)


def party_family(index: int) -> tuple[str, str]:
    """The name and colour of the family of the party at `index` in the campaign's order."""
    return PARTY_FAMILIES[index % len(PARTY_FAMILIES)]


def party_shade(index: int, turn: int) -> str:
    """The shade of the party at `index` for its `turn`-th day on the picture (from 0)."""
    return _mixed(party_family(index)[1], SHADE_MIXES[turn % len(SHADE_MIXES)])


def _fit(value: str, width: float) -> str:
    """`value` cut to what fits in `width` pixels, with an ellipsis when cut."""
    room = max(4, int(width / CHAR))
    return value if len(value) <= room else value[:room - 1] + "…"


def _sq(square: dict[str, int]) -> str:
    return f"{square['x']},{square['y']}"


class _Board:
    """Where a map square is drawn."""

    def __init__(self, width: int, height: int) -> None:
        self.width, self.height = width, height

    def centre(self, square: dict[str, int]) -> tuple[float, float]:
        return MARGIN + square["x"] * CELL + CELL / 2, TOP + square["y"] * CELL + CELL / 2


def _terrain_name(cell: dict[str, Any]) -> str:
    words = legend_words(cell, besides=("penalty",))
    if cell.get("penalty"):
        words += f", rolls -{cell['penalty']}"
    return words


def _glyphs(game_map: dict[str, Any]) -> dict[str, str]:
    """The character drawn in every square of a legend entry its colour alone would not tell
    apart: a feature (a lake is not a mountain) or an entry that says more than its terrain (a
    road on open ground). Its own character when that can be drawn and is free, else a spare;
    a hazard keeps its "!"."""
    glyphs: dict[str, str] = {}
    taken = {"!"}
    for key in dict.fromkeys(key for row in game_map["rows"] for key in row):
        cell = game_map["legend"][key]
        if cell["terrain"] == "hazard" or not (
                cell["terrain"] == "feature" or says_more(cell, besides=("penalty",))):
            continue
        glyph = key if drawable(key) and key not in taken else next(
            (spare for spare in SPARE_MARKS if spare not in taken), "?")
        taken.add(glyph)
        glyphs[key] = glyph
    return glyphs


def _cells(game_map: dict[str, Any], board: _Board, *, pictured: bool = False) -> list[str]:
    # Over a picture the cells are faint, save ground the players have not seen.
    out = ['<g class="cells" stroke="#bbb" stroke-width="1">']
    glyphs = _glyphs(game_map)
    for y, row in enumerate(game_map["rows"]):
        for x, key in enumerate(row):
            cell = game_map["legend"][key]
            terrain = str(cell["terrain"])
            cx, cy = board.centre({"x": x, "y": y})
            faint = (f' fill-opacity="{GRID_OPACITY}"'
                     if pictured and terrain != "unexplored" else "")
            out.append(f'<rect class="cell {esc(terrain)}" data-x="{x}" data-y="{y}" '
                       f'x="{cx - CELL / 2:.0f}" y="{cy - CELL / 2:.0f}" width="{CELL}" '
                       f'height="{CELL}" fill="{TERRAIN_FILL.get(terrain, UNKNOWN_FILL)}"'
                       f"{faint}><title>{esc(_terrain_name(cell))}</title></rect>")
            if cell.get("penalty") and terrain != "hazard":
                out.append(f'<rect class="penalty" x="{cx - CELL / 2:.0f}" '
                           f'y="{cy - CELL / 2:.0f}" width="{CELL}" height="{CELL}" '
                           'fill="url(#penalty)" stroke="none"/>')
            if key in glyphs:
                out.append(f'<text class="glyph" x="{cx:.0f}" y="{cy + 6:.0f}" stroke="none" '
                           'fill="#4e342e" opacity="0.7" font-size="17" font-weight="bold" '
                           f'text-anchor="middle">{esc(glyphs[key])}</text>')
            elif terrain == "hazard":
                out.append(f'<text class="glyph" x="{cx:.0f}" y="{cy + 6:.0f}" stroke="none" '
                           'fill="#b71c1c" opacity="0.6" font-size="18" font-weight="bold" '
                           'text-anchor="middle">!</text>')
    out.append("</g>")
    return out


def _paths(game_map: dict[str, Any], board: _Board) -> list[str]:
    """Each kind of named path in its own group (class: the kind, made plural)."""
    out: list[str] = []
    paths = named_paths(game_map)
    for kind in dict.fromkeys(p.kind for p in paths):
        kind_class = esc(kind)
        colour, _ = path_style(kind)
        out.append(f'<g class="{kind_class}s" fill="none" stroke="{colour}">')
        for path in (p for p in paths if p.kind == kind):
            out += _path(path, kind_class, board)
        out.append("</g>")
    return out


def _path(path: NamedPath, kind_class: str, board: _Board) -> list[str]:
    squares = [sq.as_dict() for sq in path.squares]
    centres = [(cx, cy - PATH_LIFT) for cx, cy in map(board.centre, squares)]
    name = esc(path.name)
    colour, stroke = path_style(path.kind)
    out: list[str] = []
    if len(centres) == 1:
        (cx, cy), = centres
        out.append(f'<circle class="{kind_class}" data-name="{name}" cx="{cx:.1f}" '
                   f'cy="{cy:.1f}" r="{CELL * 0.3:.1f}" stroke-width="3" '
                   'stroke-dasharray="1 5" stroke-linecap="round"/>')
    else:
        points = " ".join(f"{cx:.1f},{cy:.1f}" for cx, cy in centres)
        out.append(f'<polyline class="{kind_class}" data-name="{name}" points="{points}" '
                   f'{stroke} stroke-linecap="round"/>')
    if not path.name:
        return out
    # The name sits at the top edge of its first square, inside the board.
    first_x, first_y = board.centre(squares[0])
    room = board.width * CELL + MARGIN - (first_x - CELL / 2)
    out.append(f'<text class="{kind_class}-name" x="{first_x - CELL / 2 + 2:.1f}" '
               f'y="{first_y - CELL / 2 + 11:.1f}" fill="{colour}" stroke="white" '
               'stroke-width="3" paint-order="stroke" font-size="10" font-style="italic">'
               f"{esc(_fit(path.name, room * 1.15))}</text>")
    return out


def _coordinates(board: _Board) -> list[str]:
    """Column numbers across the top and row numbers down the left, as the rules count them."""
    out = ['<g class="coordinates" fill="#555" font-size="11" text-anchor="middle">']
    for x in range(board.width):
        cx, _ = board.centre({"x": x, "y": 0})
        out.append(f'<text class="coordinate x" x="{cx:.1f}" y="{TOP - 6}">{x}</text>')
    for y in range(board.height):
        _, cy = board.centre({"x": 0, "y": y})
        out.append(f'<text class="coordinate y" x="{MARGIN / 2:.1f}" y="{cy + 4:.1f}">{y}</text>')
    out.append("</g>")
    return out


def _segment_style(segment: dict[str, Any]) -> tuple[str, str]:
    """The class and stroke of one walked path: strong, from another session, or cancelled."""
    if segment["cancelled_by"] is not None:
        return "segment cancelled", 'stroke-width="3" stroke-dasharray="6 5" opacity="0.45"'
    if not segment["strong"]:
        return "segment faint", 'stroke-width="3" opacity="0.25"'
    return "segment", 'stroke-width="4" opacity="0.9"'


def _days(doc: Mapping[str, Any]) -> list[int]:
    """The days the picture has a path of: a document may leave out paths (the players' fog
    drops undone moves), so a day is drawn only if one of its paths is there to draw."""
    return sorted({segment["day"] for segment in doc["segments"]})


# One party's day (RULES.md §15): with one party, the party is None and the day is the
# campaign's; with several, each party's days are its own.
PartyDay = tuple[str | None, int]


def _party_days(doc: Mapping[str, Any]) -> dict[PartyDay, list[dict[str, Any]]]:
    """The days the picture has a path of, each with its party when there are several, and
    their paths: party by party in the campaign's order, each's days in turn."""
    order = _order(doc)
    several = len(order) > 1
    found: dict[PartyDay, list[dict[str, Any]]] = {}
    for segment in doc["segments"]:
        party = str(segment.get("party", order[0])) if several else None
        found.setdefault((party, int(segment["day"])), []).append(segment)
    place = {name: index for index, name in enumerate(order)}
    return dict(sorted(found.items(), key=lambda item: (
        place.get(item[0][0] or "", 0), item[0][1])))


def _colour(order: list[str], at: PartyDay) -> str:
    """One day's colour: the campaign's day colour, or with several parties a shade of the
    party's family (by its day number, so every view of the campaign shades it alike)."""
    party, day = at
    if party is None:
        return day_colour(day)
    return party_shade(order.index(party), day - 1)


def _day_words(at: PartyDay) -> str:
    party, day = at
    return f"day {day}" if party is None else f"{_fit(party, 80)} day {day}"


def _route(doc: Mapping[str, Any], board: _Board) -> list[str]:
    out = ['<g class="route" fill="none" stroke-linejoin="round" stroke-linecap="round">']
    order = _order(doc)
    for at, segments in _party_days(doc).items():
        party, day = at
        colour = _colour(order, at)
        whose = ""
        if party is not None:
            # Parties that walked the same squares stay apart: each route a little aside.
            dx, dy = PARTY_ASIDE[order.index(party) % len(PARTY_ASIDE)]
            whose = f' data-party="{esc(party)}"' + (
                f' transform="translate({dx} {dy})"' if dx or dy else "")
        out.append(f'<g class="day" data-day="{day}"{whose} stroke="{colour}">')
        for segment in segments:
            kind, stroke = _segment_style(segment)
            points = " ".join(f"{cx:.1f},{cy:.1f}"
                              for cx, cy in map(board.centre, segment["path"]))
            cancelled = segment["cancelled_by"]
            note = (f"party {party}, " if party is not None else "") + (
                f"day {day}, event {segment['seq']}") + (
                f", cancelled by event {cancelled}" if cancelled is not None else "")
            # With one party the picture is drawn as before parties were kept.
            whose = f' data-party="{esc(party)}"' if party is not None else ""
            out.append(f'<polyline class="{kind}" data-seq="{segment["seq"]}"{whose} '
                       f'points="{points}" {stroke}><title>{esc(note)}</title></polyline>')
            end_x, end_y = board.centre(segment["path"][-1])
            out.append(f'<circle class="step-end" cx="{end_x:.1f}" cy="{end_y:.1f}" r="3" '
                       f'fill="{colour}" stroke="none" {stroke.split(" ", 1)[1]}/>')
        out.append("</g>")
    out.append("</g>")
    return out


def _day_labels(doc: Mapping[str, Any], board: _Board) -> list[str]:
    """"day N" by the first square of each day's route (its first live path, if it has one),
    at the first place around that square that covers no other label, marker or ring."""
    out = ['<g class="day-labels" font-size="11" font-weight="bold" stroke="white" '
           'stroke-width="3" paint-order="stroke">']
    taken = _occupied(doc, board)
    order = _order(doc)
    for at, segments in _party_days(doc).items():
        party, day = at
        words = _day_words(at)
        first = next((s for s in segments if s["cancelled_by"] is None), segments[0])
        cx, cy = board.centre(first["path"][0])
        width = DAY_CHAR * len(words)
        half = CELL / 2
        # Inside the square's top edge, then above it, below it, to its right and its left
        # (each a left edge and a baseline); the first that is free and on the board.
        places = [(cx - half + 3, cy - half + 12 + 11 * (day % 2)),
                  (cx - width / 2, cy - half - 3), (cx - width / 2, cy + half + 12),
                  (cx + half + 3, cy + 4), (cx - half - 3 - width, cy + 4)]
        left, base = next(
            (place for place in places
             if _on_board(board, _box(place, width)) and not any(
                 _overlap(_box(place, width), other) for other in taken)), places[0])
        taken.append(_box((left, base), width))
        whose = f' data-party="{esc(party)}"' if party is not None else ""
        out.append(f'<text class="day-label" data-day="{day}"{whose} x="{left:.1f}" '
                   f'y="{base:.1f}" fill="{_colour(order, at)}">{esc(words)}</text>')
    out.append("</g>")
    return out


# A generous width of one bold character at 11px, and of an italic one at 10px.
DAY_CHAR = 6.8
NAME_CHAR = 5.6
Box = tuple[float, float, float, float]  # left, top, right, bottom


def _box(place: tuple[float, float], width: float, height: float = 11.0) -> Box:
    left, base = place
    return left, base - height + 2, left + width, base + 3


def _overlap(a: Box, b: Box) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _on_board(board: _Board, box: Box) -> bool:
    return (box[0] >= MARGIN and box[2] <= MARGIN + board.width * CELL
            and box[1] >= TOP and box[3] <= TOP + board.height * CELL)


def _occupied(doc: Mapping[str, Any], board: _Board) -> list[Box]:
    """What a day label must not cover: the named paths' names, the markers and the start and
    party rings, where `_path`, `_marks` and `_ends` draw them."""
    boxes: list[Box] = []
    for path in named_paths(doc["map"]):
        if not path.name:
            continue
        x, y = board.centre(path.squares[0].as_dict())
        boxes.append(_box((x - CELL / 2 + 2, y - CELL / 2 + 11),
                          NAME_CHAR * len(path.name), 10.0))
    placed: dict[tuple[int, int], int] = {}
    for mark in doc["marks"]:
        at = (mark["at"]["x"], mark["at"]["y"])
        index = placed.get(at, 0)
        placed[at] = index + 1
        cx, cy = board.centre(mark["at"])
        mx, my = cx - 12 + 12 * (index % 3), cy + 11 - 12 * (index // 3 % 3)
        boxes.append((mx - 6.5, my - 6.5, mx + 6.5, my + 6.5))
    rings = [(doc["start"], 0.42), (doc["position"], 0.46)]
    rings += [(entry["position"], 0.46) for _, entry in _other_parties(doc)]
    for square, share in rings:
        cx, cy = board.centre(square)
        radius = CELL * share + 1.5
        boxes.append((cx - radius, cy - radius, cx + radius, cy + radius))
    return boxes


def _marks(doc: Mapping[str, Any], board: _Board) -> list[str]:
    """Each marker a small disc in its square; several in one square sit side by side."""
    out = ['<g class="marks" font-size="10" font-weight="bold" text-anchor="middle">']
    placed: dict[tuple[int, int], int] = {}
    for mark in doc["marks"]:
        at = (mark["at"]["x"], mark["at"]["y"])
        index = placed.get(at, 0)
        placed[at] = index + 1
        style = mark_style(mark["kind"])
        cx, cy = board.centre(mark["at"])
        mx = cx - 12 + 12 * (index % 3)
        my = cy + 11 - 12 * (index // 3 % 3)
        faint = mark["cancelled_by"] is not None or not mark["strong"]
        extra = (' opacity="0.45" stroke-dasharray="2 2"' if mark["cancelled_by"] is not None
                 else ' opacity="0.35"' if faint else "")
        label = f"day {mark['day']}: {mark['label']}" + (
            f" (cancelled by event {mark['cancelled_by']})" if mark["cancelled_by"] else "")
        out.append(f'<g class="mark {esc(mark["kind"])}" data-kind="{esc(mark["kind"])}" '
                   f'data-seq="{mark["seq"]}"{extra}><circle cx="{mx:.1f}" cy="{my:.1f}" r="6.5" '
                   f'fill="{style.colour}" stroke="white" stroke-width="1.5"/>'
                   f'<text x="{mx:.1f}" y="{my + 3.5:.1f}" fill="white">{esc(style.symbol)}'
                   f"</text><title>{esc(label)}</title></g>")
    out.append("</g>")
    return out


def _ends(doc: Mapping[str, Any], board: _Board) -> list[str]:
    sx, sy = board.centre(doc["start"])
    px, py = board.centre(doc["position"])
    ends = [
        f'<circle class="start" cx="{sx:.1f}" cy="{sy:.1f}" r="{CELL * 0.42:.1f}" fill="none" '
        f'stroke="{START_COLOUR}" stroke-width="2.5" stroke-dasharray="4 2"/>',
    ]
    if not _parties(doc):
        ends.append(f'<circle class="party" cx="{px:.1f}" cy="{py:.1f}" '
                    f'r="{CELL * 0.46:.1f}" fill="none" stroke="{PARTY_COLOUR}" '
                    'stroke-width="3"/>')
        return ends
    # Each party's own marker in its family's colour; the picture's own party drawn last, on
    # top, where the GM's page lets it be dragged.
    order = _order(doc)
    here = [(name, entry) for name, entry in _other_parties(doc)]
    here.append((str(doc["party"]), {"position": doc["position"]}))
    for name, entry in here:
        index = order.index(name)
        cx, cy = board.centre(entry["position"])
        # Parties on one square nest, each marker a little inside the one before.
        radius = CELL * (0.46 - 0.06 * (index % 3))
        kind = "party" if name == doc["party"] else "party other-party"
        where = f"party {name} at {_sq(entry['position'])}"
        ends.append(_marker(
            PARTY_SHAPES[index % len(PARTY_SHAPES)], cx, cy, radius,
            f'class="{kind}" data-party="{esc(name)}" fill="none" '
            f'stroke="{party_shade(index, 1)}" stroke-width="3"', f"<title>{esc(where)}</title>"))
    return ends


def _marker(shape: str, cx: float, cy: float, radius: float, attributes: str,
            inside: str = "") -> str:
    """A party's marker: its shape centred on cx,cy, reaching `radius` from the centre."""
    if shape == "circle":
        return (f'<circle cx="{cx:.1f}" cy="{cy:.1f}" r="{radius:.1f}" {attributes}>'
                f"{inside}</circle>")
    if shape == "square":
        side = radius * 1.6
        return (f'<rect x="{cx - side / 2:.1f}" y="{cy - side / 2:.1f}" width="{side:.1f}" '
                f'height="{side:.1f}" {attributes}>{inside}</rect>')
    corners = {"diamond": 4, "triangle": 3, "hexagon": 6}[shape]
    # A triangle sits a little low, so its middle is the square's.
    lift = radius * 0.2 if corners == 3 else 0.0
    points = " ".join(f"{cx + radius * math.sin(2 * math.pi * k / corners):.1f},"
                      f"{cy + lift - radius * math.cos(2 * math.pi * k / corners):.1f}"
                      for k in range(corners))
    return f'<polygon points="{points}" {attributes}>{inside}</polygon>'


def _order(doc: Mapping[str, Any]) -> list[str]:
    """Every party the picture knows, in the campaign's order (the first, then as they split
    off): a party's place gives it its colours and marker."""
    order = [str(name) for name in doc.get("party_order") or []]
    order += sorted(doc.get("parties") or {})
    order += [str(s["party"]) for s in doc["segments"] if s.get("party") is not None]
    return list(dict.fromkeys(order))


def _parties(doc: Mapping[str, Any]) -> bool:
    """Whether the campaign has, or has had, more than one party (RULES.md §15)."""
    return len(_order(doc)) > 1


def _other_parties(doc: Mapping[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Every party but the one the picture is of, by name."""
    return [(name, entry) for name, entry in sorted((doc.get("parties") or {}).items())
            if name != doc.get("party")]


@dataclass(frozen=True)
class _KeyEntry:
    key: str
    swatch: str
    words: str


# One entry of a picture's key, for a caller adding its own (`route_svg`'s `extra_key`).
KeyEntry = _KeyEntry


def _key_entries(doc: Mapping[str, Any]) -> list[_KeyEntry]:
    """One entry for every colour and marker the picture actually uses."""
    game_map = doc["map"]
    entries: list[_KeyEntry] = []
    # Terrains in the order they first appear on the map, reading it row by row; two legend
    # entries drawn alike and worded alike are one kind, keyed once.
    glyphs = _glyphs(game_map)
    keyed: set[tuple[str, str]] = set()
    for key in dict.fromkeys(key for row in game_map["rows"] for key in row):
        cell = game_map["legend"][key]
        fill = TERRAIN_FILL.get(str(cell["terrain"]), UNKNOWN_FILL)
        swatch = f'<rect x="0" y="-10" width="14" height="12" fill="{fill}" stroke="#999"/>'
        if cell.get("penalty") and cell["terrain"] != "hazard":
            swatch += '<rect x="0" y="-10" width="14" height="12" fill="url(#penalty)"/>'
        if key in glyphs:
            swatch += (f'<text x="7" y="0" fill="#4e342e" font-size="11" font-weight="bold" '
                       f'text-anchor="middle">{esc(glyphs[key])}</text>')
        elif cell["terrain"] == "hazard":
            swatch += ('<text x="7" y="0" fill="#b71c1c" font-size="11" font-weight="bold" '
                       'text-anchor="middle">!</text>')
        if (swatch, _terrain_name(cell)) in keyed:
            continue
        keyed.add((swatch, _terrain_name(cell)))
        entries.append(_KeyEntry(f"terrain:{key}", swatch, _terrain_name(cell)))
    for path in named_paths(game_map):
        colour, stroke = path_style(path.kind)
        keyed_path = _KeyEntry(path.kind, f'<line x1="0" y1="-4" x2="16" y2="-4" '
                               f'stroke="{colour}" {stroke} stroke-linecap="round"/>', path.key)
        # Many unnamed rivers are one entry.
        if keyed_path not in entries:
            entries.append(keyed_path)
    order = _order(doc)
    for at in _party_days(doc):
        party, day = at
        entries.append(_KeyEntry(
            f"day:{day}" if party is None else f"day:{party}:{day}",
            f'<line x1="0" y1="-4" x2="16" y2="-4" stroke="{_colour(order, at)}" '
            'stroke-width="4"/>', f"day {day}" if party is None else f"party {party}, day {day}"))
    if any(s["cancelled_by"] is not None for s in doc["segments"]):
        entries.append(_KeyEntry("cancelled", '<line x1="0" y1="-4" x2="16" y2="-4" '
                                 'stroke="#555" stroke-width="3" stroke-dasharray="6 5" '
                                 'opacity="0.45"/>', "cancelled (undone)"))
    if any(not s["strong"] for s in doc["segments"]):
        entries.append(_KeyEntry("other-sessions", '<line x1="0" y1="-4" x2="16" y2="-4" '
                                 'stroke="#555" stroke-width="3" opacity="0.25"/>',
                                 f"other sessions than session {doc['session']}, faint"))
    for kind in dict.fromkeys(m["kind"] for m in doc["marks"]):
        style = mark_style(kind)
        entries.append(_KeyEntry(
            f"mark:{kind}", f'<circle cx="7" cy="-4" r="6.5" fill="{style.colour}"/>'
            f'<text x="7" y="-0.5" fill="white" font-size="10" font-weight="bold" '
            f'text-anchor="middle">{esc(style.symbol)}</text>', style.meaning))
    entries.append(_KeyEntry("start", f'<circle cx="7" cy="-4" r="6" fill="none" '
                             f'stroke="{START_COLOUR}" stroke-width="2" stroke-dasharray="3 2"/>',
                             f"start ({_sq(doc['start'])})"))
    if not _parties(doc):
        entries.append(_KeyEntry("party", f'<circle cx="7" cy="-4" r="6" fill="none" '
                                 f'stroke="{PARTY_COLOUR}" stroke-width="2.5"/>',
                                 f"the party now ({_sq(doc['position'])})"))
        return entries
    now = {**(doc.get("parties") or {}), str(doc["party"]): {"position": doc["position"]}}
    for name in sorted(now, key=order.index):
        index = order.index(name)
        family = party_family(index)[0]
        entries.append(_KeyEntry(
            f"party:{name}", _marker(PARTY_SHAPES[index % len(PARTY_SHAPES)], 7, -4, 6,
                                     f'fill="none" stroke="{party_shade(index, 1)}" '
                                     'stroke-width="2"'),
            f"party {name} now ({_sq(now[name]['position'])}), {family}"))
    return entries


def key_html(doc: Mapping[str, Any]) -> str:
    """The picture's key and its notes as HTML (for a page, which folds it away on a phone):
    each entry its swatch, drawn as in the picture, and its words."""
    items = "".join(
        f'<li data-key="{esc(entry.key)}"><svg width="24" height="16" viewBox="-2 -12 24 16" '
        f'aria-hidden="true">{entry.swatch}</svg> {esc(entry.words)}</li>'
        for entry in _key_entries(doc))
    notes = "".join(f"<li>{esc(line)}</li>" for line in _notes(doc))
    return (f'<ul class="key-entries">{items}</ul>'
            + (f'<h3>Along the way</h3><ul class="key-notes">{notes}</ul>' if notes else ""))


def _title(doc: Mapping[str, Any]) -> str:
    limits = []
    if doc.get("as_of") is not None:
        limits.append(f"as of event {doc['as_of']}")
    if doc.get("session") is not None:
        limits.append(f"session {doc['session']}")
    tail = f" ({', '.join(limits)})" if limits else ""
    return f"{doc['map']['name']}: the route of {doc['name']}{tail}"


def _notes(doc: Mapping[str, Any]) -> list[str]:
    lines = []
    for mark in doc["marks"][:NOTES_SHOWN]:
        state = " (cancelled)" if mark["cancelled_by"] is not None else ""
        lines.append(f"{mark_style(mark['kind']).symbol} day {mark['day']} at "
                     f"{_sq(mark['at'])}: {mark['label']}{state}")
    hidden = len(doc["marks"]) - NOTES_SHOWN
    if hidden > 0:
        lines.append(f"… and {hidden} more (`trek log` lists every event)")
    return lines


def route_svg(doc: Mapping[str, Any], *, overlay: Sequence[str] = (),
              extra_key: Sequence[KeyEntry] = (), title: str | None = None,
              picture_href: PictureHref | None = None, with_key: bool = True) -> str:
    """The route document (`Trek.queries.route`) drawn on its map as one SVG picture.

    `overlay` is drawn over the squares, under the route (a plan's shading); `extra_key`
    entries join the key; `title` replaces the picture's own; the map's picture is drawn
    under the squares where `picture_href` gives its address."""
    game_map = doc["map"]
    if game_map is None:
        raise ValueError("a route picture needs the campaign's map")
    board = _Board(game_map["width"], game_map["height"])
    width = max(MARGIN * 2 + board.width * CELL, MIN_WIDTH)
    entries = [*_key_entries(doc), *extra_key] if with_key else []
    columns = max(1, int((width - 2 * MARGIN) // KEY_COLUMN))
    key_rows = math.ceil(len(entries) / columns)
    # A long note goes on over further lines rather than being cut.
    room = max(20, int((width - 2 * MARGIN - NOTE_INDENT) / CHAR))
    notes = [(NOTE_INDENT if index else 0, part) for line in (_notes(doc) if with_key else [])
             for index, part in enumerate(textwrap.wrap(line, room))]
    key_top = TOP + board.height * CELL + 30
    notes_top = key_top + ROW * (key_rows + 1) + 10
    height = notes_top + (ROW * (len(notes) + 1) if notes else 0) + 8
    if not with_key:
        # The page shows the key beside the picture, where a phone can fold it away.
        height = TOP + board.height * CELL + 12
    title = _title(doc) if title is None else title
    under = picture_under(game_map.get("image"), picture_href, (MARGIN, TOP), CELL,
                          (board.width * CELL, board.height * CELL))
    pictured = " pictured" if under else ""
    out = [
        f'<svg xmlns="http://www.w3.org/2000/svg" class="route-map{pictured}" '
        f'width="{width:.0f}" '
        f'height="{height:.0f}" viewBox="0 0 {width:.0f} {height:.0f}" '
        'font-family="sans-serif" font-size="12">',
        f"<title>{esc(title)}</title>",
        # Squares whose rolls take a penalty are stippled over their terrain's colour.
        '<defs><pattern id="penalty" width="8" height="8" patternUnits="userSpaceOnUse">'
        '<circle cx="2" cy="2" r="1.2" fill="#8d6e63"/><circle cx="6" cy="6" r="1.2" '
        'fill="#8d6e63"/></pattern></defs>',
        f'<rect class="background" width="{width:.0f}" height="{height:.0f}" fill="white"/>',
        f'<text class="caption" x="{MARGIN}" y="20" font-size="14" font-weight="bold">'
        f"{esc(_fit(title, (width - 2 * MARGIN) * 0.85))}</text>",
    ]
    out += under
    out += _cells(game_map, board, pictured=bool(under))
    out += overlay
    out += _paths(game_map, board)
    out += _coordinates(board)
    out += _route(doc, board)
    out += _ends(doc, board)
    out += _marks(doc, board)
    out += _day_labels(doc, board)
    if not with_key:
        out.append("</svg>")
        return "\n".join(out) + "\n"
    out.append(f'<g class="legend"><text class="legend-title" x="{MARGIN}" y="{key_top}" '
               'font-weight="bold">Key</text>')
    for index, entry in enumerate(entries):
        col, row = index // key_rows, index % key_rows
        x, y = MARGIN + col * KEY_COLUMN, key_top + ROW * (row + 1)
        out.append(f'<g class="legend-entry" data-key="{esc(entry.key)}" '
                   f'transform="translate({x},{y})">{entry.swatch}<text x="22" y="0">'
                   f"{esc(_fit(entry.words, KEY_COLUMN - 30))}</text></g>")
    out.append("</g>")
    if notes:
        out.append(f'<g class="notes"><text class="notes-title" x="{MARGIN}" y="{notes_top}" '
                   'font-weight="bold">Along the way</text>')
        for row, (indent, line) in enumerate(notes, start=1):
            out.append(f'<text class="note" x="{MARGIN + indent}" y="{notes_top + ROW * row}">'
                       f"{esc(_fit(line, width - 2 * MARGIN - indent))}</text>")
        out.append("</g>")
    out.append("</svg>")
    return "\n".join(out) + "\n"


PRINT_CSS = """\
body { font-family: sans-serif; margin: 1.5rem; color: #222; }
h1 { font-size: 1.4rem; margin: 0 0 .25rem; }
p.about { margin: 0 0 1rem; color: #555; }
svg.route-map { max-width: 100%; height: auto; }
@page { size: landscape; margin: 12mm; }
@media print {
  body { margin: 0; }
  p.about { color: #000; }
  svg.route-map { width: 100%; break-inside: avoid; }
}
"""


def route_html(doc: Mapping[str, Any], title: str,
               picture_href: PictureHref | None = None) -> str:
    """One self-contained page: the title, what the picture shows, and the SVG with its key."""
    about = [f"Campaign {doc['name']}", f"day {doc['day']}", f"{doc['events']} events"]
    if doc.get("as_of") is not None:
        about.append(f"as of event {doc['as_of']}")
    if doc.get("session") is not None:
        about.append(f"session {doc['session']} drawn strong, the rest faint")
    return (
        "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
        f"<title>{esc(title)}</title>\n<style>\n{PRINT_CSS}</style>\n</head>\n<body>\n"
        f"<h1>{esc(title)}</h1>\n<p class=\"about\">{esc(', '.join(about))}.</p>\n"
        f"{route_svg(doc, picture_href=picture_href)}</body>\n</html>\n"
    )
