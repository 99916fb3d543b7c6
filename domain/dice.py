"""2d6 roll-under checks, and dice keyed by campaign seed and event position. A roll as an
event records it is `domain.rolls.Roll`, loaded the first time a command rolls."""

import random
from collections.abc import Mapping
from typing import TYPE_CHECKING, Protocol

from domain.errors import RuleViolation

if TYPE_CHECKING:
    from domain.rolls import Roll


class Dice(Protocol):
    """Where a roll's total comes from: the GM, the seeded generator or the record."""

    def roll(self, label: str, count: int = 2, sides: int = 6
             ) -> tuple[int, tuple[int, ...] | None]:
        """The total of `count` dice of `sides` faces rolled under `label`, and the faces
        (None when the GM gave the total)."""
        ...


def check(label: str, target: int, dice: Dice, by: str | None = None) -> "Roll":
    """Roll 2d6 under `target`: success when the total does not exceed it."""
    from domain.rolls import Roll

    total, faces = dice.roll(label)
    return Roll(
        label=label,
        by=by,
        total=total,
        dice=faces,
        target=target,
        success=total <= target,
        margin=target - total,
    )


def check_given_total(total: int, what: str = "a 2d6 roll") -> int:
    if not 2 <= total <= 12:
        raise RuleViolation(f"{what} of {total} is impossible; two six-sided dice total 2 to 12")
    return total


class KeyedDice:
    """Rolls keyed by (seed, event position, label), so no roll depends on another event's."""

    def __init__(self, seed: int, seq: int, given: Mapping[str, int] | None = None) -> None:
        self.seed = seed
        self.seq = seq
        self.given = dict(given or {})
        self.used: list[str] = []

    def roll(self, label: str, count: int = 2, sides: int = 6
             ) -> tuple[int, tuple[int, ...] | None]:
        self.used.append(label)
        if label in self.given:
            total = self.given[label]
            if (count, sides) == (2, 6):
                return check_given_total(total), None
            if not count <= total <= count * sides:
                raise RuleViolation(f"a roll of {total} on {count}d{sides} is impossible; "
                                    f"give {count} to {count * sides}")
            return total, None
        rng = random.Random(f"trek:{self.seed}:{self.seq}:{label}")
        faces = tuple(rng.randint(1, sides) for _ in range(count))
        return sum(faces), faces


    def check_all_given_used(self, command: str) -> None:
        """Refuse a decision that would silently drop a roll the GM gave."""
        unused = [label for label in self.given if label not in self.used]
        if unused:
            who = ", ".join(self.used) or "nobody"
            raise RuleViolation(
                f"the roll given for {unused[0]!r} is not needed: nobody of that name rolls "
                f"for this {command} (names are matched exactly; rolling: {who})")


class RecordedDice:
    """The dice an event already recorded, for re-checking it without rolling again."""

    def __init__(self, rolls: Mapping[str, "Roll"]) -> None:
        self.rolls = dict(rolls)

    def roll(self, label: str, count: int = 2, sides: int = 6
             ) -> tuple[int, tuple[int, ...] | None]:
        try:
            recorded = self.rolls[label]
        except KeyError:
            raise RuleViolation(
                f"it would now need a roll for {label} that was never made"
            ) from None
        return recorded.total, recorded.dice
