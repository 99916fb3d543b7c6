"""What every hand-written SVG picture shares: escaping typed text and the terrain colours."""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import TYPE_CHECKING, Any, NamedTuple

from domain.labels import labels_of

if TYPE_CHECKING:
    from domain.maps import NamedPath

# One colour per terrain, for battle maps and travel maps alike.
TERRAIN_FILL = {"open": "#f6f2e6", "wall": "#4a4a4a", "difficult": "#d9c48f",
                "rough": "#c5cf94", "water": "#8fb8de", "deep-water": "#5b8fc4",
                "shallow-water": "#a9cce8", "treacherous": "#c9a27a", "stairs": "#bdb3a0",
                "high-gravity": "#b39ddb", "low-gravity": "#e1d5f5", "zero-gravity": "#cfe8e4",
                "feature": "#a1887f", "hazard": "#ef9a9a"}
UNKNOWN_FILL = "#eeeeee"


def text(value: object) -> str:
    """Anything a GM typed, as SVG/HTML text or attribute: `<script>` stays letters."""
    # Imported here: the module's character entities cost a command that draws nothing (a
    # move mounting the rulesets' marker styles) about 1.8 ms.
    from html import escape

    return escape(str(value), quote=True)


def token_labels(combatants: Mapping[str, Mapping[str, Any]]) -> dict[str, str]:
    """Each combatant's token label, as `trek encounter status --json` gives it (a document
    made without labels gets them from the same rule, `domain.labels`)."""
    given = {name: str(c["label"]) for name, c in combatants.items() if c.get("label")}
    return labels_of(given, list(combatants))


def named_paths(game_map: Mapping[str, Any]) -> list[NamedPath]:
    """The map's rivers, then what the rulesets' own map tables (their `map_sections`) show as
    named paths on this map (its `trek map show --json` document), in the order the map holds
    them."""
    from cli.bootstrap import current
    from domain.geometry import Square
    from domain.maps import NamedPath

    found: list[NamedPath] = []
    for river in game_map.get("rivers", ()):
        squares = tuple(Square(x, y) for x, y in river["path"])
        name = river.get("name") or ""
        ends = f"from {squares[0].x},{squares[0].y} to {squares[-1].x},{squares[-1].y}"
        found.append(NamedPath(
            kind="river", name=name, squares=squares, key=f"river {name}".rstrip(),
            listing=f"river {name or '(unnamed)'}: {ends} (drawn only; crossing costs nothing)"))
    for key, value in game_map.items():
        section = current().map_section(key)
        if section is not None:
            found.extend(section.paths(value))
    return found


# Named paths (a ruleset's own map routes) on the route picture.
PATH_COLOUR = "#6a1b9a"
# Rivers: a solid blue line.
RIVER_COLOUR = "#1565c0"


def path_style(kind: str) -> tuple[str, str]:
    """A named path's colour and its line's stroke attributes: rivers solid blue, the
    rulesets' own routes dotted purple."""
    if kind == "river":
        return RIVER_COLOUR, 'stroke-width="4" opacity="0.8" stroke-linejoin="round"'
    return PATH_COLOUR, 'stroke-width="3" stroke-dasharray="1 6"'


class MarkStyle(NamedTuple):
    """How a marker kind is drawn: a symbol on a coloured disc, and its words in the key."""

    symbol: str
    colour: str
    meaning: str


# How much of a cell's colour shows over a picture (the page's slider sets it anew); ground
# the players have not seen stays opaque.
GRID_OPACITY = 0.3
# Where a picture's address comes from: its SHA-256 to an `href` (a URL the server answers,
# or a data: URL for a file that must stand alone).
PictureHref = Callable[[str], str]


def data_href(picture: tuple[str, bytes] | None) -> str:
    """A picture as a data: URL, for an SVG or HTML file that stands alone."""
    if picture is None:
        return ""
    import base64

    return f"data:{picture[0]};base64,{base64.b64encode(picture[1]).decode('ascii')}"


def picture_under(image: Mapping[str, Any] | None, href: PictureHref | None,
                  corner: tuple[float, float], cell: float, board: tuple[float, float]
                  ) -> list[str]:
    """The map's picture as an <image> under the grid: scaled so a cell's side in its pixels
    is `cell` units, and shifted so the top-left corner of cell 0,0 (`origin` in its pixels)
    lies at `corner`, so each cell's centre lies on that cell's centre in the picture; clipped
    to the board (`board`, from `corner`)."""
    if image is None or href is None:
        return []
    url = href(str(image["sha256"]))
    if not url:
        return []
    scale = cell / float(image["pixels_per_square"])
    ox, oy = (float(v) for v in image["origin"])
    x, y = corner[0] - ox * scale, corner[1] - oy * scale
    return [
        f'<clipPath id="board-clip"><rect x="{corner[0]:.2f}" y="{corner[1]:.2f}" '
        f'width="{board[0]:.2f}" height="{board[1]:.2f}"/></clipPath>',
        f'<image class="map-picture" href="{text(url)}" x="{x:.3f}" y="{y:.3f}" '
        f'width="{image["width"] * scale:.3f}" height="{image["height"] * scale:.3f}" '
        'preserveAspectRatio="none" clip-path="url(#board-clip)" decoding="async" '
        f'data-sha256="{text(image["sha256"])}"/>',
    ]
