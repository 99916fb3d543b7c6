"""What a GM types and Trek must refuse, or say plainly: a name given twice to a NAME=VALUE
option, options that cannot go together, a GM name with a control character, and the
sentences that used to show click's internals or an empty table.

Each refusal is checked against the store read without Trek: a refused command records nothing.
"""

from __future__ import annotations

import sqlite3
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from cliruns import ok, recorded, refused, usage_error
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


# An option that takes one value, given twice: click would keep the last one silently.
ONE_VALUE_TWICE = [
    # RULES §3: a mount has exactly one movement attribute
    ("roster", "add-mount", "Swift", "--move", "speed=1", "--move", "flight=1"),
    ("night-travel", "--roll", "2", "--roll", "3"),
    ("shortcut", "Kessel Pass", "--roll", "5", "--roll", "6"),
    ("harm", "Kira", "--health", "1", "--health", "2"),
    ("move", "--to", "1,0", "--to", "2,0"),
    ("day", "end", "--hours", "6", "--hours", "8"),
    ("status", "--db", "trek.db", "--db", "other.db"),
]


@pytest.mark.parametrize("args", ONE_VALUE_TWICE)
def test_an_option_that_takes_one_value_given_twice_is_refused(
        trek_run: Run, party: Path, args: tuple[str, ...]) -> None:
    before = stored_events(party)
    twice = args[next(i for i, word in enumerate(args) if word.startswith("--"))]
    run = trek_run(*args)
    usage_error(run)
    assert f"{twice} is given twice; it takes one value" in run.stderr, run
    assert stored_events(party) == before
    assert not (party.parent / "other.db").exists()


def test_every_option_that_takes_one_value_refuses_a_second(trek_run: Run) -> None:
    """Every command of every ruleset, every option of it that takes one value: given twice,
    the command line is refused before the value is even read."""
    import click

    import cli.commands  # noqa: F401  (mounts every ruleset's commands and options)
    from cli.main import trek

    def commands(group: click.Group, ctx: click.Context) -> Iterator[
            tuple[click.Command, click.Context]]:
        for name in group.list_commands(ctx):
            command = group.get_command(ctx, name)
            assert command is not None
            sub = click.Context(command, info_name=name, parent=ctx)
            yield command, sub
            if isinstance(command, click.Group):
                yield from commands(command, sub)

    root = click.Context(trek, info_name="trek")
    checked = 0
    for command, ctx in [(trek, root), *commands(trek, root)]:
        for param in command.params:
            if not isinstance(param, click.Option) or param.multiple or param.count \
                    or param.is_flag:
                continue
            option = param.opts[0]
            with pytest.raises(click.UsageError, match=f"{option} is given twice"):
                command.make_context(ctx.info_name, [option, "x", option, "x"],
                                     parent=ctx.parent)
            checked += 1
    # audit --session to watch --for, the rulesets' stat options included
    assert checked > 150


@pytest.fixture
def cypher_day(trek_run: Run, tmp_path: Path) -> Path:
    """A Cypher campaign (RULES §5: no Health, no Energy, no rest rules, no hazards) with Ana
    on foot and day 1 open: events 1 to 3."""
    ok(trek_run("init", "Road to Qi", "--ruleset", "cypher", "--seed", "5"))
    ok(trek_run("roster", "add-character", "Ana", "--might", "12"))
    ok(trek_run("day", "start"))
    return tmp_path / "trek.db"


@pytest.mark.parametrize(("args", "option"), [
    (("harm", "Ana", "--health", "3"), "--health"),
    (("harm", "Ana", "--energy", "2"), "--energy"),
    (("harm", "Ana", "--health", "3", "--energy", "2"), "--health"),
    (("day", "end", "--hours", "6"), "--hours"),
    (("move", "E", "--through-hazard"), "--through-hazard"),
    (("move", "--to", "2,0", "--through-hazard"), "--through-hazard"),
])
def test_an_option_the_cypher_ruleset_has_no_use_for_is_refused(
        trek_run: Run, cypher_day: Path, args: tuple[str, ...], option: str) -> None:
    before = stored_events(cypher_day)
    refused(trek_run(*args), "the cypher ruleset has no", f"leave out {option}")
    assert stored_events(cypher_day) == before


def test_harm_in_cypher_names_what_it_lacks_and_day_and_move_work_without_the_options(
        trek_run: Run, cypher_day: Path) -> None:
    refused(trek_run("harm", "Ana"), "the cypher ruleset has no Health or Energy")
    assert len(stored_events(cypher_day)) == 3
    recorded(trek_run("move", "E", "--json"), 4, "Travelled")
    recorded(trek_run("day", "end", "--json"), 5, "DayEnded")


def test_besm_keeps_hours_health_and_energy(trek_run: Run, party: Path) -> None:
    # Kira, Body 6, Mind 5, Soul 5: Energy 50; camping regains Mind-Soul = 5 an hour.
    harmed = recorded(trek_run("harm", "Kira", "--health", "3", "--energy", "40", "--json"),
                      8, "Harmed")
    assert (harmed["health"], harmed["energy"]) == (3, 40)
    ended = recorded(trek_run("day", "end", "--hours", "6", "--json"), 9, "DayEnded")
    assert ended["hours"] == 6
    assert ended["recovery"]["Kira"]["energy"] == 30
    assert ok(trek_run("status", "--json")).json()["characters"]["Kira"]["energy"] == 40


@pytest.mark.parametrize("args", [
    ("roster", "add-character", "Fish"),
    ("roster", "add-character", "Fish", "--skill", "swim=2"),
    ("encounter", "add", "Fish", "--side", "enemy", "--at", "3,3"),
])
def test_a_move_point_fighter_without_a_full_move_is_refused(
        trek_run: Run, tmp_path: Path, args: tuple[str, ...]) -> None:
    # RULES §10: MP are gained as (half) the highest Full Move; without one, never a point.
    ok(trek_run("init", "Pit", "--ruleset", "movepoints", "--seed", "1"))
    ok(trek_run("encounter", "start", "Brawl"))
    before = stored_events(tmp_path / "trek.db")
    refused(trek_run(*args), "--full-move", "never gain")
    assert stored_events(tmp_path / "trek.db") == before
    recorded(trek_run(*args, "--full-move", "swim=4", "--json"), 3,
             "CharacterAdded" if args[0] == "roster" else "CombatantEntered")


def test_a_shortcut_in_other_capitals_is_refused_naming_the_one_meant(
        trek_run: Run, tmp_path: Path) -> None:
    # Names match exactly everywhere: "Kessel pass" is not the map's "Kessel Pass".
    ashen = Path(__file__).parents[2] / "docs" / "examples" / "ashen-reach.toml"
    ok(trek_run("init", "F", "--map", str(ashen), "--at", "1,1", "--seed", "3"))
    ok(trek_run("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4"))
    ok(trek_run("day", "start"))
    before = stored_events(tmp_path / "trek.db")
    for near in ("Kessel pass", "kessel pass", " Kessel Pass"):
        refused(trek_run("shortcut", near, "--roll", "5"),
                f"no shortcut called {near!r}", "perhaps you meant 'Kessel Pass'")
    refused(trek_run("shortcut", "Dragon Gate"), "no shortcut called 'Dragon Gate'",
            "it has Kessel Pass")
    assert stored_events(tmp_path / "trek.db") == before
    recorded(trek_run("shortcut", "Kessel Pass", "--roll", "5", "--json"), 4,
             "ShortcutAttempted")


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


# -- 17. sentences ---------------------------------------------------------------------------


@pytest.mark.parametrize(("args", "said"), [
    (("undo", "0"), "SEQ must be 1 or more, not 0; event numbers start at 1"),
    (("redo", "0"), "SEQ must be 1 or more, not 0"),
    (("undo", "-1"), "SEQ must be 1 or more, not -1; event numbers start at 1"),
    (("redo", "-2"), "SEQ must be 1 or more, not -2"),
    (("audit", "--session", "-1"), "the session number must be 1 or more, not -1"),
    (("log", "--day", "-1"), "the day number must be 0 or more, not -1"),
    (("undo", "99999999999999999999"), "SEQ must be at most 4,611,686,018,427,387,904"),
])
def test_numbers_out_of_range_are_refused_in_words(trek_run: Run, party: Path,
                                                   args: tuple[str, ...], said: str) -> None:
    before = stored_events(party)
    run = trek_run(*args)
    usage_error(run)
    assert said in run.stderr
    assert "<=" not in run.stderr
    assert "No such option" not in run.stderr
    assert stored_events(party) == before


def test_a_supply_without_its_number_is_shown_with_one(trek_run: Run, party: Path) -> None:
    run = trek_run("supplies", "add", "provisions")
    usage_error(run)
    assert "for example provisions=2" in run.stderr
    assert "navigation" not in run.stderr
    run = trek_run("supplies", "add", "=3")
    usage_error(run)
    assert "for example provisions=2" in run.stderr


def test_gurps_speaks_of_hexes(trek_run: Run) -> None:
    ok(trek_run("init", "Hexes", "--ruleset", "gurps"))
    ok(trek_run("encounter", "start", "Ford"))
    run = trek_run("encounter", "add", "Gob", "--side", "enemy", "--at", "0,0",
                   "--basic-move", "5", "--basic-speed", "5", "--facing", "E")
    refused(run, "--facing E is not a direction on hexes")
    assert "hexs" not in run.stderr


def test_a_shadowrun_sprint_shows_its_dice_on_the_screen(trek_run: Run) -> None:
    ok(trek_run("init", "Run", "--ruleset", "shadowrun", "--seed", "3"))
    ok(trek_run("encounter", "start", "Alley"))
    ok(trek_run("encounter", "add", "Kira", "--side", "ally", "--at", "0,0", "--quickness", "5",
                "--skill", "athletics=3"))
    ok(trek_run("encounter", "round", "--passes", "Kira=2"))
    shown = ok(trek_run("encounter", "sprint", "Kira")).stdout
    [entry] = [e for e in ok(trek_run("log", "--json")).json() if e["type"] == "Sprinted"]
    # Three d6 for athletics 3; a success is a die of 4 (the TN) or more.
    assert len(entry["dice"]) == 3
    assert entry["successes"] == sum(1 for face in entry["dice"] if face >= 4)
    faces = " ".join(map(str, entry["dice"]))
    assert f"(dice {faces}, TN 4)" in shown
    assert f"dice {faces}, TN 4" in ok(trek_run("log", "--no-pager")).stdout
    ok(trek_run("encounter", "pass"))
    shown = ok(trek_run("encounter", "sprint", "Kira", "--roll", "2")).stdout
    assert "2 success(es) (counted by the GM, TN 4)" in shown


def test_log_filters_that_match_nothing_say_so(trek_run: Run, party: Path) -> None:
    ok(trek_run("session", "start", "One"))
    run = ok(trek_run("log", "--day", "1", "--session", "1", "--from", "99", "--no-pager"))
    assert run.stdout == ("No event matches --day 1, --session 1 and --from 99; `trek log` "
                          "without them shows every event.\n")
    run = ok(trek_run("log", "--from", "99", "--no-pager"))
    assert run.stdout.startswith("No event matches --from 99; `trek log` without it")
    # Scripts still get an empty list and a header row.
    assert ok(trek_run("log", "--from", "99", "--json")).json() == []
    assert ok(trek_run("log", "--from", "99", "--csv")).stdout.count("\n") == 1


def test_the_recap_does_not_count_the_opening_supplies_set_as_gained(trek_run: Run) -> None:
    ok(trek_run("init", "Ashes Road"))
    ok(trek_run("session", "start", "One"))
    ok(trek_run("supplies", "set", "provisions=5", "fuel=2"))
    ok(trek_run("supplies", "add", "provisions=1"))
    ok(trek_run("supplies", "spend", "fuel=1"))
    doc = ok(trek_run("recap", "--json")).json()
    assert doc["supplies"] == {"gained": {"provisions": 1}, "spent": {"fuel": 1}}
    assert "| provisions | 1 | 0 |" in ok(trek_run("recap")).stdout
    # The audit keeps its own count, as before.
    [session] = [s for s in ok(trek_run("audit", "--json")).json()["sessions"]
                 if s["session"] == 1]
    assert session["supplies"]["gained"] == {"provisions": 6, "fuel": 2}


# -- 2. options that cannot go together ---------------------------------------------------------


@pytest.fixture
def besm_fight(trek_run: Run, tmp_path: Path) -> Path:
    ok(trek_run("init", "Ashes Road"))
    ok(trek_run("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "5",
                "--skill", "stealth=2"))
    ok(trek_run("encounter", "start", "Ford"))
    ok(trek_run("encounter", "join", "Kira", "--at", "0,0"))
    ok(trek_run("encounter", "round"))
    return tmp_path / "trek.db"


def test_a_besm_shift_and_a_stealthy_move_cannot_go_together(trek_run: Run,
                                                            besm_fight: Path) -> None:
    before = stored_events(besm_fight)
    # Refused as the other rulesets refuse two kinds of move at once (GURPS --swim --fly,
    # Shadowrun --walk --run, Cypher --short --long): a rule, exit 1, naming both.
    refused(trek_run("encounter", "move", "Kira", "E", "--stealthy", "--shift"),
            "--shift and --stealthy cannot go together")
    refused(trek_run("encounter", "move", "Kira", "E", "--shift", "--stealthy"), "--shift",
            "--stealthy")
    assert stored_events(besm_fight) == before
    # Each alone is still a move.
    event = recorded(trek_run("encounter", "move", "Kira", "E", "--shift", "--json"),
                     len(before) + 1, "CombatantMoved")
    assert (event["shift"], event["stealthy"]) == (True, False)


@pytest.mark.parametrize(("args", "both"), [
    (("move", "E", "--to", "3,0"), ("directions", "--to")),
    (("encounter", "move", "Kira", "E", "--to", "3,0"), ("directions", "--to")),
    (("audit", "--csv", "--json"), ("--csv", "--json")),
    (("map", "show", "--svg", "a.svg", "--html", "a.html"), ("--svg", "--html")),
])
def test_other_options_that_cannot_go_together_are_refused_naming_both(
        trek_run: Run, besm_fight: Path, args: tuple[str, ...], both: tuple[str, str]) -> None:
    before = stored_events(besm_fight)
    run = trek_run(*args)
    usage_error(run)
    assert all(word in run.stderr for word in both), run
    assert stored_events(besm_fight) == before


# -- 18. `encounter move --help`, by ruleset ------------------------------------------------------


def help_sections(text: str) -> dict[str, list[str]]:
    """The option flags of each section ("Options:", "BESM options:", ...) of a help text."""
    sections: dict[str, list[str]] = {}
    current: list[str] | None = None
    for line in text.splitlines():
        if line.endswith("options:") or line == "Options:":
            current = sections.setdefault(line[:-1], [])
        elif current is not None and line.startswith("  --"):
            current.append(line.split()[0])
        elif current is not None and line.startswith("  -h, --help"):
            current.append("--help")
    return sections


def test_encounter_move_help_lists_each_rulesets_options_under_its_name(
        trek_run: Run, tmp_path: Path) -> None:
    from rulesets import RULESETS

    from domain.ruleset import option_flag

    run = ok(trek_run("encounter", "move", "--help", db=str(tmp_path / "none" / "trek.db")))
    sections = help_sections(run.stdout)
    assert list(sections) == ["Options", "BESM options", "Cypher options", "GURPS options",
                              "Shadowrun options", "Move-Points options"]
    assert sections["Options"] == ["--to", "--db", "--campaign", "--gm", "--json", "--preview",
                                   "--help"]
    titles = dict(zip([r.name for r in RULESETS], list(sections)[1:], strict=True))
    for ruleset in RULESETS:
        # Exactly the options the ruleset's own move takes, each once.
        listed = sections[titles[ruleset.name]]
        assert sorted(listed) == sorted(option_flag(o) for o in ruleset.move_options), ruleset
    # Help reads no store and makes none.
    assert list(tmp_path.iterdir()) == []


@pytest.mark.parametrize(("options", "named"), [
    (("--ease", "2"), "--ease and --extended cannot go together"),
    (("--hinder", "1"), "--hinder and --extended cannot go together"),
    (("--ease", "1", "--hinder", "1"), "--ease, --hinder and --extended cannot go together"),
])
def test_an_extended_cypher_chase_takes_its_ease_and_hinder_on_each_roll(
        trek_run: Run, tmp_path: Path, options: tuple[str, ...], named: str) -> None:
    ok(trek_run("init", "Chase", "--ruleset", "cypher"))
    ok(trek_run("encounter", "start", "Market"))
    ok(trek_run("encounter", "add", "Kira", "--side", "ally", "--at", "0,0"))
    before = stored_events(tmp_path / "trek.db")
    # The start of an extended chase rolls nothing, so easing it would ease nothing.
    refused(trek_run("encounter", "chase", "Kira", "--level", "3", "--extended", *options),
            named, "chase-roll Kira")
    assert stored_events(tmp_path / "trek.db") == before
    ok(trek_run("encounter", "chase", "Kira", "--level", "3", "--extended"))
    event = recorded(trek_run("encounter", "chase-roll", "Kira", *options, "--roll", "20",
                              "--json"), len(before) + 2, "ChaseRolled")
    assert event["success"] is True


def test_recap_format_and_json_each_choose_the_output(trek_run: Run, party: Path) -> None:
    run = trek_run("recap", "--format", "html", "--json")
    usage_error(run)
    assert "--format and --json each choose the output" in run.stderr
    # Either alone still works.
    assert ok(trek_run("recap", "--json")).json()["name"] == "Ashes Road"
    assert ok(trek_run("recap", "--format", "html")).stdout.startswith("<!DOCTYPE html>")


# -- messages that were click's words -----------------------------------------------------------


@pytest.mark.parametrize(("args", "said", "not_said"), [
    # a bare number: the name was left out, and a rider's name shows the shape
    (("forced-march", "--roll", "9"),
     "'9' should be NAME=N, a rider or driver and a number, for example Kira=9", "9=2"),
    (("shortcut", "K", "--roll", "six"),
     "the 2d6 total must be a whole number from 2 to 12, not 'six'", "integer range"),
    (("shortcut", "K", "--roll", "13"), "the 2d6 total must be from 2 to 12, not 13", "<="),
    (("night-travel", "--roll", "1"), "the 2d6 total must be from 2 to 12, not 1", "<="),
    (("day", "end", "--hours", "25"), "the hours slept must be from 0 to 24, not 25", "<="),
    (("harm", "Kira", "--health", "x"),
     "the Health taken must be a whole number from 0 to", "integer range"),
    # an unknown option: the command's own options, never a guess among the store options
    (("shortcut", "K", "--by", "Kira"),
     "`trek shortcut` has no option --by; its own options are --roll and --party (`trek "
     "shortcut --help` lists every option it takes).", "--db"),
    (("encounter", "act", "Kira", "--melee"),
     "`trek encounter act` has no option --melee; its own option is --ranged", "'--help'"),
    (("move", "--too", "3,3"),
     "`trek move` has no option --too (did you mean --to?); its own options are --to, "
     "--through-hazard and --party", "Did you mean"),
    (("status", "--x"), "`trek status` has no option --x; its own options are --as-of and "
     "--party", "Did you mean"),
    # a direction: the eight, not sixteen spellings
    (("move", "Q"),
     "'Q' is not a compass direction; give N, NE, E, SE, S, SW, W or NW (either case)",
     "'nw'"),
])
def test_usage_mistakes_say_what_is_wrong_and_what_is_allowed(
        trek_run: Run, party: Path, args: tuple[str, ...], said: str, not_said: str) -> None:
    before = stored_events(party)
    run = trek_run(*args)
    usage_error(run)
    [error] = [line for line in run.stderr.splitlines() if line.startswith("Error: ")]
    assert said in error
    assert not_said not in error
    assert stored_events(party) == before


def test_a_stat_of_0_is_refused_as_out_of_range_not_as_missing(trek_run: Run,
                                                               party: Path) -> None:
    before = stored_events(party)
    run = trek_run("roster", "add-character", "Bo", "--body", "0", "--mind", "5", "--soul", "5")
    refused(run, "Body must be 1 to 12, not 0")
    assert "needs" not in run.stderr
    assert stored_events(party) == before


@pytest.mark.parametrize(("stat", "value"), [("--body", "-5"), ("--mind", "100"),
                                            ("--soul", "101"), ("--body", "13")])
def test_a_stat_far_out_of_range_names_the_range_of_1_to_12(
        trek_run: Run, party: Path, stat: str, value: str) -> None:
    stats = {"--body": "5", "--mind": "5", "--soul": "5", stat: value}
    before = stored_events(party)
    run = trek_run("roster", "add-character", "Bo", *[part for pair in stats.items()
                                                        for part in pair])
    refused(run, f"{stat[2:].capitalize()} must be 1 to 12, not {value}")
    assert "0 to" not in run.stderr
    assert stored_events(party) == before


@pytest.mark.parametrize(("option", "value"), [("--health-max", "-3"), ("--energy-max", "0"),
                                              ("--energy-max", "-2")])
def test_a_maximum_below_1_names_the_range_from_1(
        trek_run: Run, party: Path, option: str, value: str) -> None:
    before = stored_events(party)
    run = trek_run("roster", "add-character", "Bo", "--body", "5", "--mind", "5", "--soul", "5",
                   option, value)
    refused(run, f"{option} must be 1 to 1,000,000, not {value}")
    assert stored_events(party) == before


@pytest.mark.parametrize("db", ["mysql://gm:hunter2@db.example/trek", "sqlite:///trek.db",
                                "mysql://x/y"])
@pytest.mark.parametrize("args", [("status",), ("init", "Ashes Road")])
def test_a_url_of_another_database_is_refused_naming_what_db_takes(
        trek_run: Run, tmp_path: Path, db: str, args: tuple[str, ...]) -> None:
    scheme = db.split("://")[0]
    run = trek_run(*args, db=db)
    refused(run, f"Trek keeps a store in an SQLite file or in PostgreSQL, not at a {scheme}:// "
                 "URL; give --db a file path such as trek.db or a postgresql:// URL.")
    assert "hunter2" not in run.stderr
    assert "folder" not in run.stderr
    assert list(tmp_path.iterdir()) == []


def test_defence_is_spelled_one_way_in_what_trek_shows(trek_run: Run) -> None:
    ok(trek_run("init", "Brawl"))
    ok(trek_run("roster", "add-character", "Kira", "--body", "6", "--mind", "5", "--soul", "4"))
    ok(trek_run("encounter", "start", "Alley"))
    ok(trek_run("encounter", "join", "Kira", "--at", "1,0"))
    ok(trek_run("encounter", "add", "Bandit", "--side", "enemy", "--at", "2,0", "--body", "4",
                "--mind", "3", "--soul", "3"))
    ok(trek_run("encounter", "round"))
    # Kira steps out of the bandit's reach (RULES §7): defence -2 this round and the next.
    moved = ok(trek_run("encounter", "move", "Kira", "W", "W"))
    assert "defence -2" in moved.stdout
    shown = ok(trek_run("encounter", "status")).stdout
    assert "defence" in shown
    for text in (moved.stdout, shown, ok(trek_run("log", "--no-pager")).stdout,
                 ok(trek_run("encounter", "--help")).stdout):
        assert "defense" not in text.lower()
