"""What a GM types and Trek must refuse, or say plainly: a name given twice to a NAME=VALUE
option, options that cannot go together, a GM name with a control character, and the
sentences that used to show click's internals or an empty table.

Each refusal is checked against the store read without Trek: a refused command records nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest
from cliruns import ok, recorded, refused
from conftest import TrekRun

Run = Callable[..., TrekRun]


def stored_events(db: Path) -> list[tuple[int, bytes]]:
    """Every stored event row, read without Trek."""
    with sqlite3.connect(f"file:{db}?mode=ro", uri=True) as conn:
        return [(int(v), bytes(s)) for v, s in conn.execute(
            "SELECT originator_version, state FROM stored_events ORDER BY rowid")]


@pytest.fixture
def party(trek_run: Run, tmp_path: Path) -> Path:
    """A BESM campaign with Kira riding Dusty and Oren driving a cart, one day open."""
    ok(trek_run("init", "Ashes Road", "--seed", "7"))
    ok(trek_run("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "5",
                "--skill", "ride=2"))
    ok(trek_run("roster", "add-character", "Oren", "--body", "5", "--mind", "6", "--soul", "4",
                "--skill", "drive=1"))
    ok(trek_run("roster", "add-mount", "Dusty", "--move", "ground-speed=1", "--rider", "Kira"))
    ok(trek_run("roster", "add-vehicle", "Cart", "--move", "ground-speed=1", "--driver", "Oren"))
    ok(trek_run("supplies", "set", "provisions=5", "fuel=5"))
    ok(trek_run("day", "start"))
    return tmp_path / "trek.db"


# -- 1. a name given twice -----------------------------------------------------------------------

TWICE = [
    (("roster", "add-character", "Xa", "--body", "5", "--mind", "5", "--soul", "5",
      "--skill", "ride=1", "--skill", "ride=2"), "ride", "--skill"),
    (("roster", "add-character", "Xa", "--body", "5", "--mind", "5", "--soul", "5",
      "--attribute", "ground-speed=1", "--attribute", "ground-speed=2"), "ground-speed",
     "--attribute"),
    (("day", "end", "--rest", "Kira=camp", "--rest", "Kira=none"), "Kira", "--rest"),
    (("forced-march", "--roll", "Kira=9", "--roll", "Kira=3"), "Kira", "--roll"),
    (("supplies", "set", "provisions=1", "provisions=2"), "provisions", "supply"),
    (("supplies", "add", "ammo=1", "ammo=2"), "ammo", "supply"),
    (("supplies", "spend", "fuel=1", "fuel=1"), "fuel", "supply"),
]


@pytest.mark.parametrize(("args", "name", "where"), TWICE)
def test_a_name_given_twice_is_refused_and_nothing_is_recorded(
        trek_run: Run, party: Path, args: tuple[str, ...], name: str, where: str) -> None:
    before = stored_events(party)
    refused(trek_run(*args), f"{name} is given twice", where)
    assert stored_events(party) == before


def test_the_same_name_in_two_spellings_is_two_names(trek_run: Run, party: Path) -> None:
    # Names are matched exactly: ride and Ride are two skills, so both are kept.
    event = recorded(trek_run("roster", "add-character", "Xa", "--body", "5", "--mind", "5",
                              "--soul", "5", "--skill", "ride=1", "--skill", "Ride=2",
                              "--json"), 8, "CharacterAdded")
    assert event["skills"] == {"ride": 1, "Ride": 2}


def test_a_name_given_once_to_each_of_two_options_is_not_twice(trek_run: Run,
                                                               party: Path) -> None:
    event = recorded(trek_run("roster", "add-character", "Xa", "--body", "5", "--mind", "5",
                              "--soul", "5", "--skill", "ride=1", "--attribute", "ride=2",
                              "--json"), 8, "CharacterAdded")
    assert event["skills"] == {"ride": 1}
    assert event["attributes"] == {"ride": 2}


def test_a_terrain_word_given_twice_is_refused_before_any_store_exists(
        trek_run: Run, tmp_path: Path) -> None:
    (tmp_path / "wild.txt").write_text("0101 woods\n", encoding="utf-8")
    refused(trek_run("init", "Wild", "--map", "wild.txt", "--terrain", "woods=difficult",
                     "--terrain", "woods=open"), "woods is given twice", "--terrain")
    assert not (tmp_path / "trek.db").exists()


def test_shadowrun_passes_for_one_combatant_twice_are_refused(trek_run: Run,
                                                             tmp_path: Path) -> None:
    ok(trek_run("init", "Run", "--ruleset", "shadowrun"))
    ok(trek_run("encounter", "start", "Alley"))
    ok(trek_run("encounter", "add", "Kira", "--side", "ally", "--at", "0,0",
                "--quickness", "5"))
    before = stored_events(tmp_path / "trek.db")
    refused(trek_run("encounter", "round", "--passes", "Kira=2", "--passes", "Kira=3"),
            "Kira is given twice", "--passes")
    assert stored_events(tmp_path / "trek.db") == before


def test_movepoints_full_move_of_one_type_twice_is_refused(trek_run: Run,
                                                          tmp_path: Path) -> None:
    ok(trek_run("init", "Points", "--ruleset", "movepoints"))
    ok(trek_run("encounter", "start", "Hall"))
    before = stored_events(tmp_path / "trek.db")
    # A bare N is the land Full Move, so `6` and `land=4` name the same type.
    refused(trek_run("encounter", "add", "Gob", "--side", "enemy", "--at", "0,0",
                     "--full-move", "6", "--full-move", "land=4"),
            "land is given twice", "--full-move")
    assert stored_events(tmp_path / "trek.db") == before


# -- 3. the GM name ------------------------------------------------------------------------------

BEL_GM = "evil\x07gm"


def test_a_gm_name_with_a_bell_is_refused_and_reaches_neither_store_nor_recap(
        trek_run: Run, party: Path) -> None:
    before = stored_events(party)
    refused(trek_run("--gm", BEL_GM, "supplies", "add", "provisions=1"), "GM name",
            "U+0007")
    refused(trek_run("supplies", "add", "provisions=1", env={"TREK_GM": BEL_GM}), "GM name")
    assert stored_events(party) == before
    assert all(b"\x07" not in state for _, state in stored_events(party))
    page = ok(trek_run("recap", "--format", "html")).stdout
    assert "\x07" not in page
    assert "evil" not in page


def test_a_refused_gm_name_opens_no_store(trek_run: Run, tmp_path: Path) -> None:
    refused(trek_run("--gm", BEL_GM, "init", "Ashes Road"), "GM name")
    assert not (tmp_path / "trek.db").exists()
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("gm", "fragment"), [
    ("x" * 41, "at most 40"),
    ("a=b", "'='"),
    (" gm", "space"),
    ("", "empty"),
    ("two\nlines", "U+000A"),
])
def test_the_gm_name_gets_the_checks_of_every_name(trek_run: Run, party: Path, gm: str,
                                                   fragment: str) -> None:
    before = stored_events(party)
    refused(trek_run("--gm", gm, "day", "end"), "GM name", fragment)
    assert stored_events(party) == before


def test_the_os_user_default_gets_the_same_checks(trek_run: Run, party: Path) -> None:
    before = stored_events(party)
    # Without --gm or TREK_GM the OS user's name is stamped; getpass reads LOGNAME first.
    refused(trek_run("day", "end", env={"TREK_GM": None, "LOGNAME": BEL_GM}),
            "GM name", "OS user", "--gm NAME")
    assert stored_events(party) == before
    recorded(trek_run("day", "end", "--json", env={"TREK_GM": None, "LOGNAME": "Ines"}),
             len(before) + 1, "DayEnded")


def test_a_good_gm_name_is_stamped_as_given(trek_run: Run, party: Path) -> None:
    ok(trek_run("--gm", "Ines Ü", "day", "end"))
    entries = ok(trek_run("log", "--json")).json()
    assert entries[-1]["gm"] == "Ines Ü"
