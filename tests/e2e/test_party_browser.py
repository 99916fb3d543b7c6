"""Two parties on the GM's page in a real browser (Playwright driving Debian's chromium, against
a real server on SQLite): the picker chooses the party, and the ruler moves each (RULES.md §15).
The sample campaign (tests/served.py) has 21 events, day 3 ended, the party at 7,1: Kira rides
Dusty and Oren rides Bramble, each mount 2 squares a day."""

from __future__ import annotations

from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
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
    # Both parties ringed on 7,1: the one in use, and the riders' dashed ring.
    assert gm.locator('#map circle.party.other-party[data-party="riders"]').count() == 1
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
    assert gm.errors == []
