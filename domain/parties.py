"""Splitting the party and merging parties (RULES.md §15): the rules and their events (the
commands are in `domain/commands/parties.py`).

Loaded by the commands that split or merge and by a campaign's log when it first meets a split
or a merge; the events are stored under `domain.events`' topics, as every release before stored
them (`domain.events.topic_of`)."""

from collections.abc import Mapping
from typing import ClassVar

from pydantic import Field

from domain.errors import NotFound, RuleViolation
from domain.events import TrekEvent
from domain.geometry import Square
from domain.ruleset import Decision, Ruleset, Situation
from domain.state import Day, Game, Party
from domain.values import Amount, Name, check_name


def _transit(game: Game) -> str | None:
    """Where the top-level party is under way to (a ruleset's transit), as X,Y, or None."""
    transit = game.travel.get("transit")
    if not isinstance(transit, dict) or transit.get("to") is None:
        return None
    to = transit["to"]
    x, y = (to.get("x"), to.get("y")) if isinstance(to, dict) else to
    return f"{x},{y}"


def _settled(game: Game, verb: str) -> None:
    """Refuse a split or merge while the party has a day open or is in transit."""
    if game.day.open:
        raise RuleViolation(
            f"party {game.party} has day {game.day.number} open; `trek day end --party "
            f"{game.party}` closes it before the party can {verb}")
    where = _transit(game)
    if where is not None:
        raise RuleViolation(
            f"party {game.party} is in transit toward {where}; it cannot {verb} until it "
            "arrives or drops the transit")


def split(situation: Situation, name: str, members: tuple[str, ...],
          supplies: Mapping[str, int]) -> Decision:
    game = situation.game
    check_name(name, "party name")
    if name == game.party or name in game.parties:
        raise RuleViolation(f"there is already a party called {name!r}; pick another name")
    _settled(game, "split")
    if not members:
        raise RuleViolation("name who leaves with --member M (at least one character)")
    if len(set(members)) != len(members):
        raise RuleViolation("each member is named once")
    for member_name in members:
        member = game.member(member_name)
        if member is None:
            raise NotFound(f"nobody called {member_name!r} is on the roster")
        owner = game.party_of(member_name)
        if owner != game.party:
            raise RuleViolation(f"{member_name} travels with party {owner}, not with party "
                                f"{game.party}")
        if not member.with_party:
            raise RuleViolation(f"{member_name} was left behind by party {game.party}; "
                                f"`trek roster rejoin {member_name}` first")
    named = set(members)
    # Whoever shares a mount or vehicle goes together: the conveyance and everyone aboard it.
    for conveyance in game.conveyances.values():
        if not conveyance.with_party:
            continue
        group = {conveyance.name, *(c.name for c in game.riders_of(conveyance.name)
                                    if c.with_party)}
        if len(group) > 1 and group & named and not group <= named:
            missing = ", ".join(sorted(group - named))
            raise RuleViolation(
                f"{', '.join(sorted(group & named))} and {missing} go together "
                f"({conveyance.name} and everyone aboard it); name {missing} too, or none "
                "of them")
    if not any(m in game.characters for m in members):
        raise RuleViolation(f"the new party {name} needs at least one character")
    staying = [c.name for c in game.characters.values()
               if c.with_party and c.name not in named]
    if not staying:
        raise RuleViolation(f"party {game.party} must keep at least one character")
    given = dict(supplies)
    for kind, amount in given.items():
        if amount > game.supplies.get(kind, 0):
            raise RuleViolation(f"party {game.party} has {game.supplies.get(kind, 0)} {kind}, "
                                f"not the {amount} to give party {name}")
    return PartySplit(name=name, members=list(members),
                      supplies={k: v for k, v in given.items() if v > 0},
                      at=game.position, day=game.day.number)


def merge(situation: Situation, name: str) -> Decision:
    game = situation.game
    into = game.party
    if name == into:
        raise RuleViolation(f"party {name} cannot merge into itself; give --into OTHER")
    other = game.parties.get(name)
    if other is None:
        raise NotFound(f"there is no party called {name!r}; the campaign has "
                       f"{', '.join(game.party_names())}")
    _settled(game, "merge")
    if other.day.open:
        raise RuleViolation(
            f"party {name} has day {other.day.number} open; `trek day end --party {name}` "
            "closes it before the parties can merge")
    gone = game.focused(name)
    where = _transit(gone)
    if where is not None:
        raise RuleViolation(f"party {name} is in transit toward {where}; it cannot merge "
                            "until it arrives or drops the transit")
    if other.position != game.position:
        raise RuleViolation(
            f"party {name} stands on {other.position.x},{other.position.y} and party {into} on "
            f"{game.position.x},{game.position.y}; parties merge on the same square")
    days = {into: game.day.number, name: other.day.number}
    return PartiesMerged(
        name=name, members=dict(other.members),
        supplies={k: v for k, v in other.supplies.items() if v > 0},
        at=game.position, days=days, day=max(days.values()),
        waited=abs(days[into] - days[name]))


# -- the events -------------------------------------------------------------------------------


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

    def redecided(self, ruleset: Ruleset, situation: Situation) -> Decision:
        return split(situation, self.name, tuple(self.members), self.supplies)


class PartiesMerged(TrekEvent):
    """Party `name` joins the party (`party`) on its square: the union of members, the sum of
    supplies and the later day count; `waited` is how many days the party whose count was
    lower waited."""

    party_scoped: ClassVar[bool] = True
    overland: ClassVar[bool] = True
    ends_party: ClassVar[bool] = True
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

    def redecided(self, ruleset: Ruleset, situation: Situation) -> Decision:
        return merge(situation, self.name)


EVENTS: tuple[type[TrekEvent], ...] = (PartySplit, PartiesMerged)
