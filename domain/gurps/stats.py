"""A GURPS fighter's movement stats: Basic Move and Basic Speed, the traits that change how it
moves, and the ground, water and air Move they give (RULES §8)."""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from domain.errors import NotOffered, RuleViolation
from domain.ruleset import given_stat_flags

if TYPE_CHECKING:
    from domain.options import CharacterOptions

TRAITS = ("amphibious", "aquatic", "flight", "walk-on-air")
# The stat options a gurps character takes (CharacterOptions.extra keys).
STAT_OPTIONS = frozenset({"basic_move", "basic_speed", "trait", "water_move_bonus",
                          "air_move_bonus"})
MAX_MOVE = 100
AVERAGE_MOVE = 5
MAX_BONUS = 100
# A land-dweller cannot raise its water Move by more than this.
LAND_WATER_BONUS = 2


def number(value: Fraction) -> int | float:
    """An exact half (or quarter) as a JSON number: an int when whole, else e.g. 1.5."""
    if value.denominator == 1:
        return int(value)
    return float(value)


def exact(value: Any) -> Fraction:
    """A recorded number read back exactly (halves and quarters are exact in binary)."""
    return Fraction(value)


def _whole(value: Any, flag: str, low: int, high: int) -> int:
    if isinstance(value, bool) or not isinstance(value, int):
        raise RuleViolation(f"{flag} is a whole number, not {value!r}")
    if not low <= value <= high:
        raise RuleViolation(f"{flag} is {low} to {high}, not {value}")
    return value


def _speed(value: Any) -> Fraction:
    if isinstance(value, bool) or not isinstance(value, (int, float)) or not math.isfinite(
            value):
        raise RuleViolation(f"--basic-speed is a number such as 5.75, not {value!r}")
    speed = Fraction(value)
    if not 0 <= speed <= MAX_MOVE:
        raise RuleViolation(f"--basic-speed is 0 to {MAX_MOVE}, not {value}")
    if (speed * 4).denominator != 1:
        raise RuleViolation(f"--basic-speed goes in quarters (5, 5.25, 5.5, 5.75), not {value}")
    return speed


def _traits(value: Any) -> list[str]:
    given: Iterable[Any] = value if isinstance(value, (list, tuple)) else [value]
    traits: set[str] = set()
    for trait in given:
        name = str(trait).strip().lower()
        if name not in TRAITS:
            raise RuleViolation(f"{trait!r} is not a trait this tracker knows; use "
                                f"{', '.join(TRAITS)}")
        traits.add(name)
    return sorted(traits)


def movement_stats(options: CharacterOptions) -> dict[str, Any]:
    """The `stats` a gurps character is recorded with, checked and normalised (re-deciding
    from them gives them back unchanged)."""
    refuse_other_rulesets(options)
    extra = options.extra
    # Without them, the figures of average attributes (DX 10, HT 10): Basic Speed 5.00 and
    # Basic Move 5; Basic Move alone gives Basic Speed equal to it, Basic Speed alone gives
    # Basic Move as it rounded down.
    speed = _speed(extra["basic_speed"]) if extra.get("basic_speed") is not None else None
    move = (_whole(extra["basic_move"], "--basic-move", 0, MAX_MOVE)
            if extra.get("basic_move") is not None
            else math.floor(speed) if speed is not None else AVERAGE_MOVE)
    if speed is None:
        speed = Fraction(move)
    traits = _traits(extra.get("trait", []))
    water = _whole(extra.get("water_move_bonus", 0), "--water-move-bonus", -MAX_BONUS,
                   MAX_BONUS)
    air = _whole(extra.get("air_move_bonus", 0), "--air-move-bonus", -MAX_BONUS, MAX_BONUS)
    land_dweller = "amphibious" not in traits and "aquatic" not in traits
    if water > 0 and land_dweller:
        if options.skills.get("swimming", 0) < 1:
            raise RuleViolation("raising water Move (--water-move-bonus) needs the swimming "
                                "skill (--skill swimming=L) unless amphibious or aquatic")
        if water > LAND_WATER_BONUS:
            raise RuleViolation(f"a land-dweller raises its water Move by at most "
                                f"+{LAND_WATER_BONUS}, not +{water}")
    if air != 0 and "flight" not in traits:
        raise RuleViolation("--air-move-bonus changes the air Move that flight gives; add "
                            "--trait flight, or leave the bonus out")
    return {"basic_move": move, "basic_speed": number(speed), "trait": traits,
            "water_move_bonus": water, "air_move_bonus": air}


def refuse_other_rulesets(options: CharacterOptions) -> None:
    """BESM's and Cypher's stat options are refused by name."""
    given = given_stat_flags(options)
    if given:
        raise NotOffered(
            f"{', '.join(given)} {'is' if len(given) == 1 else 'are'} another ruleset's "
            f"option{'s' if len(given) > 1 else ''}; a gurps character takes --basic-move, "
            "--basic-speed, --trait, --water-move-bonus, --air-move-bonus and --skill")


def ground_move(stats: Mapping[str, Any]) -> int:
    """Basic Move, or 0 for an aquatic fighter."""
    if "aquatic" in stats.get("trait", []):
        return 0
    return int(stats.get("basic_move", 0))


def water_move(stats: Mapping[str, Any]) -> int:
    """Basic Move ÷ 5 rounded down, or Basic Move when amphibious or aquatic; plus the bonus."""
    move = int(stats.get("basic_move", 0))
    traits = stats.get("trait", [])
    base = move if ("amphibious" in traits or "aquatic" in traits) else move // 5
    return max(0, base + int(stats.get("water_move_bonus", 0)))


def air_move(stats: Mapping[str, Any]) -> int:
    """0; with flight 2 × Basic Speed rounded down plus the bonus; with walk-on-air the ground
    Move; with both, the larger."""
    traits = stats.get("trait", [])
    moves = [0]
    if "flight" in traits:
        speed = exact(stats.get("basic_speed", 0))
        moves.append(max(0, math.floor(2 * speed) + int(stats.get("air_move_bonus", 0))))
    if "walk-on-air" in traits:
        moves.append(ground_move(stats))
    return max(moves)
