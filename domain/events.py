"""The campaign's immutable events: each one a fact holding its full outcome."""

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from domain.actors import Actor
from domain.bounds import MAX_NAME
from domain.geometry import Square
from domain.links import link_hash
from domain.maps import GameMap
from domain.patch import Correction, apply, patched
from domain.state import (
    Character,
    Conveyance,
    Game,
    flat_stats,
)
from domain.values import Amount, CampaignName, Level, Name, Points, Seed, Text

if TYPE_CHECKING:
    from domain.campaign import Campaign
    from domain.rolls import Roll
    from domain.ruleset import Decision, Ruleset, Situation


class RouteMark(NamedTuple):
    """Something an event did on the journey that a route picture marks.

    `kind` is a slug the picture looks up for a symbol and colour (an unknown one is drawn
    plainly), `label` the words for it, and `at` the square, or None for wherever the party
    stands when the event happened. `audited` says the mark repeats what the event's audit
    entries already say, so a recap that lists those does not list it again.
    """

    kind: str
    label: str
    at: Square | None = None
    audited: bool = False


def canonical_bytes(state: dict[str, Any]) -> bytes:
    """The one serialisation events are stored and hashed in."""
    return json.dumps(state, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


# The hash chain's format for new events. Format 1 (release 0.1) hashed an event's stored JSON
# alone; format 2 also hashes the row's identity: the campaign, the seq and the topic, so a row
# moved, renumbered or given another kind no longer matches the link its successor holds.
CHAIN_FORMAT = 2


# The modules that keep shared events of their own, loaded only by the campaigns and commands
# that meet one: their events are stored under the module that held them before (this one's
# name, or the encounter's) all the same, as every earlier release stored them, so a store
# reads alike whichever release wrote it.
SHARED_MODULE = "domain.events"
# Shared events kept in a module of their own, by that module: the module their topics name,
# where every earlier release stored them.
STORED_UNDER: Mapping[str, str] = MappingProxyType({
    "domain.roster_events": SHARED_MODULE,
    "domain.parties": SHARED_MODULE,
    "domain.sessions": SHARED_MODULE,
    "domain.encounter_changes": "domain.encounter",
})


def topic_of(cls: type[object]) -> str:
    """The topic an event class is stored under: its module and name (for an event kept in a
    module of its own, the module it was stored under before: a shared one's in
    `STORED_UNDER`, a ruleset's in its class's `stored_under`)."""
    module = (getattr(cls, "stored_under", None)
              or STORED_UNDER.get(cls.__module__, cls.__module__))
    return f"{module}:{cls.__qualname__}"


# What every event carries besides what it says: its place in the log, who recorded it and
# when, and its link to the event before (see `TrekEvent.payload`).
ENVELOPE = frozenset({"originator_id", "originator_version", "timestamp", "gm", "actor",
                      "requested_by", "session", "prev_hash", "chain"})
# As pydantic's `exclude` takes them: the envelope, and what a stored event's JSON leaves out:
# its place in the log (the row's columns hold it), and `requested_by` when no seat asked.
_NOT_PAYLOAD = set(ENVELOPE)
_IDENTITY = {"originator_id", "originator_version"}
_IDENTITY_AND_NO_REQUEST = _IDENTITY | {"requested_by"}

# The envelope of an event a rule has decided and the campaign has not recorded yet.
UNDECIDED_ID = UUID(int=0)
UNDECIDED_AT = datetime(1970, 1, 1, tzinfo=UTC)


class TrekEvent(BaseModel):
    """Base of every campaign event: who recorded it, when, and the link to its predecessor."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    class_version: ClassVar[int] = 1
    # Events that only keep the books (sessions, reversals) are never undone themselves.
    undoable: ClassVar[bool] = True
    # The words a GM names an undoable event by in `trek undo --last KIND` (the command that
    # records it, mostly); several classes may share one (every ruleset's encounter move).
    undo_kinds: ClassVar[tuple[str, ...]] = ()
    # Payload fields that report figures worked out from the state the event was decided in
    # (a bonus carried into the next pass, another combatant's state afterwards), not what
    # makes it legal. Re-checked in another history, an event whose other fields are the same
    # still stands when applying it does exactly what applying the new decision does (see
    # `domain.history.replan`).
    derived: ClassVar[frozenset[str]] = frozenset()
    # How a battle map tells the event's part in a round: an `opens_phase` event starts the
    # round's next phase (its `number`), so the moves after it are told apart from those
    # before; a `stops_mover` event's path is where a move was cut short, not a move.
    opens_phase: ClassVar[bool] = False
    stops_mover: ClassVar[bool] = False
    # An event after which the party named by its `name` is gone (a merge): commands that used
    # that party act on the one it joined.
    ends_party: ClassVar[bool] = False

    # A rule decides an event without these (see `domain.ruleset.Decision`); the campaign
    # fills them in when it records the event.
    originator_id: UUID = UNDECIDED_ID
    originator_version: int = 0
    timestamp: datetime = UNDECIDED_AT
    gm: str = Field(default="", max_length=MAX_NAME)
    # Who the event was recorded for (see `domain.actors.Actor`): whose word recorded it, and
    # the seat that asked for it (stored only when one did). Events stored before the actor was
    # stamped have neither and read as their GM's own (`by`).
    actor: str | None = Field(default=None, max_length=MAX_NAME)
    requested_by: str | None = Field(default=None, max_length=MAX_NAME)
    session: int | None = None
    prev_hash: str = ""
    # The hash chain format this event was recorded under (see CHAIN_FORMAT).
    chain: int = 1
    # The party a `party_scoped` event acted on (RULES.md §15), filled in by the campaign when
    # it records the event; None in events of earlier releases (their one party) and in those
    # that act on no party. Folding the event first holds that party at the game's top level.
    party: str | None = None
    party_scoped: ClassVar[bool] = False

    @classmethod
    def __pydantic_init_subclass__(cls, **kwargs: Any) -> None:
        super().__pydantic_init_subclass__(**kwargs)
        own = cls.__dict__.get("apply_to")
        if own is not None and not getattr(own, "_focuses", False):
            cls.apply_to = _focusing(own)  # type: ignore[method-assign]

    # Not pydantic private attributes: those cost a third of decoding a stored event, and an
    # event is decoded for every row a replay, a load or an undo reads. Slots are left unset
    # until used (see `event_hash`); a copy (`model_copy`) starts without them and hashes afresh.
    # `_stored_row` is the row the event was read from (topic, bytes): its chain hash is taken
    # from them; `_stored_hash` caches the hash.
    __slots__ = ("_stored_hash", "_stored_row")

    @property
    def seq(self) -> int:
        return self.originator_version

    @classmethod
    def type_name(cls) -> str:
        return cls.__name__

    @property
    def recorded_for(self) -> Actor:
        """Who the event was recorded for: its actor, else (stored before actors were
        stamped) its GM."""
        return Actor(self.actor if self.actor is not None else self.gm, self.requested_by)

    def stored_state(self) -> dict[str, Any]:
        state = self.model_dump(mode="json", exclude=(
            _IDENTITY if self.requested_by is not None else _IDENTITY_AND_NO_REQUEST))
        if state.get("party", "") is None:
            # An event that acts on no party is stored as every earlier release stored it.
            del state["party"]
        if type(self).class_version > 1:
            state["class_version"] = type(self).class_version
        return state

    def payload(self) -> dict[str, Any]:
        """What the event says, without the bookkeeping every event carries."""
        payload = self.model_dump(mode="json", exclude=_NOT_PAYLOAD)
        if payload.get("party", "") is None:
            del payload["party"]
        return payload

    def event_hash(self) -> str:
        cached: str | None = getattr(self, "_stored_hash", None)
        if cached is None:
            row: tuple[str, bytes] | None = getattr(self, "_stored_row", None)
            topic, data = row or (topic_of(type(self)), canonical_bytes(self.stored_state()))
            cached = link_hash(self.chain, str(self.originator_id), self.originator_version,
                               topic, data)
            object.__setattr__(self, "_stored_hash", cached)
        return cached

    def remember_stored_row(self, topic: str, data: bytes) -> None:
        """Hash the chain over the row as stored (an upcast event no longer reproduces it)."""
        object.__setattr__(self, "_stored_row", (topic, data))
        object.__setattr__(self, "_stored_hash", None)

    # A day-clock event that closes the day (the audit counts a day for the session that
    # closed it).
    closes_day: ClassVar[bool] = False
    # An event of overland travel (the day's clock, a move, a ruleset's travel): RULES §4 and
    # §6 allow none while an encounter is open, and re-checking history asks the same.
    overland: ClassVar[bool] = False
    # A session's start or end: folding it changes which session is open (`sessions_after`).
    changes_session: ClassVar[bool] = False
    # The module a ruleset's event kept apart from its events' module is stored under (its
    # topic, `topic_of`); None: its own module.
    stored_under: ClassVar[str | None] = None

    def rolls(self) -> "list[Roll]":
        return []

    def distance(self) -> tuple[int, int]:
        """Squares moved and miles travelled by this event (an audit total)."""
        return 0, 0

    def audit_entries(self, before: Mapping[str, Conveyance],
                      game: Game) -> list[tuple[str, dict[str, Any]]]:
        """What this event adds to its ruleset's audit sections, as (section, entry) pairs.

        A ruleset names its sections (`Ruleset.audit_sections`); the audit stamps each entry
        with the event's seq and day. `before` holds the conveyances as they stood before the
        event, `game` the state after it, so an event may report what it did to them.
        """
        return []

    def sessions_after(self, session: int | None, sessions: int) -> tuple[int | None, int]:
        """The session open after this event and how many were opened, from those before it:
        unchanged but by a session's start or end (`changes_session`)."""
        return session, sessions

    def route_path(self) -> list[Square]:
        """The squares the party walked in this event, the first being where it set out.

        Empty for an event that moves nobody; a route picture draws each non-empty one.
        """
        return []

    def route_marks(self) -> list[RouteMark]:
        """What a route picture marks for this event (a ruleset's events say; most: nothing)."""
        return []

    def mutate(self, aggregate: "Campaign | None") -> "Campaign | None":
        """The eventsourcing library's hook: fold this event into the aggregate."""
        assert aggregate is not None, "only CampaignStarted creates a campaign"
        aggregate.absorb(self)
        return aggregate

    def apply_to(self, game: Game) -> None:
        """The event's effect on the game state; bookkeeping events have none."""

    def redecided(self, ruleset: "Ruleset", situation: "Situation") -> "Decision | None":
        """The event decided again from its own inputs in `situation` (re-checking history,
        `domain.history.replan`), by the shared rules that decided it; None for an event
        they do not decide (the encounter's and the ruleset's own are asked next)."""
        return None


def _focusing(apply_to: Any) -> Any:
    """An event class's own `apply_to`, first holding the event's party at the top level."""

    def focused(self: TrekEvent, game: Game) -> None:
        if self.party is not None and self.party != game.party:
            game.focus(self.party)
        apply_to(self, game)

    focused._focuses = True  # type: ignore[attr-defined]
    # The class's own `apply_to`, for a fold that focuses the party itself (a rebuild).
    focused.__wrapped__ = apply_to  # type: ignore[attr-defined]
    focused.__doc__ = apply_to.__doc__
    return focused


# -- the campaign ----------------------------------------------------------------------------


class BranchOrigin(BaseModel):
    """Where a what-if branch came from: the original campaign, the event it was cut after, and
    that event's hash; when and by whom the branch was made."""

    model_config = ConfigDict(frozen=True, extra="forbid", defer_build=True)

    campaign: str
    seq: int
    hash: str
    at: datetime
    gm: str


class CampaignStarted(TrekEvent):
    undoable: ClassVar[bool] = False

    slug: str
    name: CampaignName
    ruleset: str
    seed: Seed
    map: GameMap | None = None
    start: Square = Square(0, 0)
    # Set on a branch's first event; its history up to `branched_from.seq` is the original's.
    branched_from: BranchOrigin | None = None

    def mutate(self, aggregate: "Campaign | None") -> "Campaign | None":
        from domain.campaign import Campaign

        campaign = Campaign.begin(self)
        campaign.absorb(self)
        return campaign

    def apply_to(self, game: Game) -> None:
        game.position = self.start


# -- the roster ------------------------------------------------------------------------------


class CharacterAdded(TrekEvent):
    party_scoped: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("add-character",)
    class_version: ClassVar[int] = 2

    name: Name
    skills: dict[Name, Level] = Field(default_factory=dict)
    attributes: dict[Name, Level] = Field(default_factory=dict)
    health_max: Points = 0
    energy_max: Points = 0
    # The ruleset's own stats as its `character` decided them, a document of its own shape.
    stats: dict[Name, Any] = Field(default_factory=dict)

    def apply_to(self, game: Game) -> None:
        game.characters[self.name] = Character(
            name=self.name, skills=dict(self.skills), attributes=dict(self.attributes),
            stats=dict(self.stats),
            health=self.health_max, health_max=self.health_max,
            energy=self.energy_max, energy_max=self.energy_max,
        )

    def redecided(self, ruleset: "Ruleset", situation: "Situation") -> "Decision":
        from domain import roster
        from domain.options import CharacterOptions

        options = CharacterOptions(
            name=self.name, skills=self.skills, attributes=self.attributes,
            health_max=self.health_max or None, energy_max=self.energy_max or None,
            extra=self.stats,
        )
        return roster.add_character(ruleset, situation, options)

    @classmethod
    def upcast_v1_v2(cls, state: dict[str, Any]) -> None:
        # Version 1 held the first two rulesets' stats as fields of their own; they are now
        # part of `stats` (those left at their old default of 0 said nothing and are dropped).
        old = {k: state.pop(k) for k in [k for k in state if k not in cls.model_fields]}
        state["stats"] = {**state.get("stats", {}),
                          **{k: v for k, v in flat_stats(old).items() if v not in (0, None)}}


# -- supplies (set and spent: domain.roster_events) ---------------------------------------------


class SuppliesAdded(TrekEvent):
    party_scoped: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("supplies",)

    amounts: dict[str, Amount]

    def apply_to(self, game: Game) -> None:
        for kind, amount in self.amounts.items():
            game.supplies[kind] += amount

    def redecided(self, ruleset: "Ruleset", situation: "Situation") -> "Decision":
        from domain import roster

        return roster.add_supplies(situation, self.amounts)


# -- bookkeeping -----------------------------------------------------------------------------


class _Reversal(TrekEvent):
    undoable: ClassVar[bool] = False

    # Worked out by the write side; read models apply them without any rule code.
    corrections: list[Correction] = Field(default_factory=list)

    def apply_to(self, game: Game) -> None:
        """Correct the game's top-level fields the corrections name, and `travel` (where a
        correction stored by an old release may move a ruleset's fields): a field not named
        dumps and validates back to an equal value, so it is left as it is. A correction of
        the whole game, or of no field it has, patches and validates the whole of it."""
        corrections = self.corrections
        if not corrections:
            return
        touched = {c.path[0] for c in corrections if c.path}
        if any(not c.path for c in corrections) or not touched <= _GAME_FIELDS:
            fields = set(_GAME_FIELDS)
            corrected = Game.model_validate(apply(game.dump(), corrections))
        else:
            fields = touched | {"travel"}
            corrected = Game.model_validate(
                patched(game.model_dump(mode="json", include=fields), corrections))
        for field in fields:
            setattr(game, field, getattr(corrected, field))


_GAME_FIELDS = frozenset(Game.model_fields)


class EventsCancelled(_Reversal):
    cancels: list[int]
    reason: Text | None = None


class EventsRestored(_Reversal):
    restores: list[int]
    reason: Text | None = None


# The events every ruleset shares that nearly every campaign's log holds, loaded by every
# command; the rest of the roster's (`domain.roster_events`), the parties' (`domain.parties`) and
# the encounter's (`domain.encounter`) load when first met. Each ruleset package lists its own
# (its EVENTS).
CORE_EVENTS: tuple[type[TrekEvent], ...] = (
    CampaignStarted, CharacterAdded, SuppliesAdded, EventsCancelled, EventsRestored,
)
