"""A map's picture (PNG, JPEG or WebP): its bytes checked by Pillow, its size read, its SHA-256
worked out, so the event that sets the map can name it and the store keep it once."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field, replace
from typing import Any

from domain.errors import MapError

MAX_BYTES = 50 * 1024 * 1024
MAX_SIDE_PX = 16_384
MEDIA_TYPES = {"PNG": "image/png", "JPEG": "image/jpeg", "WEBP": "image/webp"}


@dataclass(frozen=True)
class Picture:
    """A checked picture: what it is, how big, and its bytes."""

    sha256: str
    media_type: str
    width: int
    height: int
    data: bytes = field(repr=False)
    # Where the grid lies on it: a cell's side in its pixels, and the pixel of cell 0,0's
    # top-left corner.
    pixels_per_square: float = 1.0
    origin: tuple[float, float] = (0.0, 0.0)

    def placed(self, pixels_per_square: float, origin: tuple[float, float]) -> Picture:
        return replace(self, pixels_per_square=pixels_per_square, origin=origin)

    @property
    def image(self) -> dict[str, Any]:
        """The map's `image` entry, which the event that sets the map stores."""
        return {"sha256": self.sha256, "type": self.media_type, "width": self.width,
                "height": self.height, "pixels_per_square": self.pixels_per_square,
                "origin": [self.origin[0], self.origin[1]]}


def check_picture(data: bytes, what: str) -> Picture:
    """`data` as a Picture; a MapError says, in one sentence, why it cannot be a map's picture."""
    if len(data) > MAX_BYTES:
        raise MapError(f"{what} is {len(data) / 1024 / 1024:.1f} MB; a map's picture may be "
                       "50 MB at most")
    import io

    from PIL import Image, UnidentifiedImageError

    # The sides are checked below, before any pixel is decoded; Pillow's own guard against
    # huge pictures would refuse a 16,384 px square that Trek takes.
    Image.MAX_IMAGE_PIXELS = None
    try:
        with Image.open(io.BytesIO(data)) as image:
            kind = image.format or ""
            width, height = image.size
            image.verify()
    except (UnidentifiedImageError, OSError, SyntaxError, ValueError):
        raise MapError(f"{what} is not a picture Trek can read; a map's picture is a PNG, "
                       "JPEG or WebP file") from None
    if kind not in MEDIA_TYPES:
        raise MapError(f"{what} is a {kind} picture; a map's picture is a PNG, JPEG or WebP "
                       "file")
    if width > MAX_SIDE_PX or height > MAX_SIDE_PX:
        raise MapError(f"{what} is {width}×{height} px; a map's picture may be "
                       f"{MAX_SIDE_PX:,} px a side at most")
    return Picture(sha256=hashlib.sha256(data).hexdigest(), media_type=MEDIA_TYPES[kind],
                   width=width, height=height, data=data)
