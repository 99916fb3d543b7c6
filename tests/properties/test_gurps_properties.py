"""Properties of GURPS hex movement over random moves, turns, postures, steps and rounds.

A move's cost is the sum of its hexes' and turns' costs, however it is split into moves; no
move spends more than its MP except the one hex always allowed; a refused command leaves the
campaign identical; folding the events afresh gives the same game; undoing any event and
redoing it restores the same state.
"""

from __future__ import annotations

from datetime import UTC, datetime
from fractions import Fraction
from typing import Any

from encounter_play import (
    Check,
    Play,
    Step,
    assert_refolds_the_same,
    play_steps,
    undo_then_redo,
)
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st
from rulesets import RULESETS

from domain.campaign import Campaign, Stamp
from domain.commands.encounter import EnterCombatant, MoveCombatant, StartEncounter, StartRound
from domain.commands.roster import AddCharacter
from domain.encounter import cell_terrain
from domain.errors import RuleViolation
from domain.events import TrekEvent
from domain.geometry import Square
from domain.grid import HEXES
from domain.gurps.commands import ChangePosture
from domain.gurps.movement import HexMoved
from domain.options import CharacterOptions
from domain.state import Side
from tracker.mapformats.tomlfile import load_battle_map

STAMP = Stamp("gm", datetime(2024, 5, 1, 18, 0, tzinfo=UTC))
GURPS = RULESETS.named("gurps")
ARENA = """\
[map]
name = "Yard"
grid = "hex"
rows = [
  "........",
  ".t~.....",
  "..s=....",
  "..m..#..",
  "...w....",
  "........",
]

[legend]
"." = { terrain = "open" }
"t" = { terrain = "treacherous" }
"~" = { terrain = "shallow-water" }
"s" = { terrain = "stairs" }
"=" = { terrain = "treacherous", extra = 2 }
"m" = { terrain = "open", obstructions = 2 }
"w" = { terrain = "deep-water" }
"#" = { terrain = "wall" }
"""
# An open plain with footing but no deep water, so that every hex has a price.
PRICED = ARENA.replace('"...w....",', '"........",')
DIRS = list(HEXES.directions)
TOKENS = [*DIRS, "L", "R"]
NAMES = ("Kira", "Oren", "Orc", "Gull")
PROPERTY = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
POSTURE_PRICE = {"standing": Fraction(0), "crouching": Fraction(1, 2),
                 "kneeling": Fraction(2), "crawling": Fraction(2)}


def options(name: str, **extra: Any) -> CharacterOptions:
    return CharacterOptions(name=name, extra=extra)


def lone_walker(basic_move: int, posture: str, map_text: str = PRICED) -> Campaign:
    c = Campaign.start(STAMP, name="Yard", ruleset="gurps", rulesets=RULESETS, seed=9,
                       game_map=None, at=None)
    c.handle(AddCharacter(options("Kira", basic_move=basic_move, basic_speed=basic_move)))
    c.handle(StartEncounter("Yard", load_battle_map(map_text, GURPS.battle_legend)))
    c.handle(EnterCombatant(name="Kira", at=Square(3, 2)))
    if posture != "standing":
        c.handle(ChangePosture(name="Kira", posture=posture))
    c.handle(StartRound())
    return c


def hand_price(c: Campaign, tokens: list[str], posture: str) -> Fraction:
    """The seed's table, worked token by token apart from the ruleset's own code."""
    encounter = c.game.encounter
    assert encounter is not None
    here, facing, total = encounter.combatants["Kira"].at, "N", Fraction(0)
    for token in tokens:
        if token in ("L", "R"):
            facing = DIRS[(DIRS.index(facing) + (1 if token == "R" else -1)) % 6]
            total += 1
            continue
        apart = (DIRS.index(token) - DIRS.index(facing)) % 6
        here = HEXES.step(here, token)
        entry = cell_terrain(encounter, here) or {}
        footing = (entry.get("extra", 1) if entry.get("terrain") in
                   ("treacherous", "stairs", "shallow-water") else 0)
        total += (1 if apart in (0, 1, 5) else 2) + POSTURE_PRICE[posture] + footing + int(
            entry.get("obstructions", 0))
    return total


_POSTURE = st.sampled_from(list(POSTURE_PRICE))
_TOKENS = st.lists(st.sampled_from(TOKENS), min_size=1, max_size=6)


@PROPERTY
@given(_TOKENS, _POSTURE, st.data())
def test_a_moves_cost_is_the_sum_of_its_parts_however_it_is_split(
        tokens: list[str], posture: str, data: st.DataObject) -> None:
    whole = lone_walker(100, posture)
    try:
        event = whole.handle(MoveCombatant(name="Kira", steps=tuple(tokens)))
    except RuleViolation:
        assume(False)
        return
    assert Fraction(event.cost) == hand_price(lone_walker(100, posture), tokens, posture)
    cuts = sorted(data.draw(st.sets(st.integers(1, len(tokens) - 1), max_size=3))
                  if len(tokens) > 1 else set())
    parts = [tokens[a:b] for a, b in zip([0, *cuts], [*cuts, len(tokens)], strict=True)]
    split = lone_walker(100, posture)
    total = Fraction(0)
    for part in parts:
        moved = split.handle(MoveCombatant(name="Kira", steps=tuple(part)))
        total += Fraction(moved.cost)
        split.handle(StartRound())
    assert total == Fraction(event.cost)
    assert split.game.encounter is not None
    assert whole.game.encounter is not None
    after_split = split.game.encounter.combatants["Kira"]
    after_whole = whole.game.encounter.combatants["Kira"]
    assert (after_split.at, after_split.facing) == (after_whole.at, after_whole.facing)


def setup() -> Play:
    c = Campaign.start(STAMP, name="Yard", ruleset="gurps", rulesets=RULESETS, seed=9,
                       game_map=None, at=None)
    c.handle(AddCharacter(options("Kira", basic_move=3, basic_speed=5.5)))
    c.handle(AddCharacter(options("Oren", basic_move=1, basic_speed=1.25,
                            trait=["amphibious"])))
    c.handle(StartEncounter("Yard", load_battle_map(ARENA, GURPS.battle_legend)))
    c.handle(EnterCombatant(name="Kira", at=Square(1, 0)))
    c.handle(EnterCombatant(name="Oren", at=Square(3, 3), facing="S"))
    c.handle(EnterCombatant(name="Orc", at=Square(6, 5), side=Side.ENEMY,
                                     from_roster=False, facing="NW",
                                     options=options("Orc", basic_move=4, basic_speed=4)))
    c.handle(EnterCombatant(name="Gull", at=Square(7, 0), side=Side.ALLY,
                                     from_roster=False, options=options(
                                         "Gull", basic_move=2, basic_speed=3.75,
                                         trait=["flight"])))
    return Play(c, c.collect_events())


def _move(name: str, steps: list[str], opts: dict[str, Any]) -> Step:
    return Step(f"move {name} {' '.join(steps)} {opts}",
                lambda c: c.handle(MoveCombatant(name=name, steps=tuple(steps), options=opts)))


_NAME = st.sampled_from(NAMES)
_STEPS = st.one_of(
    st.builds(_move, _NAME, st.lists(st.sampled_from(TOKENS), min_size=1, max_size=4),
              st.fixed_dictionaries({}, optional={
                  "swim": st.just(True), "fly": st.just(True), "step": st.just(True),
                  "end_facing": st.sampled_from(DIRS)})),
    st.builds(lambda n, p: Step(f"posture {n} {p}",
                                lambda c: c.handle(ChangePosture(name=n, posture=p))), _NAME,
        st.sampled_from(["standing", "crouching", "kneeling", "crawling", "lying",
                         "sitting"])),
    st.just(Step("round", lambda c: c.handle(StartRound()))),
)
_SEQUENCES = st.lists(_STEPS, min_size=1, max_size=25).map(
    lambda steps: [Step("round", lambda c: c.handle(StartRound())), *steps])


def play(steps: list[Step], check: Check | None = None) -> Play:
    return play_steps(setup(), steps, check)


def _within_the_mp(c: Campaign, event: TrekEvent) -> None:
    encounter = c.game.encounter
    assert encounter is not None
    occupied = [combatant.at for combatant in encounter.combatants.values()]
    assert len(occupied) == len(set(occupied))
    if not isinstance(event, HexMoved):
        return
    hexes = len(event.path) - 1
    if event.step:
        assert (hexes, event.cost, event.mp) == (1, 0, 0)
        return
    assert 0 <= event.cost <= event.mp
    if event.single:
        assert hexes == 1
        assert event.cost == event.mp
    for cell in event.path[1:]:
        terrain = cell_terrain(encounter, cell)
        assert terrain is not None
        assert terrain["terrain"] != "wall"


@PROPERTY
@given(_SEQUENCES)
def test_no_move_exceeds_its_mp_except_the_single_hex(steps: list[Step]) -> None:
    play(steps, _within_the_mp)


@PROPERTY
@given(_SEQUENCES)
def test_folding_the_events_afresh_gives_the_same_game(steps: list[Step]) -> None:
    assert_refolds_the_same(play(steps))


@PROPERTY
@given(_SEQUENCES, st.data())
def test_undoing_any_event_then_redoing_it_restores_the_same_state(
        steps: list[Step], data: st.DataObject) -> None:
    result = play(steps)
    undoable = [e.seq for e in result.events if type(e).undoable]
    assume(undoable)
    undo_then_redo(result, data.draw(st.sampled_from(undoable)))
