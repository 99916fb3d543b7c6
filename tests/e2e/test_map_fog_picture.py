"""A GM's secret map stays secret: under the players' fog the players' and seats' pages are
sent the overland picture with every square the party has not been near blank, and neither
the page nor any read the players' key makes names the whole picture, which no address
without the server's signature serves."""

from __future__ import annotations

import io
import re
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest
from cliruns import ok
from conftest import TrekRun
from served import GM_KEY, PLAYER_KEY, serve

pytestmark = [pytest.mark.slow]

PER = 20
WIDE, HIGH = 8, 6
VALE = f"""\
[map]
name = "Vale"
image = "vale.png"
pixels_per_square = {PER}
rows = {["." * WIDE] * HIGH!r}

[legend]
"." = {{ terrain = "open" }}
""".replace("'", '"')


def colour(x: int, y: int) -> tuple[int, int, int]:
    """Each square of the picture its own colour, so a test can tell which one it sees."""
    return (20 + 25 * x, 20 + 35 * y, 90)


def vale_picture() -> bytes:
    from PIL import Image

    image = Image.new("RGB", (WIDE * PER, HIGH * PER))
    for x in range(WIDE):
        for y in range(HIGH):
            image.paste(colour(x, y), (x * PER, y * PER, (x + 1) * PER, (y + 1) * PER))
    out = io.BytesIO()
    image.save(out, "PNG")
    return out.getvalue()


def pixel(data: bytes, x: int, y: int) -> tuple[int, int, int]:
    from PIL import Image

    with Image.open(io.BytesIO(data)) as image:
        found = image.convert("RGB").getpixel((x * PER + PER // 2, y * PER + PER // 2))
    assert isinstance(found, tuple)
    return (int(found[0]), int(found[1]), int(found[2]))


def test_the_players_never_get_the_whole_picture_under_fog(
        tmp_path: Path, trek_run: Callable[..., TrekRun]) -> None:
    import hashlib

    data = vale_picture()
    sha = hashlib.sha256(data).hexdigest()
    (tmp_path / "vale.png").write_bytes(data)
    (tmp_path / "vale.toml").write_text(VALE)
    db = str(tmp_path / "vale.db")
    ok(trek_run("init", "Vale", "--map", "vale.toml", "--at", "1,1", db=db))
    ok(trek_run("roster", "add-character", "Ann", "--body", "6", "--mind", "4", "--soul", "4",
                db=db))
    gm_auth = {"Authorization": f"Bearer {GM_KEY}"}
    players_auth = {"Authorization": f"Bearer {PLAYER_KEY}"}
    with serve(tmp_path, db) as server:
        base = server.base
        gm_page = httpx.get(f"{base}/?key={GM_KEY}", timeout=30).text
        players_page = httpx.get(f"{base}/players?key={PLAYER_KEY}", timeout=30).text
        part = httpx.get(f"{base}/parts/players", headers=players_auth, timeout=30).text
        # The GM's page names the whole picture, with the server's signature.
        whole = re.search(rf'href="(/pictures/{sha}\?v=[0-9a-f]+)"', gm_page)
        assert whole is not None
        answer = httpx.get(base + whole.group(1), timeout=30)
        assert answer.status_code == 200
        assert answer.content == data
        # The players' page, its live part and every read of the players' key: the whole
        # picture's hash is nowhere.
        reads = [httpx.get(f"{base}/api/campaigns/vale/{tail}", headers=players_auth,
                           timeout=30).text for tail in ("status", "log", "encounter")]
        # A seat's page too (its key made by the GM).
        made = httpx.post(f"{base}/api/campaigns/vale/seats", headers=gm_auth,
                          json={"seat": "ann", "characters": ["Ann"]}, timeout=30)
        assert made.status_code == 200, made.text
        seat_key = made.json()["key"]
        seat_page = httpx.get(f"{base}/seat?key={seat_key}", timeout=30).text
        seat_part = httpx.get(f"{base}/parts/seat",
                              headers={"Authorization": f"Bearer {seat_key}"}, timeout=30).text
        assert "/pictures/fogged/" in seat_page
        for text in (players_page, part, seat_page, seat_part, *reads):
            assert sha not in text
        # Without the signature, with the players' key, or with the signature the fogged
        # copy carries: no picture.
        fogged = re.search(r'href="(/pictures/fogged/[0-9a-f]+\?[^"]+)"',
                           players_page)
        assert fogged is not None
        signature = re.search(r"v=([0-9a-f]+)", fogged.group(1))
        assert signature is not None
        for tried, headers in ((f"/pictures/{sha}", players_auth),
                               (f"/pictures/{sha}?key={PLAYER_KEY}", {}),
                               (f"/pictures/{sha}?v={signature.group(1)}", players_auth),
                               (f"/pictures/{sha}?v={'0' * 32}", gm_auth)):
            refused = httpx.get(base + tried, headers=headers, timeout=30)
            assert refused.status_code == 404, tried
            assert refused.content != data
        # The fogged copy: the squares within one of the party (at 1,1) as drawn, the rest
        # blank.
        sent = httpx.get(base + fogged.group(1).replace("&amp;", "&"), timeout=30)
        assert sent.status_code == 200
        assert sent.headers["content-type"] == "image/png"
        for x in range(WIDE):
            for y in range(HIGH):
                near = abs(x - 1) <= 1 and abs(y - 1) <= 1
                assert (pixel(sent.content, x, y) == colour(x, y)) == near, (x, y)
        # Another fog's name under the same signature is no address.
        tampered = re.sub(r"/fogged/[0-9a-f]+", "/fogged/" + "1" * 32,
                          fogged.group(1).replace("&amp;", "&"))
        assert httpx.get(base + tampered, timeout=30).status_code == 404
        # The party moves on: the players' page names a new fogged copy that shows 3,1.
        assert httpx.post(f"{base}/api/campaigns/vale/commands", headers=gm_auth,
                          json={"argv": ["day", "start"]}, timeout=30).status_code == 200
        moved = httpx.post(f"{base}/api/campaigns/vale/commands", headers=gm_auth,
                           json={"argv": ["move", "--to", "2,1"]}, timeout=30)
        assert moved.status_code == 200, moved.text
        again = httpx.get(f"{base}/players?key={PLAYER_KEY}", timeout=30).text
        later = re.search(r'href="(/pictures/fogged/[0-9a-f]+\?[^"]+)"', again)
        assert later is not None
        assert later.group(1) != fogged.group(1)
        shown = httpx.get(base + later.group(1).replace("&amp;", "&"), timeout=30).content
        assert pixel(shown, 3, 1) == colour(3, 1)
        assert pixel(shown, 6, 4) != colour(6, 4)
