"""Properties of BESM encounters over random rounds of moves, shifts, prone, stand and acts.

Whatever the commands: no combatant spends more than its allowance; two never share a cell and
none stands on a wall; a refused command leaves the campaign identical; folding the recorded
events afresh gives the same game; undoing any event and redoing it restores the same state.
"""

from __future__ import annotations

from datetime import UTC, datetime

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

from domain.besm.combat import CombatState
from domain.besm.commands import GoProne, StandUp
from domain.campaign import Campaign, Stamp
from domain.commands.encounter import Act, EnterCombatant, MoveCombatant, StartEncounter, StartRound
from domain.commands.roster import AddCharacter
from domain.encounter import cell_terrain
from domain.events import TrekEvent
from domain.geometry import DIRECTIONS, Square
from domain.options import CharacterOptions
from domain.state import Side
from tracker.mapformats.tomlfile import load_battle_map

STAMP = Stamp("gm", datetime(2024, 5, 1, 18, 0, tzinfo=UTC))
ARENA = """\
[map]
name = "Yard"
rows = [
  "......",
  ".#::..",
  ".#....",
  "...=..",
]

[legend]
"." = { terrain = "open" }
"#" = { terrain = "wall" }
":" = { terrain = "difficult" }
"=" = { terrain = "difficult", cost = 3 }
"""
NAMES = ("Kira", "Oren", "Bandit", "Wolf")
PROPERTY = settings(max_examples=60, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])

def setup() -> Play:
    besm = RULESETS.named("besm")
    c = Campaign.start(STAMP, name="Yard", ruleset="besm", rulesets=RULESETS, seed=9,
                       game_map=None, at=None)
    c.handle(AddCharacter(CharacterOptions(name="Kira",
                                     attributes={"stealth": 1},
                                         extra={"body": 4, "mind": 4, "soul": 4})))
    c.handle(AddCharacter(CharacterOptions(name="Oren",
                                     attributes={"speed-burst": 1},
                                         extra={"body": 3, "mind": 4, "soul": 4})))
    c.handle(StartEncounter("Yard", load_battle_map(ARENA, besm.battle_legend)))
    c.handle(EnterCombatant(name="Kira", at=Square(0, 0)))
    c.handle(EnterCombatant(name="Oren", at=Square(0, 3)))
    for name, at, attributes in (("Bandit", Square(5, 0), {"gun-bunny": 1}),
                                 ("Wolf", Square(5, 3), {"speed": 2})):
        c.handle(EnterCombatant(
            name=name, at=at, side=Side.ENEMY, from_roster=False,
            options=CharacterOptions(name=name, attributes=attributes,
                extra={"body": 3, "mind": 2, "soul": 2})))
    return Play(c, c.collect_events())


def _move(name: str, steps: list[str], options: dict[str, bool]) -> Step:
    return Step(f"move {name} {' '.join(steps)} {options}",
                lambda c: c.handle(MoveCombatant(name=name, steps=tuple(steps), options=options)))


def _move_to(name: str, x: int, y: int) -> Step:
    return Step(f"move {name} --to {x},{y}",
                lambda c: c.handle(MoveCombatant(name=name, to=Square(x, y))))


_NAME = st.sampled_from(NAMES)
_STEPS = st.one_of(
    st.builds(_move, _NAME, st.lists(st.sampled_from(list(DIRECTIONS)), min_size=1,
                                     max_size=4),
              st.fixed_dictionaries({}, optional={"shift": st.just(True),
                                                  "stealthy": st.just(True)})),
    st.builds(_move_to, _NAME, st.integers(0, 5), st.integers(0, 3)),
    st.builds(lambda n: Step(f"prone {n}", lambda c: c.handle(GoProne(name=n))), _NAME),
    st.builds(lambda n: Step(f"stand {n}", lambda c: c.handle(StandUp(name=n))), _NAME),
    st.builds(lambda n, r: Step(f"act {n} {r}",
                                lambda c: c.handle(Act(name=n, options={"ranged": r}))),
              _NAME, st.booleans()),
    st.just(Step("round", lambda c: c.handle(StartRound()))),
)
_SEQUENCES = st.lists(_STEPS, min_size=1, max_size=25).map(
    lambda steps: [Step("round", lambda c: c.handle(StartRound())), *steps])


def play(steps: list[Step], check: Check | None = None) -> Play:
    return play_steps(setup(), steps, check)


def _within_the_rules(c: Campaign, _event: TrekEvent) -> None:
    encounter = c.game.encounter
    assert encounter is not None
    cells = [combatant.at for combatant in encounter.combatants.values()]
    assert len(cells) == len(set(cells))
    for combatant in encounter.combatants.values():
        terrain = cell_terrain(encounter, combatant.at)
        assert terrain is not None
        assert terrain["terrain"] != "wall"
        state = CombatState.model_validate(combatant.state)
        assert 0 <= state.moved <= max(state.speed, state.full_speed)
        assert state.speed <= state.full_speed


@PROPERTY
@given(_SEQUENCES)
def test_no_combatant_overspends_or_shares_a_cell_or_stands_on_a_wall(
        steps: list[Step]) -> None:
    play(steps, _within_the_rules)


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
