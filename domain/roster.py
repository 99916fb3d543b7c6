"""Decisions every ruleset shares: the roster, supplies, harm and house rules.

Each event decided here is decided again, re-checking history, by its own `redecided`. The
events beyond a campaign's first characters and supplies are in `domain/roster_events.py`,
loaded by the decisions that make one: the rulesets look members up here on every command.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import TYPE_CHECKING, Any

from pydantic.fields import FieldInfo

from domain.bounds import MAX_AMOUNT
from domain.errors import NotFound, NotOffered, RuleViolation
from domain.events import CharacterAdded, SuppliesAdded
from domain.ruleset import Decision, Ruleset, Situation, check_character_options
from domain.state import Character, ConveyanceKind, Game, Role
from domain.values import check_number

if TYPE_CHECKING:
    from domain.options import CharacterOptions


def known(names: Mapping[str, Any], what: str) -> str:
    listed = ", ".join(names)
    return f"the roster has {listed}" if listed else f"the roster has no {what} yet"


def character(game: Game, name: str) -> Character:
    found = game.characters.get(name)
    if found is None:
        listed = known(game.characters, "characters")
        raise NotFound(f"there is no character called {name!r}; {listed}")
    return found


def check_new_name(game: Game, name: str) -> None:
    """The name is free (the command checked that it is a name)."""
    if name in game.characters or name in game.conveyances:
        raise RuleViolation(f"the roster already has someone called {name!r}; pick another name")


def check_free_to_board(game: Game, name: str) -> Character:
    member = character(game, name)
    _own(game, name)
    if not member.with_party:
        raise RuleViolation(f"{name} was left behind; `trek roster rejoin {name}` first")
    if member.conveyance is not None:
        role = member.role.value if member.role else "crew"
        raise RuleViolation(
            f"{name} is already aboard {member.conveyance} as {role}; "
            f"`trek roster dismount {name}` first"
        )
    return member


def add_character(ruleset: Ruleset, situation: Situation, options: CharacterOptions) -> Decision:
    check_new_name(situation.game, options.name)
    check_character_options(ruleset, options)
    return CharacterAdded(name=options.name, **ruleset.character(situation, options))


def add_mount(ruleset: Ruleset, situation: Situation, name: str, move: tuple[str, int] | None,
              rider: str | None) -> Decision:
    from domain.roster_events import MountAdded

    check_new_name(situation.game, name)
    movement = ruleset.mount(situation, name, move, rider)
    if rider is not None:
        check_free_to_board(situation.game, rider)
    return MountAdded(name=name, rider=rider, **movement)


def add_vehicle(ruleset: Ruleset, situation: Situation, name: str, move: tuple[str, int] | None,
                driver: str | None, passengers: list[str]) -> Decision:
    from domain.roster_events import VehicleAdded

    game = situation.game
    check_new_name(game, name)
    movement = ruleset.vehicle(situation, name, move)
    aboard = ([driver] if driver is not None else []) + passengers
    if len(set(aboard)) != len(aboard):
        raise RuleViolation("a character can take only one place in a vehicle")
    for member in aboard:
        check_free_to_board(game, member)
    return VehicleAdded(
        name=name,
        driver=driver,
        passengers=list(passengers),
        **movement,
    )


def assign(situation: Situation, name: str, conveyance_name: str, role: Role) -> Decision:
    from domain.roster_events import MemberAssigned

    game = situation.game
    conveyance = game.conveyances.get(conveyance_name)
    if conveyance is None:
        raise NotFound(f"there is no mount or vehicle called {conveyance_name!r}; "
                       f"{known(game.conveyances, 'mounts or vehicles')}")
    check_free_to_board(game, name)
    _own(game, conveyance_name)
    if not conveyance.usable:
        raise RuleViolation(f"{conveyance_name} is {conveyance.state.value}; nobody can board it")
    if not conveyance.with_party:
        raise RuleViolation(f"{conveyance_name} was left behind; rejoin it first")
    crew = game.riders_of(conveyance_name)
    if conveyance.kind is ConveyanceKind.MOUNT:
        if role is not Role.RIDER:
            raise RuleViolation(f"{conveyance_name} is a mount; a character rides it (--as rider)")
        if crew:
            raise RuleViolation(f"{conveyance_name} already carries {crew[0].name}")
    else:
        if role is Role.RIDER:
            raise RuleViolation(
                f"{conveyance_name} is a vehicle; board it --as driver or --as passenger"
            )
        drivers = [c.name for c in crew if c.role is Role.DRIVER]
        if role is Role.DRIVER and drivers:
            raise RuleViolation(f"{conveyance_name} is already driven by {drivers[0]}")
    return MemberAssigned(character=name, conveyance=conveyance_name, role=role)


def dismount(situation: Situation, name: str) -> Decision:
    from domain.roster_events import MemberDismounted

    member = character(situation.game, name)
    _own(situation.game, name)
    if member.conveyance is None:
        raise RuleViolation(f"{name} is already on foot")
    return MemberDismounted(character=name, conveyance=member.conveyance)


def _own(game: Game, name: str) -> None:
    """Refuse acting on a member of another party (RULES.md §15)."""
    owner = game.party_of(name)
    if owner != game.party:
        raise RuleViolation(f"{name} belongs to party {owner}, not party {game.party}; "
                            f"give --party {owner}")


def leave(situation: Situation, name: str) -> Decision:
    from domain.roster_events import MemberLeftBehind

    game = situation.game
    if name in game.characters:
        member = game.characters[name]
        on_foot = [name] if member.conveyance is not None else []
        with_party = member.with_party
    elif name in game.conveyances:
        with_party = game.conveyances[name].with_party
        on_foot = [c.name for c in game.riders_of(name)]
    else:
        raise NotFound(f"nobody called {name!r} is on the roster; "
                       f"{known({**game.characters, **game.conveyances}, 'members')}")
    _own(game, name)
    if not with_party:
        raise RuleViolation(f"{name} was already left behind")
    return MemberLeftBehind(name=name, at=game.position, on_foot=on_foot)


def rejoin(situation: Situation, name: str) -> Decision:
    from domain.roster_events import MemberRejoined

    game = situation.game
    member = game.member(name)
    if member is None:
        raise NotFound(f"nobody called {name!r} is on the roster")
    _own(game, name)
    if member.with_party or member.left_at is None:
        raise RuleViolation(f"{name} is already with the party")
    if member.left_at != game.position:
        where = member.left_at
        raise RuleViolation(
            f"{name} waits at {where.x},{where.y}; the party must stand there to pick them up"
        )
    return MemberRejoined(name=name)


def set_supplies(situation: Situation, values: Mapping[str, int]) -> Decision:
    from domain.roster_events import SuppliesSet

    return SuppliesSet(values=dict(values))


def add_supplies(situation: Situation, amounts: Mapping[str, int]) -> Decision:
    supplies = situation.game.supplies
    for kind, amount in amounts.items():
        if supplies[kind] + amount > MAX_AMOUNT:
            raise RuleViolation(f"the party would hold {supplies[kind] + amount:,} {kind}; Trek "
                                f"keeps at most {MAX_AMOUNT:,} of a supply")
    return SuppliesAdded(amounts=dict(amounts))


def spend_supplies(situation: Situation, amounts: Mapping[str, int]) -> Decision:
    from domain.roster_events import SuppliesSpent

    supplies = situation.game.supplies
    for kind, amount in amounts.items():
        if amount > supplies[kind]:
            raise RuleViolation(f"the party has {supplies[kind]} {kind}, not the {amount} to spend")
    return SuppliesSpent(amounts=dict(amounts))


def check_harm_pools(situation: Situation, name: str, health: int, energy: int) -> None:
    """Refuse harm a ruleset has no use for: a character whose ruleset gives it no Health and
    no Energy (both maxima 0) has nothing for harm to take.
    Checked as the GM gives the command; a harm recorded before this check stands."""
    who = character(situation.game, name)
    if who.health_max or who.energy_max:
        return
    given = [flag for flag, amount in (("--health", health), ("--energy", energy)) if amount]
    lacks = f"the {situation.ruleset} ruleset has no Health or Energy"
    if given:
        raise RuleViolation(f"{lacks}; leave out {' and '.join(given)}")
    raise RuleViolation(f"{lacks} for harm to take from {name}")


def harm(situation: Situation, name: str, health: int, energy: int,
         reason: str | None) -> Decision:
    from domain.roster_events import Harmed

    character(situation.game, name)
    if health == 0 and energy == 0:
        raise RuleViolation("say how much harm: --health N and/or --energy N")
    return Harmed(character=name, health=health, energy=energy, reason=reason)


def bounds(info: FieldInfo) -> tuple[int, int]:
    """The lowest and highest value a house rule's field allows."""
    low, high = -MAX_AMOUNT, MAX_AMOUNT
    for constraint in info.metadata:
        low = getattr(constraint, "ge", low)
        high = getattr(constraint, "le", high)
    return low, high


def house_rules(ruleset: Ruleset, game: Game) -> dict[str, int]:
    """Every house rule of the campaign's ruleset, by the name a GM types, with its value."""
    rules = ruleset.house_rules.model_validate(game.rules).model_dump()
    return {name.replace("_", "-"): int(value) for name, value in rules.items()}


def set_rule(ruleset: Ruleset, situation: Situation, key: str, value: int) -> Decision:
    rules = house_rules(ruleset, situation.game)
    if not rules:
        raise NotOffered(f"the {ruleset.name} ruleset has no house rules; nothing was recorded")
    if key not in rules:
        raise RuleViolation(f"{key!r} is not a house rule; use {', '.join(rules)}")
    low, high = bounds(ruleset.house_rules.model_fields[key.replace("-", "_")])
    if low == 0 and value < 0:
        raise RuleViolation(f"{key} is 0 or more, not {value}")
    check_number(value, key, low, high)
    from domain.roster_events import HouseRuleChanged

    previous = rules[key]
    if previous == value:
        raise RuleViolation(f"{key} is already {value}")
    return HouseRuleChanged(key=key, value=value, previous=previous)
