"""The picture a fogged page is sent: only the squares seen show, laid on the picture as its
map says (a cell's side in pixels and cell 0,0's corner), everything else blank, margins too;
and a picture's address is signed with the GM's secret, so no other address serves it."""

from __future__ import annotations

import io

from cli.web.pictures import (
    FOG_RGB,
    fog_digest,
    fogged_address,
    fogged_picture,
    picture_address,
    signature,
    signed,
)

PER, OX, OY = 20, 10, 6


def drawn() -> bytes:
    """A 100×70 px picture whose pixel (x, y) is (x, y, 7): a test reads where it came from."""
    from PIL import Image

    image = Image.new("RGB", (100, 70))
    image.putdata([(x, y, 7) for y in range(70) for x in range(100)])
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def test_only_the_squares_seen_show_and_the_margins_are_blank() -> None:
    from PIL import Image

    image = {"pixels_per_square": PER, "origin": [OX, OY]}
    # A 4×3 map from pixel (10, 6): square 1,2 spans x 30–49, y 46–65.
    sent = fogged_picture(drawn(), image, {(1, 2), (9, 9)}, 4, 3)
    with Image.open(io.BytesIO(sent)) as opened:
        assert opened.format == "PNG"
        pixels = opened.convert("RGB")
        assert pixels.size == (100, 70)
        for x in range(100):
            for y in range(70):
                inside = 30 <= x < 50 and 46 <= y < 66
                expected = (x, y, 7) if inside else FOG_RGB
                assert pixels.getpixel((x, y)) == expected, (x, y)


def test_a_fog_is_named_by_the_squares_on_the_map_it_lifts_from() -> None:
    assert fog_digest({(0, 0), (1, 1)}, 4, 3) == fog_digest([(1, 1), (0, 0), (7, 7)], 4, 3)
    assert fog_digest({(0, 0)}, 4, 3) != fog_digest({(0, 0), (1, 1)}, 4, 3)
    assert fog_digest({(0, 0)}, 4, 3) != fog_digest({(0, 0)}, 5, 3)


def test_addresses_are_signed_with_the_gms_secret() -> None:
    sha = "a" * 64
    address = picture_address("gm-secret", sha)
    assert address == f"/pictures/{sha}?v={signature('gm-secret', 'picture', sha)}"
    given = address.split("v=")[1]
    assert signed("gm-secret", given, "picture", sha)
    # Another secret, another picture, another kind of address, or none: not this one's.
    assert not signed("players-secret", given, "picture", sha)
    assert not signed("gm-secret", given, "picture", "b" * 64)
    assert not signed("gm-secret", given, "fogged", "vale", sha)
    assert not signed("gm-secret", None, "picture", sha)
    fogged = fogged_address("gm-secret", "vale road", "f" * 32)
    assert fogged.startswith(f"/pictures/fogged/{'f' * 32}?campaign=vale%20road&v=")
    assert sha not in fogged
