"""`trek serve`'s pages in a real browser: Playwright driving Debian's chromium (nothing is
downloaded), against a real server on SQLite. The sample campaign (tests/served.py) has 21
events, day 3 ended, the party at 7,1 with a movement base of 2."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import httpx
import pytest
from cliruns import ok
from conftest import TrekRun
from playwright.sync_api import expect
from served import GM_KEY, PLAYER_KEY, Served, sample_campaign, serve

pytestmark = [pytest.mark.slow, pytest.mark.browser]

WITHIN = 2000  # ms: what the issue allows a page to take to show an event


@pytest.fixture
def served(tmp_path: Path) -> Iterator[Served]:
    db = str(tmp_path / "trek.db")
    sample_campaign(db)
    with serve(tmp_path, db) as server:
        yield server


@pytest.fixture
def pages(browser: Any, served: Served) -> Iterator[Callable[[str], Any]]:
    """Open the GM's ("gm") or the players' ("players") page, each in its own context."""
    contexts: list[Any] = []

    def open_page(which: str) -> Any:
        context = browser.new_context(viewport={"width": 1300, "height": 900})
        contexts.append(context)
        page = context.new_page()
        errors: list[str] = []
        page.on("pageerror", lambda error: errors.append(str(error)))
        page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
        page.errors = errors
        url = (f"{served.base}/?key={GM_KEY}" if which == "gm"
               else f"{served.base}/players?key={PLAYER_KEY}")
        page.goto(url)
        page.wait_for_selector("#live.on", timeout=5000)
        return page

    yield open_page
    for context in contexts:
        context.close()


def newest(page: Any) -> str:
    return str(page.locator(".entries .entry").first.inner_text())


def test_the_gm_clicks_a_square_sees_the_cost_and_confirms(
        served: Served, pages: Callable[[str], Any]) -> None:
    assert served.command(["day", "start"]).status_code == 200
    gm = pages("gm")
    gm.locator(".sub", has_text="Day 4").wait_for(timeout=WITHIN)
    # 7,1 -> 8,2 -> 9,3: two squares of open ground, the day's two
    gm.click('#map rect.cell[data-x="9"][data-y="3"]')
    ruler = gm.locator("#ruler-text")
    ruler.filter(has_text="cost 2").wait_for(timeout=5000)
    assert ruler.inner_text() == "2 squares · cost 2 · 0 left today after it"
    assert served.get("status").json()["events"] == 22  # the preview recorded nothing
    assert gm.locator(".ruler-path").count() == 1
    gm.click("#ruler-confirm")
    gm.locator(".entries .entry").first.filter(has_text="#23").wait_for(timeout=WITHIN)
    assert "Moved" in newest(gm)
    assert served.get("status").json()["position"] == {"x": 9, "y": 3}
    assert gm.errors == []


def test_every_undo_asks_the_reason_and_enter_skips_it(
        served: Served, pages: Callable[[str], Any]) -> None:
    gm = pages("gm")
    asked: list[str] = []

    def answer(reply: str | None) -> Callable[[Any], None]:
        def on(dialog: Any) -> None:
            asked.append(dialog.message)
            if reply is None:
                dialog.dismiss()
            else:
                dialog.accept(reply)
        return on

    # Ctrl+Z asks; Cancel records nothing.
    gm.once("dialog", answer(None))
    gm.keyboard.press("Control+z")
    expect(gm.locator(".entries .entry").first).to_contain_text("#21")
    assert asked == ["Undo the latest event: why? (kept in the log for the audit; Enter to "
                     "skip)"]
    assert served.get("status").json()["events"] == 21
    # Ctrl+Z with a reason keeps it.
    gm.once("dialog", answer("counted the day twice"))
    gm.keyboard.press("Control+z")
    gm.locator(".entries .entry").first.filter(has_text="#22").wait_for(timeout=WITHIN)
    [latest] = served.get("log", params={"last": "1"}).json()
    assert (latest["seq"], latest["type"], latest["cancels"], latest["reason"]) == (
        22, "EventsCancelled", [21], "counted the day twice")
    # "Undo latest" asks the same; Enter with nothing typed records the undo without one.
    gm.once("dialog", answer(""))
    gm.click("[data-undo-latest]")
    gm.locator(".entries .entry").first.filter(has_text="#23").wait_for(timeout=WITHIN)
    [latest] = served.get("log", params={"last": "1"}).json()
    assert (latest["type"], latest["reason"]) == ("EventsCancelled", None)
    assert len(asked) == 3
    assert asked[2] == asked[0]
    assert gm.errors == []


def test_ctrl_z_undoes_the_latest_and_a_row_undo_asks_the_reason(
        served: Served, pages: Callable[[str], Any]) -> None:
    gm = pages("gm")
    gm.once("dialog", lambda dialog: dialog.accept(""))
    gm.keyboard.press("Control+z")
    gm.locator(".entries .entry").first.filter(has_text="#22").wait_for(timeout=WITHIN)
    [latest] = served.get("log", params={"last": "1"}).json()
    assert (latest["seq"], latest["type"], latest["cancels"]) == (22, "EventsCancelled", [21])
    # undo #20 from its row: the reason asked is kept
    gm.once("dialog", lambda dialog: dialog.accept("misread the dice"))
    gm.click('.entry[data-seq="20"] [data-undo]')
    gm.locator(".entries .entry").first.filter(has_text="#23").wait_for(timeout=WITHIN)
    [undo] = served.get("log", params={"last": "1"}).json()
    assert (undo["cancels"], undo["reason"]) == ([20], "misread the dice")
    # and redo from the cancelled row brings it back
    gm.click('.entry[data-seq="20"] [data-redo]')
    gm.locator(".entries .entry").first.filter(has_text="#24").wait_for(timeout=WITHIN)
    [redo] = served.get("log", params={"last": "1"}).json()
    assert redo["type"] == "EventsRestored"
    assert served.get("log", params={"from": "20"}).json()[0]["cancelled_by"] is None


def test_a_refusal_on_the_page_names_the_page_s_buttons_not_commands(
        served: Served, pages: Callable[[str], Any]) -> None:
    # Day 3 is ended (the command line says "No day is open; run `trek day start` first.").
    gm = pages("gm")
    toast = gm.locator("#toast.bad")
    gm.click('[data-argv=\'["day", "end"]\']')
    expect(toast).to_have_text("No day is open; press “Start day” first.")
    # The ruler says it the same way.
    gm.click('#map rect.cell[data-x="8"][data-y="1"]')
    expect(gm.locator("#ruler-text")).to_have_text("No day is open; press “Start day” first.")
    gm.click("#ruler-cancel")
    gm.click('[data-argv=\'["day", "start"]\']')
    gm.locator(".sub", has_text="Day 4").wait_for(timeout=WITHIN)
    gm.click('[data-argv=\'["day", "start"]\']')
    expect(toast).to_have_text("Day 4 is still open; press “End day” first.")
    # A command without a button is named by the words the command box takes.
    gm.fill("#command-words", "encounter round")
    gm.press("#command-words", "Enter")
    expect(toast).to_have_text("No encounter is open; “encounter start NAME” opens one.")
    assert "trek " not in gm.locator("#toast").inner_text()
    # An unknown option: the command's own options, and no --help the box would refuse.
    gm.fill("#command-words", "move --quick")
    gm.press("#command-words", "Enter")
    expect(toast).to_have_text("“move” has no option --quick; its own options are --to, "
                               "--through-hazard and --party.")
    assert served.get("status").json()["events"] == 22
    # (the browser notes each refused request, a 422 or a 400, in its console)
    assert [e for e in gm.errors if "Failed to load resource" not in e] == []


def test_the_players_page_follows_the_gm_without_a_reload(
        served: Served, pages: Callable[[str], Any]) -> None:
    players = pages("players")
    gm = pages("gm")
    assert "at 7,1" in players.locator(".sub").inner_text()
    gm.click('[data-argv=\'["day", "start"]\']')
    players.locator(".sub", has_text="Day 4").wait_for(timeout=WITHIN)
    assert served.command(["move", "E", "E"]).status_code == 200
    players.locator(".sub", has_text="at 9,1").wait_for(timeout=WITHIN)
    assert players.errors == []


def test_a_command_of_the_trek_cli_appears_on_both_pages(
        served: Served, pages: Callable[[str], Any],
        trek_cli: Callable[..., TrekRun]) -> None:
    gm, players = pages("gm"), pages("players")
    ok(trek_cli("undo", "--reason", "the GM's own note", db=served.db))
    for page in (gm, players):
        page.locator(".entries .entry").first.filter(has_text="#22").wait_for(timeout=WITHIN)
    assert "the GM's own note" in newest(gm)
    assert "the GM's own note" not in players.content()


def test_the_players_page_has_no_controls_and_its_secret_cannot_record(
        served: Served, pages: Callable[[str], Any]) -> None:
    players = pages("players")
    # The only buttons are the map's own view (fit, zoom), which record nothing.
    for control in ("[data-argv]", "[data-undo]", "[data-redo]", "#ruler",
                    "button:not(.map-tool)"):
        assert players.locator(control).count() == 0, control
    assert players.locator("button.map-tool").count() == 3
    status = players.evaluate(
        """async (key) => (await fetch('/api/campaigns/ashes-road/commands', {method: 'POST',
             headers: {'Authorization': 'Bearer ' + key, 'Content-Type': 'application/json'},
             body: JSON.stringify({argv: ['day', 'start']})})).status""", PLAYER_KEY)
    assert status == 403
    players.keyboard.press("Control+z")
    players.wait_for_timeout(500)
    assert served.get("status").json()["events"] == 21


def test_hostile_names_render_as_text(served: Served, pages: Callable[[str], Any]) -> None:
    hostile = "<script>alert(1)</script><b>x"
    assert served.command(["roster", "add-character", hostile, "--body", "4", "--mind", "4",
                           "--soul", "4"]).status_code == 200
    for page in (pages("gm"), pages("players")):
        dialogs: list[str] = []
        page.on("dialog", lambda dialog, seen=dialogs: (seen.append(dialog.message),
                                                         dialog.dismiss()))
        page.reload()
        page.wait_for_selector("#live.on", timeout=5000)
        assert page.locator(".roster .name", has_text=hostile).count() == 1
        assert page.locator(".roster script, .roster b").count() == 0
        assert page.locator(".entries .entry").first.inner_text().count(hostile) == 1
        assert dialogs == []


def test_the_rulesets_day_actions_and_any_command_from_the_form(
        served: Served, pages: Callable[[str], Any]) -> None:
    gm = pages("gm")
    labels = gm.locator(".actions [data-argv]").all_inner_texts()
    # BESM's own commands that take no word sit between the day's start and end
    assert labels == ["Start day", "Forced march", "Night travel", "Forage", "End day"]
    gm.fill("#command-words", 'supplies add provisions=2')
    gm.press("#command-words", "Enter")
    gm.locator(".entries .entry").first.filter(has_text="#22").wait_for(timeout=WITHIN)
    assert served.get("status").json()["supplies"]["provisions"] == 5
    # (emptied when the answer comes back, which may be after the stream drew the entry)
    expect(gm.locator("#command-words")).to_have_value("")
    # a refusal is told, and records nothing
    gm.fill("#command-words", 'shortcut "Kessel Pass"')
    gm.press("#command-words", "Enter")
    gm.locator("#toast.bad").wait_for(timeout=WITHIN)
    assert served.get("status").json()["events"] == 22


def test_the_round_panel_runs_a_fight_and_the_players_follow(
        browser: Any, tmp_path: Path, trek_run: Callable[..., TrekRun]) -> None:
    """A Shadowrun fight on the table: the GM's page offers the next round, the next pass and
    a sprint on each fighter's row; the players' page shows the same panel without them, and
    both follow each click within the 2 s the issue allows."""
    db = str(tmp_path / "fight.db")
    for words in (("init", "Seattle", "--ruleset", "shadowrun", "--seed", "7"),
                  ("roster", "add-character", "Kira", "--quickness", "5", "--metatype", "elf",
                   "--skill", "athletics=3"),
                  ("encounter", "start", "Alley"),
                  ("encounter", "join", "Kira", "--at", "0,0"),
                  ("encounter", "add", "Ganger", "--side", "enemy", "--at", "5,1",
                   "--quickness", "4", "--metatype", "ork"),
                  ("encounter", "round", "--passes", "Kira=2")):
        ok(trek_run(*words, db=db))
    with serve(tmp_path, db) as server:
        pages = []
        for url in (f"{server.base}/?key={GM_KEY}", f"{server.base}/players?key={PLAYER_KEY}"):
            context = browser.new_context(viewport={"width": 1300, "height": 900})
            page = context.new_page()
            errors: list[str] = []
            page.on("pageerror", lambda error, errors=errors: errors.append(str(error)))
            page.goto(url)
            page.wait_for_selector("#live.on", timeout=5000)
            pages.append((page, errors))
        (gm, gm_errors), (players, player_errors) = pages
        rows = gm.locator(".round-panel tbody tr")
        assert rows.count() == 2
        assert [rows.nth(i).locator("td.label").inner_text() for i in range(2)] == ["K", "G"]
        assert gm.locator(".round-panel .row-actions button", has_text="Sprint").count() == 2
        assert players.locator(".round-panel tbody tr").count() == 2
        assert players.locator(".round-panel button, nav.actions").count() == 0
        # No overland buttons while the fight runs.
        assert gm.locator("nav.actions button", has_text="Start day").count() == 0
        gm.click("nav.actions button:text-is('Pass')")
        for page in (gm, players):
            page.locator("#round", has_text="pass 2").wait_for(timeout=WITHIN)
        gm.click("nav.actions button:text-is('Next round')")
        for page in (gm, players):
            page.locator("#round", has_text="round 2").wait_for(timeout=WITHIN)
        gm.locator('.round-panel tr[data-name="Kira"] button', has_text="Sprint").click()
        gm.locator(".entries .entry").first.filter(has_text="Kira sprints").wait_for(
            timeout=WITHIN)
        [sprint] = httpx.get(f"{server.base}/api/campaigns/seattle/log", params={"last": "1"},
                             headers={"Authorization": f"Bearer {GM_KEY}"}, timeout=30).json()
        assert (sprint["type"], sprint["name"]) == ("Sprinted", "Kira")
        assert gm_errors == []
        assert player_errors == []


def test_an_event_recorded_while_the_page_loads_is_drawn(browser: Any, served: Served) -> None:
    """The page is drawn at event 21; event 22 is recorded before its stream opens. The stream
    starts after the page's last event (not with the next one recorded), so 22 is drawn."""
    context = browser.new_context(viewport={"width": 1300, "height": 900})
    try:
        page = context.new_page()
        opened: list[str] = []

        def record_first(route: Any) -> None:
            if not opened:
                assert served.command(["day", "start"]).status_code == 200
            opened.append(route.request.url)
            route.continue_()

        page.route("**/events?*", record_first)
        page.goto(f"{served.base}/players?key={PLAYER_KEY}")
        page.locator(".entries .entry").first.filter(has_text="#22").wait_for(timeout=WITHIN)
        page.locator(".sub", has_text="Day 4").wait_for(timeout=WITHIN)
        assert "last_event_id=21" in opened[0]
    finally:
        context.close()
