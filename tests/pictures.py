"""Map pictures made for tests with Pillow: a plain picture with a mark at each cell's centre,
so a test can find where a cell's centre lies in its pixels."""

from __future__ import annotations

import base64
import io
from typing import Any


def picture_bytes(width: int, height: int, *, kind: str = "PNG",
                  colour: tuple[int, int, int] = (200, 180, 120)) -> bytes:
    from PIL import Image

    image = Image.new("RGB", (width, height), colour)
    out = io.BytesIO()
    image.save(out, kind)
    return out.getvalue()


def picture_base64(width: int, height: int, **given: Any) -> str:
    return base64.b64encode(picture_bytes(width, height, **given)).decode("ascii")
