"""The one small hierarchy of errors a user can trigger in the domain."""

from __future__ import annotations


class TrackerError(Exception):
    """Anything Trek refuses; its message is one sentence meant for the GM."""


class RuleViolation(TrackerError):
    """A command the rules do not allow in the campaign's current state."""


class NotFound(RuleViolation):
    """A named character, conveyance, map feature or event that does not exist."""


class NotOffered(RuleViolation):
    """A command the campaign's ruleset does not have."""


class TamperedLog(TrackerError):
    """A log (or a snapshot) changed behind Trek's back: recording stops until it is looked at."""


class NewerStore(TrackerError):
    """A store holding events this release cannot read, written by a newer Trek."""


class MapError(TrackerError):
    """A map file that cannot be used, with the line it went wrong on."""

    def __init__(self, reason: str, line: int | None = None) -> None:
        self.reason = reason
        self.line = line
        where = f"line {line}: " if line is not None else ""
        super().__init__(f"{where}{reason}")
