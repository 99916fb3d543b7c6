"""The map on the table, in Debian's chromium: a fight on a Universal VTT file's picture shows
the picture under the grid, aligned; a token dragged with the mouse or a finger shows the
ruler and records on drop, and one dropped in a walled-in square shows the refusal and records
nothing; wheel zoom and Fit change the view, not the store; a live update does not fetch the picture
again; no page scrolls sideways on a 360 px phone.

BESM §7 (RULES.md): Speed = Body = 6; every step onto open ground costs 1, a wall may not be
entered."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from cliruns import ok
from conftest import TrekRun
from pictures import picture_base64
from playwright.sync_api import expect
from served import GM_KEY, PLAYER_KEY, serve

pytestmark = [pytest.mark.slow, pytest.mark.browser]

PER_CELL = 50
WIDE, HIGH = 6, 4


def cellar() -> str:
    """A 6×4 cellar, 50 pixels a cell: a wall along the grid line y=1 from x=0 to x=3, and
    walls all round cell 2,2 (a walled-in square, on the edges between squares)."""
    return json.dumps({
        "format": 0.3,
        "resolution": {"map_origin": {"x": 0, "y": 0}, "map_size": {"x": WIDE, "y": HIGH},
                       "pixels_per_grid": PER_CELL},
        "line_of_sight": [[{"x": 0, "y": 1}, {"x": 3, "y": 1}],
                          [{"x": 2, "y": 2}, {"x": 3, "y": 2}, {"x": 3, "y": 3},
                           {"x": 2, "y": 3}, {"x": 2, "y": 2}]],
        "portals": [],
        "image": picture_base64(WIDE * PER_CELL, HIGH * PER_CELL),
    })


@pytest.fixture
def fight(tmp_path: Path, trek_run: Callable[..., TrekRun]) -> str:
    db = str(tmp_path / "table.db")
    (tmp_path / "cellar.uvtt").write_text(cellar())
    for words in (("init", "Table", "--seed", "3"),
                  ("roster", "add-character", "Ann", "--body", "6", "--mind", "4",
                   "--soul", "4"),
                  ("encounter", "start", "Cellar", "--map", "cellar.uvtt"),
                  ("encounter", "join", "Ann", "--at", "0,0"),
                  ("encounter", "add", "Orc", "--side", "enemy", "--at", "5,3", "--body", "4",
                   "--mind", "4", "--soul", "4"),
                  ("encounter", "round")):
        ok(trek_run(*words, db=db))
    return db


def log(base: str) -> list[dict[str, Any]]:
    answer = httpx.get(f"{base}/api/campaigns/table/log", params={"last": "50"},
                       headers={"Authorization": f"Bearer {GM_KEY}"}, timeout=30)
    return list(answer.json())


def centre_of(page: Any, selector: str) -> tuple[float, float]:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return box["x"] + box["width"] / 2, box["y"] + box["height"] / 2


def token(name: str) -> str:
    return f'#fight g.combatant[data-name="{name}"] .token-shape'


def cell(x: int, y: int) -> str:
    return f'#fight .cell[data-x="{x}"][data-y="{y}"]'


def open_page(browser: Any, url: str, fetched: list[str] | None = None,
              **options: Any) -> tuple[Any, Any, list[str]]:
    context = browser.new_context(**options)
    page = context.new_page()
    if fetched is not None:
        page.on("request", lambda r: fetched.append(r.url) if "/pictures/" in r.url else None)
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    page.wait_for_selector("#live.on", timeout=5000)
    return context, page, errors


def test_the_picture_lies_under_the_grid_and_a_mouse_drag_records(
        browser: Any, tmp_path: Path, fight: str) -> None:
    with serve(tmp_path, fight) as server:
        fetched: list[str] = []
        context, gm, errors = open_page(browser, f"{server.base}/?key={GM_KEY}", fetched,
                                        viewport={"width": 1280, "height": 800})
        assert len(fetched) == 1
        picture = gm.locator("#fight image.map-picture")
        assert picture.count() == 1
        # Aligned: each token's centre, in the picture's own pixels, is its cell's centre.
        image = picture.bounding_box()
        assert image is not None
        for name, (x, y) in (("Ann", (0, 0)), ("Orc", (5, 3))):
            cx, cy = centre_of(gm, token(name))
            px = (cx - image["x"]) / image["width"] * WIDE * PER_CELL
            py = (cy - image["y"]) / image["height"] * HIGH * PER_CELL
            assert (px, py) == pytest.approx(((x + 0.5) * PER_CELL, (y + 0.5) * PER_CELL),
                                             abs=1.0)
        # The picture is what the file carried, sent with caching headers.
        sha = picture.get_attribute("data-sha256")
        href = picture.get_attribute("href")
        assert href is not None
        assert href.startswith(f"/pictures/{sha}?v=")
        # The hash alone is no address: only the signed one the page names.
        assert httpx.get(f"{server.base}/pictures/{sha}", timeout=30).status_code == 404
        answer = httpx.get(server.base + href, timeout=30)
        assert answer.status_code == 200
        assert answer.headers["content-type"] == "image/png"
        assert "immutable" in answer.headers["cache-control"]
        assert answer.headers["etag"] == f'"{sha}"'
        assert answer.content == base64.b64decode(json.loads(cellar())["image"])
        assert httpx.get(server.base + href, headers={"If-None-Match": f'"{sha}"'},
                         timeout=30).status_code == 304
        before = len(log(server.base))
        # A mouse drag from Ann's cell to 3,0: the ruler follows and says the cost; the drop
        # records it (three open squares: 3 of 6).
        gm.mouse.move(*centre_of(gm, token("Ann")))
        gm.mouse.down()
        gm.mouse.move(*centre_of(gm, cell(2, 0)), steps=4)
        gm.mouse.move(*centre_of(gm, cell(3, 0)), steps=4)
        gm.wait_for_function(
            "document.getElementById('ruler-target').textContent.endsWith('3,0')")
        gm.wait_for_selector("#ruler.band-0", timeout=10_000)
        expect(gm.locator("#ruler-text")).to_have_text("within Speed · 3 of 6 squares")
        gm.mouse.up()
        gm.locator('.round-panel tr[data-name="Ann"] td', has_text="3,0").wait_for(timeout=5000)
        moved = log(server.base)
        assert len(moved) == before + 1
        assert moved[-1]["cost"] == 3
        assert moved[-1]["path"][-1] == {"x": 3, "y": 0}
        # A live update redrew the fight: the picture was not fetched again.
        gm.wait_for_selector(f"#fight image.map-picture[data-sha256='{sha}']")
        assert len(fetched) == 1
        # A drag onto the walled-in square 2,2 (three steps away without the walls, within
        # the Orc's 4): the ruler says why at once, and the drop records nothing.
        gm.mouse.move(*centre_of(gm, token("Orc")))
        gm.mouse.down()
        gm.mouse.move(*centre_of(gm, cell(3, 2)), steps=4)
        gm.mouse.move(*centre_of(gm, cell(2, 2)), steps=4)
        gm.wait_for_selector("#ruler.refused", timeout=10_000)
        refusal = gm.locator("#ruler-text").inner_text()
        assert "path" in refusal.lower()
        assert "2,2" in refusal
        gm.mouse.up()
        gm.wait_for_timeout(800)
        assert len(log(server.base)) == before + 1
        # Dropping back where it started, or Escape, records nothing either.
        gm.mouse.move(*centre_of(gm, token("Orc")))
        gm.mouse.down()
        gm.mouse.move(*centre_of(gm, cell(4, 3)), steps=4)
        gm.wait_for_selector("#ruler.band-0", timeout=10_000)
        gm.keyboard.press("Escape")
        gm.mouse.up()
        gm.wait_for_timeout(500)
        assert len(log(server.base)) == before + 1
        assert errors == []
        context.close()


def test_a_finger_drags_a_token_on_a_phone(browser: Any, tmp_path: Path, fight: str) -> None:
    with serve(tmp_path, fight) as server:
        context, gm, errors = open_page(
            browser, f"{server.base}/?key={GM_KEY}", viewport={"width": 360, "height": 740},
            has_touch=True, is_mobile=True, device_scale_factor=2)
        gm.locator("#fight").scroll_into_view_if_needed()
        touch = context.new_cdp_session(gm)

        def finger(kind: str, where: tuple[float, float] | None) -> None:
            points = [] if where is None else [{"x": where[0], "y": where[1]}]
            touch.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

        before = len(log(server.base))
        finger("touchStart", centre_of(gm, token("Ann")))
        for x in (1, 2):
            finger("touchMove", centre_of(gm, cell(x, 0)))
            gm.wait_for_timeout(100)
        gm.wait_for_function(
            "document.getElementById('ruler-target').textContent.endsWith('2,0')")
        gm.wait_for_selector("#ruler.band-0", timeout=10_000)
        expect(gm.locator("#ruler-text")).to_have_text("within Speed · 2 of 6 squares")
        finger("touchEnd", None)
        gm.locator('.round-panel tr[data-name="Ann"] td', has_text="2,0").wait_for(timeout=5000)
        moved = log(server.base)
        assert len(moved) == before + 1
        assert moved[-1]["path"][-1] == {"x": 2, "y": 0}
        assert errors == []
        context.close()


def test_wheel_zoom_and_fit_change_the_view_not_the_store(
        browser: Any, tmp_path: Path, fight: str) -> None:
    with serve(tmp_path, fight) as server:
        context, gm, errors = open_page(browser, f"{server.base}/?key={GM_KEY}",
                                        viewport={"width": 1280, "height": 800})
        before = len(log(server.base))
        fitted = gm.locator("#fight .viewport svg").bounding_box()
        gm.mouse.move(*centre_of(gm, cell(3, 2)))
        for _ in range(3):
            gm.mouse.wheel(0, -200)
        gm.wait_for_timeout(300)
        zoomed = gm.locator("#fight .viewport svg").bounding_box()
        assert fitted is not None
        assert zoomed is not None
        assert zoomed["width"] > fitted["width"] * 1.2
        gm.locator("#fight .map-tool", has_text="Fit").click()
        gm.wait_for_timeout(300)
        assert gm.locator("#fight .viewport svg").bounding_box() == pytest.approx(fitted)
        # The grid's opacity over the picture is the page's own.
        gm.locator("#fight .grid-opacity input").fill("80")
        opacity = gm.evaluate("getComputedStyle(document.querySelector("
                              "'#fight .cell.open')).fillOpacity")
        assert float(opacity) == pytest.approx(0.8)
        assert len(log(server.base)) == before
        assert errors == []
        context.close()


def test_no_page_scrolls_sideways_on_a_phone(browser: Any, tmp_path: Path, fight: str,
                                             trek_run: Callable[..., TrekRun]) -> None:
    overland = str(tmp_path / "overland.db")
    from served import sample_campaign

    sample_campaign(overland)
    for db in (fight, overland):
        with serve(tmp_path, db) as server:
            for page_url in (f"/?key={GM_KEY}", f"/players?key={PLAYER_KEY}"):
                context, page, errors = open_page(
                    browser, server.base + page_url, viewport={"width": 360, "height": 740},
                    has_touch=True, is_mobile=True)
                width = page.evaluate("document.documentElement.scrollWidth")
                assert width <= 360, (db, page_url, width)
                # Nor does any panel within it (the map pans instead).
                aside = page.evaluate(
                    "[...document.querySelectorAll('body *')].filter(e => "
                    "!e.closest('.viewport') && "
                    "['auto', 'scroll'].includes(getComputedStyle(e).overflowX) && "
                    "e.scrollWidth > e.clientWidth + 1).map(e => e.className || e.tagName)")
                assert aside == [], (db, page_url, aside)
                # The map fills the width.
                viewport = page.locator(".viewport").first.bounding_box()
                assert viewport is not None
                assert viewport["width"] >= 300
                assert errors == []
                context.close()


def test_overland_every_square_answers_and_the_party_drags(
        browser: Any, tmp_path: Path) -> None:
    """The demo's Ashen Reach (docs/examples): mountains at 2,1, a ley storm (a hazard) at 3,2,
    the party at 7,1 after day 3. A tap on a mountain's or a hazard's sign answers with the
    refusal; the party's marker dragged to 8,2 records the move (one square, RULES §3)."""
    from served import sample_campaign

    db = str(tmp_path / "demo.db")
    sample_campaign(db)
    with serve(tmp_path, db) as server:
        assert server.command(["day", "start"]).status_code == 200
        context, gm, errors = open_page(browser, f"{server.base}/?key={GM_KEY}",
                                        viewport={"width": 1280, "height": 800})

        def square(x: int, y: int) -> str:
            return f'#map rect.cell[data-x="{x}"][data-y="{y}"]'

        # The sign drawn over the square is where the click lands; the square answers.
        for (x, y), words in (((2, 1), "mountains"), ((3, 2), "--through-hazard")):
            gm.mouse.click(*centre_of(gm, square(x, y)))
            gm.wait_for_selector("#ruler-text.bad", timeout=10_000)
            assert words in gm.locator("#ruler-text").inner_text()
            gm.keyboard.press("Escape")
        before = len(httpx.get(f"{server.base}/api/campaigns/ashes-road/log",
                               params={"last": "200"},
                               headers={"Authorization": f"Bearer {GM_KEY}"}).json())
        gm.mouse.move(*centre_of(gm, "#map circle.party"))
        gm.mouse.down()
        gm.mouse.move(*centre_of(gm, square(8, 2)), steps=5)
        gm.wait_for_function(
            "document.getElementById('ruler-target').textContent === '8,2'")
        gm.wait_for_selector("#ruler-confirm:not([disabled])", timeout=10_000)
        assert gm.locator("#ruler-text").inner_text().startswith("1 square · cost 1")
        gm.mouse.up()
        gm.wait_for_selector("header .sub:has-text('at 8,2')", timeout=5000)
        entries = httpx.get(f"{server.base}/api/campaigns/ashes-road/log",
                            params={"last": "200"},
                            headers={"Authorization": f"Bearer {GM_KEY}"}).json()
        assert len(entries) == before + 1
        assert entries[-1]["path"] == [[7, 1], [8, 2]]
        # The key is there, open on a desktop.
        assert gm.locator("details.key[open] li[data-key='terrain:^']").count() == 1
        assert errors == []
        context.close()
        context, phone, errors = open_page(browser, f"{server.base}/?key={GM_KEY}",
                                           viewport={"width": 360, "height": 740},
                                           has_touch=True, is_mobile=True)
        # On a phone the key starts folded.
        assert phone.locator("details.key:not([open])").count() == 1
        assert errors == []
        context.close()


TARGETS = "button, select, input, summary, a[href], .link"


def small_targets(page: Any) -> list[str]:
    """Every visible target smaller than 44×44 CSS px (an input inside a label is tapped by
    its label), named with its size."""
    return list(page.evaluate("""(targets) => {
      const small = [];
      document.querySelectorAll(targets).forEach((node) => {
        const box = (node.closest('label') || node).getBoundingClientRect();
        const shown = box.width > 0 && box.height > 0 &&
          getComputedStyle(node).visibility !== 'hidden';
        if (shown && (box.width < 44 || box.height < 44)) {
          small.push((node.id || node.textContent.trim().slice(0, 20) || node.tagName) +
                     ' ' + Math.round(box.width) + 'x' + Math.round(box.height));
        }
      });
      return small;
    }""", TARGETS))


def test_every_target_on_a_phone_is_a_thumbs_size(browser: Any, tmp_path: Path,
                                                  fight: str) -> None:
    """At 360×740 with touch every button is at least 44 px a side, and the map opens zoomed
    so the cell under the party's marker (overland) or a token (a fight) is too, centred in
    the map; Fit shows the whole map again."""
    overland = str(tmp_path / "overland.db")
    from served import sample_campaign

    sample_campaign(overland)
    for db, under in ((fight, token("Ann")), (overland, "#map circle.party")):
        with serve(tmp_path, db) as server:
            for page_url in (f"/?key={GM_KEY}", f"/players?key={PLAYER_KEY}"):
                context, page, errors = open_page(
                    browser, server.base + page_url, viewport={"width": 360, "height": 740},
                    has_touch=True, is_mobile=True)
                assert small_targets(page) == [], (db, page_url)
                port = page.locator(".viewport").first.bounding_box()
                assert port is not None
                # The cell a finger on the marker taps: found by the point, as a tap finds it.
                x, y = centre_of(page, under)
                assert port["x"] <= x <= port["x"] + port["width"], (db, page_url)
                assert port["y"] <= y <= port["y"] + port["height"], (db, page_url)
                tapped = page.evaluate(
                    """([x, y]) => {
                      const cell = document.elementsFromPoint(x, y)
                        .find((n) => n.classList && n.classList.contains('cell'));
                      const box = cell.getBoundingClientRect();
                      return [box.width, box.height];
                    }""", [x, y])
                assert min(tapped) >= 44, (db, page_url, tapped)
                # Fit: the whole map within the viewport's width.
                page.locator(".map-tool", has_text="Fit").first.click()
                page.wait_for_function(
                    "() => { const s = document.querySelector('.viewport svg')"
                    ".getBoundingClientRect(); const p = document.querySelector('.viewport')"
                    ".getBoundingClientRect(); return s.width <= p.width + 1; }")
                assert errors == []
                context.close()


def test_a_live_update_keeps_the_picture_and_the_view(browser: Any, tmp_path: Path,
                                                      fight: str) -> None:
    """A move recorded elsewhere redraws the tokens on each page, on top of the same picture:
    the <image> is the same node (a mark set on it survives), the pan and zoom the GM chose
    stay, and the picture is not asked for again."""
    with serve(tmp_path, fight) as server:
        pages = []
        for url in (f"/?key={GM_KEY}", f"/players?key={PLAYER_KEY}"):
            fetched: list[str] = []
            context, page, errors = open_page(browser, server.base + url, fetched,
                                              viewport={"width": 1280, "height": 800})
            page.locator("#fight .map-tool", has_text="+").click()
            page.locator("#fight .map-tool", has_text="+").click()
            page.wait_for_function("() => document.querySelector('#fight .viewport svg')"
                                   ".style.transform.startsWith('scale(1.64')")
            page.evaluate("document.querySelector('#fight image.map-picture').trekMark = 7")
            transform = page.evaluate("document.querySelector('#fight .viewport svg')"
                                      ".style.transform")
            pages.append((context, page, errors, fetched, transform))
        answer = httpx.post(f"{server.base}/api/campaigns/table/commands",
                            json={"argv": ["encounter", "move", "Ann", "--to", "1,0"]},
                            headers={"Authorization": f"Bearer {GM_KEY}"}, timeout=30)
        assert answer.status_code == 200, answer.text
        for context, page, errors, fetched, transform in pages:
            page.locator('.round-panel tr[data-name="Ann"] td', has_text="1,0").wait_for(
                timeout=10_000)
            # The token moved: Ann's token now lies on cell 1,0.
            tx, ty = centre_of(page, token("Ann"))
            box = page.locator(cell(1, 0)).bounding_box()
            assert box is not None
            assert box["x"] <= tx <= box["x"] + box["width"]
            assert box["y"] <= ty <= box["y"] + box["height"]
            assert page.evaluate(
                "document.querySelector('#fight image.map-picture').trekMark") == 7
            assert page.evaluate("document.querySelector('#fight .viewport svg')"
                                 ".style.transform") == transform
            assert len(fetched) == 1
            assert errors == []
            context.close()


def test_a_drag_asks_each_cell_once_and_the_next_one_ahead(browser: Any, tmp_path: Path,
                                                           fight: str) -> None:
    """Dragging Ann 0,0 → 1,0 → 2,0 → 1,0: the server is asked for 1,0 on arrival, for 2,0
    (and then 3,0) ahead of the pointer, and never twice for a cell: the way back to 1,0 is
    answered from the drag's own answers, with the same words."""
    with serve(tmp_path, fight) as server:
        context, gm, errors = open_page(browser, f"{server.base}/?key={GM_KEY}",
                                        viewport={"width": 1280, "height": 800})
        asked: list[tuple[int, int]] = []
        gm.on("request", lambda r: asked.append(tuple(json.loads(r.post_data or "{}")["to"]))
              if r.url.endswith("/ruler") else None)

        def over(x: int, y: int, words: str) -> None:
            gm.mouse.move(*centre_of(gm, cell(x, y)), steps=3)
            gm.wait_for_function(
                f"() => document.getElementById('ruler-target').textContent.endsWith('{x},{y}')")
            expect(gm.locator("#ruler-text")).to_have_text(words)

        gm.mouse.move(*centre_of(gm, token("Ann")))
        gm.mouse.down()
        over(1, 0, "within Speed · 1 of 6 squares")
        assert asked[:2] == [(1, 0), (2, 0)]
        over(2, 0, "within Speed · 2 of 6 squares")
        over(1, 0, "within Speed · 1 of 6 squares")
        gm.keyboard.press("Escape")
        gm.mouse.up()
        assert len(asked) == len(set(asked))
        assert asked.count((1, 0)) == 1
        assert asked.count((2, 0)) == 1
        assert (3, 0) in asked
        assert errors == []
        context.close()


# The shipped Kessel Pass battle map, its difficult ground named by a GM in markup.
KESSEL = Path(__file__).resolve().parents[2] / "docs" / "examples" / "kessel-pass-battle.toml"
DIFFICULT = '":" = { terrain = "difficult" }'
SCREE = '":" = { terrain = "difficult", name = "<b>scree</b>" }'


def test_a_battle_maps_key_stays_on_a_phones_screen_under_the_zoomed_map(
        browser: Any, tmp_path: Path, trek_run: Callable[..., TrekRun]) -> None:
    # On a phone the map opens zoomed so a cell is a finger's size; its key is the page's,
    # under the map, folded until tapped, and every entry of it lies within the screen.
    db = str(tmp_path / "pass.db")
    shipped = KESSEL.read_text()
    assert DIFFICULT in shipped
    (tmp_path / "pass.toml").write_text(shipped.replace(DIFFICULT, SCREE))
    for words in (("init", "Pass", "--seed", "3"),
                  ("roster", "add-character", "Ann", "--body", "6", "--mind", "4",
                   "--soul", "4"),
                  ("encounter", "start", "Pass", "--map", "pass.toml"),
                  ("encounter", "join", "Ann", "--at", "1,1"),
                  ("encounter", "round"),
                  ("encounter", "move", "Ann", "--to", "1,3")):
        ok(trek_run(*words, db=db))
    with serve(tmp_path, db) as server:
        for page_url in (f"/players?key={PLAYER_KEY}", f"/?key={GM_KEY}"):
            context, page, errors = open_page(
                browser, server.base + page_url, viewport={"width": 375, "height": 740},
                has_touch=True, is_mobile=True)
            # Zoomed in: the board is drawn wider than the screen.
            board = page.locator("#fight .viewport svg").bounding_box()
            assert board is not None
            assert board["width"] > 375, page_url
            assert page.locator("#fight .viewport svg .legend-row").count() == 0
            key = page.locator("#fight details.key")
            assert key.get_attribute("open") is None
            key.locator("summary").tap()
            entries = key.locator(".key-entries li")
            # Each ground's mark and words (the scree's name as the GM typed it, as text), and
            # round 1's path.
            expect(entries).to_have_count(4)
            words = [" ".join(entries.nth(i).inner_text().split()) for i in range(4)]
            assert words == [". open", "# wall", ": <b>scree</b> (difficult)", "paths of round 1"]
            for i in range(4):
                box = entries.nth(i).bounding_box()
                assert box is not None
                assert box["x"] >= 0, (page_url, words[i])
                assert box["x"] + box["width"] <= 375, (page_url, words[i])
            assert page.evaluate("document.documentElement.scrollWidth") <= 375
            assert errors == []
            context.close()
