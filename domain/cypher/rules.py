"""Cypher long-term travel: miles per day, terrain multipliers, exact fractions, transit."""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from functools import cache, cached_property, singledispatch
from types import MappingProxyType
from typing import TYPE_CHECKING, Any

from pydantic import BaseModel

from domain import pathfinding
from domain.bounds import MAX_LEVEL
from domain.cypher.events import EVENTS, DayEnded, DayStarted, Travelled
from domain.cypher.state import journey
from domain.dice import Dice
from domain.errors import NotOffered, RuleViolation
from domain.events import TrekEvent
from domain.geometry import Square
from domain.grid import SQUARES
from domain.maps import MapSection, Terrain, extent
from domain.ruleset import (
    Command,
    Decision,
    FightApart,
    NoHouseRules,
    NothingOnEntry,
    Situation,
    given_stat_flags,
    not_offered,
)
from domain.state import Character, Conveyance, ConveyanceKind, Game, Role
from domain.values import check_number

if TYPE_CHECKING:
    from domain.commands.days import DayEndOptions
    from domain.commands.encounter import EnterCombatant
    from domain.commands.travel import MoveOptions
    from domain.cypher.combat import CypherCombat
    from domain.options import CharacterOptions
    from domain.plan import PlanRules
    from domain.ruleset import EventsLoader

ROAD_MILES = 20
OVERLAND_MILES = 12
DEFAULT_SQUARE_MILES = 6
POOLS = ("might", "speed", "intellect")

# Long-term movement is cut to this part of the normal rate on each kind of ground.
# The terrain words a Cypher map may use.
TERRAINS: frozenset[Terrain] = frozenset(
    {
        Terrain.OPEN,
        Terrain.ROUGH,
        Terrain.DIFFICULT,
        Terrain.WATER,
        Terrain.HIGH_GRAVITY,
        Terrain.FEATURE,
    }
)

TERRAIN_MULTIPLIER: dict[Terrain, Fraction] = {
    Terrain.OPEN: Fraction(1),
    Terrain.ROUGH: Fraction(1, 2),
    Terrain.DIFFICULT: Fraction(1, 3),
    Terrain.WATER: Fraction(1, 4),
    Terrain.HIGH_GRAVITY: Fraction(1, 3),
}
# A skill every traveller has that softens a terrain, and the multiplier it gives instead.
TRAINED: dict[Terrain, tuple[str, Fraction]] = {
    Terrain.WATER: ("swimming", Fraction(1, 2)),
    Terrain.HIGH_GRAVITY: ("high-gravity", Fraction(1)),
}


def fraction_text(value: Fraction) -> str:
    """Lowest terms, whole numbers without a denominator: "0", "1", "3/2"."""
    return str(value)


def square_miles(situation: Situation) -> int:
    return situation.map.square_miles if situation.map is not None else DEFAULT_SQUARE_MILES


def unit_rates(game: Game, road: bool) -> list[int]:
    """Miles a day of each travelling unit: walkers, riders (doubled) and vehicles."""
    walk = ROAD_MILES if road else OVERLAND_MILES
    rates: list[int] = []
    for character in game.characters.values():
        if not character.with_party:
            continue
        if character.conveyance is None:
            rates.append(walk)
            continue
        conveyance = game.conveyances.get(character.conveyance)
        if (conveyance is not None and conveyance.kind is ConveyanceKind.MOUNT
                and character.role is Role.RIDER):
            rates.append(2 * walk)
    rates += [c.miles or 0 for c in game.conveyances.values()
              if c.kind is ConveyanceKind.VEHICLE and c.with_party and c.usable]
    return rates


def terrain_multiplier(game: Game, terrain: Terrain) -> Fraction:
    multiplier = TERRAIN_MULTIPLIER.get(terrain, Fraction(1))
    trained = TRAINED.get(terrain)
    if trained is not None:
        skill, better = trained
        travellers = [c for c in game.characters.values() if c.with_party]
        if travellers and all(c.skill(skill) >= 1 for c in travellers):
            multiplier = better
    return multiplier


def group_rate(situation: Situation, square: Square) -> Fraction:
    """The group's miles a day on `square`: the slowest unit, times the square's terrain."""
    game_map = situation.map
    cell = game_map.cell(square) if game_map is not None else None
    road = bool(cell and cell.road)
    slowest = min(unit_rates(situation.game, road),
                  default=ROAD_MILES if road else OVERLAND_MILES)
    terrain = cell.terrain if cell is not None else Terrain.OPEN
    return Fraction(slowest) * terrain_multiplier(situation.game, terrain)


def square_cost(situation: Situation, square: Square) -> Fraction:
    """The part of a day entering `square` takes."""
    rate = group_rate(situation, square)
    if rate <= 0:
        raise RuleViolation("a vehicle travelling with the party has no miles a day; "
                            "nothing can move")
    return Fraction(square_miles(situation)) / rate


def entry_refusal(situation: Situation, square: Square) -> str | None:
    game_map = situation.map
    if game_map is None:
        return None
    if not game_map.contains(square):
        return f"{square.x},{square.y} is off the map ({game_map.width}×{game_map.height})"
    cell = game_map.cell(square)
    if cell.terrain is Terrain.FEATURE:
        return f"{square.x},{square.y} is {cell.name or 'a terrain feature'}, which is impassable"
    return None


def check_destination(situation: Situation, goal: Square) -> None:
    """`move --to` a square the party can never enter is refused for that square."""
    game_map = situation.map
    if game_map is not None and not game_map.contains(goal):
        raise RuleViolation(f"{goal.x},{goal.y} is off the map "
                            f"({extent(game_map.width, game_map.height)})")
    reason = entry_refusal(situation, goal)
    if reason is not None:
        raise RuleViolation(reason)


def _walk(start: Square, goal: Square) -> list[Square]:
    """On an open plain every step costs the same: walk diagonally, then straight."""
    path, here = [], start
    while here != goal:
        here = Square(here.x + (goal.x > here.x) - (goal.x < here.x),
                      here.y + (goal.y > here.y) - (goal.y < here.y))
        path.append(here)
    return path


def _steps(a: Square, b: Square) -> int:
    return max(abs(a.x - b.x), abs(a.y - b.y))


def cheapest_route(situation: Situation, goal: Square) -> list[Square] | None:
    """The squares from the party to `goal` taking the least time (Dijkstra, exact fractions).

    A square the party is in transit toward costs, as its first step, only what is still owed.
    """
    start = situation.game.position
    transit = journey(situation.game).transit
    owed = Fraction(transit.remaining) if transit is not None else None
    game_map = situation.map
    if game_map is None:
        path = _walk(start, goal)
        if (transit is not None and owed is not None and path and path[0] != transit.to
                and _steps(transit.to, goal) < _steps(start, goal)
                and owed < square_cost(situation, transit.to)):
            return [transit.to, *_walk(transit.to, goal)]
        return path

    def step_cost(here: Square, there: Square) -> Fraction | None:
        if entry_refusal(situation, there):
            return None
        if owed is not None and transit is not None and here == start and there == transit.to:
            return owed
        return square_cost(situation, there)

    found = pathfinding.cheapest_path(SQUARES, start, goal, step_cost)
    return found[0][1:] if found is not None else None


def _fight_events() -> tuple[type[TrekEvent], ...]:
    """The fight's events (rounds, moves, pushes and chases), loaded when a campaign's log
    first holds one."""
    from domain.cypher.combat import COMBAT_EVENTS

    return COMBAT_EVENTS


class Cypher(FightApart, NothingOnEntry):
    """The Cypher System's long-term travel, and its rounds and chases in encounters.

    Its fight (domain/cypher/combat.py: the rules, their commands and events) loads when an
    encounter first needs it, so an overland command loads none of it.
    """

    name = "cypher"
    terrains: frozenset[Terrain] = TERRAINS
    map_sections: Mapping[str, MapSection] = MappingProxyType({})
    events = EVENTS
    event_parts: Mapping[str, EventsLoader] = {"domain.cypher.combat": _fight_events}
    character_options: frozenset[str] = frozenset(POOLS)
    house_rules: type[BaseModel] = NoHouseRules
    audit_sections: tuple[str, ...] = ()
    grid = "square"
    encounters = True
    default_facing: str | None = None

    # -- the fight, handed to its own rules ------------------------------------------------

    @cached_property
    def fight(self) -> CypherCombat:
        """The fight's rules, made the first time an encounter needs them."""
        from domain.cypher.combat import CypherCombat

        return CypherCombat()

    @cached_property
    def commands(self) -> frozenset[type[Command]]:
        """Its own commands (the fight's pushes and chases), loaded when a campaign is first
        asked whether it offers one."""
        from domain.cypher.combat import COMMANDS

        return COMMANDS

    @property
    def move_options(self) -> frozenset[str]:
        return self.fight.move_options

    @property
    def plan_rules(self) -> PlanRules:
        """How `trek plan` plays a Cypher journey (domain/cypher/plan.py, loaded by plans
        only)."""
        from domain.cypher.plan import CypherPlanRules

        return CypherPlanRules()

    def enter(self, situation: Situation, command: EnterCombatant,
              character: Character | None) -> tuple[dict[str, Any], dict[str, Any]]:
        stats: dict[str, Any] = {}
        if character is None:
            from domain.options import CharacterOptions

            options = command.options or CharacterOptions(name=command.name)
            stats = self.character(situation, options)
        from domain.cypher.combat import CypherState

        return stats, CypherState().model_dump()

    def character(self, situation: Situation, options: CharacterOptions) -> dict[str, Any]:
        shared = given_stat_flags(options)
        if shared:
            raise NotOffered(
                f"{', '.join(shared)} {'is' if len(shared) == 1 else 'are'} not a Cypher "
                "option; a Cypher character takes optional --might, --speed and --intellect "
                "pools and --skill")
        pools = {pool: options.extra[pool] for pool in POOLS if pool in options.extra}
        for pool, value in pools.items():
            check_number(value, f"--{pool}", 0, MAX_LEVEL)
        return {"stats": pools, "skills": dict(options.skills)}

    def mount(self, situation: Situation, name: str, move: tuple[str, int] | None,
              rider: str | None) -> dict[str, Any]:
        if move is not None:
            raise RuleViolation("a Cypher mount takes no --move: riding it doubles its rider's "
                                "daily miles")
        return {}

    def vehicle(self, situation: Situation, name: str,
                move: tuple[str, int] | None) -> dict[str, Any]:
        if move is None or move[0] != "miles":
            raise RuleViolation("a Cypher vehicle needs --move miles=N, its miles a day")
        if move[1] < 1:
            raise RuleViolation(f"a vehicle travels at least 1 mile a day, not {move[1]}")
        return {"miles": move[1]}

    def flying(self, situation: Situation) -> bool:
        return False

    def conveyance_status(self, conveyance: Conveyance) -> dict[str, Any]:
        # Every conveyance in `trek status` has the strain field; a Cypher one never strains.
        return {"pending_strain": 0}

    def movement_status(self, situation: Situation) -> dict[str, Any]:
        game = situation.game
        day, today = game.day, journey(game)
        spent = Fraction(today.spent) if day.open else Fraction(0)
        transit = today.transit
        return {
            "unit": "day",
            "used": fraction_text(spent),
            "remaining": fraction_text(1 - spent) if day.open else "0",
            "miles_today": today.miles if day.open else 0,
            "in_transit": (
                {"to": transit.to.as_dict(), "remaining": transit.remaining}
                if transit is not None else None
            ),
        }

    def start_day(self, situation: Situation) -> Decision:
        day = situation.game.day
        if day.open:
            raise RuleViolation(f"day {day.number} is still open; run `trek day end` first")
        return DayStarted(number=day.number + 1)

    def end_day(self, situation: Situation, options: DayEndOptions) -> Decision:
        day = situation.game.day
        if not day.open:
            raise situation.game.no_open_day()
        if options.rests:
            raise RuleViolation("the Cypher ruleset has no rest rules; leave out --rest")
        if options.hours is not None:
            raise RuleViolation("the Cypher ruleset has no rest rules, so no hours slept; "
                                "leave out --hours")
        return DayEnded(number=day.number)

    def move(self, situation: Situation, options: MoveOptions) -> Decision:
        game = situation.game
        if options.through_hazard:
            raise RuleViolation("the Cypher ruleset has no hazards; leave out --through-hazard")
        self._require_time(situation)
        if options.to is not None:
            if options.to == game.position:
                raise RuleViolation(f"the party already stands on {options.to.x},{options.to.y}")
            check_destination(situation, options.to)
            route = cheapest_route(situation, options.to)
            if route is None:
                raise RuleViolation(f"no passable route reaches {options.to.x},{options.to.y}")
            return self._travel(situation, route, as_far_as_today=True)
        if not options.steps:
            raise RuleViolation("give at least one direction (N NE E SE S SW W NW) or --to X,Y")
        route, here = [], game.position
        for direction in options.steps:
            here = here.step(direction)
            route.append(here)
        return self._travel(situation, route, as_far_as_today=False)

    def redo_move(self, situation: Situation, event: TrekEvent) -> Decision:
        assert isinstance(event, Travelled)
        self._require_time(situation)
        if event.path[0] != situation.game.position:
            where = situation.game.position
            raise RuleViolation(f"the move starts at {event.path[0].x},{event.path[0].y} but "
                                f"the party stands on {where.x},{where.y}")
        route = list(event.path[1:]) + ([event.toward] if event.toward is not None else [])
        return self._travel(situation, route, as_far_as_today=False)

    def _require_time(self, situation: Situation) -> None:
        day = situation.game.day
        if not day.open:
            raise situation.game.no_open_day()
        if Fraction(journey(situation.game).spent) >= 1:
            raise RuleViolation(f"nothing remains of day {day.number}; run `trek day end`")

    def _travel(self, situation: Situation, route: list[Square],
                as_far_as_today: bool) -> Decision:
        game = situation.game
        left = 1 - Fraction(journey(game).spent)
        spent = Fraction(0)
        miles = 0
        here = game.position
        path = [here]
        transit = journey(game).transit
        dropped = None
        toward: Square | None = None
        owed: Fraction | None = None
        for index, square in enumerate(route):
            if left == 0 and as_far_as_today:
                break
            reason = entry_refusal(situation, square)
            if reason is not None:
                raise RuleViolation(f"cannot move: {reason}")
            if transit is not None and index == 0 and square == transit.to:
                # The cost still owed was fixed when the transit began.
                cost = Fraction(transit.remaining)
            else:
                if transit is not None and index == 0:
                    dropped = transit
                cost = square_cost(situation, square)
            if cost <= left:
                left -= cost
                spent += cost
                miles += square_miles(situation)
                path.append(square)
                here = square
                continue
            if index < len(route) - 1 and not as_far_as_today:
                raise RuleViolation(
                    f"the day runs out on the way to {square.x},{square.y}, with "
                    f"{len(route) - index - 1} more step(s) to go; move fewer steps"
                )
            toward, owed = square, cost - left
            spent += left
            left = Fraction(0)
            break
        return Travelled(
            path=path,
            spent=fraction_text(spent),
            miles=miles,
            toward=toward,
            still_to_pay=fraction_text(owed) if owed is not None else None,
            dropped=dropped.model_dump() if dropped is not None else None,
        )

    def decide(self, command: Command, situation: Situation, dice: Dice) -> Decision:
        """Its own commands are the fight's (a push, a chase, a chase's roll)."""
        decided = self.fight.decide(command, situation, dice)
        if decided is None:
            raise not_offered(self.name, command.what)
        return decided

    def redecide(self, situation: Situation, event: TrekEvent) -> Decision | None:
        decided = _redo_of(type(event))(event, self, situation)
        if decided is None:
            # Every overland event of Cypher's has its rule below: any other is the fight's.
            from domain.cypher.combat import redo_of

            decided = redo_of(type(event))(event, self.fight, situation)
        return decided


@singledispatch
def _redo(event: TrekEvent, rules: Cypher, situation: Situation) -> Decision | None:
    """Decide a Cypher overland event again from what it recorded; None when it is not one
    (the fight's are decided again by `domain.cypher.combat.redo_of`)."""
    return None


@_redo.register
def _(event: Travelled, rules: Cypher, situation: Situation) -> Decision:
    return rules.redo_move(situation, event)


@_redo.register
def _(event: DayStarted, rules: Cypher, situation: Situation) -> Decision:
    return rules.start_day(situation)


@_redo.register
def _(event: DayEnded, rules: Cypher, situation: Situation) -> Decision:
    # The hours a day end of an earlier release recorded (always unused) stay as recorded.
    from domain.commands.days import DayEndOptions

    return rules.end_day(situation, DayEndOptions()).model_copy(update={"hours": event.hours})


# Each event class's rule as singledispatch finds it, asked once per class: re-checking history
# asks for every later event.
_redo_of = cache(_redo.dispatch)
