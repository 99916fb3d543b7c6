"""Doors on `trek serve`'s pages, in a real browser: the GM clicks a door to open it, the
ruler measures through it, and the players' page draws it open (RULES §16).

The cellar of tests/e2e/test_doors_cli.py: the closed "cellar door" on the edge from grid point
(3,0) to (3,1). Ann (Body 6, Speed 6) stands on 2,0; 4,0 is two squares east through the door,
three round it (2,0 - 2,1 - 3,1 - 4,0: the diagonals at the door's end cut its corner).
"""

from __future__ import annotations

from collections.abc import Callable
from pathlib import Path
from typing import Any

import httpx
import pytest
from cliruns import ok
from conftest import TrekRun
from served import GM_KEY, PLAYER_KEY, serve
from test_doors_cli import ROOM

pytestmark = [pytest.mark.slow, pytest.mark.browser]


def _open(browser: Any, url: str) -> tuple[Any, list[str]]:
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    page.wait_for_selector("#live.on", timeout=5000)
    return page, errors


def test_the_gm_opens_a_door_with_a_click_and_the_ruler_goes_through_it(
        browser: Any, tmp_path: Path, trek_run: Callable[..., TrekRun]) -> None:
    db = str(tmp_path / "doors.db")
    (tmp_path / "cellar.toml").write_text(ROOM)
    for words in (("init", "Table", "--seed", "3"),
                  ("roster", "add-character", "Ann", "--body", "6", "--mind", "4", "--soul",
                   "4"),
                  ("encounter", "start", "Cellar", "--map", str(tmp_path / "cellar.toml")),
                  ("encounter", "join", "Ann", "--at", "2,0"),
                  ("encounter", "round")):
        ok(trek_run(*words, db=db))
    with serve(tmp_path, db) as server:
        gm, gm_errors = _open(browser, f"{server.base}/?key={GM_KEY}")
        players, player_errors = _open(browser, f"{server.base}/players?key={PLAYER_KEY}")
        closed = '#fight g.door.closed[data-door="cellar door"]'
        for page in (gm, players):
            assert page.locator(closed).count() == 1
            assert page.locator("#fight line.wall").count() == 2
        gm.locator('#fight g.combatant[data-name="Ann"]').click()
        gm.locator('#fight .cell[data-x="4"][data-y="0"]').hover()
        gm.wait_for_selector("#ruler.band-0", timeout=10_000)
        assert gm.locator("#ruler-text").inner_text() == "within Speed · 3 of 6 squares"
        gm.keyboard.press("Escape")
        gm.keyboard.press("Escape")

        gm.locator(closed).click()
        opened = '#fight g.door.open[data-door="cellar door"]'
        for page in (gm, players):
            page.wait_for_selector(opened, timeout=5000)
        [event] = httpx.get(f"{server.base}/api/campaigns/table/log", params={"last": "1"},
                            headers={"Authorization": f"Bearer {GM_KEY}"}, timeout=30).json()
        assert (event["type"], event["door"], event["closed"]) == (
            "DoorChanged", "cellar door", False)

        gm.locator('#fight g.combatant[data-name="Ann"]').click()
        gm.locator('#fight .cell[data-x="4"][data-y="0"]').hover()
        gm.wait_for_selector("#ruler.band-0", timeout=10_000)
        assert gm.locator("#ruler-text").inner_text() == "within Speed · 2 of 6 squares"
        assert gm_errors == []
        assert player_errors == []
