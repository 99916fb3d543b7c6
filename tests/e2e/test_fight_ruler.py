"""The fight ruler of `trek serve`'s GM page, in a real browser on SQLite and PostgreSQL: pick
a combatant, point at a cell, read what the ruler says, click, and find the very cost in the
recorded event; the players' page sees the token move.

Each ruleset's expected cost and band are worked out by hand from RULES.md (§7 to §11)."""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import httpx
import pytest
from cliruns import ok
from conftest import TrekRun
from playwright.sync_api import expect
from served import GM_KEY, PLAYER_KEY, serve

pytestmark = [pytest.mark.slow, pytest.mark.browser]

WITHIN = 2000  # ms: what the issue allows a page to take to show an event


@dataclass(frozen=True)
class Fight:
    ruleset: str
    setup: tuple[tuple[str, ...], ...]
    mover: str
    to: tuple[int, int]
    cost: float
    band: str
    tone: int  # the band's place, nearest first
    words: str  # what the ruler must say, in order


FIGHTS = [
    # BESM §7: Speed = Body (no speed attribute) = 6; 0,0 to 3,2 is three open squares
    # (eight neighbours, each step 1), so 3 of 6.
    Fight("besm", (("roster", "add-character", "Ann", "--body", "6", "--mind", "4",
                    "--soul", "4"),
                   ("encounter", "start", "Ford"),
                   ("encounter", "join", "Ann", "--at", "0,0"),
                   ("encounter", "add", "Orc", "--side", "enemy", "--at", "5,5", "--body", "4",
                    "--mind", "4", "--soul", "4"),
                   ("encounter", "round")),
          "Ann", (3, 2), 3, "within Speed", 0, "within Speed · 3 of 6 squares"),
    # GURPS §8: Gus faces N with Move 5; two hexes straight ahead cost 1 each; he still
    # faces N.
    Fight("gurps", (("roster", "add-character", "Gus", "--basic-move", "5", "--basic-speed",
                     "5.25"),
                    ("encounter", "start", "Keep"),
                    ("encounter", "join", "Gus", "--at", "2,2"),
                    ("encounter", "round")),
          "Gus", (2, 0), 2, "within Move", 0, "within Move · 2 of 5 MP · facing N"),
    # Shadowrun §9: Quickness 5, two passes: walking 5 m a turn, ⌈5/2⌉ = 3 a pass; 4 m needs
    # a run (elf ×3: 15 m, ⌈15/2⌉ = 8 a pass), leaving 4, at TN +4.
    Fight("shadowrun", (("roster", "add-character", "Kira", "--quickness", "5", "--metatype",
                         "elf"),
                        ("encounter", "start", "Alley"),
                        ("encounter", "join", "Kira", "--at", "0,0"),
                        ("encounter", "round", "--passes", "Kira=2")),
          "Kira", (4, 0), 4, "run", 1, "run · 4 m · 4 m left this pass · TN +4"),
    # Move-Points §10: a Move Action gives half of Full Move 6 = 3 MP; two open tiles cost 2,
    # leaving 1; the move provokes.
    Fight("movepoints", (("roster", "add-character", "Mo", "--full-move", "6"),
                         ("encounter", "start", "Hall"),
                         ("encounter", "join", "Mo", "--at", "0,0"),
                         ("encounter", "round"),
                         ("encounter", "act", "Mo", "move")),
          "Mo", (2, 0), 2, "within MP", 0, "within MP · 2 MP · 1 MP left · provokes"),
    # Cypher §11: six 5-foot cells are 30 ft: more than an immediate 10, within a short 50.
    Fight("cypher", (("roster", "add-character", "Cy"),
                     ("encounter", "start", "Deck"),
                     ("encounter", "join", "Cy", "--at", "0,0"),
                     ("encounter", "round")),
          "Cy", (6, 0), 30, "short", 1, "short · 30 of 50 ft · no roll"),
]


def _open(browser: Any, url: str) -> tuple[Any, list[str]]:
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    page = context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda error: errors.append(str(error)))
    page.goto(url)
    page.wait_for_selector("#live.on", timeout=5000)
    return page, errors


@pytest.mark.parametrize("fight", FIGHTS, ids=[f.ruleset for f in FIGHTS])
def test_the_ruler_shows_what_a_click_records(
        browser: Any, tmp_path: Path, db: str, fight: Fight,
        trek_run: Callable[..., TrekRun]) -> None:
    ok(trek_run("init", "Table", "--ruleset", fight.ruleset, "--seed", "3", db=db))
    for words in fight.setup:
        ok(trek_run(*words, db=db))
    x, y = fight.to
    with serve(tmp_path, db) as server:
        gm, gm_errors = _open(browser, f"{server.base}/?key={GM_KEY}")
        players, player_errors = _open(browser, f"{server.base}/players?key={PLAYER_KEY}")
        # The players see the fight but no ruler.
        assert players.locator("#ruler, #fight-hint").count() == 0
        # These campaigns have no overland map: the page is the fight, whichever ruleset
        # (none shows a day not yet begun, or a day's movement of 0 of 0 squares).
        name = next(w[2] for w in fight.setup if w[:2] == ("encounter", "start"))
        for page in (gm, players):
            assert page.locator(".party .movement").count() == 0
            header = page.locator("header .sub").inner_text()
            assert f"Encounter {name} · round 1" in header
            assert "No day yet" not in header
            assert "squares left today" not in page.locator("section.party").inner_text()
            # Health and Energy where someone has them (BESM works them out from the stats;
            # the others' characters here have none).
            vitals = page.locator(".roster th", has_text="Health").count()
            assert vitals == (1 if fight.ruleset == "besm" else 0)
        gm.locator(f'#fight g.combatant[data-name="{fight.mover}"]').click()
        expect(gm.locator(f'.round-panel tr.selected[data-name="{fight.mover}"]')
               ).to_have_count(1)
        cell = gm.locator(f'#fight .cell[data-x="{x}"][data-y="{y}"]')
        cell.hover()
        gm.wait_for_selector(f"#ruler.band-{fight.tone}", timeout=10_000)
        said = gm.locator("#ruler-text").inner_text()
        assert said == fight.words
        # The path is drawn in the band's colour, from the mover to the cell.
        assert gm.locator(f"#fight polyline.ruler-path.band-{fight.tone}").count() == 1
        cell.click()
        gm.locator(".entries .entry").first.filter(has_text=fight.mover).wait_for(
            timeout=WITHIN)
        [event] = httpx.get(f"{server.base}/api/campaigns/table/log", params={"last": "1"},
                            headers={"Authorization": f"Bearer {GM_KEY}"}, timeout=30).json()
        assert event["cost"] == fight.cost
        assert str(event["cost"]) in said.replace(" of ", " ")
        assert event["path"][-1] == {"x": x, "y": y}
        # The kind of move the ruler named is the one recorded, where the event names it.
        kind = {"shadowrun": "gait", "cypher": "action"}.get(fight.ruleset)
        if kind is not None:
            assert event[kind] == fight.band
        # Both round panels show the fighter on its new cell, having moved the cost, within
        # the time allowed.
        for page in (gm, players):
            row = page.locator(f'.round-panel tr[data-name="{fight.mover}"]')
            row.locator("td", has_text=re.compile(rf"^{x},{y}$")).wait_for(timeout=WITHIN)
            assert row.locator("td").nth(4).inner_text() == f"{fight.cost:g}"
        assert gm_errors == []
        assert player_errors == []


def test_the_gm_picks_another_kind_of_move_on_the_ruler(
        browser: Any, tmp_path: Path, trek_run: Callable[..., TrekRun]) -> None:
    """Shadowrun §9: 2 m is within a walk's 3 a pass; the GM chooses to run instead (the
    gait is the whole turn's), and the run is what the click records: 8 a pass, 6 left."""
    db = str(tmp_path / "run.db")
    [shadowrun] = [f for f in FIGHTS if f.ruleset == "shadowrun"]
    ok(trek_run("init", "Table", "--ruleset", "shadowrun", db=db))
    for words in shadowrun.setup:
        ok(trek_run(*words, db=db))
    with serve(tmp_path, db) as server:
        gm, errors = _open(browser, f"{server.base}/?key={GM_KEY}")
        gm.locator('.round-panel tr[data-name="Kira"] td.name').click()
        cell = gm.locator('#fight .cell[data-x="2"][data-y="0"]')
        cell.click()
        gm.wait_for_selector("#ruler.band-0", timeout=10_000)
        assert gm.locator("#ruler-text").inner_text() == "walk · 2 m · 1 m left this pass · TN +1"
        assert gm.locator("#ruler-bands .chip.on").inner_text() == "walk"
        gm.locator("#ruler-bands .chip", has_text="run").click()
        gm.wait_for_selector("#ruler.band-1", timeout=10_000)
        assert gm.locator("#ruler-text").inner_text() == "run · 2 m · 6 m left this pass · TN +4"
        gm.click("#ruler-confirm")
        gm.locator(".entries .entry").first.filter(has_text="Kira").wait_for(timeout=WITHIN)
        [event] = httpx.get(f"{server.base}/api/campaigns/table/log", params={"last": "1"},
                            headers={"Authorization": f"Bearer {GM_KEY}"}, timeout=30).json()
        assert (event["gait"], event["cost"], event["tn_modifier"]) == ("run", 2, 4)
        # Esc lets go of the ruler, then of the combatant.
        gm.locator('#fight .cell[data-x="3"][data-y="0"]').click()
        gm.wait_for_selector("#ruler:not([hidden])")
        gm.keyboard.press("Escape")
        expect(gm.locator("#ruler")).to_be_hidden()
        gm.keyboard.press("Escape")
        expect(gm.locator(".round-panel tr.selected")).to_have_count(0)
        assert errors == []


def test_escape_lets_go_of_the_ruler_for_good(
        browser: Any, tmp_path: Path, trek_run: Callable[..., TrekRun]) -> None:
    """The pointer rests on a cell (a measure waits for it to settle), the GM clicks it and
    presses Esc: the ruler stays closed when the wait is over. The page's clock is the
    test's, so the wait is over when the test says, on any machine."""
    db = str(tmp_path / "run.db")
    [shadowrun] = [f for f in FIGHTS if f.ruleset == "shadowrun"]
    ok(trek_run("init", "Table", "--ruleset", "shadowrun", db=db))
    for words in shadowrun.setup:
        ok(trek_run(*words, db=db))
    with serve(tmp_path, db) as server:
        context = browser.new_context(viewport={"width": 1300, "height": 900})
        gm = context.new_page()
        errors: list[str] = []
        gm.on("pageerror", lambda error: errors.append(str(error)))
        gm.clock.install()
        gm.goto(f"{server.base}/?key={GM_KEY}")
        gm.wait_for_selector("#live.on", timeout=5000)
        gm.locator('.round-panel tr[data-name="Kira"] td.name').click()
        expect(gm.locator('.round-panel tr.selected[data-name="Kira"]')).to_have_count(1)
        gm.clock.pause_at(gm.evaluate("Date.now()") + 1000)
        cell = gm.locator('#fight .cell[data-x="2"][data-y="0"]')
        cell.hover()
        cell.click()
        expect(gm.locator("#ruler")).to_be_visible()
        gm.keyboard.press("Escape")
        expect(gm.locator("#ruler")).to_be_hidden()
        # Past the pointer's settling time (120 ms) many times over.
        gm.clock.run_for(2000)
        assert gm.locator("#ruler").is_hidden()
        assert errors == []
        context.close()
