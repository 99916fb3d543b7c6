"""The session recap: a campaign played by hand, its recap worked out from the rules; the
Markdown escaper against a real CommonMark + GFM renderer.

The journey: the README's day 1 (events 1 to 14, no session), then session 1 plays day 2 and
session 2 holds a fight. Every number is worked out in the comments from docs/rules.md §3.
"""

from __future__ import annotations

import html
import re
from collections.abc import Callable

import pytest
from hypothesis import given
from hypothesis import strategies as st
from journeys import record_full_day
from markdown_it import MarkdownIt

from cli.recap import html_page, markdown, md_escape
from domain.besm.commands import Forage, ForcedMarch
from domain.commands.days import DayEndOptions, EndDay, StartDay
from domain.commands.encounter import (
    EndEncounter,
    EnterCombatant,
    MoveCombatant,
    StartEncounter,
    StartRound,
)
from domain.commands.history import Undo
from domain.commands.roster import Harm
from domain.commands.sessions import EndSession, StartSession
from domain.commands.travel import Move, MoveOptions
from domain.errors import NotFound
from domain.geometry import Square
from tracker.app import Trek

OpenTrek = Callable[..., Trek]


def two_sessions(trek: Trek) -> None:
    # After day 1 (see tests/journeys.py): the party at 6,1; Dusty strained to level 0, Kira
    # at 44/50 Health and 45/45 Energy, Oren full; 4 set + 2 foraged - 2 marched = 4
    # provisions, and 2 ammo.
    record_full_day(trek)                                                  # 1-14
    trek.handle(None, StartSession("Into the *Reach* | <b>"))                     # 15
    # Base movement: Dusty at level 0 moves 1, Bramble (ground-speed 1) 2: the lowest is 1.
    trek.handle(None, StartDay())                                      # 16: day 2, budget 1
    # Forager: Oren, Body-Mind (5+6)/2 = 5 + survival 2 = 7 (Kira: 5 + 1 = 6). Roll 4 against
    # 7: 3 points, 3 provisions; the forage uses the day's one square.
    trek.handle(None, Forage(roll=4))                                      # 17
    # Two mounts: 2 provisions. Kira rides Dusty: Body-Soul (6+4)/2 = 5 + ride 2 = 7, rolls 9:
    # Dusty +1 pending. Oren: 5 + 0 = 5, rolls 5: fine. The budget grows by 1.
    trek.handle(None, ForcedMarch(rolls={"Kira": 9, "Oren": 5}))           # 18
    trek.handle(None, Move(MoveOptions(steps=("E",))))                             # 19: 6,1 -> 7,1
    trek.handle(None, Harm("Oren", 10, 0, "a fall"))                               # 20
    trek.handle(None, Undo(20, reason="it was Kira, not Oren"))                    # 21
    # Dusty's pending point lands: level 0 - 1 is below 0, dead; Kira on foot. Camp rest: Kira
    # Health 44 + Body 6 = 50 (her maximum), Energy already full; Oren full, nothing.
    trek.handle(None, EndDay(DayEndOptions()))                                    # 22
    trek.handle(None, EndSession())                                                 # 23
    trek.handle(None, StartSession(None))                                         # 24
    trek.handle(None, StartEncounter("Ford_of *Ash*", None))                      # 25
    trek.handle(None, EnterCombatant(name="Kira", at=Square(0, 0)))   # 26
    trek.handle(None, StartRound())                                   # 27: round 1
    trek.handle(None, MoveCombatant(name="Kira", steps=("E",)))    # 28
    trek.handle(None, StartRound())                                   # 29: round 2
    trek.handle(None, EndEncounter())                                               # 30


def test_recap_of_a_session_counts_what_was_played(store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    two_sessions(trek)
    doc = trek.queries.recap(None, 1)
    assert (doc["campaign"], doc["session"], doc["title"], doc["whole_campaign"]) == (
        "ashes-road", 1, "Into the *Reach* | <b>", False)
    assert doc["events"] == {"first": 15, "last": 23, "count": 9}
    assert doc["days"] == [2]
    # One square east on a map of 6 miles a square.
    assert doc["distance"] == {"squares": 1, "miles": 6, "square_miles": 6}
    assert doc["supplies"] == {"gained": {"provisions": 3}, "spent": {"provisions": 2}}
    sections = doc["sections"]
    assert [(x["seq"], x["conveyance"], x["pending_added"], x["levels_lost"])
            for x in sections["strain"]] == [(18, "Dusty", 1, 0), (22, "Dusty", 0, 1)]
    assert [(d["seq"], d["day"], d["conveyance"], d["state"])
            for d in sections["deaths"]] == [(22, 2, "Dusty", "dead")]
    assert sections["repairs"] == []
    assert doc["rests"] == [{"seq": 22, "day": 2, "character": "Kira", "health": 6,
                             "energy": 0}]
    assert doc["fights"] == []
    assert [(n["seq"], n["text"]) for n in doc["notes"]] == [
        (17, "Forage: +3 provisions"), (18, "Forced march: +1 squares, Dusty strained")]
    [fix] = doc["corrections"]
    assert (fix["seq"], fix["action"], fix["events"], fix["reason"]) == (
        21, "undo", [{"seq": 20, "type": "Harmed"}], "it was Kira, not Oren")


def test_the_default_is_the_latest_session_and_a_fight_counts_its_rounds(
        store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    two_sessions(trek)
    doc = trek.queries.recap(None)
    assert (doc["session"], doc["title"], doc["days"]) == (2, None, [])
    # The step inside the fight is on the battle map, not overland travel.
    assert doc["distance"]["squares"] == 0
    assert doc["fights"] == [{"seq": 25, "name": "Ford_of *Ash*", "started": True,
                              "rounds": [1, 2], "ended": True}]
    with pytest.raises(NotFound, match="no session 3; ashes-road has sessions 1 to 2"):
        trek.queries.recap(None, 3)


def test_a_campaign_without_sessions_is_recapped_whole(store: str, open_trek: OpenTrek
                                                       ) -> None:
    trek = open_trek(store, create=True)
    record_full_day(trek)
    doc = trek.queries.recap(None)
    assert (doc["session"], doc["whole_campaign"], doc["days"]) == (None, True, [1])
    # E E E and on to 6,1 (2 more): 5 squares, 30 miles; 2 provisions foraged and 2 marched.
    # The opening `supplies set` (4 provisions, 2 ammo) states the stock: nothing gained.
    assert doc["distance"] == {"squares": 5, "miles": 30, "square_miles": 6}
    assert doc["supplies"] == {"gained": {"provisions": 2}, "spent": {"provisions": 2}}
    # Kira: 50 - 12 = 38 Health + Body 6; 45 - 20 = 25 Energy + 4 an hour for 8 hours, capped
    # at 45: +20.
    assert doc["rests"] == [{"seq": 14, "day": 1, "character": "Kira", "health": 6,
                             "energy": 20}]
    assert markdown(doc).startswith("# Ashes Road: the whole campaign (no sessions yet)\n")


def test_markdown_of_the_session(store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    two_sessions(trek)
    text = markdown(trek.queries.recap(None, 1))
    lines = text.splitlines()
    assert lines[0] == r"# Session 1: Into the \*Reach\* \| \<b\>"
    # One day played in the session, day 2 of the campaign: one day travelled, not two.
    assert "- Days travelled: 1 (day 2)" in lines
    assert "- Distance: 1 square, 6 miles (6 miles a square)" in lines
    assert "| provisions | 3 | 2 |" in lines
    assert "- Day 2: **Dusty dead** (#22)" in lines
    assert "| 2 | Kira | +6 | +0 |" in lines
    assert "- #21 undo of #20 Harmed by gm\\-test: it was Kira, not Oren" in lines
    rendered = MarkdownIt("commonmark").enable("table").render(text)
    assert "<h1>Session 1: Into the *Reach* | &lt;b&gt;</h1>" in rendered
    assert "<td>provisions</td>" in rendered


def test_html_escapes_every_name(store: str, open_trek: OpenTrek) -> None:
    trek = open_trek(store, create=True)
    two_sessions(trek)
    page = html_page(trek.queries.recap(None, 1))
    assert "<b>" not in page
    assert "Into the *Reach* | &lt;b&gt;" in page


# -- the Markdown escaper -------------------------------------------------------------------------

_RENDERER = MarkdownIt("commonmark").enable("table")


def _inline_text(source: str) -> str:
    """What a reader sees of one rendered paragraph: its text with the tags taken off."""
    rendered = _RENDERER.render(source).strip()
    if not rendered:
        return ""
    match = re.fullmatch(r"<p>(.*)</p>", rendered, re.DOTALL)
    assert match, rendered
    return html.unescape(match.group(1))


def _shown(text: str) -> str:
    """What the escaper promises to keep: the words, whitespace runs as one space, no
    control characters."""
    return " ".join("".join(ch for ch in text if ch.isprintable() or ch.isspace()).split())


@given(st.text())
def test_escaped_text_renders_as_itself(text: str) -> None:
    assert _inline_text("x " + md_escape(text) + " x") == "x " + _shown(text) + " x"


@given(st.text(), st.text())
def test_escaped_text_keeps_a_table_row_to_its_cells(left: str, right: str) -> None:
    source = f"| a | b |\n| --- | --- |\n| {md_escape(left)} | {md_escape(right)} |\n"
    rendered = _RENDERER.render(source)
    cells = re.findall(r"<td>(.*?)</td>", rendered, re.DOTALL)
    assert [html.unescape(c) for c in cells] == [_shown(left), _shown(right)]


@given(st.text(alphabet="*_|<>`[]()#!\\&-+=.:@$~^{},;?/'\"% \nab1", max_size=40))
def test_escaped_markup_characters_are_literal(text: str) -> None:
    # Random text seldom hits a construct; this alphabet is nothing but markup and near-misses.
    assert _inline_text("x " + md_escape(text) + " x") == "x " + _shown(text) + " x"


@given(st.text(min_size=1))
def test_an_escaped_name_stays_whole_inside_emphasis_and_a_heading(text: str) -> None:
    escaped = md_escape(text)
    if not escaped:
        return
    rendered = _RENDERER.render(f"# Session 1: {escaped}\n\n*{escaped}* · besm\n")
    match = re.fullmatch(r"<h1>Session 1: (.*)</h1>\n<p><em>(.*)</em> · besm</p>\n", rendered,
                         re.DOTALL)
    assert match, rendered
    assert [html.unescape(g) for g in match.groups()] == [_shown(text)] * 2
