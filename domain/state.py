"""The game state a campaign's live events fold into: party, roster, supplies and the day."""

from enum import StrEnum
from typing import Any, Generic, Protocol, Self, TypeVar

from pydantic import BaseModel, ConfigDict, Field, model_validator

from domain.errors import NotFound, RuleViolation
from domain.geometry import Square
from domain.supplies import SUPPLY_KINDS as SUPPLY_KINDS


class Role(StrEnum):
    RIDER = "rider"
    DRIVER = "driver"
    PASSENGER = "passenger"


class ConveyanceKind(StrEnum):
    MOUNT = "mount"
    VEHICLE = "vehicle"


class ConveyanceState(StrEnum):
    OK = "ok"
    DEAD = "dead"
    BROKEN = "broken"


class _Mutable(BaseModel):
    # State is mutated in place by the fold; validation happens when events are made.
    model_config = ConfigDict(extra="forbid", validate_assignment=False, defer_build=True)

    def __setattr__(self, name: str, value: Any) -> None:
        # Without validation on assignment, pydantic stores a field's new value and marks the
        # field set; done here directly, since a replay assigns fields several times an event.
        fields = self.__dict__
        if name in fields:
            fields[name] = value
            self.__pydantic_fields_set__.add(name)
        else:
            super().__setattr__(name, value)


class _Owner(Protocol):
    travel: dict[str, Any]


class Slice(BaseModel):
    """A ruleset's own part of a state object, kept there as one JSON document (`travel`) that
    only the ruleset reads: its own model validates it on the way in and writes it back whole."""

    model_config = ConfigDict(extra="ignore", defer_build=True)

    @classmethod
    def read(cls, owner: _Owner) -> Self:
        return cls.model_validate(owner.travel)

    @classmethod
    def edit(cls, owner: _Owner) -> "_Edit[Self]":
        """`with Slice.edit(owner) as part:` changes made to `part` are written back to the
        owner's document when the block ends without an error.

        A document the last edit wrote still holds the model it was written from: the next
        edit of the same slice takes that model rather than validating the document again (a
        replay edits a slice for most events it folds). Taken, it is the one edit's alone."""
        document = owner.travel
        if type(document) is _Written:
            part = document.model
            if type(part) is cls:
                document.model = None
                return _Edit(owner, part)
        return _Edit(owner, cls.read(owner))

    def write(self, owner: _Owner) -> None:
        """Make this the owner's document, as an edit does when its block ends."""
        owner.travel = _written(self)


class _Written(dict[str, Any]):
    """A slice's document as an edit wrote it, with the model it was dumped from (until an
    edit takes it: see `Slice.edit`). As a document it is the plain dict it holds."""

    __slots__ = ("model",)
    model: Slice | None

    def __init__(self, model: Slice) -> None:
        super().__init__(_dumped(model))
        self.model = model

    def __copy__(self) -> dict[str, Any]:
        # A copy is the plain document: two documents never share one model to hand out.
        return dict(self)


def _dumped(model: Slice) -> dict[str, Any]:
    # `model_dump(mode="json")`, without its keywords' handling.
    return type(model).__pydantic_serializer__.to_python(model, mode="json")  # type: ignore[no-any-return]


_new_written = _Written.__new__
_fill = dict.update


def _written(model: Slice) -> _Written:
    """`_Written(model)` without calling its `__init__`: a replay writes a slice for most events
    it folds."""
    document = _new_written(_Written)
    _fill(document, _dumped(model))
    document.model = model
    return document


_S = TypeVar("_S", bound=Slice)


class _Edit(Generic[_S]):
    # A plain class rather than a generator context manager: a replay edits a slice for most
    # events it folds.
    __slots__ = ("owner", "part")

    def __init__(self, owner: _Owner, part: _S) -> None:
        self.owner = owner
        self.part = part

    def __enter__(self) -> _S:
        return self.part

    def __exit__(self, kind: type[BaseException] | None, *_: object) -> None:
        if kind is None:
            self.owner.travel = _written(self.part)


class Character(_Mutable):
    name: str
    skills: dict[str, int] = Field(default_factory=dict)
    attributes: dict[str, int] = Field(default_factory=dict)
    # The ruleset's own stats (see CharacterAdded.stats).
    stats: dict[str, Any] = Field(default_factory=dict)
    health: int = 0
    health_max: int = 0
    energy: int = 0
    energy_max: int = 0
    with_party: bool = True
    left_at: Square | None = None
    conveyance: str | None = None
    role: Role | None = None

    def skill(self, name: str) -> int:
        return self.skills.get(name, 0)


class Conveyance(_Mutable):
    name: str
    kind: ConveyanceKind
    attribute: str | None = None
    base_level: int = 0
    level: int = 0
    miles: int | None = None
    state: ConveyanceState = ConveyanceState.OK
    with_party: bool = True
    left_at: Square | None = None
    # The ruleset's own travel state of this conveyance (a `Slice` document).
    travel: dict[str, Any] = Field(default_factory=dict)

    @property
    def usable(self) -> bool:
        return self.state is ConveyanceState.OK


class Day(_Mutable):
    """The overland clock: day N, and whether it is open. What a day holds beyond that (its
    budget, what was spent of it) is the ruleset's, in `Game.travel`."""

    number: int = 0
    open: bool = False


# -- encounters ------------------------------------------------------------------------------


class Side(StrEnum):
    PARTY = "party"
    ALLY = "ally"
    ENEMY = "enemy"


def friends(a: Side, b: Side) -> bool:
    """Party and allies are friends; enemies are friends only of enemies."""
    return (a is Side.ENEMY) == (b is Side.ENEMY)


class Combatant(_Mutable):
    name: str
    side: Side
    at: Square
    facing: str | None = None
    # True for a roster character that joined; False for one added for the fight only.
    from_roster: bool = False
    # The ruleset's stats for a combatant added for the fight (a roster character's are on its
    # sheet), and its state this round, both documents of the ruleset's own shape.
    stats: dict[str, Any] = Field(default_factory=dict)
    state: dict[str, Any] = Field(default_factory=dict)


class Encounter(_Mutable):
    name: str
    grid: str = "square"
    # The battle map as loaded (None: an open, edgeless plain of open cells).
    map: dict[str, Any] | None = None
    round: int = 0
    combatants: dict[str, Combatant] = Field(default_factory=dict)
    # The ruleset's state of the encounter as a whole (e.g. the pass of a combat turn).
    clock: dict[str, Any] = Field(default_factory=dict)
    # Each combatant's token label, given on entry and kept, removed combatants' included
    # (`domain.labels`).
    labels: dict[str, str] = Field(default_factory=dict)
    # Each door of the map (RULES §16) by name: whether it is closed now.
    doors: dict[str, bool] = Field(default_factory=dict)

    def at(self, cell: Square) -> Combatant | None:
        for combatant in self.combatants.values():
            if combatant.at == cell:
                return combatant
        return None

    def combatant(self, name: str) -> Combatant:
        found = self.combatants.get(name)
        if found is None:
            listed = ", ".join(self.combatants) or "nobody yet"
            raise NotFound(f"there is no combatant called {name!r} in {self.name} "
                           f"(it has {listed})")
        return found


# The one party a campaign starts with (RULES.md §15).
MAIN_PARTY = "main"


class Party(_Mutable):
    """A party other than the one `Game` holds at its top level: its own square, day, supplies
    and ruleset travel state, and its members (name -> travelling with it; False: left behind
    by it). While a party is held here its members' `with_party` reads False on the roster, so
    the rules, handed the top-level party, count only that party's own."""

    position: Square
    day: Day = Field(default_factory=Day)
    supplies: dict[str, int] = Field(default_factory=lambda: dict.fromkeys(SUPPLY_KINDS, 0))
    travel: dict[str, Any] = Field(default_factory=dict)
    members: dict[str, bool] = Field(default_factory=dict)


class Game(_Mutable):
    """Everything an undo may correct: the fold of the campaign's live events.

    The top-level overland fields (position, day, supplies, travel) are those of party
    `party`; every other party is kept in `parties` (`domain.parties.focus` swaps them)."""

    position: Square = Square(0, 0)
    day: Day = Field(default_factory=Day)
    supplies: dict[str, int] = Field(default_factory=lambda: dict.fromkeys(SUPPLY_KINDS, 0))
    characters: dict[str, Character] = Field(default_factory=dict)
    conveyances: dict[str, Conveyance] = Field(default_factory=dict)
    # The house rules a GM changed, by field (`Ruleset.house_rules` says which there are).
    rules: dict[str, int] = Field(default_factory=dict)
    encounter: Encounter | None = None
    # The ruleset's own travel state (a `Slice` document): what its days and moves keep.
    travel: dict[str, Any] = Field(default_factory=dict)
    party: str = MAIN_PARTY
    parties: dict[str, Party] = Field(default_factory=dict)

    @model_validator(mode="before")
    @classmethod
    def _gather_ruleset_fields(cls, data: Any) -> Any:
        """Release 0.2 and earlier kept each ruleset's fields beside the core's (on the day, the
        game, each character and conveyance); gather them into the ruleset's documents. A state
        that already has `travel` only meets such fields from a stored correction, whose value
        then wins; an older state keeps only the values that differ from the old defaults."""
        if not isinstance(data, dict):
            return data
        return _gathered(data, legacy="travel" not in data)

    def member_names(self) -> list[str]:
        return [*self.characters, *self.conveyances]

    def member(self, name: str) -> Character | Conveyance | None:
        """A character or conveyance of the roster by name."""
        return self.characters.get(name) or self.conveyances.get(name)

    def riders_of(self, conveyance: str) -> list[Character]:
        return [c for c in self.characters.values() if c.conveyance == conveyance]

    def dump(self) -> dict[str, Any]:
        return self.model_dump(mode="json")

    # -- parties (RULES.md §15) ------------------------------------------------------------

    def party_names(self) -> list[str]:
        return sorted([self.party, *self.parties])

    def no_open_day(self) -> RuleViolation:
        """The refusal of a command that needs an open day. Once the party is split it names
        the party told and how to open that party's day."""
        if not self.parties:
            return RuleViolation("no day is open; run `trek day start` first")
        import shlex

        return RuleViolation(f"no day is open for party {self.party}; run "
                             f"`trek day start --party {shlex.quote(self.party)}` first")

    def party_of(self, name: str) -> str:
        """The party a roster member belongs to (travelling with it or left behind by it)."""
        for party, held in self.parties.items():
            if name in held.members:
                return party
        return self.party

    def focus(self, name: str) -> None:
        """Hold party `name` at the top level, keeping the one there in `parties`: the same
        campaign, told from that party's side (every rule reads the top-level party)."""
        if name == self.party:
            return
        target = self.parties.get(name)
        if target is None:
            raise NotFound(f"there is no party called {name!r}; the campaign has "
                           f"{', '.join(self.party_names())}")
        away = {member for held in self.parties.values() for member in held.members}
        own: dict[str, bool] = {}
        everyone: list[Character | Conveyance] = [*self.characters.values(),
                                                  *self.conveyances.values()]
        for member in everyone:
            if member.name not in away:
                own[member.name] = member.with_party
                member.with_party = False
        del self.parties[name]
        self.parties[self.party] = Party(position=self.position, day=self.day,
                                         supplies=self.supplies, travel=self.travel,
                                         members=own)
        self.position, self.day = target.position, target.day
        self.supplies, self.travel = target.supplies, target.travel
        for member_name, travelling in target.members.items():
            joining = self.member(member_name)
            if joining is not None:
                joining.with_party = travelling
        self.party = name

    def focused(self, name: str | None) -> "Game":
        """This game held from party `name`'s side (itself when it already is, or None)."""
        if name is None or name == self.party:
            return self
        copy = self.model_copy(deep=True)
        copy.focus(name)
        return copy


# Values of the old fixed fields that meant "nothing yet".
_EMPTY: tuple[Any, ...] = (None, 0, "0", False, [], {})


def _gathered(data: dict[str, Any], legacy: bool) -> dict[str, Any]:
    data = dict(data)
    travel = dict(data.get("travel") or {})
    day = data.get("day")
    if isinstance(day, dict) and set(day) - set(Day.model_fields):
        data["day"] = {k: v for k, v in day.items() if k in Day.model_fields}
        _merge(travel, {k: v for k, v in day.items() if k not in Day.model_fields}, legacy)
    for key in [k for k in data if k not in Game.model_fields]:
        _merge(travel, {key: data.pop(key)}, legacy)
    data["travel"] = travel
    for holder, model, into in (("characters", Character, "stats"),
                                ("conveyances", Conveyance, "travel")):
        members = data.get(holder)
        if not isinstance(members, dict):
            continue
        gathered = {}
        for name, member in members.items():
            if isinstance(member, dict) and set(member) - set(model.model_fields):
                member = dict(member)
                own = dict(member.get(into) or {})
                moved = {k: member.pop(k) for k in list(member) if k not in model.model_fields}
                if model is Character:
                    moved = flat_stats(moved)
                _merge(own, moved, legacy)
                member[into] = own
            gathered[name] = member
        data[holder] = gathered
    return data


def flat_stats(fields: dict[str, Any]) -> dict[str, Any]:
    """A character's old stat fields as its `stats` hold them: a field that was a table of
    stats gives its entries, the rest are stats themselves."""
    out: dict[str, Any] = {}
    for key, value in fields.items():
        if isinstance(value, dict):
            out.update(value)
        else:
            out[key] = value
    return out


def _merge(into: dict[str, Any], values: dict[str, Any], legacy: bool) -> None:
    """Fold `values` into `into`: objects key by key (a correction may hold part of one)."""
    for key, value in values.items():
        if legacy and any(value == empty and type(value) is type(empty) for empty in _EMPTY):
            continue
        old = into.get(key)
        if isinstance(old, dict) and isinstance(value, dict):
            merged = dict(old)
            _merge(merged, value, legacy=False)
            into[key] = merged
        else:
            into[key] = value
