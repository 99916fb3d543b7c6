"""Where a page finds a map's picture, and the picture a fogged page is sent.

A picture's address carries a signature made with the GM's secret, so only a page the server
drew can name it: a player who reads the page's source, or guesses a picture's hash, cannot
fetch what the page does not show. Under the players' fog the overland picture is never sent
whole: the players' page names a copy in which every square the party has not been near is
blank, made here with Pillow and kept for the next page that asks for the same fog.
"""

from __future__ import annotations

import hashlib
import hmac
import io
import math
import threading
from collections import OrderedDict
from collections.abc import Iterable, Mapping
from typing import Any

# The blank drawn where the fog lies (the page's own unexplored colour lies over it).
FOG_RGB = (207, 212, 218)
# How many fogged copies are kept: one for each fog a page has lately been drawn with.
KEPT = 8


def signature(secret: str, *parts: str) -> str:
    """What proves an address was made by this server (an HMAC under the GM's secret)."""
    mac = hmac.new(secret.encode(), "\x00".join(parts).encode(), hashlib.sha256)
    return mac.hexdigest()[:32]


def signed(secret: str, given: str | None, *parts: str) -> bool:
    return given is not None and hmac.compare_digest(given.encode(),
                                                     signature(secret, *parts).encode())


def picture_address(secret: str, sha256: str) -> str:
    """The whole picture's address: the GM's page, and every page of a fight."""
    return f"/pictures/{sha256}?v={signature(secret, 'picture', sha256)}"


def fogged_address(secret: str, slug: str, fog: str) -> str:
    """The address of campaign `slug`'s overland picture with the fog `fog` (`fog_digest`)
    blanked out: it names neither the whole picture nor its hash."""
    from urllib.parse import quote

    return (f"/pictures/fogged/{fog}?campaign={quote(slug, safe='')}"
            f"&v={signature(secret, 'fogged', slug, fog)}")


def fog_digest(seen: Iterable[tuple[int, int]], width: int, height: int) -> str:
    """A name for the squares of a `width`×`height` map the fog has lifted from."""
    inside = sorted((x, y) for x, y in seen if 0 <= x < width and 0 <= y < height)
    text = ";".join(f"{x},{y}" for x, y in inside)
    return hashlib.sha256(f"{width}x{height}:{text}".encode()).hexdigest()[:32]


def fogged_picture(data: bytes, image: Mapping[str, Any],
                   seen: Iterable[tuple[int, int]], width: int, height: int) -> bytes:
    """The picture as a PNG in which only the squares in `seen` (of a `width`×`height` map,
    laid on it as `image` says) show: everything else, its margins too, is blank."""
    from PIL import Image

    per = float(image["pixels_per_square"])
    ox, oy = (float(v) for v in image["origin"])
    with Image.open(io.BytesIO(data)) as opened:
        original = opened.convert("RGB")
    canvas = Image.new("RGB", original.size, FOG_RGB)
    for x, y in seen:
        if not (0 <= x < width and 0 <= y < height):
            continue
        box = (max(0, math.floor(ox + x * per)), max(0, math.floor(oy + y * per)),
               min(original.width, math.ceil(ox + (x + 1) * per)),
               min(original.height, math.ceil(oy + (y + 1) * per)))
        if box[0] < box[2] and box[1] < box[3]:
            canvas.paste(original.crop(box), box[:2])
    out = io.BytesIO()
    canvas.save(out, "PNG", compress_level=1)
    return out.getvalue()


class FoggedPictures:
    """The fogged copies lately made, by picture and fog, so pages that share a fog share one
    copy, and the server holds at most `KEPT` of them."""

    def __init__(self) -> None:
        self._kept: OrderedDict[tuple[str, str], bytes] = OrderedDict()
        self._lock = threading.Lock()

    def get(self, sha256: str, fog: str) -> bytes | None:
        with self._lock:
            found = self._kept.get((sha256, fog))
            if found is not None:
                self._kept.move_to_end((sha256, fog))
            return found

    def put(self, sha256: str, fog: str, data: bytes) -> None:
        with self._lock:
            self._kept[(sha256, fog)] = data
            while len(self._kept) > KEPT:
                self._kept.popitem(last=False)
