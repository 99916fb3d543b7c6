"""Who a command is recorded for: a GM by name, or a player's seat whose request a GM approved."""

from __future__ import annotations

from typing import NamedTuple

from domain.values import check_name


class Actor(NamedTuple):
    """Who a command is recorded for, stamped on the event it records.

    `name` is the GM whose word records the command: the GM's own command, or, for a request a
    player's seat made (RULES §14), the GM who approved it. `seat` is the seat that asked for it
    (its events' `requested_by`), None for the GM's own command. Both are names as a GM types
    them (`check`).
    """

    name: str
    seat: str | None = None

    @classmethod
    def gm(cls, name: str) -> Actor:
        """The GM `name`, recording a command of their own."""
        return cls(name)

    @classmethod
    def request(cls, seat: str, *, approved_by: str) -> Actor:
        """Seat `seat`'s request, recorded on the word of the GM `approved_by`."""
        return cls(approved_by, seat)

    def check(self) -> Actor:
        """This actor, once its names pass the checks every name a GM types gets (printable,
        one line, at most 40 characters, no `=`); else a RuleViolation saying which."""
        check_name(self.name, "GM name")
        if self.seat is not None:
            check_name(self.seat, "seat name")
        return self
