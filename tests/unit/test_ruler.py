"""The fight ruler (cli/ruler.py) on real commands: each band is the real `encounter move
--preview` of the CLI, so the bands' order and the refusal told are the rules' own."""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any

import pytest
from cliruns import ok
from conftest import TrekRun

from cli.ruler import RulerRefused, measure


def _previewer(trek_run: Callable[..., TrekRun]) -> Callable[[list[str]], Any]:
    def preview(argv: list[str]) -> tuple[int, Any, str, Any]:
        at = argv.index("--") if "--" in argv else len(argv)
        result = trek_run(*argv[:at], "--preview", "--json", *argv[at:])
        if result.returncode != 0:
            return result.returncode, None, result.stderr.strip().removeprefix("Error: "), None
        return 0, json.loads(result.stdout), "", None
    return preview


def _encounter(trek_run: Callable[..., TrekRun]) -> Any:
    return json.loads(ok(trek_run("encounter", "status", "--json")).stdout)


@pytest.fixture
def keep(trek_run: Callable[..., TrekRun]) -> Callable[..., TrekRun]:
    """A hex fight: Gus (Move 5, facing N) at 2,2, an enemy two hexes north."""
    for words in (("init", "Keep", "--ruleset", "gurps"),
                  ("roster", "add-character", "Gus", "--basic-move", "5", "--basic-speed", "5"),
                  ("encounter", "start", "Gate"),
                  ("encounter", "join", "Gus", "--at", "2,2"),
                  ("encounter", "add", "Guard", "--side", "enemy", "--at", "2,0",
                   "--basic-move", "5", "--basic-speed", "5"),
                  ("encounter", "round")):
        ok(trek_run(*words))
    return trek_run


def test_a_hex_ruler_gives_the_straight_line_of_steps(keep: Callable[..., TrekRun]) -> None:
    # Odd-q columns (domain/grid.py): NE from the even column 2 is 3,1 (dy -1), and NE from
    # the odd column 3 is 4,1 (dy 0): two hexes.
    answer = measure(_previewer(keep), _encounter(keep), "Gus", (4, 1))
    assert answer["argv"] == ["encounter", "move", "Gus", "NE", "NE"]
    # Both hexes are the faced one's neighbours: 1 MP each.
    assert (answer["cost"], answer["band"]) == (2, "within Move")


def test_a_hex_refusal_is_the_moves_not_the_steps(keep: Callable[..., TrekRun]) -> None:
    """Six hexes south, each the back hex of a combatant facing N (2 MP), cost 12 of Gus's 5;
    a step is refused too, but what the GM needs to hear is the move's sentence (GURPS tells
    the first band's refusal)."""
    with pytest.raises(RulerRefused, match="costs 12 MP but Gus has 5"):
        measure(_previewer(keep), _encounter(keep), "Gus", (2, 8))


def test_a_named_band_is_the_one_measured(keep: Callable[..., TrekRun]) -> None:
    """§8: kneeling, the hex behind costs 2 (the back hex) + 2 (kneeling); as a step (another
    maneuver's) it costs nothing and is the turn's move. The GM names the band; the words
    carry `--step`."""
    ok(keep("encounter", "posture", "Gus", "kneeling"))
    moved = measure(_previewer(keep), _encounter(keep), "Gus", (2, 3))
    assert (moved["band"], moved["cost"]) == ("within Move", 4)
    stepped = measure(_previewer(keep), _encounter(keep), "Gus", (2, 3), band="step")
    assert stepped["argv"] == ["encounter", "move", "--step", "Gus", "S"]
    assert (stepped["band"], stepped["tone"], stepped["cost"]) == ("step", 1, 0)
    assert stepped["words"] == "step · 0 MP · the turn's move · facing N"
    with pytest.raises(RulerRefused, match="'fly' is not a kind of move here"):
        measure(_previewer(keep), _encounter(keep), "Gus", (2, 3), band="fly")


def test_a_name_like_an_option_comes_after_a_double_dash(
        trek_run: Callable[..., TrekRun]) -> None:
    for words in (("init", "Odd", "--ruleset", "besm"),
                  ("encounter", "start", "Ford"),
                  ("encounter", "add", "--side", "enemy", "--at", "0,0", "--body", "4",
                   "--mind", "2", "--soul", "2", "--", "-x"),
                  ("encounter", "round")):
        ok(trek_run(*words))
    answer = measure(_previewer(trek_run), _encounter(trek_run), "-x", (2, 0))
    assert answer["argv"] == ["encounter", "move", "--to", "2,0", "--", "-x"]
    assert answer["cost"] == 2


def test_no_encounter_and_no_such_combatant_are_told(
        keep: Callable[..., TrekRun]) -> None:
    with pytest.raises(RulerRefused, match="No encounter is open"):
        measure(_previewer(keep), None, "Gus", (1, 1))
    with pytest.raises(RulerRefused, match="no combatant 'Nobody'"):
        measure(_previewer(keep), _encounter(keep), "Nobody", (1, 1))
    with pytest.raises(RulerRefused, match="already at 2,2"):
        measure(_previewer(keep), _encounter(keep), "Gus", (2, 2))
