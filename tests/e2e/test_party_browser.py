"""Two parties on the GM's page and on a seat's page in a real browser (Playwright driving
Debian's chromium, against a real server on SQLite): the picker chooses the party, the ruler
moves each, each is drawn in its own colour family, and a seat's tap moves its own character's
party (RULES.md §14, §15). The sample campaign (tests/served.py) has 21 events, day 3 ended, the
party at 7,1: Kira rides Dusty and Oren rides Bramble, each mount 2 squares a day."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cliruns import ok
from conftest import TrekRun
from partypictures import drawn, hue, hue_apart
from playwright.sync_api import expect
from served import GM_KEY, Served, sample_campaign, serve

pytestmark = [pytest.mark.slow, pytest.mark.browser]

WITHIN = 2000  # ms


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    db = str(tmp_path / "trek.db")
    sample_campaign(db)
    with serve(tmp_path, db) as server:
        yield server


def gm_page(browser: Any, served: Served) -> Any:
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.errors = errors
    page.goto(f"{served.base}/?key={GM_KEY}")
    page.wait_for_selector("#live.on", timeout=5000)
    return page


def ruler_to(page: Any, x: int, y: int, then: str) -> None:
    """Click square x,y, check the ruler's words, confirm, and wait for event `then`."""
    page.click(f'#map rect.cell[data-x="{x}"][data-y="{y}"]')
    ruler = page.locator("#ruler-text")
    ruler.filter(has_text="cost 2").wait_for(timeout=5000)
    assert ruler.inner_text() == "2 squares · cost 2 · 0 left today after it"
    page.click("#ruler-confirm")
    page.locator(".entries .entry").first.filter(has_text=then).wait_for(timeout=WITHIN)


def test_two_parties_each_moved_with_the_ruler(browser: Any, served: Served) -> None:
    for argv in (["party", "split", "riders", "--member", "Kira", "--member", "Dusty"],  # 22
                 ["day", "start"],                                                    # 23
                 ["day", "start", "--party", "riders"]):                              # 24
        assert served.command(argv).status_code == 200, argv
    gm = gm_page(browser, served)
    picker = gm.locator("#party-picker")
    assert picker.input_value() == "main"
    # Both parties marked on 7,1: the one in use (dragged with the mouse), and the riders'.
    assert gm.locator('#map .party.other-party[data-party="riders"]').count() == 1
    assert gm.locator('#map .party.draggable[data-party="main"]').count() == 1
    # The walkers (Oren on Bramble): 7,1 -> 8,2 -> 9,3.
    ruler_to(gm, 9, 3, "#25")
    # The riders, picked: 7,1 -> 6,1 -> 5,1.
    picker.select_option("riders")
    gm.locator(".sub", has_text="Party riders").wait_for(timeout=5000)
    ruler_to(gm, 5, 1, "#26")
    status = served.get("status").json()
    assert (status["party"], status["position"]) == ("riders", {"x": 5, "y": 1})
    assert status["parties"]["main"]["position"] == {"x": 9, "y": 3}
    log = served.get("log", params={"from": "25"}).json()
    assert [(e["seq"], e["type"], e["party"]) for e in log] == [(25, "Moved", "main"),
                                                                (26, "Moved", "riders")]
    # The page, as the browser holds it now: each party's day 4 in its own colour family.
    gm.locator('#map polyline.segment[data-seq="26"]').wait_for(state="attached",
                                                                 timeout=5000)
    picture = drawn(gm.locator("#map svg.route-map").evaluate("n => n.outerHTML"))
    walkers, riders = picture.segments[25], picture.segments[26]
    assert (walkers[:2], riders[:2]) == (("main", 4), ("riders", 4))
    assert hue_apart(hue(walkers[2]), hue(riders[2])) > 60
    # The riders, picked, are the party whose marker the GM drags now.
    assert gm.locator('#map .party.draggable[data-party="riders"]').count() == 1
    assert gm.errors == []


def test_a_seat_taps_a_square_and_its_characters_party_moves(
        browser: Any, tmp_path: Path, trek_run: Callable[..., TrekRun]) -> None:
    db = str(tmp_path / "trek.db")
    sample_campaign(db)
    key = ok(trek_run("seat", "add", "kit", "--character", "Kira", "--json",
                      db=db)).json()["key"]
    with serve(tmp_path, db) as served:
        for argv in (["party", "split", "riders", "--member", "Kira", "--member", "Dusty"],
                     ["day", "start"], ["day", "start", "--party", "riders"]):   # 22, 23, 24
            assert served.command(argv).status_code == 200, argv
        context = browser.new_context(viewport={"width": 1300, "height": 900})
        phone = context.new_page()
        errors: list[str] = []
        phone.on("pageerror", lambda error: errors.append(str(error)))
        phone.goto(f"{served.base}/seat?key={key}")
        phone.wait_for_selector("#live.on", timeout=5000)
        # Kira's page is told from the riders' side, though the walkers are in use.
        expect(phone.locator(".sub")).to_contain_text("Party riders", timeout=5000)
        # The riders: 7,1 -> 6,1 -> 5,1, the whole of their 2.
        phone.click('#map rect.cell[data-x="5"][data-y="1"]')
        ruler = phone.locator("#ruler-text")
        expect(ruler).to_have_text("2 squares · cost 2 · 0 left today after it", timeout=5000)
        phone.click("#ruler-confirm")
        headers = {"Authorization": f"Bearer {GM_KEY}"}
        expect(phone.locator("#request-list li.pending")).to_have_count(1, timeout=5000)
        asked = httpx.get(served.api("requests"), headers=headers, timeout=30).json()
        assert [(r["seat"], r["argv"]) for r in asked] == [
            ("kit", ["move", "--to", "5,1", "--party", "riders"])]
        approved = httpx.post(served.api(f"requests/{asked[0]['request']}/approve"),
                              headers=headers, timeout=30)
        assert approved.status_code == 200, approved.text
        status = served.get("status").json()
        assert (status["party"], status["position"]) == ("main", {"x": 7, "y": 1})
        assert status["parties"]["riders"]["position"] == {"x": 5, "y": 1}
        expect(phone.locator(".sub")).to_contain_text("at 5,1", timeout=5000)
        assert errors == []


def test_a_seat_in_two_parties_picks_the_one_its_tap_moves(
        browser: Any, tmp_path: Path, trek_run: Callable[..., TrekRun]) -> None:
    """A seat playing Kira (with the riders) and Oren (with the walkers, in use) picks the
    riders and taps 5,1: the request moves the riders; it picks the walkers and taps 6,1: that
    one moves the walkers. Both wait on the GM; nothing is recorded."""
    db = str(tmp_path / "trek.db")
    sample_campaign(db)
    key = ok(trek_run("seat", "add", "both", "--character", "Kira", "--character", "Oren",
                      "--json", db=db)).json()["key"]
    with serve(tmp_path, db) as served:
        for argv in (["party", "split", "riders", "--member", "Kira", "--member", "Dusty"],
                     ["day", "start"], ["day", "start", "--party", "riders"]):
            assert served.command(argv).status_code == 200, argv
        events = served.get("status").json()["events"]
        context = browser.new_context(viewport={"width": 1300, "height": 900})
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.goto(f"{served.base}/seat?key={key}")
        page.wait_for_selector("#live.on", timeout=5000)
        pick = page.locator("#seat-party")
        # In the order of the seat's characters: Kira's riders, then Oren's walkers.
        expect(pick.locator("option")).to_have_text(["riders", "main"])
        headers = {"Authorization": f"Bearer {GM_KEY}"}
        asked: list[list[str]] = []
        for party, cell in (("riders", "5"), ("main", "6")):
            pick.select_option(party)
            page.click(f'#map rect.cell[data-x="{cell}"][data-y="1"]')
            expect(page.locator("#ruler-confirm")).to_be_enabled(timeout=5000)
            page.click("#ruler-confirm")
            expect(page.locator("#request-list li.pending")).to_have_count(
                len(asked) + 1, timeout=5000)
            asked = [r["argv"] for r in httpx.get(served.api("requests"), headers=headers,
                                                  timeout=30).json()]
        assert asked == [["move", "--to", "5,1", "--party", "riders"],
                         ["move", "--to", "6,1", "--party", "main"]]
        assert served.get("status").json()["events"] == events
        assert errors == []
        context.close()
