"""The small interface every ruleset implements, and what a decision looks like."""

import dataclasses
import typing
from abc import abstractmethod
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass
from functools import cached_property
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple, Protocol

from pydantic import BaseModel, ConfigDict, create_model

from domain.deferred import Deferred
from domain.dice import Dice
from domain.errors import NotOffered, RuleViolation
from domain.events import CORE_EVENTS, TrekEvent
from domain.maps import GameMap, MapSection, Terrain
from domain.state import Character, Combatant, Conveyance, Game

if TYPE_CHECKING:
    from domain.battlemap import LegendSpec
    from domain.campaign import Campaign
    from domain.commands.days import DayEndOptions
    from domain.commands.encounter import EnterCombatant
    from domain.commands.rounds import MoveCombatant, StartRound
    from domain.commands.travel import MoveOptions
    from domain.options import CharacterOptions
    from domain.plan import PlanRules

# A decision is the event to record, its outcome in full, built (and so checked) by the rule
# that decided it; the campaign adds where it goes in the log (id, version, time, GM, session
# and the hash chain) when it records it.
Decision = TrekEvent


class Situation(NamedTuple):
    """What a rule may look at: the game state and the map (None: an open, edgeless plain)."""

    game: Game
    map: GameMap | None
    ruleset: str
    # Seeded dice for a decision that may roll outside a ruleset command (a long move,
    # say); None when re-deciding, where the event's recorded roll is used instead.
    dice: Dice | None = None


# Each command class's validator, by class: built by pydantic from the class's fields the first
# time one is made, so defining a command costs what a plain frozen dataclass costs.
_VALIDATORS: dict[type[Any], type[BaseModel]] = {}


def _validator(cls: type[Any]) -> type[BaseModel]:
    found = _VALIDATORS.get(cls)
    if found is None:
        hints = typing.get_type_hints(cls, include_extras=True)
        fields: dict[str, Any] = {f.name: (hints[f.name], ...) for f in dataclasses.fields(cls)}
        found = _VALIDATORS[cls] = create_model(
            cls.__name__, __config__=ConfigDict(arbitrary_types_allowed=True), **fields)
    return found


@dataclass(frozen=True)
class Command:
    """A write, as data; the shared ones are in domain.commands, a ruleset's own in its package.

    Each is a frozen dataclass whose fields carry their bounds (`Annotated` with the checks of
    domain.values): pydantic checks every field as the command is made, so a command that
    exists is within them, and one out of them is refused with the rules' own sentence.
    `what` names it in messages; `given_rolls` are the totals the GM rolled, keyed by the
    label the ruleset rolls them under (defined once, beside the command).
    """

    what: ClassVar[str] = "command"
    # An overland command is refused while an encounter is open.
    overland: ClassVar[bool] = False
    # Whether it acts on one party (RULES.md §15): `--party NAME` on the command line, a
    # `party` field beside its own in a command sent as JSON.
    acts_on_party: ClassVar[bool] = False
    # Whether the application reads the stored log around its target before the campaign
    # decides it (undo, redo), so it cannot share a transaction with others.
    reads_log: ClassVar[bool] = False

    def __post_init__(self) -> None:
        if not dataclasses.fields(self):
            return
        checked = _validator(type(self))(**{f.name: getattr(self, f.name)
                                           for f in dataclasses.fields(self)})
        for name, value in checked:
            object.__setattr__(self, name, value)

    def given_rolls(self) -> Mapping[str, int]:
        return {}

    def decide_in(self, campaign: "Campaign") -> TrekEvent:
        """Decide this command in `campaign` (`Campaign.handle`, the one door): the campaign's
        ruleset decides it. A shared command names the campaign's own method instead."""
        return campaign.decide_by_ruleset(self)


class NothingOnEntry:
    """A ruleset in which a combatant entering a cell ends nothing for anyone else."""

    def entering(self, situation: Situation, command: "EnterCombatant"
                 ) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
        return [], {}


class FightRules(Protocol):
    """A ruleset's fight kept as a part of play of its own: what an encounter asks of the
    ruleset, answered there."""

    @property
    def battle_legend(self) -> "LegendSpec": ...

    def start_round(self, situation: Situation, command: "StartRound") -> Decision: ...

    def move_combatant(self, situation: Situation, command: "MoveCombatant") -> Decision: ...

    def combatant_status(self, situation: Situation, combatant: Combatant) -> dict[str, Any]:
        ...

    def encounter_fields(self, situation: Situation) -> dict[str, Any]: ...


class FightApart:
    """A ruleset that hands an encounter's questions to its fight (`fight`: its rules, made the
    first time an encounter needs them, so an overland command loads none of them)."""

    @property
    @abstractmethod
    def fight(self) -> FightRules:
        """The fight's rules (each ruleset's own `cached_property`, importing its module)."""

    @property
    def battle_legend(self) -> "LegendSpec":
        return self.fight.battle_legend

    def start_round(self, situation: Situation, command: "StartRound") -> Decision:
        return self.fight.start_round(situation, command)

    def move_combatant(self, situation: Situation, command: "MoveCombatant") -> Decision:
        return self.fight.move_combatant(situation, command)

    def combatant_status(self, situation: Situation, combatant: Combatant) -> dict[str, Any]:
        return self.fight.combatant_status(situation, combatant)

    def encounter_fields(self, situation: Situation) -> dict[str, Any]:
        return self.fight.encounter_fields(situation)


class NoHouseRules(BaseModel):
    """The house rules of a ruleset that has none."""

    model_config = ConfigDict(defer_build=True)


class Ruleset(Protocol):
    """One tabletop system's travel rules: pure functions from situation and command to outcome."""

    name: str
    terrains: frozenset[Terrain]
    # The tables it adds to its map files, by table name (a table of named routes, say): each
    # read into `GameMap.extras`; a table no section names is refused.
    map_sections: Mapping[str, MapSection]

    @property
    def commands(self) -> frozenset[type[Command]]:
        """The commands beyond the shared ones (roster, supplies, day start/end, move) it
        offers (a ruleset may load them when first asked)."""

    # Its own event classes (the store resolves their topics only through this list).
    events: tuple[type[TrekEvent], ...]
    # The names of its own character stat options (`CharacterOptions.extra` keys).
    character_options: frozenset[str]
    # The sections it adds to the audit, filled by its events' `audit_entries`.
    audit_sections: tuple[str, ...]
    # The options `trek rules set` may change: a whole-number field each, with its bounds
    # (`Field(ge=..., le=...)`) and its default; `NoHouseRules` when it has none.
    house_rules: type[BaseModel]

    def character(self, situation: Situation, options: "CharacterOptions") -> dict[str, Any]:
        """The CharacterAdded payload for these options, or a refusal."""

    def mount(
        self, situation: Situation, name: str, move: tuple[str, int] | None, rider: str | None
    ) -> dict[str, Any]:
        """The MountAdded payload."""

    def vehicle(
        self, situation: Situation, name: str, move: tuple[str, int] | None
    ) -> dict[str, Any]:
        """The VehicleAdded payload (movement part)."""

    def start_day(self, situation: Situation) -> Decision: ...

    def move(self, situation: Situation, options: "MoveOptions") -> Decision: ...

    def end_day(self, situation: Situation, options: "DayEndOptions") -> Decision: ...

    def movement_status(self, situation: Situation) -> dict[str, Any]: ...

    def conveyance_status(self, conveyance: Conveyance) -> dict[str, Any]:
        """The ruleset's own fields of a mount or vehicle in `trek status`."""

    def flying(self, situation: Situation) -> bool: ...

    def decide(self, command: Command, situation: Situation, dice: Dice) -> Decision:
        """One of the ruleset's own `commands`, checked and decided with these dice."""

    @property
    def plan_rules(self) -> "PlanRules | None":
        """How `trek plan` plays its overland journeys forward (domain/plan.py); None when it
        has none to plan."""

    # -- encounters: the ruleset decides; the core keeps the combatants and the log --------

    grid: str
    # Whether this release has the ruleset's encounter rules.
    encounters: bool
    @property
    def move_options(self) -> frozenset[str]:
        """The options `encounter move` takes under this ruleset (e.g. "shift"); a ruleset
        whose fight loads late reads them off it."""
    # The facing a combatant gets when none is given (None: facing is not tracked).
    default_facing: str | None

    @property
    def battle_legend(self) -> "LegendSpec":
        """The legend words and keys its battle maps may use."""

    def enter(self, situation: Situation, command: "EnterCombatant",
              character: Character | None) -> tuple[dict[str, Any], dict[str, Any]]:
        """The combatant's stats document (empty for a roster character) and its state."""

    def entering(self, situation: Situation, command: "EnterCombatant"
                 ) -> tuple[list[dict[str, Any]], dict[str, dict[str, Any]]]:
        """What a combatant entering `command.at` ends for others (progress toward that cell,
        say): the ruleset's account of each, and the keys of each one's state it changes."""

    def start_round(self, situation: Situation, command: "StartRound") -> Decision: ...

    def move_combatant(self, situation: Situation, command: "MoveCombatant") -> Decision: ...

    def combatant_status(self, situation: Situation, combatant: Combatant) -> dict[str, Any]:
        """`moved`, `remaining` and the ruleset's own fields for `encounter status`."""

    def encounter_fields(self, situation: Situation) -> dict[str, Any]:
        """The ruleset's fields of the encounter as a whole (e.g. which part of the round it is)."""

    def redecide(self, situation: Situation, event: TrekEvent) -> Decision | None:
        """Decide one of its own recorded events again from what it recorded (its path, its
        dice, its options), for re-checking history; None when the event is not its own."""


# The part of a ruleset an encounter uses (the whole protocol, named for what reads it).
EncounterRules = Ruleset


# A function that imports a module of event classes and hands them out.
EventsLoader = Callable[[], tuple[type[TrekEvent], ...]]


def event_parts(ruleset: Ruleset) -> Mapping[str, EventsLoader]:
    """A ruleset's events kept in modules loaded when first needed (its fight's, say), by
    module: a ruleset may name such parts (`event_parts`) beside its `events`, which load with
    it. The store's topic allow-list adds a part the first time a topic inside it is met."""
    parts: Mapping[str, EventsLoader] = getattr(ruleset, "event_parts", {})
    return parts


def every_event(ruleset: Ruleset) -> tuple[type[TrekEvent], ...]:
    """Every event class of `ruleset`, its parts loaded."""
    return (*ruleset.events, *(cls for load in event_parts(ruleset).values() for cls in load()))


class UnknownRuleset(RuleViolation):
    """A campaign or command named a ruleset this release does not play."""


class Registry:
    """The rulesets Trek plays, by name; built once, in the composition root, and passed in.

    An entry may be a ruleset or a `Deferred` one, loaded on first use: `named` loads one,
    iterating loads them all (an audit's sections, the undo words), and the names and event
    packages are known without loading any.
    """

    def __init__(self, rulesets: Iterable[Ruleset | Deferred],
                 shared: tuple[type[TrekEvent], ...] = CORE_EVENTS,
                 shared_parts: Mapping[str, EventsLoader] | None = None) -> None:
        self._entries: dict[str, Ruleset | Deferred] = {r.name: r for r in rulesets}
        # Where each deferred one lives, kept once it is loaded.
        self._packages = {name: entry for name, entry in self._entries.items()
                          if isinstance(entry, Deferred)}
        # The events every campaign may hold, whatever its ruleset: those loaded with the
        # registry, and those of a part of play loaded when first needed, by module.
        self.shared = shared
        self.shared_parts: Mapping[str, EventsLoader] = shared_parts or {}

    def every_shared(self) -> tuple[type[TrekEvent], ...]:
        """Every shared event class, its parts loaded."""
        return (*self.shared, *(cls for load in self.shared_parts.values() for cls in load()))

    @property
    def names(self) -> list[str]:
        return list(self._entries)

    def __iter__(self) -> Iterator[Ruleset]:
        return iter([self.named(name) for name in self._entries])

    def loaded(self) -> list[Ruleset]:
        """The rulesets loaded so far (every one not deferred, and the deferred ones used)."""
        return [entry for entry in self._entries.values() if not isinstance(entry, Deferred)]

    def holding(self, module: str) -> list[Ruleset]:
        """The deferred rulesets whose package holds `module` (an event's), loaded now if
        they were not yet."""
        return [self.named(name) for name, entry in self._packages.items()
                if entry.holds(module)]

    @property
    def audit_sections(self) -> tuple[str, ...]:
        """Every ruleset's audit sections, in the registry's order: each campaign's audit
        keeps them all, empty where its ruleset has none."""
        names: dict[str, None] = {}
        for ruleset in self:
            names.update(dict.fromkeys(ruleset.audit_sections))
        return tuple(names)

    @cached_property
    def undo_kinds(self) -> tuple[str, ...]:
        """Every word `trek undo --last KIND` takes, read off the event classes of every
        ruleset (each class's `undo_kinds`), in order."""
        classes = {*self.every_shared(), *(cls for ruleset in self for cls in every_event(ruleset))}
        return tuple(sorted({kind for cls in classes for kind in cls.undo_kinds}))

    def event_types(self, name: str) -> dict[str, type[TrekEvent]]:
        """Every event class a campaign of this ruleset may hold, by class name."""
        types = {cls.__name__: cls for cls in self.every_shared()}
        if name in self._entries:
            types.update((cls.__name__, cls) for cls in every_event(self.named(name)))
        return types

    def map_section(self, key: str) -> MapSection | None:
        """The section whose readings a map keeps under `key` in its extras, whichever
        ruleset declares it (a map read back keeps the extras it was stored with). The loaded
        rulesets are asked first: a campaign's own map needs no other ruleset."""
        for rulesets in (self.loaded, lambda: list(self)):
            for ruleset in rulesets():
                for section in ruleset.map_sections.values():
                    if section.key == key:
                        return section
        return None

    def named(self, name: str) -> Ruleset:
        entry = self._entry(name)
        if isinstance(entry, Deferred):
            entry = self._entries[name] = entry.load()
        return entry

    def _entry(self, name: str) -> Ruleset | Deferred:
        try:
            return self._entries[name]
        except KeyError:
            raise UnknownRuleset(
                f"{name!r} is not a ruleset; use {', '.join(self._entries)}") from None


# The stat options `roster add-character` offers every ruleset beside its own, by field.
SHARED_STATS = ("health_max", "energy_max")


def given_stat_flags(options: "CharacterOptions",
                     fields: tuple[str, ...] = SHARED_STATS) -> list[str]:
    """The flags of those shared stat options (of `fields`) that were given, and
    `--attribute` if any attribute was: for a ruleset to refuse the ones it does not take."""
    given = [option_flag(name) for name in fields if getattr(options, name) is not None]
    if options.attributes:
        given.append("--attribute")
    return given


def option_flag(name: str) -> str:
    return "--" + name.replace("_", "-")


def check_character_options(ruleset: Ruleset, options: "CharacterOptions") -> None:
    """Refuse another ruleset's own stat options, naming them."""
    foreign = sorted(set(options.extra) - ruleset.character_options)
    if foreign:
        offered = ", ".join(option_flag(o) for o in sorted(ruleset.character_options))
        raise NotOffered(
            f"{option_flag(foreign[0])} is another ruleset's option; a {ruleset.name} character "
            f"takes {offered or 'none of them'}; nothing was recorded")


def not_offered(ruleset: str, command: str) -> NotOffered:
    return NotOffered(
        f"the {ruleset} ruleset has no {command}; this campaign records nothing for it"
    )
