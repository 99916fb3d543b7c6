"""Undo and redo: decided by the application, which reads the log around the target."""

from __future__ import annotations

from dataclasses import dataclass
from typing import ClassVar

from domain.commands import Reason
from domain.ruleset import Command


@dataclass(frozen=True)
class Undo(Command):
    """Cancel event `seq`, else the newest live event (of kind `last`, a word of
    `Registry.undo_kinds`)."""

    what: ClassVar[str] = "undo"
    reads_log: ClassVar[bool] = True

    seq: int | None = None
    cascade: bool = False
    reason: Reason = None
    last: str | None = None


@dataclass(frozen=True)
class Redo(Command):
    """Restore event `seq` (or what reversal `seq` cancelled)."""

    what: ClassVar[str] = "redo"
    reads_log: ClassVar[bool] = True

    seq: int
    reason: Reason = None
