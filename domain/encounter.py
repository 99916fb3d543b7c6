"""Encounters: combatants on a battle map, round by round, shared by every ruleset.

The core keeps who stands where, on which side, the round, and each combatant's state as the
ruleset's own document (a dict the ruleset validates with its typed model). Events here carry
their outcome in full, so folding them needs no rule code; what a round or a move does is the
ruleset's decision (see `EncounterRules`).
"""

from functools import cache, singledispatch
from typing import TYPE_CHECKING, Any, ClassVar

from pydantic import Field

from domain.cells import Cell
from domain.edges import door_name, doors_of, edge_refusal
from domain.errors import NotFound, RuleViolation
from domain.events import TrekEvent
from domain.geometry import Square, parse_square
from domain.grid import GRIDS
from domain.labels import labels_of
from domain.maps import extent
from domain.ruleset import Decision, EncounterRules, Situation, check_character_options
from domain.state import Combatant, Encounter, Game, Side, friends
from domain.values import CampaignName, Name

if TYPE_CHECKING:
    from domain.commands.encounter import EnterCombatant


def open_encounter(game: Game) -> Encounter:
    if game.encounter is None:
        raise NoEncounter("no encounter is open; `trek encounter start NAME` opens one")
    return game.encounter


class NoEncounter(RuleViolation):
    """An encounter command while none is open."""


class EncounterOpen(RuleViolation):
    """An overland command, or a second encounter, while one is open."""


# -- events every ruleset shares ---------------------------------------------------------------


class EncounterStarted(TrekEvent):
    undo_kinds: ClassVar[tuple[str, ...]] = ("encounter-start",)

    name: CampaignName
    grid: str = "square"
    map: dict[str, Any] | None = None

    def apply_to(self, game: Game) -> None:
        game.encounter = Encounter(name=self.name, grid=self.grid, map=self.map,
                                   doors=doors_of(self.map))


class CombatantEntered(TrekEvent):
    """A roster character joined (side party) or someone was added for the fight."""
    undo_kinds: ClassVar[tuple[str, ...]] = ("encounter-join", "encounter-add")

    name: Name
    side: Side
    at: Cell
    facing: str | None = None
    from_roster: bool = False
    stats: dict[str, Any] = Field(default_factory=dict)
    state: dict[str, Any] = Field(default_factory=dict)
    # What entering this cell ended for others, by the ruleset's rules (progress toward the
    # cell, say), in its words, and the keys of each one's state it changed. Left out of the
    # stored event when empty, so other entries read as before. Worked out from the state: in
    # another history they may differ while the entry stays legal.
    broken: list[dict[str, Any]] = Field(default_factory=list, exclude_if=lambda v: not v)
    others: dict[str, dict[str, Any]] = Field(default_factory=dict, exclude_if=lambda v: not v)
    derived: ClassVar[frozenset[str]] = frozenset({"broken", "others"})

    def apply_to(self, game: Game) -> None:
        encounter = game.encounter
        assert encounter is not None, "decided with an open encounter"
        encounter.combatants[self.name] = Combatant(
            name=self.name, side=self.side, at=self.at, facing=self.facing,
            from_roster=self.from_roster, stats=dict(self.stats), state=dict(self.state))
        if self.name not in encounter.labels:
            encounter.labels = labels_of(encounter.labels, [*encounter.labels, self.name])
        for name, changed in self.others.items():
            other = encounter.combatants[name]
            other.state = {**other.state, **changed}


class RoundStarted(TrekEvent):
    """The next round: every combatant's state for it, worked out by the ruleset."""
    undo_kinds: ClassVar[tuple[str, ...]] = ("round",)

    number: int
    states: dict[str, dict[str, Any]] = Field(default_factory=dict)
    clock: dict[str, Any] = Field(default_factory=dict)
    # Combatants the round's start carried along (a drift), each path starting with the
    # cell left; left out of the stored event when empty, so other rounds read as before.
    paths: dict[str, list[Cell]] = Field(default_factory=dict, exclude_if=lambda v: not v)

    def apply_to(self, game: Game) -> None:
        encounter = game.encounter
        assert encounter is not None, "decided with an open encounter"
        encounter.round = self.number
        encounter.clock = dict(self.clock)
        for name, path in self.paths.items():
            if path:
                encounter.combatants[name].at = path[-1]
        for name, state in self.states.items():
            encounter.combatants[name].state = dict(state)


class CombatantChanged(TrekEvent):
    """Base of a ruleset's events about one combatant: where it now stands (the end of `path`,
    when it moved), which way it faces, and its state afterwards."""

    name: str
    path: list[Cell] = Field(default_factory=list)
    facing: str | None = None
    state: dict[str, Any] = Field(default_factory=dict)
    # Whether this event moved the combatant (the audit counts moves).
    moves: ClassVar[bool] = False
    # The keys of the combatant's state this event sets, the rest kept as they stand; None:
    # the recorded state replaces the whole. An event that sets only its own keys may stand
    # in a history where the others differ (`derived`).
    state_keys: ClassVar[frozenset[str] | None] = None

    def apply_to(self, game: Game) -> None:
        encounter = game.encounter
        assert encounter is not None, "decided with an open encounter"
        combatant = encounter.combatants[self.name]
        if self.path:
            combatant.at = self.path[-1]
        if self.facing is not None:
            combatant.facing = self.facing
        keys = self.state_keys
        if keys is None:
            combatant.state = dict(self.state)
        else:
            combatant.state = {**combatant.state,
                               **{key: value for key, value in self.state.items()
                                  if key in keys}}


ENCOUNTER_EVENTS: tuple[type[TrekEvent], ...] = (
    EncounterStarted, CombatantEntered, RoundStarted,
)


# -- the battle map ------------------------------------------------------------------------------


def cell_terrain(encounter: Encounter, cell: Square) -> dict[str, Any] | None:
    """The legend entry of a cell (`terrain` and the ruleset's keys), None off the map."""
    battle_map = encounter.map
    if battle_map is None:
        return {"terrain": "open"}
    rows: list[str] = battle_map["rows"]
    if not (0 <= cell.y < len(rows) and 0 <= cell.x < len(rows[0])):
        return None
    entry: dict[str, Any] = battle_map["legend"][rows[cell.y][cell.x]]
    return entry


def where(cell: Square) -> str:
    return f"{cell.x},{cell.y}"


def check_can_stand(encounter: Encounter, cell: Square, *, name: str) -> None:
    """A combatant may be put on a cell of the map that is not a wall and holds nobody."""
    terrain = cell_terrain(encounter, cell)
    if terrain is None:
        rows = encounter.map["rows"] if encounter.map else []
        raise RuleViolation(f"{where(cell)} is off the map ({len(rows[0])}×{len(rows)}); "
                            f"put {name} on a cell inside it")
    if terrain["terrain"] == "wall":
        raise RuleViolation(f"{where(cell)} is a wall; put {name} on an open cell")
    standing = encounter.at(cell)
    if standing is not None:
        raise RuleViolation(f"{standing.name} already stands on {where(cell)}; one combatant "
                            "to a cell")


def step_refusal(encounter: Encounter, mover: Combatant, here: Square, cell: Square
                 ) -> str | None:
    """Why `mover` may not step from `here` into its neighbour `cell` at all (it may still
    pass a friend's cell), or None: the one check of a step every ruleset makes."""
    terrain = cell_terrain(encounter, cell)
    if terrain is None:
        return f"{where(cell)} is off the map"
    if terrain["terrain"] == "wall":
        return f"{where(cell)} is a wall"
    edge = edge_refusal(encounter.map, encounter.doors, here, cell)
    if edge is not None:
        return edge
    standing = encounter.at(cell)
    if standing is not None and standing.name != mover.name and not friends(
            standing.side, mover.side):
        return f"{standing.name}, an enemy, stands on {where(cell)}"
    return None


def target_refusal(encounter: Encounter, mover: Combatant, cell: Square) -> str | None:
    """Why a move `--to` `cell` can never end there, whatever the budget: off the map, a wall
    or someone standing on it (said before any sentence about the budget), or None."""
    terrain = cell_terrain(encounter, cell)
    if terrain is None:
        rows: list[str] = encounter.map["rows"] if encounter.map else []
        return (f"{where(cell)} is off the map ({extent(len(rows[0]), len(rows))}), so no "
                f"move takes {mover.name} there")
    if terrain["terrain"] == "wall":
        return f"{where(cell)} is a wall, so no move takes {mover.name} there"
    standing = encounter.at(cell)
    if standing is not None and standing.name != mover.name:
        return (f"{where(cell)} is occupied by {standing.name}, so no move takes {mover.name} "
                "there (one combatant to a cell)")
    return None


def check_target(encounter: Encounter, mover: Combatant, cell: Square) -> None:
    reason = target_refusal(encounter, mover, cell)
    if reason is not None:
        raise RuleViolation(reason)


def end_refusal(encounter: Encounter, mover: Combatant, cell: Square) -> str | None:
    """Why `mover` may not stop on `cell` (a friend's cell, or where a ruleset lets a move pass
    a fallen enemy, is passed through, never stood on)."""
    standing = encounter.at(cell)
    if standing is None or standing.name == mover.name:
        return None
    if not friends(standing.side, mover.side):
        return f"{standing.name}, an enemy, is on {where(cell)}; no move stops there"
    return f"{standing.name} stands on {where(cell)}; a move may pass a friend, not stop there"


# -- commands every ruleset shares ---------------------------------------------------------------


def start(situation: Situation, name: str, battle_map: dict[str, Any] | None,
          grid: str) -> Decision:
    if situation.game.encounter is not None:
        raise EncounterOpen(f"the encounter {situation.game.encounter.name} is still open; "
                            "`trek encounter end` it first")
    return EncounterStarted(name=name, grid=grid, map=battle_map)


def enter(rules: EncounterRules, situation: Situation, command: "EnterCombatant",
          recorded: tuple[dict[str, Any], dict[str, Any]] | None = None) -> Decision:
    """`recorded`: the stats and state an earlier decision gave, when deciding it again."""
    encounter = open_encounter(situation.game)
    game = situation.game
    if command.name in encounter.combatants:
        raise RuleViolation(f"{command.name} is already in {encounter.name}")
    character = game.characters.get(command.name)
    if command.from_roster:
        if character is None:
            raise NotFound(f"there is no character called {command.name!r} on the roster; "
                           "`trek encounter add` brings in someone else")
    elif character is not None or command.name in game.conveyances:
        raise RuleViolation(f"{command.name} is on the roster; `trek encounter join "
                            f"{command.name}` brings a roster character in")
    check_can_stand(encounter, command.at, name=command.name)
    grid = GRIDS[encounter.grid]
    if command.facing is not None and command.facing not in grid.directions:
        raise RuleViolation(f"--facing {command.facing} is not a direction on {grid.cells}; "
                            f"use {' '.join(grid.directions)}")
    if command.options is not None:
        check_character_options(rules, command.options)
    stats, state = recorded or rules.enter(situation, command, character)
    broken, others = rules.entering(situation, command)
    return CombatantEntered(
        name=command.name,
        side=command.side,
        at=command.at,
        facing=command.facing or rules.default_facing,
        from_roster=command.from_roster,
        stats=stats,
        state=state,
        broken=broken,
        others=others,
    )


def find_door(encounter: Encounter, named: str) -> str:
    """The name of the door called `named`, or of the door at grid point X,Y (the one that
    starts there, else one that runs through it)."""
    doors = (encounter.map or {}).get("doors", [])
    if not doors:
        raise NotFound(f"{encounter.name} has no doors; a battle map gives them in [[door]] "
                       "tables")
    for entry in doors:
        if door_name(entry) == named:
            return named
    try:
        point = parse_square(named)
    except ValueError:
        point = None
    if point is not None:
        for entry in doors:
            if tuple(entry["from"]) == point:
                return door_name(entry)
        for entry in doors:
            (x0, y0), (x1, y1) = entry["from"], entry["to"]
            if (min(x0, x1) <= point.x <= max(x0, x1)
                    and min(y0, y1) <= point.y <= max(y0, y1)):
                return door_name(entry)
    known = ", ".join(door_name(entry) for entry in doors)
    raise NotFound(f"there is no door called {named!r} or at that grid point in "
                   f"{encounter.name} (its doors: {known})")


def require_round(encounter: Encounter) -> None:
    if encounter.round == 0:
        raise RuleViolation("no round has started; `trek encounter round` starts round 1")


def redecide(rules: EncounterRules, situation: Situation, event: TrekEvent) -> Decision | None:
    """Decide a shared encounter event again, for re-checking history; None if not one."""
    return _redo_of(type(event))(event, rules, situation)


@singledispatch
def _redo(event: TrekEvent, rules: EncounterRules, situation: Situation) -> Decision | None:
    return None


@_redo.register
def _(event: EncounterStarted, rules: EncounterRules, situation: Situation) -> Decision:
    return start(situation, event.name, event.map, event.grid)


@_redo.register
def _(event: CombatantEntered, rules: EncounterRules, situation: Situation) -> Decision:
    # The stats were given at the time; the place and the name are what may now clash.
    from domain.commands.encounter import EnterCombatant

    return enter(rules, situation, EnterCombatant(
        name=event.name, at=event.at, side=event.side, facing=event.facing,
        from_roster=event.from_roster), recorded=(event.stats, event.state))


# Each event class's rule as singledispatch finds it, asked once per class: re-checking history
# asks for every later event.
_redo_of = cache(_redo.dispatch)
