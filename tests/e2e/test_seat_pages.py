"""A player's phone asks, the GM's page approves (RULES §14), in a real browser.

BESM §7: Ann's Speed is her Body, 6; from 0,0 to 3,2 is three open squares (each step 1), so
the ruler says 3 of 6 and the move, once approved, leaves Ann at 3,2 asked by seat ana."""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from cliruns import ok
from conftest import TrekRun
from playwright.sync_api import expect
from served import GM_KEY, serve

pytestmark = [pytest.mark.slow, pytest.mark.browser]

SETUP = (("roster", "add-character", "Ann", "--body", "6", "--mind", "4", "--soul", "4"),
         ("roster", "add-character", "Bo", "--body", "4", "--mind", "4", "--soul", "4"),
         ("encounter", "start", "Ford"),
         ("encounter", "join", "Ann", "--at", "0,0"),
         ("encounter", "join", "Bo", "--at", "1,4"),
         ("encounter", "add", "Orc", "--side", "enemy", "--at", "5,5", "--body", "4",
          "--mind", "4", "--soul", "4"),
         ("encounter", "round"))


def _log(server: Any) -> list[dict[str, Any]]:
    answer = httpx.get(f"{server.base}/api/campaigns/table/log",
                       headers={"Authorization": f"Bearer {GM_KEY}"}, timeout=30)
    assert answer.status_code == 200, answer.text
    return list(answer.json())


def _page(browser: Any, url: str, *, phone: bool, size: tuple[int, int] = (390, 844)
          ) -> tuple[Any, Any, list[str]]:
    if phone:
        context = browser.new_context(viewport={"width": size[0], "height": size[1]},
                                      has_touch=True, is_mobile=True,
                                      device_scale_factor=2)
    else:
        context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    page.wait_for_selector("#live.on", timeout=5000)
    return context, page, errors


def test_a_seat_asks_from_a_phone_and_the_gm_approves(
        browser: Any, tmp_path: Path, trek_run: Callable[..., TrekRun]) -> None:
    db = str(tmp_path / "t.db")
    ok(trek_run("init", "Table", "--seed", "3", db=db))
    for words in SETUP:
        ok(trek_run(*words, db=db))
    key = json.loads(ok(trek_run("seat", "add", "ana", "--character", "Ann", "--json",
                                 db=db)).stdout)["key"]
    with serve(tmp_path, db) as server:
        _, gm, gm_errors = _page(browser, f"{server.base}/?key={GM_KEY}", phone=False)
        _, phone, phone_errors = _page(browser, f"{server.base}/seat?key={key}", phone=True)
        # Its own token is marked; Bo's is not.
        expect(phone.locator('#fight g.combatant.mine[data-name="Ann"]')).to_have_count(1)
        assert phone.locator('#fight g.combatant.mine[data-name="Bo"]').count() == 0
        assert phone.locator(".seat-card").all_inner_texts()[0].startswith("A")
        phone.locator('#fight g.combatant[data-name="Ann"]').tap()
        phone.locator('#fight .cell[data-x="3"][data-y="2"]').tap()
        expect(phone.locator("#ruler-text")).to_have_text("within Speed · 3 of 6 squares",
                                                          timeout=5000)
        confirm = phone.locator("#ruler-confirm")
        expect(confirm).to_have_text("Ask the GM")
        before = len(_log(server))
        # Timed in the browser (both pages share its clock): from the tap on Ask the GM to
        # the request's row on the GM's page.
        gm.evaluate("""() => new MutationObserver((changes, watching) => {
            if (document.querySelector('#request-list li.request.pending')) {
                window.shownAt = Date.now(); watching.disconnect(); }
        }).observe(document.getElementById('request-list'), {childList: true})""")
        phone.evaluate("""() => document.getElementById('ruler-confirm').addEventListener(
            'click', () => { window.askedAt = Date.now(); }, {capture: true})""")
        confirm.tap()
        # The GM's page shows it within the second, its path a ghost on the map.
        # Neither page polls: the ask is one POST, and the GM's page is sent the request on
        # its open stream as soon as it is kept (30 to 60 ms here at a load average of 7 to 9;
        # benchmarks/seats.py is the measure of speed, this bound only has to hold under load).
        gm.wait_for_function("() => window.shownAt !== undefined", timeout=5000)
        shown = (gm.evaluate("window.shownAt") - phone.evaluate("window.askedAt")) / 1000
        assert 0 <= shown < 1.0
        assert "ana" in gm.locator("#request-list li.pending").inner_text()
        assert gm.locator("#fight .ghost-path").count() == 1
        # Nothing is recorded until the GM says yes.
        assert len(_log(server)) == before
        expect(phone.locator("#request-list li.pending")).to_have_count(1, timeout=2000)

        gm.locator("#request-list [data-approve]").click()
        for page in (gm, phone):
            expect(page.locator('.round-panel tr[data-name="Ann"] td').nth(3)).to_have_text(
                "3,2", timeout=3000)
            expect(page.locator(".entries li").first).to_contain_text("asked by ana",
                                                                       timeout=3000)
        expect(phone.locator("#request-list li.approved")).to_have_count(1, timeout=2000)
        newest = _log(server)[-1]
        assert (newest["requested_by"], newest["type"]) == ("ana", "CombatantMoved")

        # The next round (BESM: one move a round), and the table paused: the ruler still
        # measures, but the ask is refused and the page says so.
        for path, body in (("commands", {"argv": ["encounter", "round"]}),
                           ("table", {"paused": True})):
            assert httpx.post(f"{server.base}/api/campaigns/table/{path}", json=body,
                              headers={"Authorization": f"Bearer {GM_KEY}"},
                              timeout=30).status_code == 200
        expect(phone.locator("#paused-tag")).to_be_visible(timeout=2000)
        expect(gm.locator("#paused-tag")).to_be_visible(timeout=2000)
        # Ann is still the one picked: a tap on a cell measures her move.
        phone.locator('#fight .cell[data-x="3"][data-y="3"]').tap()
        expect(confirm).to_be_enabled(timeout=5000)
        confirm.tap()
        expect(phone.locator("#toast.bad")).to_contain_text("paused", timeout=3000)
        assert len(_log(server)) == before + 2
        assert phone_errors == []
        assert gm_errors == []


def test_the_seat_page_fits_a_phone(browser: Any, tmp_path: Path,
                                    trek_run: Callable[..., TrekRun]) -> None:
    db = str(tmp_path / "t.db")
    ok(trek_run("init", "Table", "--seed", "3", db=db))
    for words in SETUP:
        ok(trek_run(*words, db=db))
    key = json.loads(ok(trek_run("seat", "add", "ana", "--character", "Ann", "--json",
                                 db=db)).stdout)["key"]
    with serve(tmp_path, db) as server:
        _, phone, errors = _page(browser, f"{server.base}/seat?key={key}", phone=True,
                                 size=(360, 740))
        phone.locator('#fight g.combatant[data-name="Ann"]').tap()
        phone.locator('#fight .cell[data-x="2"][data-y="1"]').tap()
        expect(phone.locator("#ruler-confirm")).to_be_enabled(timeout=5000)
        phone.screenshot(path=str(tmp_path / "seat.png"), full_page=True)
        # Nothing scrolls sideways.
        assert phone.evaluate("document.documentElement.scrollWidth") <= 360
        # Every target at least 44 px: buttons, the map's cells and tokens.
        small = phone.evaluate("""() => [...document.querySelectorAll(
            'button, #fight .cell, #fight g.combatant, a')]
            .filter(n => n.getClientRects().length && getComputedStyle(n).visibility !== 'hidden')
            .map(n => [n.id || n.className.baseVal || n.className || n.tagName,
                       n.getBoundingClientRect().width, n.getBoundingClientRect().height])
            .filter(([, w, h]) => w < 44 || h < 44)""")
        assert small == []
        assert errors == []


def _centre(page: Any, selector: str) -> tuple[float, float]:
    """Where a finger touches it: its centre, which must be on the phone's screen."""
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    assert 0 < x < 390, (selector, x)
    assert 0 < y < 844, (selector, y)
    return x, y


def test_a_seat_drags_its_own_token_with_a_finger(
        browser: Any, tmp_path: Path, trek_run: Callable[..., TrekRun]) -> None:
    """BESM §7: Ann (Speed 6) dragged from 0,0 to 2,0 is two open squares, 2 of 6; Bo (Speed
    4) dragged from 1,4 to 2,4 is one, 1 of 4. Ann's seat asks the GM on the drop; Bo's,
    trusted, records; Esc lets go and asks nothing."""
    db = str(tmp_path / "t.db")
    ok(trek_run("init", "Table", "--seed", "3", db=db))
    for words in SETUP:
        ok(trek_run(*words, db=db))
    keys = {name: json.loads(ok(trek_run("seat", "add", seat, "--character", name, "--json",
                                         *extra, db=db)).stdout)["key"]
            for seat, name, extra in (("ana", "Ann", ()), ("bo", "Bo", ("--trusted",)))}
    token = '#fight g.combatant[data-name="{}"] .token-shape'.format
    cell = '#fight .cell[data-x="{}"][data-y="{}"]'.format
    with serve(tmp_path, db) as server:
        context, phone, errors = _page(browser, f"{server.base}/seat?key={keys['Ann']}",
                                       phone=True)
        # The map is drawn wider than the phone (every cell ≥ 44 px) and pans in its frame,
        # which the page opens on the seat's own token: the page is only scrolled down to it.
        down_to = """name => window.scrollBy(0, document.querySelector(
            '#fight g.combatant[data-name="' + name + '"]').getBoundingClientRect().top - 300)"""
        phone.evaluate(down_to, "Ann")
        touch = context.new_cdp_session(phone)

        def finger(kind: str, where: tuple[float, float] | None) -> None:
            points = [] if where is None else [{"x": where[0], "y": where[1]}]
            touch.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})

        # Only its own token can be taken: Ann's is draggable, Bo's is not.
        expect(phone.locator('#fight g.combatant.draggable[data-name="Ann"]')).to_have_count(1)
        assert phone.locator('#fight g.combatant.draggable[data-name="Bo"]').count() == 0
        before = len(_log(server))
        finger("touchStart", _centre(phone, token("Ann")))
        for x in (1, 2):
            finger("touchMove", _centre(phone, cell(x, 0)))
        expect(phone.locator("#ruler-target")).to_have_text("Ann to 2,0", timeout=5000)
        expect(phone.locator("#ruler-text")).to_have_text("within Speed · 2 of 6 squares",
                                                          timeout=5000)
        finger("touchEnd", None)
        # The drop asked the GM: one request, pending, nothing recorded, the token back home.
        expect(phone.locator("#request-list li.pending")).to_have_count(1, timeout=5000)
        asked = httpx.get(f"{server.base}/api/campaigns/table/requests",
                          headers={"Authorization": f"Bearer {GM_KEY}"}, timeout=30).json()
        assert [(r["seat"], r["status"], r["preview"]["path"][-1]) for r in asked] == [
            ("ana", "pending", {"x": 2, "y": 0})]
        assert len(_log(server)) == before
        assert phone.locator('#fight g.combatant[data-name="Ann"]').get_attribute(
            "transform") is None

        # Esc lets go mid-drag: the ruler closes, and the drop asks nothing.
        finger("touchStart", _centre(phone, token("Ann")))
        finger("touchMove", _centre(phone, cell(1, 0)))
        expect(phone.locator("#ruler-target")).to_have_text("Ann to 1,0", timeout=5000)
        phone.keyboard.press("Escape")
        expect(phone.locator("#ruler")).to_be_hidden()
        finger("touchEnd", None)
        assert len(httpx.get(f"{server.base}/api/campaigns/table/requests",
                             headers={"Authorization": f"Bearer {GM_KEY}"},
                             timeout=30).json()) == 1
        assert errors == []
        context.close()

        # A trusted seat's drop records at once.
        context, phone, errors = _page(browser, f"{server.base}/seat?key={keys['Bo']}",
                                       phone=True)
        phone.evaluate(down_to, "Bo")
        touch = context.new_cdp_session(phone)
        finger("touchStart", _centre(phone, token("Bo")))
        finger("touchMove", _centre(phone, cell(2, 4)))
        expect(phone.locator("#ruler-text")).to_have_text("within Speed · 1 of 4 squares",
                                                          timeout=5000)
        finger("touchEnd", None)
        expect(phone.locator('.round-panel tr[data-name="Bo"] td').nth(3)).to_have_text(
            "2,4", timeout=5000)
        newest = _log(server)[-1]
        assert (newest["type"], newest["requested_by"], newest["path"][-1]) == (
            "CombatantMoved", "bo", {"x": 2, "y": 4})
        assert len(_log(server)) == before + 1
        assert errors == []
        context.close()
