"""Reading a route picture of several parties (RULES.md §15): whose route is drawn in which
colours, and each party's marker, from the SVG itself."""

from __future__ import annotations

import colorsys
import re
import xml.etree.ElementTree as ET
from dataclasses import dataclass

SVG = "{http://www.w3.org/2000/svg}"


def hue(colour: str) -> float:
    """The hue of #RRGGBB in degrees."""
    red, green, blue = (int(colour[i:i + 2], 16) / 255 for i in (1, 3, 5))
    return colorsys.rgb_to_hls(red, green, blue)[0] * 360


def hue_apart(a: float, b: float) -> float:
    """How far apart two hues are round the colour wheel, in degrees."""
    return min(abs(a - b), 360 - abs(a - b))


@dataclass(frozen=True)
class Drawn:
    """What a picture draws of the parties: each segment's party, day and stroke (by the
    event's seq), and each party's marker (its element's tag and stroke)."""

    segments: dict[int, tuple[str, int, str]]
    markers: dict[str, tuple[str, str]]
    key: dict[str, str]


def drawn(svg: str) -> Drawn:
    """The parties of the first route picture in `svg` (a picture, or a page holding one)."""
    found = re.search(r"<svg[^>]*class=\"route-map[^\"]*\".*?</svg>", svg, re.S)
    assert found is not None, "no route picture"
    root = ET.fromstring(found.group(0))
    segments: dict[int, tuple[str, int, str]] = {}
    for group in root.iter(f"{SVG}g"):
        if group.get("class") != "day":
            continue
        for line in group.iter(f"{SVG}polyline"):
            # A segment names its party itself; its day group gives the day and the colour.
            segments[int(line.get("data-seq", "0"))] = (
                line.get("data-party", ""), int(group.get("data-day", "0")),
                group.get("stroke", "").lower())
    markers = {element.get("data-party", ""): (element.tag.removeprefix(SVG),
                                               element.get("stroke", "").lower())
               for element in root.iter()
               if "party" in (element.get("class") or "").split()}
    key = {entry.get("data-key", ""): "".join(entry.itertext()).strip()
           for entry in root.iter(f"{SVG}g") if entry.get("class") == "legend-entry"}
    # A page shows the key beside the picture, each entry its swatch and its words.
    key.update(re.findall(r'<li data-key="([^"]*)"><svg.*?</svg> ([^<]*)</li>', svg))
    return Drawn(segments, markers, key)
