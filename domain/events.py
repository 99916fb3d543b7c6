"""The campaign's immutable events: each one a fact holding its full outcome."""

import json
from collections.abc import Mapping
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, ClassVar, NamedTuple
from uuid import UUID

from pydantic import BaseModel, ConfigDict, Field

from domain.actors import Actor
from domain.bounds import MAX_NAME
from domain.dice import Roll
from domain.geometry import Square
from domain.links import link_hash
from domain.maps import GameMap
from domain.patch import Correction, apply
from domain.state import (
    Character,
    Conveyance,
    ConveyanceKind,
    Day,
    Game,
    Role,
    flat_stats,
)
from domain.values import Amount, CampaignName, Level, Miles, Name, Points, Seed, SignedAmount, Text

if TYPE_CHECKING:
    from domain.campaign import Campaign


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


def topic_of(cls: type[object]) -> str:
    """The topic an event class is stored under: its module and name."""
    return f"{cls.__module__}:{cls.__qualname__}"


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

    def rolls(self) -> list[Roll]:
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


class HouseRuleChanged(TrekEvent):
    undo_kinds: ClassVar[tuple[str, ...]] = ("rule",)

    key: str
    value: SignedAmount
    previous: SignedAmount

    def apply_to(self, game: Game) -> None:
        game.rules[self.key.replace("-", "_")] = self.value


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

    @classmethod
    def upcast_v1_v2(cls, state: dict[str, Any]) -> None:
        # Version 1 held the first two rulesets' stats as fields of their own; they are now
        # part of `stats` (those left at their old default of 0 said nothing and are dropped).
        old = {k: state.pop(k) for k in [k for k in state if k not in cls.model_fields]}
        state["stats"] = {**state.get("stats", {}),
                          **{k: v for k, v in flat_stats(old).items() if v not in (0, None)}}


def _board(game: Game, character: str, conveyance: str, role: Role) -> None:
    member = game.characters[character]
    member.conveyance = conveyance
    member.role = role


class MountAdded(TrekEvent):
    party_scoped: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("add-mount",)

    name: Name
    attribute: Name | None = None
    level: Level = 0
    rider: str | None = None

    def apply_to(self, game: Game) -> None:
        game.conveyances[self.name] = Conveyance(
            name=self.name, kind=ConveyanceKind.MOUNT, attribute=self.attribute,
            base_level=self.level, level=self.level,
        )
        if self.rider is not None:
            _board(game, self.rider, self.name, Role.RIDER)


class VehicleAdded(TrekEvent):
    party_scoped: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("add-vehicle",)

    name: Name
    attribute: Name | None = None
    level: Level = 0
    miles: Miles | None = None
    driver: str | None = None
    passengers: list[str] = Field(default_factory=list)

    def apply_to(self, game: Game) -> None:
        game.conveyances[self.name] = Conveyance(
            name=self.name, kind=ConveyanceKind.VEHICLE, attribute=self.attribute,
            base_level=self.level, level=self.level, miles=self.miles,
        )
        if self.driver is not None:
            _board(game, self.driver, self.name, Role.DRIVER)
        for passenger in self.passengers:
            _board(game, passenger, self.name, Role.PASSENGER)


class MemberAssigned(TrekEvent):
    party_scoped: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("assign",)

    character: str
    conveyance: str
    role: Role

    def apply_to(self, game: Game) -> None:
        _board(game, self.character, self.conveyance, self.role)


class MemberDismounted(TrekEvent):
    party_scoped: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("dismount",)

    character: str
    conveyance: str

    def apply_to(self, game: Game) -> None:
        member = game.characters[self.character]
        member.conveyance = None
        member.role = None


class MemberLeftBehind(TrekEvent):
    party_scoped: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("leave",)

    name: str
    at: Square
    # Whoever was aboard a conveyance left behind (or the character itself) goes on foot.
    on_foot: list[str] = Field(default_factory=list)

    def route_marks(self) -> list[RouteMark]:
        return [RouteMark("left-behind", f"{self.name} left behind", self.at)]

    def apply_to(self, game: Game) -> None:
        member = game.member(self.name)
        assert member is not None, "the roster decision checked the name"
        member.with_party = False
        member.left_at = self.at
        for name in self.on_foot:
            game.characters[name].conveyance = None
            game.characters[name].role = None


class MemberRejoined(TrekEvent):
    party_scoped: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("rejoin",)

    name: str

    def route_marks(self) -> list[RouteMark]:
        return [RouteMark("rejoined", f"{self.name} rejoined")]

    def apply_to(self, game: Game) -> None:
        member = game.member(self.name)
        assert member is not None, "the roster decision checked the name"
        member.with_party = True
        member.left_at = None


class Harmed(TrekEvent):
    undo_kinds: ClassVar[tuple[str, ...]] = ("harm",)

    character: str
    health: Points = 0
    energy: Points = 0
    reason: Text | None = None

    def apply_to(self, game: Game) -> None:
        member = game.characters[self.character]
        member.health = max(0, member.health - self.health)
        member.energy = max(0, member.energy - self.energy)


# -- supplies --------------------------------------------------------------------------------


class SuppliesSet(TrekEvent):
    party_scoped: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("supplies",)

    values: dict[str, Amount]

    def apply_to(self, game: Game) -> None:
        game.supplies.update(self.values)


class SuppliesAdded(TrekEvent):
    party_scoped: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("supplies",)

    amounts: dict[str, Amount]

    def apply_to(self, game: Game) -> None:
        for kind, amount in self.amounts.items():
            game.supplies[kind] += amount


class SuppliesSpent(TrekEvent):
    party_scoped: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("supplies",)

    amounts: dict[str, Amount]

    def apply_to(self, game: Game) -> None:
        for kind, amount in self.amounts.items():
            game.supplies[kind] = max(0, game.supplies[kind] - amount)


# -- parties (RULES.md §15) ------------------------------------------------------------------


class PartySplit(TrekEvent):
    """Members leave the party (`party`) and form party `name` on its square, with the
    supplies given; the new party's day count starts at its parent's."""

    party_scoped: ClassVar[bool] = True
    overland: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("party",)

    name: Name
    members: list[str]
    supplies: dict[str, Amount] = Field(default_factory=dict)
    at: Square
    day: int

    def apply_to(self, game: Game) -> None:
        from domain.state import Party

        for name in self.members:
            member = game.member(name)
            assert member is not None, "the split checked its members"
            member.with_party = False
        for kind, amount in self.supplies.items():
            game.supplies[kind] -= amount
        supplies = dict.fromkeys(game.supplies, 0)
        supplies.update(self.supplies)
        game.parties[self.name] = Party(position=self.at, day=Day(number=self.day),
                                        supplies=supplies,
                                        members=dict.fromkeys(self.members, True))


class PartiesMerged(TrekEvent):
    """Party `name` joins the party (`party`) on its square: the union of members, the sum of
    supplies and the later day count; `waited` is how many days the party whose count was
    lower waited."""

    party_scoped: ClassVar[bool] = True
    overland: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("party",)

    name: Name
    members: dict[str, bool]
    supplies: dict[str, Amount]
    at: Square
    days: dict[str, int]
    day: int
    waited: int

    def apply_to(self, game: Game) -> None:
        gone = game.parties.pop(self.name)
        for name, travelling in gone.members.items():
            member = game.member(name)
            assert member is not None, "the merge checked its members"
            member.with_party = travelling
        for kind, amount in self.supplies.items():
            game.supplies[kind] = game.supplies.get(kind, 0) + amount
        game.day.number = self.day


# -- bookkeeping -----------------------------------------------------------------------------


class SessionStarted(TrekEvent):
    undoable: ClassVar[bool] = False

    number: int
    title: Text | None = None


class SessionEnded(TrekEvent):
    undoable: ClassVar[bool] = False

    number: int


class _Reversal(TrekEvent):
    undoable: ClassVar[bool] = False

    # Worked out by the write side; read models apply them without any rule code.
    corrections: list[Correction] = Field(default_factory=list)

    def apply_to(self, game: Game) -> None:
        corrected = Game.model_validate(apply(game.dump(), self.corrections))
        for field in Game.model_fields:
            setattr(game, field, getattr(corrected, field))


class EventsCancelled(_Reversal):
    cancels: list[int]
    reason: Text | None = None


class EventsRestored(_Reversal):
    restores: list[int]
    reason: Text | None = None


# The events every ruleset shares; each ruleset package lists its own (its EVENTS).
CORE_EVENTS: tuple[type[TrekEvent], ...] = (
    CampaignStarted, HouseRuleChanged, CharacterAdded, MountAdded, VehicleAdded,
    MemberAssigned, MemberDismounted, MemberLeftBehind, MemberRejoined, Harmed,
    SuppliesSet, SuppliesAdded, SuppliesSpent, SessionStarted, SessionEnded, EventsCancelled,
    EventsRestored, PartySplit, PartiesMerged,
)
