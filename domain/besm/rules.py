"""BESM overland travel: squares per day, checks, forced marches, strain, repair and rest."""

from __future__ import annotations

from collections.abc import Callable, Collection, Mapping
from functools import cache, cached_property, singledispatch
from typing import TYPE_CHECKING, Any, NamedTuple

from pydantic import BaseModel

from domain import pathfinding, roster
from domain.besm.events import (
    AUDIT_SECTIONS,
    EVENTS,
    FORAGE_ROLL,
    NIGHT_TRAVEL_ROLL,
    REPAIR_ROLL,
    SHORTCUT_ROLL,
    DayEnded,
    DayStarted,
    Moved,
    Recovery,
    StrainLanded,
    Upkeep,
)
from domain.besm.maps import (
    MAP_SECTIONS,
    TERRAINS,
    find_shortcut,
    near_shortcut,
    shortcuts,
)
from domain.besm.state import (
    HouseRules,
    TravelDay,
    pending_strain,
    remaining,
    rules_of,
    stat,
    today,
)
from domain.dice import Dice, check
from domain.errors import NotFound, RuleViolation
from domain.events import TrekEvent
from domain.geometry import Square
from domain.grid import SQUARES
from domain.maps import MapSection, Terrain, extent
from domain.ruleset import (
    Command,
    Decision,
    EventsLoader,
    FightApart,
    NothingOnEntry,
    Situation,
    not_offered,
)
from domain.state import (
    Character,
    Conveyance,
    ConveyanceKind,
    ConveyanceState,
    Game,
    Role,
)

if TYPE_CHECKING:
    from domain.besm.combat import CombatRules
    from domain.commands.days import DayEndOptions
    from domain.commands.encounter import EnterCombatant
    from domain.commands.travel import MoveOptions
    from domain.options import CharacterOptions
    from domain.plan import PlanRules
    from domain.rolls import Roll

STATS = ("body", "mind", "soul")
MOVEMENT_ATTRIBUTES = ("speed", "ground-speed", "flight")
# The options `encounter move` takes in a BESM encounter.
MOVE_OPTIONS = frozenset({"shift", "stealthy"})
REST_MODES = ("camp", "saddle", "vehicle", "none")
# Points of success one level of each supply costs when foraging.
FORAGE_COST = {"provisions": 1, "fuel": 3, "ammo": 3, "wealth": 5}
MAX_HOURS = 24
# The night's sleep when `day end` is given no --hours (RULES §3).
SLEEP_HOURS = 8


# -- stats and checks ------------------------------------------------------------------------


def stat_value(character: Character, expression: str) -> int:
    """A stat, or a combined stat such as `body-soul`: the average rounded down."""
    parts = expression.split("-")
    values: list[int] = [stat(character, part) for part in parts]
    return sum(values) // len(values)


def better_skill(character: Character, *skills: str) -> int:
    return max(character.skill(skill) for skill in skills)


def square_penalty(situation: Situation) -> int:
    if situation.map is None:
        return 0
    return situation.map.penalty(situation.game.position)


def navigation_target(character: Character, penalty: int) -> int:
    return stat(character, "mind") + better_skill(character, "navigation", "survival") - penalty


def forage_target(character: Character, penalty: int) -> int:
    return stat_value(character, "body-mind") + character.skill("survival") - penalty


def rider_target(character: Character, penalty: int) -> int:
    skill = better_skill(character, "animal-ken", "ride")
    return stat_value(character, "body-soul") + skill - penalty


def driver_target(character: Character, penalty: int) -> int:
    return stat_value(character, "body-mind") + better_skill(character, "drive", "pilot") - penalty


def repair_target(character: Character, conveyance: Conveyance, penalty: int) -> int:
    skill = "medicine" if conveyance.kind is ConveyanceKind.MOUNT else "technology"
    return stat(character, "mind") + character.skill(skill) - penalty


def party_characters(game: Game) -> list[Character]:
    return [c for c in game.characters.values() if c.with_party]


def best_for(game: Game, target: Callable[[Character], int]) -> Character | None:
    """The character in the party with the highest target; ties go to the earliest added."""
    best: Character | None = None
    for character in party_characters(game):
        if best is None or target(character) > target(best):
            best = character
    return best


def require_known(situation: Situation, by: str | None) -> None:
    """A `--by` that names nobody on the roster is the first thing said, before the day's
    state (no day open, no movement left) is."""
    if by is not None:
        roster.character(situation.game, by)


def roller(situation: Situation, by: str | None, target: Callable[[Character], int],
           what: str) -> Character:
    game = situation.game
    if by is not None:
        character = roster.character(game, by)
        if not character.with_party:
            raise RuleViolation(f"{by} was left behind and cannot roll for {what}")
        return character
    best = best_for(game, target)
    if best is None:
        raise RuleViolation(
            f"nobody in the party can roll for {what}; "
            "add a character with `trek roster add-character`"
        )
    return best


# -- travel rates ----------------------------------------------------------------------------


def attribute_rate(attribute: str, level: int) -> int:
    """Squares a day one movement attribute gives at a level (0 below level 1)."""
    if level < 1:
        return 0
    return 2 * level if attribute == "ground-speed" else level


def character_rate(character: Character) -> int:
    rates = [attribute_rate(a, lvl) for a, lvl in character.attributes.items()
             if a in MOVEMENT_ATTRIBUTES]
    return max([1, *rates])


def conveyance_rate(conveyance: Conveyance) -> int:
    return max(1, attribute_rate(conveyance.attribute or "", conveyance.level))


class Unit(NamedTuple):
    """What travels: a character or conveyance, its movement rate, and whether it flies."""

    name: str
    rate: int
    flies: bool


def travelling_conveyances(game: Game) -> list[Conveyance]:
    return [c for c in game.conveyances.values() if c.with_party and c.usable]


def travelling_units(game: Game) -> list[Unit]:
    """Characters on foot, mounts and vehicles travelling with the party."""
    units = [
        Unit(c.name, character_rate(c), c.attributes.get("flight", 0) >= 1)
        for c in party_characters(game) if c.conveyance is None
    ]
    units += [
        Unit(c.name, conveyance_rate(c), c.attribute == "flight" and c.level >= 1)
        for c in travelling_conveyances(game)
    ]
    return units


def base_movement(game: Game) -> int:
    """The slowest travelling unit sets the pace; a party of nobody walks at 1.

    The rates of `travelling_units`, worked out without making the units: every day and
    every forced march or night's travel asks."""
    slowest: int | None = None
    for c in game.characters.values():
        if c.with_party and c.conveyance is None:
            rate = character_rate(c)
            slowest = rate if slowest is None or rate < slowest else slowest
    for v in game.conveyances.values():
        if v.with_party and v.usable:
            rate = conveyance_rate(v)
            slowest = rate if slowest is None or rate < slowest else slowest
    return 1 if slowest is None else slowest


def group_flies(game: Game) -> bool:
    """Whether every travelling unit flies (and there is one): `travelling_units`' `flies`,
    without working out their rates, since every move asks."""
    anyone = False
    for c in game.characters.values():
        if c.with_party and c.conveyance is None:
            if c.attributes.get("flight", 0) < 1:
                return False
            anyone = True
    for v in game.conveyances.values():
        if v.with_party and v.usable:
            if not (v.attribute == "flight" and v.level >= 1):
                return False
            anyone = True
    return anyone


# -- the map ---------------------------------------------------------------------------------


def step_refusal(situation: Situation, square: Square, through_hazard: bool,
                 flying: bool, opened: Collection[Square]) -> str | None:
    """Why the party may not enter `square` (`opened`: the feature squares today's shortcuts
    opened), or None when it may."""
    game_map = situation.map
    if game_map is None:
        return None
    if not game_map.contains(square):
        return f"{_sq(square)} is off the map ({game_map.width}×{game_map.height})"
    cell = game_map.cell(square)
    if (cell.terrain is Terrain.FEATURE and not flying
            and square not in opened):
        what = cell.name or "a terrain feature"
        return (f"{_sq(square)} is {what}, which the group can only cross flying "
                "or by a shortcut taken today")
    if cell.terrain is Terrain.HAZARD and not through_hazard:
        what = cell.name or "a hazard"
        return f"{_sq(square)} is {what}; add --through-hazard to go through it"
    return None


def check_destination(situation: Situation, goal: Square, through_hazard: bool) -> None:
    """`move --to` a square the party may never enter today is refused for that square, before
    anything is said of the budget."""
    game_map = situation.map
    if game_map is not None and not game_map.contains(goal):
        raise RuleViolation(f"{_sq(goal)} is off the map "
                            f"({extent(game_map.width, game_map.height)})")
    reason = step_refusal(situation, goal, through_hazard, group_flies(situation.game),
                          today(situation.game).opened)
    if reason is not None:
        raise RuleViolation(reason)


def _sq(square: Square) -> str:
    return f"{square.x},{square.y}"


def cheapest_path(situation: Situation, goal: Square, through_hazard: bool,
                  limit: int) -> list[Square] | None:
    """Fewest steps (8 directions, 1 each) from the party to `goal`, within `limit` steps."""
    flying = group_flies(situation.game)
    opened = today(situation.game).opened

    def step_cost(_here: Square, there: Square) -> int | None:
        return None if step_refusal(situation, there, through_hazard, flying, opened) else 1

    found = pathfinding.cheapest_path(SQUARES, situation.game.position, goal, step_cost,
                                      limit=limit)
    return found[0] if found is not None else None


# -- rest ------------------------------------------------------------------------------------


def rest_recovery(character: Character, mode: str, hours: int,
                  rules: HouseRules) -> tuple[int, int]:
    """Health for the night and Energy for the hours slept, at the night's rate."""
    mind_soul = stat_value(character, "mind-soul")
    if mode == "camp":
        health = max(0, stat(character, "body") + rules.camp_health_modifier)
        energy = max(0, mind_soul + rules.camp_energy_modifier)
    elif mode == "saddle":
        health, energy = max(0, stat(character, "body") - 2), max(0, mind_soul - 2)
    elif mode == "vehicle":
        health, energy = max(0, stat(character, "body") - 1), max(0, mind_soul - 1)
    else:
        health, energy = 0, 0
    return health, energy * hours


def night_rest_default(game: Game, character: Character) -> str:
    """After night travel: riders doze in the saddle, passengers in the vehicle, others not."""
    if character.conveyance is None:
        return "none"
    conveyance = game.conveyances.get(character.conveyance)
    if conveyance is None or not conveyance.usable or not conveyance.with_party:
        return "none"
    if character.role is Role.RIDER:
        return "saddle"
    if character.role is Role.PASSENGER:
        return "vehicle"
    return "none"


def night_travel_gain(base: int, roll: Roll) -> int:
    """Success travels the base movement again; each point of failure costs a square, to 1."""
    if roll.success:
        return base
    return max(1, base - roll.points)


def forage_gain(points: int, kind: str) -> int:
    return points // FORAGE_COST[kind]


# -- decisions -------------------------------------------------------------------------------


def require_open_day(situation: Situation) -> None:
    if not situation.game.day.open:
        raise situation.game.no_open_day()


def require_budget_unspent_on_repair(situation: Situation, what: str) -> TravelDay:
    """Today's travel, unless a repair took the day (then a refusal naming `what`)."""
    day = today(situation.game)
    if day.repaired:
        raise RuleViolation(
            f"today was spent on a repair, so no {what} is possible until `trek day start`"
        )
    return day


def _undertakings() -> tuple[type[TrekEvent], ...]:
    from domain.besm.undertakings import EVENTS as UNDERTAKINGS

    return UNDERTAKINGS


def _fight_events() -> tuple[type[TrekEvent], ...]:
    from domain.besm.combat import COMBAT_EVENTS

    return COMBAT_EVENTS


class Besm(FightApart, NothingOnEntry):
    """The BESM ruleset: overland travel, and combat movement in encounters.

    Its fight (domain/besm/combat.py: the rules, their events, the encounter's) loads when an
    encounter first needs it, so an overland command loads none of it.
    """

    name = "besm"
    terrains: frozenset[Terrain] = TERRAINS
    map_sections: Mapping[str, MapSection] = MAP_SECTIONS
    events = EVENTS
    # Its fight, and what a day may hold besides its clock and moves (stored under its events'
    # topics), each loaded when a campaign's log first holds one of its events.
    event_parts: Mapping[str, EventsLoader] = {"domain.besm.combat": _fight_events,
                                               "domain.besm.events": _undertakings}
    character_options: frozenset[str] = frozenset(STATS)
    house_rules: type[BaseModel] = HouseRules
    audit_sections: tuple[str, ...] = AUDIT_SECTIONS
    grid = "square"
    encounters = True
    move_options = MOVE_OPTIONS
    default_facing: str | None = None

    # -- the fight, handed to its own rules ------------------------------------------------

    @cached_property
    def fight(self) -> CombatRules:
        """The fight's rules, made the first time an encounter needs them."""
        from domain.besm.combat import CombatRules

        return CombatRules()

    @property
    def plan_rules(self) -> PlanRules:
        """How `trek plan` plays a BESM journey (domain/besm/plan.py, loaded by plans
        only)."""
        from domain.besm.plan import BesmPlanRules

        return BesmPlanRules()

    def enter(self, situation: Situation, command: EnterCombatant,
              character: Character | None) -> tuple[dict[str, Any], dict[str, Any]]:
        stats: dict[str, Any] = {}
        if character is None:
            from domain.options import CharacterOptions

            options = command.options or CharacterOptions(name=command.name)
            sheet = self.character(situation, options)
            stats = {**sheet["stats"], "skills": sheet["skills"],
                     "attributes": sheet["attributes"]}
        state = self.fight.fresh_state(self.fight.combat_stats(character, stats))
        return stats, state.model_dump()

    # -- roster ----------------------------------------------------------------------------

    def character(self, situation: Situation, options: CharacterOptions) -> dict[str, Any]:
        stats: dict[str, int] = {}
        for name in STATS:
            value = options.extra.get(name)
            if value is None:
                raise RuleViolation(f"a BESM character needs --{name} (1 to 12)")
            if not 1 <= value <= 12:
                raise RuleViolation(f"{name.capitalize()} must be 1 to 12, not {value}")
            stats[name] = value
        body, mind, soul = stats["body"], stats["mind"], stats["soul"]
        health_max = (body + soul) * 5 if options.health_max is None else options.health_max
        energy_max = (mind + soul) * 5 if options.energy_max is None else options.energy_max
        for label, value in (("--health-max", health_max), ("--energy-max", energy_max)):
            if value < 1:
                raise RuleViolation(f"{label} must be at least 1, not {value}")
        return {
            "stats": stats, "skills": dict(options.skills),
            "attributes": dict(options.attributes),
            "health_max": health_max, "energy_max": energy_max,
        }

    def _movement(self, move: tuple[str, int] | None, what: str) -> dict[str, Any]:
        if move is None:
            raise RuleViolation(
                f"a BESM {what} needs --move ATTRIBUTE=LEVEL "
                f"({', '.join(MOVEMENT_ATTRIBUTES)})"
            )
        attribute, level = move
        if attribute not in MOVEMENT_ATTRIBUTES:
            raise RuleViolation(
                f"{attribute!r} is not a movement attribute; use one of "
                f"{', '.join(MOVEMENT_ATTRIBUTES)}"
            )
        if level < 0:
            raise RuleViolation(f"a movement level is 0 or more, not {level}")
        return {"attribute": attribute, "level": level}

    def mount(self, situation: Situation, name: str, move: tuple[str, int] | None,
              rider: str | None) -> dict[str, Any]:
        return self._movement(move, "mount")

    def vehicle(self, situation: Situation, name: str,
                move: tuple[str, int] | None) -> dict[str, Any]:
        return self._movement(move, "vehicle")

    # -- the day ---------------------------------------------------------------------------

    def flying(self, situation: Situation) -> bool:
        return group_flies(situation.game)

    def conveyance_status(self, conveyance: Conveyance) -> dict[str, Any]:
        return {"pending_strain": pending_strain(conveyance)}

    def movement_status(self, situation: Situation) -> dict[str, Any]:
        game = situation.game
        base = base_movement(game)
        if not game.day.open:
            return {"base": base, "budget": 0, "used": 0, "remaining": 0}
        day = today(game)
        return {"base": base, "budget": day.budget, "used": day.used,
                "remaining": remaining(game, day)}

    def start_day(self, situation: Situation) -> Decision:
        day = situation.game.day
        if day.open:
            raise RuleViolation(f"day {day.number} is still open; run `trek day end` first")
        base = base_movement(situation.game)
        return DayStarted(number=day.number + 1, base=base, budget=base)

    def move(self, situation: Situation, options: MoveOptions) -> Decision:
        require_open_day(situation)
        require_budget_unspent_on_repair(situation, "movement")
        game = situation.game
        if options.to is not None:
            if options.to == game.position:
                raise RuleViolation(f"the party already stands on {_sq(options.to)}")
            check_destination(situation, options.to, options.through_hazard)
            left = remaining(game)
            path = cheapest_path(situation, options.to, False, left)
            if options.through_hazard:
                # --through-hazard allows a hazard, it does not seek one: only a shorter way
                # justifies facing it.
                risky = cheapest_path(situation, options.to, True, left)
                if risky is not None and (path is None or len(risky) < len(path)):
                    path = risky
            if path is None:
                raise RuleViolation(
                    f"no legal path reaches {_sq(options.to)} within the "
                    f"{left} square(s) left today"
                    + ("" if options.through_hazard else " (hazards avoided; "
                       "--through-hazard allows them)")
                )
        else:
            if not options.steps:
                raise RuleViolation("give at least one direction (N NE E SE S SW W NW) or --to X,Y")
            path = [game.position]
            for direction in options.steps:
                path.append(path[-1].step(direction))
        return self._walk(situation, path, options.through_hazard)

    def redo_move(self, situation: Situation, event: TrekEvent) -> Decision:
        assert isinstance(event, Moved)
        require_open_day(situation)
        day = require_budget_unspent_on_repair(situation, "movement")
        return self._walk(situation, list(event.path), event.through_hazard, day)

    def _walk(self, situation: Situation, path: list[Square], through_hazard: bool,
              day: TravelDay | None = None) -> Decision:
        """`day`: today's travel, when the caller has read it and nothing has changed it."""
        game = situation.game
        if path[0] != game.position:
            raise RuleViolation(
                f"the move starts at {_sq(path[0])} but the party stands on {_sq(game.position)}"
            )
        steps = len(path) - 1
        day = today(game) if day is None else day
        left = remaining(game, day)
        if steps > left:
            raise RuleViolation(f"the move needs {steps} square(s) but only {left} remain today")
        flying = group_flies(game)
        for square in path[1:]:
            reason = step_refusal(situation, square, through_hazard, flying, day.opened)
            if reason is not None:
                raise RuleViolation(f"cannot move: {reason}")
        hazard = through_hazard and situation.map is not None and any(
            situation.map.cell(sq).terrain is Terrain.HAZARD for sq in path[1:]
        )
        return Moved(path=path, cost=steps, through_hazard=hazard)

    def end_day(self, situation: Situation, options: DayEndOptions) -> Decision:
        require_open_day(situation)
        game = situation.game
        hours = SLEEP_HOURS if options.hours is None else options.hours
        if not 0 <= hours <= MAX_HOURS:
            raise RuleViolation(f"--hours is 0 to {MAX_HOURS}, not {hours}")
        for name, mode in options.rests.items():
            if mode not in REST_MODES:
                raise RuleViolation(f"{mode!r} is not a rest mode; use {', '.join(REST_MODES)}")
            member = roster.character(game, name)
            if not member.with_party:
                raise RuleViolation(f"{name} was left behind and does not rest with the party")

        strain: dict[str, StrainLanded] = {}
        on_foot: list[str] = []
        for conveyance in game.conveyances.values():
            lost = pending_strain(conveyance)
            if lost <= 0 or not conveyance.usable or game.party_of(conveyance.name) != game.party:
                # Another party's strain lands at that party's own day end.
                continue
            level = conveyance.level - lost
            state = ConveyanceState.OK
            if level < 0:
                state = (ConveyanceState.DEAD if conveyance.kind is ConveyanceKind.MOUNT
                         else ConveyanceState.BROKEN)
                on_foot += [c.name for c in game.riders_of(conveyance.name)]
            strain[conveyance.name] = StrainLanded(lost=lost, level=level, state=state)

        recovery: dict[str, Recovery] = {}
        day, rules = today(game), rules_of(game)
        defaults = day.night_roles or {}
        for character in party_characters(game):
            mode = options.rests.get(character.name) or (
                defaults.get(character.name, "camp") if day.night_travelled else "camp"
            )
            health, energy = rest_recovery(character, mode, hours, rules)
            recovery[character.name] = Recovery(mode=mode, health=health, energy=energy)

        upkeep: dict[str, Upkeep] = {}
        for kind, needed in (("provisions", rules.upkeep_provisions),
                             ("fuel", rules.upkeep_fuel)):
            if needed > 0:
                spent = min(needed, game.supplies[kind])
                upkeep[kind] = Upkeep(needed=needed, spent=spent, shortfall=needed - spent)

        return DayEnded(
            number=game.day.number,
            strain=strain,
            on_foot=on_foot,
            hours=hours,
            recovery=recovery,
            upkeep=upkeep,
            chosen=sorted(options.rests),
        )

    # -- commands only this ruleset has ----------------------------------------------------

    @cached_property
    def commands(self) -> frozenset[type[Command]]:
        """BESM's own commands, loaded when a campaign is first asked whether it offers one."""
        from domain.besm.commands import COMMANDS

        return COMMANDS

    def decide(self, command: Command, situation: Situation, dice: Dice) -> Decision:
        # The campaign hands over only the commands above: each of BESM's own names its rule
        # (`BesmCommand.decide_by`); the shared `encounter act` is the fight's.
        from domain.besm.commands import BesmCommand
        from domain.commands.rounds import Act

        if isinstance(command, BesmCommand):
            return command.decide_by(self, situation, dice)
        if not isinstance(command, Act):
            raise not_offered(self.name, command.what)
        if command.kind is not None:
            raise RuleViolation(f"a BESM action has no kind ({command.kind!r}); give "
                                "`encounter act NAME`, with --ranged for a ranged attack")
        return self.fight.act(situation, command.name, bool(command.options.get("ranged")))

    def redecide(self, situation: Situation, event: TrekEvent) -> Decision | None:
        decided = _redo_of(type(event))(event, self, situation)
        if decided is None:
            # Every overland event of BESM's has its rule above: any other is the fight's.
            from domain.besm.combat import redo_of

            decided = redo_of(type(event))(event, self.fight, situation)
        return decided

    def _redo_day_end(self, situation: Situation, event: DayEnded) -> Decision:
        # Only the modes the GM chose are given again; the defaults are worked out anew.
        chosen = event.chosen if event.chosen is not None else list(event.recovery)
        from domain.commands.days import DayEndOptions

        decided = self.end_day(situation, DayEndOptions(
            rests={name: rest.mode for name, rest in event.recovery.items()
                   if name in chosen},
            hours=event.hours,
        ))
        if event.chosen is None:
            decided = decided.model_copy(update={"chosen": None})
        return decided

    def shortcut(self, situation: Situation, dice: Dice, *, name: str) -> Decision:
        require_open_day(situation)
        require_budget_unspent_on_repair(situation, "shortcut")
        game_map = situation.map
        shortcut = find_shortcut(game_map, name) if game_map is not None else None
        if game_map is None or shortcut is None:
            near = near_shortcut(game_map, name) if game_map is not None else None
            if near is not None:
                raise NotFound(f"the map has no shortcut called {name!r} (names match exactly, "
                               f"capitals included); perhaps you meant {near.name!r}")
            known = ", ".join(s.name for s in shortcuts(game_map)) if game_map else ""
            raise NotFound(
                f"the map has no shortcut called {name!r}"
                + (f"; it has {known}" if known else "; it has none")
            )
        game = situation.game
        if shortcut.name in today(game).shortcuts_tried:
            raise RuleViolation(f"the group already tried {shortcut.name} today; one attempt a day")
        first = shortcut.path[0]
        if not game.position.is_adjacent_or_same(first):
            raise RuleViolation(
                f"{shortcut.name} starts at {_sq(first)}; the party must stand on or next to it "
                f"(it is on {_sq(game.position)})"
            )
        penalty = square_penalty(situation) + shortcut.penalty
        navigator = roller(situation, None, lambda c: navigation_target(c, penalty),
                           "the shortcut")
        roll = check(SHORTCUT_ROLL, navigation_target(navigator, penalty), dice, by=navigator.name)
        from domain.besm.undertakings import ShortcutAttempted

        return ShortcutAttempted(
            name=shortcut.name,
            roll=roll,
            bonus=shortcut.bonus if roll.success else 0,
            opened=list(shortcut.path) if roll.success else [],
        )

    def forced_march(self, situation: Situation, dice: Dice) -> Decision:
        require_open_day(situation)
        require_budget_unspent_on_repair(situation, "forced march")
        game = situation.game
        conveyances = travelling_conveyances(game)
        if not conveyances:
            raise RuleViolation("a forced march needs at least one mount or vehicle travelling "
                                "with the party")
        penalty = square_penalty(situation)
        crew: list[tuple[Conveyance, Character, int]] = []
        for conveyance in conveyances:
            wanted = Role.RIDER if conveyance.kind is ConveyanceKind.MOUNT else Role.DRIVER
            aboard = [c for c in game.riders_of(conveyance.name) if c.role is wanted]
            if not aboard:
                raise RuleViolation(
                    f"{conveyance.name} has no {wanted.value}; assign one with "
                    f"`trek roster assign CHAR --to {conveyance.name} --as {wanted.value}`"
                )
            member = aboard[0]
            target = (rider_target(member, penalty) if wanted is Role.RIDER
                      else driver_target(member, penalty))
            crew.append((conveyance, member, target))
        provisions = sum(1 for c in conveyances if c.kind is ConveyanceKind.MOUNT)
        fuel = len(conveyances) - provisions
        for kind, needed in (("provisions", provisions), ("fuel", fuel)):
            if game.supplies[kind] < needed:
                raise RuleViolation(
                    f"a forced march needs {needed} {kind} but the party has "
                    f"{game.supplies[kind]}"
                )
        rolls = [check(member.name, target, dice, by=member.name)
                 for _conveyance, member, target in crew]
        strain = {conveyance.name: 1 for (conveyance, _m, _t), roll in zip(crew, rolls, strict=True)
                  if not roll.success}
        from domain.besm.undertakings import ForcedMarched

        return ForcedMarched(
            base=base_movement(game),
            provisions=provisions,
            fuel=fuel,
            strain_rolls=rolls,
            strain=strain,
        )

    def night_travel(self, situation: Situation, dice: Dice, *, by: str | None = None) -> Decision:
        require_known(situation, by)
        require_open_day(situation)
        require_budget_unspent_on_repair(situation, "night travel")
        game = situation.game
        if today(game).night_travelled:
            raise RuleViolation("the group already travelled by night today; once a day")
        penalty = square_penalty(situation)
        navigator = roller(situation, by, lambda c: navigation_target(c, penalty), "night travel")
        roll = check(NIGHT_TRAVEL_ROLL, navigation_target(navigator, penalty), dice,
                     by=navigator.name)
        base = base_movement(game)
        defaults = {c.name: night_rest_default(game, c) for c in party_characters(game)}
        from domain.besm.undertakings import NightTravelled

        return NightTravelled(
            roll=roll,
            base=base,
            gained=night_travel_gain(base, roll),
            rest_defaults=defaults,
        )

    def forage(self, situation: Situation, dice: Dice, *, by: str | None = None,
               take: str = "provisions") -> Decision:
        require_known(situation, by)
        require_open_day(situation)
        require_budget_unspent_on_repair(situation, "foraging")
        game = situation.game
        if take not in FORAGE_COST:
            raise RuleViolation(f"foraging finds provisions, fuel, ammo or wealth, not {take!r}")
        if remaining(game) < 1:
            raise RuleViolation("foraging gives up one square of today's movement and none remains")
        penalty = square_penalty(situation) + today(game).forages
        forager = roller(situation, by, lambda c: forage_target(c, penalty), "foraging")
        roll = check(FORAGE_ROLL, forage_target(forager, penalty), dice, by=forager.name)
        gained = forage_gain(roll.points, take) if roll.success else 0
        from domain.besm.undertakings import Foraged

        return Foraged(roll=roll, take=take, gained=gained)

    def repair(self, situation: Situation, dice: Dice, *, conveyance: str,
               by: str | None) -> Decision:
        game = situation.game
        target_conveyance = game.conveyances.get(conveyance)
        if target_conveyance is None:
            raise NotFound(f"there is no mount or vehicle called {conveyance!r}; "
                           f"{roster.known(game.conveyances, 'mounts or vehicles')}")
        require_known(situation, by)
        require_open_day(situation)
        day = today(game)
        if day.repaired:
            raise RuleViolation("today was already spent on a repair; one repair a day")
        if day.used > 0:
            raise RuleViolation(
                f"a repair takes the whole day and the group already spent {day.used} "
                "square(s) of it"
            )
        if not target_conveyance.usable:
            raise RuleViolation(f"{conveyance} is {target_conveyance.state.value} for good and "
                                "cannot be repaired")
        if not target_conveyance.with_party:
            raise RuleViolation(f"{conveyance} was left behind; rejoin it first")
        lost = target_conveyance.base_level - target_conveyance.level
        if lost <= 0:
            raise RuleViolation(f"{conveyance} has lost no levels to strain; nothing to repair")
        if by is None:
            raise RuleViolation("say who repairs with --by CHAR")
        penalty = square_penalty(situation)
        mechanic = roller(situation, by, lambda c: repair_target(c, target_conveyance, penalty),
                          "the repair")
        roll = check(REPAIR_ROLL, repair_target(mechanic, target_conveyance, penalty), dice,
                     by=mechanic.name)
        from domain.besm.undertakings import Repaired

        return Repaired(
            conveyance=conveyance,
            roll=roll,
            restored=lost if roll.success else 0,
        )


@singledispatch
def _redo(event: TrekEvent, rules: Besm, situation: Situation) -> Decision | None:
    """Decide a BESM event again from what it recorded; None when it is not one of BESM's."""
    return None


@_redo.register
def _(event: Moved, rules: Besm, situation: Situation) -> Decision:
    return rules.redo_move(situation, event)


@_redo.register
def _(event: DayStarted, rules: Besm, situation: Situation) -> Decision:
    return rules.start_day(situation)


@_redo.register
def _(event: DayEnded, rules: Besm, situation: Situation) -> Decision:
    return rules._redo_day_end(situation, event)


# Each event class's rule as singledispatch finds it, asked once per class: re-checking history
# asks for every later event.
_redo_of = cache(_redo.dispatch)
