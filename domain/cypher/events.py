"""Cypher long-term travel's events: days of exact fractions, and transit toward a square."""

from typing import Any, ClassVar

from domain.cypher.state import Journey, Transit
from domain.events import RouteMark, TrekEvent
from domain.geometry import Square
from domain.state import Day, Game


class DayStarted(TrekEvent):
    """A travel day opens: the whole day is the budget (kept as a fraction in the state)."""

    party_scoped: ClassVar[bool] = True
    overland: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("day-start",)

    class_version: ClassVar[int] = 2

    number: int

    def apply_to(self, game: Game) -> None:
        game.day = Day(number=self.number, open=True)
        with Journey.edit(game) as today:
            today.spent, today.miles = "0", 0

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        # Release 0.1 shared one day-start event with BESM; its squares were always 0 here.
        state.pop("base", None)
        state.pop("budget", None)


class DayEnded(TrekEvent):
    """The travel day closes; this ruleset has no rest or upkeep rules."""

    party_scoped: ClassVar[bool] = True
    overland: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("day-end",)

    closes_day: ClassVar[bool] = True

    class_version: ClassVar[int] = 2

    number: int
    hours: int = 8

    def apply_to(self, game: Game) -> None:
        game.day.open = False

    @staticmethod
    def upcast_v1_v2(state: dict[str, Any]) -> None:
        # Release 0.1 shared one day-end event with BESM; its rest fields were always empty.
        for key in ("strain", "on_foot", "recovery", "upkeep", "chosen"):
            state.pop(key, None)


class Travelled(TrekEvent):
    """Cypher: a day's travel in exact fractions of a day, possibly ending in transit."""

    party_scoped: ClassVar[bool] = True
    overland: ClassVar[bool] = True
    undo_kinds: ClassVar[tuple[str, ...]] = ("move",)

    # The square left, then every square arrived at.
    path: list[Square]
    spent: str
    miles: int = 0
    # Progress toward a square whose cost is not yet paid: the square and what is left to pay.
    toward: Square | None = None
    still_to_pay: str | None = None
    # A transit given up by turning elsewhere, with the part of a day that was still owed.
    dropped: Transit | None = None

    def distance(self) -> tuple[int, int]:
        return len(self.path) - 1, self.miles

    def route_path(self) -> list[Square]:
        return list(self.path)

    def route_marks(self) -> list[RouteMark]:
        marks = []
        if self.dropped is not None:
            marks.append(RouteMark(
                "turned-aside", f"gave up the way to {self.dropped.to.x},{self.dropped.to.y}"))
        if self.toward is not None:
            marks.append(RouteMark(
                "under-way", f"under way to {self.toward.x},{self.toward.y}, "
                f"{self.still_to_pay} of a day still to go"))
        return marks

    def apply_to(self, game: Game) -> None:
        from fractions import Fraction

        game.position = self.path[-1]
        with Journey.edit(game) as today:
            today.spent = str(Fraction(today.spent) + Fraction(self.spent))
            today.miles += self.miles
            if self.toward is not None and self.still_to_pay is not None:
                today.transit = Transit(to=self.toward, remaining=self.still_to_pay)
            else:
                today.transit = None


EVENTS: tuple[type[TrekEvent], ...] = (DayStarted, Travelled, DayEnded)
