"""`trek plan` through the command line: figures worked by hand from RULES §3 and §5.

Each probability below is worked from the rules and checked within four standard errors of the
plan's share (10,000 trials, a fixed seed). Every plan must leave the store as it found it.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from cliruns import ok, refused
from conftest import TrekRun

Run = Callable[..., TrekRun]

ROOT = Path(__file__).resolve().parents[2]
STRIP = """\
[map]
name = "The Long Strip"
rows = ["...................."]

[legend]
"." = { terrain = "open" }
"""
WALLED = """\
[map]
name = "Walled"
rows = [".^..", ".^.."]

[legend]
"." = { terrain = "open" }
"^" = { terrain = "feature", name = "cliffs" }
"""
TRIALS = 10_000


def within(share: float, p: float, trials: int = TRIALS) -> bool:
    """`share` of `trials` lies within four standard errors of the probability `p`."""
    return abs(share - p) <= 4 * math.sqrt(p * (1 - p) / trials) + 1e-12


def play(run: Run, *commands: tuple[str, ...], db: str | None = None) -> None:
    for args in commands:
        ok(run(*args, db=db))


def strip_campaign(run: Run, tmp_path: Path, *extra: tuple[str, ...],
                   db: str | None = None) -> None:
    """Kira on foot at 0,0 of a one-row open strip: ground-speed 1 is a base movement of 2;
    her night travel target is Mind 5 + navigation 2 = 7; her ride target Body-Soul 5 +
    ride 2 = 7."""
    (tmp_path / "strip.toml").write_text(STRIP)
    play(run, ("init", "Strip", "--map", str(tmp_path / "strip.toml"), "--at", "0,0",
               "--seed", "5"),
         ("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4",
          "--skill", "navigation=2", "--skill", "ride=2", "--skill", "medicine=2",
          "--attribute", "ground-speed=1"),
         *extra, db=db)


def events(run: Run, db: str | None = None) -> int:
    return int(ok(run("status", "--json", db=db)).json()["events"])


def plan(run: Run, *args: str, db: str | None = None) -> dict[str, Any]:
    before = events(run, db)
    doc = ok(run("plan", *args, "--json", db=db)).json()
    assert events(run, db) == before, "a plan records nothing"
    return dict(doc)


def test_night_travel_adds_the_base_or_one_square_and_the_odds_follow(
        trek_run: Run, tmp_path: Path) -> None:
    # given base movement 2 and night travel at target 7: success (21 in 36) adds 2 squares,
    # any failure adds max(1, 2 - F) = 1; so each day covers 4 or 3 squares
    strip_campaign(trek_run, tmp_path)
    p = 21 / 36

    # when the party plans 11 squares east, travelling by night every day
    doc = plan(trek_run, "--to", "11,0", "--night", "--days", "4", "--seed", "3")

    # then by day 2 at most 8 squares: nobody arrives; by day 3 (9 to 12 squares) two
    # successes in three nights are needed; by day 4 everyone is there (at least 12)
    shares = {d["day"]: d["arrived"] for d in doc["days"]}
    assert doc["trials"] == TRIALS
    assert doc["certain"] is False
    assert doc["to"] == [11, 0]
    assert doc["seed"] == 3
    assert shares[1] == shares[2] == 0
    by_day_3 = p ** 3 + 3 * p ** 2 * (1 - p)
    assert by_day_3 == pytest.approx(1078 / 1728)
    assert within(shares[3], by_day_3)
    assert shares[4] == 1
    assert doc["most_likely_day"] == 3
    assert doc["arrived"] == 1


def test_a_forced_march_on_a_spent_mount_kills_it_as_often_as_the_rider_fails(
        trek_run: Run, tmp_path: Path) -> None:
    # given Kira riding Dusty at ground-speed 0 (it moves 1), 3 provisions: one forced march
    # costs 1 provisions, adds 1 square, and a failed ride roll (15 in 36 at target 7)
    # strains Dusty below level 0: dead when the day ends
    strip_campaign(trek_run, tmp_path,
                   ("roster", "add-mount", "Dusty", "--move", "ground-speed=0", "--rider",
                    "Kira"),
                   ("supplies", "set", "provisions=3"))

    # when the party plans two squares with one forced march a day, for one day
    doc = plan(trek_run, "--to", "2,0", "--forced-march", "1", "--days", "1")

    # then it always arrives on day 1 with 2 provisions left, and Dusty dies that night
    # as often as the roll fails
    assert doc["days"] == [{"day": 1, "arrived": 1.0}]
    assert doc["on_arrival"]["provisions"] == {"expected": 2.0, "worst_decile": 2}
    assert doc["losses"]["Dusty"]["kind"] == "mount"
    assert doc["losses"]["Dusty"]["fate"] == "dead"
    assert within(doc["losses"]["Dusty"]["chance"], 15 / 36)


def test_a_plan_with_nothing_to_roll_is_certain_and_played_once(
        trek_run: Run, tmp_path: Path) -> None:
    # given base movement 2 and no policy that rolls
    strip_campaign(trek_run, tmp_path)

    # when the party plans 5 squares
    doc = plan(trek_run, "--to", "5,0", "--days", "4")

    # then 2 squares a day: there on day 3, certainly
    assert doc["certain"] is True
    assert doc["trials"] == 1
    assert [d["arrived"] for d in doc["days"]] == [0, 0, 1, 1]
    assert doc["arrival"]["day"] == 3
    text = ok(trek_run("plan", "--to", "5,0", "--days", "4")).stdout
    assert "Certain: arrives on day 3." in text


def test_the_plan_starts_on_the_open_day_with_what_is_left_of_it(
        trek_run: Run, tmp_path: Path) -> None:
    strip_campaign(trek_run, tmp_path, ("day", "start"), ("move", "E"))

    # one square of day 1 is left: 2 + 1 square by day 1, 4 by day 2... of 4 squares
    doc = plan(trek_run, "--to", "4,0", "--days", "3")

    assert [(d["day"], d["arrived"]) for d in doc["days"]] == [(1, 0), (2, 1), (3, 1)]
    assert doc["from"] == [1, 0]
    # --as-of plans from the state right after an event: before the move, from 0,0
    earlier = plan(trek_run, "--to", "4,0", "--days", "3", "--as-of", "3")
    assert earlier["from"] == [0, 0]
    assert [d["arrived"] for d in earlier["days"]] == [0, 1, 1]


def test_cypher_long_term_travel_is_certain_and_exact(trek_run: Run) -> None:
    # given Ana on foot on the Road to Qi: the cheapest way to 6,0 is the road square
    # (6 miles at 20 a day: 3/10) then five open squares (6 at 12: 1/2 each) = 14/5 days
    play(trek_run, ("init", "Qi", "--ruleset", "cypher", "--map",
                    str(ROOT / "docs" / "examples" / "road-to-qi.toml")),
         ("roster", "add-character", "Ana", "--might", "12", "--speed", "10"))

    doc = plan(trek_run, "--to", "6,0", "--days", "4")

    assert doc["certain"] is True
    assert doc["trials"] == 1
    assert [d["arrived"] for d in doc["days"]] == [0, 0, 1, 1]
    assert doc["arrival"] == {"day": 3, "spent": "4/5", "exact": "14/5",
                              "journey_days": "14/5"}
    text = ok(trek_run("plan", "--to", "6,0")).stdout
    assert "4/5 of the way through it (the journey takes 14/5 days)" in text
    refused(trek_run("plan", "--to", "6,0", "--night"), "Cypher long-term travel has no")


def test_the_same_seed_gives_the_same_figures(trek_run: Run, tmp_path: Path) -> None:
    strip_campaign(trek_run, tmp_path)
    args = ("--to", "11,0", "--night", "--days", "4", "--trials", "500")

    first = plan(trek_run, *args, "--seed", "9")
    again = plan(trek_run, *args, "--seed", "9")
    other = plan(trek_run, *args, "--seed", "10")
    by_default = plan(trek_run, *args)

    assert first == again
    assert first["days"] != other["days"]
    # without --seed the campaign's seed (5) is the plan's
    assert by_default["seed"] == 5
    assert by_default == plan(trek_run, *args, "--seed", "5")


def test_refusals_say_why_and_record_nothing(trek_run: Run, tmp_path: Path) -> None:
    missing = tmp_path / "none.db"
    refused(trek_run("plan", "--to", "1,1", db=str(missing)), "no Trek store")
    assert not missing.exists()
    refused(trek_run("plan", "--to", "1,1", "--trials", "0", db=str(missing)), "--trials")
    refused(trek_run("plan", "--to", "1,1", "--days", "366", db=str(missing)), "--days")
    refused(trek_run("plan", "--to", "1,1", "--seed", "-1", db=str(missing)), "--seed")
    assert not missing.exists()

    (tmp_path / "walled.toml").write_text(WALLED)
    play(trek_run, ("init", "Walled", "--map", str(tmp_path / "walled.toml"), "--at", "0,0"),
         ("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4"))
    before = events(trek_run)
    for args, why in [
        (("--to", "9,9"), "9,9 is off the map"),
        (("--to", "3,1"), "no legal path reaches 3,1"),
        (("--to", "0,0"), "already stands on 0,0"),
        (("--to", "0,1", "--trials", "100001"), "--trials is 1 to 100000"),
        (("--to", "0,1", "--days", "0"), "--days is 1 to 365"),
        (("--to", "0,1", "--forced-march", "1"), "--forced-march cannot be followed"),
        (("--to", "0,1", "--as-of", "99"), "no event 99"),
    ]:
        refused(trek_run("plan", *args), why)
    assert events(trek_run) == before
    ok(trek_run("encounter", "start", "Ambush"))
    refused(trek_run("plan", "--to", "0,1"), "the encounter Ambush is open")


def test_a_ruleset_without_overland_travel_is_refused(trek_run: Run, tmp_path: Path) -> None:
    db = str(tmp_path / "gurps.db")
    ok(trek_run("init", "Hexes", "--ruleset", "gurps", db=db))
    refused(trek_run("plan", "--to", "1,1", db=db), "gurps ruleset has no overland travel")


def test_the_svg_shades_the_squares_trials_passed(trek_run: Run, tmp_path: Path) -> None:
    strip_campaign(trek_run, tmp_path)
    picture = tmp_path / "plan.svg"
    before = sorted(p.name for p in tmp_path.iterdir())

    doc = plan(trek_run, "--to", "11,0", "--night", "--days", "2", "--trials", "200",
               "--svg", str(picture))

    assert sorted(p.name for p in tmp_path.iterdir()) == sorted([*before, "plan.svg"])
    svg = picture.read_text()
    assert doc["svg"] == str(picture)
    # every trial passes the first 6 squares in two days; none reaches 9,0 (8 at most)
    shares = {(s["x"], s["y"]): s["share"] for s in doc["squares"]}
    assert all(shares[(x, 0)] == 1 for x in range(7))
    assert (9, 0) not in shares
    assert 'class="planned" data-x="6" data-y="0" data-share="1.0000"' in svg
    assert 'data-x="9" data-y="0" data-share' not in svg
    assert 'class="plan-target"' in svg


def test_the_picture_escapes_what_the_gm_typed(trek_run: Run, tmp_path: Path) -> None:
    (tmp_path / "strip.toml").write_text(STRIP)
    play(trek_run, ("init", "<b>Raid</b>", "--map", str(tmp_path / "strip.toml"), "--at", "0,0"),
         ("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4"))

    plan(trek_run, "--to", "3,0", "--svg", str(tmp_path / "raid.svg"))

    svg = (tmp_path / "raid.svg").read_text()
    assert "<b>" not in svg
    assert "&lt;b&gt;Raid&lt;/b&gt;" in svg


@pytest.mark.parametrize("where", ["sqlite", pytest.param("postgres",
                                                          marks=pytest.mark.postgres)])
def test_a_plan_reads_either_store_and_leaves_it_as_it_was(
        trek_run: Run, tmp_path: Path, where: str, request: pytest.FixtureRequest) -> None:
    db = str(tmp_path / "s.db") if where == "sqlite" else str(request.getfixturevalue("pg_url"))
    strip_campaign(trek_run, tmp_path, db=db)
    log = ok(trek_run("log", "--json", db=db)).stdout

    doc = plan(trek_run, "--to", "11,0", "--night", "--days", "4", "--seed", "3", db=db)

    assert within(doc["days"][2]["arrived"], 1078 / 1728)
    assert ok(trek_run("log", "--json", db=db)).stdout == log


def test_a_campaign_without_a_map_plans_across_an_open_plain(trek_run: Run) -> None:
    # ground-speed 50 is 100 squares a day; 250 squares away is reached on day 3, however
    # far out the plain's target lies
    play(trek_run, ("init", "Plain"),
         ("roster", "add-character", "Zip", "--body", "6", "--mind", "5", "--soul", "4",
          "--attribute", "ground-speed=50"))

    doc = plan(trek_run, "--to", "250,-3", "--days", "4")
    far = plan(trek_run, "--to", "1000000,0", "--days", "2")

    assert [d["arrived"] for d in doc["days"]] == [0, 0, 1, 1]
    assert doc["certain"] is True
    assert [d["arrived"] for d in far["days"]] == [0, 0]


def test_a_day_spent_on_a_repair_is_part_of_the_journey_not_a_refusal(
        trek_run: Run, tmp_path: Path) -> None:
    # given day 2 open and spent on repairing Dusty (Kira's Mind 5 + medicine 2 = 7 vs 2)
    strip_campaign(trek_run, tmp_path,
                   ("roster", "add-mount", "Dusty", "--move", "ground-speed=1", "--rider",
                    "Kira"),
                   ("supplies", "set", "provisions=5"),
                   ("day", "start"), ("forced-march", "--roll", "Kira=12"), ("day", "end"),
                   ("day", "start"), ("repair", "Dusty", "--by", "Kira", "--roll", "2"))

    # when the party plans forced marches from there
    doc = plan(trek_run, "--to", "4,0", "--forced-march", "1", "--days", "2")

    # then day 2 goes nowhere, and day 3 (2 squares, a march for 2 more) may arrive
    assert doc["days"][0] == {"day": 2, "arrived": 0.0}
    assert doc["days"][1]["day"] == 3
    assert doc["days"][1]["arrived"] == 1.0
